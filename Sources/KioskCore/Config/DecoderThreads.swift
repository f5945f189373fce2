/// `playback.decoder_threads`: how many frame threads a video's decoder runs.
///
/// FFmpeg's own choice is the box's cores + 1 (one on a single core), whatever the picture.
/// Each frame thread keeps a
/// decoding context and pictures of its own (8-11 MB at 1080p, four times that at 4K: BENCHMARKS,
/// "Memory") and holds one more frame back before the first comes out (a frame thread decodes
/// frame N+k while the others finish theirs). So `auto` asks for as many as a picture of that
/// size needs on a small box and no more: 2 up to 720p, 4 up to 1080p, 8 above (4K), never
/// more than FFmpeg's own choice, and above 1080p never more than the cores: the thread FFmpeg
/// adds to keep them busy costs a 4K decoder ~45 MB and bought nothing measurable (4K30 HEVC
/// 10-bit on 2 cores, BENCHMARKS "4K": 2 threads played every frame as 3 did, one item at
/// 321 MB against 366, two looping at 550 against 632, no more long intervals). A 2-core box
/// gets what FFmpeg would give it at 1080p; an 8-core one spares 5 threads' buffers there.
public enum DecoderThreads: Sendable, Equatable {
    case auto
    /// This many; 0 lets FFmpeg choose (`kiosk bench --threads 0`, to compare with ffmpeg).
    case fixed(Int)

    /// The most kiosk.conf may ask for (FFmpeg's own ceiling for frame threads is 16).
    public static let most = 16

    /// The threads for a picture of `width` x `height` on a box with `cores` (0 for FFmpeg's
    /// choice: a size the container does not say).
    public func count(width: Int?, height: Int?, cores: Int) -> Int {
        switch self {
        case .fixed(let count): return count
        case .auto:
            guard let width, let height, width > 0, height > 0 else { return 0 }
            let pixels = width * height
            let aboveHD = pixels > 1920 * 1088
            let wanted = pixels <= 1280 * 720 ? 2 : aboveHD ? 8 : 4
            let ffmpegChoice = cores > 1 ? cores + 1 : 1
            return Swift.max(1, Swift.min(wanted, aboveHD ? cores : ffmpegChoice, Self.most))
        }
    }
}
