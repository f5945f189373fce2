import KioskCore
import KioskMedia

/// An item's side of a hand-over (`ItemPipeline.handOver`, under its lock).
struct DecoderHandOver {
    /// The item prepared after this one waits for this decoder to be freed at the end.
    var waiting: DecoderHandOff?
    /// The decode thread has decoded the last frame (until a seek).
    var finished = false
    /// The decode thread freed its decoder at the end; the demux thread makes one again for a
    /// seek and leaves it in `reopened`, or why it could not in `reopenFailure`.
    var released = false
    var reopened: DecoderSlot?
    var reopenFailure: MediaError?
    /// The decoder freed at the end, weakly: gone once nothing holds it (the tests look).
    weak var freedDecoder: VideoDecoder?
}

/// The two ends of a `DecoderHandOff`: the playing item frees its decoder once it decoded its
/// last frame, and the item prepared after it creates its own only then.
extension ItemPipeline {
    /// The item prepared after this one waits for `handOff`: released when this decoder is
    /// freed at the end, or at once when the end has already been decoded (the decoder is
    /// kept then: a seek back would need it), or when this item is closed. Until then this
    /// item queues up to `handOffQueue` frames and twice its bytes: they cover the next
    /// decoder's start.
    func handOverDecoderAtEnd(_ handOff: DecoderHandOff) {
        let now = lock.withLock {
            if handOver.finished || closing { return true }
            handOver.waiting = handOff
            return false
        }
        if now { return handOff.release(.alreadyEnded) }
        resetQueueDepth()
    }

    /// How many frames an item whose decoder is handed over queues at most: at 30 fps half a
    /// second for the next decoder to open, decode its first frame and get ahead (at 4K HEVC
    /// on 2 cores, about a quarter of that), where the bytes allow (twice `frame_memory`:
    /// ten 1080p frames at the default; a 4K screen's unscaled frames, two to five).
    static let handOffQueue = 16

    /// The frame queue's depth and bytes for now: the usual, or the hand-over's while one is
    /// pending (a seek puts it back to either; `ItemSequencer.queueMoreAhead` deepens it later).
    func resetQueueDepth() {
        let handingOver = lock.withLock { handOver.waiting != nil }
        frames.setCapacity(handingOver ? Self.handOffQueue : Self.framesAhead,
                           bytes: plan.frameMemory * (handingOver ? 2 : 1))
    }

    /// The decode thread at the end of `generation`'s stream: the hand-off to carry out, if
    /// any (none for the end of a position a seek has left). From now on until a seek, a new
    /// one is released at once.
    func takeDecoderHandOffAtEnd(generation ended: Int) -> DecoderHandOff? {
        lock.withLock {
            guard ended == generation else { return nil }
            handOver.finished = true
            guard let handOff = handOver.waiting else { return nil }
            handOver.waiting = nil
            handOver.released = true
            return handOff
        }
    }

    /// The demux thread taking a seek: after the decoder was freed at the end, it makes a new
    /// one here (it alone touches the demuxer's streams while it reads) for the decode thread
    /// to take with the seek; when it cannot, the decode thread fails the item with why.
    func reopenHandedOverDecoder(asset: Asset, videoIndex: Int?) {
        guard lock.withLock({ handOver.released }), let videoIndex else { return }
        do {
            let slot = DecoderSlot(try makeDecoder(asset: asset, videoIndex: videoIndex))
            lock.withLock {
                handOver.reopened = slot
                handOver.released = false
            }
        } catch {
            let failure = error as? MediaError ?? MediaError(source: plan.source, reason: "\(error)")
            lock.withLock { handOver.reopenFailure = failure }
        }
    }

    /// Why the decoder could not be made again.
    func takeReopenFailure() -> MediaError {
        lock.withLock { handOver.reopenFailure } ?? MediaError(source: plan.source, reason: "its decoder could not be made again after a seek")
    }

    /// The decoder the demux thread made again, for the decode thread (once).
    func takeReopenedDecoder() -> VideoDecoder? {
        lock.withLock {
            defer { handOver.reopened = nil }
            return handOver.reopened?.take()
        }
    }

    /// Closing: nothing waits for this decoder any longer.
    func releaseDecoderHandOff() {
        let handOff = lock.withLock {
            defer { handOver.waiting = nil }
            return handOver.waiting
        }
        handOff?.release(.closed)
    }

    /// Before a large decoder is created: waits for the item before it to free its own
    /// (`plan.decoderAfter`). False when this item was closed meanwhile (no decoder then).
    func awaitDecoderHandOff(width: Int?, height: Int?) -> Bool {
        guard let handOff = plan.decoderAfter, DecoderHandOff.isLarge(width: width, height: height) else { return true }
        let began = MonotonicClock.hostTime()
        guard handOff.wait(unless: { interrupt.isCancelled }) else { return false }
        let waited = String(format: "%.3f", (MonotonicClock.hostTime() - began).seconds)
        logger.debug("\(plan.source): decoder created once the playing item's \(handOff.reason?.rawValue ?? "was released") (waited \(waited) s)")
        return true
    }
}
