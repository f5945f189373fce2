import KioskCore
import Logging

/// Outputs from kiosk.conf's `audio: device`.
public enum AudioOutputFactory {
    /// nil for `none` (no sound: the engine decodes no audio and the monotonic clock leads);
    /// otherwise the named ALSA PCM, kept going while it is missing or busy and picked up again
    /// when it comes back (`RetryingAudioOutput`).
    public static func output(for device: AudioConfig.Device, options: PCMSink.Options = PCMSink.Options(),
                              logger: Logger = Logger(label: "kiosk.audio")) -> RetryingAudioOutput? {
        switch device {
        case .none: return nil
        case .pcm(let name): return RetryingAudioOutput(alsaDevice: name, options: options, logger: logger)
        }
    }
}
