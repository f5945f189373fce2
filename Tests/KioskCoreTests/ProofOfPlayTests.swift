import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// Proof of play's pure parts: events into play records, the JSON line, rotation, the report.
@Suite struct ProofOfPlayTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    /// 2026-11-23 12:00:00 UTC.
    static let noon = Date(timeIntervalSince1970: 1_795_435_200)

    static func at(_ seconds: Double) -> PlayInstant {
        PlayInstant(wall: noon.addingTimeInterval(seconds), monotonic: 1000 + seconds)
    }

    static func ref(_ serial: UInt64, _ name: String) -> PlayerItemReference {
        PlayerItemReference(serial: serial, name: name)
    }

    /// Feeds (seconds, observation) pairs; returns every record, in order.
    static func record(_ steps: [(Double, PlayObservation)]) -> [PlayRecord] {
        var recorder = PlayRecorder()
        return steps.flatMap { recorder.observe($0.1, at: at($0.0)) }
    }

    @Test func aSeamCompletesThePlayAndBeginsTheNext() {
        let records = Self.record([
            (0, .started(Self.ref(1, "Intro"), index: 0, source: "/m/intro.mp4")),
            (10.5, .ended(Self.ref(1, "Intro"))),
            (10.5, .started(Self.ref(2, "b.mp4"), index: 1, source: "/m/b.mp4")),
            (12, .stopping),
        ])
        #expect(records.count == 2)
        #expect(records[0] == PlayRecord(item: 0, source: "/m/intro.mp4", title: "Intro", start: Self.noon,
                                         end: Self.noon.addingTimeInterval(10.5), secondsShown: 10.5, outcome: .completed))
        #expect(records[1].outcome == .interrupted(.stopping))
        #expect(abs(records[1].secondsShown - 1.5) < 1e-9)
    }

    @Test func eachRequestNamesTheInterruptionItCauses() {
        let cases: [(PlayerRequest, InterruptionCause)] = [
            (.nextItem, .next), (.previousItem, .previous), (.goto(index: 3), .goto), (.load([]), .load),
            (.switchPlaylist([], when: .now), .scheduleSwitch), (.playOnce(.entry(index: 0), when: .now), .insert),
        ]
        for (request, cause) in cases {
            let records = Self.record([
                (0, .started(Self.ref(1, "a"), index: 0, source: "/m/a.mp4")),
                (1, .requested(.setVolume(20))),   // changes no item: no cause
                (2, .requested(request)),
                (2.1, .started(Self.ref(2, "b"), index: 1, source: "/m/b.mp4")),
            ])
            #expect(records.map(\.outcome) == [.interrupted(cause)], "\(request)")
        }
        // Unannounced (keys, touch, a reload): still interrupted, with the generic cause.
        let unnamed = Self.record([(0, .started(Self.ref(1, "a"), index: 0, source: "/m/a.mp4")),
                                   (3, .started(Self.ref(2, "b"), index: 1, source: "/m/b.mp4"))])
        #expect(unnamed.map(\.outcome) == [.interrupted(.otherRequest)])
    }

    /// An override whose duration ran out played its course: completed (billing counted none, as
    /// each was "interrupted, override"); cancelled, or replaced by a reload, it is interrupted.
    @Test func anOverrideThatRanItsCourseIsCompleted() {
        for (ending, outcome) in [(PlayerRequest.endOverride(ranItsCourse: true), PlayOutcome.completed),
                                  (.endOverride(), .interrupted(.override))] {
            let records = Self.record([
                (0, .started(Self.ref(1, "a"), index: 0, source: "/m/a.mp4")),
                (1, .requested(.showOverride(name: "notice", entries: []))),
                (1.1, .started(Self.ref(2, "text:Fire drill"), index: 0, source: "")),
                (6.1, .requested(ending)),
                (6.2, .started(Self.ref(3, "a"), index: 0, source: "/m/a.mp4")),
            ])
            #expect(records.map(\.outcome) == [.interrupted(.override), outcome], "\(ending)")
        }
    }

    @Test func aSwitchAtTheSeamDoesNotBlameTheNaturalEnd() {
        let records = Self.record([
            (0, .started(Self.ref(1, "a"), index: 0, source: "/m/a.mp4")),
            (1, .requested(.switchPlaylist([], when: .atSeam))),
            (5, .ended(Self.ref(1, "a"))),
            (5, .started(Self.ref(2, "x"), index: 0, source: "/m/x.mp4")),
            (6, .requested(.nextItem)),
            (6, .ended(Self.ref(2, "x"))),   // it ended as the request came: completed, cause dropped
            (6, .started(Self.ref(3, "y"), index: 1, source: "/m/y.mp4")),
            (9, .started(Self.ref(4, "z"), index: 2, source: "/m/z.mp4")),
        ])
        #expect(records.map(\.outcome) == [.completed, .completed, .interrupted(.otherRequest)])
    }

    @Test func failuresAndSkipsAreToldApart() {
        let records = Self.record([
            (0, .started(Self.ref(1, "a"), index: 0, source: "/m/a.mp4")),
            // The item prepared ahead fails: a skip, nothing of the playing one changes.
            (1, .failed(Self.ref(2, "broken.mp4"), reason: "no video stream")),
            (1, .skipped(index: 1, source: "/m/broken.mp4", reason: "no video stream")),
            // The playing one fails: recorded once, as failed (its skip adds nothing).
            (4, .failed(Self.ref(1, "a"), reason: "decode error")),
            (4, .skipped(index: 0, source: "/m/a.mp4", reason: "decode error")),
        ])
        #expect(records.map(\.outcome) == [.skipped(reason: "no video stream"), .failed(reason: "decode error")])
        #expect(records[0].item == 1 && records[0].source == "/m/broken.mp4" && records[0].secondsShown == 0)
        #expect(records[0].title == "broken.mp4")
        #expect(records[1].item == 0 && records[1].secondsShown == 4)
    }

    @Test func displayOffInterruptsAndNothingIsOpenWhileDark() {
        let records = Self.record([
            (0, .started(Self.ref(1, "a"), index: 0, source: "/m/a.mp4")),
            (1, .requested(.nextItem)),   // overtaken by the screen going dark: it names no later change
            (2, .displayPower(on: false)),
            (60, .displayPower(on: true)),
            (60.2, .started(Self.ref(2, "a"), index: 0, source: "/m/a.mp4")),
            (60.5, .started(Self.ref(3, "b"), index: 1, source: "/m/b.mp4")),
            (61, .stopping),
            (62, .stopping),
        ])
        #expect(records.map(\.outcome) == [.interrupted(.displayOff), .interrupted(.otherRequest), .interrupted(.stopping)])
        #expect(records[0].secondsShown == 2)
    }

    /// Seconds come from the monotonic clock: NTP setting the wall clock back does not make a
    /// play negative or long.
    @Test func aWallClockJumpDoesNotChangeSecondsShown() {
        var recorder = PlayRecorder()
        _ = recorder.observe(.started(Self.ref(1, "a"), index: 0, source: "/m/a.mp4"), at: Self.at(0))
        let later = PlayInstant(wall: Self.noon.addingTimeInterval(-3600), monotonic: 1000 + 7)
        let records = recorder.observe(.ended(Self.ref(1, "a")), at: later)
        #expect(records.first?.secondsShown == 7)
    }

    @Test func credentialsInASourceAreMasked() {
        let records = Self.record([
            (0, .started(Self.ref(1, "https://user:***@cdn.example/live.m3u8"), index: 0,
                         source: "https://user:hunter2@cdn.example/live.m3u8?token=abc&q=1")),
            (1, .stopping),
        ])
        #expect(records.first?.source == "https://user:***@cdn.example/live.m3u8?token=***&q=1")
        #expect(records.first?.jsonLine().contains("hunter2") == false)
    }

    @Test func theJSONLineHasTheOffsetAndEscapes() throws {
        let record = PlayRecord(item: 2, source: "/m/\"quoted\".mp4", title: "Line\nbreak", start: Self.noon,
                                end: Self.noon.addingTimeInterval(1.25), secondsShown: 1.25,
                                outcome: .interrupted(.scheduleSwitch))
        let line = record.jsonLine(timeZone: Self.berlin)
        #expect(line == #"{"item":2,"path":"/m/\"quoted\".mp4","title":"Line\nbreak","played_as":"loop","start":"2026-11-23T13:00:00.000+01:00","end":"2026-11-23T13:00:01.250+01:00","seconds":1.250,"outcome":"interrupted","reason":"schedule switch"}"#)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["title"] as? String == "Line\nbreak")
        #expect(record.jsonLine(timeZone: TimeZone(identifier: "UTC")!).contains("\"start\":\"2026-11-23T12:00:00.000+00:00\""))
    }

    @Test func rotationIsBoundedAndRenamesOldestFirst() {
        let rotation = LogRotation(path: "/var/lib/kiosk/plays.jsonl", limit: 1000)
        #expect(!rotation.needsRotation(currentSize: 0, adding: 5000))   // a fresh file takes even a long line
        #expect(!rotation.needsRotation(currentSize: 900, adding: 100))
        #expect(rotation.needsRotation(currentSize: 901, adding: 100))
        #expect(rotation.renames.map { "\($0.from) -> \($0.to)" } == [
            "/var/lib/kiosk/plays.jsonl.2 -> /var/lib/kiosk/plays.jsonl.3",
            "/var/lib/kiosk/plays.jsonl.1 -> /var/lib/kiosk/plays.jsonl.2",
            "/var/lib/kiosk/plays.jsonl -> /var/lib/kiosk/plays.jsonl.1",
        ])
        #expect(rotation.maximumTotalBytes == 4000)
    }

    @Test func sizesAreReadAsPeopleWriteThem() {
        #expect(ByteSizeText.parse("10M") == 10 * 1024 * 1024)
        #expect(ByteSizeText.parse("512k") == 512 * 1024)
        #expect(ByteSizeText.parse("1GiB") == 1 << 30)
        #expect(ByteSizeText.parse("4096") == 4096)
        #expect(ByteSizeText.parse("10MB") == 10 * 1024 * 1024)
        for bad in ["", "M", "-1K", "1.5M", "10T", "ten", "99999999999999999999G", "１K"] {
            #expect(ByteSizeText.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func theReportSumsPerItemAndDayAndNamesBadLines() {
        let lines = [
            #"{"item":0,"path":"/m/a.mp4","title":"A","start":"2026-11-23T23:59:00.000+01:00","end":"x","seconds":10,"outcome":"completed"}"#,
            #"{"item":0,"path":"/m/a.mp4","title":"A","start":"2026-11-23T10:00:00.000+01:00","end":"x","seconds":4.5,"outcome":"interrupted","reason":"next"}"#,
            #"{"item":1,"path":"/m/b.mp4","start":"2026-11-23T10:00:10.000+01:00","end":"x","seconds":0,"outcome":"skipped","reason":"x"}"#,
            "",
            #"{"item":0,"path":"/m/a.mp4","title":"A","start":"2026-11-24T00:00:01.000+01:00","end":"x","seconds":10,"outcome":"completed"}"#,
            #"{"item":0,"path":"/m/a.mp4","start":"2026-11-2"#,
            #"{"item":"zero","path":"/m/a.mp4"}"#,
        ]
        let report = PlayReport(text: lines.joined(separator: "\n"))
        #expect(report.badLines.map(\.number) == [6, 7])
        #expect(report.badLines[0].description.hasPrefix("line 6: not a JSON object"))
        #expect(report.rows.map { "\($0.day) \($0.item) \($0.plays) \($0.completed) \($0.seconds)" } == [
            "2026-11-23 0 2 1 14.5", "2026-11-23 1 0 0 0.0", "2026-11-24 0 1 1 10.0",
        ])
        #expect(report.csv.hasPrefix("day,item,path,title,plays,completed,seconds,playlist,played_as,by\r\n"
                                      + "2026-11-23,0,/m/a.mp4,A,2,1,14.500,,loop,\r\n"))
        #expect(report.table.components(separatedBy: "\n")[1] == "2026-11-23     0      2          1     14.5  A")
        #expect(PlayReport.csvField("a,\"b\"") == "\"a,\"\"b\"\"\"")
    }

    /// A record names the playlist its entry is written in and why it played: an override's
    /// card is told from the loop's entry 0, and the report keeps them apart.
    @Test func recordsSayWhyTheItemPlayed() throws {
        var loop = Self.ref(1, "Menu")
        loop.playlist = "lunch"
        var card = Self.ref(2, "Use the east exit")
        card.playedAs = .override("evacuate")
        var button = Self.ref(3, "Offer")
        button.playlist = "default"
        button.playedAs = .trigger("button")
        let records = Self.record([
            (0, .started(loop, index: 0, source: "/m/menu.mp4")),
            (1, .requested(.showOverride(name: "evacuate", entries: []))),
            (1, .started(card, index: 0, source: "text:evacuate")),
            (3, .requested(.endOverride(ranItsCourse: true))),
            (3, .started(button, index: 0, source: "/m/offer.mp4")),
            (4, .stopping),
        ])
        #expect(records.map(\.playedAs) == [.loop, .override("evacuate"), .trigger("button")])
        #expect(records.map(\.playlist) == ["lunch", nil, "default"])
        let lines = records.map { $0.jsonLine(timeZone: Self.berlin) }
        #expect(lines[0].contains(#""title":"Menu","playlist":"lunch","played_as":"loop","start""#))
        #expect(lines[1].contains(#""title":"Use the east exit","played_as":"override","by":"evacuate","start""#))
        #expect(lines[2].contains(#""playlist":"default","played_as":"trigger","by":"button""#))
        // The same file and index, in the loop and as an override: two rows; a file written
        // before these fields reads as the loop.
        let old = #"{"item":0,"path":"/m/a.mp4","start":"2026-11-23T10:00:00.000+01:00","end":"x","seconds":2,"outcome":"completed"}"#
        let alert = #"{"item":0,"path":"/m/a.mp4","played_as":"override","by":"evacuate","start":"2026-11-23T11:00:00.000+01:00","end":"x","seconds":3,"outcome":"completed"}"#
        let report = PlayReport(text: [old, alert, old].joined(separator: "\n"))
        #expect(report.rows.map { "\($0.plays) \($0.playedAs) \($0.by ?? "-")" } == ["2 loop -", "1 override evacuate"])
        #expect(report.table.components(separatedBy: "\n")[2].hasSuffix("/m/a.mp4 [override evacuate]"))
        // The same entry in two playlists: two rows, told apart by the playlist's name.
        let lunch = #"{"item":0,"path":"/m/a.mp4","playlist":"lunch","played_as":"loop","start":"2026-11-23T12:00:00.000+01:00","end":"x","seconds":3,"outcome":"completed"}"#
        let byList = PlayReport(text: [old.replacingOccurrences(of: #""start""#, with: #""playlist":"default","start""#), lunch]
            .joined(separator: "\n"))
        #expect(byList.table.components(separatedBy: "\n").dropFirst().prefix(2).map { $0.hasSuffix("/m/a.mp4 (lunch)") } == [false, true])
    }

    /// The program says what the entry beginning plays as.
    @Test func theProgramSaysWhatAnEntryPlaysAs() {
        var program = PlaylistProgram()
        #expect(program.playedAs(entryAt: 0) == .loop)
        program.interrupted = PlaylistProgram.Interruption(cursor: PlaylistCursor(entries: [], loopMode: .playlist), position: nil)
        #expect(program.playedAs(entryAt: 0) == .insert)
        program.playingTrigger = PlaylistProgram.PlayingTrigger(trigger: TriggerPlay(name: "button"), entryCount: 2)
        #expect(program.playedAs(entryAt: 1) == .trigger("button"))
        #expect(program.playedAs(entryAt: 2) == .insert)   // an insert queued behind the trigger's entries
        program.playingOverride = "evacuate"
        #expect(program.playedAs(entryAt: 0) == .override("evacuate"))
    }
}

/// kiosk.conf's `logging` and `playback.resume`.
@Suite struct OperationsConfigTests {
    @Test func theKeysAreReadWithDefaults() throws {
        let none = try ScheduleConfigTests.parse("items: [a.mp4]\n")
        #expect(none.logging.proofOfPlayPath == nil && none.logging.proofOfPlayLimit == 10 * 1024 * 1024)
        #expect(none.playback.resume == .off)
        let set = try ScheduleConfigTests.parse("""
            playback: {resume: position}
            logging:
              proof_of_play: plays.jsonl
              proof_of_play_max: 512K
            items: [a.mp4]
            """)
        #expect(set.playback.resume == .position)
        #expect(set.logging.proofOfPlayPath == "/srv/kiosk/plays.jsonl")
        #expect(set.logging.proofOfPlayLimit == 512 * 1024)
    }

    @Test func changesWaitForARestartAndAreNamed() throws {
        let old = try ScheduleConfigTests.parse("items: [a.mp4]\n")
        let new = try ScheduleConfigTests.parse("playback: {resume: item}\nlogging: {proof_of_play: /tmp/p.jsonl}\nitems: [a.mp4]\n")
        let changes = ConfigChanges(from: old, to: new)
        #expect(changes.parts == [.playback, .logging])
        #expect(changes.playbackSettings == [.resume])
        #expect(changes.waitingForRestart == [.logging])
        #expect(new.appliedLive(to: old).logging == old.logging)
    }
}
