import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Testing
@testable import KioskPlayer

/// Switches, inserts and display power through the whole engine on a headless display, read
/// back from the stats file (one line per flip) and the player's snapshot.
@Suite(.serialized) struct PlaylistProgramEngineTests {
    struct Flip: Decodable {
        var item: Int
        var pts: Double
        var video: Bool
        var insert: Bool?
    }

    static func entry(_ name: String, seconds: Double) throws -> PlaylistEntry {
        let path = try MediaFixtures.pattern(name, width: 320, height: 240, seconds: seconds)
        let item = ItemConfig(source: .file(path), location: SourceLocation(file: "test", line: 1, column: 1))
        return try #require(PlaylistExpander().expand([item]).entries.first)
    }

    static func player(_ entries: [PlaylistEntry], stats: String, on display: HeadlessDisplay,
                       log: CapturedLog, powerControl: DisplayPowerControl = .auto) throws -> QueuePlayer {
        var settings = PlayerSettings()
        settings.statsPath = stats
        settings.display.powerControl = powerControl
        return try QueuePlayer(output: display, playlist: PlaylistCursor(entries: entries, loopMode: .playlist),
                               settings: settings, logger: log.logger)
    }

    static func flips(_ path: String) -> [Flip] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.hasSuffix("}") }
            .compactMap { try? JSONDecoder().decode(Flip.self, from: Data($0.utf8)) }
    }

    static func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        KioskTestSupport.waitUntil(seconds, condition)
    }

    /// A player of `entries` on a 320x240 headless display, started, writing the stats file
    /// `name` names; the caller stops it.
    static func started(_ entries: [PlaylistEntry], _ name: String, powerControl: DisplayPowerControl = .auto) throws
        -> (player: QueuePlayer, stats: String, display: HeadlessDisplay, log: CapturedLog) {
        let stats = statsPath(name)
        let display = HeadlessDisplay(size: PixelSize(width: 320, height: 240))
        let log = CapturedLog()
        let player = try player(entries, stats: stats, on: display, log: log, powerControl: powerControl)
        player.start()
        return (player, stats, display, log)
    }

    static func statsPath(_ name: String) -> String {
        let path = NSTemporaryDirectory() + "kiosk-program-\(name)-\(getpid()).jsonl"
        try? FileManager.default.removeItem(atPath: path)
        return path
    }

    @Test func aSwitchAtTheSeamLetsTheItemEndAndShowsNoBlack() throws {
        let a = try Self.entry("program-a.mp4", seconds: 2)
        let b = try Self.entry("program-b.mp4", seconds: 1)
        let (player, stats, _, log) = try Self.started([a], "seam")
        defer { _ = player.stop() }
        #expect(Self.waitUntil(20) { player.currentTime.seconds > 0.3 }, "a plays")
        #expect(player.nextItemTitle == a.title, "a alone loops: a is next")
        let asked = Self.flips(stats).count
        player.send(.switchPlaylist([b], when: .atSeam))
        // The status's `next` knows of the switch waiting for the seam (the web page's "next").
        #expect(Self.waitUntil(20) { player.nextItemTitle == b.title }, "b is next")
        #expect(Self.waitUntil(20) { player.currentItemTitle == b.title }, "b plays after the seam")
        // b is current from the hand-over, which comes before its first flip: a few of its frames.
        let handedOver = Self.flips(stats).count
        #expect(Self.waitUntil(20) { Self.flips(stats).count > handedOver + 10 })
        let after = Array(Self.flips(stats)[asked...])
        #expect(after.filter { !$0.video }.isEmpty, "no filler (black) at the seam")
        // The seam is where the pts goes back: the item before it is a played to its end.
        let seam = try #require(after.indices.dropFirst().first { after[$0].pts < after[$0 - 1].pts })
        #expect(after[seam - 1].pts > 1.9, "a played to its end: \(after[seam - 1].pts)")
        #expect(after[seam].pts < 0.1)
        #expect(log.lines(atLeast: .error).isEmpty, "\(log.lines(atLeast: .error))")
    }

    /// `switch: now`: the item playing is cut at the next frame, not at its end. The request is
    /// taken before each frame, so at most the frame being presented when it came (and, on a
    /// host that descheduled the loop between taking its requests and presenting, one more)
    /// shows the old list.
    @Test func aSwitchNowCutsInWithinAFrame() throws {
        let a = try Self.entry("program-long.mp4", seconds: 6)
        let b = try Self.entry("program-b.mp4", seconds: 1)
        let (player, stats, _, log) = try Self.started([a], "switch-now")
        defer { _ = player.stop() }
        #expect(Self.waitUntil(20) { player.currentTime.seconds > 1.5 }, "a plays")
        let asked = Self.flips(stats).count
        player.send(.switchPlaylist([b], when: .now))
        #expect(Self.waitUntil(20) { player.currentItemTitle == b.title }, "b plays")
        #expect(Self.waitUntil(20) { Self.flips(stats).count > asked + 5 })
        let after = Array(Self.flips(stats)[asked...])
        let cut = try #require(after.firstIndex { $0.pts < 0.2 }, "b's first frame")
        #expect(cut <= 2, "\(cut) frames of a after the switch: \(after.prefix(cut + 1).map(\.pts))")
        #expect(after[..<cut].allSatisfy { $0.pts > 1.4 && $0.video }, "only a's frames, no black, before b")
        #expect(after[cut].video, "b's picture, not a filler")
        #expect(log.lines(atLeast: .error).isEmpty, "\(log.lines(atLeast: .error))")
    }

    @Test func anInsertNowPlaysThenTheItemResumesWhereItWas() throws {
        let a = try Self.entry("program-long.mp4", seconds: 6)
        let b = try Self.entry("program-b.mp4", seconds: 1)
        let (player, stats, _, log) = try Self.started([a], "insert")
        defer { _ = player.stop() }
        #expect(Self.waitUntil(20) { player.currentTime.seconds > 1.5 }, "a plays")
        player.send(.playOnce(.entries([b]), when: .now))
        #expect(Self.waitUntil(20) { player.currentItemTitle == b.title }, "the insert plays")
        #expect(Self.waitUntil(20) { player.nextItemTitle == a.title }, "a, the loop it returns to, is next")
        #expect(Self.waitUntil(20) { player.currentItemTitle == a.title }, "a comes back")
        #expect(Self.waitUntil(20) { player.currentTime.seconds > 2.5 })
        let flips = Self.flips(stats)
        // a up to the interruption, b from 0 to its end, a again from where it was.
        let cuts = flips.indices.dropFirst().filter { abs(flips[$0].pts - flips[$0 - 1].pts) > 0.5 }
        #expect(cuts.count >= 2, "\(cuts)")
        guard cuts.count >= 2 else { return }
        let interruptedAt = flips[cuts[0] - 1].pts
        #expect(interruptedAt > 1.4)
        #expect(flips[cuts[0]].pts < 0.1, "the insert from its start")
        #expect(flips[cuts[1] - 1].pts > 0.9, "the insert to its end")
        #expect(abs(flips[cuts[1]].pts - interruptedAt) < 0.5, "a resumed at \(flips[cuts[1]].pts), left at \(interruptedAt)")
        // Both count from 0 in their own lists: the stats line says which is the insert.
        #expect(flips[cuts[0]..<cuts[1]].allSatisfy { $0.insert == true }, "the insert's flips are marked")
        #expect(flips[..<cuts[0]].allSatisfy { $0.insert == nil } && flips[cuts[1]...].allSatisfy { $0.insert == nil },
                "the loop's are not")
        #expect(log.lines(atLeast: .error).isEmpty, "\(log.lines(atLeast: .error))")
    }

    @Test func displayPowerOffStopsFlipsAndOnResumes() throws {
        let a = try Self.entry("program-long.mp4", seconds: 6)
        let (player, stats, display, log) = try Self.started([a], "power")
        defer { _ = player.stop() }
        #expect(Self.waitUntil(20) { player.currentTime.seconds > 1 }, "a plays")
        player.send(.setDisplayPower(on: false))
        #expect(Self.waitUntil(20) { !display.isPoweredOn }, "the screen is switched off")
        let offCount = Self.flips(stats).count
        let leftAt = try #require(Self.flips(stats).last).pts
        Thread.sleep(forTimeInterval: 1.5)
        #expect(Self.flips(stats).count == offCount, "nothing flipped while off")
        // The loop idles but comes round: the service watchdog is still fed (1 s stall limit).
        let verdict = player.presenterHealth.verdict(at: MonotonicClock().now(), stallLimit: 1)
        #expect(verdict.isHealthy, "\(verdict)")
        #expect(player.currentItemIndex == nil, "nothing is playing (no decoder open)")
        player.send(.setDisplayPower(on: true))
        #expect(Self.waitUntil(20) { Self.flips(stats).count > offCount + 5 }, "frames again")
        #expect(display.isPoweredOn)
        let back = Self.flips(stats)[offCount]
        #expect(abs(back.pts - leftAt) < 0.5, "resumed at \(back.pts), left at \(leftAt)")
        #expect(log.lines(atLeast: .error).isEmpty, "\(log.lines(atLeast: .error))")
    }

    /// `power_control: cec`: the TV is told (KioskCEC, outside the engine); KMS is left alone
    /// and the screen shows black, with nothing decoded.
    @Test func withCECOnlyTheScreenStaysOnAndShowsBlack() throws {
        let a = try Self.entry("program-long.mp4", seconds: 6)
        let (player, _, display, log) = try Self.started([a], "power-cec", powerControl: .cec)
        defer { _ = player.stop() }
        #expect(Self.waitUntil(20) { player.currentTime.seconds > 1 }, "a plays")
        player.send(.setDisplayPower(on: false))
        #expect(Self.waitUntil(20) { !player.isDisplayOn }, "the player says the display is off")
        #expect(display.isPoweredOn, "KMS was not asked")
        let front = try #require(display.frontBuffer)
        #expect(Self.waitUntil(20) { display.frontBuffer.map { $0.pixel(x: 160, y: 120) & 0xFF_FF_FF } == 0 },
                "black on screen, got \(String(front.pixel(x: 160, y: 120), radix: 16))")
        player.send(.setDisplayPower(on: true))
        #expect(Self.waitUntil(20) { player.isDisplayOn && player.currentItemIndex == 0 }, "playing again")
        #expect(log.lines(atLeast: .error).isEmpty, "\(log.lines(atLeast: .error))")
    }
}
