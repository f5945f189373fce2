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
    var model: OverlayModel
    let painter: OverlayPainter
    /// kiosk.conf `overlay.enabled`; when false only the idle screen's line uses the font.
    let isEnabled: Bool
    /// What the picture on screen has drawn over it (nil: no overlay).
    var drawn: OverlayContent?
    var lastFrame: DecodedFrame?
    weak var lastFrameItem: ActiveItem?
    var lastPresent: MediaTime?

    init(model: OverlayModel, painter: OverlayPainter, isEnabled: Bool) {
        self.model = model; self.painter = painter; self.isEnabled = isEnabled
    }

    /// The overlay for kiosk.conf's settings; nil without settings or when the font cannot be
    /// loaded (one clear error: playback goes on without overlay).
    static func make(_ config: OverlayConfig?, logger: Logger) -> OverlayState? {
        guard let config else { return nil }
        do {
            let face = try FontLocator.open(config.font)
            logger.debug("overlay font: \(face.path) (\(face.familyName))")
            return OverlayState(model: OverlayModel(hideAfter: config.hideAfter),
                                painter: OverlayPainter(rasterizer: face), isEnabled: config.enabled)
        } catch {
            logger.error("overlay: \(error); playing without the on-screen display")
            return nil
        }
    }
}

extension PlaybackLoop {
    /// While no new frame comes, a picture is drawn again only this often for the overlay
    /// (the spinner turns at 8 steps a second; labels change once a second).
    static let overlayRedrawInterval = MediaTime(value: 1, timescale: 10)

    func noteOverlayInput(_ note: OverlayNote) {
        guard let overlay, overlay.isEnabled else { return }
        let now = MonotonicClock.hostTime()
        switch note {
        case .input: overlay.model.noteInput(at: now)
        case .scrub(let time): overlay.model.noteScrub(to: time, at: now)
        }
    }

    /// New overlay settings (a live reload of kiosk.conf): the font is loaded again; nil turns
    /// overlay and idle text off.
    func configureOverlay(_ config: OverlayConfig?) {
        overlay = OverlayState.make(config, logger: logger)
    }

    /// What the overlay shows now over the current item; nil when hidden or off.
    func overlayContent(at now: MediaTime) -> OverlayContent? {
        guard let overlay, overlay.isEnabled, let item = current else { return nil }
        let view = OverlayPlayerView(position: currentTime, duration: state.duration ?? item.duration,
                                     timeControlStatus: state.timeControlStatus, title: item.entry.title)
        return overlay.model.content(at: now, player: view)
    }

    /// The presenter's hook: after the scaler drew the picture, before the flip.
    /// With the overlay off (only the idle screen's font loaded) nothing is drawn or kept.
    func drawOverlay(into buffer: PixelBuffer) {
        guard let overlay, overlay.isEnabled else { return }
        let content = overlayContent(at: MonotonicClock.hostTime())
        if let content { overlay.painter.paint(content, into: buffer, rotation: output.softwareRotation) }
        overlay.drawn = content
    }

    /// After the flip: `frame` is on screen, kept to be drawn again. The frame it replaces is
    /// freed here, after the flip, as it was before there was an overlay (freeing the last
    /// frame of a closed item frees its decoder's buffer pool).
    func keepForOverlay(_ frame: DecodedFrame, of item: ActiveItem) {
        guard let overlay, overlay.isEnabled else { return }
        overlay.lastFrame = frame
        overlay.lastFrameItem = item
        overlay.lastPresent = MonotonicClock.hostTime()
    }

    /// Paused, waiting or on a still, no frame comes to carry the overlay's change (shown after
    /// the tap that paused, hidden `hide_after` later, a scrub's position): the last picture is
    /// scaled and flipped again with the new overlay. Its stats line says `"event":"overlay"`.
    /// While a video plays, its own frames carry the overlay: a redraw would only delay them.
    func refreshOverlayIfStale() {
        guard let overlay, let item = current, let frame = overlay.lastFrame, overlay.lastFrameItem === item else { return }
        guard state.timeControlStatus != .playing || item.plan.stillDuration != nil else { return }
        let now = MonotonicClock.hostTime()
        guard overlayContent(at: now) != overlay.drawn else { return }
        if let last = overlay.lastPresent, now - last < Self.overlayRedrawInterval { return }
        present(frame, of: item, event: "overlay")
    }

    /// The idle screen's line.
    func idleReason(retryAfter: MediaTime) -> String {
        let seconds = Int(retryAfter.seconds.rounded())
        let total = navigator.entries.count
        guard total > 0 else { return "Nothing to play: the playlist is empty; retrying in \(seconds) s" }
        // The cursor answers nothingPlayable only once every entry failed in the pass (and
        // then forgets the pass), so the count is all of them.
        return "No playable item: \(total) of \(total) failed; retrying in \(seconds) s"
    }
}
