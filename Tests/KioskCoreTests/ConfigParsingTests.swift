import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

private let fullConfig = """
    display:
      output: headless
      card: /dev/dri/card1
      connector: HDMI-A-2
      mode: 1920x1080@59.94
      rotation: 270
      headless_size: 800x600
      video_plane: off
    audio:
      device: plughw:1,0
      volume: 75
      muted: true
    input:
      enabled: false
      devices: [/dev/input/event3, ILITEK Touch]
      grab: yes
      seek_step: 2.5
      gestures: {tap: false, double_tap: true}
      keys:
        toggle: [KEY_SPACE, BTN_LEFT]
        mute: []
        next: [KEY_N, KEY_M]
    playback:
      loop: item
      gravity: resizeAspectFill
      start_paused: true
      rate: 0.5
      image_duration: 0.1
      stall_timeout: 2.5
    overlay:
      enabled: false
      hide_after: 1:30
      font: fonts/big.ttf
    control:
      socket: run/kiosk.sock
      time_interval: 0.25
    items:
      - clips/
      - path: clips/intro.mp4
        gravity: stretch
        volume: 80
        muted: false
        start: 5
        end: 1:02:03.5
        loop: 2
        title: 2024
      - path: stills/poster.png
        duration: 7
      - https://example.com/live/index.m3u8
      - "clips/*.mkv"
      - file:///opt/media/loop.mp4
      - stills
      - ../shared/intro.mp4
    """

private let disk = FakeFileSystem(files: ["/srv/kiosk/fonts/big.ttf", "/srv/kiosk/stills/poster.png"])

@Suite("Config parsing")
struct ConfigParsingTests {
    @Test func aLiveItemTakesItsTransportAndLatency() throws {
        let config = try ConfigLoader.parse(text: """
            items:
              - {path: "rtsp://cam/1", transport: TCP, latency: 0.5, duration: 60, fallback: stills/poster.png}
              - {path: "srt://feed:9000", latency: 0.25}
              - rtsp://cam/2
            """, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk", fileSystem: disk)
        #expect(config.items[0].fallback == "/srv/kiosk/stills/poster.png" && config.items[1].fallback == nil)
        #expect(config.items[0].transport == .tcp && config.items[0].latency == MediaTime(value: 1, timescale: 2))
        #expect(config.items[0].duration == MediaTime(value: 60, timescale: 1))
        #expect(config.items[1].transport == nil && config.items[1].latency == MediaTime(value: 1, timescale: 4))
        #expect(config.items[2].transport == nil && config.items[2].latency == nil)
    }

    @Test func frameMemoryTakesASizeWithItsUnit() throws {
        for (text, bytes) in [("64MiB", 64 << 20), ("4M", 4 << 20), ("1g", 1 << 30), ("33554432", 32 << 20)] {
            let config = try ConfigLoader.parse(text: "playback: {frame_memory: \(text)}\nitems: [a.mp4]\n", fileName: "kiosk.conf",
                                                baseDirectory: "/srv/kiosk", fileSystem: disk)
            #expect(config.playback.frameMemory == bytes, "\(text)")
        }
    }

    @Test func hwdecNamesAWayOrOff() throws {
        for way in HardwareDecoding.allCases {
            let config = try ConfigLoader.parse(text: "playback: {hwdec: \(way.rawValue)}\nitems: [a.mp4]\n", fileName: "kiosk.conf",
                                                baseDirectory: "/srv/kiosk", fileSystem: disk)
            #expect(config.playback.hwdec == way)
        }
        #expect(try ConfigLoader.parse(text: "items: [a.mp4]\n", fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                                       fileSystem: disk).playback.hwdec == .off)
    }

    /// `playback.deinterlace` names a way (auto when unwritten); a typo is ConfigErrorTests'.
    @Test func deinterlaceNamesAWay() throws {
        for way in Deinterlacing.allCases {
            let config = try ConfigLoader.parse(text: "playback: {deinterlace: \(way.rawValue)}\nitems: [a.mp4]\n", fileName: "kiosk.conf",
                                                baseDirectory: "/srv/kiosk", fileSystem: disk)
            #expect(config.playback.deinterlace == way)
        }
        #expect(try ConfigLoader.parse(text: "items: [a.mp4]\n", fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                                       fileSystem: disk).playback.deinterlace == .auto)
    }

    @Test func fullConfigRoundTrips() throws {
        let config = try ConfigLoader.parse(text: fullConfig, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk", fileSystem: disk)
        var display = DisplayConfig()
        display.output = .headless
        display.card = .path("/dev/dri/card1")
        display.connector = .named("HDMI-A-2")
        display.mode = .exactly(ModeRequest(size: PixelSize(width: 1920, height: 1080), refreshHz: 59.94))
        display.rotation = .clockwise270
        display.headlessSize = PixelSize(width: 800, height: 600)
        display.videoPlane = .off
        #expect(config.display == display)

        var audio = AudioConfig()
        audio.device = .pcm("plughw:1,0")
        audio.volume = 75
        audio.muted = true
        #expect(config.audio == audio)

        #expect(config.input.enabled == false)
        #expect(config.input.devices == .listed(["/dev/input/event3", "ILITEK Touch"]))
        #expect(config.input.grab == true)
        #expect(config.input.seekStep == MediaTime(value: 5, timescale: 2))
        #expect(config.input.gestures == { var g = GestureSwitches(); g.tap = false; g.doubleTap = true; return g }())
        #expect(config.input.keys[.toggle] == ["KEY_SPACE", "BTN_LEFT"])
        #expect(config.input.keys[.mute] == [])
        #expect(config.input.keys[.next] == ["KEY_N", "KEY_M"])
        #expect(config.input.keys[.previous] == ["KEY_P", "KEY_PREVIOUSSONG"])   // not listed: default kept
        #expect(config.input.keys.action(forKey: "KEY_M") == .next)

        #expect(config.playback.loop == .item)
        #expect(config.playback.gravity == .fill)
        #expect(config.playback.startPaused)
        #expect(config.playback.rate == 0.5)
        #expect(config.playback.imageDuration == MediaTime(value: 1, timescale: 10))   // exact, not 0.1000000001
        #expect(config.playback.stallTimeout == MediaTime(value: 5, timescale: 2))
        #expect(config.playback.frameMemory == PlaybackConfig.defaultFrameMemory)

        #expect(config.overlay.enabled == false)
        #expect(config.overlay.hideAfter == MediaTime(value: 90, timescale: 1))
        #expect(config.overlay.font == .file("/srv/kiosk/fonts/big.ttf"))
        #expect(config.control.socketPath == "/srv/kiosk/run/kiosk.sock")
        #expect(config.control.timeInterval == MediaTime(value: 1, timescale: 4))

        #expect(config.items.map(\.source) == [
            .directory("/srv/kiosk/clips"), .file("/srv/kiosk/clips/intro.mp4"), .file("/srv/kiosk/stills/poster.png"),
            .url("https://example.com/live/index.m3u8"), .glob("/srv/kiosk/clips/*.mkv"), .file("/opt/media/loop.mp4"),
            .directory("/srv/kiosk/stills"), .file("/srv/shared/intro.mp4"),
        ])
        let intro = config.items[1]
        #expect(intro.gravity == .stretch)
        #expect(intro.volume == 80)
        #expect(intro.muted == false)
        #expect(intro.start == MediaTime(value: 5, timescale: 1))
        #expect(intro.end == MediaTime(value: 7447, timescale: 2))   // 1:02:03.5
        #expect(intro.loopCount == 2)
        #expect(intro.title == "2024")
        #expect(intro.location == SourceLocation(file: "kiosk.conf", line: 39, column: 11))
        #expect(config.items[2].duration == MediaTime(value: 7, timescale: 1))
        #expect(config.items[0].gravity == nil && config.items[0].loopCount == 1)
        #expect(config.items[0].location == SourceLocation(file: "kiosk.conf", line: 38, column: 5))
    }

    @Test func minimalConfigGetsTheDefaults() throws {
        let config = try ConfigLoader.parse(text: "display:\naudio: {}\nitems: [a.mp4]\n", fileName: "kiosk.conf",
                                            baseDirectory: "/srv", fileSystem: disk)
        var expected = KioskConfig()
        expected.items = [ItemConfig(source: .file("/srv/a.mp4"), location: SourceLocation(file: "kiosk.conf", line: 3, column: 9))]
        expected.items[0].playlist = "default"   // `items:` is the default playlist (proof of play names it)
        #expect(config == expected)
        #expect(config.input.keys == KeyMap.defaults)
        #expect(config.audio.device == .pcm("default"))
        #expect(config.display.mode == .preferred)
    }

    @Test(arguments: [
        ("none", AudioConfig.Device.none), ("hw:0,0", .pcm("hw:0,0")), ("dmix_out", .pcm("dmix_out")),
    ])
    func audioDevices(_ text: String, _ expected: AudioConfig.Device) throws {
        let config = try ConfigLoader.parse(text: "audio:\n  device: \(text)\nitems: [a.mp4]\n", fileName: "k",
                                            baseDirectory: "/", fileSystem: disk)
        #expect(config.audio.device == expected)
    }

    @Test(arguments: [
        ("preferred", DisplayConfig.Mode.preferred),
        ("1280x720", .exactly(ModeRequest(size: PixelSize(width: 1280, height: 720)))),
        ("640X480@60", .exactly(ModeRequest(size: PixelSize(width: 640, height: 480), refreshHz: 60))),
    ])
    func displayModes(_ text: String, _ expected: DisplayConfig.Mode) {
        #expect(ConfigWalker.parseMode(text) == expected)
    }

    @Test(arguments: ["1920x", "x1080", "1920x1080@", "1920x1080@0", "1920x1080@-60", "99999x1080", "fast"])
    func badDisplayModes(_ text: String) {
        #expect(ConfigWalker.parseMode(text) == nil)
    }

    @Test(arguments: [
        ("10", MediaTime(value: 10, timescale: 1)), ("2.5", MediaTime(value: 5, timescale: 2)),
        ("0.1", MediaTime(value: 1, timescale: 10)), ("1_000", MediaTime(value: 1000, timescale: 1)),
        ("1:30", MediaTime(value: 90, timescale: 1)), ("1:02:03.25", MediaTime(value: 14893, timescale: 4)),
        ("-3", MediaTime(value: -3, timescale: 1)), (".5", MediaTime(value: 1, timescale: 2)),
        ("999999999999", MediaTime(value: 999_999_999_999, timescale: 1)),
        ("1e3", MediaTime(value: 1000, timescale: 1)), ("0.123456789", MediaTime(value: 123_456_789, timescale: 1_000_000_000)),
    ])
    func secondsAreExact(_ text: String, _ expected: MediaTime) {
        #expect(SecondsText.parse(text) == expected)
    }

    /// YAML 1.1 reads a plain 1:30 as the number 90 but 0:30, 00:04 and 0:00:05 as strings,
    /// which were refused ("is the string '0:30'; expected seconds > 0 (like 10, 2.5 or 1:30)").
    @Test(arguments: [("0:30", 30.0), ("00:04", 4), ("0:00:05", 5), ("1:30", 90), ("0:04.5", 4.5)])
    func plainClockFormsAreSeconds(_ text: String, _ seconds: Double) throws {
        let files = FakeFileSystem(files: ["/srv/kiosk/a.mp4"])
        let config = try ConfigLoader.parse(text: "items:\n  - {path: a.mp4, start: \(text)}\n", fileName: "kiosk.conf",
                                            baseDirectory: "/srv/kiosk", fileSystem: files)
        #expect(config.items.first?.start?.seconds == seconds)
        // Quoted, it is still the string it says it is (as a quoted "2" for a rate).
        #expect(throws: ConfigError.self) {
            try ConfigLoader.parse(text: "items:\n  - {path: a.mp4, start: \"\(text)\"}\n", fileName: "kiosk.conf",
                                   baseDirectory: "/srv/kiosk", fileSystem: files)
        }
    }

    @Test(arguments: ["", "abc", "1:60", "1:2:3:4", "0.1234567891", "1..2", ".inf", "1e400", "99999999999999:00",
                      "999999999999:00:00", "1000000000000", "1e12"])
    func badSeconds(_ text: String) {
        #expect(SecondsText.parse(text) == nil)
    }

    @Test(arguments: [
        ("rtsp://cam/stream", ItemSource.url("rtsp://cam/stream")),
        ("HTTPS://Example.com/a.m3u8", .url("HTTPS://Example.com/a.m3u8")),
        ("clips/a.mp4", .file("/base/clips/a.mp4")),
        ("./clips/../b.mp4", .file("/base/b.mp4")),
        ("/abs/dir/", .directory("/abs/dir")),
        ("existing", .directory("/base/existing")),
        ("c?ips/[ab]*.mp4", .glob("/base/c?ips/[ab]*.mp4")),
        ("odd[1].mp4", .file("/base/odd[1].mp4")),   // the file exists: taken literally
        ("file:///media/x.mp4", .file("/media/x.mp4")),
        ("C:/not-a-url", .file("/base/C:/not-a-url")),
    ])
    func itemClassification(_ text: String, _ expected: ItemSource) {
        let disk = FakeFileSystem(files: ["/base/existing/a.mp4", "/base/odd[1].mp4"])
        #expect(ItemSource.classify(text, baseDirectory: "/base", fileSystem: disk) == expected)
    }

    @Test(arguments: [("gravty", " (did you mean 'gravity'?)"), ("Gravity", " (did you mean 'gravity'?)"),
                      ("start_pause", " (did you mean 'start_paused'?)"), ("xyz", ""),
                      ("lopo", " (did you mean 'loop'?)"), ("raet", " (did you mean 'rate'?)"), ("opol", "")])
    func suggestions(_ typo: String, _ expected: String) {
        #expect(suggestion(for: typo, among: ["loop", "gravity", "start_paused", "rate"]) == expected)
    }

    @Test func aSwapOfNeighboursIsOneEdit() {
        #expect(editDistance("itmes", "items") == 1)
        #expect(editDistance("ab", "ba") == 1)
        #expect(editDistance("abc", "ca") == 3)   // a swap is of neighbours, not a reordering
        #expect(editDistance("kitten", "sitting") == 3)
        #expect(editDistance("", "abc") == 3 && editDistance("abc", "") == 3)
    }

    @Test func equallyNearSuggestionsPreferTheSharedBeginning() {
        #expect(suggestion(for: "fil", among: ["fit", "fill", "stretch"]) == " (did you mean 'fill'?)")
        #expect(suggestion(for: "fitt", among: ["fit", "fill", "stretch"]) == " (did you mean 'fit'?)")
    }

    @Test func missingFontIsAnError() {
        let diagnostics = parseDiagnostics("overlay:\n  font: fonts/none.ttf\nitems: [a.mp4]\n")
        #expect(diagnostics.map(\.description) == [
            "kiosk.conf:2:9: font file '/srv/kiosk/fonts/none.ttf' does not exist; expected auto or the path of a TrueType font",
        ])
    }

    @Test func splashIsAnImageBesideTheConfigOrNone() throws {
        let config = try ConfigLoader.parse(text: "display:\n  splash: stills/poster.png\nitems: [a.mp4]\n", fileName: "kiosk.conf",
                                            baseDirectory: "/srv/kiosk", fileSystem: disk)
        #expect(config.display.splash == "/srv/kiosk/stills/poster.png")
        #expect(PlayerSettings(config: config).display.splash == "/srv/kiosk/stills/poster.png")
        let none = try ConfigLoader.parse(text: "display: {splash: none}\nitems: [a.mp4]\n", fileName: "kiosk.conf",
                                          baseDirectory: "/srv/kiosk", fileSystem: disk)
        #expect(none.display.splash == nil)
        #expect(parseDiagnostics("display:\n  splash: logo.png\nitems: [a.mp4]\n").map(\.description) == [
            "kiosk.conf:2:11: splash image '/srv/kiosk/logo.png' does not exist; expected none or the path of an image (PNG, JPEG)",
        ])
    }

    @Test func manyDuplicatesAreAllReportedAndTheRestStillChecked() {
        let yaml = "audio:\n  volume: 1\n  volume: 2\n  volume: 3\n  muted: true\n  muted: false\n  device: 5x\n  devise: x\nitems: [a.mp4]\n"
        let diagnostics = parseDiagnostics(yaml)
        #expect(diagnostics.map { "\($0.line):\($0.column)" } == ["3:3", "4:3", "6:3", "8:3"])
        #expect(diagnostics[3].message.contains("unknown key 'devise' in audio"))
    }

    @Test func repositoryExampleParsesCleanly() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent("kiosk.conf").path
        let config: KioskConfig
        do { config = try ConfigLoader.load(path: path) } catch {
            Issue.record("kiosk.conf has problems:\n\(error)")
            return
        }
        #expect(config.items.map(\.source) == [.directory(root.appendingPathComponent("demo-media").path)])
        // The example spells out the defaults, so it must read exactly as the built-in values.
        var defaults = KioskConfig()
        defaults.items = config.items
        #expect(config == defaults)
    }

    @Test func loadResolvesItemsAgainstTheFilesDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-conf-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/media", withIntermediateDirectories: true)
        try "items:\n  - media\n  - clip.mp4\n".write(toFile: directory + "/kiosk.conf", atomically: true, encoding: .utf8)
        let config = try ConfigLoader.load(path: directory + "/kiosk.conf")
        #expect(config.items.map(\.source) == [.directory(directory + "/media"), .file(directory + "/clip.mp4")])
        try Data([0x69, 0x74, 0x0A, 0x20, 0xC3, 0xA9, 0xFF, 0xFE, 0x00]).write(to: URL(fileURLWithPath: directory + "/bad.conf"))
        #expect(throws: ConfigError(diagnostics: [ConfigDiagnostic(file: directory + "/bad.conf", line: 2, column: 3,
            message: "byte 0xFF is not UTF-8 text; expected a YAML file saved as UTF-8")])) {
            try ConfigLoader.load(path: directory + "/bad.conf")
        }
    }
}
