import Foundation
import Glibc
import KioskCore
import KioskGPIO
import KioskTestSupport
import Logging
import Synchronization
import Testing
@testable import KioskService

/// The kiosk-gpio watcher with pipes for lines: a debounced edge sends the trigger's request (the
/// one its key sends), a line that cannot be opened is one error line and quiet retries, a reload
/// is followed, a line lost while held is opened again. libgpiod itself is the bed's
/// (Tests/System/test_gpio_triggers.py, gpio-sim).

private let location = SourceLocation(file: "kiosk.conf", line: 1, column: 1)
private let button = GPIOTriggerLine(chip: "gpiochip0", line: .offset(3))

private func table(_ line: GPIOTriggerLine?) -> TriggerSet {
    let entries = ["a", "b"].map { name in
        PlaylistEntry(media: .file("/m/" + name), item: ItemConfig(source: .file("/m/" + name), location: location), itemIndex: 0)
    }
    let config = TriggerConfig(name: "button", keys: ["KEY_F1"], gpio: line, content: .item(1), location: location)
    return TriggerSet([config], defaultEntries: entries, playlists: [:]) { _ in ([], []) }
}

/// A line whose edges the test writes: a pipe makes its descriptor readable.
private final class PipeLine: GPIOEdgeSource, @unchecked Sendable {
    // Safe to share: `queued`, `reads` and `failNext` are guarded by `lock`.
    private let lock = NSLock()
    private var queued: [GPIOEdgeEvent] = []
    private var readCount = 0
    private var failNext = false
    private var ends: [Int32] = [-1, -1]

    init() { _ = pipe(&ends) }
    deinit { close(ends[0]); close(ends[1]) }

    var fileDescriptor: Int32 { ends[0] }
    var howRead: String { "a pipe" }
    /// How many times the watcher read: when it grows past a push, that push was handled.
    var reads: Int { lock.withLock { readCount } }

    func push(_ edges: [(rising: Bool, time: Double)], failing: Bool = false) {
        lock.withLock {
            queued += edges.map { GPIOEdgeEvent(rising: $0.rising, time: $0.time) }
            failNext = failing
        }
        _ = write(ends[1], "x", 1)
    }

    func readEdges() throws -> [GPIOEdgeEvent] {
        var byte: UInt8 = 0
        _ = read(ends[0], &byte, 1)
        return try lock.withLock {
            readCount += 1
            if failNext {
                failNext = false
                throw GPIOError(chip: "/dev/gpiochip0", line: "line 3", what: "cannot read its edges", errno: ENODEV)
            }
            defer { queued = [] }
            return queued
        }
    }

    /// Pushes `edges` and waits until the watcher has handled them (a second, empty push was read).
    func pushAndSettle(_ edges: [(rising: Bool, time: Double)]) -> Bool {
        let before = reads
        push(edges)
        guard waitUntil(5, { self.reads > before }) else { return false }
        push([])
        return waitUntil(5) { self.reads > before + 1 }
    }
}

/// Opens lines from a list, in turn; a nil in it is a failure (a chip not there yet).
private final class Opener: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [PipeLine?]
    private var asked: [GPIOTriggerLine] = []

    init(_ results: [PipeLine?]) { self.results = results }

    var lines: [GPIOTriggerLine] { lock.withLock { asked } }

    func open(_ line: GPIOTriggerLine) throws -> any GPIOEdgeSource {
        let next = lock.withLock { () -> PipeLine?? in
            asked.append(line)
            return results.isEmpty ? .some(nil) : results.removeFirst()
        }
        guard let source = next ?? nil else {
            throw GPIOError(chip: line.chip, what: "no such chip", detail: "no GPIO chips in /dev")
        }
        return source
    }
}

private final class RecordingSink: PlayerRequestSink {
    private let sent = Mutex<[PlayerRequest]>([])
    var requests: [PlayerRequest] { sent.withLock { $0 } }
    func send(_ request: PlayerRequest) { sent.withLock { $0.append(request) } }
    var duration: MediaTime? { nil }
    var rate: Rational { .one }
}

@Suite("GPIO trigger watcher")
struct GPIOTriggerWatcherTests {
    @Test func aDebouncedEdgeFiresTheTriggersRequestAsItsKeyWould() throws {
        let line = PipeLine()
        let opener = Opener([line])
        let sink = RecordingSink()
        let log = CapturedLog()
        let triggers = LiveTriggers(table(button))
        let watcher = GPIOTriggerWatcher(triggers: triggers, sink: sink, logger: log.logger, open: opener.open)
        watcher.start()
        defer { watcher.stop() }
        #expect(log.waitFor { $0.hasPrefix("notice: gpio: trigger 'button' reads gpiochip0 line 3: falling edge, debounce 0.05 s") },
                "\(log.formatted)")
        // A press that bounces, and its release: one request.
        #expect(line.pushAndSettle([(false, 1.0), (true, 1.01), (false, 1.02), (true, 1.5), (false, 1.51)]))
        let keyRequest = try #require(triggers.triggers.trigger(forKey: "KEY_F1")?.request)
        #expect(sink.requests == [keyRequest])
        // The next press, quiet before it: a second.
        #expect(line.pushAndSettle([(false, 3.0)]))
        #expect(sink.requests == [keyRequest, keyRequest])
        #expect(log.formatted.filter { $0.contains("gpio: trigger 'button' from gpiochip0 line 3 (falling edge)") }.count == 2)
    }

    @Test func aLineThatCannotBeOpenedIsOneErrorLineThenQuietRetries() {
        let line = PipeLine()
        let opener = Opener([nil, nil, nil, line])
        let sink = RecordingSink()
        let log = CapturedLog()
        let watcher = GPIOTriggerWatcher(triggers: LiveTriggers(table(button)), sink: sink, logger: log.logger,
                                         retryInterval: 0.05, open: opener.open)
        watcher.start()
        defer { watcher.stop() }
        #expect(log.waitFor { $0.contains("reads gpiochip0 line 3 now") }, "\(log.formatted)")
        let errors = log.lines(atLeast: .error)
        #expect(errors == ["gpio: trigger 'button' (gpiochip0 line 3): gpiochip0: no such chip (no GPIO chips in /dev); "
                           + "playback goes on, trying again every 0.05 s"], "one line for four tries: \(errors)")
        #expect(opener.lines.count == 4)
        #expect(line.pushAndSettle([(false, 1.0)]))
        #expect(sink.requests.count == 1)
    }

    @Test func aReloadIsFollowed() {
        let first = PipeLine(), second = PipeLine()
        let opener = Opener([first, second])
        let sink = RecordingSink()
        let log = CapturedLog()
        let triggers = LiveTriggers(table(button))
        let watcher = GPIOTriggerWatcher(triggers: triggers, sink: sink, logger: log.logger, open: opener.open)
        watcher.start()
        defer { watcher.stop() }
        #expect(log.waitFor { $0.contains("reads gpiochip0 line 3") })
        // The trigger keeps its key but loses its line: the line is let go, edges fire nothing.
        _ = triggers.replace(with: table(nil))
        #expect(log.waitFor { $0 == "notice: gpio: trigger 'button' no longer reads gpiochip0 line 3" }, "\(log.formatted)")
        // A new line: opened, and its edges fire.
        var moved = button
        moved.line = .name("BUTTON")
        moved.edge = .rising
        _ = triggers.replace(with: table(moved))
        #expect(log.waitFor { $0.contains("reads gpiochip0 line 'BUTTON': rising edge") }, "\(log.formatted)")
        #expect(opener.lines == [button, moved])
        #expect(second.pushAndSettle([(false, 1.0), (true, 2.0)]))
        #expect(sink.requests.count == 1)
    }

    @Test func aLineLostWhileHeldIsSaidOnceAndOpenedAgain() {
        let first = PipeLine(), second = PipeLine()
        let opener = Opener([first, second])
        let sink = RecordingSink()
        let log = CapturedLog()
        let watcher = GPIOTriggerWatcher(triggers: LiveTriggers(table(button)), sink: sink, logger: log.logger,
                                         retryInterval: 0.05, open: opener.open)
        watcher.start()
        defer { watcher.stop() }
        #expect(log.waitFor { $0.contains("reads gpiochip0 line 3") })
        first.push([(false, 1.0)], failing: true)
        #expect(log.waitFor { $0.contains("reads gpiochip0 line 3 now") }, "\(log.formatted)")
        #expect(log.lines(atLeast: .error) == ["gpio: trigger 'button' (gpiochip0 line 3): /dev/gpiochip0 line 3: cannot read its edges: "
                                               + "No such device; playback goes on, trying again every 0.05 s"])
        #expect(second.pushAndSettle([(false, 1.0)]))
        #expect(sink.requests.count == 1)
    }
}
