import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// The live reload's view of two configurations: what changed and how each change applies.
@Suite struct ConfigChangesTests {
    static func parse(_ text: String) throws -> KioskConfig {
        try ConfigLoader.parse(text: text, fileName: "kiosk.conf", baseDirectory: "/media")
    }

    static let base = """
        display: {output: headless}
        audio: {volume: 80}
        playback: {loop: playlist}
        items:
          - a.mp4
          - {path: b.mp4, gravity: fill}

        """

    @Test func identicalFilesChangeNothing() throws {
        let changes = ConfigChanges(from: try Self.parse(Self.base), to: try Self.parse(Self.base))
        #expect(changes.isEmpty)
        #expect(changes.parts == [])
        #expect(changes.appliedSummary == "")
    }

    @Test func movedItemsAreTheSameItems() throws {
        // A comment and blank lines above move every item's line; what they say is the same.
        let moved = "# a comment\n\n" + Self.base
        let old = try Self.parse(Self.base), new = try Self.parse(moved)
        #expect(old.items[0].location != new.items[0].location)
        #expect(ConfigChanges(from: old, to: new).isEmpty)
        let oldEntries = old.items.enumerated().map { PlaylistEntry(media: .file("/media/\($0.offset)"), item: $0.element, itemIndex: $0.offset) }
        let newEntries = new.items.enumerated().map { PlaylistEntry(media: .file("/media/\($0.offset)"), item: $0.element, itemIndex: $0.offset) }
        #expect(oldEntries != newEntries)
        #expect(oldEntries.playLike(newEntries))
    }

    @Test func anItemOptionIsAnItemsChange() throws {
        let new = Self.base.replacingOccurrences(of: "gravity: fill", with: "gravity: fit")
        let changes = ConfigChanges(from: try Self.parse(Self.base), to: try Self.parse(new))
        #expect(changes.parts == [.items])
        #expect(changes.appliedNow == [.items])
        #expect(changes.waitingForRestart == [])
    }

    @Test func playbackSettingsAreNamed() throws {
        let new = Self.base.replacingOccurrences(of: "playback: {loop: playlist}",
                                                 with: "playback: {loop: item, rate: 2, image_duration: 4, frame_memory: 16M}")
        let changes = ConfigChanges(from: try Self.parse(Self.base), to: try Self.parse(new))
        #expect(changes.parts == [.playback])
        #expect(changes.playbackSettings == [.loop, .rate, .imageDuration, .frameMemory])
        #expect(changes.appliedSummary == "playback (loop, rate, image_duration, frame_memory)")
    }

    @Test func volumeAndMuteApplyLive() throws {
        let new = Self.base.replacingOccurrences(of: "audio: {volume: 80}", with: "audio: {volume: 80, muted: true}")
        let changes = ConfigChanges(from: try Self.parse(Self.base), to: try Self.parse(new))
        #expect(changes.parts == [.audioLevel])
        #expect(ConfigPart.audioLevel.application == .live)
    }

    @Test func videoPlaneWaitsForARestartLikeTheRestOfDisplay() throws {
        let new = Self.base.replacingOccurrences(of: "display: {output: headless}",
                                                 with: "display: {output: headless, video_plane: off}")
        let changes = ConfigChanges(from: try Self.parse(Self.base), to: try Self.parse(new))
        #expect(changes.parts == [.display])
        #expect(changes.waitingForRestart == [.display])
    }

    @Test func devicesWaitForARestartAndInputIsReopened() throws {
        let new = Self.base
            .replacingOccurrences(of: "display: {output: headless}", with: "display: {output: headless, rotation: 90}")
            .replacingOccurrences(of: "audio: {volume: 80}", with: "audio: {volume: 50, device: none}\ninput: {seek_step: 5}")
            + "overlay: {hide_after: 1}\n"
        let changes = ConfigChanges(from: try Self.parse(Self.base), to: try Self.parse(new))
        #expect(changes.parts == [.display, .audioDevice, .audioLevel, .input, .overlay])
        #expect(changes.waitingForRestart == [.display, .audioDevice])
        #expect(changes.appliedNow == [.audioLevel, .input, .overlay])
        #expect(ConfigPart.input.application == .reopened)
        #expect(changes.appliedSummary == "audio volume, input, overlay")
    }

    @Test func debounceWaitsForQuietAndNotForever() {
        var debounce = ChangeDebounce(quiet: 0.25, longest: 2)
        #expect(debounce.deadline == nil)
        var taken = debounce.takeIfDue(at: 100)
        #expect(!taken)
        debounce.noteChange(at: 10)
        debounce.noteChange(at: 10.1)
        #expect(debounce.deadline == 10.35)
        taken = debounce.takeIfDue(at: 10.3)
        #expect(!taken)
        taken = debounce.takeIfDue(at: 10.35)
        #expect(taken)
        taken = debounce.takeIfDue(at: 10.4)
        #expect(!taken, "taken once")
        // A file written without a pause is read 2 s after its first change.
        for step in 0..<30 { debounce.noteChange(at: 20 + Double(step) * 0.1) }
        #expect(debounce.deadline == 22)
        taken = debounce.takeIfDue(at: 22.9)
        #expect(taken)
        #expect(debounce.deadline == nil)
    }
}
