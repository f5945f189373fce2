import Foundation
import KioskControl
import KioskCore
import KioskTestSupport
import Logging
import Synchronization
import Testing
@testable import KioskService

/// `override NAME` and `override_cancel [NAME]` through the command table to the desk: the
/// requests the player gets, the event lines, the expiry, and what outlives a restart.
@Suite(.serialized) struct OverrideDeskTests {
    private final class Events: ServiceEventObserver {
        private let lines = Mutex<[String]>([])
        func post(line event: ControlValue) { lines.withLock { $0.append(event.json) } }
        var all: [String] { lines.withLock { $0 } }
    }

    private static let location = SourceLocation(file: "kiosk.conf", line: 1, column: 1)

    private static func entries(_ names: String...) -> [PlaylistEntry] {
        names.map { PlaylistEntry(media: .file("/m/" + $0), item: ItemConfig(source: .file("/m/" + $0), location: location), itemIndex: 0) }
    }

    private static func table(fireDuration: Double? = nil) -> OverrideSet {
        OverrideSet([OverrideConfig(name: "fire", content: .item(0), priority: 100,
                                    duration: fireDuration.map { MediaTime(seconds: $0, timescale: 1000) }, location: location),
                     OverrideConfig(name: "promo", content: .item(1), priority: 1, location: location),
                     OverrideConfig(name: "broken", content: .item(9), location: location)],
                    defaultEntries: entries("f.mp4", "p.mp4"), playlists: [:]) { _ in ([], []) }
    }

    @Test func theHighestOverrideHasTheScreenAndTheLoopComesBackAfterTheLast() {
        let sink = RecordingRequests()
        let events = Events()
        let desk = OverrideDesk(Self.table(), sink: sink, events: [events], statePath: nil, logger: CapturedLog().logger)
        desk.open()
        defer { desk.close() }
        #expect(desk.start("promo") == nil)
        #expect(desk.start("fire") == nil)
        #expect(desk.start("promo") == nil, "asked again: it waits behind fire")
        #expect(sink.shown == ["promo", "fire"])
        if case .showOverride(_, let played, _)? = sink.requests.last { #expect(played == Self.entries("f.mp4")) }
        #expect(desk.cancel("fire") == nil)
        #expect(desk.cancel(nil) == nil)
        #expect(sink.shown == ["promo", "fire", "promo", "-"])
        #expect(events.all.count == 6, "\(events.all)")
        #expect(events.all.first?.contains(#""event":"override_started""#) == true && events.all.first?.contains(#""name":"promo""#) == true)
        #expect(events.all[1].contains(#""event":"override_ended""#) && events.all[1].contains("replaced by override 'fire'"))
    }

    /// `override_cancel` (all) while one waits behind another: the playlist comes back in one
    /// step; the one waiting never takes the screen on the way (cancelled one by one, it did).
    @Test func cancellingAllNeverShowsTheOneWaiting() {
        let sink = RecordingRequests()
        let events = Events()
        let desk = OverrideDesk(Self.table(), sink: sink, events: [events], statePath: nil, logger: CapturedLog().logger)
        desk.open()
        defer { desk.close() }
        #expect(desk.start("fire") == nil)
        #expect(desk.start("promo") == nil)
        #expect(desk.cancel(nil) == nil)
        #expect(sink.shown == ["fire", "-"])
        #expect(!events.all.contains { $0.contains(#""name":"promo""#) }, "\(events.all)")
    }

    /// An override's `sound` is one request after it takes the screen; the next change stops
    /// it (or plays the next one's); overrides without a sound send none.
    @Test func anOverridesSoundIsHeardWhileItHasTheScreen() {
        let sink = RecordingRequests()
        let alarm = SoundCue(path: "/m/alarm.wav", loops: true), chime = SoundCue(path: "/m/chime.wav")
        let table = OverrideSet([OverrideConfig(name: "fire", content: .item(0), priority: 100, sound: alarm, location: Self.location),
                                 OverrideConfig(name: "doors", content: .item(0), priority: 50, sound: chime, location: Self.location),
                                 OverrideConfig(name: "promo", content: .item(1), priority: 1, location: Self.location)],
                                defaultEntries: Self.entries("f.mp4", "p.mp4"), playlists: [:]) { _ in ([], []) }
        let desk = OverrideDesk(table, sink: sink, statePath: nil, logger: CapturedLog().logger)
        desk.open()
        defer { desk.close() }
        func sounds() -> [String] {
            sink.requests.compactMap {
                switch $0 {
                case .showOverride(let name, _, _): "show \(name)"
                case .endOverride: "end"
                case .soundCue(let cue): cue.map { "sound \($0.path)\($0.loops ? " looped" : "")" } ?? "silence"
                default: nil
                }
            }
        }
        #expect(desk.start("promo") == nil)
        #expect(sounds() == ["show promo"], "no sound, no request")
        #expect(desk.start("doors") == nil)
        #expect(desk.start("fire") == nil)
        #expect(desk.cancel("fire") == nil)
        #expect(desk.cancel("doors") == nil)
        #expect(desk.cancel(nil) == nil)
        #expect(sounds() == ["show promo", "show doors", "sound /m/chime.wav", "show fire", "sound /m/alarm.wav looped",
                             "show doors", "sound /m/chime.wav", "show promo", "silence", "end"], "\(sounds())")
        #expect(desk.start("doors") == nil)
        #expect(desk.cancel(nil) == nil)
        #expect(sounds().suffix(4) == ["show doors", "sound /m/chime.wav", "end", "silence"], "\(sounds())")
    }

    /// The engine opens the overrides most likely to be asked for ahead (#35): the highest
    /// priorities that play something, at start and again with each reload's table.
    @Test func theEngineIsToldWhichOverridesToOpenAhead() {
        let sink = RecordingRequests()
        let table = OverrideSet([OverrideConfig(name: "broken", content: .item(9), priority: 1000, location: Self.location),
                                 OverrideConfig(name: "fire", content: .item(0), priority: 100, location: Self.location),
                                 OverrideConfig(name: "promo", content: .item(1), priority: 1, location: Self.location)],
                                defaultEntries: Self.entries("f.mp4", "p.mp4"), playlists: [:]) { _ in ([], []) }
        let desk = OverrideDesk(table, sink: sink, statePath: nil, logger: CapturedLog().logger)
        desk.open()
        defer { desk.close() }
        #expect(sink.armed == [["fire", "promo"]], "broken, the highest, plays nothing: not armed")
        desk.replace(with: OverrideSet([OverrideConfig(name: "promo", content: .item(1), priority: 1, location: Self.location)],
                                       defaultEntries: Self.entries("f.mp4", "p.mp4"), playlists: [:]) { _ in ([], []) })
        #expect(sink.armed == [["fire", "promo"], ["promo"]])
    }

    /// At most `armedLimit`, highest priority first, kiosk.conf's order among equals; streams
    /// are not armed (their frames would be old when shown).
    @Test func whatIsArmedIsBoundedAndRanked() {
        let stream = PlaylistEntry(media: .url("rtsp://cam/1"), item: ItemConfig(source: .url("rtsp://cam/1"), location: Self.location),
                                   itemIndex: 2)
        let table = OverrideSet([
            OverrideSet.Override(config: OverrideConfig(name: "low", content: .item(0), priority: 1, location: Self.location),
                                 entries: Self.entries("l.mp4")),
            OverrideSet.Override(config: OverrideConfig(name: "camera", content: .item(2), priority: 500, location: Self.location),
                                 entries: [stream]),
            OverrideSet.Override(config: OverrideConfig(name: "first-equal", content: .item(0), priority: 50, location: Self.location),
                                 entries: Self.entries("a.mp4", "b.mp4")),
            OverrideSet.Override(config: OverrideConfig(name: "second-equal", content: .item(0), priority: 50, location: Self.location),
                                 entries: Self.entries("c.mp4")),
        ])
        #expect(OverrideSet.armedLimit == 2)
        #expect(table.toArm.map(\.name) == ["first-equal", "second-equal"])
        #expect(table.toArm.first?.entry == Self.entries("a.mp4").first, "an override's first entry")
    }

    @Test func refusalsNameWhatIsWrong() {
        let desk = OverrideDesk(Self.table(), sink: RecordingRequests(), statePath: nil, logger: CapturedLog().logger)
        #expect(desk.start("flood") == "no override 'flood': kiosk.conf defines 'fire', 'promo', 'broken'")
        #expect(desk.start("broken")?.hasPrefix("override 'broken' has nothing to play: item 9 is not in the default playlist") == true)
        #expect(desk.cancel("fire") == "override 'fire' is not on")
        #expect(desk.cancel(nil) == "no override is on")
        let none = OverrideDesk(OverrideSet(), sink: RecordingRequests(), statePath: nil, logger: CapturedLog().logger)
        #expect(none.start("fire") == "kiosk.conf defines no overrides")
    }

    @Test func aDurationEndsTheOverrideByItself() {
        let sink = RecordingRequests()
        let desk = OverrideDesk(Self.table(fireDuration: 0.3), sink: sink, statePath: nil, logger: CapturedLog().logger)
        desk.open()
        defer { desk.close() }
        #expect(desk.start("promo") == nil)
        #expect(desk.start("fire") == nil)
        #expect(waitUntil(10) { sink.shown == ["promo", "fire", "promo"] }, "\(sink.shown)")
    }

    @Test func whatIsOnOutlivesARestartAndAReloadEndsWhatIsGone() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-overrides-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = OverrideDesk(Self.table(), sink: RecordingRequests(), statePath: path, logger: CapturedLog().logger)
        first.open()
        #expect(first.start("fire") == nil)
        first.close()
        let sink = RecordingRequests()
        let second = OverrideDesk(Self.table(), sink: sink, statePath: path, logger: CapturedLog().logger)
        second.open()
        defer { second.close() }
        #expect(sink.shown == ["fire"])
        second.replace(with: OverrideSet([OverrideConfig(name: "promo", content: .item(1), location: Self.location)],
                                         defaultEntries: Self.entries("f.mp4", "p.mp4"), playlists: [:]) { _ in ([], []) })
        #expect(sink.shown == ["fire", "-"])
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "")
    }

    private static func textTable() -> OverrideSet {
        let card = TextCard(text: "Leave the building", background: LayerColor(rgb: 0xC00000), size: .percent(10))
        return OverrideSet([OverrideConfig(name: "evacuate", content: .items([ItemConfig(source: .card(card), location: location)]),
                                           priority: 100, layers: ["clock"], location: location),
                            OverrideConfig(name: "fire", content: .item(0), priority: 50, location: location)],
                           defaultEntries: entries("f.mp4"), playlists: [:]) { items in
            (PlaylistExpander(fileSystem: LocalFileSystem()).expand(items).entries, [])
        }
    }

    /// The card of the last `showOverride`, and the layers it keeps.
    private static func shownCard(_ sink: RecordingRequests) -> (TextCard, [String])? {
        guard case .showOverride(_, let played, let layers)? = sink.requests.last, case .card(let card)? = played.first?.media else { return nil }
        return (card, layers)
    }

    @Test func overrideTextShowsNewWordsInAKioskConfCardsStyleOrAPlainCard() {
        let sink = RecordingRequests()
        let events = Events()
        let desk = OverrideDesk(Self.textTable(), sink: sink, events: [events], statePath: nil, logger: CapturedLog().logger)
        desk.open()
        defer { desk.close() }
        #expect(desk.startText("evacuate", text: "Use the east exit", priority: nil, seconds: nil) == nil)
        let styled = Self.shownCard(sink)
        #expect(styled?.0 == TextCard(text: "Use the east exit", background: LayerColor(rgb: 0xC00000), size: .percent(10)))
        #expect(styled?.1 == ["clock"], "kiosk.conf's layers kept")
        #expect(events.all.last?.contains(#""priority":100"#) == true, "kiosk.conf's priority: \(events.all)")
        // A new name: white on black, priority 0 unless asked; it waits behind evacuate.
        #expect(desk.startText("notice", text: "Closed at 5", priority: nil, seconds: nil) == nil)
        #expect(sink.shown == ["evacuate"])
        #expect(desk.startText("notice", text: "Closed at 5", priority: 200, seconds: 600) == nil)
        #expect(sink.shown == ["evacuate", "notice"])
        #expect(Self.shownCard(sink)?.0 == TextCard(text: "Closed at 5") && Self.shownCard(sink)?.1 == [])
        // Plain `override evacuate` after its worded one: kiosk.conf's own words again.
        #expect(desk.cancel("notice") == nil)
        #expect(desk.start("evacuate") == nil)
        #expect(Self.shownCard(sink)?.0.text == "Leave the building")
        #expect(desk.startText("fire", text: "Hi", priority: nil, seconds: nil)?.contains("plays media, not a card") == true)
        // A flood of names: at most 16 cards held; asking again for one held is no new one.
        for index in 0..<16 { #expect(desk.startText("n\(index)", text: "x", priority: nil, seconds: nil) == nil) }
        #expect(desk.startText("n16", text: "x", priority: nil, seconds: nil)?.contains("16 override_text cards are held") == true)
        #expect(desk.startText("n3", text: "again", priority: nil, seconds: nil) == nil)
    }

    @Test func wordsOutliveARestartWhateverTheyHold() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-overrides-text-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let words = "100 % sure\tafter a tab\nand a line\r\nand 東"
        let first = OverrideDesk(Self.textTable(), sink: RecordingRequests(), statePath: path, logger: CapturedLog().logger)
        first.open()
        #expect(first.startText("notice", text: words, priority: 300, seconds: 3600) == nil)
        first.close()
        let sink = RecordingRequests()
        let second = OverrideDesk(Self.textTable(), sink: sink, statePath: path, logger: CapturedLog().logger)
        second.open()
        defer { second.close() }
        #expect(sink.shown == ["notice"])
        #expect(Self.shownCard(sink)?.0.text == words)
        #expect(second.startText("lower", text: "Below", priority: 299, seconds: nil) == nil)
        #expect(sink.shown == ["notice"], "its priority, 300, kept: a 299 waits")
        // A reload never ends a worded override whose name kiosk.conf does not define.
        second.replace(with: OverrideSet())
        #expect(sink.shown == ["notice"])
    }
}
