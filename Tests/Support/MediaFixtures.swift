import Foundation

/// Clips the tests make with the ffmpeg command at test time (no binaries in the repository),
/// once per test process, in a temporary folder.
public enum MediaFixtures {
    /// A pattern whose pixels say where they came from: gray field, 8 px magenta border and
    /// 48 px corner squares, red top-left, green top-right, blue bottom-left, yellow bottom-right.
    public static func patternFilter(width: Int, height: Int, rate: Int = 25, seconds: Double = 2) -> String {
        "color=c=0x808080:s=\(width)x\(height):r=\(rate):d=\(seconds)," +
            "drawbox=x=0:y=0:w=iw:h=ih:color=0xFF00FF:t=8," +
            "drawbox=x=8:y=8:w=48:h=48:color=0xFF0000:t=fill," +
            "drawbox=x=iw-56:y=8:w=48:h=48:color=0x00FF00:t=fill," +
            "drawbox=x=8:y=ih-56:w=48:h=48:color=0x0000FF:t=fill," +
            "drawbox=x=iw-56:y=ih-56:w=48:h=48:color=0xFFFF00:t=fill"
    }

    /// kiosk-test-media-PID, removed as the test process exits (unless KIOSK_KEEP_TEST_MEDIA=1);
    /// those of test processes that are gone (killed, crashed) are removed first.
    public static let directory: URL = {
        let temporary = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix("kiosk-test-media-") {
            guard let pid = Int32(name.dropFirst("kiosk-test-media-".count)), pid != getpid(),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
        let url = temporary.appendingPathComponent("kiosk-test-media-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        // KIOSK_KEEP_TEST_MEDIA=1 keeps it, to look at what a test wrote (stats files, shots).
        if ProcessInfo.processInfo.environment["KIOSK_KEEP_TEST_MEDIA"] != "1" {
            atexit { try? FileManager.default.removeItem(at: MediaFixtures.directory) }
        }
        return url
    }()

    private static let lock = NSLock()

    /// The path of clip `name`, made by running ffmpeg with `arguments` (output path appended)
    /// the first time it is asked for.
    public static func clip(_ name: String, _ arguments: [String]) throws -> String {
        lock.lock(); defer { lock.unlock() }
        let path = directory.appendingPathComponent(name).path
        if FileManager.default.fileExists(atPath: path) { return path }
        let partial = directory.appendingPathComponent("partial-" + name).path
        let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments + [partial])
        guard result.status == 0 else { throw FixtureError("ffmpeg failed making \(name): \(result.stderr)") }
        try FileManager.default.moveItem(atPath: partial, toPath: path)
        return path
    }

    /// An H.264 clip of the pattern at `width`x`height`, with extra video filters (e.g. setsar).
    public static func pattern(_ name: String, width: Int, height: Int, rate: Int = 25, seconds: Double = 2,
                               extraFilters: String = "") throws -> String {
        let filter = patternFilter(width: width, height: height, rate: rate, seconds: seconds) + extraFilters
        return try clip(name, ["-f", "lavfi", "-i", filter, "-pix_fmt", "yuv420p", "-c:v", "libx264",
                               "-preset", "ultrafast", "-qp", "10", "-g", "\(rate)"])
    }

    /// ffmpeg arguments that copy `input` with a display matrix of `degrees` (the rotation a
    /// phone writes). ffmpeg 5.1 (Debian 12) makes one from the stream's `rotate` metadata; 6.0
    /// dropped that and has the input option -display_rotation instead (same angle convention).
    public static func rotationTagArguments(input: String, degrees: Int) -> [String] {
        ffmpegHasDisplayRotation
            ? ["-display_rotation:v:0", "\(degrees)", "-i", input, "-c", "copy"]
            : ["-i", input, "-c", "copy", "-metadata:s:v:0", "rotate=\(degrees)"]
    }

    static let ffmpegHasDisplayRotation: Bool =
        (try? run("ffmpeg", ["-hide_banner", "-h", "long"]))?.stdout.contains("-display_rotation") ?? false

    /// A file with the given bytes (empty files, garbage, text).
    public static func file(_ name: String, bytes: [UInt8]) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    public struct Output: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    /// Runs a program found on PATH (or at an absolute path) and collects its output.
    public static func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program.hasPrefix("/") ? program : "/usr/bin/env")
        process.arguments = program.hasPrefix("/") ? arguments : [program] + arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes before waiting, so a chatty child cannot block on a full pipe.
        let errData = ReadBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { errData.data = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData.data, as: UTF8.self))
    }
}

private final class ReadBox: @unchecked Sendable { var data = Data() }

public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
