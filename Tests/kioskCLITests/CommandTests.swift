import Foundation
import Testing
import KioskTestSupport

@Suite struct CommandTests {
    @Test(arguments: ["snapshot", "bench", "probe"])
    func everySubcommandHasHelp(command: String) throws {
        let result = try Kiosk.run(command, "--help")
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: kiosk \(command)"))
    }

    /// `--version` is the version MQTT's status reports (test_mqtt_socket_parity compares them).
    @Test func versionPrintsTheVersionAlone() throws {
        let result = try Kiosk.run("--version")
        #expect(result.status == 0)
        let version = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(version.split(separator: ".").count == 3 && version.split(separator: ".").allSatisfy { Int($0) != nil }, "\(version)")
    }

    @Test func probeDescribesStreams() throws {
        let clip = try MediaFixtures.clip("av.mkv", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=1",
                                                     "-f", "lavfi", "-i", "sine=frequency=440:duration=1:sample_rate=48000",
                                                     "-ac", "2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "libopus"])
        let text = try Kiosk.run("probe", clip)
        #expect(text.status == 0)
        #expect(text.stdout.contains("video h264 320x180"))
        #expect(text.stdout.contains("30.000 fps"))
        #expect(text.stdout.contains("audio opus"))
        #expect(text.stdout.contains("48000 Hz"))
        let json = try Kiosk.run("probe", "--json", clip)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let streams = object?["streams"] as? [[String: Any]]
        #expect(streams?.count == 2)
        #expect(streams?.first?["width"] as? Int == 320)
        #expect(abs((object?["durationSeconds"] as? Double ?? 0) - 1) < 0.1)
    }

    /// An interlaced stream says so, with its field order (its frames are woven as they play);
    /// a progressive one says nothing of fields.
    @Test func probeSaysAStreamIsInterlaced() throws {
        let interlaced = try MediaFixtures.clip("probe-interlaced.ts", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=0.4",
                                                                        "-c:v", "mpeg2video", "-flags", "+ilme+ildct", "-top", "1"])
        let text = try Kiosk.run("probe", interlaced)
        #expect(text.status == 0)
        #expect(text.stdout.contains("interlaced (tt)"), "\(text.stdout)")
        let json = try Kiosk.run("probe", "--json", interlaced)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((object?["streams"] as? [[String: Any]])?.first?["fieldOrder"] as? String == "tt")
        let progressive = try Kiosk.run("probe", try MediaFixtures.clip("av.mkv", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=1",
                                                                                  "-f", "lavfi", "-i", "sine=frequency=440:duration=1:sample_rate=48000",
                                                                                  "-ac", "2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "libopus"]))
        #expect(!progressive.stdout.contains("interlaced"))
    }

    @Test func benchCountsEveryFrame() throws {
        let clip = try MediaFixtures.pattern("bench.mp4", width: 320, height: 240, rate: 25, seconds: 2)
        let result = try Kiosk.run("bench", clip, "--size", "640x400", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Double]
        #expect(object?["frames"] == 50)
        #expect((object?["fps"] ?? 0) > 0)
        let limited = try Kiosk.run("bench", clip, "--frames", "7")
        #expect(limited.stdout.contains("frames: 7"))
    }

    @Test func snapshotAtATimeShowsThatFrame() throws {
        // Frame numbers drawn by testsrc2 differ over time: the 1.6 s frame (frame 40 at 25 fps,
        // exactly on a frame, so ffmpeg -ss and kiosk agree on which) is not the first.
        let clip = try MediaFixtures.clip("counter.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=3",
                                                          "-c:v", "libx264", "-preset", "ultrafast", "-qp", "10"])
        let first = try Kiosk.snapshot(clip, size: "320x240", gravity: "fit")
        let later = try Kiosk.snapshot(clip, size: "320x240", gravity: "fit", extra: ["--at", "1.6"])
        let reference = try Kiosk.reference(clip, filter: "null", at: 1.6)
        #expect(later.meanDifference(to: reference) < 3)
        #expect(later.meanDifference(to: first) > later.meanDifference(to: reference) + 1)
    }
}
