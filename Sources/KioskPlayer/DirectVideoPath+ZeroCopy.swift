import KioskCore
import KioskMedia
import Logging

/// The zero-copy path's state: a picture in another device's memory (a hardware decoder's DRM
/// PRIME frame, `DecodedFrame.prime`) imported and scanned out on the video plane as it is.
/// Rules (README, "Hardware decoding"), one step down at each failure, each said once:
/// - asked per configuration (format and modifier, size, layout); a refusal (no plane takes the
///   format in that memory layout, no scaling, a TEST_ONLY refused) or a frame that cannot be a
///   framebuffer turns it off for good:
///   frames are copied from then on (the video plane's YUV buffers, or the CPU path);
/// - a commit failing while playing does the same, and the frame is shown by the copy path;
/// - the OSD and transitions draw on the CPU path, as for the video plane; with kiosk.conf
///   layers the copy path shows the frames (their plane is tested over its buffers).
final class ZeroCopyPath {
    let output: PrimeScanoutOutput
    private let logger: Logger
    private var asked: (format: FourCC, modifier: UInt64, size: PixelSize, layout: GravityLayout)?
    private var answer: DirectScanoutAnswer?
    private(set) var isOff = false
    private var announced: UInt32?
    /// Something reads the frames' pixels besides the plane (a transition's mix, set once the
    /// playlist has one): they are copied down on the decode thread as well.
    var keepsCopies = false

    /// The engine's, which its decoders read.
    let handOn: PrimeHandOn
    private var failedCopiesSaid = 0

    init(output: PrimeScanoutOutput, handOn: PrimeHandOn, logger: Logger) {
        self.output = output
        self.handOn = handOn
        self.logger = logger
        handOn.wanted.store(true, ordering: .relaxed)   // decoders may keep their frames for it
        handOn.copyDown.store(true, ordering: .relaxed)   // until a frame went up without one
    }

    deinit {
        // A display given back (a reload, the screen switched off): frames are copied down until
        // a zero-copy path shows one again.
        handOn.copyDown.store(true, ordering: .relaxed)
    }

    /// The plane for `picture` laid out by `layout`; nil (said once, off for good) when none.
    func scanout(for picture: PrimePicture, layout: GravityLayout) -> PlaneScanout? {
        guard !isOff else { return nil }
        let format: FourCC, modifier: UInt64
        do {
            let plan = try picture.descriptor.framebufferPlan()
            (format, modifier) = (plan.format, plan.planes.first?.modifier ?? FormatModifier.invalid)
        } catch {
            turnOff("another device's frame cannot be a framebuffer (\(error))")
            return nil
        }
        if asked?.format != format || asked?.modifier != modifier || asked?.size != picture.descriptor.size
            || asked?.layout != layout || answer == nil {
            asked = (format, modifier, picture.descriptor.size, layout)
            answer = output.preparePrimeScanout(format: format, modifier: modifier, layout: layout)
        }
        switch answer! {
        case .ready(let scanout): return scanout
        case .refused(let reason):
            turnOff(reason)
            return nil
        case .unavailable(let reason):
            // For now (the display closed, say): asked again when the configuration changes.
            note(reason)
            return nil
        }
    }

    /// `layout`, made for the frame in memory (`frameSize`), for the device's picture of
    /// `pictureSize`: the decode thread shrinks the copy of a frame much larger than the screen
    /// (4K for 1080p), while the plane scans out the device's full picture, so the crop is
    /// scaled up to it (even edges, for 4:2:0 chroma; inside the picture). The same layout when
    /// the sizes agree.
    static func layout(_ layout: GravityLayout, from frameSize: PixelSize, to pictureSize: PixelSize) -> GravityLayout {
        guard frameSize != pictureSize, !frameSize.isEmpty, !pictureSize.isEmpty else { return layout }
        let crop = layout.sourceCrop
        func scaled(_ value: Int, _ to: Int, _ from: Int) -> Int { Int((Double(value) * Double(to) / Double(from)).rounded()) }
        func even(_ value: Int) -> Int { value - value % 2 }
        let x = even(scaled(crop.x, pictureSize.width, frameSize.width))
        let y = even(scaled(crop.y, pictureSize.height, frameSize.height))
        let maxX = min(pictureSize.width, even(scaled(crop.maxX, pictureSize.width, frameSize.width) + 1))
        let maxY = min(pictureSize.height, even(scaled(crop.maxY, pictureSize.height, frameSize.height) + 1))
        var result = layout
        result.sourceCrop = PixelRect(x: x, y: y, width: max(2, maxX - x), height: max(2, maxY - y))
        return result
    }

    func shown(on scanout: PlaneScanout) {
        // Shown without a copy: the next frames need none either, unless something reads them.
        handOn.copyDown.store(keepsCopies, ordering: .relaxed)
        guard announced != scanout.planeID else { return }
        announced = scanout.planeID
        logger.notice("zero copy: scanning another device's \(scanout.format) frames out on plane \(scanout.planeID) (\(scanout.source) -> \(scanout.destination)), no copy")
    }

    /// Frames left on their device whose copy failed when their pixels were read (shown black):
    /// said at the next frame, once per change.
    func sayFailedCopies() {
        let failed = handOn.failedCopies.load(ordering: .relaxed)
        guard failed != failedCopiesSaid else { return }
        failedCopiesSaid = failed
        logger.warning("zero copy: \(failed) frame(s) left on the decoder's device could not be copied to memory where they were read; shown black")
    }

    /// The copy path shows the next frames for a while (the OSD is up): copied down as before.
    func needsCopies() {
        handOn.copyDown.store(true, ordering: .relaxed)
    }

    func turnOff(_ reason: String) {
        isOff = true
        handOn.wanted.store(false, ordering: .relaxed)   // decoders stop exporting frames for it
        handOn.copyDown.store(true, ordering: .relaxed)
        note(reason)
    }

    private var said: String?

    private func note(_ reason: String) {
        // A display given back under the presenter answers "closed": no import's fault.
        guard reason != said, (output as? VideoOutput)?.wasClosed != true else { return }
        said = reason
        announced = nil
        logger.notice("zero copy: not used, copying frames: \(reason)")
    }
}

extension DirectVideoPath {
    /// Shows `picture` without a copy where the display can; nil: the copy paths show the frame.
    func presentZeroCopy(_ picture: PrimePicture, layout: GravityLayout, layers: Layers?, keepsCopies: Bool = false,
                         hold: () -> Void = {}) -> (flip: Double, ticker: Int?)? {
        guard let zeroCopy, !zeroCopy.isOff else { return nil }
        zeroCopy.keepsCopies = keepsCopies
        guard layers == nil else {
            // The layers' plane is asked for over the video plane's own buffers (TEST_ONLY with
            // them), so with layers the frames take the copy path, where it is.
            zeroCopy.turnOff("kiosk.conf has layers, whose plane goes over the copy path's buffers")
            return nil
        }
        guard let scanout = zeroCopy.scanout(for: picture, layout: layout) else { return nil }
        hold()
        do {
            let flip = try zeroCopy.output.presentPrime(picture, on: scanout, layers: .hide)
            heartbeat.pictureShown()
            zeroCopy.shown(on: scanout)
            return (flip, nil)
        } catch {
            // The copy path shows this frame next; the watchdog hears only if that fails too.
            if outputWasClosed(error) { return nil }
            zeroCopy.turnOff("plane \(scanout.planeID) failed while playing (\(error))")
            return nil
        }
    }
}

extension FramePresenter {
    /// An item that will play in with a fade or crossfade was opened: the pictures mixed are
    /// copied down as they are decoded (from this moment, before its decoder starts).
    func expectTransitions() {
        transitions.expectsMixes()
        primeHandOn.copyDown.store(true, ordering: .relaxed)
    }
}
