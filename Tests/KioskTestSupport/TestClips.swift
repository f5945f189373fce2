import Foundation

/// Media made with ffmpeg at test time (nothing binary in the repository): lavfi sources give
/// exact tones, so what comes out can be checked against what went in.
public enum TestClips {
    /// A fresh directory per test process.
    public static let directory: String = {
        let path = NSTemporaryDirectory() + "kiosk-tests-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        // Clips and recordings are a few MB per run: gone when the test process ends.
        atexit { try? FileManager.default.removeItem(atPath: TestClips.directory) }
        return path
    }()

    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: Set<String> = []

    /// `name` in the test directory, made once per process by running ffmpeg with `arguments`
    /// (the output path is appended).
    public static func make(_ name: String, _ arguments: [String]) throws -> String {
        let path = directory + "/" + name
        lock.lock()
        defer { lock.unlock() }
        if made.contains(name) { return path }
        try run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-nostdin"] + arguments + [path])
        made.insert(name)
        return path
    }

    /// A tone: `expression` per channel for aevalsrc (e.g. "0.5*sin(2*PI*440*t)|0"),
    /// `layout` such as "stereo" or "5.1", encoded with `codec` into `name`.
    public static func tone(_ name: String, expression: String, layout: String = "stereo", sampleRate: Int = 48_000,
                            seconds: Double = 1, codec: String = "pcm_s16le") throws -> String {
        try make(name, ["-f", "lavfi", "-i", "aevalsrc=\(expression):s=\(sampleRate):c=\(layout):d=\(seconds)",
                        "-c:a", codec])
    }

    /// A unique path in the test directory (for recordings).
    public static func scratchPath(_ stem: String, extension suffix: String = "raw") -> String {
        directory + "/\(stem)-\(UUID().uuidString.prefix(8)).\(suffix)"
    }

    public struct CommandFailure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw CommandFailure(description: "cannot run \(executable): \(error)")
        }
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CommandFailure(description: "\(executable) \(arguments.joined(separator: " ")) failed: \(String(decoding: message, as: UTF8.self))")
        }
    }
}
