import Foundation
import KioskTestSupport

/// The built `kiosk` executable beside the test bundle (swift test builds it first because this
/// target depends on it), or $KIOSK_BINARY.
enum Kiosk {
    static let path: String = {
        if let explicit = ProcessInfo.processInfo.environment["KIOSK_BINARY"] { return explicit }
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [bundle, bundle.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("kiosk").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return bundle.appendingPathComponent("kiosk").path
    }()

    static func run(_ arguments: String...) throws -> MediaFixtures.Output {
        try MediaFixtures.run(path, arguments)
    }

    static func run(_ arguments: [String]) throws -> MediaFixtures.Output {
        try MediaFixtures.run(path, arguments)
    }

    /// A snapshot as RGB pixels; fails the caller with kiosk's stderr when kiosk fails.
    static func snapshot(_ media: String, size: String, gravity: String, extra: [String] = []) throws -> RGBImage {
        let output = MediaFixtures.directory.appendingPathComponent(UUID().uuidString + ".png").path
        let result = try run(["snapshot", media, "--size", size, "--gravity", gravity, "-o", output] + extra)
        guard result.status == 0 else { throw FixtureError("kiosk snapshot failed (\(result.status)): \(result.stderr)") }
        return try RGBImage(reading: output)
    }

    /// ffmpeg's own rendition of `media` through `filter`, the reference kiosk is compared with.
    static func reference(_ media: String, filter: String, at seconds: Double = 0) throws -> RGBImage {
        let output = MediaFixtures.directory.appendingPathComponent(UUID().uuidString + ".png").path
        let result = try MediaFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-ss", String(seconds), "-i", media,
                                                      "-vf", filter, "-frames:v", "1", output])
        guard result.status == 0 else { throw FixtureError("ffmpeg reference failed: \(result.stderr)") }
        return try RGBImage(reading: output)
    }
}
