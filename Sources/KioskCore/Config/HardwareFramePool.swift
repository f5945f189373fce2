/// How many more frames a hardware decoder's pool needs than its own references, because kiosk
/// holds some of them (issue 33: `extra_hw_frames`, `num_capture_buffers`).
///
/// A device decoder (VA-API, DRM PRIME) allocates a fixed pool of surfaces: its references and
/// the frames its threads decode, plus `extra_hw_frames`. Frames copied down to memory give
/// their surface back at once and need none. A frame kept on its surface for the zero-copy
/// path holds it while it is queued ahead of the presenter and while the display shows it: the
/// pool must grow by that much, or the decoder runs out ("no free surfaces") and the picture
/// freezes. FFmpeg's `h264_v4l2m2m` returns ordinary frames that keep their V4L2 capture
/// buffer in the same way: its `num_capture_buffers` (20 by default, the decoder's own needs)
/// grows by what kiosk holds.
///
/// What kiosk holds is bounded twice: the frame queue's count and its byte budget
/// (`playback.frame_memory`, at least 2 frames), so a 4K 10-bit stream holds fewer surfaces
/// than 1080p, as it queues fewer frames.
public enum HardwareFramePool {
    /// Frames the display keeps besides the queue: the one on screen, the one waiting for its
    /// flip, and the one retired until the flip after (a buffer is reused only then).
    public static let heldByDisplay = 3
    /// Frames the decode thread keeps besides the queue: the one it waits to queue while the
    /// queue is full, and the newest before a seek's target (shown if nothing reaches it).
    public static let heldByDecodeThread = 2
    /// FFmpeg's default `num_capture_buffers` for the V4L2 M2M wrappers.
    public static let defaultCaptureBuffers = 20
    /// V4L2's ceiling on buffers per queue in the kernels boxes run (VB2_MAX_FRAME, 32 before
    /// Linux 6.8): asking for more is cut to it by the driver anyway.
    public static let mostCaptureBuffers = 32

    /// The bytes of one decoded picture of `width` x `height` as a device keeps it: 4:2:0, two
    /// bytes a sample above 8 bits (P010).
    public static func frameBytes(width: Int, height: Int, bitsPerSample: Int) -> Int {
        let bytesPerSample = bitsPerSample > 8 ? 2 : 1
        return max(0, width) * max(0, height) * 3 / 2 * bytesPerSample
    }

    /// What one queued frame of `picture` weighs (`deep`: more than 8 bits a sample) for the
    /// screens it is `covering`: its 8-bit copy shrunk as the decode thread shrinks it, else the
    /// whole picture as the device keeps it. The device's pool is sized by it, and a frame left
    /// on its device weighs at least this in the queue: the queue never holds more surfaces
    /// than the pool grew by.
    public static func queuedFrameBytes(picture: PixelSize, deep: Bool, covering: [PixelSize]) -> Int {
        let shrunk = DecodeShrink.size(of: picture, quarterTurned: false, covering: covering,
                                       largestFactor: deep ? DecodeShrink.largestFactorConverting : DecodeShrink.largestFactor)
        return shrunk.map { frameBytes(width: $0.width, height: $0.height, bitsPerSample: 8) }
            ?? frameBytes(width: picture.width, height: picture.height, bitsPerSample: deep ? 10 : 8)
    }

    /// The frames kiosk may hold at once: what the queue takes (`queueCapacity`, no more than
    /// `budgetBytes` holds of `frameBytes`, at least 2) plus the decode thread's and the
    /// display's. `frameBytes` is what a queued frame weighs in memory: the copy, shrunk where
    /// the decode thread shrinks it (the device's surface behind it is larger).
    public static func framesHeld(queueCapacity: Int, budgetBytes: Int, frameBytes: Int) -> Int {
        let byBudget = frameBytes > 0 ? budgetBytes / frameBytes : queueCapacity
        return max(2, min(queueCapacity, byBudget)) + heldByDecodeThread + heldByDisplay
    }

    /// `num_capture_buffers` for a V4L2 M2M wrapper holding `held` frames.
    public static func captureBuffers(held: Int) -> Int {
        min(mostCaptureBuffers, defaultCaptureBuffers + max(0, held))
    }
}
