import Foundation
import Testing
import KioskTestSupport

/// Bad input: one line on stderr naming the file and the reason, the documented exit code,
/// never a crash (a signal) or a hang.
@Suite struct BadInputTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let make: @Sendable () throws -> String
        let reason: String
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "missing file", make: { MediaFixtures.directory.appendingPathComponent("nowhere.mp4").path }, reason: "no such file"),
        Case(name: "zero bytes", make: { try MediaFixtures.file("empty.mp4", bytes: []) }, reason: "empty file"),
        Case(name: "random bytes named .mp4", make: {
            var generator = SystemRandomNumberGenerator()
            return try MediaFixtures.file("random.mp4", bytes: (0..<65536).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }, reason: "not a media file"),
        // FFmpeg takes these lines for lyrics (lrc), a format with no video or audio, as it
        // sometimes takes random bytes: to the user it is no media file either.
        Case(name: "lyrics named .mp4", make: { try MediaFixtures.file("lyrics.mp4", bytes: Array("[00:01.00]hello\n[00:02.00]world\n".utf8)) },
             reason: "not a media file"),
        Case(name: "text file", make: { try MediaFixtures.file("notes.txt", bytes: Array("shopping list\nmilk\n".utf8)) },
             reason: "not a media file"),
        Case(name: "a directory", make: { MediaFixtures.directory.path }, reason: "is a directory"),
        Case(name: "audio only", make: {
            try MediaFixtures.clip("tone.m4a", ["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac"])
        }, reason: "no video stream"),
        Case(name: "unsupported codec", make: {
            // A Matroska codec ID no decoder knows: FFmpeg reads the file but cannot decode it.
            let good = try MediaFixtures.clip("h264-for-unknown.mkv", ["-f", "lavfi", "-i", "testsrc2=size=64x64:duration=0.2",
                                                                        "-c:v", "libx264", "-preset", "ultrafast"])
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: good)))
            let id = Array("V_MPEG4/ISO/AVC".utf8), unknown = Array("V_KIOSK/UNKNOWN".utf8)
            guard let at = (0...(bytes.count - id.count)).first(where: { Array(bytes[$0..<$0 + id.count]) == id }) else {
                throw FixtureError("no codec ID in \(good)")
            }
            bytes.replaceSubrange(at..<at + id.count, with: unknown)
            return try MediaFixtures.file("unknown-codec.mkv", bytes: bytes)
        }, reason: "unsupported codec"),
        Case(name: "huge dimensions", make: {
            try MediaFixtures.clip("huge.nut", ["-f", "lavfi", "-i", "color=s=9000x16:duration=0.04",
                                                "-c:v", "rawvideo", "-pix_fmt", "gray"])
        }, reason: "9000x16"),
    ]

    @Test(arguments: cases)
    func snapshotRejectsBadInput(_ c: Case) throws {
        let media = try c.make()
        let result = try Kiosk.run("snapshot", media, "--size", "320x240", "-o",
                                   MediaFixtures.directory.appendingPathComponent("never.png").path)
        #expect(result.status == 1, "\(c.name): exit \(result.status), stderr: \(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(c.name): expected one line, got: \(result.stderr)")
        #expect(result.stderr.contains(media), "\(c.name): the message must name the file: \(result.stderr)")
        #expect(result.stderr.contains(c.reason), "\(c.name): \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: MediaFixtures.directory.appendingPathComponent("never.png").path))
    }

    @Test(arguments: ["probe", "bench"])
    func otherCommandsRejectBadInputToo(command: String) throws {
        let empty = try MediaFixtures.file("empty-\(command).mkv", bytes: [])
        let result = try Kiosk.run(command, empty)
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("empty file"))
    }

    /// `kiosk play` without --loop: when nothing can play it ends with exit 1 and the reason,
    /// instead of retrying forever; with a good item beside the bad one it plays it and exits 0.
    @Test func playWithoutLoopEndsWhenNothingCanPlay() throws {
        let garbage = try MediaFixtures.file("garbage-play.mp4", bytes: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37) })
        let alone = try Kiosk.run("play", garbage, "--display", "headless:160x120", "--audio", "none", "--no-input")
        #expect(alone.status == 1, "exit \(alone.status), stderr: \(alone.stderr)")
        #expect(alone.stderr.contains(garbage) && alone.stderr.contains("not a media file"), "\(alone.stderr)")
        #expect(alone.stderr.contains("nothing could be played"), "\(alone.stderr)")

        let good = try MediaFixtures.clip("good-beside-garbage.mp4", ["-f", "lavfi", "-i", "testsrc2=size=64x64:rate=25:duration=0.2",
                                                                       "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
        let mixed = try Kiosk.run("play", garbage, good, "--display", "headless:160x120", "--audio", "none", "--no-input")
        #expect(mixed.status == 0, "exit \(mixed.status), stderr: \(mixed.stderr)")
    }

    @Test(arguments: [
        ["snapshot", "x.mp4", "--size", "12", "-o", "x.png"],
        ["snapshot", "x.mp4", "--size", "640x480", "--gravity", "zoom", "-o", "x.png"],
        ["snapshot", "x.mp4", "--size", "640x480", "--rotation", "45", "-o", "x.png"],
        ["snapshot", "x.mp4", "--size", "640x480"],
        ["bench", "x.mp4", "--frames", "0"],
        ["frobnicate"],
    ])
    func usageErrorsExitTwo(arguments: [String]) throws {
        let result = try Kiosk.run(arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(!result.stderr.isEmpty)
    }

    @Test func snapshotPastTheEndSaysSo() throws {
        let clip = try MediaFixtures.pattern("short.mp4", width: 160, height: 120, seconds: 1)
        let result = try Kiosk.run("snapshot", clip, "--size", "160x120", "--at", "5", "-o", "late.png")
        #expect(result.status == 1)
        #expect(result.stderr.contains("past the end"))
    }
}
