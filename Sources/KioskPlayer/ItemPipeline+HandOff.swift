import KioskCore
import KioskMedia

/// The two ends of a `DecoderHandOff`: the playing item frees its decoder once it decoded its
/// last frame, and the item prepared after it creates its own only then.
extension ItemPipeline {
    /// The item prepared after this one waits for `handOff`: released when this decoder is
    /// freed at the end, or at once when the end has already been decoded (the decoder is
    /// kept then: a seek back would need it), or when this item is closed.
    /// Until then its queue holds up to twice the frames and bytes it would (`handOffQueue`):
    /// they cover the next decoder's start.
    func handOverDecoderAtEnd(_ handOff: DecoderHandOff) {
        let now = lock.withLock {
            if decoderFinished || closing { return true }
            decoderHandOffAtEnd = handOff
            return false
        }
        if now { return handOff.release() }
        frames.setCapacity(Self.handOffQueue, bytes: plan.frameMemory * 2)
    }

    /// How many frames an item whose decoder is handed over queues at most: at 30 fps, half a
    /// second for the next item's decoder to open, decode its first frame and get ahead (at
    /// 4K HEVC on 2 cores, about a quarter of that).
    static let handOffQueue = 16

    /// The decode thread at the end of the stream: the hand-off to carry out, if any; from
    /// now on until a seek, a new one is released at once.
    func takeDecoderHandOffAtEnd() -> DecoderHandOff? {
        lock.withLock {
            decoderFinished = true
            defer { decoderHandOffAtEnd = nil }
            return decoderHandOffAtEnd
        }
    }

    /// Closing: nothing waits for this decoder any longer.
    func releaseDecoderHandOff() {
        let handOff = lock.withLock {
            defer { decoderHandOffAtEnd = nil }
            return decoderHandOffAtEnd
        }
        handOff?.release()
    }

    /// Before a large decoder is created: waits for the item before it to free its own
    /// (`plan.decoderAfter`). False when this item was closed meanwhile (no decoder then).
    func awaitDecoderHandOff(width: Int?, height: Int?) -> Bool {
        guard let handOff = plan.decoderAfter, DecoderHandOff.isLarge(width: width, height: height) else { return true }
        let began = MonotonicClock.hostTime()
        guard handOff.wait(unless: { interrupt.isCancelled }) else { return false }
        let waited = (MonotonicClock.hostTime() - began).seconds
        logger.debug("\(plan.source): decoder created after the playing item's was freed (waited \(String(format: "%.3f", waited)) s)")
        return true
    }
}
