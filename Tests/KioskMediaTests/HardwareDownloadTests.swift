import CFFmpeg
import KioskCore
import Testing
@testable import KioskMedia

/// A hardware decoder's frames are copied down into blocks of kiosk's pool (frame_pool.c,
/// `FramePool`), as av_hwframe_transfer_data would copy them into a new allocation: with
/// pictures in mappings of their own (`FrameHeap`) that allocation was an mmap a frame. No
/// decoder block here, so the device is Vulkan on Mesa's lavapipe (deploy/packages.txt), a
/// real FFmpeg hardware frames context whose frames are uploaded from a known picture.
@Suite struct HardwareDownloadTests {
    /// A 1280x720 NV12 picture: luma a diagonal ramp, chroma rows of their own values.
    static func picture() throws -> UnsafeMutablePointer<AVFrame> {
        let frame = try #require(av_frame_alloc())
        frame.pointee.format = AV_PIX_FMT_NV12.rawValue
        frame.pointee.width = 1280
        frame.pointee.height = 720
        try #require(av_frame_get_buffer(frame, 0) >= 0)
        for y in 0..<720 {
            let row = frame.pointee.data.0! + y * Int(frame.pointee.linesize.0)
            for x in 0..<1280 { row[x] = UInt8(truncatingIfNeeded: x + y) }
        }
        for y in 0..<360 {
            let row = frame.pointee.data.1! + y * Int(frame.pointee.linesize.1)
            for x in 0..<1280 { row[x] = UInt8(truncatingIfNeeded: 3 * y + x % 2) }
        }
        return frame
    }

    /// The picture on the device, or the reason there is none.
    static func onDevice(_ picture: UnsafeMutablePointer<AVFrame>) throws -> UnsafeMutablePointer<AVFrame> {
        var device: UnsafeMutablePointer<AVBufferRef>?
        let created = av_hwdevice_ctx_create(&device, AV_HWDEVICE_TYPE_VULKAN, nil, nil, 0)
        let why = "no Vulkan device (\(ffmpegErrorText(created))): Debian's mesa-vulkan-drivers gives lavapipe, "
            + "and this FFmpeg must be built with Vulkan (Debian's is)"
        try #require(created >= 0, "\(why)")
        defer { av_buffer_unref(&device) }
        var framesReference = av_hwframe_ctx_alloc(device)
        defer { av_buffer_unref(&framesReference) }   // the device frame keeps a reference of its own
        let frames = try #require(framesReference)
        frames.pointee.data.withMemoryRebound(to: AVHWFramesContext.self, capacity: 1) {
            $0.pointee.format = AV_PIX_FMT_VULKAN
            $0.pointee.sw_format = AV_PIX_FMT_NV12
            $0.pointee.width = 1280
            $0.pointee.height = 720
        }
        try #require(av_hwframe_ctx_init(frames) >= 0)
        let hardware = try #require(av_frame_alloc())
        try #require(av_hwframe_get_buffer(frames, hardware, 0) >= 0)
        try #require(av_hwframe_transfer_data(hardware, picture, 0) >= 0, "the upload to the device")
        hardware.pointee.pts = 1234
        return hardware
    }

    @Test func aDeviceFrameIsCopiedDownIntoAPoolBlockWhichTheNextOneReuses() throws {
        var picture: UnsafeMutablePointer<AVFrame>? = try Self.picture()
        defer { av_frame_free(&picture) }
        var hardware: UnsafeMutablePointer<AVFrame>? = try Self.onDevice(picture!)
        defer { av_frame_free(&hardware) }
        let pool = FramePool()
        // `download` takes the device frame it is given: a reference each time.
        var first = HardwareDecoderSetup.download(try #require(av_frame_clone(hardware)), pool: pool)
        let copy = try #require(first)
        #expect(copy.pointee.format == AV_PIX_FMT_NV12.rawValue && copy.pointee.width == 1280 && copy.pointee.height == 720)
        #expect(copy.pointee.pts == 1234, "its properties kept")
        #expect(copy.pointee.buf.0 != nil && copy.pointee.buf.1 == nil, "one block for both planes")
        for (plane, rows) in [(0, 720), (1, 360)] {
            let source = plane == 0 ? picture!.pointee.data.0! : picture!.pointee.data.1!
            let target = plane == 0 ? copy.pointee.data.0! : copy.pointee.data.1!
            let sourceStride = Int(plane == 0 ? picture!.pointee.linesize.0 : picture!.pointee.linesize.1)
            let targetStride = Int(plane == 0 ? copy.pointee.linesize.0 : copy.pointee.linesize.1)
            let differing = (0..<rows).filter { memcmp(source + $0 * sourceStride, target + $0 * targetStride, 1280) != 0 }
            #expect(differing.isEmpty, "plane \(plane): rows \(differing.prefix(5)) differ from the picture uploaded")
        }
        let block = copy.pointee.data.0
        var held = HardwareDecoderSetup.download(try #require(av_frame_clone(hardware)), pool: pool)
        #expect(held?.pointee.data.0 != block, "a block still held is not handed out again")
        av_frame_free(&first)
        var again = HardwareDecoderSetup.download(try #require(av_frame_clone(hardware)), pool: pool)
        #expect(again?.pointee.data.0 == block, "the block let go is the next frame's")
        av_frame_free(&held)
        av_frame_free(&again)
        #expect(pool.pooledDownloads == 3, "each copy went into the pool, not FFmpeg's own allocation")
    }
}
