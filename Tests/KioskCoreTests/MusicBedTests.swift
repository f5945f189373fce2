import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// kiosk.conf's `audio_track` (the music bed): its forms, each bad value at its line:column,
/// the files it expands to, and the bed's level as a function of what plays (the envelope and
/// the mixing the writer thread does).
@Suite("Music bed: config, expansion, gain envelope, mixing")
struct MusicBedTests {
    private let items = "items: [a.mp4]\n"
    static let musicFiles = ["/srv/kiosk/music/01 intro.mp3", "/srv/kiosk/music/02 theme.flac",
                                    "/srv/kiosk/music/cover.jpg", "/srv/kiosk/music/10 outro.wav",
                                    "/srv/kiosk/jingle.m4a"]
    private let disk = FakeFileSystem(files: musicFiles)

    private func parse(_ yaml: String) throws(ConfigError) -> KioskConfig {
        try ConfigLoader.parse(text: items + yaml, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk", fileSystem: disk)
    }

    @Test func absentIsNoBed() throws {
        #expect(try parse("").audioTrack == nil)
        #expect(PlayerSettings(config: try parse("")).musicBed == nil)
    }

    @Test func shortFormIsTheFilesWithTheDefaults() throws {
        let bed = try #require(try parse("audio_track: music/\n").audioTrack)
        #expect(bed.items.map(\.source) == [.directory("/srv/kiosk/music")])
        #expect(bed.withItemSound == .duck && bed.duckDecibels == -12 && bed.fadeSeconds == 0.3 && bed.volume == 100)
        let listed = try #require(try parse("audio_track: [jingle.m4a, 'music/*.mp3']\n").audioTrack)
        #expect(listed.items.map(\.source) == [.file("/srv/kiosk/jingle.m4a"), .glob("/srv/kiosk/music/*.mp3")])
    }

    @Test func mapFormReadsEveryKey() throws {
        let bed = try #require(try parse("""
            audio_track:
              items: [music/, jingle.m4a]
              with_item_sound: duck
              duck: -18 dB
              fade: 0.5
              volume: 80

            """).audioTrack)
        #expect(bed.items.count == 2)
        #expect(bed.duckDecibels == -18 && bed.fadeSeconds == 0.5 && bed.volume == 80)
        #expect(abs(bed.mix.underItemSound - pow(10, -18.0 / 20)) < 1e-12)
        #expect(try parse("audio_track: {items: music/, duck: -6}\n").audioTrack?.duckDecibels == -6)
        #expect(try parse("audio_track: {items: music/, duck: -3dB}\n").audioTrack?.duckDecibels == -3)
        #expect(try parse("audio_track: {items: music/, with_item_sound: replace}\n").audioTrack?.mix.underItemSound == 0)
        #expect(try parse("audio_track: {items: music/, with_item_sound: mix}\n").audioTrack?.mix.underItemSound == 1)
    }

    @Test func filesExpandInNaturalOrderWithSoundEndingsOnly() throws {
        let config = try parse("audio_track: [music/, jingle.m4a, missing.mp3]\n")
        let bed = MusicBedSettings(try #require(config.audioTrack), fileSystem: disk)
        #expect(bed.files == ["/srv/kiosk/music/01 intro.mp3", "/srv/kiosk/music/02 theme.flac",
                              "/srv/kiosk/music/10 outro.wav", "/srv/kiosk/jingle.m4a"])
        #expect(bed.problems.map(\.message) == ["file '/srv/kiosk/missing.mp3' does not exist; skipped until it appears"])
        #expect(bed.problems.first.map { ($0.line, $0.column) }! == (2, 35))
    }

    static let badValues: [ConfigErrorCase] = [
        ConfigErrorCase(afterItems: "audio_track: {items: music/, with_item_sound: duk}\n", line: 2, column: 47,
                 fragment: "'with_item_sound' in audio_track is the string 'duk'; expected one of: duck, replace, mix (did you mean 'duck'?)"),
        ConfigErrorCase(afterItems: "audio_track: {items: music/, duck: -80 dB}\n", line: 2, column: 36,
                 fragment: "'duck' in audio_track is the string '-80 dB'; expected a level in dB from -60 to 0, like -12 dB"),
        ConfigErrorCase(afterItems: "audio_track: {items: music/, duck: 6}\n", line: 2, column: 36,
                 fragment: "'duck' in audio_track is 6; expected a level in dB from -60 to 0"),
        ConfigErrorCase(afterItems: "audio_track: {items: music/, duck: loud}\n", line: 2, column: 36,
                 fragment: "'duck' in audio_track is the string 'loud'; expected a level in dB"),
        ConfigErrorCase(afterItems: "audio_track: {items: music/, fade: -1}\n", line: 2, column: 36,
                 fragment: "'fade' in audio_track is -1; expected seconds >= 0"),
        ConfigErrorCase(afterItems: "audio_track: {items: music/, fade: 30}\n", line: 2, column: 36,
                 fragment: "'fade' in audio_track is 30.0 s; expected seconds from 0 to 10"),
        ConfigErrorCase(afterItems: "audio_track: {items: music/, volume: 120}\n", line: 2, column: 38,
                 fragment: "'volume' in audio_track is 120; expected a whole number from 0 to 100 (percent)"),
        ConfigErrorCase(afterItems: "audio_track: {items: music/, volum: 50}\n", line: 2, column: 30,
                 fragment: "unknown key 'volum' in audio_track; expected one of: items, with_item_sound, duck, fade, volume (did you mean 'volume'?)"),
        ConfigErrorCase(afterItems: "audio_track: {duck: -6}\n", line: 2, column: 14,
                 fragment: "audio_track has no 'items'; expected items: followed by a sound file, directory or glob"),
        ConfigErrorCase(afterItems: "audio_track: {items: []}\n", line: 2, column: 22,
                 fragment: "audio_track's items are an empty list"),
        ConfigErrorCase(afterItems: "audio_track: {items: {a: 1}}\n", line: 2, column: 22,
                 fragment: "audio_track's items are a map; expected a sound file, directory or glob"),
        ConfigErrorCase(afterItems: "audio_track: [music/, {path: a.mp3}]\n", line: 2, column: 23,
                 fragment: "audio_track item 2 is a map; expected a sound file, directory or glob"),
        ConfigErrorCase(afterItems: "audio_track: {items: music/, with_item_sound: replace, duck: -6}\n", line: 2, column: 56,
                 fragment: "audio_track has 'duck' but with_item_sound is replace; expected with_item_sound: duck"),
    ].reading(musicFiles)


    @Test func aChangeAppliesOnRestart() throws {
        let old = try parse("audio_track: music/\n")
        let new = try parse("audio_track: {items: music/, duck: -20}\n")
        let changes = ConfigChanges(from: old, to: new)
        #expect(changes.parts == [.audioTrack] && changes.waitingForRestart == [.audioTrack])
        #expect(new.appliedLive(to: old).audioTrack == old.audioTrack)
        // Moving the section in the file changes nothing.
        #expect(ConfigChanges(from: old, to: try parse("\naudio_track: music/\n")).isEmpty)
    }

    /// kiosk.conf shows the section commented out (no bed by default); taken in, it must read
    /// as its comments say: the defaults.
    @Test func theExamplesCommentedSectionParses() throws {
        let section = try #require(try ExampleConfigFile.commentedSection("# audio_track:"))
        let bed = try #require(try parse(section + "\n").audioTrack)
        #expect(bed.items.map(\.source) == [.directory("/srv/kiosk/music")])
        #expect(bed == MusicBedConfig(items: bed.items))
        #expect(try parse("").audioTrack == nil)
    }

    // MARK: The level

    /// 48 kHz, a 0.1 s fade (4800 frames), ducked to 0.25: a full swing of 0.75 in 4800 frames.
    private static let ducked = MusicBedMix(underItemSound: 0.25, fadeSeconds: 0.1, volume: 100)

    struct Step: Sendable {
        let frames: Int
        let itemSounds: Bool
        let start: Double
        let end: Double
    }

    static let duckingSteps: [Step] = [
        Step(frames: 480, itemSounds: false, start: 1, end: 1),          // silent item: full
        Step(frames: 480, itemSounds: true, start: 1, end: 0.925),       // sound starts: a tenth of the fade
        Step(frames: 2400, itemSounds: true, start: 0.925, end: 0.55),
        Step(frames: 4800, itemSounds: true, start: 0.55, end: 0.25),    // reaches the duck and stays
        Step(frames: 480, itemSounds: true, start: 0.25, end: 0.25),
        Step(frames: 960, itemSounds: false, start: 0.25, end: 0.40),    // back up, at the same speed
        Step(frames: 480, itemSounds: true, start: 0.40, end: 0.325),    // turns round mid-fade
        Step(frames: 100_000, itemSounds: false, start: 0.325, end: 1),  // never above full
    ]

    @Test func envelopeGlidesAtOneSpeedBetweenTheLevels() {
        var envelope = BedGainEnvelope(mix: Self.ducked, sampleRate: 48000)
        for (index, step) in Self.duckingSteps.enumerated() {
            let (start, end) = envelope.advance(frames: step.frames, itemSounds: step.itemSounds)
            #expect(abs(start - step.start) < 1e-9 && abs(end - step.end) < 1e-9, "step \(index): \(start) -> \(end)")
        }
    }

    @Test(arguments: [
        // mode's level under sound, fade, frames under sound: level reached
        (0.0, 0.3, 14400, 0.0),      // replace: silent after the whole fade
        (0.0, 0.3, 7200, 0.5),       // replace: half way after half the fade
        (1.0, 0.3, 480, 1.0),        // mix: never moves
        (0.25, 0.0, 1, 0.25),        // no fade: at once
    ])
    func envelopeTable(underSound: Double, fade: Double, frames: Int, level: Double) {
        var envelope = BedGainEnvelope(mix: MusicBedMix(underItemSound: underSound, fadeSeconds: fade, volume: 100), sampleRate: 48000)
        #expect(abs(envelope.advance(frames: frames, itemSounds: true).end - level) < 1e-9)
    }

    @Test func decibelsAndAmplitude() {
        #expect(abs(MusicBedMix.linear(decibels: -12) - 0.251188643) < 1e-9)
        #expect(abs(MusicBedMix.linear(decibels: -6.0206) - 0.5) < 1e-5)
        #expect(abs(MusicBedMix.decibels(linear: MusicBedMix.linear(decibels: -18)) + 18) < 1e-12)
    }

    @Test func mixerAddsWithARampAndClips() {
        var target: [Int16] = [1000, 1000, 1000, 1000, 30000, -30000]
        let bed: [Int16] = [1000, 1000, 1000, 1000, 10000, -10000]
        target.withUnsafeMutableBytes { out in
            bed.withUnsafeBytes { PCMMixer.add($0, into: out, format: .s16, channels: 2, gainFrom: 0, to: 0.5) }
        }
        // Three frames, the gain at each frame's end of the ramp: 1/6, 1/3, 1/2.
        #expect(target == [1167, 1167, 1333, 1333, 32767, -32768])
        var floats: [Float] = [0.5, 0.5]
        let bedFloats: [Float] = [0.5, 0.9]
        floats.withUnsafeMutableBytes { out in
            bedFloats.withUnsafeBytes { PCMMixer.add($0, into: out, format: .float, channels: 2, gainFrom: 1, to: 1) }
        }
        #expect(floats == [1, 1])
    }
}
