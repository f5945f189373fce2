/// A DRM pixel format code: four ASCII characters packed little-endian ("XR24" is XRGB8888).
public struct FourCC: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    public var rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// From its four characters; anything but four ASCII characters gives the code 0.
    public init(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 4, bytes.allSatisfy({ $0 < 128 }) else { self.rawValue = 0; return }
        self.rawValue = bytes.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    public init(stringLiteral value: String) { self.init(value) }

    public static let xrgb8888: FourCC = "XR24"
    public static let argb8888: FourCC = "AR24"
    public static let nv12: FourCC = "NV12"
    public static let yuv420: FourCC = "YU12"

    /// DRM_FORMAT_BIG_ENDIAN: bit 31 marks a big-endian variant of the format.
    static let bigEndianFlag: UInt32 = 1 << 31

    /// "XR24"; big-endian variants get a "(BE)" suffix, unprintable codes their hex value.
    public var description: String {
        let code = rawValue & ~Self.bigEndianFlag
        let bytes = (0..<4).map { UInt8((code >> (8 * $0)) & 0xff) }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) else { return "0x" + String(rawValue, radix: 16) }
        let text = String(decoding: bytes, as: UTF8.self)
        return rawValue & Self.bigEndianFlag != 0 ? text + "(BE)" : text
    }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Encoded as its four characters: what `kiosk probe --json` shows.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A FourCC keys a JSON object by its four characters (a plane's IN_FORMATS in `kiosk probe --json`:
/// {"NV12": [0]}), not an array of alternating keys and values.
extension FourCC: CodingKeyRepresentable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public var codingKey: any CodingKey { Key(stringValue: description) }

    /// Only a key that names a code as `description` writes it ("NV12", "R8  "), not "(BE)" or hex.
    public init?<T: CodingKey>(codingKey: T) {
        self.init(codingKey.stringValue)
        guard rawValue != 0, description == codingKey.stringValue else { return nil }
    }
}

/// The values a plane's "rotation" property accepts (a DRM bitmask property).
///
/// DRM counts rotation counter-clockwise (uapi drm_mode.h: "rotated <degrees> degrees in counter
/// clockwise direction"); kiosk's `Rotation` is clockwise. A picture turned 90° clockwise is
/// therefore DRM_MODE_ROTATE_270.
public struct PlaneRotationSupport: Sendable, Hashable, Codable {
    /// DRM_MODE_ROTATE_0/90/180/270 and DRM_MODE_REFLECT_X/Y bits.
    public var mask: UInt64

    public static let rotate0: UInt64 = 1 << 0
    public static let rotate90CCW: UInt64 = 1 << 1
    public static let rotate180: UInt64 = 1 << 2
    public static let rotate270CCW: UInt64 = 1 << 3
    public static let reflectX: UInt64 = 1 << 4
    public static let reflectY: UInt64 = 1 << 5

    public init(mask: UInt64) { self.mask = mask }

    /// From the property's enum entries as the kernel lists them: names such as "rotate-90"
    /// with the bit number as value. Only the supported values are listed; unknown names
    /// (future flags) are kept by their bit so nothing is silently lost.
    public init(entries: [(name: String, value: UInt64)]) {
        let known: [String: UInt64] = ["rotate-0": Self.rotate0, "rotate-90": Self.rotate90CCW,
                                       "rotate-180": Self.rotate180, "rotate-270": Self.rotate270CCW,
                                       "reflect-x": Self.reflectX, "reflect-y": Self.reflectY]
        var mask: UInt64 = 0
        for entry in entries {
            if let bit = known[entry.name] { mask |= bit } else if entry.value < 64 { mask |= 1 << entry.value }
        }
        self.mask = mask
    }

    /// The property value that turns a plane's picture `rotation` clockwise.
    public static func drmValue(for rotation: Rotation) -> UInt64 {
        switch rotation {
        case .none: return rotate0
        case .clockwise90: return rotate270CCW
        case .clockwise180: return rotate180
        case .clockwise270: return rotate90CCW
        }
    }

    public func supports(_ rotation: Rotation) -> Bool { mask & Self.drmValue(for: rotation) != 0 }

    /// The clockwise rotations the plane can do, in order.
    public var rotations: [Rotation] { Rotation.allCases.filter(supports) }
    public var canReflectX: Bool { mask & Self.reflectX != 0 }
    public var canReflectY: Bool { mask & Self.reflectY != 0 }
}
