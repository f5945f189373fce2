import KioskAudio
import KioskCore
import KioskMedia

/// One sound file's samples queued whole, in the queue's format, on the calling thread: the
/// music bed's files and sound cues (the items' sound has its own demux and decode threads).
enum SoundFileFeed {
    enum Outcome: Equatable {
        case played
        /// Some sound was queued, then the file failed: what came before was heard.
        case damaged(String)
        /// Nothing was queued: it cannot be opened or has no sound.
        case failed(String)
        /// The queue was closed, or flushed past `generation`.
        case stopped
    }

    /// A failure's text names the file (FFmpeg's errors do already). `generation`: pushes end
    /// once the queue is flushed past it (nil: only once it is closed).
    static func queue(_ path: String, into queue: PCMQueue, generation: Int? = nil, itemTag: Int) -> Outcome {
        let reader: AudioSampleReader
        do {
            reader = try AudioSampleReader(asset: Asset(source: path), output: queue.format, itemTag: itemTag)
        } catch {
            return .failed("\(error)")
        }
        var frames = 0
        while true {
            let chunk: PCMChunk?
            do { chunk = try reader.nextChunk() } catch {
                return frames > 0 ? .damaged("\(error)") : .failed("\(error)")
            }
            guard let chunk else { break }
            guard queue.push(chunk, generation: generation) else { return .stopped }
            frames += chunk.frameCount
        }
        return frames > 0 ? .played : .failed("\(path): no sound in it")
    }
}
