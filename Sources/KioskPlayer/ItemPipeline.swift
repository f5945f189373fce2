import Foundation
import KioskAudio
import KioskCore
import KioskMedia
import Logging

/// What the presenter takes from an item: decoded frames in order, then the item's end.
enum PipelineOutput {
    /// `generation` tells frames decoded before a seek from those after it.
    case frame(DecodedFrame, generation: Int)
    /// No more frames; the item lasts `length` (its longest stream, a still's duration or the
    /// trim end), measured from its start.
    case end(length: MediaTime, generation: Int)
    /// The item cannot play: one line saying why.
    case failed(MediaError)
}

/// How one playlist entry is played.
struct ItemPlan: Sendable {
    var source: String
    /// Trim, from the file's start: play [start, end).
    var start: MediaTime = .zero
    var end: MediaTime?
    /// A still image (one frame) is shown this long.
    var stillDuration: MediaTime?
    var decoderThreads = 0
    /// The sound device's format, nil to ignore the item's sound (no device, or a still).
    var audioFormat: AudioFormat?
    var rate = Rational.one
    /// Stamped on the item's sound so the clock knows whose samples it hears.
    var tag = 0
}

/// What the audio feeder takes from an item: its sound converted for the device, then its end.
enum AudioPipelineOutput {
    case chunk(PCMChunk, generation: Int)
    case end(generation: Int)
}

/// One item's demux and decode threads (DESIGN.md, "The path of a frame"): the demux thread
/// reads packets into a bounded queue, the decode thread turns them into a few decoded frames
/// ahead of the presenter. Opening happens on the demux thread, so preparing the next item
/// never stalls the picture on screen.
final class ItemPipeline: @unchecked Sendable {
    // Shared state: `frames` and `packets` are thread-safe queues; `pendingSeek` and
    // `generation` are guarded by `lock`; everything else belongs to one thread.
    let plan: ItemPlan
    let frames = BoundedQueue<PipelineOutput>(capacity: 4)
    /// The item's sound; closed at once when it has none.
    let audio = BoundedQueue<AudioPipelineOutput>(capacity: 24)
    private let packets = BoundedQueue<PacketMessage>(capacity: 128)
    /// Sound packets come ~50 a second and the demuxer reads ahead as far as video allows.
    let audioPackets = BoundedQueue<PacketMessage>(capacity: 512)
    /// Also wakes the demux thread parked at the end of the file (a seek or close).
    let lock = NSCondition()
    private var pendingSeek: MediaTime?
    private var closing = false
    private var generation = 0
    private var openedInfo: MediaInfo?
    var hasAudioStream = false
    var requestedRate: Rational
    let logger: Logger
    /// Cancelled by `close()`: a network open or read blocked on a dead socket gives up at once.
    let interrupt = InterruptFlag()
    /// What the demux thread has read, for the presenter's rebuffering decision (under `lock`).
    var demuxProgress = DemuxProgress()
    /// Set when a network source stayed away too long; the decode thread fails the item with
    /// it once the frames before the loss are out (under `lock`).
    var streamLoss: MediaError?

    enum PacketMessage {
        case packet(Packet)
        case seek(to: MediaTime, generation: Int)
        case end(length: MediaTime)
    }

    init(plan: ItemPlan, logger: Logger) {
        self.plan = plan
        self.logger = logger
        requestedRate = plan.rate
        let thread = Thread { [self] in runDemux() }
        thread.name = "kiosk-demux"
        thread.start()
    }

    /// Stops the threads; queued frames and packets are released.
    func close() {
        interrupt.cancel()
        lock.withLock {
            closing = true
            lock.broadcast()
        }
        frames.close()
        packets.close()
        audio.close()
        audioPackets.close()
    }

    /// Whether the opened item has sound that is being decoded (false until opened).
    var hasAudio: Bool { lock.withLock { hasAudioStream } }

    /// The tempo for the item's sound from now on (the video side follows the clock).
    func setRate(_ rate: Rational) { lock.withLock { requestedRate = rate } }

    /// Decodes again from the keyframe before `time`; frames before `time` are skipped.
    func seek(to time: MediaTime) {
        // Flush first, then publish the seek: the demux thread (woken at once when parked at
        // the end) may take the seek and queue its `.seek` message right away, and a flush after
        // that threw the message away: the decoder never learnt the new generation and every
        // later frame was dropped as stale (a paused scrub's last seek never showed). What the
        // threads queue between the flush and the seek is of the old generation and is dropped.
        packets.flush()
        frames.flush()
        audioPackets.flush()
        audio.flush()
        lock.withLock {
            pendingSeek = time
            generation += 1
            lock.broadcast()
        }
    }

    var currentGeneration: Int { lock.withLock { generation } }

    /// What FFmpeg found, once the demux thread has opened the item.
    var info: MediaInfo? { lock.withLock { openedInfo } }

    // MARK: Demux thread

    private func runDemux() {
        let demuxer: Demuxer
        let decoder: VideoDecoder
        do {
            let asset = try Asset(source: plan.source, interrupt: interrupt)
            demuxer = Demuxer(asset: asset, audio: plan.audioFormat != nil && plan.stillDuration == nil)
            guard let videoIndex = demuxer.videoStream else {
                let kinds = asset.info.streams.map { "\($0.kind.rawValue) \($0.codecName)" }.joined(separator: ", ")
                if let video = asset.info.bestVideo, !video.decodable {
                    throw MediaError(source: plan.source, reason: "unsupported codec '\(video.codecName)': no decoder in this FFmpeg build")
                }
                throw MediaError(source: plan.source, reason: "no video stream (has \(kinds))")
            }
            decoder = try VideoDecoder(asset: asset, streamIndex: videoIndex, threads: plan.decoderThreads)
            lock.withLock { openedInfo = asset.info }
            try startAudio(asset: asset, demuxer: demuxer)
        } catch let error as MediaError {
            frames.push(.failed(error))
            audio.close()
            return
        } catch {
            frames.push(.failed(MediaError(source: plan.source, reason: "\(error)")))
            audio.close()
            return
        }
        let handOver = HandOver(value: decoder)
        let decodeThread = Thread { [self] in runDecode(handOver.value) }
        decodeThread.name = "kiosk-decode"
        decodeThread.start()

        if plan.start > .zero { seek(to: plan.start) }
        let reader = StreamReader(demuxer: demuxer, logger: logger)
        var finished = false
        while !packets.isClosed {
            if let (target, seekGeneration) = takePendingSeek() {
                do { try reader.seek(to: target) } catch { logger.warning("\(error)") }
                finished = false
                guard packets.push(.seek(to: target, generation: seekGeneration)) else { return }
                if demuxer.audioStream != nil { _ = audioPackets.push(.seek(to: target, generation: seekGeneration)) }
            }
            if finished {
                // Parked at the end: a seek may still come (scrubbing back, looping one item).
                let closed = lock.withLock {
                    while pendingSeek == nil && !closing { lock.wait() }
                    return closing
                }
                if closed { return }
                continue
            }
            let output: Demuxer.Output
            do { output = try reader.read() } catch {
                // Ends the packet streams like the end of the file; the decode thread turns
                // that end into the item's failure.
                lock.withLock { streamLoss = error as? MediaError ?? MediaError(source: plan.source, reason: "\(error)") }
                output = .end
            }
            if case .end = output { noteProgress(reader, finished: true) } else { noteProgress(reader, finished: false) }
            switch output {
            case .packet(let packet) where packet.streamIndex == demuxer.audioStream:
                guard audioPackets.push(.packet(packet)) else { return }
            case .packet(let packet):
                guard packets.push(.packet(packet)) else { return }
            case .end:
                finished = true
                let length = itemLength(demuxed: reader.endTime)
                guard packets.push(.end(length: length)) else { return }
                if demuxer.audioStream != nil { _ = audioPackets.push(.end(length: length)) }
            }
        }
    }

    private func takePendingSeek() -> (MediaTime, Int)? {
        lock.withLock {
            guard let target = pendingSeek else { return nil }
            pendingSeek = nil
            return (target, generation)
        }
    }

    private func itemLength(demuxed: MediaTime) -> MediaTime {
        if let still = plan.stillDuration { return still }
        if let end = plan.end, end < demuxed { return end }
        return demuxed
    }

    // MARK: Decode thread

    private func runDecode(_ decoder: VideoDecoder) {
        var skipBefore = plan.start
        var outputGeneration = currentGeneration
        var produced = 0
        while let message = packets.pop() {
            switch message {
            case .seek(let target, let seekGeneration):
                decoder.flush()
                skipBefore = target
                outputGeneration = seekGeneration
                continue
            case .packet(let packet):
                // A seek was published after this packet was read: it belongs to the old
                // position. Decoding it would only delay the new one (the demux thread may
                // have queued dozens between the seek's flush and its publication: 1080p seeks
                // took up to a second), so it is dropped until the seek's own message arrives.
                if outputGeneration != currentGeneration { continue }
                if !decoder.send(packet, unshownBefore: skipBefore) {
                    // Full: hand out what it holds first, then it takes the packet.
                    guard drain(decoder, skipBefore: skipBefore, generation: outputGeneration, produced: &produced) else { return }
                    _ = decoder.send(packet, unshownBefore: skipBefore)
                }
            case .end(let length):
                _ = decoder.send(nil as Packet?)
                guard drain(decoder, skipBefore: skipBefore, generation: outputGeneration, produced: &produced) else { return }
                if let loss = lock.withLock({ streamLoss }) {
                    frames.push(.failed(loss))
                    return
                }
                if produced == 0 {
                    let damaged = decoder.damagedPackets
                    frames.push(.failed(MediaError(source: plan.source, reason: damaged > 0
                        ? "no picture could be decoded (\(damaged) damaged packets)" : "no picture could be decoded")))
                    return
                }
                guard frames.push(.end(length: length, generation: outputGeneration)) else { return }
                decoder.flush()
                continue
            }
            guard drain(decoder, skipBefore: skipBefore, generation: outputGeneration, produced: &produced) else { return }
        }
    }

    /// Moves every frame the decoder has ready into the frame queue; false once closed.
    private func drain(_ decoder: VideoDecoder, skipBefore: MediaTime, generation: Int, produced: inout Int) -> Bool {
        while case .frame(let frame) = decoder.receive() {
            if let end = plan.end, frame.pts >= end { continue }
            // After a seek, the frames between the keyframe and the target are only decoded
            // to reach it; the last one before a frame-less gap would still be shown, but
            // streams have frames at every target within a frame period.
            if frame.pts < skipBefore, skipBefore - frame.pts > MediaTime(value: 1, timescale: 1000) { continue }
            produced += 1
            guard frames.push(.frame(frame, generation: generation)) else { return false }
        }
        return true
    }
}
