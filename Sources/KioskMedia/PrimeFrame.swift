import CFFmpeg
import KioskCore
import Synchronization

/// What an engine's display asks of its decoders' device frames, one per engine (several
/// screens, several engines: each its own), shared between its presenter (which sets it) and
/// its items' decode threads (which read it).
public final class PrimeHandOn: Sendable {
    /// Whether a display that imports DRM PRIME frames is up and has not turned zero copy off:
    /// a decoder keeps its device's frames as DRM PRIME only then (each costs an export of the
    /// surface and holds it longer), so a display without the path, or one that refused it,
    /// does not pay for frames nobody scans out. Set by the display's zero-copy path.
    public let wanted: Atomic<Bool>
    /// Whether a frame handed on as DRM PRIME is copied down as well. The zero-copy path turns
    /// it off while it shows such frames and nothing else reads their pixels (no OSD, no
    /// transition coming): the decoder then leaves them on the device (`DecodedFrame(onDevice:)`),
    /// which is the CPU zero copy saves; a frame whose pixels are read after all is copied then.
    public let copyDown = Atomic<Bool>(true)
    /// Frames left on their device whose copy, when their pixels were read, failed (shown
    /// black); the zero-copy path says so.
    public let failedCopies = Atomic<Int>(0)

    public init(wanted: Bool = false) { self.wanted = Atomic(wanted) }
}

/// A frame in another device's memory as FFmpeg hands it over (`AV_PIX_FMT_DRM_PRIME`: `data[0]`
/// points to an `AVDRMFrameDescriptor`, `buf[0]` keeps the device's buffers alive), and its
/// description in KioskCore's terms, which the display imports without a copy. The AVFrame is
/// held as long as this object lives: the decoder reuses its buffer only after it is freed.
public final class PrimeFrame: @unchecked Sendable {
    // Owned by one thread at a time, handed over like DecodedFrame.
    let frame: UnsafeMutablePointer<AVFrame>
    public let descriptor: PrimeFrameDescriptor

    /// Takes `frame` when it is a DRM PRIME frame with a descriptor; nil (frame untouched) else.
    init?(taking frame: UnsafeMutablePointer<AVFrame>) {
        guard frame.pointee.format == AV_PIX_FMT_DRM_PRIME.rawValue, let data = frame.pointee.data.0 else { return nil }
        let size = PixelSize(width: Int(frame.pointee.width), height: Int(frame.pointee.height))
        let pointer = UnsafeRawPointer(data).assumingMemoryBound(to: AVDRMFrameDescriptor.self)
        self.descriptor = Self.describe(pointer.pointee, size: size)
        self.frame = frame
    }

    /// `frame`, a device's, as DRM PRIME holding its surface: a DRM PRIME frame (the `drm`
    /// device) referenced again; another device's (VA-API) mapped with `av_hwframe_map`, which
    /// exports its surface as dma-buf objects, one layer per plane. The caller keeps `frame`.
    static func mapping(_ frame: UnsafeMutablePointer<AVFrame>) -> Result<PrimeFrame, HardwareDecodeFailure> {
        if frame.pointee.format == AV_PIX_FMT_DRM_PRIME.rawValue {
            guard let copy = av_frame_clone(frame) else { return .failure("out of memory") }
            if let prime = PrimeFrame(taking: copy) { return .success(prime) }
            var pointer: UnsafeMutablePointer<AVFrame>? = copy
            av_frame_free(&pointer)
            return .failure("a DRM PRIME frame without its descriptor")
        }
        guard let mapped = av_frame_alloc() as UnsafeMutablePointer<AVFrame>? else { return .failure("out of memory") }
        mapped.pointee.format = AV_PIX_FMT_DRM_PRIME.rawValue
        let result = av_hwframe_map(mapped, frame, Int32(AV_HWFRAME_MAP_READ))
        if result >= 0, let prime = PrimeFrame(taking: mapped) { return .success(prime) }
        var pointer: UnsafeMutablePointer<AVFrame>? = mapped
        av_frame_free(&pointer)
        let format = av_get_pix_fmt_name(AVPixelFormat(frame.pointee.format)).map { String(cString: $0) } ?? "?"
        return .failure(result < 0 ? "\(format) to DRM PRIME: \(ffmpegErrorText(result))" : "\(format) mapped without a descriptor")
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&pointer)
    }

    /// A DRM PRIME AVFrame made of `descriptor`, laid out as a hardware decoder returns one
    /// (`kiosk probe --prime-import` sends frames of its own buffers through the path the
    /// decoder's take); nil when out of memory or when the descriptor has more than FFmpeg's
    /// four objects, layers or planes per layer.
    public static func wrapping(_ descriptor: PrimeFrameDescriptor) -> PrimeFrame? {
        let limit = Int(AV_DRM_MAX_PLANES)
        guard descriptor.objects.count <= limit, descriptor.layers.count <= limit,
              descriptor.layers.allSatisfy({ $0.planes.count <= limit }) else { return nil }
        guard let memory = av_mallocz(MemoryLayout<AVDRMFrameDescriptor>.size) else { return nil }
        let drm = memory.bindMemory(to: AVDRMFrameDescriptor.self, capacity: 1)
        drm.pointee.nb_objects = Int32(descriptor.objects.count)
        withUnsafeMutableBytes(of: &drm.pointee.objects) { raw in
            let objects = raw.bindMemory(to: AVDRMObjectDescriptor.self)
            for (index, object) in descriptor.objects.enumerated() {
                objects[index] = AVDRMObjectDescriptor(fd: object.fd, size: object.size, format_modifier: object.modifier)
            }
        }
        drm.pointee.nb_layers = Int32(descriptor.layers.count)
        withUnsafeMutableBytes(of: &drm.pointee.layers) { raw in
            let layers = raw.bindMemory(to: AVDRMLayerDescriptor.self)
            for (index, layer) in descriptor.layers.enumerated() {
                layers[index].format = layer.format.rawValue
                layers[index].nb_planes = Int32(layer.planes.count)
                withUnsafeMutableBytes(of: &layers[index].planes) { planeRaw in
                    let planes = planeRaw.bindMemory(to: AVDRMPlaneDescriptor.self)
                    for (p, plane) in layer.planes.enumerated() {
                        planes[p] = AVDRMPlaneDescriptor(object_index: Int32(plane.object), offset: plane.offset, pitch: plane.pitch)
                    }
                }
            }
        }
        guard var frame = av_frame_alloc() as UnsafeMutablePointer<AVFrame>? else { av_free(memory); return nil }
        guard let buffer = av_buffer_create(memory.assumingMemoryBound(to: UInt8.self), MemoryLayout<AVDRMFrameDescriptor>.size,
                                            av_buffer_default_free, nil, 0) else {
            av_free(memory)
            var pointer: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&pointer)
            return nil
        }
        frame.pointee.format = AV_PIX_FMT_DRM_PRIME.rawValue
        frame.pointee.width = Int32(descriptor.size.width)
        frame.pointee.height = Int32(descriptor.size.height)
        frame.pointee.buf.0 = buffer
        frame.pointee.data.0 = memory.assumingMemoryBound(to: UInt8.self)
        guard let prime = PrimeFrame(taking: frame) else {
            var pointer: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&pointer)
            return nil
        }
        frame = prime.frame
        return prime
    }

    /// FFmpeg's descriptor in KioskCore's terms; counts beyond FFmpeg's arrays are clamped.
    static func describe(_ drm: AVDRMFrameDescriptor, size: PixelSize) -> PrimeFrameDescriptor {
        let limit = Int(AV_DRM_MAX_PLANES)
        var drm = drm
        let objects = withUnsafeBytes(of: &drm.objects) { raw in
            raw.bindMemory(to: AVDRMObjectDescriptor.self).prefix(max(0, min(limit, Int(drm.nb_objects)))).map {
                PrimeFrameDescriptor.Object(fd: $0.fd, size: $0.size, modifier: $0.format_modifier)
            }
        }
        let layerCount = max(0, min(limit, Int(drm.nb_layers)))
        let layers = withUnsafeBytes(of: &drm.layers) { raw in
            raw.bindMemory(to: AVDRMLayerDescriptor.self).prefix(layerCount).map { layer in
                var layer = layer
                let planes = withUnsafeBytes(of: &layer.planes) { planeRaw in
                    planeRaw.bindMemory(to: AVDRMPlaneDescriptor.self).prefix(max(0, min(limit, Int(layer.nb_planes)))).map {
                        PrimeFrameDescriptor.Plane(object: Int($0.object_index), offset: $0.offset, pitch: $0.pitch)
                    }
                }
                return PrimeFrameDescriptor.Layer(format: FourCC(rawValue: layer.format), planes: planes)
            }
        }
        return PrimeFrameDescriptor(size: size, objects: objects, layers: layers)
    }
}
