import Foundation
import KioskCore

/// An ALSA capture PCM for `kiosk record --audio` (FFmpeg's alsa input, libavdevice), read on a
/// thread of its own so the device never overruns while a frame is encoded; its sound, in
/// `AudioEncoder.inputFormat`, is handed out lined up with the pictures by the two devices'
/// timestamps (both FFmpeg inputs stamp with the wall clock).
public final class AudioCapture: @unchecked Sendable {
    // Shared with the reading thread: `queued`, `firstStart` and `ended`, under `lock`.
    private let lock = NSLock()
    private var queued: [UInt8] = []
    private var firstStart: Double?
    /// The monotonic clock when the first sound came, for devices whose clocks differ.
    private var firstArrival: Double?
    private var ended = false
    private let asset: Asset
    private let reader: AudioSampleReader
    private let worker = WorkerThread(name: "kiosk-record-audio")
    // The caller's side only.
    private var pending: [UInt8] = []
    private var toDrop = 0
    private var aligned = false
    private var given: Int64 = 0
    /// How the sound was lined up with the pictures, for the log: "by timestamps, sound +0.120 s".
    public private(set) var alignment: String?
    private static let bytesPerFrame = AudioEncoder.inputFormat.bytesPerFrame

    /// Opens `pcm` (hw:1,0, an ALSA PCM name); a missing or busy one throws one line naming it.
    public init(pcm: String) throws {
        asset = try Asset(source: pcm, deviceFormat: "alsa")
        reader = try AudioSampleReader(asset: asset, output: AudioEncoder.inputFormat)
    }

    /// Starts reading.
    public func start() {
        let origin = asset.startSeconds ?? 0
        worker.start { [self] in
            while !asset.interrupt.isCancelled, let chunk = try? reader.nextChunk() {
                lock.withLock {
                    if firstStart == nil {
                        firstStart = origin + chunk.startTime.seconds
                        firstArrival = ProcessInfo.processInfo.systemUptime
                    }
                    queued += chunk.bytes
                }
            }
            lock.withLock { ended = true }
        }
    }

    /// Stops reading (the device is closed when this is released).
    public func stop() {
        asset.interrupt.cancel()
        _ = worker.join(timeout: 5)
    }

    /// Where the pictures start: the first frame's timestamp (the device's clock, which for
    /// FFmpeg's v4l2 input is usually the wall clock, as ALSA's), and the monotonic clock when
    /// it came (used when the two devices' clocks turn out not to be comparable).
    public struct VideoStart: Sendable {
        public var timestamp: Double
        public var arrival: Double
        public init(timestamp: Double, arrival: Double) { self.timestamp = timestamp; self.arrival = arrival }
    }

    /// How far apart two device clocks may be and still be taken as the same clock.
    static let sameClock = 5.0

    /// Interleaved samples for the output from where the last call ended up to sample
    /// `endSample` (0 is the first picture): what the device has sent so far, or exactly that
    /// many with `pad` (silence for what it has not).
    public func take(until endSample: Int64, video: VideoStart, pad: Bool) -> [UInt8] {
        let (incoming, start, arrival) = lock.withLock { () -> ([UInt8], Double?, Double?) in
            defer { queued.removeAll(keepingCapacity: true) }
            return (queued, firstStart, firstArrival)
        }
        pending += incoming
        if !aligned, let start, let arrival {
            // The sound began after the first picture: silence first; before it: cut. By the
            // devices' timestamps when they share a clock, else by when each first came.
            var seconds = start - video.timestamp
            var how = "by timestamps"
            if abs(seconds) > Self.sameClock { seconds = arrival - video.arrival; how = "by arrival (the devices' clocks differ)" }
            seconds = min(max(seconds, -Self.sameClock), Self.sameClock)
            alignment = how + String(format: ", sound %+.3f s", seconds)
            let offset = Int((seconds * Double(AudioEncoder.inputFormat.sampleRate)).rounded())
            if offset > 0 { pending.insert(contentsOf: repeatElement(0, count: offset * Self.bytesPerFrame), at: 0) }
            toDrop = max(0, -offset) * Self.bytesPerFrame
            aligned = true
        }
        let dropped = min(toDrop, pending.count)
        pending.removeFirst(dropped)
        toDrop -= dropped
        let wanted = max(0, Int(endSample - given))
        var count = min(wanted, pending.count / Self.bytesPerFrame)
        if pad { count = wanted }
        let available = min(count * Self.bytesPerFrame, pending.count)
        var out = Array(pending.prefix(available))
        pending.removeFirst(available)
        if out.count < count * Self.bytesPerFrame { out += repeatElement(0, count: count * Self.bytesPerFrame - out.count) }
        given += Int64(count)
        return out
    }
}
