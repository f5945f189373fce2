import Foundation
import KioskCore
import KioskMedia
import Logging

/// The decode thread's `FrameTimeline`: frames go through it with their file timestamps and
/// come out, one frame later, with the time to present them at. Says once per item what it
/// corrected, and at most every 100 corrections after that.
struct FrameRetimer {
    var timeline: FrameTimeline<DecodedFrame>
    let source: String
    let logger: Logger
    /// A song's cover: its picture has no timestamp by nature, and none filled in is news.
    var coverPicture = false

    mutating func push(_ frame: DecodedFrame) -> DecodedFrame? {
        let decided = timeline.push(frame, pts: frame.hadNoTimestamp ? nil : frame.pts)
        return apply(decided)
    }

    mutating func finish() -> DecodedFrame? {
        let decided = timeline.finish()
        return apply(decided)
    }

    mutating func reset() { timeline.reset() }

    private func apply(_ decided: (DecodedFrame, MediaTime, TimestampCorrection)?) -> DecodedFrame? {
        guard let (frame, time, correction) = decided else { return nil }
        let expected = coverPicture && correction == .missingFilledIn
        if correction != .kept, !expected, timeline.corrections == 1 || timeline.corrections % 100 == 0 {
            logger.warning("\(NetworkURL.masked(source)): untrusted video timestamp: \(describe(correction)) at \(String(format: "%.3f", time.seconds)) s (\(timeline.corrections) so far)")
        }
        // A kept frame after a jump taken out keeps its step, not its stamp: the offset applies.
        if time != frame.pts { frame.restamp(to: time) }
        return frame
    }

    private func describe(_ correction: TimestampCorrection) -> String {
        switch correction {
        case .kept: "kept"
        case .missingFilledIn: "missing, filled in"
        case .outlierReplaced(let was): String(format: "outlier %.3f s replaced", was.seconds)
        case .jumpTakenOut(let was): String(format: "jump to %.3f s taken out", was.seconds)
        }
    }
}
