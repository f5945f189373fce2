/// Eight vertical 75% colour bars (white, yellow, cyan, green, magenta, red, blue, black) as
/// limited-range BT.709 YUV, in NV12, P010 or YU12 rows: the picture `kiosk probe
/// --prime-import` writes into another device's buffers, so that what the display read back
/// can be checked bar by bar without decoding anything. `shift` turns the bars left by that
/// many places, so consecutive frames differ and the last one shown is known.
public struct ColorBarPattern: Sendable, Hashable {
    public static let colors: [(red: UInt8, green: UInt8, blue: UInt8)] = [
        (191, 191, 191), (191, 191, 0), (0, 191, 191), (0, 191, 0),
        (191, 0, 191), (191, 0, 0), (0, 0, 191), (0, 0, 0),
    ]

    public var width: Int
    public var shift: Int

    public init(width: Int, shift: Int = 0) {
        self.width = width
        self.shift = shift
    }

    /// The colour index shown at column `x`: bars of `width / 8` pixels rounded down to even
    /// (chroma pairs never straddle two bars), the last bar taking the rest.
    public func colorIndex(atColumn x: Int) -> Int {
        let barWidth = Swift.max(2, width / 8 & ~1)
        return (Swift.min(7, x / barWidth) + shift) % 8
    }

    /// Limited-range BT.709 code values of colour `index` at `bits` (8 or 10).
    public static func yuv(_ index: Int, bits: Int = 8) -> (y: Int, u: Int, v: Int) {
        let color = colors[index]
        let r = Double(color.red) / 255, g = Double(color.green) / 255, b = Double(color.blue) / 255
        let luma = 0.2126 * r + 0.7152 * g + 0.0722 * b
        let cb = (b - luma) / 1.8556, cr = (r - luma) / 1.5748
        let scale = Double(1 << (bits - 8))
        return (Int(((16 + 219 * luma) * scale).rounded()), Int(((128 + 224 * cb) * scale).rounded()),
                Int(((128 + 224 * cr) * scale).rounded()))
    }

    /// One row of picture plane `plane` of `format` (every row of a plane is the same); nil for a
    /// format or plane it cannot make. Rows are exactly as wide as the plane's bytes per row.
    public func row(format: FourCC, plane: Int) -> [UInt8]? {
        let halfWidth = (width + 1) / 2
        switch (format, plane) {
        case (.nv12, 0), (.yuv420, 0):
            return (0..<width).map { UInt8(Self.yuv(colorIndex(atColumn: $0)).y) }
        case (.nv12, 1):
            return (0..<halfWidth).flatMap { pair -> [UInt8] in
                let code = Self.yuv(colorIndex(atColumn: pair * 2))
                return [UInt8(code.u), UInt8(code.v)]
            }
        case (.yuv420, 1), (.yuv420, 2):
            return (0..<halfWidth).map { pair in
                let code = Self.yuv(colorIndex(atColumn: pair * 2))
                return UInt8(plane == 1 ? code.u : code.v)
            }
        case (.p010, 0):
            return (0..<width).flatMap { Self.p010Bytes(Self.yuv(colorIndex(atColumn: $0), bits: 10).y) }
        case (.p010, 1):
            return (0..<halfWidth).flatMap { pair -> [UInt8] in
                let code = Self.yuv(colorIndex(atColumn: pair * 2), bits: 10)
                return Self.p010Bytes(code.u) + Self.p010Bytes(code.v)
            }
        default:
            return nil
        }
    }

    /// A 10-bit value in P010's 16-bit little-endian word: the value in the top 10 bits.
    static func p010Bytes(_ value: Int) -> [UInt8] {
        let word = UInt16(value << 6)
        return [UInt8(word & 0xff), UInt8(word >> 8)]
    }
}
