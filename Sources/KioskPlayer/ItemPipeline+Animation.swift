import KioskCore
import KioskMedia

extension ItemPipeline {
    /// An animated WebP (`WebPAnimationReader`, libwebpdemux), which FFmpeg does not decode:
    /// no packets and no decode thread. Its frames are decoded here in order, each with its own
    /// time, into the frame queue (which holds this thread while it is full), then the item's
    /// end. Its length is known at open (its frame headers), so the next item is prepared as
    /// for any video. The trim's `start` and `end` apply. A seek decodes again from its first
    /// frame, copying only from the frame showing at the time asked (stamped with that time, as
    /// the decode thread does); past the last frame the last one shows. No sound. A failure
    /// to open is the item's one `.failed` line; a frame that cannot be decoded ends it there.
    func runAnimation() {
        audio.close()
        let reader: WebPAnimationReader
        do {
            reader = try WebPAnimationReader(path: plan.source)
        } catch {
            frames.push(.failed(error as? MediaError ?? MediaError(source: plan.source, reason: "\(error)")))
            return
        }
        // Looped for its `duration` (`AnimationLoop`: its `end`), else cut at its trim's `end`.
        let length = plan.animationLoop != nil ? plan.end ?? reader.length : plan.end.map { Swift.min($0, reader.length) } ?? reader.length
        // Its frames' times are the file's own, a frame held seconds included (a GIF's gaps
        // are kept alike): the presenter believes them rather than following the clock.
        lock.withLock {
            openedInfo = reader.info
            timelineTuning = .keepingGaps
        }
        var seek: (target: MediaTime, generation: Int)? = lock.withLock {
            defer { pendingSeek = nil }
            return pendingSeek ?? (plan.start, generation)
        }
        while let (target, current) = seek {
            guard playAnimation(reader, from: target, until: length, generation: current) else { return }
            // Parked like the demux thread at a file's end: only a seek or the close wakes it.
            seek = lock.withLock {
                while pendingSeek == nil && !closing { lock.wait() }
                defer { pendingSeek = nil }
                return closing ? nil : pendingSeek
            }
        }
    }

    /// One pass from `target` to the end (or until a seek comes); false once closed or failed.
    private func playAnimation(_ reader: WebPAnimationReader, from target: MediaTime, until length: MediaTime,
                               generation: Int) -> Bool {
        // No decoder to free: the item prepared after this one may make its own at once (the
        // decode thread frees its own at the end; a seek undoes it).
        takeDecoderHandOffAtEnd(generation: generation)?.release(.atTheEnd)
        reader.rewind()
        // The pass `target` falls in, looped (`AnimationLoop`): its frames' times after the
        // passes before it.
        let loop = plan.animationLoop.map { AnimationLoop(duration: $0.duration, plays: .ofWebP(loopCount: reader.loopCount)) }
        var offset = loop?.place(of: target, passLength: reader.length).offset ?? .zero
        var delivered = 0
        var last: WebPAnimationReader.Step?
        while lock.withLock({ pendingSeek == nil && !closing }) {
            let step: WebPAnimationReader.Step
            do {
                guard let next = try reader.advance()?.later(by: offset) else {
                    guard let loop, let following = loop.nextOffset(after: offset, passLength: reader.length)
                    else { break }
                    offset = following
                    reader.rewind()
                    last = nil   // its canvas is the next pass's now
                    continue
                }
                guard next.start < length else { break }
                step = next
            } catch {
                last = nil   // the canvas holds a partial decode now
                if delivered == 0 {
                    frames.push(.failed(error as? MediaError ?? MediaError(source: plan.source, reason: "\(error)")))
                    return false
                }
                logger.warning("\(error)")
                break
            }
            decodeWork.add(1, ordering: .relaxed)   // progress the stall watch sees, copied or not
            last = step
            if step.end <= target && step.end < length { continue }   // before the time asked: decoded, not copied
            guard deliver(reader, step, at: Swift.min(target, length), generation: generation) else { return false }
            delivered += 1
            if step.end >= length { break }   // nothing past the end decoded (the canvas is shared)
        }
        guard lock.withLock({ pendingSeek == nil && !closing }) else { return true }
        // A target past the last frame shows the last, as a frame shows until the next.
        if delivered == 0, let last, !deliver(reader, last, at: Swift.min(target, length), generation: generation) { return false }
        return frames.push(.end(length: length, generation: generation))
    }

    /// Copies `step`'s canvas into a frame, stamped no earlier than `target`, into the queue.
    private func deliver(_ reader: WebPAnimationReader, _ step: WebPAnimationReader.Step, at target: MediaTime,
                         generation: Int) -> Bool {
        do {
            let frame = try reader.frame(of: step)
            if frame.pts < target { frame.restamp(to: target) }
            return frames.push(.frame(frame, generation: generation))
        } catch {
            frames.push(.failed(error as? MediaError ?? MediaError(source: plan.source, reason: "\(error)")))
            return false
        }
    }
}
