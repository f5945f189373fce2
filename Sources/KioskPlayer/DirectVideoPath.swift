import KioskCore
import KioskMedia
import Logging

/// The direct video path: frames scanned out on a hardware plane, no CPU conversion. Holds the
/// display that can, the configuration last asked about and its answer, and what was logged.
/// Rules (README, "Video planes"):
/// - only NV12/YUV420 frames, and only configurations the display accepted (TEST_ONLY);
/// - while the on-screen display is visible the CPU path draws (the OSD is blended into the
///   XRGB picture); the idle screen is CPU-drawn anyway. Switching paths is one commit;
/// - a refusal, or a commit failing while playing, turns the path off for good with one log
///   line; playback goes on, on the CPU.
final class DirectVideoPath {
    struct Configuration: Hashable {
        var format: VideoFrameFormat
        var frameSize: PixelSize
        var layout: GravityLayout
    }

    let output: DirectVideoOutput
    /// The service watchdog's: a plane's present is a picture shown, or a display failing,
    /// like one of the CPU path (which MonitoredOutput records).
    let heartbeat: PresenterHeartbeat
    let logger: Logger
    private var configuration: Configuration?
    private var answer: DirectScanoutAnswer?
    /// Set once the display refused or a commit failed while playing: the CPU path for good.
    private var isOff = false
    /// The last reason logged, so a reason is said once, not per frame.
    private var loggedReason: String?
    /// The plane announced as in use.
    private var announcedPlane: UInt32?

    init(output: DirectVideoOutput, heartbeat: PresenterHeartbeat, handOn: PrimeHandOn, logger: Logger) {
        self.output = output
        self.heartbeat = heartbeat
        self.logger = logger
        layerPlane = (output as? LayerPlaneOutput).map { LayerPlanePath(output: $0, logger: logger) }
        zeroCopy = (output as? PrimeScanoutOutput).map { ZeroCopyPath(output: $0, handOn: handOn, logger: logger) }
    }

    /// Frames in another device's memory shown as they are, where the display can import them.
    let zeroCopy: ZeroCopyPath?

    /// The layers' plane, where the display has the capability.
    let layerPlane: LayerPlanePath?

    /// What the CPU path would draw over the frame and a plane can carry instead: the layers.
    struct Layers {
        let state: LayerState
        let rotation: Rotation
        let refreshInterval: Double
    }

    /// Shows `frame` on a video plane when the display can, with `layers` on the layers' plane
    /// over it; the flip's CLOCK_MONOTONIC seconds and the first ticker's position, or nil when
    /// the CPU path must draw it (`overlayVisible`: the OSD is up; layers and no plane for them).
    /// `hold` runs once a plane takes the frame, before its commit and the layers' placing: a
    /// plane flips when asked, so a timed frame waits there for the flip it was chosen for.
    func present(_ frame: DecodedFrame, layout: GravityLayout, overlayVisible: Bool, layers: Layers? = nil,
                 keepsCopies: Bool = false, hold: () -> Void = {}) -> (flip: Double, ticker: Int?, zeroCopy: Bool)? {
        // A copy that failed where a frame's pixels were read (the frame before, a screenshot).
        zeroCopy?.sayFailedCopies()
        // Zero copy has its own off switch: the copy path refused (an earlier item's YU12, say)
        // says nothing about importing another device's frames.
        if let picture = frame.prime, !overlayVisible,
           let shown = presentZeroCopy(picture, layout: ZeroCopyPath.layout(layout, from: frame.size, to: picture.descriptor.size),
                                       layers: layers, keepsCopies: keepsCopies, hold: hold) {
            return (shown.flip, shown.ticker, true)
        }
        // The copy path shows it (the OSD is up, the plane refused it): the next frames come
        // copied down. One left on its device is copied where it is read, at its full size (no
        // shrink on the decode thread): the CPU path draws it rather than the plane being asked
        // for a size it may refuse for good while the frames after it are the usual ones.
        if frame.prime != nil {
            zeroCopy?.needsCopies()
            if !frame.isInMemory { return nil }
        }
        guard !isOff else { return nil }
        guard let view = frame.yuvView else {
            noteCPUPath("frames are \(frame.pixelFormatName), not NV12 or YUV420 (limited range)")
            return nil
        }
        if overlayVisible { return nil }   // drawn into the CPU picture; back on the plane once it hides
        let asked = Configuration(format: view.format, frameSize: view.size, layout: layout)
        if asked != configuration || answer == nil {
            configuration = asked
            answer = output.prepareDirectScanout(format: view.format, frameSize: view.size, layout: layout)
        }
        switch answer! {
        case .ready(let scanout):
            // Asked before the hold: layers without a plane send the frame to the CPU path, which
            // holds to its own estimate once drawn.
            if layers != nil, layerPlane?.prepare(over: scanout) != true { return nil }
            hold()
            guard let (change, ticker) = layersChange(layers, over: scanout) else { return nil }
            do {
                let flip = try layerPlane.map { try $0.output.presentDirect(view, on: scanout, layers: change) }
                    ?? output.presentDirect(view, on: scanout)
                layerPlane?.committed(change)
                heartbeat.pictureShown()
                if announcedPlane != scanout.planeID {
                    announcedPlane = scanout.planeID
                    let turned = scanout.rotation == .none ? "" : ", turned \(scanout.rotation.degrees)°"
                    logger.notice("video plane: scanning \(scanout.format) out on plane \(scanout.planeID) (\(scanout.source) -> \(scanout.destination)\(turned)), no CPU conversion")
                }
                return (flip, ticker, false)
            } catch {
                // The watchdog hears of it; the CPU path's present of this frame, next, clears it.
                heartbeat.displayFailed(error)
                // Closed under the presenter (a stop): the plane did nothing wrong.
                if outputWasClosed(error) { return nil }
                isOff = true
                logger.warning("video plane: plane \(scanout.planeID) failed while playing (\(error)); converting on the CPU from now on")
                return nil
            }
        case .unavailable(let reason):
            noteCPUPath(reason)
            return nil
        case .refused(let reason):
            isOff = true
            noteCPUPath(reason)
            return nil
        }
    }

    /// The layers' plane's part of a commit over `scanout` (hidden when there are no layers) and
    /// the first ticker's position; nil when the layers cannot go on a plane now (the CPU path
    /// draws the frame and them).
    func layersChange(_ layers: Layers?, over scanout: PlaneScanout) -> (change: LayerPlaneChange, ticker: Int?)? {
        guard let layers else { return (.hide, nil) }
        guard let layerPlane, layerPlane.prepare(over: scanout) else { return nil }
        return layerPlane.change(for: layers.state, rotation: layers.rotation,
                                 flipTime: output.expectedFlip(after: MonotonicClock().now()),
                                 refreshInterval: layers.refreshInterval)
    }

    /// A refresh between two frames on the plane path: the moving layers (a ticker) one step
    /// on, on their plane alone. The flip's time and the ticker's position; nil when the plane
    /// does not carry the layers now.
    func refreshLayers(_ layers: Layers) -> (flip: Double, ticker: Int?)? {
        guard !isOff, let layerPlane, layerPlane.shown != nil else { return nil }
        guard let drawn = layerPlane.change(for: layers.state, rotation: layers.rotation,
                                            flipTime: output.expectedFlip(after: MonotonicClock().now()),
                                            refreshInterval: layers.refreshInterval) else { return nil }
        if case .keep = drawn.change { return nil }
        do {
            let flip = try layerPlane.output.presentLayers(drawn.change)
            layerPlane.committed(drawn.change)
            heartbeat.pictureShown()
            return (flip, drawn.ticker)
        } catch {
            heartbeat.displayFailed(error)
            if outputWasClosed(error) { return nil }
            isOff = true
            logger.warning("layers' plane: a refresh failed (\(error)); converting on the CPU from now on")
            return nil
        }
    }

    /// The display switched the planes off (a CPU-path flip, the screen's power): the layers
    /// are shown again with the next frame on the plane.
    func planesHidden() { layerPlane?.hidden() }

    private func noteCPUPath(_ reason: String) {
        // A display given back under the presenter answers "closed": no path's fault.
        guard reason != loggedReason, !output.wasClosed else { return }
        loggedReason = reason
        announcedPlane = nil
        logger.notice("video plane: not used, converting on the CPU: \(reason)")
    }
}
