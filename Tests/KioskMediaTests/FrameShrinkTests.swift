import CFFmpeg
import KioskCore
import KioskTestSupport
import Testing
@testable import KioskMedia

/// A decoded frame larger than its screen needs is scaled down on the decode thread before it is
/// queued (issue 33, `DecodeShrink`, `FrameShrinker`): the same frames come out at the covering
/// size, as 8-bit 4:2:0 whatever the source's depth, with their timestamps, pixel aspect and
/// range kept, and the picture on screen is the one the full-size frame would have made.
@Suite struct FrameShrinkTests {
    static func clip(_ name: String, pixelFormat: String, extra: [String] = []) throws -> String {
        try MediaFixtures.clip(name, ["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25:duration=0.4",
                                      "-vf", "setsar=4/3", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", pixelFormat] + extra)
    }

    static func decode(_ path: String, covering screens: [PixelSize]) throws -> [DecodedFrame] {
        let asset = try Asset(source: path)
        let demuxer = Demuxer(asset: asset, audio: false)
        let decoder = try VideoDecoder(asset: asset, streamIndex: try #require(demuxer.videoStream))
        decoder.shrinkCovering = screens
        var frames: [DecodedFrame] = []
        func drain() { while case .frame(let frame) = decoder.receive() { frames.append(frame) } }
        while case .packet(let packet) = demuxer.read() {
            while !decoder.send(packet) { drain() }
            drain()
        }
        _ = decoder.send(nil as Packet?)
        drain()
        return frames
    }

    /// `frame` drawn fitted on `screen` (the presenter's path), as bytes.
    static func drawn(_ frame: DecodedFrame, on screen: PixelSize) throws -> [UInt8] {
        let stride = screen.width * 4
        let memory = UnsafeMutableRawPointer.allocate(byteCount: stride * screen.height, alignment: 64)
        defer { memory.deallocate() }
        let buffer = PixelBuffer(base: memory, size: screen, stride: stride, index: 0)
        try Scaler().draw(frame, layout: Scaler.layout(for: frame, on: screen, gravity: .fit), into: buffer)
        return Array(UnsafeRawBufferPointer(start: memory, count: stride * screen.height))
    }

    @Test func aLargeFrameIsQueuedAtTheSizeItsScreenNeedsWithItsTimesAndShape() throws {
        let path = try Self.clip("shrink-720p.mp4", pixelFormat: "yuv420p")
        let screen = PixelSize(width: 480, height: 270)
        let full = try Self.decode(path, covering: [])
        let small = try Self.decode(path, covering: [screen])
        #expect(full.count == 10 && small.count == 10)
        #expect(small.map(\.pts) == full.map(\.pts))
        #expect(full.allSatisfy { $0.size == PixelSize(width: 1280, height: 720) })
        // 4:3 pixels: 1280 stored columns show as 1707 across, so fill on 480x270 keeps
        // 270/720 of the height and 4/3 of that across.
        let expected = try #require(DecodeShrink.size(of: PixelSize(width: 1280, height: 720), sampleAspect: Rational(4, 3),
                                                      quarterTurned: false, covering: [screen]))
        #expect(expected == PixelSize(width: 640, height: 360))
        #expect(small.allSatisfy { $0.size == expected && $0.sampleAspect == Rational(4, 3) })
        #expect(small.allSatisfy { $0.pixelFormatName == "yuv420p" })
        // On screen: the same picture within a level or two (two bilinear steps against one),
        // the same colours too: the untagged 720p frame keeps BT.709 at 640x360 (an untagged
        // frame's matrix is guessed by its size; before the tag, green was 20-40 levels off).
        for (a, b) in zip(full, small).prefix(3) {
            let x = try Self.drawn(a, on: screen), y = try Self.drawn(b, on: screen)
            let mean = Double(zip(x, y).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(x.count)
            #expect(mean < 2.5, "mean difference \(mean) levels at \(a.pts)")
        }
    }

    @Test func aTenBitFullRangeFrameBecomesEightBitWithItsRangeKept() throws {
        let path = try Self.clip("shrink-720p-10bit-pc.mp4", pixelFormat: "yuv420p10le", extra: ["-color_range", "pc"])
        let small = try Self.decode(path, covering: [PixelSize(width: 320, height: 180)])
        let full = try Self.decode(path, covering: [])
        let frame = try #require(small.first), source = try #require(full.first)
        #expect(source.pixelFormatName == "yuv420p10le" && frame.pixelFormatName == "yuv420p")
        #expect(frame.frame.pointee.color_range == AVCOL_RANGE_JPEG && source.frame.pointee.color_range == AVCOL_RANGE_JPEG)
        // The luma keeps its range: the 8-bit mean is the 10-bit mean over 4 (no range squeeze,
        // which would pull it toward 16-235).
        func meanLuma(_ f: DecodedFrame, bytes: Int) -> Double {
            let avFrame = f.frame.pointee
            var total = 0.0
            for y in 0..<Int(avFrame.height) {
                let row = avFrame.data.0! + y * Int(avFrame.linesize.0)
                for x in 0..<Int(avFrame.width) {
                    total += bytes == 2 ? Double(UnsafeRawPointer(row + 2 * x).loadUnaligned(as: UInt16.self)) : Double(row[x])
                }
            }
            return total / Double(Int(avFrame.width) * Int(avFrame.height))
        }
        let eight = meanLuma(frame, bytes: 1), ten = meanLuma(source, bytes: 2) / 4
        #expect(abs(eight - ten) < 1.5, "8-bit mean \(eight), 10-bit mean / 4 \(ten)")
    }

    @Test func anEightBitFrameShrinksFromHalfATenBitOneFromFourFifths() throws {
        // 720p (4:3 pixels) on 720x405: fill keeps 0.75 of each side. The 8-bit frame goes to
        // the presenter's SIMD path as it is; the 10-bit one is shrunk and made 8-bit.
        let screen = PixelSize(width: 720, height: 405)
        let eight = try Self.decode(try Self.clip("shrink-720p.mp4", pixelFormat: "yuv420p"), covering: [screen])
        let ten = try Self.decode(try Self.clip("shrink-720p-10bit-pc.mp4", pixelFormat: "yuv420p10le",
                                                extra: ["-color_range", "pc"]), covering: [screen])
        #expect(eight.allSatisfy { $0.size == PixelSize(width: 1280, height: 720) && $0.pixelFormatName == "yuv420p" })
        #expect(ten.allSatisfy { $0.size == PixelSize(width: 960, height: 540) && $0.pixelFormatName == "yuv420p" })
    }

    @Test func aFrameNoLargerThanItsScreenIsQueuedAsDecoded() throws {
        let path = try Self.clip("shrink-720p.mp4", pixelFormat: "yuv420p")
        let frames = try Self.decode(path, covering: [PixelSize(width: 1280, height: 720)])
        #expect(frames.count == 10 && frames.allSatisfy { $0.size == PixelSize(width: 1280, height: 720) })
    }
}
