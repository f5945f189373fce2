import Foundation
import Testing
import KioskTestSupport

/// `kiosk compose` through the binary, on clips made with ffmpeg at test time: three sizes, a
/// rotation tag, 25/30/15 fps, sound and none. Checked with ffprobe/ffmpeg and kiosk snapshot.
@Suite struct ComposeCommandTests {
    /// A: the corner pattern 320x240, 25 fps, 2 s, a 440 Hz tone.
    static func clipA() throws -> String {
        try MediaFixtures.clip("compose-a.mp4", ["-f", "lavfi", "-i", MediaFixtures.patternFilter(width: 320, height: 240, rate: 25, seconds: 2),
                                                 "-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-pix_fmt", "yuv420p",
                                                 "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-t", "2"])
    }

    /// B: SMPTE HD bars 640x360 at 30 fps, 1.5 s, no sound, tagged to turn a quarter (portrait).
    static func clipB() throws -> String {
        let plain = try MediaFixtures.clip("compose-b-plain.mp4", ["-f", "lavfi", "-i", "smptehdbars=size=640x360:rate=30:duration=1.5",
                                                                   "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast"])
        return try MediaFixtures.clip("compose-b.mp4", MediaFixtures.rotationTagArguments(input: plain, degrees: 90))
    }

    /// C: the corner pattern 200x200 at 15 fps, 1 s, an 880 Hz tone.
    static func clipC() throws -> String {
        try MediaFixtures.clip("compose-c.mp4", ["-f", "lavfi", "-i", MediaFixtures.patternFilter(width: 200, height: 200, rate: 15, seconds: 1),
                                                 "-f", "lavfi", "-i", "sine=frequency=880:duration=1", "-pix_fmt", "yuv420p",
                                                 "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-t", "1"])
    }

    static func outputDirectory() throws -> String {
        let path = MediaFixtures.directory.appendingPathComponent("compose-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func probe(_ path: String, _ entries: String, stream: String) throws -> [String] {
        let result = try MediaFixtures.run("ffprobe", ["-v", "error", "-select_streams", stream, "-count_packets",
                                                        "-show_entries", entries, "-of", "csv=p=0", path])
        guard result.status == 0 else { throw FixtureError("ffprobe: \(result.stderr)") }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// The mean level (0...32768) of the sound between two times, decoded to mono.
    static func level(_ path: String, from start: Double, to end: Double) throws -> Double {
        let raw = AudioFixtures.scratchPath("compose-level")
        let result = try MediaFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", path, "-ss", String(start), "-to", String(end),
                                                      "-vn", "-ac", "1", "-ar", "8000", "-f", "s16le", raw])
        guard result.status == 0 else { throw FixtureError("ffmpeg: \(result.stderr)") }
        let samples = try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        guard !samples.isEmpty else { return 0 }
        return samples.reduce(0.0) { $0 + abs(Double($1)) } / Double(samples.count)
    }

    static func composed(_ arguments: [String]) throws -> (path: String, result: MediaFixtures.Output) {
        let output = try outputDirectory() + "/out.mp4"
        let result = try Kiosk.run(["compose"] + arguments + ["-o", output])
        #expect(result.status == 0, "exit \(result.status): \(result.stderr)")
        return (output, result)
    }

    @Test func threeDifferentClipsBecomeOneFileOfTheirLength() throws {
        let (output, result) = try Self.composed([try Self.clipA(), try Self.clipB(), try Self.clipC(), "--size", "320x240"])
        #expect(result.stderr.contains("compose: ") && result.stderr.contains("(100%)"), "\(result.stderr)")
        // Size and rate as asked; 2 s + 1.5 s + 1 s at 25 fps: 50 + 38 (1.5 s rounds up a frame) + 25 frames.
        #expect(try Self.probe(output, "stream=width,height,r_frame_rate,nb_read_packets", stream: "v:0") == ["320,240,25/1,113"])
        let duration = try #require(Double(try Self.probe(output, "stream=duration", stream: "v:0").first ?? ""))
        #expect(abs(duration - 4.5) <= 0.04 * 3, "\(duration)")
        // It decodes without a complaint.
        let decode = try MediaFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
        // Sound throughout: as long as the pictures, every packet right after the one before.
        let audio = try Self.probe(output, "packet=pts_time,duration_time", stream: "a:0").compactMap { line -> (Double, Double)? in
            let parts = line.split(separator: ",").compactMap { Double($0) }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
        for (previous, next) in zip(audio, audio.dropFirst()) { #expect(abs(previous.0 + previous.1 - next.0) < 0.0005) }
        let audioEnd = try #require(audio.last.map { $0.0 + $0.1 })
        #expect(abs(audioEnd - duration) < 0.03, "sound ends at \(audioEnd), pictures at \(duration)")
        // Each clip's own sound where it plays, silence for the clip without.
        #expect(try Self.level(output, from: 0.5, to: 1.5) > 1000)
        #expect(try Self.level(output, from: 2.4, to: 3.3) < 50)
        #expect(try Self.level(output, from: 3.8, to: 4.3) > 1000)
    }

    @Test func eachClipIsLaidOutWithTheGravityRules() throws {
        let (output, _) = try Self.composed([try Self.clipA(), try Self.clipB(), try Self.clipC(), "--size", "320x240"])
        // A fills the frame: its red corner square top-left, no bars.
        let a = try Kiosk.snapshot(output, size: "320x240", gravity: "fit", extra: ["--at", "1.0"])
        #expect(a.pixel(30, 30).isNear(.red), "\(a.pixel(30, 30))")
        #expect(a.blackColumns(atRow: 120) == 0)
        // B turned upright (360x640 shown) and fitted: 135 px wide, bars of 92/93 px.
        let b = try Kiosk.snapshot(output, size: "320x240", gravity: "fit", extra: ["--at", "2.8"])
        #expect(abs(b.blackColumns(atRow: 120) - 92) <= 2, "\(b.blackColumns(atRow: 120))")
        #expect(b.blackRows(atColumn: 160) == 0)
        // C (square) fitted: 240x240 in the middle, bars of 40 px, its markers in place.
        let c = try Kiosk.snapshot(output, size: "320x240", gravity: "fit", extra: ["--at", "4.1"])
        #expect(abs(c.blackColumns(atRow: 120) - 40) <= 1, "\(c.blackColumns(atRow: 120))")
        #expect(abs(c.blackColumns(atRow: 120, fromRight: true) - 40) <= 1)
        #expect(c.pixel(40 + 30, 30).isNear(.red) && c.pixel(280 - 30, 240 - 30).isNear(.yellow))
    }

    @Test func theDefaultSizeIsTheFirstClipsAndFillCrops() throws {
        let (portrait, _) = try Self.composed([try Self.clipB(), try Self.clipA()])
        #expect(try Self.probe(portrait, "stream=width,height,r_frame_rate", stream: "v:0") == ["360,640,30/1"])
        let (filled, _) = try Self.composed([try Self.clipC(), "--size", "320x240", "--gravity", "fill", "--fps", "30"])
        #expect(try Self.probe(filled, "stream=width,height,r_frame_rate,nb_read_packets", stream: "v:0") == ["320,240,30/1,30"])
        let image = try Kiosk.snapshot(filled, size: "320x240", gravity: "fit", extra: ["--at", "0.5"])
        #expect(image.blackColumns(atRow: 120) == 0 && image.blackRows(atColumn: 160) == 0)
        // C has sound: the output keeps it.
        #expect(try Self.probe(filled, "stream=codec_name", stream: "a:0") == ["aac"])
    }

    @Test func aLaidOverTrackCoversTheWholeLooped() throws {
        let music = try AudioFixtures.tone("compose-music.m4a", expression: "0.5*sin(2*PI*330*t)|0.5*sin(2*PI*330*t)", seconds: 1, codec: "aac")
        let (output, _) = try Self.composed([try Self.clipA(), try Self.clipB(), "--audio", music])
        let duration = try #require(Double(try Self.probe(output, "stream=duration", stream: "v:0").first ?? ""))
        let audio = try #require(Double(try Self.probe(output, "stream=duration", stream: "a:0").first ?? ""))
        #expect(abs(audio - duration) < 0.03, "\(audio) vs \(duration)")
        // Heard under B too (it has no sound of its own), well after the 1 s track looped.
        #expect(try Self.level(output, from: 2.3, to: 3.3) > 1000)
    }

    /// Packet hashes of the video stream, in order (ffmpeg's framemd5 of a stream copy).
    static func packetHashes(_ path: String) throws -> [String] {
        let result = try MediaFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:v", "-c", "copy", "-f", "framemd5", "-"])
        guard result.status == 0 else { throw FixtureError("ffmpeg: \(result.stderr)") }
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { String($0).trimmingCharacters(in: .whitespaces) } }
    }

    @Test func matchingClipsAreJoinedByCopyingTheirPackets() throws {
        let first = try Self.clipA()
        let second = try MediaFixtures.clip("compose-a-short.mp4", ["-f", "lavfi", "-i", MediaFixtures.patternFilter(width: 320, height: 240, rate: 25, seconds: 1),
                                                                    "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-pix_fmt", "yuv420p",
                                                                    "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-t", "1"])
        let (output, result) = try Self.composed([first, second, first])
        #expect(result.stderr.contains("copying packets (no re-encode)"), "\(result.stderr)")
        // The very same bytes: no encoder ran.
        let expected = try Self.packetHashes(first) + Self.packetHashes(second) + Self.packetHashes(first)
        #expect(try Self.packetHashes(output) == expected)
        let duration = try #require(Double(try Self.probe(output, "stream=duration", stream: "v:0").first ?? ""))
        #expect(abs(duration - 5) < 0.05, "\(duration)")
        let decode = try MediaFixtures.run("ffmpeg", ["-nostdin", "-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
    }

    @Test(arguments: [
        ("missing", "no such file"), ("empty", "empty file"), ("garbage", "not a media file"), ("audio only", "no video stream"),
    ])
    func aBadInputIsOneLineAndLeavesNothing(kind: String, reason: String) throws {
        let bad: String
        switch kind {
        case "missing": bad = MediaFixtures.directory.appendingPathComponent("compose-nowhere.mp4").path
        case "empty": bad = try MediaFixtures.file("compose-empty.mp4", bytes: [])
        case "garbage": bad = try MediaFixtures.file("compose-garbage.mp4", bytes: (0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
        default: bad = try AudioFixtures.tone("compose-tone.m4a", expression: "0.3*sin(2*PI*440*t)", layout: "mono", codec: "aac")
        }
        let directory = try Self.outputDirectory()
        let result = try Kiosk.run("compose", try Self.clipA(), bad, "-o", directory + "/out.mp4")
        #expect(result.status == 1, "exit \(result.status): \(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && result.stderr.contains(bad) && result.stderr.contains(reason), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    @Test func anUnwritableOutputIsOneLine() throws {
        let output = MediaFixtures.directory.appendingPathComponent("compose-no-such-dir/out.mp4").path
        let result = try Kiosk.run("compose", try Self.clipA(), "-o", output)
        #expect(result.status == 1 && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(output) && result.stderr.contains("no such directory"))
    }

    @Test func theOutputMayNotBeAnInput() throws {
        let input = try MediaFixtures.clip("compose-self.mp4", ["-i", try Self.clipA(), "-c", "copy"])
        let before = try Data(contentsOf: URL(fileURLWithPath: input))
        let result = try Kiosk.run("compose", try Self.clipB(), input, "-o", input)
        #expect(result.status == 2 && result.stderr.contains("is one of the inputs"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == before)
    }
}
