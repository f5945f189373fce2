import KioskCore

/// A ticker's run across its strip: the line rendered for its text, and when the run began.
/// A changed text waits until the line has left the screen (so the line never jumps), except
/// when nothing was showing yet (a feed's first answer comes in at once).
struct TickerRun {
    let motion: TickerMotion
    private(set) var line: RenderedText?
    private var text: String?
    /// The text the line shows now (what `line` was rendered from).
    var shownText: String? { text }
    private var start: Double?

    init(motion: TickerMotion) { self.motion = motion }

    /// The line's left edge in the strip for a flip at `flipTime`; `newText` is what the line
    /// should say now, rendered by `render` when it is taken.
    mutating func advance(to flipTime: Double, text newText: String, stripWidth: Int,
                          render: (String) -> RenderedText) -> Int {
        if text == nil || (text?.isEmpty == true && !newText.isEmpty) {
            take(newText, at: flipTime, render: render)
        }
        var travelled = motion.travelled(at: flipTime, since: start ?? flipTime)
        let width = line?.mask.width ?? 0
        if travelled >= width + stripWidth {
            // The line has left the strip: the next run begins at the right edge, with the
            // newest text.
            start = flipTime
            travelled = 0
            if newText != text { take(newText, at: flipTime, render: render) }
        }
        return TickerMotion.lineX(travelled: travelled, lineWidth: line?.mask.width ?? 0, stripWidth: stripWidth)
    }

    private mutating func take(_ newText: String, at time: Double, render: (String) -> RenderedText) {
        // A line longer than this is cut: a mask of a few thousand characters is a few MB.
        let clipped = String(newText.prefix(4000))
        text = newText
        line = clipped.isEmpty ? nil : render(clipped)
        start = time
    }
}
