import KioskCore
import KioskFetch
import KioskMedia
import Logging

/// The screen as the playback loop sees it: puts a frame up (on a video plane when the display
/// can and nothing is drawn over it, else scaled into the back buffer with the overlay), shows
/// filler, and tells the observers of presented frames. The loop decides what and when; this
/// decides how.
final class FramePresenter {
    let output: VideoOutput
    let logger: Logger
    /// The on-screen display and idle-screen text; nil without a font.
    var overlay: OverlayState?
    /// kiosk.conf `layers` (a clock, text, a logo); nil for none.
    var layers: LayerState?
    /// `keepLayersDuringOverride`'s names, kept across a reload's new layers.
    var keptDuringOverride: Set<String>?
    /// The direct video path; nil when the display has no planes.
    let directVideo: DirectVideoPath?
    /// What this engine's display asks of its decoders' device frames (zero copy).
    let primeHandOn: PrimeHandOn
    var observers: [PresentedFrameObserver]
    /// How long drawing a frame (scale, overlay) takes before its flip is asked for, smoothed:
    /// the flip a frame can make is the display's first after that.
    private(set) var drawSeconds = 0.0
    /// The same for a refresh between frames (`refreshAnimation`: the moving layers' strips
    /// brought back and drawn again), a lighter draw than a frame's.
    private(set) var refreshDrawSeconds = 0.0
    /// The margin the pacer's aim keeps before a vblank (FramePresenter+Moment.swift).
    var aimLead: CommitLead?
    private(set) var presented = 0
    /// Counts the pictures drawn or put up: a `DrawnFrame` is still in the back buffer, and
    /// still the newest picture, while this has not moved on.
    private(set) var draws = 0
    /// Frames the pacer dropped as too late (`noteDropped`), for the stats and the snapshot.
    private(set) var dropped = 0
    private var lastDisplayError: String?
    /// What the screen shows now, for a screenshot.
    private(set) var onScreen: OnScreen?
    /// How screenshots were last taken (read back or composed), logged when it changes.
    var screenshotSourceLogged: String?
    /// kiosk.conf `display.splash`, decoded once at start; nil: black.
    private let splash: DecodedFrame?
    private let splashScaler = Scaler()
    /// The picture with its still layers, composed once per frame when a layer moves (or the
    /// picture alone during a transition).
    let composed = ComposedPicture()
    /// Fades and crossfades at seams: the look of each flip.
    let transitions: SeamTransitions
    /// The last video frame put up and where, for a crossfade's held picture.
    private var lastVideo: (frame: DecodedFrame, layout: GravityLayout)?

    enum OnScreen {
        /// A CPU-drawn buffer, the one last flipped (the front buffer: nothing draws into it).
        case buffer(PixelBuffer)
        /// A frame a video plane scans out, and the layout it has on screen.
        case plane(DecodedFrame, GravityLayout)
    }

    init(output: VideoOutput, overlay: OverlayConfig?, layers: [LayerConfig] = [], splash: String? = nil,
         observers: [PresentedFrameObserver], heartbeat: PresenterHeartbeat, logger: Logger) {
        self.output = output
        self.logger = logger
        self.observers = observers
        self.splash = splash.flatMap { Self.loadSplash($0, screen: output.size, logger: logger) }
        self.overlay = OverlayState.make(overlay, logger: logger)
        self.layers = LayerState.make(layers, font: overlay?.font ?? .auto, feedFetch: SmallHTTPGet.feed, logger: logger)
        let handOn = PrimeHandOn()
        primeHandOn = handOn
        directVideo = output.directVideo.map { DirectVideoPath(output: $0, heartbeat: heartbeat, handOn: handOn, logger: logger) }
        transitions = SeamTransitions(logger: logger)
        // A ticker composes every frame in memory: made now, not on the first frame (whose
        // flip it would make late).
        if self.layers?.moves == true { composed.prepare(size: output.size) }
    }

    /// New overlay settings (a live reload of kiosk.conf): the font is loaded again; nil turns
    /// overlay and idle text off.
    func configureOverlay(_ config: OverlayConfig?) {
        overlay = OverlayState.make(config, logger: logger)
    }

    /// Stops what the layers run beside the presenter (a feed's thread).
    func stop() { layers?.stop() }

    func noteDropped() { dropped += 1 }

    /// The layers as a plane over the video would carry them; nil without layers.
    private var planeLayers: DirectVideoPath.Layers? {
        layers.map { .init(state: $0, rotation: output.softwareRotation, refreshInterval: output.refreshInterval.seconds) }
    }

    /// When a flip asked for now would reach the screen, once this frame is drawn: the pacer
    /// chooses the frame for it (the aim), with a margin before a vblank grid's tick.
    func expectedFlip(afterHost now: MediaTime) -> MediaTime {
        MonotonicClock.hostTime(seconds: output.expectedFlip(after: now.seconds + drawSeconds + aimMargin))
    }

    /// Puts `frame` up, with the overlay over `view` (nil: no overlay); `shown` says what it is
    /// for the observers. `timed`: the pacer chose the frame for the flip it foresees, which it
    /// must not go up before (else, a first frame or a redraw goes up as soon as it can, unless a
    /// ticker or a transition's look drawn with it was placed for that flip). The flip's
    /// CLOCK_MONOTONIC seconds, or nil if the display failed (logged once per kind of failure;
    /// playback goes on trying).
    func present(_ frame: DecodedFrame, layout: GravityLayout, scaler: Scaler, overlay view: OverlayPlayerView?,
                 shown: PresentedFrame, predrawn: PredrawnPicture? = nil, timed: Bool) -> Double? {
        switch draw(frame, layout: layout, scaler: scaler, overlay: view, shown: shown, predrawn: predrawn,
                    timed: timed, holdable: false) {
        case .flipped(let flip): flip
        case .drawn(let drawn): commit(drawn)
        case .failed: nil
        }
    }

    /// What `draw` did.
    enum DrawOutcome {
        /// Put up; the flip's CLOCK_MONOTONIC seconds.
        case flipped(Double)
        /// Drawn into the back buffer; its flip is the caller's to ask for (`commit`).
        case drawn(DrawnFrame)
        /// The display failed (logged).
        case failed
    }

    /// `present`, except that with `holdable` a frame drawn the plain way (on the CPU, with
    /// no transition or moving layer: nothing else is drawn for that flip) is left in the back
    /// buffer for the caller to `commit` at its moment, or to drop for something newer.
    func draw(_ frame: DecodedFrame, layout: GravityLayout, scaler: Scaler, overlay view: OverlayPlayerView?,
              shown: PresentedFrame, predrawn: PredrawnPicture? = nil, timed: Bool, holdable: Bool) -> DrawOutcome {
        do {
            var shown = shown
            let now = MonotonicClock.hostTime()
            draws += 1
            lastVideo = (frame, layout)
            transitions.releaseIfOver(atHost: now)
            // Asked only where a plane could take the frame: the CPU path works the overlay out
            // once, in `draw`. A transition mixes on the CPU path.
            if let directVideo,
               let onPlane = directVideo.present(frame, layout: layout,
                                                 overlayVisible: transitions.shows(atHost: now)
                                                    || overlay?.content(at: now, over: view) != nil,
                                                 layers: planeLayers, keepsCopies: transitions.mixesPictures,
                                                 hold: { holdOnPlane(shown, timed: timed) }) {
                overlay?.drawn = nil
                shown.flipTime = onPlane.flip
                shown.ticker = onPlane.ticker
                shown.zeroCopy = onPlane.zeroCopy
                shown.uncopied = onPlane.zeroCopy && !frame.isInMemory
                noteAimed(shown)
                onScreen = .plane(frame, layout)
                return .flipped(finish(shown))
            }
            directVideo?.planesHidden()
            let drawStart = MonotonicClock().now()
            let back = try output.backBuffer()
            // Never before the flip the pacer chose the frame for (its aim kept a margin).
            var flipEstimate = max(output.expectedFlip(after: drawStart + drawSeconds), shown.aim ?? 0)
            var plain = false
            if transitions.shows(atHost: MonotonicClock.hostTime(seconds: flipEstimate)) {
                // The picture alone in memory; each flip until the transition ends mixes it.
                let canvas = composed.canvas(size: back.size)
                try scaler.draw(frame, layout: layout, into: canvas)
                composed.composed(bare: true)
                drawTransition(into: back, flipTime: flipEstimate, shown: &shown)
            } else if let layers, layers.moves {
                // Composed in memory, then brought over whole: the refreshes until the
                // next frame copy only the moving layers' strips from it.
                let canvas = composed.canvas(size: back.size)
                try scaler.draw(frame, layout: layout, into: canvas)
                layers.draw(into: canvas, rotation: output.softwareRotation)
                composed.composed()
                composed.bring(into: back, strips: [])
                shown.ticker = layers.drawMoving(into: back, rotation: output.softwareRotation,
                                                 flipTime: flipEstimate, refreshInterval: output.refreshInterval.seconds)
                flipEstimate = placeTickerAgainIfLate(layers, in: back, placedFor: flipEstimate, shown: &shown)
            } else {
                if let predrawn, predrawn.pts == frame.pts, predrawn.layout == layout, predrawn.picture.buffer.size == back.size {
                    back.copyPixels(from: predrawn.picture.buffer)
                } else {
                    try scaler.draw(frame, layout: layout, into: back)
                }
                layers?.draw(into: back, rotation: output.softwareRotation)
                plain = true
            }
            overlay?.draw(into: back, over: view, rotation: output.softwareRotation)
            if overlay?.drawn != nil { composed.spoil(back) }
            drawSeconds += (MonotonicClock().now() - drawStart - drawSeconds) / 8
            // A ticker placed for the flip foreseen, or a transition's look, is timed whatever the frame is.
            let drawn = DrawnFrame(back: back, shown: shown, flip: flipEstimate, draw: draws,
                                   timed: timed || shown.ticker != nil || shown.look != nil)
            if holdable && plain { return .drawn(drawn) }
            return commit(drawn).map { .flipped($0) } ?? .failed
        } catch {
            noteDisplayError(error)
            return .failed
        }
    }

    /// Asks for `drawn`'s flip and waits for it: its CLOCK_MONOTONIC seconds, or nil if the
    /// display failed.
    /// `heldByTheLoop`: the loop held the drawn frame to a moment of its own (overrides armed):
    /// its CommitLead, not the aim's margin, hears whether the vblank was made.
    /// `flipAsked` runs as soon as the display has the flip (or refused it), before the
    /// frame's observers (stats, snapshots): the held flip's real-time moment ends there.
    func commit(_ drawn: DrawnFrame, heldByTheLoop: Bool = false, flipAsked: () -> Void = {}) -> Double? {
        // Its callers ask `isNewest` first; a buffer drawn over since is never flipped.
        guard isNewest(drawn) else {
            flipAsked()
            logger.warning("display: a frame drawn before another picture was not put up")
            return nil
        }
        var shown = drawn.shown
        if drawn.timed { holdUntilItsFlip(drawn.flip) }
        do {
            shown.flipTime = try output.present(drawn.back)
        } catch {
            flipAsked()
            noteDisplayError(error)
            return nil
        }
        if !heldByTheLoop { noteAimed(shown) }
        flipAsked()
        shown.buffer = drawn.back
        onScreen = .buffer(drawn.back)
        return finish(shown)
    }

    /// Whether nothing was drawn or put up since `drawn` (a command carried out while it
    /// waited may have put up filler over it).
    func isNewest(_ drawn: DrawnFrame) -> Bool { drawn.draw == draws }

    /// A drawn frame will not go up: what the overlay and the layers drew with it is not on
    /// screen (a pause that came meanwhile redraws the picture with them as they are now).
    func drop(_ drawn: DrawnFrame) {
        overlay?.drawn = nil
        layers?.forgetDrawn()
    }

    private func finish(_ shown: PresentedFrame) -> Double {
        lastDisplayError = nil
        presented += 1
        observers.forEach { $0.presented(shown) }
        return shown.flipTime
    }

    /// Said once per kind of failure. A display closed under the presenter (the session gave
    /// the screen back at a stop it did not obey in time) is not a failure of the screen.
    private func noteDisplayError(_ error: Error) {
        let text = "\(error)"
        if text != lastDisplayError {
            if outputWasClosed(error) {
                logger.info("display: closed while kiosk was still drawing; nothing more is shown")
            } else {
                logger.error("display: \(text)")
            }
        }
        lastDisplayError = text
    }

    /// When what is drawn over a still changes next (a layer's clock turns, a fade-out may
    /// begin); nil: nothing scheduled.
    func nextChange(afterHost now: MediaTime) -> MediaTime? {
        [layers?.nextChange(afterHost: now), transitions.nextWake(afterHost: now)].compactMap { $0 }.min()
    }

    /// Whether the screen changes at every refresh now, whatever the video does: a moving
    /// layer (a ticker) or a transition.
    var animates: Bool { layers?.moves == true || transitions.isMoving(atHost: MonotonicClock.hostTime()) }

    /// A refresh while the picture under it stays: a transition's next look, or the moving
    /// layers (a ticker) one step on over the composed picture's strips, brought back; the
    /// overlay over them. False when there is nothing to refresh (nothing animates, no picture
    /// composed, the display failed).
    func refreshAnimation(overlay view: OverlayPlayerView?, shown: PresentedFrame) -> Bool {
        if case .plane = onScreen, let planeLayers, let refreshed = directVideo?.refreshLayers(planeLayers) {
            var shown = shown
            shown.event = "ticker"
            shown.flipTime = refreshed.flip
            shown.ticker = refreshed.ticker
            observers.forEach { $0.presented(shown) }
            return true
        }
        guard animates, composed.hasPicture, case .buffer = onScreen else { return false }
        do {
            var shown = shown
            draws += 1
            let drawStart = MonotonicClock().now()
            let back = try output.backBuffer()
            let rotation = output.softwareRotation
            // A transition mixes the whole picture, as heavy as a frame's draw.
            let mixing = transitions.shows(atHost: MonotonicClock.hostTime(seconds: drawStart + drawSeconds))
            var flipEstimate = output.expectedFlip(after: drawStart + (mixing ? drawSeconds : refreshDrawSeconds))
            if transitions.shows(atHost: MonotonicClock.hostTime(seconds: flipEstimate)) {
                shown.event = "transition"
                drawTransition(into: back, flipTime: flipEstimate, shown: &shown)
            } else if let layers {
                shown.event = "ticker"
                if composed.isBare, let canvas = composed.buffer {
                    // A transition ended between frames: the still layers join the picture.
                    layers.draw(into: canvas, rotation: rotation)
                    composed.composed()
                }
                placeTicker(layers, in: back, for: flipEstimate, shown: &shown)
                flipEstimate = placeTickerAgainIfLate(layers, in: back, placedFor: flipEstimate, shown: &shown)
            } else {
                return false
            }
            overlay?.draw(into: back, over: view, rotation: rotation)
            if overlay?.drawn != nil { composed.spoil(back) }
            if shown.event == "ticker" { refreshDrawSeconds += (MonotonicClock().now() - drawStart - refreshDrawSeconds) / 8 }
            holdUntilItsFlip(flipEstimate)
            shown.flipTime = try output.present(back)
            shown.buffer = back
            onScreen = .buffer(back)
            lastDisplayError = nil
            observers.forEach { $0.presented(shown) }
            return true
        } catch {
            noteDisplayError(error)
            return false
        }
    }

    /// A transition's flip: the composed picture (alone) mixed at this flip's look into `back`,
    /// the layers drawn over the mix (they stay put while items change under them).
    private func drawTransition(into back: PixelBuffer, flipTime: Double, shown: inout PresentedFrame) {
        guard let canvas = composed.buffer else { return }
        let look = transitions.look(atHost: MonotonicClock.hostTime(seconds: flipTime))
        back.mix(canvas, over: transitions.held?.buffer, look: look)
        // Over the mix at full strength (a canvas composed with them before the transition began,
        // between frames, has them at the same places already).
        layers?.draw(into: back, rotation: output.softwareRotation)
        if let layers, layers.moves {
            shown.ticker = layers.drawMoving(into: back, rotation: output.softwareRotation, flipTime: flipTime,
                                             refreshInterval: output.refreshInterval.seconds)
        }
        composed.spoil(back)   // the next plain flip brings the whole composition back
        transitions.shown(look)
        if !look.isPlain { shown.look = look }
    }

    /// `next` is the current item from now: at a seam (`outgoing` is the item it follows, still
    /// open) a transition committed for it begins; else it shows plainly.
    func enter(_ next: ActiveItem, atSeam: Bool, outgoing: ActiveItem?) {
        transitions.enter(next, atSeam: atSeam) { outgoing.flatMap { holdLastPicture(scaler: $0.scaler) } }
        if transitions.schedule.entry != nil { composed.prepare(size: output.size) }
    }

    /// The last video frame drawn alone at the screen's size, as a crossfade's outgoing
    /// picture (by `scaler`, the outgoing item's, still open); nil before any frame.
    private func holdLastPicture(scaler: Scaler) -> CapturedPicture? {
        guard let (frame, layout) = lastVideo else { return nil }
        let picture = CapturedPicture(size: output.size)
        picture.buffer.fill(PixelRect(size: output.size))
        do {
            try scaler.draw(frame, layout: layout, into: picture.buffer)
        } catch {
            logger.error("transition: cannot draw the outgoing picture (\(error)); cutting")
            return nil
        }
        return picture
    }

    /// Whether kiosk.conf's splash could be loaded.
    var hasSplash: Bool { splash != nil }

    /// Filler, never shown at a seam: the splash fitted to the screen when there is one and
    /// `splash` asks for it (at start, the idle screen), else black (a screen kept dark). With a
    /// font, one centered line over it gives `reason`.
    func presentFiller(item: Int, reason: String? = nil, splash useSplash: Bool = false, picture: DecodedFrame? = nil) {
        composed.forget()
        do {
            draws += 1
            let buffer = try output.backBuffer()
            if let splash = picture ?? (useSplash ? splash : nil) {   // `picture`: a live item's fallback
                buffer.fill(PixelRect(size: buffer.size))
                try splashScaler.draw(splash, layout: Scaler.layout(for: splash, on: output.size, gravity: .fit,
                                                                    displayRotation: output.softwareRotation), into: buffer)
                if let reason, let overlay {
                    overlay.painter.paintIdle(reason: reason, into: buffer, rotation: output.softwareRotation, overPicture: true)
                }
            } else if let reason, let overlay {
                overlay.painter.paintIdle(reason: reason, into: buffer, rotation: output.softwareRotation)
            } else {
                buffer.fill(PixelRect(size: buffer.size))
            }
            let flip = try output.present(buffer)
            directVideo?.planesHidden()
            onScreen = .buffer(buffer)
            let shown = PresentedFrame(flipTime: flip, item: item, pts: 0, dropped: dropped, video: false,
                                       generation: 0, buffer: buffer)
            observers.forEach { $0.presented(shown) }
            lastDisplayError = nil
        } catch {
            noteDisplayError(error)
        }
    }
}
