import Foundation
import KioskCore
import KioskMedia

/// A picture held while the sound plays on (`HeldPicture`): a song's cover, a video stream that
/// ended before its sound. The demux thread notes what it passes on; the presenter asks before
/// it takes a dry frame queue for a stall, and where the sound ends for the seam.
extension ItemPipeline {
    /// Whether the opened item's video is a song's cover (FFmpeg's attached picture).
    var hasCoverPicture: Bool { lock.withLock { coverPictureLocked } }

    private var coverPictureLocked: Bool { openedInfo?.bestVideo?.isCoverPicture == true }

    /// Whether the picture on screen (`shown`: the last frame's time) holds while the item's
    /// sound plays: then the clock goes on with the sound, and no frame is waited for.
    func holdsPictureForSound(shown: MediaTime?) -> Bool {
        lock.withLock { hasAudioStream && demuxProgress.heldPicture.holds(isCover: coverPictureLocked, shown: shown) }
    }

    /// Where the sound demuxed since the last seek ends (nil before any, or without sound): at
    /// the end of the file, the sound's own end, which the seam waits for when it outlasts the
    /// picture (`SeamTiming`).
    var demuxedSoundEnd: MediaTime? {
        lock.withLock { hasAudioStream ? demuxProgress.heldPicture.soundEnd : nil }
    }

    /// The demux thread's, for each packet it passes on (`end`: `Demuxer.lastPacketEnd`): true
    /// when the sound has just outrun the picture (`HeldPicture.soundOutruns`; again after each
    /// seek, and after each return of the picture), for the decode thread's `.pictureHeld`.
    func notePacketEnd(_ end: MediaTime?, isSound: Bool) -> Bool {
        guard let end else { return false }
        return lock.withLock {
            let isCover = coverPictureLocked
            let before = demuxProgress.heldPicture.soundOutruns(isCover: isCover)
            if isSound { demuxProgress.heldPicture.noteSound(end: end) } else { demuxProgress.heldPicture.notePicture(end: end) }
            return hasAudioStream && !before && demuxProgress.heldPicture.soundOutruns(isCover: isCover)
        }
    }

    /// The demux thread's, at a seek.
    func restartHeldPicture() {
        lock.withLock { demuxProgress.heldPicture.restart() }
    }
}
