import Foundation
import KioskCore
import KioskDisplay
import KioskMedia

/// `kiosk probe --prime-import FORMAT`: whether this box's display takes frames that live in
/// another device's memory (the zero-copy path of hardware decoding) before a hardware decoder
/// is involved. Colour bars are written into dma-buf heap buffers (memory of no display
/// device, as a decoder's output is), described as FFmpeg describes a decoder's DRM PRIME frame
/// (one layer per picture plane, as VA-API exports them: R8 + GR88 for NV12, R16 + GR32 for
/// P010), read back through the same conversion a decoder's frame takes, imported onto the card,
/// and flipped on the video plane; most imports are released without a flip, so the handle
/// bookkeeping runs thousands of times in seconds. The report says what the driver did and
/// whether every handle came back.
public struct PrimeImportCheck {
    public var format: FourCC
    /// The memory layout the frames are described in. The bars are written linearly: described
    /// as another layout (a Pi's SAND128), only the plane's answer and the import mean anything.
    public var modifier: UInt64
    public var imports: Int
    public var flips: Int
    public var screenshotPath: String?

    public init(format: FourCC, modifier: UInt64 = FormatModifier.linear, imports: Int = 10_000, flips: Int = 60,
                screenshotPath: String? = nil) {
        self.format = format
        self.modifier = modifier
        self.imports = max(1, imports)
        self.flips = max(1, min(flips, self.imports))
        self.screenshotPath = screenshotPath
    }

    public struct Report: Encodable, Sendable {
        public var card = "", driver = "", format = "", layers: [String] = [], screen = ""
        /// The frames' layout (`FormatModifier.name`), and the layouts each plane taking the
        /// format lists for it in IN_FORMATS (by plane id; "no IN_FORMATS" where it has none).
        public var modifier = ""
        public var planesList: [String: [String]] = [:]
        public var plane: UInt32?
        public var refusal: String?
        public var importsDone = 0, flipsDone = 0
        /// Colour bars shifted by this many places are the last frame shown.
        public var lastShift: Int?
        /// The most GEM handles and open imports at once during the run (a handle per buffer).
        public var peakHandles = 0, peakOpenImports = 0
        /// Handles of the imports that still named a buffer after the loop: only the shown frame's.
        public var handlesStandingAfterLoop: [UInt32] = []
        public var shownFrameHandles: [UInt32] = []
        /// Counts once the display was closed: both 0 when every import was released.
        public var handlesAfterClose = -1, openImportsAfterClose = -1
        public var ownBufferSameHandle: Bool?, ownBufferSurvivedRelease: Bool?, ownBufferClosedAfterFree: Bool?
        /// Each shown frame imported a second time while shown (a decoder handing a surface out
        /// twice): the same handles every time, and releasing the second import left the first's.
        public var repeatImportsShareHandles = true
        public var screenshot: String?
        public var passed = false
    }

    /// The report in a few lines for a person.
    public static func describe(_ report: Report) -> String {
        var lines = ["\(report.card) (\(report.driver), \(report.screen)): \(report.format) frames of another device's memory, "
            + "laid out \(report.modifier), as layers \(report.layers.joined(separator: " + "))"]
        if report.modifier != FormatModifier.name(FormatModifier.linear) {
            lines.append("  the bars are written linearly: described so, the plane's answer and the import are checked, not the picture")
        }
        for (plane, listed) in report.planesList.sorted(by: { $0.key < $1.key }) {
            lines.append("  plane \(plane) lists \(report.format) as: \(listed.joined(separator: ", "))")
        }
        if let refusal = report.refusal { lines.append("  refused: \(refusal)") }
        if let plane = report.plane { lines.append("  plane \(plane): \(report.importsDone) imports, \(report.flipsDone) flipped, zero copy") }
        lines.append("  handles: at most \(report.peakHandles) held by \(report.peakOpenImports) imports; after the loop \(report.handlesStandingAfterLoop) "
            + "stood (the shown frame's: \(report.shownFrameHandles)); after closing \(report.handlesAfterClose) handles, \(report.openImportsAfterClose) imports")
        lines.append("  each shown frame imported again while shown: same handles, kept after that release: \(report.repeatImportsShareHandles)")
        if let same = report.ownBufferSameHandle {
            lines.append("  kiosk's own buffer imported back: same handle \(same), kept after the import's release "
                + "\(report.ownBufferSurvivedRelease ?? false), closed once freed \(report.ownBufferClosedAfterFree ?? false)")
        }
        if let screenshot = report.screenshot { lines.append("  screen read back into \(screenshot)") }
        lines.append(report.passed ? "passed" : "FAILED")
        return lines.joined(separator: "\n")
    }

    /// Runs the check on `options`' display; throws only when the display cannot be opened.
    public func run(options: DRMDisplayOptions) throws -> Report {
        var options = options
        // A check, not playback: a slow flip is not a failure (a starved TCG guest stalls for
        // seconds; CI's once for over 5 s).
        options.flipTimeout = max(options.flipTimeout, 30)
        let display = try DRMDisplay(options: options)
        var report = Report()
        report.card = display.cardPath
        report.driver = display.driverName
        report.format = format.description
        report.modifier = FormatModifier.name(modifier)
        report.screen = "\(display.scanoutSize)"
        for (plane, listed) in display.listedModifiers(for: format) {
            report.planesList[String(plane)] = listed.map { $0.map(FormatModifier.name) } ?? ["no IN_FORMATS"]
        }
        do {
            try check(display, &report)
        } catch {
            report.refusal = report.refusal ?? "\(error)"
        }
        try? display.close()
        let counts = display.primeImportCounts
        report.handlesAfterClose = counts.handles
        report.openImportsAfterClose = counts.imports
        report.passed = report.refusal == nil && report.importsDone == imports && report.flipsDone == flips
            && counts == (0, 0) && report.handlesStandingAfterLoop == report.shownFrameHandles && report.repeatImportsShareHandles
            && report.ownBufferSameHandle == true && report.ownBufferSurvivedRelease == true && report.ownBufferClosedAfterFree == true
        return report
    }

    private func check(_ display: DRMDisplay, _ report: inout Report) throws {
        let size = display.scanoutSize
        let layout = GravityLayout(source: size, target: display.logicalSize, gravity: .fit)
        let answer = display.preparePrimeScanout(format: format, modifier: modifier, layout: layout)
        guard case .ready(let scanout) = answer else {
            report.refusal = answer.reason ?? "no plane for \(format)"
            return
        }
        report.plane = scanout.planeID
        let own = try display.checkOwnBufferImport()
        (report.ownBufferSameHandle, report.ownBufferSurvivedRelease, report.ownBufferClosedAfterFree) =
            (own.sameHandle, own.survivedRelease, own.closedAfterFree)
        // Three buffers, as a decoder's pool turns: each shown frame is held until the next flip.
        let frames = try (0..<3).map { try BarFrame(format: format, modifier: modifier, size: size, shift: $0) }
        report.layers = frames[0].descriptor.layers.map(\.format.description)
        var seen = Set<UInt32>()
        var shown: PrimeFramebuffer?
        for index in 0..<imports {
            let frame = frames[index % frames.count]
            // The descriptor goes through FFmpeg's AVDRMFrameDescriptor and back, as a decoder's would.
            guard let prime = PrimeFrame.wrapping(frame.descriptor) else { throw DRMError.badPrimeFrame(.empty) }
            let framebuffer = try display.importPrime(prime.descriptor)
            seen.formUnion(framebuffer.handles)
            let counts = display.primeImportCounts
            report.peakHandles = max(report.peakHandles, counts.handles)
            report.peakOpenImports = max(report.peakOpenImports, counts.imports)
            report.importsDone += 1
            if index >= imports - flips {
                do {
                    _ = try display.presentPrime(framebuffer, on: scanout)
                } catch {
                    if !framebuffer.isHeldByDisplay { framebuffer.release() }
                    throw error
                }
                shown = framebuffer
                report.flipsDone += 1
                let again = try display.importPrime(prime.descriptor)
                report.repeatImportsShareHandles = report.repeatImportsShareHandles && again.handles == framebuffer.handles
                again.release()
                report.repeatImportsShareHandles = report.repeatImportsShareHandles
                    && display.standingHandles(among: framebuffer.handles) == framebuffer.handles
                report.lastShift = frame.shift
            } else {
                framebuffer.release()
            }
        }
        report.shownFrameHandles = shown?.handles ?? []
        report.handlesStandingAfterLoop = display.standingHandles(among: Array(seen)).sorted()
        if let screenshotPath {
            // Waited for up to 30 s: vkms composes it in a worker, which CI's loaded guest once
            // left unrun for over 5 s (the check ends as soon as it comes).
            if try display.readBack(timeout: 30, { try? PNGWriter.write($0, to: screenshotPath) }) { report.screenshot = screenshotPath }
        }
    }
}

/// Colour bars of one shift in a dma-buf heap buffer, and the descriptor a decoder would give it.
private struct BarFrame {
    let shift: Int
    let buffer: HeapBuffer
    let descriptor: PrimeFrameDescriptor

    init(format: FourCC, modifier: UInt64, size: PixelSize, shift: Int) throws {
        self.shift = shift
        let pattern = ColorBarPattern(width: size.width, shift: shift)
        guard let geometry = PrimeFramebufferPlan.planeGeometry(format: format, size: size), format != .yuv420 else {
            throw DRMError.badPrimeFrame(.unknownLayerCombination([format]))
        }
        // Pitches of 256-byte multiples, as hardware decoders align them; the planes one after another.
        var offset = 0
        var planes: [(offset: Int, pitch: Int, rows: Int)] = []
        for (rowBytes, rows) in geometry {
            let pitch = (rowBytes + 255) / 256 * 256
            planes.append((offset, pitch, rows))
            offset += pitch * rows
        }
        buffer = try HeapBuffer(byteCount: (offset + 4095) / 4096 * 4096)
        for (index, plane) in planes.enumerated() {
            guard let row = pattern.row(format: format, plane: index) else { continue }
            buffer.fill(row: row, rows: plane.rows, offset: plane.offset, pitch: plane.pitch)
        }
        let single: [FourCC] = format == .p010 ? [.r16, .gr1616] : [.r8, .gr88]
        descriptor = PrimeFrameDescriptor(
            size: size,
            objects: [.init(fd: buffer.fd, size: buffer.byteCount, modifier: modifier)],
            layers: zip(single, planes).map { .init(format: $0, planes: [.init(object: 0, offset: $1.offset, pitch: $1.pitch)]) })
    }
}
