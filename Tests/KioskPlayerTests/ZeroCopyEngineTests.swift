import Foundation
import KioskCore
import KioskDisplay
@testable import KioskPicture
import KioskMedia
import KioskTestSupport
import Logging
import Testing
@testable import KioskPlayer

/// The zero-copy path through the whole engine, without a card: `--simulate-prime-decoder`'s
/// frames (here in a file's memory: the host has no dma-buf heap) on SimulatedPlaneDisplay's
/// plane, which maps each picture as a card would import it.
@Suite(.serialized) struct ZeroCopyEngineTests {
    static let screen = PixelSize(width: 640, height: 360)
    static let size = DirectVideoEngineTests.first   // 312x232: rows padded past the width

    /// Plays the 1 s clip once with simulated PRIME frames; the stats lines.
    static func play(on display: SimulatedPlaneDisplay, log: CapturedLog, layers: [LayerConfig] = []) throws -> [[String: Any]] {
        try DirectVideoEngineTests.play([size], on: display, log: log) {
            $0.playback.simulatedPrimeDecoder = true
            $0.layers = layers
        }
    }

    static func scanouts(_ stats: [[String: Any]]) -> [String] {
        stats.filter { $0["video"] as? Bool == true }.compactMap { $0["scanout"] as? String }
    }

    static func zeroCopyLines(_ log: CapturedLog) -> [String] {
        log.lines(atLeast: .trace).filter { $0.contains("zero copy") }
    }

    @Test func framesInAnotherDevicesMemoryGoOnThePlaneAsTheyAre() throws {
        let display = SimulatedPlaneDisplay(size: Self.screen)
        let log = CapturedLog()
        let stats = try Self.play(on: display, log: log)
        let scanouts = Self.scanouts(stats)
        // A slow machine may drop a late frame: counts are lower bounds, the kinds exact.
        #expect(scanouts.count >= 20 && Set(scanouts) == ["prime"], "\(scanouts)")
        // Once one went up without a copy, the decoder leaves the next ones on their device: the
        // first was copied down (nothing had shown yet), most after it never were.
        let video = stats.filter { $0["video"] as? Bool == true }
        let uncopied = video.map { $0["copied"] as? Bool == false }
        #expect(uncopied.first == false && uncopied.filter { $0 }.count >= 10, "\(uncopied)")
        let shown = display.primeShown
        #expect(shown.count >= 20 && display.shown.isEmpty && display.cpuPresents == 0, "nothing copied")
        let first = try #require(shown.first)
        #expect(first.size == Self.size && first.layers == [.r8, .gr88] && first.pitch == 512)
        #expect(first.scanout.planeID == 33 && first.scanout.format == .nv12)
        let layout = GravityLayout(source: Self.size, target: Self.screen, gravity: .fit)
        #expect(first.scanout.destination == layout.destination)
        // The luma the "card" found in the buffer is the decoded frame's (FFmpeg's own decode).
        let raw = MediaFixtures.directory.appendingPathComponent("zero-copy-first.yuv").path
        let result = try MediaFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", try DirectVideoEngineTests.clip(Self.size),
                                                      "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", raw])
        #expect(result.status == 0)
        let reference = try Data(contentsOf: URL(fileURLWithPath: raw))
        #expect(first.firstLumaRow == Array(reference.prefix(Self.size.width)))
        #expect(Self.zeroCopyLines(log).count == 1 && Self.zeroCopyLines(log)[0].contains("scanning another device's NV12"),
                "\(Self.zeroCopyLines(log))")
        #expect(log.lines(atLeast: .warning).isEmpty, "\(log.lines(atLeast: .warning))")
    }

    /// Plays on `display`, which refuses zero copy: every frame on the copy path's plane, none
    /// imported, and one zero-copy line, containing `line`.
    static func expectCopiesWithOneLine(on display: SimulatedPlaneDisplay, saying line: String) throws {
        let log = CapturedLog()
        let scanouts = Self.scanouts(try Self.play(on: display, log: log))
        #expect(scanouts.count >= 20 && Set(scanouts) == ["plane"], "the copy path's plane: \(scanouts)")
        #expect(display.primeShown.isEmpty && display.shown.count >= 20)
        let said = Self.zeroCopyLines(log)
        #expect(said.count == 1 && said[0].contains(line), "\(said)")
    }

    @Test func aRefusalCopiesFromThenOnWithOneLine() throws {
        let display = SimulatedPlaneDisplay(size: Self.screen)
        display.primeOptions.refusal = "plane 33 refused NV12: a TEST_ONLY commit failed: Invalid argument (errno 22)"
        try Self.expectCopiesWithOneLine(on: display, saying: "zero copy: not used, copying frames: plane 33 refused NV12")
    }

    /// A plane whose IN_FORMATS lists NV12 only in a tiled layout (as a Pi's lists SAND128 beside
    /// linear): the decoder's linear frames are not put there; the copy path shows them, said once.
    @Test func aLayoutThePlaneDoesNotListCopiesWithOneLine() throws {
        let display = SimulatedPlaneDisplay(size: Self.screen)
        display.overlayModifiers = [.nv12: [FormatModifier.broadcomSAND(columnBytes: 128)], .yuv420: [FormatModifier.linear]]
        try Self.expectCopiesWithOneLine(on: display, saying: "no plane on CRTC #0 takes NV12 laid out as LINEAR")
    }

    @Test func aCommitFailingWhilePlayingCopiesTheSameFrameAndTheRest() throws {
        let display = SimulatedPlaneDisplay(size: Self.screen)
        display.primeOptions.failsAfter = 5
        let log = CapturedLog()
        let scanouts = Self.scanouts(try Self.play(on: display, log: log))
        // The five presents that worked, then the failing frame itself and those left on their
        // device by then drawn by the CPU (copied where it reads them, at full size), then the
        // frames the decoder copied down again on the copy path's plane.
        #expect(display.primeShown.count == 5 && scanouts.count >= 20, "\(scanouts)")
        let after = Array(scanouts.dropFirst(5))
        let cpu = after.prefix { $0 == "cpu" }.count
        #expect(Array(scanouts.prefix(5)) == Array(repeating: "prime", count: 5) && after.dropFirst(cpu).allSatisfy { $0 == "plane" }
                && after.count > cpu, "\(scanouts)")
        let said = Self.zeroCopyLines(log).filter { $0.contains("not used") }
        #expect(said.count == 1 && said[0].contains("failed while playing"), "\(said)")
    }

    /// Frames left on their device (no copy down while zero copy shows them) that something
    /// else shows after all (a commit failed): copied where they are read, and drawn: the CPU
    /// path's first picture is the frame, not black (a failed copy's picture), and nothing says
    /// a copy failed.
    @Test func framesLeftOnTheirDeviceAreCopiedWhereTheyAreRead() throws {
        let display = SimulatedPlaneDisplay(size: Self.screen)
        display.primeOptions.failsAfter = 8
        let log = CapturedLog()
        let stats = try Self.play(on: display, log: log)
        let video = stats.filter { $0["video"] as? Bool == true }
        let firstOther = try #require(video.firstIndex { $0["scanout"] as? String != "prime" }, "\(Self.scanouts(stats))")
        #expect(video[..<firstOther].contains { $0["copied"] as? Bool == false }, "frames had been left on their device")
        #expect(video[firstOther]["scanout"] as? String == "cpu", "\(Self.scanouts(stats))")
        let lit = try #require(display.firstCPUPictureLit)
        // testsrc2 fit on 640x360 lights about 40 % of the screen (its bars and dark patches
        // aside); a failed copy's black picture none.
        #expect(lit > 0.2, "\(Int(lit * 100)) % of the CPU path's first picture is lit")
        #expect(!log.lines(atLeast: .warning).contains { $0.contains("could not be copied") })
    }

    /// A playlist with a crossfade: the mixes read the frames' pixels, so they are copied down
    /// on the decode thread from the first item opened with one (never left on the device to be
    /// copied on the presenter in the mix); zero copy still shows them.
    @Test func aPlaylistWithACrossfadeKeepsItsFramesCopied() throws {
        let display = SimulatedPlaneDisplay(size: Self.screen)
        let stats = try DirectVideoEngineTests.play([Self.size], on: display, log: CapturedLog()) {
            $0.playback.simulatedPrimeDecoder = true
            $0.playback.transition = Transition(kind: .crossfade)
        }
        let video = stats.filter { $0["video"] as? Bool == true }
        #expect(video.count >= 20 && Set(Self.scanouts(stats)) == ["prime"], "\(Self.scanouts(stats))")
        #expect(!video.contains { $0["copied"] as? Bool == false }, "every frame copied down as decoded")
    }

    /// When the zero-copy path asks for copies: not after a frame went up without one, unless a
    /// transition mixes pictures; again when the copy path shows frames and when it turns off.
    /// The engine's own flags: another engine (a second screen, a test beside) never moves them.
    @Test func copiesAreAskedForOnlyWhileSomethingReadsThePixels() throws {
        final class Takes: PrimeScanoutOutput {
            func preparePrimeScanout(format: FourCC, modifier: UInt64, layout: GravityLayout) -> DirectScanoutAnswer {
                .refused(reason: "unused")
            }
            func presentPrime(_ picture: PrimePicture, on scanout: PlaneScanout, layers: LayerPlaneChange) throws -> Double { 0 }
        }
        let handOn = PrimeHandOn()
        func copies() -> Bool { handOn.copyDown.load(ordering: .relaxed) }
        let path = ZeroCopyPath(output: Takes(), handOn: handOn, logger: CapturedLog().logger)
        #expect(copies(), "copies until a frame went up without one")
        let scanout = PlaneScanout(planeID: 33, planeType: .overlay, format: .nv12, source: PixelRect(size: Self.size),
                                   destination: PixelRect(size: Self.size), rotation: .none, needsTestCommit: false)
        path.shown(on: scanout)
        #expect(!copies())
        path.needsCopies()
        #expect(copies(), "the OSD is up")
        path.shown(on: scanout)
        #expect(!copies())
        path.keepsCopies = true
        path.shown(on: scanout)
        #expect(copies(), "a transition mixes pictures")
        path.keepsCopies = false
        path.shown(on: scanout)
        path.turnOff("test")
        #expect(copies(), "off: copies for good")
    }

    @Test func layersKeepTheCopyPath() throws {
        let display = SimulatedPlaneDisplay(size: Self.screen)
        let log = CapturedLog()
        let text = LayerConfig(name: "box", content: .text("KIOSK"), position: .topLeft)
        let scanouts = Self.scanouts(try Self.play(on: display, log: log, layers: [text]))
        #expect(scanouts.count >= 20 && !scanouts.contains("prime"), "\(scanouts)")
        let said = Self.zeroCopyLines(log)
        #expect(said.count == 1 && said[0].contains("layers"), "\(said)")
    }

    /// A device's 4K picture whose copy the decode thread shrank to 1080p: the plane's crop is
    /// the same part of the picture at the picture's own size (even edges, inside it).
    @Test func theCropOfAShrunkCopyIsScaledToTheDevicesPicture() {
        let layout = GravityLayout(source: PixelSize(width: 1920, height: 1080), target: PixelSize(width: 1280, height: 1024),
                                   gravity: .fill)
        let scaled = ZeroCopyPath.layout(layout, from: PixelSize(width: 1920, height: 1080), to: PixelSize(width: 3840, height: 2160))
        let crop = layout.sourceCrop, big = scaled.sourceCrop
        #expect(crop.width < 1920)   // fill on 5:4 crops the sides
        #expect(abs(big.x - 2 * crop.x) <= 2 && abs(big.width - 2 * crop.width) <= 2)
        #expect(big.y == 0 && big.height == 2160)
        #expect(big.x % 2 == 0 && big.y % 2 == 0 && big.maxX <= 3840 && big.maxY <= 2160)
        #expect(scaled.destination == layout.destination && scaled.rotation == layout.rotation)
        // The same size: the same layout.
        #expect(ZeroCopyPath.layout(layout, from: PixelSize(width: 1920, height: 1080), to: PixelSize(width: 1920, height: 1080)) == layout)
    }

    /// A device's frame whose planes make no framebuffer (two R8 layers): zero copy is off for
    /// good with its one line, the display is not asked, and decoders stop exporting frames.
    @Test func aFrameThatCannotBeAFramebufferTurnsZeroCopyOffInOneLine() {
        final class NeverAsked: PrimeScanoutOutput {
            var asked = 0
            func preparePrimeScanout(format: FourCC, modifier: UInt64, layout: GravityLayout) -> DirectScanoutAnswer {
                asked += 1
                return .refused(reason: "not expected")
            }
            func presentPrime(_ picture: PrimePicture, on scanout: PlaneScanout, layers: LayerPlaneChange) throws -> Double {
                asked += 1
                return 0
            }
        }
        let output = NeverAsked(), log = CapturedLog()
        let handOn = PrimeHandOn()
        let path = ZeroCopyPath(output: output, handOn: handOn, logger: log.logger)
        let wantedAtFirst = handOn.wanted.load(ordering: .relaxed)
        #expect(wantedAtFirst)
        let plane = PrimeFrameDescriptor.Plane(object: 0, offset: 0, pitch: 256)
        let picture = PrimePicture(descriptor: PrimeFrameDescriptor(size: PixelSize(width: 256, height: 64),
                                                                    objects: [.init(fd: 3, size: 1 << 16, modifier: 0)],
                                                                    layers: [.init(format: .r8, planes: [plane]), .init(format: .r8, planes: [plane])]),
                                   owner: output, matrix: .bt709)
        let layout = GravityLayout(source: PixelSize(width: 256, height: 64), target: Self.screen, gravity: .fit)
        #expect(path.scanout(for: picture, layout: layout) == nil)
        #expect(path.scanout(for: picture, layout: layout) == nil)
        #expect(path.isOff && output.asked == 0)
        let wantedAfter = handOn.wanted.load(ordering: .relaxed)
        #expect(!wantedAfter)
        let said = Self.zeroCopyLines(log)
        #expect(said.count == 1 && said[0].contains("another device's frame cannot be a framebuffer"), "\(said)")
    }

    /// Frames left on their device whose copy failed where they were read (shown black): one
    /// warning with the count at the next frame, said again only when the count grows.
    @Test func copiesThatFailedAreSaidOncePerChange() {
        final class Quiet: PrimeScanoutOutput {
            func preparePrimeScanout(format: FourCC, modifier: UInt64, layout: GravityLayout) -> DirectScanoutAnswer {
                .refused(reason: "not asked")
            }
            func presentPrime(_ picture: PrimePicture, on scanout: PlaneScanout, layers: LayerPlaneChange) throws -> Double { 0 }
        }
        let log = CapturedLog()
        let handOn = PrimeHandOn()
        let path = ZeroCopyPath(output: Quiet(), handOn: handOn, logger: log.logger)
        path.sayFailedCopies()
        #expect(log.lines(atLeast: .warning).isEmpty, "none failed")
        handOn.failedCopies.wrappingAdd(2, ordering: .relaxed)
        path.sayFailedCopies()
        path.sayFailedCopies()
        handOn.failedCopies.wrappingAdd(1, ordering: .relaxed)
        path.sayFailedCopies()
        #expect(log.lines(atLeast: .warning) == [
            "zero copy: 2 frame(s) left on the decoder's device could not be copied to memory where they were read; shown black",
            "zero copy: 3 frame(s) left on the decoder's device could not be copied to memory where they were read; shown black",
        ])
    }
}
