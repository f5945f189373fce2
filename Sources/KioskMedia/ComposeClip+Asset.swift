import CFFmpeg
import CKioskShim
import KioskCore

extension ComposeClip {
    /// What `kiosk compose` plans with, from an opened asset; a clip with no video stream
    /// (or one FFmpeg cannot decode) is refused here, naming the file.
    public init(asset: Asset) throws {
        guard let video = asset.info.bestVideo else {
            throw MediaError(source: asset.source, reason: "no video stream to compose (only \(asset.info.streams.map(\.kind.rawValue).joined(separator: ", ")))")
        }
        guard video.decodable else { throw MediaError(source: asset.source, reason: "no decoder for its \(video.codecName) video") }
        guard let width = video.width, let height = video.height, width > 0, height > 0 else {
            throw MediaError(source: asset.source, reason: "its video has no picture size")
        }
        let audio = asset.info.bestAudio.flatMap { $0.decodable ? $0 : nil }
        self.init(path: asset.source, codedSize: PixelSize(width: width, height: height),
                  sampleAspect: video.sampleAspectRatio ?? .one, rotation: Rotation(degrees: video.rotation ?? 0) ?? .none,
                  frameRate: video.frameRate, hasAudio: audio != nil,
                  videoCodecKey: Self.codecKey(asset.stream(at: video.index)),
                  audioCodecKey: audio.map { Self.codecKey(asset.stream(at: $0.index)) })
    }

    /// The codec parameters that must match for packets to be joined without re-encoding:
    /// codec, profile, level, format, size, colour, sample rate and layout, and the extradata
    /// (SPS/PPS, AudioSpecificConfig) byte for byte.
    static func codecKey(_ stream: UnsafeMutablePointer<AVStream>) -> String {
        let p = stream.pointee.codecpar.pointee
        var key = "\(p.codec_id.rawValue)/\(p.profile)/\(p.level)/\(p.format)/\(p.width)x\(p.height)"
        key += "/\(p.color_range.rawValue)/\(p.color_space.rawValue)/\(p.sample_rate)/\(p.ch_layout.nb_channels)/"
        if let data = p.extradata, p.extradata_size > 0 {
            key += UnsafeBufferPointer(start: data, count: Int(p.extradata_size)).map { String($0, radix: 16) }.joined(separator: ".")
        }
        return key
    }
}
