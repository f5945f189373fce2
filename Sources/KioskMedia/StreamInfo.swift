import KioskCore

/// What FFmpeg found in a file: the probe result `kiosk probe` prints and the engine plans with.
public struct MediaInfo: Sendable, Codable, Equatable {
    public var source: String
    public var formatName: String
    /// nil when the container does not say (live streams, some raw files).
    public var durationSeconds: Double?
    public var bitRate: Int?
    public var streams: [StreamInfo]

    public var bestVideo: StreamInfo? { streams.first { $0.kind == .video && $0.isDefaultChoice } ?? streams.first { $0.kind == .video } }
    public var bestAudio: StreamInfo? { streams.first { $0.kind == .audio && $0.isDefaultChoice } ?? streams.first { $0.kind == .audio } }

    /// Read by FFmpeg's image2 demuxer or one of its image pipes (jpeg_pipe, png_pipe,
    /// webp_pipe...): a picture file, whatever its stream says of its frame count.
    public var isPictureFile: Bool { formatName == "image2" || formatName.hasSuffix("_pipe") }
}

public struct StreamInfo: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable { case video, audio, subtitle, data, attachment, unknown }

    public var index: Int
    public var kind: Kind
    public var codecName: String
    /// False when no decoder for the codec is compiled into this FFmpeg.
    public var decodable: Bool
    /// FFmpeg's pick among streams of its kind (av_find_best_stream).
    public var isDefaultChoice: Bool
    public var durationSeconds: Double?
    public var bitRate: Int?
    // Video
    public var width: Int?
    public var height: Int?
    public var pixelFormat: String?
    public var sampleAspectRatio: Rational?
    public var frameRate: Rational?
    /// Clockwise degrees the picture must turn to be upright (phone videos).
    public var rotation: Int?
    /// An interlaced stream's field order as the container states it (tt: top field first,
    /// bb, tb, bt; ffprobe's names); nil when progressive or unstated. Its frames are woven
    /// whole as they play (`playback.deinterlace`).
    public var fieldOrder: String?
    public var isStillImage: Bool?
    /// A song's cover picture (FFmpeg's attached picture): one picture, demuxed once before the
    /// sound and again after each seek, never a stream of frames.
    public var isCoverPicture: Bool?
    /// How kiosk would decode it with a `playback.hwdec` choice (`kiosk probe --hwdec`): the
    /// decoder and path, or each hardware way's reason and "decoding in software".
    public var decoding: String?
    /// Where its first frame would be shown on the screen kiosk would drive (`kiosk probe`):
    /// "on card0 (Virtual-1, 1280x720), fit: plane 40 takes YU12 as decoded, no CPU conversion".
    public var shown: String?
    // Audio
    public var sampleRate: Int?
    public var channels: Int?
    public var channelLayout: String?
    public var sampleFormat: String?
}
