import CFFmpeg
import CKioskShim
import KioskCore
import Logging

/// The demux thread's reader: a `Demuxer` that, for a network source, survives a server that
/// drops. FFmpeg's http reconnect handles a short drop inside one read; when the demuxer still
/// stops early (a read error, or an HLS VOD whose remaining segments could not be fetched so it
/// ends before its duration), the source is opened again with backoff (`ReconnectPolicy`):
/// seekable inputs continue where they stopped, live ones rejoin. Packets the new connection
/// repeats are dropped, so the decoders see one continuous stream. Local files read as before:
/// a damaged tail ends the item.
public final class StreamReader {
    public private(set) var demuxer: Demuxer
    public let isNetwork: Bool
    private let policy: ReconnectPolicy
    private let logger: Logger
    /// The last decode timestamp handed out per stream, in its ticks: after a reopen, packets
    /// at or before it are repeats. Cleared by a seek, which goes back on purpose.
    private var lastTicks: [Int: Int64] = [:]
    private var dropRepeats = false
    /// The item's end on record, kept across reopens (each new demuxer starts from zero).
    private var longestEnd = MediaTime.zero
    /// The media time of the latest video (else audio) packet read, from the item's start.
    public private(set) var lastPacketTime: MediaTime?

    /// The first connection's asset: the decoders count media time from its origin, and so
    /// does `lastPacketTime`, whatever origin a live stream has when it is rejoined.
    private let originAsset: Asset

    public init(demuxer: Demuxer, policy: ReconnectPolicy = .standard, logger: Logger) {
        self.demuxer = demuxer
        originAsset = demuxer.asset
        self.policy = policy
        self.logger = logger
        isNetwork = NetworkURL.isNetwork(demuxer.asset.source)
    }

    private var source: String { demuxer.asset.source }
    private var name: String { NetworkURL.masked(source) }
    private var duration: Double? { demuxer.asset.info.durationSeconds }

    /// The item's length as read so far (see `Demuxer.endTime`).
    public var endTime: MediaTime { Swift.max(longestEnd, demuxer.endTime) }

    /// The next packet, `.end` at the real end; throws a `MediaError` when a network source
    /// stayed away longer than the policy allows (the item fails and is retried next pass).
    public func read() throws -> Demuxer.Output {
        while true {
            // A live HLS whose server died retries its playlist quietly inside one read; the
            // deadline turns that silence into a loss (counted from when the read began).
            let readStart = MonotonicClock.hostTime()
            if isNetwork { demuxer.asset.interrupt.setDeadline(afterSeconds: policy.silentReadLimit.seconds) }
            let output = demuxer.read()
            if isNetwork { demuxer.asset.interrupt.setDeadline(afterSeconds: nil) }
            switch output {
            case .packet(let packet):
                if isRepeat(packet) { continue }
                note(packet)
                return .packet(packet)
            case .end:
                guard isNetwork, !demuxer.asset.interrupt.isCancelled, let reason = lossReason() else { return .end }
                try reconnect(after: reason, lostAt: demuxer.lastReadError == kiosk_averror_exit() ? readStart : MonotonicClock.hostTime())
            }
        }
    }

    public func seek(to time: MediaTime) throws {
        lastTicks.removeAll()
        dropRepeats = false
        // Where a reconnect resumes if the connection is found dead right after the seek.
        lastPacketTime = time
        try demuxer.seek(to: time)
    }

    /// Why the demuxer stopped, if that was not the end of the media.
    private func lossReason() -> String? {
        if let code = demuxer.lastReadError {
            return code == kiosk_averror_exit() ? String(format: "no data for %.0f s", policy.silentReadLimit.seconds)
                : "read error: \(ffmpegErrorText(code))"
        }
        // HLS skips segments it cannot fetch, and ends when none is left: an end well before
        // the duration it announced is a lost server, not the end.
        if let duration, endTime.seconds < duration - 1.5 {
            return String(format: "stream stopped at %.1f s of %.1f s", endTime.seconds, duration)
        }
        return nil
    }

    private func reconnect(after reason: String, lostAt: MediaTime) throws {
        longestEnd = endTime
        // Seekable (VOD) inputs continue where they stopped; live ones rejoin at the live edge.
        let resumeAt = duration != nil ? lastPacketTime : nil
        logger.warning("\(name): connection lost (\(reason)); reconnecting")
        var failures = 0
        while true {
            let elapsed = MonotonicClock.hostTime() - lostAt
            guard case .retry(let delay) = policy.decide(failedAttempts: failures, elapsed: elapsed) else {
                throw MediaError(source: source, reason: String(format: "stream lost: no answer for %.0f s (%d reconnect attempts)",
                                                                elapsed.seconds, failures))
            }
            try sleep(delay.seconds)
            do {
                // An attempt gets what is left of the budget, so a silent server cannot stretch it.
                let left = (policy.giveUpAfter - (MonotonicClock.hostTime() - lostAt)).seconds
                demuxer = try reopen(resumeAt: resumeAt, openTimeout: Swift.max(1, left))
                dropRepeats = true
                let gap = (MonotonicClock.hostTime() - lostAt).seconds
                let resuming = resumeAt.map { String(format: ", resuming at %.1f s", $0.seconds) } ?? ""
                logger.notice("\(name): reconnected (attempt \(failures + 1), \(String(format: "%.1f", gap)) s after the loss\(resuming))")
                return
            } catch {
                failures += 1
                logger.warning("\(name): reconnect attempt \(failures) failed: \((error as? MediaError)?.reason ?? "\(error)")")
            }
        }
    }

    private func reopen(resumeAt: MediaTime?, openTimeout: Double) throws -> Demuxer {
        let old = demuxer
        let asset = try Asset(source: source, interrupt: old.asset.interrupt, openTimeout: openTimeout)
        let fresh = Demuxer(asset: asset, video: old.videoStream != nil, audio: old.audioStream != nil)
        guard fresh.videoStream == old.videoStream, fresh.audioStream == old.audioStream else {
            throw MediaError(source: source, reason: "the stream came back with different tracks")
        }
        if let resumeAt, resumeAt > .zero { try fresh.seek(to: resumeAt) }
        return fresh
    }

    /// Waits `seconds`, in short steps so a skip or stop during the wait is seen at once.
    private func sleep(_ seconds: Double) throws {
        let clock = MonotonicClock()
        let end = clock.now() + seconds
        while clock.now() < end {
            if demuxer.asset.interrupt.isCancelled {
                throw MediaError(source: source, reason: "closed while reconnecting")
            }
            clock.sleep(seconds: Swift.min(0.05, end - clock.now()))
        }
    }

    private func ticks(of packet: Packet) -> Int64? {
        var ticks = packet.packet.pointee.dts
        if ticks == kiosk_nopts_value() { ticks = packet.packet.pointee.pts }
        return ticks == kiosk_nopts_value() ? nil : ticks
    }

    private func isRepeat(_ packet: Packet) -> Bool {
        guard dropRepeats, let ticks = ticks(of: packet), let last = lastTicks[packet.streamIndex] else { return false }
        return ticks <= last
    }

    private func note(_ packet: Packet) {
        guard let ticks = ticks(of: packet) else { return }
        lastTicks[packet.streamIndex] = ticks
        guard packet.streamIndex == (demuxer.videoStream ?? demuxer.audioStream) else { return }
        let stream = originAsset.stream(at: packet.streamIndex)
        let base = Rational(Int64(stream.pointee.time_base.num), Int64(stream.pointee.time_base.den))
        guard base.isKnownAndPositive else { return }
        lastPacketTime = MediaTime(ticks: ticks - originAsset.originTicks(of: stream), timeBase: base)
    }
}
