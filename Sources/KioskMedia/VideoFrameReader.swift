import CFFmpeg
import CKioskShim
import KioskCore

/// Reads an asset's video frames in order, demuxing and decoding on the calling thread.
/// Snapshots and benchmarks use it directly; the player's pipeline runs one per item on its
/// decode thread.
public final class VideoFrameReader {
    public let asset: Asset
    private let loop: FrameReaderLoop<VideoDecoder>

    /// Opens the best video stream of `asset`; `threads` 0 lets FFmpeg choose (one per core + 1).
    /// `stillScreen`: decode a large JPEG still only as large as covering it needs (`lowres`).
    public init(asset: Asset, threads: Int = 0, stillScreen: PixelSize? = nil) throws {
        guard let video = asset.info.bestVideo else {
            throw MediaError(source: asset.source, reason: "no video stream (only \(asset.info.streams.map(\.kind.rawValue).joined(separator: ", ")))")
        }
        self.asset = asset
        loop = FrameReaderLoop(asset: asset, decoder: try VideoDecoder(asset: asset, streamIndex: video.index, threads: threads,
                                                                        stillScreen: stillScreen))
    }

    public var damagedPackets: Int { loop.decoder.damagedPackets }

    /// The `lowres` level a large JPEG still is decoded at (0: full size).
    public var lowres: Int { loop.decoder.lowres }

    /// The next frame in presentation order, or nil at the end of the stream.
    public func nextFrame() throws -> DecodedFrame? {
        loop.nextFrame()
    }

    /// Moves to the last keyframe at or before `time`; the frames that follow start there, so a
    /// caller wanting the exact frame reads on until it reaches `time`.
    public func seek(to time: MediaTime) throws {
        try loop.seek(to: time)
    }

    /// The frame on screen at `time`: the last one whose pts is not after it.
    public func frame(at time: MediaTime) throws -> DecodedFrame? {
        if time > .zero { try seek(to: time) }
        var shown: DecodedFrame? = nil
        while let frame = try nextFrame() {
            if frame.pts > time, shown != nil { break }
            shown = frame
            if frame.pts == time { break }
        }
        return shown
    }
}
