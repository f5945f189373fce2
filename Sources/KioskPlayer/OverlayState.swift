import KioskCore
import KioskMedia
import KioskText
import Logging

/// What input tells the overlay.
enum OverlayNote: Sendable {
    /// A tap or key: show the overlay.
    case input
    /// A scrub asked for this time in the item: show it on the bar at once.
    case scrub(to: MediaTime)
}

/// The overlay on the presenter thread: the model (when it shows, what it says), the painter
/// with its font, and what is needed to draw it again while no new frame comes (paused,
/// waiting, a still image): the last picture, to scale it once more.
final class OverlayState {
    /// While no new frame comes, a picture is drawn again only this often for the overlay
    /// (the spinner turns at 8 steps a second; labels change once a second).
    static let redrawInterval = MediaTime(value: 1, timescale: 10)

    var model: OverlayModel
    let painter: OverlayPainter
    /// kiosk.conf `overlay.enabled`; when false only the idle screen's line uses the font.
    let isEnabled: Bool
    /// What the picture on screen has drawn over it (nil: no overlay).
    var drawn: OverlayContent?
    private(set) var lastFrame: DecodedFrame?
    private(set) weak var lastFrameOwner: AnyObject?
    private var lastPresent: MediaTime?

    init(model: OverlayModel, painter: OverlayPainter, isEnabled: Bool) {
        self.model = model; self.painter = painter; self.isEnabled = isEnabled
    }

    /// The overlay for kiosk.conf's settings; nil without settings or when the font cannot be
    /// loaded (one clear error: playback goes on without overlay).
    static func make(_ config: OverlayConfig?, logger: Logger) -> OverlayState? {
        guard let config else { return nil }
        do {
            let face = try FontLocator.open(config.font)
            for problem in face.problems { logger.error("overlay: \(problem); the other fonts are used") }
            logger.debug("overlay font: \(face.path) (\(face.familyName)), \(face.faces.count - 1) fallbacks")
            return OverlayState(model: OverlayModel(hideAfter: config.hideAfter),
                                painter: OverlayPainter(rasterizer: face), isEnabled: config.enabled)
        } catch {
            logger.error("overlay: \(error); playing without the on-screen display")
            return nil
        }
    }

    func note(_ note: OverlayNote) {
        guard isEnabled else { return }
        let now = MonotonicClock.hostTime()
        switch note {
        case .input: model.noteInput(at: now)
        case .scrub(let time): model.noteScrub(to: time, at: now)
        }
    }

    /// What the overlay shows now over the player `view` describes; nil when hidden or off.
    func content(at now: MediaTime, over view: OverlayPlayerView?) -> OverlayContent? {
        guard isEnabled, let view else { return nil }
        return model.content(at: now, player: view)
    }

    /// The presenter's hook: after the scaler drew the picture, before the flip.
    /// With the overlay off (only the idle screen's font loaded) nothing is drawn or kept.
    func draw(into buffer: PixelBuffer, over view: OverlayPlayerView?, rotation: Rotation) {
        guard isEnabled else { return }
        let content = content(at: MonotonicClock.hostTime(), over: view)
        if let content { painter.paint(content, into: buffer, rotation: rotation) }
        drawn = content
    }

    /// After the flip: `frame` of `owner` (the item) is on screen, kept to be drawn again. The
    /// frame it replaces is freed here, after the flip, as it was before there was an overlay
    /// (freeing the last frame of a closed item frees its decoder's buffer pool).
    func keep(_ frame: DecodedFrame, of owner: AnyObject) {
        guard isEnabled else { return }
        lastFrame = frame
        lastFrameOwner = owner
        lastPresent = MonotonicClock.hostTime()
    }

    /// Paused, waiting or on a still, no frame comes to carry the overlay's change (shown after
    /// the tap that paused, hidden `hide_after` later, a scrub's position): the last picture of
    /// `owner` to draw again with the new overlay, when one is due. While a video plays, its own
    /// frames carry the overlay: a redraw would only delay them (`carriedByFrames`).
    func frameToRedraw(of owner: AnyObject, over view: OverlayPlayerView?, carriedByFrames: Bool) -> DecodedFrame? {
        guard let frame = lastFrame, lastFrameOwner === owner, !carriedByFrames else { return nil }
        let now = MonotonicClock.hostTime()
        guard content(at: now, over: view) != drawn else { return nil }
        if let lastPresent, now - lastPresent < Self.redrawInterval { return nil }
        return frame
    }
}
