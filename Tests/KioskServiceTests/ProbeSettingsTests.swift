import Foundation
import Testing
@testable import KioskCore
@testable import KioskDisplay
@testable import KioskService

/// `kiosk probe FILE` answers for the screen `kiosk run` would drive: kiosk.conf's display
/// section and playback (gravity, region, hwdec), the command line's options over it.
@Suite struct ProbeSettingsTests {
    /// A kiosk.conf of `text` in a folder of its own, with the clip it plays beside it.
    static func config(_ text: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-probe-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: folder.appendingPathComponent("a.mp4").path, contents: Data([0]))
        let path = folder.appendingPathComponent("kiosk.conf").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func remove(_ path: String) { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }

    @Test func theDisplaySectionAndPlaybackOfKioskConfAreFollowed() throws {
        let path = try Self.config("""
            display:
              card: /dev/dri/card1
              connector: HDMI-A-2
              mode: 1280x720@50
              rotation: 270
              video_plane: off
            playback:
              gravity: fill
              hwdec: vaapi
              region: [0, 0, 50%, 100%]
            items: [a.mp4]
            """)
        defer { Self.remove(path) }
        let settings = try ProbeSettings(config: path, card: nil, gravity: nil, hwdec: nil)
        let display = try #require(settings.display)
        #expect(display.card == "/dev/dri/card1" && display.connector == "HDMI-A-2")
        #expect(display.mode == ModeRequest(parsing: "1280x720@50"))
        #expect(display.rotation == .clockwise270 && display.videoPlane == .off)
        #expect(settings.gravity == .fill && settings.hwdec == .vaapi)
        #expect(settings.region == ScreenRegion(x: .pixels(0), y: .pixels(0), width: .percent(50), height: .percent(100)))
        #expect(settings.source == path && settings.warning == nil)
        // The command line's options win.
        let asked = try ProbeSettings(config: path, card: "card0", gravity: .stretch, hwdec: .off)
        #expect(asked.display?.card == "card0" && asked.display?.connector == "HDMI-A-2")
        #expect(asked.gravity == .stretch && asked.hwdec == .off)
    }

    @Test func withoutKioskConfTheDefaultsAnswerAndSaySo() throws {
        let missing = "/nonexistent/kiosk-\(UUID().uuidString).conf"
        let settings = try ProbeSettings(config: nil, card: nil, gravity: nil, hwdec: nil, defaultPath: missing)
        // As `kiosk run` plays without kiosk.conf: hwdec off (it once answered for auto, which
        // described a hardware decoder run would not use).
        #expect(settings.display == DRMDisplayOptions() && settings.gravity == .fit && settings.hwdec == .off && settings.region == nil)
        #expect(settings.hwdec == KioskConfig().playback.hwdec && settings.gravity == KioskConfig().playback.gravity)
        #expect(settings.source == "no \(missing) (--config PATH reads one): the defaults")
        let none = try ProbeSettings(config: "none", card: nil, gravity: nil, hwdec: nil)
        #expect(none.display == DRMDisplayOptions() && none.source.hasPrefix("none (--config none)") && none.hwdec == .off)
        #expect(throws: ConfigFailure.self, "a kiosk.conf named on the command line must be there") {
            try ProbeSettings(config: missing, card: nil, gravity: nil, hwdec: nil)
        }
    }

    @Test func theDefaultKioskConfWithErrorsIsSaidAndTheDefaultsAnswer() throws {
        let path = try Self.config("display:\n  rotation: 45\nitems: [a.mp4]\n")
        defer { Self.remove(path) }
        let settings = try ProbeSettings(config: nil, card: nil, gravity: nil, hwdec: nil, defaultPath: path)
        let warning = try #require(settings.warning)
        #expect(warning.contains("rotation") && warning.contains("kiosk.conf"), "\(warning)")
        #expect(settings.display == DRMDisplayOptions() && settings.source.hasPrefix("\(path) cannot be used"))
        #expect(throws: ConfigFailure.self) { try ProbeSettings(config: path, card: nil, gravity: nil, hwdec: nil) }
    }

    @Test func headlessAndScreensDrawnAsOneAreAnsweredWithoutAScreen() throws {
        let headless = try Self.config("display:\n  output: headless\nitems: [a.mp4]\n")
        defer { Self.remove(headless) }
        let inMemory = try ProbeSettings(config: headless, card: nil, gravity: nil, hwdec: nil)
        #expect(inMemory.display == nil)
        guard case .failure(let settled as ProbeSettings.Settled) = inMemory.screen() else {
            Issue.record("a headless kiosk.conf has no screen to read"); return
        }
        #expect(settled.description.hasPrefix("the CPU converts it: the display is headless"))
        #expect(try ProbeSettings(config: headless, card: "card1", gravity: nil, hwdec: nil).display?.card == "card1",
                "a card named on the command line is read all the same")
        let mirror = try Self.config("displays:\n  layout: mirror\n  outputs: [{connector: Virtual-1}, {connector: Virtual-2}]\nitems: [a.mp4]\n")
        defer { Self.remove(mirror) }
        let mirrored = try ProbeSettings(config: mirror, card: nil, gravity: nil, hwdec: nil)
        #expect(mirrored.display == nil && mirrored.noScreen?.contains("displays.layout is mirror") == true)
        // One screen in a span, and a card named on the command line: still the CPU's one
        // picture, as `kiosk run` draws it (it leaves --display aside where `displays:` is).
        let span = try Self.config("displays:\n  layout: span\n  outputs: [{connector: Virtual-1}]\nitems: [a.mp4]\n")
        defer { Self.remove(span) }
        let spanned = try ProbeSettings(config: span, card: "card1", gravity: nil, hwdec: nil)
        #expect(spanned.display == nil && spanned.noScreen?.contains("displays.layout is span") == true)
        let separate = try Self.config("""
            displays:
              audio_from: right
              outputs:
                - {name: left, connector: Virtual-1}
                - {name: right, connector: Virtual-2, rotation: 90, gravity: stretch}
            items: [a.mp4]
            """)
        defer { Self.remove(separate) }
        let right = try ProbeSettings(config: separate, card: nil, gravity: nil, hwdec: nil)
        #expect(right.display?.connector == "Virtual-2" && right.display?.rotation == .clockwise90 && right.gravity == .stretch)
        #expect(right.source == separate + " (screen right, 2 of 2)")
        // The screen before it takes its CRTC first in the player: the probe asks after it.
        #expect(right.earlierScreens.map(\.connector) == ["Virtual-1"])
        #expect(try settings(of: separate, audioFrom: "left").earlierScreens.isEmpty, "the first screen has none before it")
        // Screens written as `--display` text are read as the player opens them.
        let texts = try Self.config("displays:\n  - drm:card1:HDMI-A-2:1920x1080\n  - headless:640x360@30\nitems: [a.mp4]\n")
        defer { Self.remove(texts) }
        let first = try ProbeSettings(config: texts, card: nil, gravity: nil, hwdec: nil)
        #expect(first.display?.card == "/dev/dri/card1" && first.display?.connector == "HDMI-A-2")
        #expect(first.display?.mode == ModeRequest(parsing: "1920x1080"))
        let headlessText = try Self.config("displays:\n  - headless:640x360@30:planes\nitems: [a.mp4]\n")
        defer { Self.remove(headlessText) }
        let simulated = try ProbeSettings(config: headlessText, card: nil, gravity: nil, hwdec: nil)
        #expect(simulated.display == nil && simulated.noScreen?.contains("a simulated plane") == true)
    }

    /// The probe's settings for `path` with `audio_from` replaced.
    private func settings(of path: String, audioFrom name: String) throws -> ProbeSettings {
        let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "audio_from: right", with: "audio_from: \(name)")
        let other = try Self.config(text)
        defer { Self.remove(other) }
        return try ProbeSettings(config: other, card: nil, gravity: nil, hwdec: nil)
    }
}
