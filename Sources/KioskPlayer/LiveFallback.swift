import KioskCore
import KioskMedia
import Logging

/// A live item's `fallback` (kiosk.conf): while its stream is away, once its last frame has
/// been held a second, the slate goes up in its place (the stream's first frame back replaces
/// it). Decoded when first needed, once per play of the item: most plays never need it.
final class LiveFallback {
    /// How long the last frame stays up before the slate: a hiccup of the network shows no slate.
    static let hold = MediaTime(value: 1, timescale: 1)

    let path: String
    /// nil until loaded; `.some(nil)` once loading failed (said once).
    private var picture: DecodedFrame??
    /// Whether the slate is on screen now (until the stream's next frame).
    var isUp = false

    init(path: String) {
        self.path = path
    }

    /// The slate to put up for an item dry for `dryFor`, nil when not due (or not loadable).
    /// Due once per time away.
    func due(dryFor: MediaTime, screen: PixelSize, logger: Logger) -> DecodedFrame? {
        guard !isUp, dryFor >= Self.hold else { return nil }
        isUp = true
        if picture == nil {
            do {
                picture = .some(try HeifStill.firstFrame(of: path, stillScreen: screen))
            } catch {
                logger.error("fallback: \(error); the last picture stays up while the stream is away")
                picture = .some(nil)
            }
        }
        return picture ?? nil
    }
}
