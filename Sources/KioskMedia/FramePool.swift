import CFFmpeg
import CKioskShim

/// Blocks for the frames the decode thread makes itself, reused as the presenter lets frames
/// go (frame_pool.c): the shrunk ones (`FrameShrinker`) and those copied down from a hardware
/// decoder (`HardwareDecoderSetup.download`). One allocation a frame was an mmap, its page
/// faults and a munmap each, 30 times a second, once `FrameHeap` gave large blocks mappings
/// of their own. A new block size makes a new pool; the old one is freed when the last frame
/// holding a block of it is.
final class FramePool {
    private var pool: OpaquePointer?
    private var block: Int32 = 0
    static let alignment: Int32 = 64
    /// The copies down that went into a block of the pool (not FFmpeg's own allocation).
    private(set) var pooledDownloads = 0
    /// Copies down whose pool way failed and took FFmpeg's: after a few, the pool way is not
    /// tried again (each failed try costs a transfer before the one that works).
    private var poolWayFailures = 0
    private static let poolWayTries = 3

    deinit { av_buffer_pool_uninit(&pool) }

    /// Gives `frame` (its format, width and height set) its planes in a block of the pool;
    /// false when that cannot be (the caller lets the frame go or falls back).
    func attach(to frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        guard kiosk_frame_pool_fit(&pool, &block, frame.pointee.format, frame.pointee.width, frame.pointee.height,
                                   Self.alignment) >= 0, let pool else { return false }
        return kiosk_frame_buffer_from_pool(frame, pool, Self.alignment) >= 0
    }

    /// Copies the hardware frame `frame` into `target` (empty) in a block of the pool, or where
    /// FFmpeg allocates it when the pool's way fails; FFmpeg's error (negative) when the copy fails.
    func download(_ frame: UnsafePointer<AVFrame>, into target: UnsafeMutablePointer<AVFrame>) -> Int32 {
        guard poolWayFailures < Self.poolWayTries else { return av_hwframe_transfer_data(target, frame, 0) }
        let result = kiosk_hwframe_download(target, frame, &pool, &block)
        if result == 1 { pooledDownloads += 1 }
        if result == 0 { poolWayFailures += 1 }
        return result
    }
}
