import Foundation

/// A full-screen card kiosk draws itself: an item or override written `text: "Use the east
/// exit"` (#35) instead of a file. It plays as a still does (its `duration`, else
/// `playback.image_duration`), and goes the still's way from there (layers, transitions,
/// screenshots, proof of play). Drawn at the screen's size by the player (KioskPlayer's
/// `TextCardPicture`), with the layers' fonts: no file to copy to every box, and an alert's
/// words in the box's own script (HarfBuzz, FriBidi).
public struct TextCard: Sendable, Hashable {
    /// What it says; "\n" breaks a line, long lines wrap at spaces.
    public var text: String
    public var color: LayerColor
    public var background: LayerColor
    /// The font's pixel size; nil: the largest up to 12 % of the screen's height that fits.
    public var size: LayerLength?

    /// More than a screen can show legibly; a bound on what a message may ask to draw, in
    /// characters and in bytes (one character may carry any number of combining marks).
    public static let maximumLength = 1000
    public static let maximumBytes = 4096
    public static let defaultBackground = LayerColor(rgb: 0x000000)

    public init(text: String, color: LayerColor = .white, background: LayerColor = TextCard.defaultBackground,
                size: LayerLength? = nil) {
        self.text = text; self.color = color; self.background = background; self.size = size
    }

    /// The card's name in logs, events and proof of play: `text:` and its first line,
    /// shortened past 40 characters.
    public var name: String {
        // Any line break: a CMS's CRLF must not reach a title, an event or a log line.
        let first = text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let line = first.trimmingCharacters(in: .whitespaces)
        return "text:" + (line.count > 40 ? String(line.prefix(39)) + "…" : line)
    }
}
