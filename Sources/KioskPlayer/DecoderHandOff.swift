import Foundation
import KioskCore
import KioskMedia

/// One large decoder at a time across a cut (issue 33): the item prepared for a seam opens its
/// file ahead as always, but a video above 1080p creates its decoder only once the playing
/// item, above 1080p too, has decoded its last frame and freed its decoder (its queued frames,
/// already scaled to the screen, cover the hand-over). Two 4K HEVC decoders side by side were
/// most of a two-item 4K loop's peak (a Pi with 2 GB runs out first): each holds its reference
/// pictures and a context per thread, ~150 MB at 4K 10-bit with 2 threads.
///
/// Released, once, by whichever comes first: the outgoing decoder's end, the outgoing item
/// leaving the screen (a skip, a failure: nothing to wait for then) or its close. The waiting
/// side also gives up when its own item is closed.
final class DecoderHandOff: @unchecked Sendable {
    // Safe to share: `released` is only touched with `condition` held.
    private let condition = NSCondition()
    private var released: Reason?

    /// Why it was released, for the log and the tests.
    enum Reason: String, Sendable {
        case atTheEnd = "was freed at its end"
        case alreadyEnded = "had already decoded its end"
        case closed = "was closed"
        case onScreen = "was replaced on screen"
    }

    /// Above this many pixels a decoder is large enough to wait for the other's (1080p and
    /// below play side by side as before: their decoders are a fraction of a 4K one's).
    static let largestSideBySide = 1920 * 1088

    /// Whether a picture of `width` x `height` has a decoder large enough to hand over.
    static func isLarge(width: Int?, height: Int?) -> Bool {
        guard let width, let height else { return false }
        return width * height > largestSideBySide
    }

    /// The outgoing decoder is gone, or will not be waited for; the first reason is kept.
    func release(_ reason: Reason) {
        condition.withLock {
            if released == nil { released = reason }
            condition.broadcast()
        }
    }

    var isReleased: Bool { condition.withLock { released != nil } }
    var reason: Reason? { condition.withLock { released } }

    /// Waits until `release()`, or until `cancelled` says the waiting item was closed (looked
    /// at every 50 ms). True when released.
    func wait(unless cancelled: () -> Bool) -> Bool {
        condition.withLock {
            while released == nil {
                if cancelled() { return false }
                _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
            }
            return true
        }
    }
}

/// Hands a decoder to the decode thread so that nothing else keeps it (a thread's handed-over
/// value lives as long as the thread): `take()` moves it out.
final class DecoderSlot: @unchecked Sendable {
    // Safe to share: written at creation, taken once by the one thread it is handed to.
    private var decoder: VideoDecoder?

    init(_ decoder: VideoDecoder) { self.decoder = decoder }

    func take() -> VideoDecoder? {
        defer { decoder = nil }
        return decoder
    }
}
