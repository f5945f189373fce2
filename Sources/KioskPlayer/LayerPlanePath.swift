import KioskCore
import Logging

/// The layers on a plane of their own, over the video plane (issue 32): kiosk.conf `layers`
/// drawn into the display's ARGB buffers instead of into each video frame's picture, so the
/// frame stays on the YUV plane unconverted. The still layers (clock, text, logo, a ticker's
/// box) are composed once into a transparent canvas, again only when one changes; each buffer
/// gets them whole when it holds an older composition, else only the moving strips (a ticker's
/// line, drawn again at each refresh). Rules (README, "Video planes"):
/// - asked once per video scanout (TEST_ONLY with the video plane); no plane or a refusal: the
///   layers go into the CPU picture, as before, said in one line;
/// - a drawing that fails turns the plane off for the layers for good (one line).
final class LayerPlanePath {
    let output: LayerPlaneOutput
    let logger: Logger
    /// The scanout last asked about and whether the layers may go over it.
    private var askedFor: PlaneScanout?
    private var ready = false
    private var isOff = false
    private var loggedReason: String?
    /// The plane last said to carry the layers.
    private var announced: UInt32?
    /// The still layers on a transparent canvas, brought into the plane's buffers.
    private let stills = ComposedPicture()
    /// What the plane shows: the buffer last committed (for a composed screenshot); nil: off.
    private(set) var shown: PixelBuffer?

    init(output: LayerPlaneOutput, logger: Logger) {
        self.output = output
        self.logger = logger
    }

    /// Whether the layers can go on a plane over the video as `scanout` shows it.
    func prepare(over scanout: PlaneScanout) -> Bool {
        guard !isOff else { return false }
        if scanout != askedFor {
            askedFor = scanout
            switch output.prepareLayerPlane(over: scanout) {
            case .ready(let planeID):
                ready = true
                // Said once per plane, not at each item's new rectangles.
                if announced != planeID {
                    logger.notice("layers' plane: the layers are drawn on plane \(planeID) over the video plane \(scanout.planeID)")
                }
                announced = planeID
                loggedReason = nil
            case .unavailable(let reason):
                ready = false
                announced = nil
                note(reason)
            }
        }
        return ready
    }

    /// The layers' plane's part of the next commit, for a flip at `flipTime`: `layers` drawn
    /// into a back buffer when they changed (or move), else kept; the first ticker's position.
    /// nil when drawing failed: the plane is off for the layers from now on.
    func change(for layers: LayerState, rotation: Rotation, flipTime: Double,
                refreshInterval: Double) -> (change: LayerPlaneChange, ticker: Int?)? {
        let stale = !stills.hasPicture || layers.isStale()
        guard stale || layers.moves || shown == nil else { return (.keep, nil) }
        do {
            let back = try output.layerBuffer()
            if stale {
                let canvas = stills.canvas(size: back.size, format: .argb8888)
                canvas.fill(PixelRect(size: back.size), color: 0)
                layers.draw(into: canvas, rotation: rotation)
                stills.composed()
            }
            stills.bring(into: back, strips: layers.movingStrips(bufferSize: back.size, rotation: rotation))
            let ticker = layers.drawMoving(into: back, rotation: rotation, flipTime: flipTime, refreshInterval: refreshInterval)
            return (.show(back), ticker)
        } catch {
            isOff = true
            ready = false
            note("drawing them failed (\(error))")
            return nil
        }
    }

    /// After the commit that carried `change`.
    func committed(_ change: LayerPlaneChange) {
        switch change {
        case .keep: break
        case .show(let buffer): shown = buffer
        case .hide: shown = nil
        }
    }

    /// A CPU-path flip switched the plane off (the display does so with the video plane); the
    /// layers may change meanwhile in the CPU picture, so they are composed again when back.
    func hidden() {
        shown = nil
        stills.forget()
    }

    /// The layers changed (a reload, `kiosk ctl layer`): composed again at the next commit.
    func invalidate() { stills.forget() }

    private func note(_ reason: String) {
        guard reason != loggedReason else { return }
        loggedReason = reason
        logger.notice("layers' plane: not used, the layers are drawn into the CPU picture: \(reason)")
    }
}
