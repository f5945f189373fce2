import CFFmpeg
import CKioskShim
import KioskCore

/// Reads an asset's audio frames in order, demuxing and decoding on the calling thread, like
/// `VideoFrameReader` for pictures: tests, benchmarks and tools use it directly; the player's
/// pipeline feeds the decoder from its demux thread instead.
public final class AudioFrameReader {
    public let asset: Asset
    public let streamInfo: StreamInfo
    private let loop: FrameReaderLoop<AudioDecoder>
    /// After a seek: samples before this time are dropped, so reading starts exactly there.
    private var trimBefore: MediaTime?

    /// Opens the best audio stream of `asset`.
    public init(asset: Asset) throws {
        guard let audio = asset.info.bestAudio else {
            throw MediaError(source: asset.source, reason: "no audio stream (only \(asset.info.streams.map(\.kind.rawValue).joined(separator: ", ")))")
        }
        self.asset = asset
        streamInfo = audio
        loop = FrameReaderLoop(asset: asset, decoder: try AudioDecoder(asset: asset, streamIndex: audio.index))
    }

    public var damagedPackets: Int { loop.decoder.damagedPackets }

    /// The next frame in order, or nil at the end of the stream.
    public func nextFrame() throws -> DecodedAudioFrame? {
        while let frame = loop.nextFrame() {
            if let target = trimBefore {
                guard frame.trim(before: target) else { continue }
                trimBefore = nil
            }
            return frame
        }
        return nil
    }

    /// Moves so that the next frame starts exactly at `time` (or at the first sample after it
    /// when the stream starts later).
    public func seek(to time: MediaTime) throws {
        try loop.seek(to: time)
        trimBefore = time > .zero ? time : nil
    }
}
