import KioskCore
import KioskMedia

/// A frame drawn into the back buffer whose flip is asked for later (`FramePresenter.draw`
/// with `holdable`), at the last moment before its vblank (`CommitLead`).
struct DrawnFrame {
    let back: PixelBuffer
    let shown: PresentedFrame
    /// The vblank it was drawn for (CLOCK_MONOTONIC seconds).
    let flip: Double
    /// `FramePresenter.draws` when it was drawn.
    let draw: Int
    /// Whether what it shows is for that vblank (a frame the pacer chose for it, a ticker's
    /// position, a transition's look): it then never goes up before it (`holdUntilItsFlip`).
    let timed: Bool
}

/// A frame drawn ahead of its turn into memory the screen's size, as `layout` places it.
struct PredrawnPicture {
    let pts: MediaTime
    let layout: GravityLayout
    let picture: CapturedPicture
}

/// Pictures drawn ahead for an override (#35): its request then costs a copy, not a conversion.
extension FramePresenter {
    /// `frame` drawn now into memory the screen's size, for a copy when it is asked for (an
    /// armed override: the conversion is the request's longest work). Nil where a video plane
    /// may scan the frame out instead, above 1080p (33 MB a picture at 4K, and a conversion on
    /// the presenter's thread longer than a frame on a small box: drawn when asked for), or
    /// when the draw failed.
    func predraw(_ frame: DecodedFrame, layout: GravityLayout, scaler: Scaler) -> PredrawnPicture? {
        guard directVideo == nil, output.size.width * output.size.height <= 1920 * 1080 else { return nil }
        let picture = CapturedPicture(size: output.size)
        guard (try? scaler.draw(frame, layout: layout, into: picture.buffer)) != nil else { return nil }
        return PredrawnPicture(pts: frame.pts, layout: layout, picture: picture)
    }
}
