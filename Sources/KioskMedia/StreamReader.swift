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
///
/// A live source (`LiveSource`) is never given up and its end of file is a loss too; a sender
/// that restarted from zero starts a new timeline whose packets are all kept (the decoders'
/// timelines take the jump out).
public final class StreamReader {
    /// What happened to a network source: the player's `source_lost`/`source_back` events.
    public enum SourceChange: Sendable, Equatable {
        /// It stopped (the reason, as the log line says it); reconnecting begins.
        case lost(reason: String)
        /// Its first new packet came, `afterSeconds` after the loss.
        case back(afterSeconds: Double)
    }

    public private(set) var demuxer: Demuxer
    /// Told on the demux thread at each loss and at each return (once per outage, however
    /// many reopens it takes): an event for a dashboard, not a log line to parse.
    public var onSourceChange: ((SourceChange) -> Void)?
    public let isNetwork: Bool
    public let isLive: Bool
    /// It is fetched in segments (HLS, DASH).
    public let refetchesSegments: Bool
    private let policy: ReconnectPolicy
    private let logger: Logger
    /// The last decode timestamp handed out per stream, in its ticks: after a reopen, packets
    /// at or before it are repeats. Cleared by a seek, which goes back on purpose.
    private var lastTicks: [Int: Int64] = [:]
    private var dropRepeats = false
    /// After a live reopen: the streams whose first packet is still to be looked at.
    private var firstAfterReopen: Set<Int> = []
    /// A live HLS item's looks at its playlist: a packager restarted from zero is a new
    /// timeline at once, and a dead packager's playlist is not reopened again and again.
    private var playlistLooks: HLSLiveLooks?
    /// The item's end on record, kept across reopens (each new demuxer starts from zero).
    private var longestEnd = MediaTime.zero
    /// The media time of the latest video (else audio) packet read, from the item's start.
    public private(set) var lastPacketTime: MediaTime?

    /// The first connection's time base and origin per stream: the decoders count media time
    /// from it, and so does `lastPacketTime`, whatever origin a live stream has when it is
    /// rejoined. Copied, so the first connection can be closed.
    private let origins: [Int: (base: Rational, ticks: Int64)]

    public init(demuxer: Demuxer, policy: ReconnectPolicy = .standard, logger: Logger) {
        self.demuxer = demuxer
        let asset = demuxer.asset
        origins = Dictionary(uniqueKeysWithValues: [demuxer.videoStream, demuxer.audioStream].compactMap { $0 }.map { index in
            let stream = asset.stream(at: index)
            return (index, (Rational(Int64(stream.pointee.time_base.num), Int64(stream.pointee.time_base.den)),
                            asset.originTicks(of: stream)))
        })
        self.logger = logger
        isNetwork = NetworkURL.isNetwork(demuxer.asset.source)
        isLive = LiveSource.isLive(demuxer.asset.source, formatName: demuxer.asset.info.formatName,
                                   hasDuration: demuxer.asset.info.durationSeconds != nil)
        self.policy = isLive ? .live(scheme: NetworkURL.scheme(of: demuxer.asset.source)) : policy
        refetchesSegments = LiveSource.refetchesSegments(formatName: demuxer.asset.info.formatName)
        if isLive, demuxer.asset.info.formatName.split(separator: ",").contains("hls") {
            playlistLooks = HLSLiveLooks(url: demuxer.asset.source)
            followPlayedVariant()
        }
    }

    /// FFmpeg tags a stream with the `BANDWIDTH` of the variant it came from
    /// (`variant_bitrate`; 0 for a media playlist or a variant without one): the looks follow
    /// that variant, not the master's first.
    private static func playedVariantBandwidth(of demuxer: Demuxer) -> Int? {
        guard let index = demuxer.videoStream ?? demuxer.audioStream,
              let value = av_dict_get(demuxer.asset.stream(at: index).pointee.metadata, "variant_bitrate", nil, 0)?.pointee.value,
              let bandwidth = Int(String(cString: value)), bandwidth > 0 else { return nil }
        return bandwidth
    }

    private func followPlayedVariant() {
        guard let looks = playlistLooks else { return }
        let bandwidth = Self.playedVariantBandwidth(of: demuxer)
        if let bandwidth, bandwidth != looks.variantBandwidth {
            logger.debug("\(name): looks follow the variant of BANDWIDTH \(bandwidth)")
        }
        looks.variantBandwidth = bandwidth
    }

    /// A live source's reopen gives up after this long (a server that accepts and says nothing)
    /// and the next one begins: the source is back within this of its return.
    static let liveOpenTimeout = 3.0

    /// Whether a reopen continues where the stream stopped (a seek): VOD. Never a live item, even
    /// when a reopen found its playlist ended (a packager stopped cleanly writes `EXT-X-ENDLIST`,
    /// which reads as VOD with a duration): its next start is live again, and every seek of the
    /// reopens after was refused (EPERM), the picture frozen for good.
    private var resumesBySeeking: Bool { !isLive && duration != nil }

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
            if outage == nil { playlistLooks?.lookIfDue(demuxer.asset.interrupt) }
            let readStart = MonotonicClock.hostTime()
            if isNetwork { demuxer.asset.interrupt.setDeadline(afterSeconds: policy.silentReadLimit.seconds) }
            let output = demuxer.read()
            if isNetwork { demuxer.asset.interrupt.setDeadline(afterSeconds: nil) }
            switch output {
            case .packet(let packet):
                if isRepeat(packet) { continue }
                note(packet)
                if outage != nil { noteBack(resumed: resumesBySeeking) }
                return .packet(packet)
            case .end:
                guard isNetwork, !demuxer.asset.interrupt.isCancelled,
                      let reason = lossReason() ?? (isLive ? "the stream ended" : nil) else { return .end }
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

    /// A loss not yet over: since when, and the reopen attempts made. It ends at the first new
    /// packet, not at a reopen: a packager that died behind a server still serving its last
    /// playlist reopens at once and sends nothing new, and that is one outage, not many.
    private struct Outage {
        var lostAt: MediaTime
        var attempts = 0
        var failures = 0
    }
    private var outage: Outage?

    private func reconnect(after reason: String, lostAt: MediaTime) throws {
        longestEnd = endTime
        // Seekable (VOD) inputs continue where they stopped; live ones rejoin at the live edge.
        let resumeAt = resumesBySeeking ? lastPacketTime : nil
        if outage == nil {
            outage = Outage(lostAt: lostAt)
            logger.warning("\(name): connection lost (\(reason)); reconnecting")
            onSourceChange?(.lost(reason: reason))
        }
        guard var current = outage else { return }
        defer { outage = current }
        while true {
            let elapsed = MonotonicClock.hostTime() - current.lostAt
            guard case .retry(let delay) = policy.decide(failedAttempts: current.attempts, elapsed: elapsed) else {
                throw MediaError(source: source, reason: String(format: "stream lost: no answer for %.0f s (%d reconnect attempts)",
                                                                elapsed.seconds, current.attempts))
            }
            try sleep(delay.seconds)
            current.attempts += 1
            var newTimeline = false
            if let looks = playlistLooks {
                let before = looks.decideReconnect(demuxer.asset.interrupt)
                logger.debug("\(name): reconnect attempt \(current.attempts): the playlist: \(looks.lastLookSaid); \(before)")
                switch before {
                case .decided(.rejoin(let restarted), _): newTimeline = restarted
                case .decided(.wait, let firstWait):
                    if firstWait {
                        logger.notice("\(name): the playlist has nothing new since the last rejoin (its packager stopped?); looking again every \(String(format: "%.1f", delay.seconds)) s")
                    }
                    continue
                case .notThere:
                    noteFailed(&current, "its playlist is not there (HTTP 404)")
                    continue
                case .unread: break
                }
            }
            // A live source's old connection goes first: UDP and RTP bind the port the new one
            // binds. (VOD keeps it until the new one opens, as it always did.)
            if isLive { demuxer.asset.closeInput() }
            do {
                // An attempt gets what is left of the budget, so a silent server cannot stretch it.
                let left = policy.giveUpAfter.map { ($0 - (MonotonicClock.hostTime() - current.lostAt)).seconds }
                    ?? Self.liveOpenTimeout
                demuxer = try reopen(resumeAt: resumeAt, openTimeout: Swift.max(1, left))
                followPlayedVariant()   // a reopen may land on another variant
                playlistLooks?.rejoined()
                if newTimeline, let playlist = playlistLooks?.lastPlaylist {
                    // Its packets are kept (the decoders' timelines take the jump out).
                    logger.notice("\(name): the playlist starts again (media sequence \(playlist.mediaSequence), \(playlist.segments.count) segment(s)): its packager restarted; a new timeline, every packet kept")
                    dropRepeats = false
                    firstAfterReopen = []
                } else {
                    dropRepeats = true
                    firstAfterReopen = isLive ? Set(lastTicks.keys) : []
                }
                return
            } catch {
                // Closed meanwhile (a skip, the end of --duration): FFmpeg's "Immediate exit
                // requested" is no failure of the source's.
                if demuxer.asset.interrupt.isCancelled { throw MediaError(source: source, reason: "closed while reconnecting") }
                noteFailed(&current, (error as? MediaError)?.reason ?? "\(error)")
            }
        }
    }

    /// A reconnect attempt failed. A live source away for hours is tried every half second: its
    /// lines are the first four, then one a minute.
    private func noteFailed(_ outage: inout Outage, _ reason: String) {
        outage.failures += 1
        if outage.failures <= 4 || outage.failures % 120 == 0 {
            logger.warning("\(name): reconnect attempt \(outage.failures) failed: \(reason)")
        }
    }

    /// The first new packet after a loss: the source is back.
    private func noteBack(resumed: Bool) {
        guard let back = outage else { return }
        outage = nil
        playlistLooks?.back()
        let gap = (MonotonicClock.hostTime() - back.lostAt).seconds
        let resuming = resumed ? lastPacketTime.map { String(format: ", resuming at %.1f s", $0.seconds) } ?? "" : ""
        logger.notice("\(name): reconnected (attempt \(back.attempts), \(String(format: "%.1f", gap)) s after the loss\(resuming))")
        onSourceChange?(.back(afterSeconds: gap))
    }

    private func reopen(resumeAt: MediaTime?, openTimeout: Double) throws -> Demuxer {
        let old = demuxer
        let asset = try Asset(source: source, interrupt: old.asset.interrupt, openTimeout: openTimeout,
                              streamOptions: old.asset.streamOptions)
        let fresh = Demuxer(asset: asset, video: old.videoStream != nil, audio: old.audioStream != nil)
        guard fresh.videoStream == old.videoStream, fresh.audioStream == old.audioStream else {
            throw MediaError(source: source, reason: "the stream came back with different tracks")
        }
        if let resumeAt, resumeAt > .zero { try fresh.seek(to: resumeAt) }
        return fresh
    }

    /// Waits `seconds`, in short steps so a skip or stop during the wait is seen at once.
    private func sleep(_ seconds: Double) throws {
        guard demuxer.asset.interrupt.sleep(seconds: seconds) else {
            throw MediaError(source: source, reason: "closed while reconnecting")
        }
    }

    /// When `packet` is decoded (its DTS), from the item's start as the decoders count it (the
    /// first connection's origin, whatever a rejoined live stream starts at); nil without a
    /// DTS. A packet decoded at or after a time shows nothing before it (PTS >= DTS); its PTS
    /// alone would not say so (a reference frame is read before the B-frames shown ahead of it).
    public func decodeTime(of packet: Packet) -> MediaTime? {
        let ticks = packet.packet.pointee.dts
        guard ticks != kiosk_nopts_value(), let origin = origins[packet.streamIndex], origin.base.isKnownAndPositive else {
            return nil
        }
        return MediaTime(ticks: ticks - origin.ticks, timeBase: origin.base)
    }

    private func ticks(of packet: Packet) -> Int64? {
        var ticks = packet.packet.pointee.dts
        if ticks == kiosk_nopts_value() { ticks = packet.packet.pointee.pts }
        return ticks == kiosk_nopts_value() ? nil : ticks
    }

    private func isRepeat(_ packet: Packet) -> Bool {
        guard dropRepeats, let ticks = ticks(of: packet), let last = lastTicks[packet.streamIndex] else { return false }
        if firstAfterReopen.remove(packet.streamIndex) != nil {
            let base = demuxer.asset.stream(at: packet.streamIndex).pointee.time_base
            let perSecond = base.num > 0 ? Int64(base.den) / Int64(base.num) : 1
            if LiveSource.startsNewTimeline(firstTicks: ticks, lastTicks: last, ticksPerSecond: perSecond,
                                            refetchesSegments: refetchesSegments) {
                logger.notice("\(name): the stream starts a new timeline (its sender restarted?): every packet kept")
                dropRepeats = false
                firstAfterReopen = []
                return false
            }
        }
        return ticks <= last
    }

    private func note(_ packet: Packet) {
        guard let ticks = ticks(of: packet) else { return }
        lastTicks[packet.streamIndex] = ticks
        guard packet.streamIndex == (demuxer.videoStream ?? demuxer.audioStream) else { return }
        guard let origin = origins[packet.streamIndex], origin.base.isKnownAndPositive else { return }
        lastPacketTime = MediaTime(ticks: ticks - origin.ticks, timeBase: origin.base)
    }
}
