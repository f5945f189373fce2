import Foundation

/// Sound the audio tests make with ffmpeg at test time: lavfi tones are exact, so what comes out
/// of kiosk can be checked against what went in.
public enum AudioFixtures {
    /// A tone: `expression` per channel for aevalsrc (e.g. "0.5*sin(2*PI*440*t)|0"), with
    /// `layout` such as "stereo" or "5.1", encoded with `codec` into clip `name`.
    public static func tone(_ name: String, expression: String, layout: String = "stereo", sampleRate: Int = 48_000,
                            seconds: Double = 1, codec: String = "pcm_s16le") throws -> String {
        try MediaFixtures.clip(name, ["-f", "lavfi", "-i", "aevalsrc=\(expression):s=\(sampleRate):c=\(layout):d=\(seconds)",
                                      "-c:a", codec])
    }

    /// A unique path in the fixtures folder, for recordings.
    public static func scratchPath(_ stem: String, extension suffix: String = "raw") -> String {
        MediaFixtures.directory.appendingPathComponent("\(stem)-\(UUID().uuidString.prefix(8)).\(suffix)").path
    }
}
