/// How one sample is stored. The three encodings sound cards and ALSA plugins take natively;
/// all little-endian, as on every box kiosk runs on.
public enum PCMSampleFormat: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case s16, s32, float

    public var bytesPerSample: Int {
        switch self {
        case .s16: return 2
        case .s32, .float: return 4
        }
    }

    public var description: String { rawValue }
}

/// The speaker a channel feeds. Names follow ALSA's channel map (RL/RR are the "back"
/// speakers FFmpeg calls BL/BR).
public enum AudioChannel: String, Sendable, Codable, CaseIterable {
    case mono = "MONO"
    case frontLeft = "FL", frontRight = "FR", frontCenter = "FC", lowFrequency = "LFE"
    case rearLeft = "RL", rearRight = "RR", rearCenter = "RC"
    case sideLeft = "SL", sideRight = "SR"
    case frontLeftOfCenter = "FLC", frontRightOfCenter = "FRC"
    /// A channel the device does not name; nothing is routed to it.
    case unknown = "NA"

    /// ALSA's order when a device does not publish a channel map (alsa-lib's surround
    /// definitions and the HDA/HDMI defaults): front pair, rear pair, centre, LFE, sides.
    public static func alsaDefaultOrder(channels: Int) -> [AudioChannel] {
        switch channels {
        case 1: return [.mono]
        case 2: return [.frontLeft, .frontRight]
        case 3: return [.frontLeft, .frontRight, .lowFrequency]
        case 4: return [.frontLeft, .frontRight, .rearLeft, .rearRight]
        case 5: return [.frontLeft, .frontRight, .rearLeft, .rearRight, .frontCenter]
        case 6: return [.frontLeft, .frontRight, .rearLeft, .rearRight, .frontCenter, .lowFrequency]
        case 8: return [.frontLeft, .frontRight, .rearLeft, .rearRight, .frontCenter, .lowFrequency, .sideLeft, .sideRight]
        default: return Array(repeating: .unknown, count: max(0, channels))
        }
    }
}

/// What an audio output plays: interleaved frames of `channels` samples at `sampleRate`.
public struct AudioFormat: Sendable, Hashable, Codable, CustomStringConvertible {
    public var sampleFormat: PCMSampleFormat
    public var sampleRate: Int
    public var channels: Int
    /// The speaker of each interleaved channel, in order (`channels` entries).
    public var channelPositions: [AudioChannel]

    /// `channelPositions` defaults to ALSA's usual order for the channel count.
    public init(sampleFormat: PCMSampleFormat, sampleRate: Int, channels: Int, channelPositions: [AudioChannel]? = nil) {
        precondition(sampleRate > 0 && channels > 0, "an audio format needs a rate and channels")
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channels = channels
        let positions = channelPositions ?? AudioChannel.alsaDefaultOrder(channels: channels)
        precondition(positions.count == channels, "one position per channel")
        self.channelPositions = positions
    }

    /// CD-like stereo at 48 kHz, what most HDMI and USB devices run at natively.
    public static let stereo48k = AudioFormat(sampleFormat: .s16, sampleRate: 48_000, channels: 2)

    public var bytesPerFrame: Int { sampleFormat.bytesPerSample * channels }

    /// How long `frames` frames play.
    public func duration(ofFrames frames: Int) -> MediaTime {
        MediaTime(value: Int64(frames), timescale: Int32(sampleRate))
    }

    /// Frames in `duration`, rounded to the nearest frame.
    public func frames(in duration: MediaTime) -> Int {
        Int(duration.ticks(in: Rational(1, Int64(sampleRate))))
    }

    public var description: String {
        "\(sampleFormat) \(sampleRate) Hz \(channels) ch (\(channelPositions.map(\.rawValue).joined(separator: " ")))"
    }
}
