import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Testing
@testable import KioskPlayer

/// Overrides opened ahead (#35) through the whole engine on a headless display: an armed
/// override is opened before it is asked for, taken when it is, and armed again once it ends.
@Suite(.serialized) struct ArmedOverrideEngineTests {
    typealias Program = PlaylistProgramEngineTests

    /// A private copy of a generated clip (the fixture cache is shared; this one is deleted).
    static func privateClip(_ name: String, seconds: Double) throws -> (path: String, entry: PlaylistEntry) {
        let source = try MediaFixtures.pattern(name, width: 320, height: 240, seconds: seconds)
        let path = NSTemporaryDirectory() + "kiosk-armed-\(getpid())-\(name)"
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: source, toPath: path)
        let item = ItemConfig(source: .file(path), location: SourceLocation(file: "test", line: 1, column: 1))
        return (path, try #require(PlaylistExpander().expand([item]).entries.first))
    }

    /// The proof that the item was opened ahead: its file is deleted before the request, so
    /// only an item already open can play it (one opened on request fails: "skipping item 0").
    @Test func anArmedOverrideIsOpenedAheadTakenWhenAskedAndArmedAgainAfter() throws {
        let loop = try Program.entry("armed-loop.mp4", seconds: 6)
        let (path, alert) = try Self.privateClip("armed-alert.mp4", seconds: 4)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (player, stats, _, log) = try Program.started([loop], "armed")
        defer { _ = player.stop() }
        player.arm(overrides: [OverrideToArm(name: "alert", entry: alert)])
        #expect(log.waitFor(timeout: 30) { $0.contains("override 'alert': armed (\(alert.title) opened ahead)") })
        #expect(Program.waitUntil(20) { player.currentTime.seconds > 0.5 }, "the loop plays")
        try FileManager.default.removeItem(atPath: path)
        let asked = Program.flips(stats).count
        player.send(.showOverride(name: "alert", entries: [alert]))
        #expect(Program.waitUntil(20) { player.currentItemTitle == alert.title }, "the override plays")
        #expect(Program.waitUntil(20) { (Program.flips(stats).dropFirst(asked).last?.pts ?? 0) > 0.5 && player.currentTime.seconds > 0.5 },
                "its frames go up from the item opened ahead")
        let after = Array(Program.flips(stats)[asked...])
        let first = try #require(after.firstIndex { $0.insert == true }, "the override's first flip")
        #expect(after[first].pts < 0.1 && after[first].video, "its first frame, a picture: \(after[first])")
        #expect(!log.lines(atLeast: .error).contains { $0.contains("skipping item") }, "\(log.lines(atLeast: .error))")
        // Back in place before it ends; the end arms it again (the loop plays meanwhile).
        try FileManager.default.copyItem(atPath: try MediaFixtures.pattern("armed-alert.mp4", width: 320, height: 240, seconds: 4),
                                         toPath: path)
        player.send(.endOverride)
        #expect(Program.waitUntil(20) { player.currentItemTitle == loop.title }, "the loop comes back")
        #expect(log.waitFor(timeout: 30) { _ in
            log.lines.filter { $0.text.contains("override 'alert': armed") }.count == 2
        }, "armed again: \(log.formatted.suffix(8))")
    }

    /// An override whose file cannot be opened is said once and not armed again; asked for, it
    /// is opened then like any item (and skipped with its reason).
    @Test func anOverrideThatCannotBeArmedIsSaidOnce() throws {
        let loop = try Program.entry("armed-loop.mp4", seconds: 6)
        let missing = NSTemporaryDirectory() + "kiosk-armed-\(getpid())-missing.mp4"
        let item = ItemConfig(source: .file(missing), location: SourceLocation(file: "test", line: 1, column: 1))
        let entry = PlaylistEntry(media: .file(missing), item: item, itemIndex: 0)
        let (player, _, _, log) = try Program.started([loop], "armed-missing")
        defer { _ = player.stop() }
        player.arm(overrides: [OverrideToArm(name: "gone", entry: entry)])
        #expect(log.waitFor(timeout: 30) { $0.hasPrefix("warning: override 'gone': not armed: ") && $0.hasSuffix("; it opens when asked for") })
        #expect(Program.waitUntil(20) { player.currentTime.seconds > 1.5 }, "the loop plays on")
        #expect(log.lines.filter { $0.text.contains("override 'gone'") }.count == 2, "armed once, failed once: \(log.formatted)")
    }
}
