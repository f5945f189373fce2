/// A picture in another device's memory (a hardware decoder's), as FFmpeg's
/// `AVDRMFrameDescriptor` describes it: dma-buf objects, and layers whose planes sit at offsets
/// in them. The zero-copy path imports the objects into the display's card (`drmPrimeFDToHandle`)
/// and registers one framebuffer over them (`drmModeAddFB2WithModifiers`); this file is the
/// pure half: checking a descriptor and turning it into that framebuffer's arguments.
public struct PrimeFrameDescriptor: Sendable, Hashable {
    public struct Object: Sendable, Hashable {
        /// The dma-buf's descriptor (owned by whoever made the frame; kiosk never closes it).
        public var fd: Int32
        /// Its size in bytes; 0 when the exporter did not say.
        public var size: Int
        /// DRM format modifier (tiling); `FormatModifier.invalid` when the exporter did not say.
        public var modifier: UInt64
        public init(fd: Int32, size: Int, modifier: UInt64) { self.fd = fd; self.size = size; self.modifier = modifier }
    }

    public struct Plane: Sendable, Hashable {
        /// Index into `objects`.
        public var object: Int
        public var offset: Int
        public var pitch: Int
        public init(object: Int, offset: Int, pitch: Int) { self.object = object; self.offset = offset; self.pitch = pitch }
    }

    public struct Layer: Sendable, Hashable {
        public var format: FourCC
        public var planes: [Plane]
        public init(format: FourCC, planes: [Plane]) { self.format = format; self.planes = planes }
    }

    public var size: PixelSize
    public var objects: [Object]
    public var layers: [Layer]

    public init(size: PixelSize, objects: [Object], layers: [Layer]) {
        self.size = size; self.objects = objects; self.layers = layers
    }
}

extension FourCC {
    public static let p010: FourCC = "P010"
    /// 10-bit 4:2:0, three 10-bit values in each 32-bit word: a Raspberry Pi's HEVC Main 10
    /// frames, in Broadcom's SAND128 layout (`FormatModifier.broadcomSAND`).
    public static let p030: FourCC = "P030"
    /// Single-component layers: VA-API exports NV12 as R8 + GR88 (or RG88), P010 as R16 + GR32/RG32.
    public static let r8: FourCC = "R8  "
    public static let rg88: FourCC = "RG88"
    public static let gr88: FourCC = "GR88"
    public static let r16: FourCC = "R16 "
    public static let rg1616: FourCC = "RG32"
    public static let gr1616: FourCC = "GR32"
}

/// The arguments of one `drmModeAddFB2WithModifiers` call: a format and up to four planes.
public struct PrimeFramebufferPlan: Sendable, Hashable {
    public struct Plane: Sendable, Hashable {
        public var object: Int
        public var offset: UInt32
        public var pitch: UInt32
        public var modifier: UInt64
    }

    public var format: FourCC
    public var size: PixelSize
    public var planes: [Plane]
    /// Any object says its modifier: the call passes DRM_MODE_FB_MODIFIERS.
    public var usesModifiers: Bool { planes.contains { $0.modifier != FormatModifier.invalid } }
}

public enum PrimeFrameError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case tooManyPlanes(Int)
    case unknownLayerCombination([FourCC])
    case badObjectIndex(plane: Int, object: Int, objects: Int)
    case outOfBounds(plane: Int, needs: Int, objectSize: Int)
    case pitchTooSmall(plane: Int, pitch: Int, needs: Int)
    case badSize(PixelSize)
    /// Some objects say a modifier and others do not: one framebuffer cannot take both.
    case mixedModifiers

    public var description: String {
        switch self {
        case .empty: "the frame has no objects or no layers"
        case .tooManyPlanes(let count): "the frame has \(count) planes (a framebuffer takes at most 4)"
        case .unknownLayerCombination(let formats):
            "layers \(formats.map(\.description).joined(separator: " + ")) make no format kiosk knows"
        case .badObjectIndex(let plane, let object, let objects): "plane \(plane) names object \(object) of \(objects)"
        case .outOfBounds(let plane, let needs, let size): "plane \(plane) needs \(needs) bytes of an object of \(size)"
        case .pitchTooSmall(let plane, let pitch, let needs): "plane \(plane)'s pitch \(pitch) is under its row of \(needs) bytes"
        case .badSize(let size): "the frame's size \(size) is not a picture's"
        case .mixedModifiers: "some of its objects say a format modifier and others do not"
        }
    }
}

extension PrimeFrameDescriptor {
    /// Separate single-component layers that together make one YUV format (mpv and Kodi join
    /// them the same way), in layer order.
    static let joinedLayers: [([FourCC], FourCC)] = [
        ([.r8, .gr88], .nv12), ([.r8, .rg88], .nv12),
        ([.r16, .gr1616], .p010), ([.r16, .rg1616], .p010),
        ([.r8, .r8, .r8], .yuv420),
    ]

    /// The framebuffer over this frame's planes, or why there cannot be one. Plane rows are
    /// checked against their object where the layout is linear and the format known; a tiled
    /// object's layout is its driver's business.
    public func framebufferPlan() throws(PrimeFrameError) -> PrimeFramebufferPlan {
        guard size.width > 0, size.height > 0, size.width <= DisplaySpec.largestSide, size.height <= DisplaySpec.largestSide else { throw .badSize(size) }
        guard !objects.isEmpty, !layers.isEmpty, layers.allSatisfy({ !$0.planes.isEmpty }) else { throw .empty }
        let planes = layers.flatMap(\.planes)
        guard planes.count <= 4 else { throw .tooManyPlanes(planes.count) }
        let format: FourCC
        if layers.count == 1 {
            format = layers[0].format
        } else {
            let formats = layers.map(\.format)
            guard layers.allSatisfy({ $0.planes.count == 1 }),
                  let joined = Self.joinedLayers.first(where: { $0.0 == formats })?.1 else {
                throw .unknownLayerCombination(formats)
            }
            format = joined
        }
        let rows = PrimeFramebufferPlan.planeGeometry(format: format, size: size)
        var result: [PrimeFramebufferPlan.Plane] = []
        for (index, plane) in planes.enumerated() {
            guard objects.indices.contains(plane.object) else {
                throw .badObjectIndex(plane: index, object: plane.object, objects: objects.count)
            }
            let object = objects[plane.object]
            guard plane.offset >= 0, plane.pitch > 0, plane.offset <= Int(UInt32.max), plane.pitch <= Int(UInt32.max) else {
                throw .outOfBounds(plane: index, needs: plane.offset, objectSize: object.size)
            }
            let linear = object.modifier == FormatModifier.linear || object.modifier == FormatModifier.invalid
            if linear, let geometry = rows, index < geometry.count {
                let (rowBytes, rowCount) = geometry[index]
                guard plane.pitch >= rowBytes else { throw .pitchTooSmall(plane: index, pitch: plane.pitch, needs: rowBytes) }
                let needs = plane.offset + plane.pitch * (rowCount - 1) + rowBytes
                if object.size > 0, needs > object.size { throw .outOfBounds(plane: index, needs: needs, objectSize: object.size) }
            }
            result.append(.init(object: plane.object, offset: UInt32(plane.offset), pitch: UInt32(plane.pitch),
                                modifier: object.modifier))
        }
        let said = result.filter { $0.modifier != FormatModifier.invalid }.count
        guard said == 0 || said == result.count else { throw .mixedModifiers }
        return PrimeFramebufferPlan(format: format, size: size, planes: result)
    }
}

extension PrimeFramebufferPlan {
    /// Bytes per row and rows of each plane of the YUV formats kiosk knows; nil for others.
    public static func planeGeometry(format: FourCC, size: PixelSize) -> [(rowBytes: Int, rows: Int)]? {
        let halfWidth = (size.width + 1) / 2, halfHeight = (size.height + 1) / 2
        switch format {
        case .nv12: return [(size.width, size.height), (halfWidth * 2, halfHeight)]
        case .p010: return [(size.width * 2, size.height), (halfWidth * 4, halfHeight)]
        case .yuv420: return [(size.width, size.height), (halfWidth, halfHeight), (halfWidth, halfHeight)]
        default: return nil
        }
    }
}
