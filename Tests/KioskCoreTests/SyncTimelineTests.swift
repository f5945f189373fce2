import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// The shared timeline of `sync: epoch:` and what a player does at a frame to stay on it.
@Suite("Frame sync: the timeline, the steering, kiosk.conf's sync")
struct SyncTimelineTests {
    private static let second: Int64 = 1_000_000_000
    private static func t(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds, timescale: 1_000_000_000) }
    /// 2026-01-01T00:00:00Z.
    private static let epoch: Int64 = 1_767_225_600 * second
    /// Three items, 4 s, 3 s and 2.6 s: one turn is 9.6 s.
    private static let timeline = SyncTimeline(epochNanoseconds: epoch, slots: [t(4), t(3), t(2.6)])!

    @Test(arguments: [
        (0.0, 0, 0.0), (3.999, 0, 3.999), (4.0, 1, 0.0), (6.5, 1, 2.5), (7.0, 2, 0.0), (9.599, 2, 2.599),
        (9.6, 0, 0.0), (9.6 * 1000 + 5, 1, 1.0), (-0.5, 2, 2.1), (-9.6, 0, 0.0),
    ])
    func placeAtAnInstant(secondsSinceEpoch: Double, entry: Int, offset: Double) {
        let realtime = Self.epoch + Int64((secondsSinceEpoch * 1e9).rounded())
        let place = Self.timeline.place(atRealtime: realtime)
        #expect(place.entry == entry)
        #expect(abs(place.offset.seconds - offset) < 1e-6, "\(place.offset.seconds)")
    }

    @Test func yearsOfLoopingAddNoDrift() {
        // Ten years after the epoch, to the nanosecond: the remainder of an exact division.
        let tenYears = Int64(3_652) * 86_400 * Self.second
        let loop = Self.timeline.loopLength
        let turns = tenYears / loop
        let place = Self.timeline.place(atRealtime: Self.epoch + turns * loop + 4 * Self.second + 1)
        #expect(place == SyncTimeline.Place(entry: 1, offset: MediaTime(value: 1, timescale: 1_000_000_000)))
    }

    @Test func entriesWithoutALengthAreLeftOffAndNoLengthIsNoTimeline() {
        let timeline = SyncTimeline(epochNanoseconds: 0, slots: [Self.t(2), nil, Self.t(1), .zero])!
        #expect(timeline.loopLength == 3 * Self.second)
        #expect(timeline.place(atRealtime: 2 * Self.second + 5).entry == 2)
        #expect(timeline.place(atRealtime: 1 * Self.second).entry == 0)
        #expect(SyncTimeline(epochNanoseconds: 0, slots: [nil, .zero]) == nil)
        #expect(SyncTimeline(epochNanoseconds: 0, slots: []) == nil)
    }

    @Test func theOffsetOfAPlayingEntryIsTheNearestPlayOfIt() throws {
        let at = Self.epoch + 9_600_000_000 * 3 + 3_990_000_000   // entry 0 at 3.99 s
        // Entry 0 near its end: 3.99 s. Entry 1, not begun yet: -0.01 s (it is about to).
        #expect(try #require(Self.timeline.offset(ofEntry: 0, atRealtime: at, near: Self.t(3.9))).seconds == 3.99)
        #expect(try #require(Self.timeline.offset(ofEntry: 1, atRealtime: at, near: .zero)).seconds == -0.01)
        // Entry 2 (7 s into the turn) began 6.59 s ago, in the previous turn; its next play is
        // 3.01 s away: from the end of a play (2.6 s) the nearer is the one that began.
        let two = try #require(Self.timeline.offset(ofEntry: 2, atRealtime: at, near: Self.t(2.6)))
        #expect(abs(two.seconds - 6.59) < 1e-9, "\(two.seconds)")
        let upcoming = try #require(Self.timeline.offset(ofEntry: 2, atRealtime: at, near: .zero))
        #expect(abs(upcoming.seconds + 3.01) < 1e-9, "\(upcoming.seconds)")
        #expect(Self.timeline.offset(ofEntry: 7, atRealtime: at, near: .zero) == nil)
    }

    // MARK: Steering

    private func decide(entry: Int, position: Double?, at seconds: Double, starting: Bool = false,
                        playLengths: [MediaTime?]? = nil) -> TimelineSteering.Correction {
        TimelineSteering.decide(timeline: Self.timeline, playLengths: playLengths ?? [Self.t(4), Self.t(3), Self.t(2.6)],
                                entry: entry, position: position.map(Self.t), isStarting: starting,
                                realtime: Self.epoch + Int64((seconds * 1e9).rounded()))
    }

    @Test func onTheTimelineTheClockFollowsIt() {
        #expect(decide(entry: 1, position: 1.0, at: 5.0) == .none)
        #expect(decide(entry: 1, position: 0.98, at: 5.0) == .follow(position: Self.t(1.0)))
        #expect(decide(entry: 1, position: 1.3, at: 5.0) == .follow(position: Self.t(1.0)))
        // A 60 Hz screen a little behind or ahead: the clock is set, frames drop or repeat.
        #expect(decide(entry: 0, position: 2.0, at: 2.0167) == .follow(position: Self.t(2.0167)))
    }

    @Test func farFromItOrOnAnotherItemItJumps() {
        #expect(decide(entry: 1, position: 0.2, at: 5.0) == .jump(entry: 1, offset: Self.t(1.0)))
        #expect(decide(entry: 0, position: 1.0, at: 5.0) == .jump(entry: 1, offset: Self.t(1.0)))
        #expect(decide(entry: 2, position: nil, at: 9.6 + 4.5) == .jump(entry: 1, offset: Self.t(0.5)))
    }

    @Test func aSeamALittleOffIsCaughtByTheClockNotAJump() {
        // The timeline moved on to entry 2 10 ms ago; entry 1 still shows its last frame.
        #expect(decide(entry: 1, position: 2.99, at: 7.01) == .follow(position: Self.t(3.01)))
        // Entry 2 began 10 ms before the timeline's seam.
        #expect(decide(entry: 2, position: 0.0, at: 6.99) == .follow(position: Self.t(-0.01)))
    }

    @Test func anItemNotYetUpStartsAtTheTimelinesPositionUnlessItIsThere() {
        #expect(decide(entry: 0, position: 0, at: 0.3, starting: true) == .jump(entry: 0, offset: Self.t(0.3)))
        #expect(decide(entry: 0, position: 0, at: 0.02, starting: true) == .follow(position: Self.t(0.02)))
    }

    @Test func aRepeatedEntryIsSteeredWithinThePlayUnderWay() {
        // Entry 0 is a 2 s clip played twice (loop: 2): its slot is 4 s.
        let lengths: [MediaTime?] = [Self.t(2), Self.t(3), Self.t(2.6)]
        #expect(decide(entry: 0, position: 1.0, at: 3.0, playLengths: lengths) == .none)
        #expect(decide(entry: 0, position: 1.0, at: 1.0, playLengths: lengths) == .none)
        // 3.5 s into its 4 s slot: the second play, 1.5 s in (a join must leave it no third play).
        #expect(decide(entry: 1, position: 1.0, at: 3.5, playLengths: lengths) == .jump(entry: 0, offset: Self.t(1.5), play: 1))
        #expect(decide(entry: 1, position: 1.0, at: 1.5, playLengths: lengths) == .jump(entry: 0, offset: Self.t(1.5), play: 0))
    }

    /// A live stream in slot 1 (3 s): never moved inside its slot, whatever its clock says;
    /// it gives way as soon as the timeline leaves the slot; begun by a seam a little early, it
    /// stays (the clip before it ended early). Before, the clock set from the timeline stepped
    /// the stream's frames and a join seeked into it; streams were left off the timeline.
    @Test func aLiveStreamIsLeftAloneInItsSlotAndGivesWayAtItsEnd() {
        func live(_ entry: Int, at seconds: Double) -> TimelineSteering.Correction {
            TimelineSteering.decideLive(timeline: Self.timeline, playLengths: [Self.t(4), Self.t(3), Self.t(2.6)],
                                        entry: entry, realtime: Self.epoch + Int64((seconds * 1e9).rounded()))
        }
        #expect(live(1, at: 4.0) == .none)
        #expect(live(1, at: 6.99) == .none)
        #expect(live(1, at: 9.6 + 5.5) == .none, "a later turn")
        #expect(live(1, at: 7.0) == .jump(entry: 2, offset: Self.t(0)), "its slot is over")
        #expect(live(1, at: 8.5) == .jump(entry: 2, offset: Self.t(1.5)))
        #expect(live(1, at: 3.6) == .none, "begun 0.4 s before its slot")
        #expect(live(1, at: 3.4) == .jump(entry: 0, offset: Self.t(3.4)), "0.6 s before: the clip's slot goes on")
        #expect(live(1, at: 1.0) == .jump(entry: 0, offset: Self.t(1.0)))
        // Entry 0 live and played twice (loop: 2, one play 2 s): a join past its slot plays on
        // from the timeline's place, and the item after a stream's slot starts where the timeline is.
        let twice: [MediaTime?] = [Self.t(2), Self.t(3), Self.t(2.6)]
        #expect(TimelineSteering.decideLive(timeline: Self.timeline, playLengths: twice, entry: 2,
                                            realtime: Self.epoch + 3 * Self.second) == .jump(entry: 0, offset: Self.t(1), play: 1))
        // The only entry on its timeline never gives way; one left off it (no length) gives way at once.
        let alone = SyncTimeline(epochNanoseconds: Self.epoch, slots: [Self.t(4)])!
        #expect(TimelineSteering.decideLive(timeline: alone, playLengths: [Self.t(4)], entry: 0,
                                            realtime: Self.epoch + 9 * Self.second + 3) == .none)
        let leftOff = SyncTimeline(epochNanoseconds: Self.epoch, slots: [Self.t(4), nil])!
        #expect(TimelineSteering.decideLive(timeline: leftOff, playLengths: [Self.t(4), nil], entry: 1,
                                            realtime: Self.epoch + Self.second) == .jump(entry: 0, offset: Self.t(1)))
    }

    @Test func theSoundIsStretchedWhenAheadShortenedWhenBehindAtMostOnePercent() {
        #expect(TimelineSteering.soundCompensation(error: .zero) == 0)
        // 2 ms ahead: 500 ppm longer (absorbed over 4 s); 2 ms behind: 500 ppm shorter.
        #expect(TimelineSteering.soundCompensation(error: Self.t(0.002)) == 500)
        #expect(TimelineSteering.soundCompensation(error: Self.t(-0.002)) == -500)
        #expect(TimelineSteering.soundCompensation(error: Self.t(0.3)) == 10_000)
        #expect(TimelineSteering.soundCompensation(error: Self.t(-5)) == -10_000)
    }

    @Test func requestsThatMoveThePlayerAreRefusedTheRestPass() {
        for request in [PlayerRequest.seek(to: .zero), .skip(by: Self.t(10)), .nextItem, .previousItem, .goto(index: 1),
                        .setRate(Rational(2, 1)), .setSpeed(Rational(2, 1))] {
            #expect(TimelineSteering.refusal(of: request) != nil, "\(request)")
        }
        for request in [PlayerRequest.play, .pause, .togglePlayPause, .setVolume(50), .toggleMute, .setDisplayPower(on: false)] {
            #expect(TimelineSteering.refusal(of: request) == nil, "\(request)")
        }
    }

    // MARK: kiosk.conf

    @Test(arguments: [
        ("2026-01-01T00:00:00Z", 1_767_225_600 * second),
        ("2026-01-01 01:00:00+01:00", 1_767_225_600 * second),
        ("2025-12-31T19:00:00.25-05:00", 1_767_225_600 * second + 250_000_000),
        ("1970-01-01T00:00:00Z", 0),
        ("1969-12-31T23:59:59.000000001Z", -999_999_999),
        ("2024-02-29T12:00:00z", 1_709_208_000 * second),
    ])
    func instants(text: String, nanoseconds: Int64) {
        #expect(InstantText.nanoseconds(parsing: text) == nanoseconds)
        #expect(InstantText.nanoseconds(parsing: InstantText.text(nanoseconds: nanoseconds)) == nanoseconds)
    }

    @Test(arguments: ["2026-01-01T00:00:00", "2026-01-01", "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z",
                      "2026-01-01T24:00:00Z", "2026-01-01T00:00:00+1", "tomorrow", "2026-01-01T00:00:00Zjunk",
                      "2026-01-01T00:00:00.Z"])
    func notInstants(text: String) {
        #expect(InstantText.nanoseconds(parsing: text) == nil)
    }

    @Test func theSectionIsReadAndItsMistakesAreOneLineEach() throws {
        let items = "items: [a.mp4]\n"
        let config = try ConfigLoader.parse(text: "sync: {epoch: 2026-01-01T00:00:00Z}\n" + items, fileName: "kiosk.conf",
                                            baseDirectory: "/srv", fileSystem: FakeFileSystem(files: []))
        #expect(config.sync.epoch == Self.epoch)
        #expect(PlayerSettings(config: config).sync.epoch == Self.epoch)
        let cases: [(String, Int, Int, String)] = [
            ("sync:\n  epoch: 2026-01-01T00:00:00\n", 2, 10, "'epoch' in sync is '2026-01-01T00:00:00': not a valid instant; expected an instant like 2026-01-01T00:00:00Z"),
            ("sync:\n  epcoh: 2026-01-01T00:00:00Z\n", 2, 3, "unknown key 'epcoh' in sync; expected one of: epoch"),
            ("sync: {}\n", 1, 7, "the sync section has no 'epoch'"),
            ("playback: {loop: none}\nsync:\n  epoch: 2026-01-01T00:00:00Z\n", 3, 3, "sync needs 'playback.loop: playlist'"),
        ]
        for (yaml, line, column, fragment) in cases {
            let diagnostics = parseDiagnostics(yaml + items)
            #expect(diagnostics.contains { $0.line == line && $0.column == column && $0.message.contains(fragment) },
                    "\(yaml): \(diagnostics)")
        }
    }

    /// The annotated kiosk.conf shows the section commented out; taken in, it reads as it says.
    @Test func theExamplesCommentedSectionParses() throws {
        let section = try #require(try ExampleConfigFile.commentedSection("# sync:"))
        let config = try ConfigLoader.parse(text: section + "\nitems: [a.mp4]\n", fileName: "kiosk.conf",
                                            baseDirectory: "/srv", fileSystem: FakeFileSystem(files: []))
        #expect(config.sync.epoch == Self.epoch)
    }

    @Test func aNewEpochIsALiveChange() throws {
        func config(_ epoch: String) throws -> KioskConfig {
            try ConfigLoader.parse(text: "sync: {epoch: '\(epoch)'}\nitems: [a.mp4]\n", fileName: "kiosk.conf",
                                   baseDirectory: "/srv", fileSystem: FakeFileSystem(files: []))
        }
        let old = try config("2026-01-01T00:00:00Z"), new = try config("2026-02-01T00:00:00Z")
        #expect(ConfigChanges(from: old, to: new).parts == [.sync])
        #expect(ConfigPart.sync.application == .live)
        #expect(PlayerSettings(config: old).reloaded(from: new).sync == new.sync)
    }
}
