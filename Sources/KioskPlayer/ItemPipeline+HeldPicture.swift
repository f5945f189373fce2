import Foundation
import KioskCore
import KioskMedia

/// A picture held while the sound plays on (`HeldPicture`): a song's cover, a video stream that
/// ended before its sound. The demux thread notes what it passes on; the presenter asks before
/// it takes a dry frame queue for a stall.
extension ItemPipeline {
    /// Whether the picture on screen holds while the item's sound plays: then the clock goes on
    /// with the sound, and no frame is waited for.
    var holdsPictureForSound: Bool {
        lock.withLock {
            hasAudioStream && demuxProgress.heldPicture.holds(isCover: openedInfo?.bestVideo?.isCoverPicture == true)
        }
    }

    /// The demux thread's, for each packet it passes on (`end`: `Demuxer.lastPacketEnd`): true
    /// when the sound has just gone `HeldPicture.lead` past the picture (once after each seek).
    func notePacketEnd(_ end: MediaTime?, isSound: Bool) -> Bool {
        guard let end else { return false }
        return lock.withLock {
            let isCover = openedInfo?.bestVideo?.isCoverPicture == true
            let before = demuxProgress.heldPicture.holds(isCover: isCover)
            if isSound { demuxProgress.heldPicture.noteSound(end: end) } else { demuxProgress.heldPicture.notePicture(end: end) }
            return !before && demuxProgress.heldPicture.holds(isCover: isCover)
        }
    }

    /// The demux thread's, at a seek.
    func restartHeldPicture() {
        lock.withLock { demuxProgress.heldPicture.restart() }
    }
}
