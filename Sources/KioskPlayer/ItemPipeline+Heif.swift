import Foundation
import KioskCore
import KioskMedia

extension ItemPipeline {
    /// A HEIF still (`HeifStill`): no packets and no decode thread, libheif decodes the one
    /// picture here. It is handed out with the item's end, and again after each seek (a looped
    /// or scrubbed still), each time as a new reference to the same pixels (no copy), since
    /// the presenter restamps the frames it takes. A failure is the item's one `.failed` line,
    /// as FFmpeg's are.
    func runHeifStill() {
        audio.close()
        let still: DecodedFrame
        do {
            still = try HeifStill.decode(plan.source)
        } catch {
            frames.push(.failed(error as? MediaError ?? MediaError(source: plan.source, reason: "\(error)")))
            return
        }
        lock.withLock { openedInfo = HeifStill.info(of: plan.source, frame: still) }
        // A HEIF file routed here by its name but played as a video (no still duration) shows
        // for a frame's time, as FFmpeg's one-frame files do.
        let length = plan.stillDuration ?? MediaTime(value: 1, timescale: 25)
        var generation: Int? = currentGeneration
        while let current = generation {
            guard let frame = still.newReference() else {
                frames.push(.failed(MediaError(source: plan.source, reason: "out of memory for a frame")))
                return
            }
            guard frames.push(.frame(frame, generation: current)), frames.push(.end(length: length, generation: current)) else { return }
            // Parked like the demux thread at a file's end: only a seek or the close wakes it.
            generation = lock.withLock {
                while pendingSeek == nil && !closing { lock.wait() }
                defer { pendingSeek = nil }
                return closing ? nil : pendingSeek?.generation
            }
        }
    }
}
