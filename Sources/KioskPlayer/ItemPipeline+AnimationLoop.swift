import Foundation
import KioskCore
import KioskMedia

/// The demux thread's side of an animated picture looped for its `duration` (`AnimationLoop`):
/// at the file's end it reads the file again from its start, its packets' times after the pass
/// just played, so the decoder and the presenter see one animation running on (a GIF's first
/// picture is a keyframe: its decoder starts the canvas afresh); a seek lands in the pass its
/// time falls in. The item's `end` (its duration) cuts the last pass as a trim does.
extension ItemPipeline {
    /// The loop the item's `duration` asks for, as many times as the file says it plays (a GIF's
    /// loop count, an APNG's num_plays: `AnimationPlays`), read from its first 256 KB once.
    func fileLoop() -> AnimationLoop? {
        guard var loop = plan.animationLoop else { return nil }
        if animationPlays == nil { animationPlays = Self.plays(ofFile: plan.source) }
        loop.plays = animationPlays ?? .forever
        return loop
    }

    /// A GIF's or an APNG's play count from its first 256 KB; forever for what is neither.
    static func plays(ofFile path: String) -> AnimationPlays {
        guard let handle = FileHandle(forReadingAtPath: path) else { return .forever }
        defer { try? handle.close() }
        let bytes = [UInt8]((try? handle.read(upToCount: 256 << 10)) ?? Data())
        return bytes.starts(with: Array("GIF8".utf8)) ? .ofGIF(bytes) : .ofPNG(bytes)
    }

    /// At the end of the file: true when another pass follows, already sought to.
    func loopsAgain(_ reader: StreamReader) -> Bool {
        guard let loop = fileLoop() else { return false }
        // One play of the file: its length, read to its end (exact, in its ticks).
        guard let next = loop.nextOffset(after: reader.demuxer.timeOffset, passLength: reader.demuxer.fileLength) else { return false }
        do {
            try reader.seek(to: .zero)
        } catch {
            logger.warning("\(error): the animation ends here")
            return false
        }
        reader.demuxer.timeOffset = next
        return true
    }

    /// Moves the reading to `time` on the item's timeline: into the pass it falls in.
    func seekReading(_ reader: StreamReader, to time: MediaTime) throws {
        guard let loop = fileLoop() else { return try reader.seek(to: time) }
        // One play of the file: as read to its end, else as its container says (a seek can come
        // before the first pass ends; an APNG says none: its first pass is read on from 0).
        let length = reader.demuxer.fileLength ?? reader.demuxer.asset.info.durationSeconds.map { MediaTime(seconds: $0) }
        let place = loop.place(of: time, passLength: length)
        try reader.seek(to: place.fileTime)
        reader.demuxer.timeOffset = place.offset
    }
}
