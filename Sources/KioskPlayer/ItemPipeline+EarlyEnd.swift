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
        guard asset.isOpen, !asset.lengthIsGuessed, !reader.demuxer.timestampsMayJump,
              let promised = Self.promisedLength(of: asset.info, reading: [reader.demuxer.videoStream, reader.demuxer.audioStream]),
              let line = EarlyEnd.line(source: plan.source, reached: reader.endTime.seconds, promised: promised)
        else { return }
        if EarlyEndsSaid.shared.firstTime(plan.source + "\u{0}" + line) { logger.warning("\(line)") }
    }
}

extension ItemPipeline {
    /// How long the streams read (`reading`: the video's and the sound's indexes) say they are:
    /// the longest of their own lengths, else the container's where no other picture or sound
    /// stream is left unread (on a box without sound, a clip's longer audio or a song under its
    /// cover is not read, and the container's length is theirs); nil when unknown.
    static func promisedLength(of info: MediaInfo, reading: [Int?]) -> Double? {
        let read = Set(reading.compactMap { $0 })
        guard !read.isEmpty else { return nil }
        let own = info.streams.filter { read.contains($0.index) }.compactMap(\.durationSeconds)
        if let longest = own.max() { return longest }
        let unread = info.streams.contains { ($0.kind == .video || $0.kind == .audio) && !read.contains($0.index) }
        return unread ? nil : info.durationSeconds
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
