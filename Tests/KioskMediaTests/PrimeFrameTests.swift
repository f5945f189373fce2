import CFFmpeg
import KioskCore
import Testing
@testable import KioskMedia

/// A descriptor written into FFmpeg's AVDRMFrameDescriptor (as a hardware decoder hands its
/// DRM PRIME frames over) and read back is the same descriptor.
@Test func primeFrameRoundTripsThroughFFmpegsDescriptor() throws {
    let descriptor = PrimeFrameDescriptor(
        size: PixelSize(width: 3840, height: 2160),
        objects: [.init(fd: 11, size: 16 << 20, modifier: 0x0700_0000_0000_0004), .init(fd: 12, size: 8 << 20, modifier: 0)],
        layers: [.init(format: .r16, planes: [.init(object: 0, offset: 0, pitch: 7680)]),
                 .init(format: .gr1616, planes: [.init(object: 1, offset: 4096, pitch: 7680)])])
    let frame = try #require(PrimeFrame.wrapping(descriptor))
    #expect(frame.descriptor == descriptor)
    #expect(frame.frame.pointee.format == AV_PIX_FMT_DRM_PRIME.rawValue)
    #expect(frame.frame.pointee.width == 3840 && frame.frame.pointee.height == 2160)
    #expect(try frame.descriptor.framebufferPlan().format == .p010)
}

@Test func primeFrameRefusesWhatFFmpegsArraysCannotHold() {
    let plane = PrimeFrameDescriptor.Plane(object: 0, offset: 0, pitch: 64)
    let five = PrimeFrameDescriptor(size: PixelSize(width: 64, height: 64), objects: [.init(fd: 1, size: 0, modifier: 0)],
                                    layers: Array(repeating: .init(format: .r8, planes: [plane]), count: 5))
    #expect(PrimeFrame.wrapping(five) == nil)
}

@Test func anOrdinaryFrameIsNoPrimeFrame() throws {
    var frame = av_frame_alloc()
    defer { av_frame_free(&frame) }
    let pointer = try #require(frame)
    pointer.pointee.format = AV_PIX_FMT_NV12.rawValue
    #expect(PrimeFrame(taking: pointer) == nil)
}

/// A `drm` device's frame is kept as it is: referenced again (its descriptor and buffers shared,
/// released only when both the decoder's frame and kiosk's are freed), not copied.
@Test func aDeviceFrameInDRMPrimeIsKeptByReference() throws {
    let descriptor = PrimeFrameDescriptor(
        size: PixelSize(width: 1920, height: 1080), objects: [.init(fd: 7, size: 4 << 20, modifier: 0)],
        layers: [.init(format: .r8, planes: [.init(object: 0, offset: 0, pitch: 2048)]),
                 .init(format: .gr88, planes: [.init(object: 0, offset: 2048 * 1088, pitch: 2048)])])
    let decoders = try #require(PrimeFrame.wrapping(descriptor))
    let kept = try PrimeFrame.mapping(decoders.frame).get()
    #expect(kept.descriptor == descriptor)
    #expect(kept.frame != decoders.frame)
    #expect(kept.frame.pointee.data.0 == decoders.frame.pointee.data.0)   // the same descriptor memory
    #expect(av_buffer_get_ref_count(decoders.frame.pointee.buf.0) == 2)
}

/// A frame in memory has no surface to export: the reason, for the one line that says the
/// zero-copy path is not taken (the frames go on copied).
@Test func aFrameInMemoryCannotBeKeptOnADevice() throws {
    try withFrame(AV_PIX_FMT_NV12) { pointer in
        #expect(av_frame_get_buffer(pointer, 0) >= 0)
        switch PrimeFrame.mapping(pointer) {
        case .success: Issue.record("a frame in memory was mapped as DRM PRIME")
        case .failure(let why): #expect(why.description.hasPrefix("nv12 to DRM PRIME: "))
        }
    }
}

/// A frame tagged DRM PRIME that carries no descriptor is refused by name, not read.
@Test func aDRMPrimeFrameWithoutItsDescriptorIsRefused() throws {
    try withFrame(AV_PIX_FMT_DRM_PRIME) { pointer in
        pointer.pointee.buf.0 = av_buffer_allocz(64)   // a buffer, but data[0] names no descriptor
        switch PrimeFrame.mapping(pointer) {
        case .success: Issue.record("a frame without a descriptor was taken")
        case .failure(let why): #expect(why.description == "a DRM PRIME frame without its descriptor")
        }
    }
}

/// A 64x64 frame of `format`, no buffer yet, freed after `body`.
private func withFrame(_ format: AVPixelFormat, _ body: (UnsafeMutablePointer<AVFrame>) throws -> Void) throws {
    var frame = av_frame_alloc()
    defer { av_frame_free(&frame) }
    let pointer = try #require(frame)
    pointer.pointee.format = format.rawValue
    pointer.pointee.width = 64
    pointer.pointee.height = 64
    try body(pointer)
}
