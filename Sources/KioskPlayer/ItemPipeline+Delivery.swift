import Foundation
import KioskCore
import KioskMedia
import Synchronization

/// The decode thread's way out: frames retimed, filtered (a seek's lead-in, a trim's end, a
/// live cut) and queued for the presenter (`ItemPipeline`'s decode loop calls these).
extension ItemPipeline {
    /// Moves every frame the decoder has ready, retimed, into the frame queue; false once closed.
    func drain(_ decoder: VideoDecoder, _ retimer: inout FrameRetimer, skipBefore: MediaTime, generation: Int,
                       produced: inout Int) -> Bool {
        while case .frame(let frame) = decoder.receive() {
            sayDecoderNotes(decoder)
            guard deliver(retimer.push(frame), skipBefore: skipBefore, generation: generation, produced: &produced) else { return false }
        }
        return true
    }

    /// Tells the decoder no packet follows and moves every frame it and the retimer still hold
    /// into the frame queue (`drain`, then the retimer's last); false once closed.
    func drainToEnd(_ decoder: VideoDecoder, _ retimer: inout FrameRetimer, skipBefore: MediaTime, generation: Int,
                            produced: inout Int) -> Bool {
        _ = decoder.send(nil as Packet?)
        return drain(decoder, &retimer, skipBefore: skipBefore, generation: generation, produced: &produced)
            && deliver(retimer.finish(), skipBefore: skipBefore, generation: generation, produced: &produced)
    }

    /// Queues `frame` (a retimed one, or nil when the retimer holds it back); false once closed.
    func deliver(_ frame: DecodedFrame?, skipBefore: MediaTime, generation: Int, produced: inout Int) -> Bool {
        guard let frame else { return true }
        // A still's picture after a seek into it is that time's (see runDemux's seek); only its
        // first: an animated PNG's later frames are skipped up to the time as a video's are.
        if stillSeekPending {
            stillSeekPending = false
            if frame.pts < skipBefore { frame.restamp(to: skipBefore) }
        }
        // A still lasts its duration: an `end` before the resume point does not cut its picture.
        if plan.stillDuration == nil, let end = plan.end, frame.pts >= end { return true }
        if isPastLiveCut(frame) { return true }
        // After a seek, the frames between the keyframe and the target are only decoded
        // to reach it; the last one before a frame-less gap would still be shown, but
        // streams have frames at every target within a frame period.
        if frame.pts < skipBefore, skipBefore - frame.pts > MediaTime(value: 1, timescale: 1000) {
            if !deliveredSinceSeek { heldBack = frame }
            return true
        }
        return queue(frame, generation: generation, produced: &produced)
    }

    /// Hands `frame` to the frame queue as the newest delivered; false once closed.
    func queue(_ frame: DecodedFrame, generation: Int, produced: inout Int) -> Bool {
        heldBack = nil
        deliveredSinceSeek = true
        produced += 1
        decodeWork.add(1, ordering: .relaxed)
        lock.withLock { newestFramePTS = frame.pts }
        if plan.simulatedPrimeDecoder, plan.stillDuration == nil { primeSimulation.attach(to: frame) }
        return frames.push(.frame(frame, generation: generation))
    }

    /// At the end of the stream, a target past the last frame (an item resumed after an
    /// override 5.99 s into its 6 s, a skip to the very end) shows the newest frame decoded
    /// before it (a file ending in B-frames: the last reference frame, a few frames earlier),
    /// as a frame shows until the next. Without it nothing was delivered, and a resumed item
    /// failed as "no picture could be decoded" (CI, 2026-11-28).
    func deliverHeldBack(at target: MediaTime, generation: Int, produced: inout Int) -> Bool {
        guard let frame = heldBack else { return true }
        frame.restamp(to: Swift.max(frame.pts, target))
        return queue(frame, generation: generation, produced: &produced)
    }
}
