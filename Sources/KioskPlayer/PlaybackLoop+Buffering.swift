import Foundation
import KioskCore
import KioskMedia

/// Running dry and refilling: a network item whose buffer empties holds its last picture with
/// the clock stopped (timeControlStatus waitingToPlay, reason buffering) until enough is
/// demuxed to play on (`RebufferPolicy`); a local item goes on at its next frame.
extension PlaybackLoop {
    /// The item ran dry (the state is already waiting): remember since when, and say so once
    /// for a stream (a local file that stalls is a slow machine, logged elsewhere if at all).
    func noteStall(of item: ActiveItem) {
        guard item.stalledSince == nil else { return }
        item.stalledSince = MonotonicClock.hostTime()
        if item.pipeline.isNetwork {
            logger.warning("\(item.entry.title): buffering: no frame ready, waiting for data (waitingToPlay)")
        }
    }

    /// Whether `frame`, the first after a start, seek or stall, may go up now. False (after a
    /// short wait) while a stalled network item is still refilling.
    func mayResume(_ item: ActiveItem, at frame: DecodedFrame) -> Bool {
        guard let since = item.stalledSince else { return true }
        let now = MonotonicClock.hostTime()
        let policy = item.pipeline.isNetwork ? RebufferPolicy.network : RebufferPolicy.local
        let progress = item.pipeline.progress
        guard policy.mayResume(framePTS: frame.pts, demuxedUntil: progress.demuxedUntil,
                               demuxerFinished: progress.finished, waited: now - since) else {
            mailbox.wait(untilHost: now + MediaTime(value: 1, timescale: 20))
            return false
        }
        item.stalledSince = nil
        if item.pipeline.isNetwork && !item.pipeline.hasLostStream {   // else it fails next
            logger.notice("\(item.entry.title): buffered, playing again after \(String(format: "%.1f", (now - since).seconds)) s")
        }
        return true
    }
}
