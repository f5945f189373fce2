import Foundation
import Glibc
import KioskCore
import KioskGPIO
import Logging

/// What the watcher reads of one requested line: a descriptor to poll and the edges waiting.
/// `GPIOLineRequest` (libgpiod) is one; tests hand it pipes.
package protocol GPIOEdgeSource: AnyObject {
    var fileDescriptor: Int32 { get }
    /// The edges that wait; called when the descriptor is readable.
    func readEdges() throws -> [GPIOEdgeEvent]
    /// Who debounces and through what, for the log line saying the line is read.
    var howRead: String { get }
}

extension GPIOLineRequest: GPIOEdgeSource {}

/// kiosk.conf's triggers with `gpio:`: one thread (`kiosk-gpio`) holds each trigger's line,
/// polls them all, and fires a trigger on a debounced edge (`GPIOEdgeDebouncer`) the way a key
/// does, by sending its `request` to the player. The table is `LiveTriggers`', read again when
/// a reload replaces it (the thread is woken), so a line added, dropped or changed is followed at once.
///
/// A line that cannot be had (no such chip yet, a line held by another program, no line of
/// that name) is one error line naming the trigger, chip and line; playback goes on, and the
/// line is tried again every `retryInterval` seconds (5) without another word until it opens (a
/// chip whose driver loads late, a HAT plugged in). A line that fails while held (its chip
/// removed) is the same: one line, then quiet retries.
package final class GPIOTriggerWatcher: @unchecked Sendable {
    // Safe to share: the thread is; everything else is touched by the watch thread only.
    package typealias Opener = (GPIOTriggerLine) throws -> any GPIOEdgeSource

    /// Seconds between two tries of a line that could not be opened: a chip that appears is
    /// used within this, and a box without it pays one open(2) of /dev now and then.
    package static let defaultRetryInterval = 5.0

    private struct Wanted: Equatable {
        var trigger: String
        var line: GPIOTriggerLine
    }

    private struct Held {
        var wanted: Wanted
        var source: any GPIOEdgeSource
        var debouncer: GPIOEdgeDebouncer
    }

    private let triggers: LiveTriggers
    private let sink: any PlayerRequestSink
    private let logger: Logger
    private let open: Opener
    private let retryInterval: Double
    private let thread = StoppableThread(name: "kiosk-gpio")
    private var wanted: [Wanted] = []
    private var held: [Held] = []
    /// Lines not open, with when to try again.
    private var waiting: [(wanted: Wanted, due: Double)] = []

    package init(triggers: LiveTriggers, sink: any PlayerRequestSink, logger: Logger,
                 retryInterval: Double = GPIOTriggerWatcher.defaultRetryInterval,
                 open: @escaping Opener = GPIOTriggerWatcher.openLine) {
        self.triggers = triggers
        self.sink = sink
        self.logger = logger
        self.open = open
        self.retryInterval = retryInterval
    }

    package func start() {
        triggers.whenReplaced { [thread] in thread.nudge() }
        thread.start { [self] in watch() }
    }

    package func stop() { thread.stop() }

    /// The libgpiod line `line` names, requested for edges; the kernel debounces too where it can.
    package static func openLine(_ line: GPIOTriggerLine) throws -> any GPIOEdgeSource {
        let chip = try GPIOChip(path: try GPIOChip.resolve(line.chip))
        let offset: Int
        switch line.line {
        case .offset(let number):
            let count = try chip.facts().lineCount
            guard number < count else {
                throw GPIOError(chip: chip.path, line: "\(line.line)", what: "no such line",
                                detail: "the chip has \(count) line\(count == 1 ? "" : "s"), 0 to \(count - 1)")
            }
            offset = number
        case .name(let name):
            offset = try chip.offset(ofLineNamed: name)
        }
        return try chip.requestEdges(line: offset, kernelDebounce: line.debounce, consumer: "kiosk")
    }

    private var goingOn: String {
        let seconds = retryInterval == retryInterval.rounded() ? String(Int(retryInterval)) : String(retryInterval)
        return "playback goes on, trying again every \(seconds) s"
    }

    private var now: Double { ProcessInfo.processInfo.systemUptime }

    private func watch() {
        while !thread.shouldStop {
            follow(triggers.triggers)
            retryDue()
            waitAndFire(seconds: waiting.map(\.due).min().map { $0 - now })
        }
        held.removeAll()
    }

    /// Opens the lines a new table names and lets go of the ones it no longer does.
    private func follow(_ table: TriggerSet) {
        let new = table.triggers.compactMap { trigger in trigger.config.gpio.map { Wanted(trigger: trigger.name, line: $0) } }
        guard new != wanted else { return }
        wanted = new
        for line in held where !new.contains(line.wanted) {
            logger.notice("gpio: trigger '\(line.wanted.trigger)' no longer reads \(line.wanted.line)")
        }
        held.removeAll { !new.contains($0.wanted) }
        waiting.removeAll { !new.contains($0.wanted) }
        for line in new where !held.contains(where: { $0.wanted == line }) && !waiting.contains(where: { $0.wanted == line }) {
            if !tryOpen(line) { waiting.append((line, now + retryInterval)) }
        }
    }

    private func retryDue() {
        let time = now
        let due = waiting.filter { $0.due <= time }
        guard !due.isEmpty else { return }
        waiting.removeAll { $0.due <= time }
        for entry in due where !tryOpen(entry.wanted, retry: true) {
            waiting.append((entry.wanted, time + retryInterval))
        }
    }

    /// True when the line is held now. A first failure is logged; a retry's is not.
    private func tryOpen(_ line: Wanted, retry: Bool = false) -> Bool {
        do {
            let source = try open(line.line)
            held.append(Held(wanted: line, source: source, debouncer: GPIOEdgeDebouncer(line.line)))
            let how = "\(line.line.edge.rawValue) edge\(line.line.activeLow ? ", active low" : ""), debounce \(line.line.debounce) s"
            logger.notice("gpio: trigger '\(line.trigger)' reads \(line.line)\(retry ? " now" : ""): \(how) (\(source.howRead))")
            return true
        } catch {
            if !retry {
                logger.error("gpio: trigger '\(line.trigger)' (\(line.line)): \(error); \(goingOn)")
            }
            return false
        }
    }

    /// One wait on every held line and the wake pipe (a stop, a new table), at most `seconds`
    /// (nil: until one of them); each debounced edge fires its trigger.
    private func waitAndFire(seconds: Double?) {
        var pollers = held.map { pollfd(fd: $0.source.fileDescriptor, events: Int16(POLLIN), revents: 0) }
        guard thread.poll(&pollers, seconds: seconds) else { return }
        var lost: [Int] = []
        for (index, poller) in pollers.enumerated() where poller.revents != 0 {
            do {
                guard poller.revents & Int16(POLLIN) != 0 else {
                    throw GPIOError(chip: held[index].wanted.line.chip, what: "the chip went away")
                }
                for edge in try held[index].source.readEdges() {
                    if let fired = held[index].debouncer.firedEdge(rising: edge.rising, at: edge.time) {
                        fire(held[index].wanted, edge: fired)
                    }
                }
            } catch {
                let line = held[index].wanted
                logger.error("gpio: trigger '\(line.trigger)' (\(line.line)): \(error); \(goingOn)")
                lost.append(index)
            }
        }
        for index in lost.reversed() {
            waiting.append((held[index].wanted, now + retryInterval))
            held.remove(at: index)
        }
    }

    /// The trigger as the table in force has it, fired as its key would be.
    private func fire(_ line: Wanted, edge: GPIOTriggerLine.Edge) {
        guard let trigger = triggers.triggers.trigger(named: line.trigger) else { return }
        if let command = trigger.commandLine {
            logger.notice("gpio: trigger '\(trigger.name)' from \(line.line) (\(edge.rawValue) edge): \(command)")
            if let refusal = triggers.runCommand(command) { logger.warning("gpio: trigger '\(trigger.name)': \(refusal)") }
            return
        }
        guard let request = trigger.request else {
            logger.warning("gpio: trigger '\(trigger.name)' has nothing to play: \(trigger.problem ?? "no entries")")
            return
        }
        logger.notice("gpio: trigger '\(trigger.name)' from \(line.line) (\(edge.rawValue) edge)")
        sink.send(request)
    }
}
