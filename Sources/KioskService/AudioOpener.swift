import KioskAudio
import KioskCore
import Logging

/// The sound device `--audio` or kiosk.conf names: an ALSA PCM, retried with backoff while it
/// is missing or busy (the picture plays on meanwhile), or none; for tests and benchmarks,
/// `null` (nowhere, in real time) and `file:PATH` (the same, recorded to a WAV or raw file).
package enum AudioOpener {
    package static func open(_ device: AudioConfig.Device, logger: Logger) -> AudioOutput? {
        switch device {
        case .none: return nil
        case .pcm("null"): return NullSink()
        case .pcm(let name) where name.hasPrefix("file:"): return RecordingSink(path: String(name.dropFirst(5)))
        case .pcm(let name): return RetryingAudioOutput(alsaDevice: name, logger: logger)
        }
    }

    /// `--audio`: a PCM name, or none.
    package static func parse(_ text: String) -> AudioConfig.Device {
        text.lowercased() == "none" ? .none : .pcm(text)
    }
}
