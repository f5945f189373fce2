import Foundation
import KioskControl
import KioskCore
import KioskPlayer
import Logging
import Synchronization
import Testing
@testable import KioskService

/// The application layer's services with fakes and real files: the event observers in their
/// stated order, proof of play from the player's events, the config watcher on an editor's
/// rename, and content sync's event lines reaching every observer (socket and MQTT alike).

/// Lines several observers append to, in the order they come.
private final class SharedLog: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// Records the events it is told, tagged with its own name, into a shared log.
private final class RecordingObserver: PlayerEventObserver, ServiceEventObserver {
    let name: String
    let log: SharedLog
    init(_ name: String, log: SharedLog) {
        self.name = name
        self.log = log
    }
    func observe(_ event: PlayerEvent) { log.append(name) }
    func post(line event: ControlValue) { log.append("\(name) \(event.json)") }
}

private func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-service-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Polls `condition` with a deadline meant for a hang, never for a speed.
private func eventually(_ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: 10)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return condition()
}

@Test func theObserversAreToldEachEventInTheOrderTheyWereAdded() {
    let log = SharedLog()
    var listed: [(any PlayerEventObserver)?] = ["socket", "cec", "mqtt", "proof", "resume"].map { RecordingObserver($0, log: log) }
    listed.insert(nil, at: 2)   // a service that is off
    let observers = PlayerEventObservers(listed)
    observers.handler(.finished)
    observers.handler(.displayPower(on: false))
    #expect(log.all == ["socket", "cec", "mqtt", "proof", "resume", "socket", "cec", "mqtt", "proof", "resume"])
}

@Test func proofOfPlayWritesOneLinePerPlayFromThePlayersEvents() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var logging = LoggingConfig()
    logging.proofOfPlayPath = directory + "/plays.jsonl"
    let forwarded = Mutex<[String]>([])
    let writer = ProofOfPlayWriter(logging: logging, logger: Logger(label: "test")) { line in forwarded.withLock { $0.append(line) } }
    let clip = PlayerItemReference(serial: 1, name: "clip", source: "/media/clip.mp4")
    writer.observe(.playback(.itemStarted(clip), item: 0, time: .zero))
    writer.observe(.time(MediaTime(seconds: 1), item: 0))   // not a play: ignored
    writer.observe(.playback(.itemEnded(clip), item: 0, time: .zero))
    writer.finish()
    let lines = try String(contentsOfFile: directory + "/plays.jsonl", encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 1)
    #expect(lines.first?.contains(#""item":0,"path":"/media/clip.mp4""#) == true)
    #expect(lines.first?.contains(#""outcome":"completed""#) == true, "\(lines)")
    #expect(forwarded.withLock { $0 } == lines.map(String.init), "MQTT's plays topic gets the same line")
}

@Test func theConfigWatcherSeesAnEditorsRenameOnceAndIgnoresItsNeighbours() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/kiosk.conf"
    try "items: [a.mp4]\n".write(toFile: path, atomically: false, encoding: .utf8)
    let changes = Mutex(0)
    let watcher = ConfigFileWatcher(path: path, logger: Logger(label: "test")) { changes.withLock { $0 += 1 } }
    watcher.start()
    defer { watcher.stop() }
    Thread.sleep(forTimeInterval: 0.3)   // the watch set up; a change before it would be missed, never counted twice
    try "other".write(toFile: directory + "/notes.txt", atomically: false, encoding: .utf8)
    // As vim and `sed -i` save: a temporary renamed over the file.
    try "items: [b.mp4]\n".write(toFile: directory + "/.kiosk.conf.swp", atomically: false, encoding: .utf8)
    #expect(rename(directory + "/.kiosk.conf.swp", path) == 0)
    #expect(eventually { changes.withLock { $0 } >= 1 })
    Thread.sleep(forTimeInterval: 1)   // a burst is one change: nothing more may follow
    #expect(changes.withLock { $0 } == 1)
}

@Test func contentSyncsEventLinesReachEveryObserverInOrder() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    // A manifest nobody serves: the pass fails, and its sync_failed line goes to both.
    var config = ContentSyncConfig()
    config.manifest = "http://127.0.0.1:9/manifest.json"
    config.directory = directory + "/store"
    config.interval = MediaTime(seconds: 3600)
    let log = SharedLog()
    let observers: [any ServiceEventObserver] = [RecordingObserver("socket", log: log), RecordingObserver("mqtt", log: log)]
    let started = ContentSyncer.start(config, switched: {}, events: observers, logger: Logger(label: "test"))
    let syncer = try #require(started)
    defer { syncer.stop() }
    #expect(eventually { log.all.count >= 2 })
    let lines = log.all
    #expect(lines[0].hasPrefix(#"socket {"event":"sync_failed""#), "\(lines)")
    #expect(lines[1] == lines[0].replacingOccurrences(of: "socket ", with: "mqtt "))
}

/// Records the requests a source sends.
private final class RecordingSink: PlayerRequestSink {
    private let sent = Mutex<[PlayerRequest]>([])
    var requests: [PlayerRequest] { sent.withLock { $0 } }
    func send(_ request: PlayerRequest) { sent.withLock { $0.append(request) } }
    var duration: MediaTime? { nil }
    var rate: Rational { .one }
}

@Test func aReloadThatLeavesTheSchedulesAnswerAsItWasSendsNoSwitch() throws {
    // An entry that covers every moment: its playlist plays whatever the clock says.
    func load(_ lunch: String) throws -> KioskConfig {
        try ConfigLoader.parse(text: """
            items: [/m/a.mp4]
            playlists:
              lunch: [\(lunch)]
            schedule:
              entries:
                - {playlist: lunch, from: "00:00", to: "24:00"}
            """, fileName: "kiosk.conf", baseDirectory: "/m", fileSystem: LocalFileSystem())
    }
    let logger = Logger(label: "test")
    let first = try load("http://cdn.example/lunch.mp4")
    let settings = PlayerSettings(config: first)
    let requests = ScheduleDriver.requests(for: first, defaultEntries: [], logger: logger)
    let look = ScheduleDriver.firstLook(settings.schedule, requests: requests)
    let sink = RecordingSink()
    let driver = ScheduleDriver(settings: settings.schedule, ticker: look.ticker, requests: requests, sink: sink, logger: logger)
    driver.start()
    defer { driver.stop() }
    // The same answer after a reload (a window elsewhere edited): nothing is sent.
    driver.replace(settings.schedule, requests: ScheduleDriver.requests(for: first, defaultEntries: [], logger: logger))
    Thread.sleep(forTimeInterval: 1.5)   // more than a tick: a switch would have been sent by now
    #expect(!sink.requests.contains { if case .switchPlaylist = $0 { true } else { false } }, "\(sink.requests)")
    // The playlist's entries changed: its new entries are switched to.
    let second = try load("http://cdn.example/lunch-2.mp4")
    driver.replace(PlayerSettings(config: second).schedule, requests: ScheduleDriver.requests(for: second, defaultEntries: [], logger: logger))
    #expect(eventually { sink.requests.contains { if case .switchPlaylist(let entries, _) = $0 { entries.count == 1 } else { false } } })
}
