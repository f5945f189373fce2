import Foundation
import KioskCore
import KioskMedia

/// What the presenter and the sound feeder read and set on a pipeline while its threads run,
/// each under its lock.
extension ItemPipeline {
    /// How a transition fades this item's sound in and out (set by the presenter thread,
    /// read by the sound feeder).
    var soundEnvelope: SoundEnvelope {
        get { lock.withLock { envelope } }
        set { lock.withLock { envelope = newValue } }
    }

    /// Whether the opened item has sound that is being decoded (false until opened).
    var hasAudio: Bool { lock.withLock { hasAudioStream } }

    /// The video's `FrameTimeline` rules (strict until opened).
    var videoTimelineTuning: FrameTimelineTuning { lock.withLock { timelineTuning } }

    /// The tempo for the item's sound from now on (the video side follows the clock).
    func setRate(_ rate: Rational) { lock.withLock { requestedRate = rate } }
    /// A synchronised player's correction of the sound's timing (parts per million longer).
    func setAudioCompensation(ppm: Int) { lock.withLock { requestedCompensation = ppm } }

    var currentGeneration: Int { lock.withLock { generation } }

    /// What FFmpeg found, once the demux thread has opened the item.
    var info: MediaInfo? { lock.withLock { openedInfo } }
}
