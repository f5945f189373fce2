import Foundation

/// kiosk.conf `layers`: what is drawn over every item (a clock, a line of text, a logo), each
/// in a corner or along an edge of the screen, above the picture and below the on-screen
/// display. The presenter draws them after the picture is scaled (`LayerState`, KioskPlayer).
public struct LayerConfig: Sendable, Equatable {
    public enum Content: Sendable, Equatable {
        /// The time now, as `format` (Unicode date pattern: `HH:mm`, `EEE d MMM HH:mm`), in
        /// `timeZone` (an IANA name; nil: the box's zone), with `locale`'s names (nil: English).
        case clock(format: String, timeZone: String?, locale: String?)
        /// A line of text as written.
        case text(String)
        /// A line of text read from a file (its first line), read again when the file changes.
        case textFile(path: String)
        /// A picture file (PNG with its transparency, JPEG...), `width` wide on the screen, its
        /// height kept in proportion (nil: its own size).
        case image(path: String, width: LayerLength?)
        /// A line moving right to left across the screen's width, `speed` pixels a second,
        /// its items joined by `separator`.
        case ticker(TickerSource, speed: Double, separator: String)

        /// Its word in kiosk.conf.
        public var kind: String {
            switch self {
            case .clock: "clock"
            case .text, .textFile: "text"
            case .image: "image"
            case .ticker: "ticker"
            }
        }
    }

    /// What a ticker shows.
    public enum TickerSource: Sendable, Equatable {
        case text(String)
        /// A text file's lines, each an item (looked at again once a second).
        case file(path: String)
        /// An RSS or Atom feed's item titles, fetched every `refresh`.
        case feed(url: String, refresh: MediaTime)
    }

    /// How `kiosk ctl layer` and messages name it: `name:`, else the kind and its place in the list.
    public var name: String
    public var content: Content
    public var position: LayerPosition
    /// From the screen's edges.
    public var margin: LayerLength
    /// Text height (the font's pixel size); not used by images.
    public var size: LayerLength
    public var color: LayerColor
    /// A box behind text, with `padding` around it; nil: none.
    public var background: LayerColor?
    /// 0 to 1, the whole layer's opacity (an image's own transparency is kept under it).
    public var opacity: Double
    public var location: SourceLocation?

    public init(name: String, content: Content, position: LayerPosition = .topRight,
                margin: LayerLength = .percent(2), size: LayerLength = .percent(5),
                color: LayerColor = .white, background: LayerColor? = nil, opacity: Double = 1,
                location: SourceLocation? = nil) {
        self.name = name; self.content = content; self.position = position; self.margin = margin
        self.size = size; self.color = color; self.background = background; self.opacity = opacity
        self.location = location
    }

    /// Whether it moves at every refresh (a ticker): the presenter then flips each refresh.
    public var moves: Bool {
        if case .ticker = content { return true }
        return false
    }

    /// The same layer wherever it is written (a reload compares layers by what they say).
    public var withoutLocation: LayerConfig {
        var copy = self
        copy.location = nil
        return copy
    }

    /// Whether what it shows changes with time (a clock) or a file: the presenter asks again.
    public var changesByItself: Bool {
        switch content {
        case .clock, .textFile, .ticker: return true
        case .text, .image: return false
        }
    }
}

/// Where a layer sits: a corner, the middle of an edge, or the centre.
public enum LayerPosition: String, Sendable, CaseIterable {
    case topLeft = "top-left", top, topRight = "top-right"
    case left, center, right
    case bottomLeft = "bottom-left", bottom, bottomRight = "bottom-right"
}
