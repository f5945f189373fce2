import KioskCore
import KioskMedia

extension ItemPipeline {
    /// An animated WebP (`WebPAnimationReader`, libwebpdemux), which FFmpeg does not decode:
    /// no packets and no decode thread. Its frames are decoded here in order, each with its own
    /// time, into the frame queue (which holds this thread while it is full), then the item's
    /// end at the last frame's end. A seek starts it again from its first frame and hands out
    /// from the frame showing at the time asked. No sound. A failure is the item's one
    /// `.failed` line; a frame that cannot be decoded ends the animation there.
    func runAnimation() {
        audio.close()
        let reader: WebPAnimationReader
        do {
            reader = try WebPAnimationReader(path: plan.source)
        } catch {
            frames.push(.failed(error as? MediaError ?? MediaError(source: plan.source, reason: "\(error)")))
            return
        }
        // Its frames' times are the file's own, a frame held seconds included (a GIF's gaps
        // are kept alike): the presenter believes them rather than following the clock.
        lock.withLock {
            openedInfo = reader.info(length: nil)
            timelineTuning = .keepingGaps
        }
        var seek: (target: MediaTime, generation: Int)? = (.zero, currentGeneration)
        while let (target, current) = seek {
            reader.rewind()
            seek = nil
            var delivered = 0
            var length = MediaTime.zero
            while lock.withLock({ pendingSeek == nil && !closing }) {
                let next: (frame: DecodedFrame, end: MediaTime)?
                do { next = try reader.next() } catch {
                    if delivered == 0 { frames.push(.failed(error as? MediaError ?? MediaError(source: plan.source, reason: "\(error)"))); return }
                    logger.warning("\(error)")
                    break
                }
                guard let (frame, end) = next else { break }
                if length == .zero { lock.withLock { openedInfo = reader.info(length: nil, cadence: end - frame.pts) } }
                length = end
                if end <= target { continue }   // before the time asked
                guard frames.push(.frame(frame, generation: current)) else { return }
                delivered += 1
            }
            if lock.withLock({ pendingSeek == nil && !closing }) {
                let cadence = lock.withLock { openedInfo?.bestVideo?.frameRate }.map { MediaTime(value: 1, timescale: 1) * $0.inverted }
                lock.withLock { openedInfo = reader.info(length: length, cadence: cadence) }
                guard frames.push(.end(length: length, generation: current)) else { return }
            }
            // Parked like the demux thread at a file's end: only a seek or the close wakes it.
            seek = lock.withLock {
                while pendingSeek == nil && !closing { lock.wait() }
                defer { pendingSeek = nil }
                return closing ? nil : pendingSeek
            }
        }
    }
}
