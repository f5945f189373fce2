import Foundation

/// A picture read back with the ffmpeg command (not kiosk's own code) as 8-bit RGB, so tests
/// check kiosk's output with an independent decoder.
public struct RGBImage: Sendable {
    public let width: Int
    public let height: Int
    public let bytes: [UInt8]

    public struct Color: Sendable, Equatable, CustomStringConvertible {
        public let r: Int, g: Int, b: Int
        public init(_ r: Int, _ g: Int, _ b: Int) { self.r = r; self.g = g; self.b = b }
        public static let black = Color(0, 0, 0), red = Color(255, 0, 0), green = Color(0, 255, 0)
        public static let blue = Color(0, 0, 255), yellow = Color(255, 255, 0), magenta = Color(255, 0, 255)
        public static let gray = Color(128, 128, 128)
        public var description: String { "(\(r),\(g),\(b))" }
        /// Each channel within `tolerance`: video compression and scaling blur colors a little.
        public func isNear(_ other: Color, tolerance: Int = 48) -> Bool {
            abs(r - other.r) <= tolerance && abs(g - other.g) <= tolerance && abs(b - other.b) <= tolerance
        }
        public var isBlack: Bool { r < 20 && g < 20 && b < 20 }
    }

    public init(width: Int, height: Int, bytes: [UInt8]) {
        self.width = width; self.height = height; self.bytes = bytes
    }

    /// Decodes any picture ffmpeg can read (PNG here) to RGB.
    public init(reading path: String) throws {
        let probe = try MediaFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                      "stream=width,height", "-of", "csv=p=0", path])
        let numbers = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        guard probe.status == 0, numbers.count == 2 else { throw FixtureError("cannot probe \(path): \(probe.stderr)") }
        let raw = MediaFixtures.directory.appendingPathComponent(UUID().uuidString + ".rgb").path
        let convert = try MediaFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", path, "-f", "rawvideo",
                                                       "-pix_fmt", "rgb24", raw])
        guard convert.status == 0 else { throw FixtureError("cannot read \(path): \(convert.stderr)") }
        defer { try? FileManager.default.removeItem(atPath: raw) }
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        guard data.count == numbers[0] * numbers[1] * 3 else { throw FixtureError("\(path): unexpected size") }
        self.init(width: numbers[0], height: numbers[1], bytes: [UInt8](data))
    }

    public func pixel(_ x: Int, _ y: Int) -> Color {
        let i = (y * width + x) * 3
        return Color(Int(bytes[i]), Int(bytes[i + 1]), Int(bytes[i + 2]))
    }

    /// Rows from the top (or bottom) that are black all along column `x`: a bar's height.
    public func blackRows(atColumn x: Int, fromBottom: Bool = false) -> Int {
        var count = 0
        for i in 0..<height {
            let y = fromBottom ? height - 1 - i : i
            if !pixel(x, y).isBlack { break }
            count += 1
        }
        return count
    }

    /// Columns from the left (or right) that are black all along row `y`.
    public func blackColumns(atRow y: Int, fromRight: Bool = false) -> Int {
        var count = 0
        for i in 0..<width {
            let x = fromRight ? width - 1 - i : i
            if !pixel(x, y).isBlack { break }
            count += 1
        }
        return count
    }

    /// Mean absolute difference per channel against another picture of the same size (0-255).
    public func meanDifference(to other: RGBImage) -> Double {
        precondition(width == other.width && height == other.height)
        var total = 0
        for i in 0..<bytes.count { total += abs(Int(bytes[i]) - Int(other.bytes[i])) }
        return Double(total) / Double(bytes.count)
    }
}
