import KioskCore
import Logging

/// The layers on a plane of their own, over the video plane (issue 32): kiosk.conf `layers`
/// drawn into the display's ARGB buffers instead of into each video frame's picture, so the
/// frame stays on the YUV plane unconverted. The still layers (clock, text, logo, a ticker's
/// box) are composed once into a transparent canvas, again only when one changes; each buffer
/// gets them whole when it holds an older composition, else only the moving strips (a ticker's
/// line, drawn again at each refresh). A sole ticker goes on a plane of its own where the
/// display has one more above (TickerScroll): its window is drawn once per strip's width of
/// travel and each refresh only moves the plane's source. Rules (README, "Video planes"):
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
    /// The ticker's plane: the strip and scanout last asked about and the answer (nil: the
    /// ticker is drawn with the layers), what its window was drawn for, what it shows.
    private var tickerAsked: (strip: PixelRect, scanout: PlaneScanout)?
    private var tickerStrip: PixelRect?
    /// The plane and window last said (a plane id and a size; "" after a refusal was said).
    private var tickerAnnounced: String?
    private var tickerWindow: (text: String?, lineX: Int, cycle: Int, window: PixelBuffer)?
    private(set) var shownTicker: TickerScroll?
    /// Whether the still layers were composed without the ticker's box (it is on its plane).
    private var stillsWithoutTicker = false
    private var scanout: PlaneScanout?

    init(output: LayerPlaneOutput, logger: Logger) {
        self.output = output
        self.logger = logger
    }

    /// Whether the layers can go on a plane over the video as `scanout` shows it.
    func prepare(over scanout: PlaneScanout) -> Bool {
        guard !isOff else { return false }
        self.scanout = scanout
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

    /// The layers' planes' part of the next commit, for a flip at `flipTime`: `layers` drawn
    /// into a back buffer when they changed (or move), else kept; a sole ticker's window moved
    /// along on its own plane; the first ticker's position. nil when drawing failed: the plane
    /// is off for the layers from now on.
    func change(for layers: LayerState, rotation: Rotation, flipTime: Double,
                refreshInterval: Double) -> (change: LayerPlaneChange, ticker: Int?)? {
        do {
            // The plane's back buffer (not on screen): drawn into below when the layers need it.
            let back = try output.layerBuffer()
            let screen = back.size
            let strip = tickerPlaneStrip(layers, screen: screen, rotation: rotation)
            if (strip != nil) != stillsWithoutTicker {
                stillsWithoutTicker = strip != nil
                stills.forget()   // the ticker's box goes into the stills or out of them
            }
            let stale = !stills.hasPicture || layers.isStale()
            var drawn: PixelBuffer? = nil
            var ticker: Int? = nil
            if stale || (layers.moves && strip == nil) || shown == nil {
                if stale {
                    let canvas = stills.canvas(size: back.size, format: .argb8888)
                    canvas.fill(PixelRect(size: back.size), color: 0)
                    layers.draw(into: canvas, rotation: rotation, tickerApart: strip != nil)
                    stills.composed()
                }
                if strip == nil {
                    stills.bring(into: back, strips: layers.movingStrips(bufferSize: back.size, rotation: rotation))
                    ticker = layers.drawMoving(into: back, rotation: rotation, flipTime: flipTime, refreshInterval: refreshInterval)
                } else {
                    stills.bring(into: back, strips: [])
                }
                drawn = back
            }
            guard let strip else { return (drawn.map { .show($0) } ?? .keep, ticker) }
            let (scroll, x) = try tickerScroll(layers, strip: strip, screen: screen, flipTime: flipTime,
                                               refreshInterval: refreshInterval)
            return (.scroll(drawn, ticker: scroll), x)
        } catch {
            // Closed under the presenter (a stop): nothing is drawn any more, and nothing failed.
            if outputWasClosed(error) { return nil }
            isOff = true
            ready = false
            note("drawing them failed (\(error))")
            return nil
        }
    }

    /// The sole ticker's strip when it is on a plane of its own (asked once per strip and
    /// video scanout, said once); nil: it is drawn with the layers.
    private func tickerPlaneStrip(_ layers: LayerState, screen: PixelSize, rotation: Rotation) -> PixelRect? {
        guard let strip = layers.soleTickerStrip(screen: screen, rotation: rotation), let scanout else { return nil }
        if tickerAsked?.strip != strip || tickerAsked?.scanout != scanout {
            if shownTicker != nil {
                // Its plane shows the old strip's window, whose buffers cannot change under it:
                // this commit draws the ticker with the layers (a `.show` takes that plane
                // down), the next asks for the new strip.
                tickerStrip = nil
                return nil
            }
            tickerAsked = (strip, scanout)
            tickerWindow = nil
            let window = PixelSize(width: 2 * strip.width, height: strip.height)
            switch output.prepareTickerPlane(window: window, strip: strip, over: scanout) {
            case .ready(let planeID):
                tickerStrip = strip
                if tickerAnnounced != "\(planeID) \(window)" {
                    logger.notice("layers' plane: the ticker scrolls on plane \(planeID) of its own (a \(window) window)")
                }
                tickerAnnounced = "\(planeID) \(window)"
            case .unavailable(let reason):
                if tickerAnnounced != "", !output.wasClosed {
                    logger.notice("layers' plane: the ticker is drawn with the layers at each refresh: \(reason)")
                }
                tickerStrip = nil
                tickerAnnounced = ""
            }
        }
        return tickerStrip
    }

    /// The ticker's window for a flip at `flipTime` and the line's position: the window shown
    /// now, from further along, while the line moved less than a strip's width since it was
    /// drawn and says the same; else drawn again into the plane's other buffer.
    private func tickerScroll(_ layers: LayerState, strip: PixelRect, screen: PixelSize, flipTime: Double,
                              refreshInterval: Double) throws -> (TickerScroll, Int?) {
        guard let (x, text, cycle) = layers.advanceSoleTicker(flipTime: flipTime, refreshInterval: refreshInterval,
                                                                screen: screen) else {
            throw LayerPlaneError.noTicker
        }
        if let drawn = tickerWindow, drawn.text == text, drawn.cycle == cycle {
            // The window's column at the strip's left edge: how far the line went since it was
            // drawn, on its cycle (its next run is drawn in the window too).
            let sourceX = ((drawn.lineX - x) % cycle + cycle) % cycle
            if text == nil || sourceX + strip.width <= drawn.window.size.width {
                return (TickerScroll(window: drawn.window, sourceX: text == nil ? 0 : sourceX, strip: strip), x)
            }
        }
        let window = try output.tickerBuffer()
        layers.drawSoleTicker(into: window, lineX: x, cycle: cycle, screen: screen)
        tickerWindow = (text, x, cycle, window)
        return (TickerScroll(window: window, sourceX: 0, strip: strip), x)
    }

    enum LayerPlaneError: Error, CustomStringConvertible {
        case noTicker
        var description: String { "the ticker's plane has no ticker to show" }
    }

    /// After the commit that carried `change`.
    func committed(_ change: LayerPlaneChange) {
        switch change {
        case .keep: break
        case .show(let buffer):
            shown = buffer
            shownTicker = nil
        case .scroll(let buffer, let ticker):
            if let buffer { shown = buffer }
            shownTicker = ticker
        case .hide:
            shown = nil
            shownTicker = nil
        }
    }

    /// A CPU-path flip switched the plane off (the display does so with the video plane); the
    /// layers may change meanwhile in the CPU picture, so they are composed again when back.
    func hidden() {
        shown = nil
        shownTicker = nil
        tickerWindow = nil
        stills.forget()
    }

    /// The layers changed (a reload, `kiosk ctl layer`): composed again at the next commit.
    func invalidate() {
        stills.forget()
        tickerWindow = nil
    }

    private func note(_ reason: String) {
        // A display given back under the presenter answers "closed": no plane's fault.
        guard reason != loggedReason, !output.wasClosed else { return }
        loggedReason = reason
        logger.notice("layers' plane: not used, the layers are drawn into the CPU picture: \(reason)")
    }
}
