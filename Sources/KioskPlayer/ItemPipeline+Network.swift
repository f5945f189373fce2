import KioskCore
import KioskMedia
import Synchronization

/// How far the demux thread has read, as the presenter needs it to decide when a stalled
/// network item has buffered enough to play on (`RebufferPolicy`).
struct DemuxProgress: Sendable {
    /// The media time of the latest packet read (video, else audio), from the item's start.
    var demuxedUntil: MediaTime?
    /// The demuxer reached the end (or gave the stream up): nothing more will come.
    var finished = false
    /// The source is live (`LiveSource`): it rebuffers as one.
    var isLive = false
    /// It is fetched in segments (HLS, DASH): its buffer comes in bursts FFmpeg decides.
    var refetchesSegments = false
    /// Where the picture and the sound were demuxed up to since the last seek (`HeldPicture`).
    var heldPicture = HeldPicture()
}

extension ItemPipeline {
    /// Whether the item comes over the network (it can stall, and is rebuffered).
    var isNetwork: Bool { NetworkURL.isNetwork(plan.source) }

    var progress: DemuxProgress { lock.withLock { demuxProgress } }

    /// What the demux thread hands the decode thread.
    enum PacketMessage {
        case packet(Packet)
        case seek(to: MediaTime, generation: Int)
        case end(length: MediaTime)
        /// The sound outran the picture since the seek (`HeldPicture.soundOutruns`: 2 s past
        /// it, a cover's at once): a decode thread that delivered nothing since then shows
        /// what it has.
        case pictureHeld
    }

    /// The decode thread's steps so far (packets taken, frames given), for the stall guard.
    var decodeSteps: Int { decodeWork.load(ordering: .relaxed) }

    /// The source stayed away too long: the item fails once its last frames are out.
    var hasLostStream: Bool { lock.withLock { streamLoss != nil } }

    /// Called by the demux thread after every read.
    func noteProgress(_ reader: StreamReader, finished: Bool) {
        let until = reader.lastPacketTime
        lock.withLock {
            demuxProgress.demuxedUntil = until
            demuxProgress.finished = finished
            demuxProgress.isLive = reader.isLive
            demuxProgress.refetchesSegments = reader.refetchesSegments
        }
    }

    /// Called by the demux thread at a loss and a return of its source. Kept for the presenter,
    /// which reports them as events in order with the item's others, for the item on screen.
    /// A return before the presenter took the loss (an item prepared ahead, or one whose loss
    /// came and went between two of the presenter's looks) cancels it: an outage nobody saw
    /// is not reported late as one over. Losses and returns alternate: at most a return and
    /// the next loss wait.
    func noteSourceChange(_ change: StreamReader.SourceChange) {
        lock.withLock {
            if case .back = change, case .lost? = sourceChanges.last {
                sourceChanges.removeLast()
            } else {
                sourceChanges.append(change)
            }
        }
    }

    /// The source's losses and returns since the last call (the presenter's, for the current item).
    func takeSourceChanges() -> [StreamReader.SourceChange] {
        lock.withLock {
            defer { sourceChanges.removeAll() }
            return sourceChanges
        }
    }

    /// A live item with a `duration` plays that long from its first frame, then ends: its
    /// stream never would. Called by the decode thread for each frame it would queue: true for
    /// the frames past the cut (dropped), and from the first of them the demux thread ends.
    /// Counted from the first frame, not the first packet: a stream joined mid-GOP shows nothing
    /// until its first keyframe, up to a GOP later.
    func isPastLiveCut(_ frame: DecodedFrame) -> Bool {
        guard let length = plan.liveDuration else { return false }
        return lock.withLock {
            guard demuxProgress.isLive else { return false }
            let cut = liveCutTime ?? frame.pts + length
            liveCutTime = cut
            if frame.pts >= cut { liveCutReached = true }
            return liveCutReached
        }
    }

    /// The decode thread saw the live cut: the demux thread ends the item. Asked for every
    /// packet: an item without a `duration` answers without the lock.
    var hasReachedLiveCut: Bool { plan.liveDuration != nil && lock.withLock { liveCutReached } }

    /// The live cut's frame time, once reached: the item's length.
    var liveCut: MediaTime? { lock.withLock { liveCutReached ? liveCutTime : nil } }

    /// How much of the stream's video is buffered ahead of `now` (the clock's media time): its
    /// decoded frames past it, and its packets not yet decoded at `cadence` each; and whether
    /// the packet queue is full (more may wait in FFmpeg's and the socket's buffers). nil
    /// before the first decoded frame (or with no video).
    func bufferedAhead(of now: MediaTime, cadence: MediaTime) -> (buffered: MediaTime, queueFull: Bool)? {
        guard let newest = lock.withLock({ newestFramePTS }) else { return nil }
        return (Swift.max(.zero, newest - now) + cadence * Rational(Int64(packets.count), 1), packets.isFull)
    }
}
