import Foundation
import KioskCore
import KioskMedia

/// The demux thread's side of `EarlyEnd`: a file read through to its end that stops well short
/// of its header's length is said once per run for that file and that end.
extension ItemPipeline {
    func noteEarlyEnd(_ reader: StreamReader) {
        // Live streams have no length; a looped animation's passes and a still are not one read.
        guard !reader.isLive, plan.stillDuration == nil, plan.animationLoop == nil, reader.demuxer.timeOffset == .zero
        else { return }
        // A transport stream's length is its first and last timestamps apart, which a jump
        // (an encoder restarted) makes an hour; kiosk plays its timestamps made continuous.
        let asset = reader.demuxer.asset
        guard asset.isOpen, !asset.lengthIsGuessed, !reader.demuxer.timestampsMayJump, let promised = asset.info.durationSeconds,
              let line = EarlyEnd.line(source: plan.source, reached: reader.endTime.seconds, promised: promised)
        else { return }
        if EarlyEndsSaid.shared.firstTime(plan.source + "\u{0}" + line) { logger.warning("\(line)") }
    }
}

/// The early ends said already in this run (a file looped is said once, not every pass).
final class EarlyEndsSaid: @unchecked Sendable {
    static let shared = EarlyEndsSaid()
    // Safe to share: `said` is only touched with `lock` held.
    private let lock = NSLock()
    private var said = Set<String>()

    func firstTime(_ key: String) -> Bool {
        lock.withLock {
            guard said.count < 10_000 else { return false }   // bounded: months unattended
            return said.insert(key).inserted
        }
    }
}
