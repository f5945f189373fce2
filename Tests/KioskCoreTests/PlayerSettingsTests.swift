import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// kiosk.conf plus the command line's overrides into the one settings value, and what a
/// running player takes from a new one (the reload diff).
@Suite struct PlayerSettingsTests {
    static func parse(_ text: String) throws -> KioskConfig {
        try ConfigLoader.parse(text: text, fileName: "kiosk.conf", baseDirectory: "/etc/kiosk")
    }

    static let file = """
        display: {card: /dev/dri/card1, connector: HDMI-A-1, mode: 1920x1080@60, rotation: 90, video_plane: off, headless_size: 800x600}
        audio: {device: "hw:1,0", volume: 70, muted: true}
        input: {seek_step: 5, grab: true}
        playback: {loop: item, gravity: fill, start_paused: true, rate: 1.25, image_duration: 4, stall_timeout: 8}
        overlay: {hide_after: 2}
        control: {socket: /run/kiosk/control, time_interval: 0.5}
        items:
          - a.mp4

        """

    static func config() throws -> KioskConfig { try parse(file) }

    // MARK: config -> settings

    @Test func everySectionOfTheFileIsTaken() throws {
        let config = try Self.config()
        let settings = PlayerSettings(config: config)
        #expect(settings.display.target == .drm(card: "/dev/dri/card1", connector: "HDMI-A-1",
                                                mode: ModeRequest(parsing: "1920x1080@60")))
        #expect(settings.display.rotation == .clockwise90)
        #expect(settings.display.videoPlane == .off)
        #expect(settings.audio == config.audio)
        #expect(settings.audio.device == .pcm("hw:1,0") && settings.audio.volume == 70 && settings.audio.muted)
        #expect(settings.input == config.input)
        #expect(settings.playback == config.playback)
        #expect(settings.overlay == config.overlay)
        #expect(settings.control == config.control)
        #expect(settings.timeEventInterval == MediaTime(value: 1, timescale: 2))
    }

    @Test func theRateIsAnExactFraction() throws {
        let settings = PlayerSettings(config: try Self.config())
        #expect(settings.playback.defaultRate == Rational(1250, 1000))
        var playback = PlaybackConfig()
        playback.rate = 0.3333
        #expect(playback.defaultRate == Rational(333, 1000))
    }

    @Test func withoutOverridesOnlyTheFileSpeaks() throws {
        let settings = PlayerSettings(config: try Self.config())
        #expect(settings.statsPath == nil && settings.snapshotDirectory == nil)
        #expect(settings.snapshotInterval == MediaTime(value: 3, timescale: 1))
        #expect(!settings.untimed && !settings.exitWhenFinished)
        #expect(SettingsOverrides().replacedParts.isEmpty)
    }

    @Test func aDRMDisplayFromTheFileMayPreviewHeadless() throws {
        let settings = PlayerSettings(config: try Self.config())
        #expect(settings.display.headlessFallback == PixelSize(width: 800, height: 600))
        let preview = try #require(settings.previewingHeadless(defaultDirectory: "/tmp/kiosk-preview"))
        #expect(preview.display.target == .headless(PixelSize(width: 800, height: 600), refreshRate: 60))
        #expect(preview.display.rotation == .clockwise90)
        #expect(preview.snapshotDirectory == "/tmp/kiosk-preview")
        var named = SettingsOverrides()
        named.snapshotDirectory = "/srv/shots"
        let previewNamed = PlayerSettings(config: try Self.config(), overrides: named)
            .previewingHeadless(defaultDirectory: "/tmp/kiosk-preview")
        #expect(previewNamed?.snapshotDirectory == "/srv/shots")
    }

    @Test func aHeadlessDisplayFromTheFileRunsAt60Hz() throws {
        var config = try Self.config()
        config.display.output = .headless
        let settings = PlayerSettings(config: config)
        #expect(settings.display.target == .headless(PixelSize(width: 800, height: 600), refreshRate: 60))
        #expect(settings.display.headlessFallback == nil)
        #expect(settings.previewingHeadless(defaultDirectory: "/tmp") == nil)
    }

    @Test func noControlSocketSendsNoTimeEvents() throws {
        var config = try Self.config()
        config.control.socketPath = nil
        #expect(PlayerSettings(config: config).timeEventInterval == nil)
    }

    // MARK: one test per override

    @Test func displayOverrideReplacesTheTargetAndKeepsTheTurn() throws {
        var overrides = SettingsOverrides()
        overrides.display = DisplaySpec(parsing: "headless:640x360@30:vblank")
        let settings = PlayerSettings(config: try Self.config(), overrides: overrides)
        #expect(settings.display.target == .headless(PixelSize(width: 640, height: 360), refreshRate: 30, pacing: .vblank))
        #expect(settings.display.rotation == .clockwise90 && settings.display.videoPlane == .off)
        #expect(settings.display.headlessFallback == nil, "a display named on the command line opens as named")
        #expect(overrides.replacedParts == [.display])
    }

    @Test func audioOverrideReplacesTheDeviceOnly() throws {
        var overrides = SettingsOverrides()
        overrides.audioDevice = AudioConfig.Device.none
        let settings = PlayerSettings(config: try Self.config(), overrides: overrides)
        #expect(settings.audio.device == .none)
        #expect(settings.audio.volume == 70 && settings.audio.muted)
        #expect(overrides.replacedParts == [.audioDevice])
    }

    @Test func controlSocketOverrideNamesAnotherPath() throws {
        var overrides = SettingsOverrides()
        overrides.controlSocket = .some("/tmp/ctl")
        let settings = PlayerSettings(config: try Self.config(), overrides: overrides)
        #expect(settings.control.socketPath == "/tmp/ctl")
        #expect(settings.control.timeInterval == MediaTime(value: 1, timescale: 2))
    }

    @Test func controlSocketOverrideNoneTurnsItOff() throws {
        var overrides = SettingsOverrides()
        overrides.controlSocket = .some(nil)
        let settings = PlayerSettings(config: try Self.config(), overrides: overrides)
        #expect(settings.control.socketPath == nil)
        #expect(settings.timeEventInterval == nil)
    }

    @Test func statsFileOverride() throws {
        var overrides = SettingsOverrides()
        overrides.statsPath = "/tmp/stats.jsonl"
        #expect(PlayerSettings(config: try Self.config(), overrides: overrides).statsPath == "/tmp/stats.jsonl")
    }

    @Test func snapshotsOverride() throws {
        var overrides = SettingsOverrides()
        overrides.snapshotDirectory = "/tmp/shots"
        #expect(PlayerSettings(config: try Self.config(), overrides: overrides).snapshotDirectory == "/tmp/shots")
    }

    @Test func snapshotEveryOverride() throws {
        var overrides = SettingsOverrides()
        overrides.snapshotInterval = MediaTime(seconds: 0.5)
        #expect(PlayerSettings(config: try Self.config(), overrides: overrides).snapshotInterval == MediaTime(seconds: 0.5))
    }

    @Test func untimedOverride() throws {
        var overrides = SettingsOverrides()
        overrides.untimed = true
        #expect(PlayerSettings(config: try Self.config(), overrides: overrides).untimed)
    }

    @Test func exitWhenFinishedOverride() throws {
        var overrides = SettingsOverrides()
        overrides.exitWhenFinished = true
        #expect(PlayerSettings(config: try Self.config(), overrides: overrides).exitWhenFinished)
    }

    // MARK: the reload diff

    static func settings(_ edit: (inout KioskConfig) -> Void = { _ in }) throws -> PlayerSettings {
        var config = try config()
        edit(&config)
        return PlayerSettings(config: config)
    }

    @Test func theSameSettingsChangeNothing() throws {
        let reload = SettingsReload(from: try Self.settings(), to: try Self.settings(), newPlaylist: false)
        #expect(reload == SettingsReload(from: PlayerSettings(), to: PlayerSettings(), newPlaylist: false))
        #expect(reload.requests.isEmpty && reload.loopMode == nil && !reload.preparesUpcomingAgain)
        #expect(reload.overlay == nil)
    }

    @Test func aNewRateIsASpeedNotAPlay() throws {
        let reload = SettingsReload(from: try Self.settings(), to: try Self.settings { $0.playback.rate = 2 }, newPlaylist: false)
        #expect(reload.requests == [.setSpeed(Rational(2000, 1000))])
        #expect(!reload.preparesUpcomingAgain)
    }

    @Test func onlyTheLevelThatChangedIsSet() throws {
        let volume = SettingsReload(from: try Self.settings(), to: try Self.settings { $0.audio.volume = 40 }, newPlaylist: false)
        #expect(volume.requests == [.setVolume(40)], "the mute a key set stays")
        let mute = SettingsReload(from: try Self.settings(), to: try Self.settings { $0.audio.muted = false }, newPlaylist: false)
        #expect(mute.requests == [.setMuted(false)], "the volume a key set stays")
    }

    @Test func settingsReadAtEachUseNeedNoStep() throws {
        let reload = SettingsReload(from: try Self.settings(), to: try Self.settings {
            $0.playback.gravity = .stretch
            $0.playback.stallTimeout = MediaTime(value: 20, timescale: 1)
            $0.playback.startPaused = false
        }, newPlaylist: false)
        #expect(reload.requests.isEmpty && reload.loopMode == nil && !reload.preparesUpcomingAgain)
    }

    @Test func loopImageDurationAndPlaylistPrepareTheSeamAgain() throws {
        let loop = SettingsReload(from: try Self.settings(), to: try Self.settings { $0.playback.loop = .none }, newPlaylist: false)
        #expect(loop.loopMode == PlaybackConfig.LoopMode.none && loop.preparesUpcomingAgain)
        let still = SettingsReload(from: try Self.settings(),
                                   to: try Self.settings { $0.playback.imageDuration = MediaTime(value: 9, timescale: 1) },
                                   newPlaylist: false)
        #expect(still.loopMode == nil && still.preparesUpcomingAgain)
        let playlist = SettingsReload(from: try Self.settings(), to: try Self.settings(), newPlaylist: true)
        #expect(playlist.preparesUpcomingAgain && playlist.requests.isEmpty)
    }

    @Test func theOverlayIsHandedOverWhenItChanged() throws {
        let new = try Self.settings { $0.overlay.enabled = false }
        let reload = SettingsReload(from: try Self.settings(), to: new, newPlaylist: false)
        #expect(reload.overlay == .some(new.overlay))
        var none = new
        none.overlay = nil
        #expect(SettingsReload(from: new, to: none, newPlaylist: false).overlay == .some(nil))
    }

    @Test func partsWaitingForARestartKeepTheirRunningValues() throws {
        let running = try Self.config()
        var read = running
        read.display.rotation = .none
        read.audio.device = .none
        read.control.socketPath = "/tmp/other"
        read.audio.volume = 10
        read.playback.gravity = .stretch
        read.input.grab = false
        let live = read.appliedLive(to: running)
        #expect(live.display == running.display && live.audio.device == running.audio.device && live.control == running.control)
        #expect(live.audio.volume == 10 && live.playback.gravity == .stretch && !live.input.grab)
        #expect(ConfigChanges(from: running, to: live).parts == [.audioLevel, .input, .playback])
    }

    @Test func reloadedSettingsTakeTheLivePartsAndKeepTheCommandLine() throws {
        var overrides = SettingsOverrides()
        overrides.audioDevice = .pcm("null")
        overrides.statsPath = "/tmp/stats.jsonl"
        let playing = try #require(PlayerSettings(config: try Self.config(), overrides: overrides)
            .previewingHeadless(defaultDirectory: "/tmp/kiosk-preview"))
        var read = try Self.config()
        read.display.rotation = .none
        read.audio.device = .none
        read.audio.volume = 10
        read.control.socketPath = nil
        read.playback.gravity = .stretch
        read.input.grab = false
        read.overlay.enabled = false
        let next = playing.reloaded(from: read)
        #expect(next.display == playing.display, "the preview stays a preview")
        #expect(next.audio.device == .pcm("null") && next.control == playing.control)
        #expect(next.statsPath == "/tmp/stats.jsonl" && next.snapshotDirectory == "/tmp/kiosk-preview")
        #expect(next.audio.volume == 10 && next.playback.gravity == .stretch && !next.input.grab)
        #expect(next.overlay?.enabled == false)
        let reload = SettingsReload(from: playing, to: next, newPlaylist: false)
        #expect(reload.requests == [.setVolume(10)])
        #expect(reload.overlay == .some(next.overlay))
    }
}
