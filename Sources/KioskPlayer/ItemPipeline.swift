import Foundation
import KioskAudio
import KioskCore
import KioskMedia
import Logging
import Synchronization

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
    /// Up to `framesAhead` frames, fewer when they weigh more than `plan.frameMemory` (at
    /// least 2); `framesAheadBeforePrepare` from shortly before the next item is opened.
    let frames: BoundedQueue<PipelineOutput>
    static let framesAhead = 4
    static let framesAheadBeforePrepare = 8
    /// The item's sound; closed at once when it has none.
    let audio = BoundedQueue<AudioPipelineOutput>(capacity: 24)
    let packets = BoundedQueue<PacketMessage>(capacity: 128)
    /// Sound packets come ~50 a second and the demuxer reads ahead as far as video allows.
    let audioPackets = BoundedQueue<PacketMessage>(capacity: 512)
    /// Also wakes the demux thread parked at the end of the file (a seek or close).
    let lock = NSCondition()
    // Internal, not private, for the stills FFmpeg does not decode (ItemPipeline+Still.swift).
    var pendingSeek: (target: MediaTime, generation: Int)?
    var closing = false
    private(set) var generation = 0
    /// The decode thread's: a still's next picture is the first after a seek.
    var stillSeekPending = false
    /// The decode thread's: the newest frame decoded on the way to a seek's target (its
    /// non-reference frames are not decoded: `unshownBefore`), while none at or after it has
    /// been delivered; at the end of the stream it is the picture at the target
    /// (`deliverHeldBack`).
    var heldBack: DecodedFrame?
    /// The decode thread's: a frame was delivered since the last seek (none is held back then).
    var deliveredSinceSeek = false
    var openedInfo: MediaInfo?
    var hasAudioStream = false
    /// The newest decoded frame's time (guarded by `lock`): how far the decoded video reaches.
    var newestFramePTS: MediaTime?
    /// Since when a live source has not answered its first open (`ItemPipeline+Open.swift`).
    var unopenedSince: MediaTime?
    /// When the item came on screen (host time; nil while prepared ahead of its seam).
    var onScreenAt: MediaTime?
    /// How strict the video's `FrameTimeline` is (under `lock`); the presenter waits for a
    /// frame as long as it allows.
    var timelineTuning = FrameTimelineTuning.strict
    var requestedRate: Rational
    var requestedCompensation = 0
    let logger: Logger
    /// Cancelled by `close()`: a network open or read blocked on a dead socket gives up at once.
    let interrupt = InterruptFlag()
    /// What the demux thread has read, for the presenter's rebuffering decision (under `lock`).
    var demuxProgress = DemuxProgress()
    /// Set when a network source stayed away too long; the decode thread fails the item with
    /// it once the frames before the loss are out (under `lock`).
    var streamLoss: MediaError?
    /// The network source's losses and returns not yet taken by the presenter (under `lock`).
    var sourceChanges: [StreamReader.SourceChange] = []
    /// A live item's `duration` as a frame time: its first frame's plus the duration (`isPastLiveCut`).
    var liveCutTime: MediaTime?
    var liveCutReached = false
    /// A transition's fade of this item's sound (under `lock`); the sound feeder applies it.
    var envelope = SoundEnvelope()
    /// An animated picture's own play count, read once by the thread that reads it (`fileLoop`).
    var animationPlays: AnimationPlays?
    /// Packets the decode thread took and frames it gave: a slow decoder is not a stuck one
    /// (`StallGuard.decoderWorked`).
    let decodeWork = Atomic<Int>(0)
    /// The decoder's hand-over at the end (under `lock`; ItemPipeline+HandOff.swift).
    var handOver = DecoderHandOver()
    /// `kiosk play --simulate-prime-decoder`'s uploads (the decode thread's).
    lazy var primeSimulation = PrimeDecoderSimulation(source: plan.source, handOn: plan.primeHandOn, logger: logger)

    init(plan: ItemPlan, logger: Logger) {
        self.plan = plan
        self.logger = logger
        frames = BoundedQueue(capacity: Self.framesAhead, budget: .init(bytes: plan.frameMemory, minimumCount: 2) {
            if case .frame(let frame, _) = $0 { frame.byteCount } else { 0 }
        })
        requestedRate = plan.rate
        WorkerThread.start(name: "kiosk-demux", finishesBeforeExit: true) { [self] in runDemux() }
    }

    /// Stops the threads; queued frames and packets are released.
    func close() {
        // The queues first: a read the cancel cuts short returns half a packet, which must not
        // reach a decoder ("Invalid NAL unit size" warnings after an override or a skip, CI).
        frames.close()
        packets.close()
        audio.close()
        audioPackets.close()
        interrupt.cancel()
        lock.withLock {
            closing = true
            lock.broadcast()
        }
        releaseDecoderHandOff()
    }

    /// Decodes again from the keyframe before `time`; frames before `time` are skipped.
    func seek(to time: MediaTime) {
        // Three steps, in this order:
        // 1. The new generation is published: from now on the decode threads drop every packet
        //    they pop until the seek's own `.seek` message comes. (Published after the flush, a
        //    packet the demux thread read from the old position and queued in between was
        //    decoded as if nothing had happened, 128 packets after the previous one: the
        //    FrameTimeline saw a 13 s jump and said so, after a scrub in the bed.)
        // 2. The queues are flushed: what the threads queued before is of the old position.
        // 3. The seek is handed to the demux thread. (Handed over before the flush, the demux
        //    thread, woken at once when parked at the end, could queue its `.seek` message
        //    and the flush threw it away: the decoder never learnt the new generation and every
        //    later frame was dropped as stale.) The seek carries its own generation: a demux
        //    thread that takes it after a newer seek's step 1 queues it as the older one it is.
        let newGeneration = lock.withLock {
            generation += 1
            handOver.finished = false   // an end decoded before is of the old position
            newestFramePTS = nil   // the decoded video reaches nowhere until the new position's frames
            return generation
        }
        packets.flush()
        frames.flush()
        // Queued deeper before a prepare (`ItemSequencer.queueMoreAhead`): back to the usual depth
        // at a new position; raised again if the next item is still due to open.
        resetQueueDepth()
        audioPackets.flush()
        audio.flush()
        lock.withLock {
            pendingSeek = (time, newGeneration)
            lock.broadcast()
        }
    }

    // MARK: Demux thread

    private func runDemux() {
        // In a real-time process (chrt, CPUSchedulingPolicy=) nice means nothing: the open, the
        // probe and every decode (the threads started from here inherit it) run below the
        // presenter's priority, or their bursts (an item opened at a seam) hold a flip.
        WorkerThread.lowerCurrentThreadBelowRealtimePeers()
        // FFmpeg 5.1 cannot open HEIC: libheif decodes it whole on this thread instead.
        if let card = plan.card {
            return runStill({ try TextCardPicture.draw(card, plan: plan) },
                            info: { DecodedFrame.paintedInfo(source: plan.source, frame: $0) })
        }
        if HeifStill.handles(plan.source, sniff: plan.stillDuration != nil) {
            return runStill({ try HeifStill.decode(plan.source) }, info: { HeifStill.info(of: plan.source, frame: $0) })
        }
        if plan.stillDuration == nil, AnimatedWebP.isAnimated(path: plan.source) { return runAnimation() }
        guard let demuxer = openAndStartDecoding() else { return }
        // To the trim's start, unless a seek came while the file opened: a resumed entry's
        // place (`goto 0 5`, an insert giving a trimmed entry back) was replaced by the start.
        if plan.start > .zero, lock.withLock({ pendingSeek == nil }) { seek(to: plan.start) }
        let reader = StreamReader(demuxer: demuxer, logger: logger)
        reader.onSourceChange = { [self] change in noteSourceChange(change) }
        var finished = false
        // Reading stops after `end` (TrimCutoff); a still's `end` is not a trim.
        // A cover's one picture never reaches a trim's end: only its sound is watched.
        let read = [hasCoverPicture ? nil : demuxer.videoStream, demuxer.audioStream].compactMap { $0 }
        var trim = plan.stillDuration == nil ? plan.end.map { TrimCutoff(end: $0, streams: read) } : nil
        while !packets.isClosed {
            if let (asked, seekGeneration) = takePendingSeek() {
                // A still's one picture is what shows at any time in it (a still an override
                // or the dark display cut resumes 3 s in): its file is read again from the
                // start, and the decode thread stamps the picture with the time asked for
                // (`deliver`). Sought to 3 s, FFmpeg's image reader had no frame at or after
                // it, and the item failed as "no picture could be decoded".
                // A live stream has no place to go to (a synchronised wall joining its slot part
                // way): it is not sought, and nothing it sends is skipped as before the place.
                let asked = reader.isLive ? plan.start : asked
                if !reader.isLive {
                    do { try seekReading(reader, to: plan.stillDuration != nil ? .zero : asked) } catch { logger.warning("\(error)") }
                }
                finished = false
                trim?.restart()
                restartHeldPicture()
                reopenHandedOverDecoder(asset: demuxer.asset, videoIndex: demuxer.videoStream)
                guard packets.push(.seek(to: asked, generation: seekGeneration)) else { return }
                if demuxer.audioStream != nil { _ = audioPackets.push(.seek(to: asked, generation: seekGeneration)) }
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
            var output: Demuxer.Output
            do {
                output = try reader.read()
                if case .end = output, loopsAgain(reader) { continue }   // an animation's next pass
                if case .end = output { noteEarlyEnd(reader) }
            } catch {
                // Ends the packet streams like the end of the file; the decode thread turns
                // that end into the item's failure.
                lock.withLock { streamLoss = error as? MediaError ?? MediaError(source: plan.source, reason: "\(error)") }
                output = .end
            }
            if case .packet(let packet) = output,
               trim?.isReached(stream: packet.streamIndex, decodeTime: reader.decodeTime(of: packet)) == true {
                output = .end
                if reader.isLive { reader.demuxer.asset.closeInput() }   // its port is free, as at a live cut
            }
            if case .packet = output, hasReachedLiveCut {
                output = .end
                // Nothing of a live stream is sought back: its port (UDP) is free for its next play.
                reader.demuxer.asset.closeInput()
            }
            if case .end = output { noteProgress(reader, finished: true) } else { noteProgress(reader, finished: false) }
            switch output {
            case .packet(let packet) where packet.streamIndex == demuxer.audioStream:
                // A closed sound queue is an item playing without its sound (its decoder could
                // not open): its packets are dropped, and the picture goes on. (Returning here
                // starved the video: a damaged vorbis header froze the picture for good.)
                let held = notePacketEnd(reader.demuxer.lastPacketEnd, isSound: true)
                _ = audioPackets.push(.packet(packet))
                if held { guard packets.push(.pictureHeld) else { return } }
            case .packet(let packet):
                _ = notePacketEnd(reader.demuxer.lastPacketEnd, isSound: false)
                guard packets.push(.packet(packet)) else { return }
            case .end:
                finished = true
                let length = itemLength(demuxed: reader.endTime)
                guard packets.push(.end(length: length)) else { return }
                if demuxer.audioStream != nil { _ = audioPackets.push(.end(length: length)) }
            }
        }
    }

    /// Opens the source and starts the decode thread, which becomes its decoder's only owner
    /// (it frees it at the end when the next item waits for that: `DecoderHandOff`). The
    /// demuxer, or nil when the item failed (its failure queued).
    private func openAndStartDecoding() -> Demuxer? {
        guard let (demuxer, decoder) = openRetryingLive() else { return nil }
        // The frames' times are checked against the stream's cadence (FrameTimeline); its
        // declared frame rate is the cadence until frames show their own.
        let rate = demuxer.asset.info.bestVideo?.frameRate
        let declared = rate.flatMap { $0.isKnownAndPositive ? MediaTime(value: 1, timescale: 1) * $0.inverted : nil }
        let tuning = FrameTimelineTuning.choose(hasSound: hasAudio, timestampsMayJump: demuxer.timestampsMayJump)
        lock.withLock { timelineTuning = tuning }
        let timeline = FrameTimeline<DecodedFrame>(nominalCadence: declared, tuning: tuning)
        WorkerThread.start(name: "kiosk-decode", finishesBeforeExit: true, handingOver: (DecoderSlot(decoder), timeline)) { [self] in
            runDecode($0.0, timeline: $0.1)
        }
        return demuxer
    }

    // MARK: Decode thread

    private func runDecode(_ slot: DecoderSlot, timeline: FrameTimeline<DecodedFrame>) {
        var decoder = slot.take()   // the only reference: nil frees it (DecoderHandOff)
        var skipBefore = plan.start
        var outputGeneration = currentGeneration
        var produced = 0
        var retimer = FrameRetimer(timeline: timeline, source: plan.source, logger: logger,
                                   coverPicture: hasCoverPicture)
        defer { heldBack = nil }   // its decoder buffer goes back as the thread ends, not with the pipeline
        while let message = packets.pop() {
            // Packets count as the decoder at work only on the way to a first frame.
            if !deliveredSinceSeek { decodeWork.add(1, ordering: .relaxed) }
            // Sought after its decoder was handed over: the one the demux thread made again.
            if case .seek = message, decoder == nil {
                decoder = takeReopenedDecoder()
                // It could not be made again: the item fails (again at each later seek, as a
                // seek's flush may drop the failure before the presenter takes it).
                if decoder == nil { frames.push(.failed(takeReopenFailure())) }
            }
            guard decoder != nil else { continue }
            switch message {
            case .seek(let target, let seekGeneration):
                stillSeekPending = plan.stillDuration != nil
                heldBack = nil
                deliveredSinceSeek = false
                decoder!.flush()
                retimer.reset()
                skipBefore = target
                outputGeneration = seekGeneration
                continue
            case .packet(let packet):
                // A seek was published after this packet was read: it belongs to the old
                // position. Decoding it would only delay the new one (the demux thread may
                // have queued dozens between the seek's flush and its publication: 1080p seeks
                // took up to a second), so it is dropped until the seek's own message arrives.
                if outputGeneration != currentGeneration { continue }
                if !decoder!.send(packet, unshownBefore: skipBefore) {
                    // Full: hand out what it holds first, then it takes the packet.
                    guard drain(decoder!, &retimer, skipBefore: skipBefore, generation: outputGeneration, produced: &produced) else { return }
                    _ = decoder!.send(packet, unshownBefore: skipBefore)
                }
            case .pictureHeld:
                // Sound goes on and no picture comes for now: what was decoded since the seek
                // and not delivered goes up at the seek's time (the last frame before a seek
                // into a sound-only tail). A cover's decoder is drained first: frame-threaded,
                // it keeps its one picture until more packets come, and none will; flushed, it
                // takes the picture FFmpeg queues again after a seek. A video's decoder is left
                // alone: its next packets may still need what it holds.
                guard !deliveredSinceSeek, outputGeneration == currentGeneration else { continue }
                if hasCoverPicture {
                    guard drainToEnd(decoder!, &retimer, skipBefore: skipBefore, generation: outputGeneration, produced: &produced)
                    else { return }
                    decoder!.flush()
                    retimer.reset()
                }
                guard deliverHeldBack(at: skipBefore, generation: outputGeneration, produced: &produced) else { return }
            case .end(let length):
                // The end of a position a seek has left (queued between its flush and its
                // message): the seek's own `.seek` comes next.
                if outputGeneration != currentGeneration { continue }
                guard drainToEnd(decoder!, &retimer, skipBefore: skipBefore, generation: outputGeneration, produced: &produced),
                      deliverHeldBack(at: Swift.min(skipBefore, length), generation: outputGeneration, produced: &produced)
                else { return }
                if let loss = lock.withLock({ streamLoss }) {
                    frames.push(.failed(loss))
                    return
                }
                if produced == 0 {
                    let damaged = decoder!.damagedPackets
                    frames.push(.failed(MediaError(source: plan.source, reason: damaged > 0
                        ? "no picture could be decoded (\(damaged) damaged packets)" : "no picture could be decoded")))
                    return
                }
                retimer.reset()
                if let handOff = takeDecoderHandOffAtEnd(generation: outputGeneration) {
                    // Its frames are queued: the decoder the next item waits for goes now.
                    lock.withLock { handOver.freedDecoder = decoder }
                    decoder = nil
                    handOff.release(.atTheEnd)
                } else {
                    decoder!.flush()
                }
                guard frames.push(.end(length: length, generation: outputGeneration)) else { return }
                continue
            }
            guard drain(decoder!, &retimer, skipBefore: skipBefore, generation: outputGeneration, produced: &produced) else { return }
        }
    }
}
