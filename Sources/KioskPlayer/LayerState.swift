import Foundation
import KioskCore
import KioskMedia
import KioskText
import Logging

/// kiosk.conf's `layers` on the presenter thread: each layer's text or picture made once (and
/// again only when its text changes or the screen does), blended over the picture after the
/// scaler drew it and before the overlay. A clock's text changes by itself: while frames come
/// they carry it; on a still or while paused the last picture is drawn again when it changed
/// (`frameToRedraw`), once a minute for "HH:mm". A layer that cannot be drawn (a picture
/// that does not decode, no font) is one error line and left out; playback goes on.
final class LayerState {
    private let layers: [LayerConfig]
    private let logger: Logger
    private let rasterizer: TextRasterizer?
    private var clocks: [Int: ClockText] = [:]
    private var images: [Int: LayerImage] = [:]
    /// Layers left out (an image that failed for this screen), by index.
    private var failed: Set<Int> = []
    private var texts: [Int: (text: String, pixelSize: Int, rendered: RenderedText)] = [:]
    private var fileTexts: [Int: (checked: Date, modified: Date?, text: String)] = [:]
    private var screen: PixelSize?
    /// The text each layer had when the picture on screen was drawn.
    private(set) var drawnTexts: [Int: String] = [:]
    /// Each ticker's line and where its run across the screen began.
    private var tickers: [Int: TickerRun] = [:]
    /// Feeds fetched on threads of their own, by layer.
    private let feeds: [Int: TickerFeed]
    /// `kiosk ctl layer`: the layers hidden, the texts replaced, and whether the picture on
    /// screen predates a change.
    private var hidden: Set<Int> = []
    /// While an override has the screen (#35): the layers it keeps up (its `layers:`, a CAP
    /// alert's `text_layer`); the others are hidden until it ends. Nil: no override.
    var keptDuringOverride: Set<String>? {
        didSet { if keptDuringOverride != oldValue { changedSinceDrawn = true } }
    }
    private var replacedTexts: [Int: String] = [:]
    private var changedSinceDrawn = false
    private var keptFrame: DecodedFrame?
    private weak var keptOwner: AnyObject?

    private init(layers: [LayerConfig], rasterizer: TextRasterizer?, feedFetch: @escaping FeedFetch, logger: Logger) {
        self.layers = layers
        self.rasterizer = rasterizer
        self.logger = logger
        var feeds: [Int: TickerFeed] = [:]
        for (index, layer) in layers.enumerated() {
            if case .ticker(.feed(let url, let refresh), _, _) = layer.content {
                feeds[index] = TickerFeed(url: url, refresh: refresh, fetch: feedFetch, logger: logger)
            }
        }
        self.feeds = feeds
        for (index, layer) in layers.enumerated() {
            if case .clock(let format, let zone, let locale) = layer.content {
                clocks[index] = ClockText(pattern: format, timeZone: zone, locale: locale)
            }
        }
    }

    /// `kiosk ctl layer show|hide|text NAME`: nil when done, else why not.
    func change(_ name: String, _ change: LayerChange) -> String? {
        guard let index = layers.firstIndex(where: { $0.name == name }) else {
            return "no such layer; kiosk.conf names " + layers.map(\.name).joined(separator: ", ")
        }
        switch change {
        case .show: hidden.remove(index)
        case .hide: hidden.insert(index)
        case .text(let text):
            switch layers[index].content {
            case .text, .textFile, .ticker: replacedTexts[index] = text
            case .clock, .image: return "a \(layers[index].content.kind) layer has no text to change"
            }
        }
        changedSinceDrawn = true
        return nil
    }

    /// Hidden by `kiosk ctl layer hide`, or left out while an override has the screen.
    private func isHidden(_ index: Int) -> Bool {
        hidden.contains(index) || keptDuringOverride.map { !$0.contains(layers[index].name) } ?? false
    }

    /// Stops the feeds' threads (a reload made new layers, or the player stops).
    func stop() { feeds.values.forEach { $0.stop() } }

    /// The layers for kiosk.conf's list; nil for none. `font`: the overlay's font setting.
    static func make(_ layers: [LayerConfig], font: OverlayConfig.Font, feedFetch: @escaping FeedFetch, logger: Logger) -> LayerState? {
        guard !layers.isEmpty else { return nil }
        var rasterizer: TextRasterizer? = nil
        if layers.contains(where: { if case .image = $0.content { return false } else { return true } }) {
            do {
                let fonts = try FontLocator.open(font)
                for problem in fonts.problems { logger.error("layers: \(problem); the other fonts are used") }
                rasterizer = fonts
            } catch {
                logger.error("layers: \(error); the clock and text layers are left out")
            }
        }
        return LayerState(layers: layers, rasterizer: rasterizer, feedFetch: feedFetch, logger: logger)
    }

    /// The presenter's hook: after the scaler drew the picture, before the overlay.
    /// `tickerApart`: the sole ticker is on a plane of its own, its box not drawn here.
    func draw(into buffer: PixelBuffer, rotation: Rotation, now: Date = Date(), tickerApart: Bool = false) {
        let viewer = OverlayLayout.viewerSize(buffer: buffer.size, rotation: rotation)
        if viewer != screen {
            screen = viewer
            images.removeAll()
            texts.removeAll()
            failed.removeAll()
        }
        var drawn: [Int: String] = [:]
        changedSinceDrawn = false
        for (index, layer) in layers.enumerated() where !failed.contains(index) && !layer.moves && !isHidden(index) {
            let margin = layer.margin.pixels(of: min(viewer.width, viewer.height))
            let opacity = UInt8((layer.opacity * 255).rounded())
            if case .image(let path, let width) = layer.content {
                guard let image = image(index, path: path, width: width, screen: viewer) else { continue }
                let rect = LayerPlacement.rect(of: image.size, at: layer.position, margin: margin, on: viewer)
                buffer.blend(image, at: (rect.x, rect.y), opacity: opacity, rotation: rotation)
                continue
            }
            guard let text = text(of: index, layer, now: now) else { continue }
            drawn[index] = text
            guard let rasterizer, !text.isEmpty else { continue }
            let (pixelSize, padding) = LayerPlacement.textMetrics(size: layer.size, screen: viewer)
            let rendered = rendering(index, text: text, pixelSize: pixelSize, rasterizer: rasterizer)
            let box = PixelSize(width: rendered.mask.width + 2 * padding, height: pixelSize + 2 * padding)
            let rect = LayerPlacement.rect(of: box, at: layer.position, margin: margin, on: viewer)
            if let background = layer.background {
                buffer.blendFill(rect, color: background.rgb, opacity: UInt8(Int(background.alpha) * Int(opacity) / 255), rotation: rotation)
            }
            // The line's baseline sits where the font's ascent puts it in a box one size tall.
            let baseline = rect.y + padding + pixelSize * 4 / 5
            buffer.blend(rendered, at: (rect.x + padding, baseline - rendered.ascent), color: layer.color.rgb,
                         opacity: UInt8(Int(layer.color.alpha) * Int(opacity) / 255), rotation: rotation)
        }
        // A ticker's box does not move: it is drawn with the still layers (into the composed
        // picture), and each refresh only brings it back and draws the line over it.
        for (index, layer) in layers.enumerated() where layer.moves && !isHidden(index) && rasterizer != nil && !tickerApart {
            guard let background = layer.background else { continue }
            let opacity = Int((layer.opacity * 255).rounded())
            buffer.blendFill(strip(of: layer, viewer: viewer), color: background.rgb,
                             opacity: UInt8(Int(background.alpha) * opacity / 255), rotation: rotation)
        }
        drawnTexts = drawn
    }

    /// Whether a layer moves at every refresh (a ticker that can be drawn).
    var moves: Bool { rasterizer != nil && layers.contains(where: \.moves) }

    /// The moving layers' strips, in the buffer's coordinates: what a refresh brings back from
    /// the composed picture before drawing them again.
    func movingStrips(bufferSize: PixelSize, rotation: Rotation) -> [PixelRect] {
        let viewer = OverlayLayout.viewerSize(buffer: bufferSize, rotation: rotation)
        return layers.enumerated().filter { $0.element.moves }.map { _, layer in
            LayerPlacement.bufferRect(strip(of: layer, viewer: viewer), viewer: viewer, rotation: rotation)
        }
    }

    /// Draws the moving layers over the picture for a flip at `flipTime` (monotonic seconds);
    /// the first ticker's line position (its left edge in the strip), for the stats line.
    @discardableResult
    func drawMoving(into buffer: PixelBuffer, rotation: Rotation, flipTime: Double, refreshInterval: Double,
                    now: Date = Date()) -> Int? {
        guard let rasterizer else { return nil }
        let viewer = OverlayLayout.viewerSize(buffer: buffer.size, rotation: rotation)
        var first: Int? = nil
        for (index, layer) in layers.enumerated() where layer.moves && !isHidden(index) {
            guard let (x, strip) = advanceTicker(index, screen: viewer, flipTime: flipTime, refreshInterval: refreshInterval,
                                                 now: now, rasterizer: rasterizer) else { continue }
            if let line = tickers[index]?.line {
                blendLine(line, of: layer, at: (x, strip.y), screen: viewer, into: buffer, rotation: rotation)
            }
            first = first ?? x
        }
        return first
    }

    // MARK: The sole ticker on a plane of its own (LayerPlanePath)

    /// The ticker's strip on the screen when it can have a plane of its own: one ticker that
    /// can be drawn, on a screen not turned (its plane is not turned either); nil otherwise.
    func soleTickerStrip(screen: PixelSize, rotation: Rotation) -> PixelRect? {
        guard rotation == .none, rasterizer != nil else { return nil }
        let moving = layers.filter(\.moves)
        guard moving.count == 1, let layer = moving.first else { return nil }
        return strip(of: layer, viewer: screen)
    }

    /// The sole ticker one step on for a flip at `flipTime`: its line's left edge in the strip,
    /// the text its line shows (nil: hidden or empty) and its cycle (the line's width plus the
    /// strip's: where its next run is, `TickerMotion.lineX`).
    func advanceSoleTicker(flipTime: Double, refreshInterval: Double, screen: PixelSize,
                           now: Date = Date()) -> (x: Int, text: String?, cycle: Int)? {
        guard let rasterizer, let index = layers.firstIndex(where: \.moves),
              let (x, strip) = advanceTicker(index, screen: screen, flipTime: flipTime, refreshInterval: refreshInterval,
                                             now: now, rasterizer: rasterizer) else { return nil }
        let run = tickers[index]
        let width = run?.line?.mask.width ?? 0
        return (x, isHidden(index) || run?.line == nil ? nil : run?.shownText, width + strip.width)
    }

    /// Ticker `index` one step on for a flip at `flipTime` (its run kept in `tickers`): its
    /// line's left edge in its strip, and the strip; nil when the layer is not a ticker.
    private func advanceTicker(_ index: Int, screen: PixelSize, flipTime: Double, refreshInterval: Double, now: Date,
                               rasterizer: TextRasterizer) -> (x: Int, strip: PixelRect)? {
        let layer = layers[index]
        guard case .ticker(let source, let speed, let separator) = layer.content else { return nil }
        let strip = strip(of: layer, viewer: screen)
        let (pixelSize, _) = LayerPlacement.textMetrics(size: layer.size, screen: screen)
        var run = tickers[index] ?? TickerRun(motion: TickerMotion(speed: speed, refreshInterval: refreshInterval))
        let text = replacedTexts[index] ?? tickerText(index, source, separator: separator, now: now)
        let x = run.advance(to: flipTime, text: text, stripWidth: strip.width) { rasterizer.render($0, pixelSize: pixelSize) }
        tickers[index] = run
        return (x, strip)
    }

    /// A ticker's line in its colour and opacity, its left edge at `origin.x` in a strip whose
    /// top is `origin.y`.
    private func blendLine(_ line: RenderedText, of layer: LayerConfig, at origin: (x: Int, y: Int), screen: PixelSize,
                           into buffer: PixelBuffer, rotation: Rotation = .none) {
        let (pixelSize, padding) = LayerPlacement.textMetrics(size: layer.size, screen: screen)
        let opacity = Int((layer.opacity * 255).rounded())
        // The line's baseline sits where the font's ascent puts it in a box one size tall.
        let baseline = origin.y + padding + pixelSize * 4 / 5
        buffer.blend(line, at: (origin.x, baseline - line.ascent), color: layer.color.rgb,
                     opacity: UInt8(Int(layer.color.alpha) * opacity / 255), rotation: rotation)
    }

    /// Draws the sole ticker's box and line into `window` (made transparent first), as its
    /// strip shows them from the window's column 0: the line at `lineX` and at `lineX + cycle`
    /// (its next run). Nothing but the cleared window while the ticker is hidden.
    func drawSoleTicker(into window: PixelBuffer, lineX: Int, cycle: Int, screen: PixelSize) {
        window.fill(PixelRect(size: window.size), color: 0)
        guard let index = layers.firstIndex(where: \.moves), !isHidden(index) else { return }
        let layer = layers[index]
        if let background = layer.background {
            window.blendFill(PixelRect(size: window.size), color: background.rgb,
                             opacity: UInt8(Int(background.alpha) * Int((layer.opacity * 255).rounded()) / 255))
        }
        guard let line = tickers[index]?.line else { return }
        for x in [lineX, lineX + cycle] where x < window.size.width && x + line.mask.width > 0 {
            blendLine(line, of: layer, at: (x, 0), screen: screen, into: window)
        }
    }

    private func strip(of layer: LayerConfig, viewer: PixelSize) -> PixelRect {
        let (pixelSize, padding) = LayerPlacement.textMetrics(size: layer.size, screen: viewer)
        return LayerPlacement.tickerStrip(height: pixelSize + 2 * padding, at: layer.position,
                                          margin: layer.margin.pixels(of: min(viewer.width, viewer.height)), on: viewer)
    }

    /// A ticker's line now: its text, a file's lines or a feed's titles, joined by `separator`.
    private func tickerText(_ index: Int, _ source: LayerConfig.TickerSource, separator: String, now: Date) -> String {
        switch source {
        case .text(let text): return text
        case .file(let path): return fileText(index, path: path, now: now, allLines: true).replacingOccurrences(of: "\n", with: separator)
        case .feed: return feeds[index]?.titles.joined(separator: separator) ?? ""
        }
    }

    /// Whether a layer's text differs from what the picture on screen shows (a clock's minute
    /// turned, a text file changed).
    func isStale(now: Date = Date()) -> Bool {
        if changedSinceDrawn { return true }
        for (index, layer) in layers.enumerated() where layer.changesByItself && !failed.contains(index) {
            if text(of: index, layer, now: now) != drawnTexts[index] { return true }
        }
        return false
    }

    /// The host time by which a layer's text may have changed by itself (a clock's next
    /// second or minute; a text file is looked at once a second); nil when none can.
    func nextChange(afterHost now: MediaTime) -> MediaTime? {
        let wall = Date()
        var soonest: Double? = nil
        for (index, layer) in layers.enumerated() where layer.changesByItself && !failed.contains(index) {
            let seconds = clocks[index].map { $0.nextChange(after: wall).timeIntervalSince(wall) } ?? 1
            soonest = min(soonest ?? seconds, seconds)
        }
        // A few milliseconds past the turn, so the text read then is the new one.
        return soonest.map { now + MediaTime(seconds: $0 + 0.005) }
    }

    /// After the flip: `frame` of `owner` is on screen, kept to be drawn again with new text.
    /// (Always: `kiosk ctl layer` may change any layer on a still.)
    func keep(_ frame: DecodedFrame, of owner: AnyObject) {
        keptFrame = frame
        keptOwner = owner
    }

    /// The last picture of `owner` to draw again, when a layer's text changed and no new frame
    /// comes to carry it (a still, paused, waiting).
    /// What was drawn last never went up (a held frame dropped): the next look redraws.
    func forgetDrawn() { changedSinceDrawn = true }

    func frameToRedraw(of owner: AnyObject, carriedByFrames: Bool) -> DecodedFrame? {
        guard !carriedByFrames, let keptFrame, keptOwner === owner, isStale() else { return nil }
        return keptFrame
    }

    // MARK: Making each layer's content

    private func text(of index: Int, _ layer: LayerConfig, now: Date) -> String? {
        switch layer.content {
        case .clock: return clocks[index]?.text(at: now)
        case .text(let text): return replacedTexts[index] ?? text
        case .textFile(let path): return replacedTexts[index] ?? fileText(index, path: path, now: now, allLines: false)
        case .image, .ticker: return nil
        }
    }

    /// A text file's first line (`allLines`: its non-empty lines, joined by newlines), looked
    /// at again at most once a second (its modification time); a file that went is one line
    /// in the log and its last text stays.
    private func fileText(_ index: Int, path: String, now: Date, allLines: Bool) -> String {
        if let cached = fileTexts[index], now.timeIntervalSince(cached.checked) < 1 { return cached.text }
        let previous = fileTexts[index]
        let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
        if let previous, modified == previous.modified {
            fileTexts[index] = (now, modified, previous.text)
            return previous.text
        }
        guard modified != nil, let data = FileManager.default.contents(atPath: path) else {
            if previous?.modified != nil || previous == nil { logger.error("layers: cannot read '\(path)'; its layer keeps its last text") }
            fileTexts[index] = (now, nil, previous?.text ?? "")
            return previous?.text ?? ""
        }
        let lines = String(decoding: data.prefix(allLines ? 65_536 : 4096), as: UTF8.self)
            .split(whereSeparator: \.isNewline).map { String($0.prefix(500)).trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        let line = allLines ? lines.joined(separator: "\n") : (lines.first ?? "")
        fileTexts[index] = (now, modified, line)
        return line
    }

    private func rendering(_ index: Int, text: String, pixelSize: Int, rasterizer: TextRasterizer) -> RenderedText {
        if let cached = texts[index], cached.text == text, cached.pixelSize == pixelSize { return cached.rendered }
        let rendered = rasterizer.render(text, pixelSize: pixelSize)
        texts[index] = (text, pixelSize, rendered)
        return rendered
    }

    private func image(_ index: Int, path: String, width: LayerLength?, screen: PixelSize) -> LayerImage? {
        if let image = images[index] { return image }
        do {
            let image = try LayerImageLoader.load(path) { LayerPlacement.imageSize($0, width: width, screen: screen) }
            images[index] = image
            return image
        } catch {
            logger.error("layers: \(error); the layer '\(layers[index].name)' is left out")
            failed.insert(index)
            return nil
        }
    }
}
