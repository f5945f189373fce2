import Foundation
import Glibc
import KioskCore
import KioskPlayer
import Logging
import SystemPackage

/// The control socket (mpv's JSON IPC, kiosk's vocabulary): one dedicated thread polls the
/// listening socket, every client and a wake-up pipe. Commands go to the player's mailbox (never
/// blocking), replies and events go to per-client bounded buffers, so no client can stall
/// playback. Events come from the presenter thread through `post`, which only queues them.
public final class ControlServer: PlayerEventObserver, ServiceEventObserver, @unchecked Sendable {
    // Safe to share: `pendingEvents` is guarded by `eventLock`; `running` is set once before the
    // thread starts and cleared under `eventLock`; everything else belongs to the server thread.
    public let path: String
    private let listener: FileDescriptor
    private let inode: ino_t
    /// Wakes the serving thread for an event or the stop; closed when the server goes.
    private let wakePipe = WakePipe()
    private let logger: Logger
    private let eventLock = NSLock()
    private var pendingEvents: [PlayerEvent] = []
    /// Ready-made event lines (`post(line:)`), also guarded by `eventLock`.
    private var pendingLines: [ControlValue] = []
    private var running = true
    private let worker = WorkerThread(name: "kiosk-control")
    private var connections: [ControlConnection] = []
    private var dispatcher: ControlDispatcher?
    /// More clients than this are turned away (each still gets an error line).
    static let clientLimit = 512

    /// Creates the socket (mode 0600) at `path`; throws, with one line naming the path and the
    /// reason, when the path belongs to another user or is in use.
    public init(path: String, logger: Logger) throws(ControlSocketError) {
        (listener, inode) = try UnixSocket.listen(at: path)
        guard wakePipe.isUsable else {
            try? listener.close()
            UnixSocket.remove(path, inode: inode)
            throw ControlSocketError("control socket \(path): pipe(): \(UnixSocket.systemError())")
        }
        self.path = path
        self.logger = logger
    }

    /// A server that was never started or stopped (the player could not be made) still
    /// removes its socket file.
    deinit {
        guard running else { return }
        try? listener.close()
        UnixSocket.remove(path, inode: inode)
    }

    /// One of the player's event observers: called on the presenter thread, so it only queues.
    public func observe(_ event: PlayerEvent) { post(event) }

    public func post(_ event: PlayerEvent) {
        eventLock.withLock { if running { Self.queue(event, in: &pendingEvents); wakeLocked() } }
    }

    /// An event line that is not the player's (content sync's `sync_progress`, `sync_failed`,
    /// `sync_switched`): sent to every client as it is. Any thread.
    public func post(line event: ControlValue) {
        eventLock.withLock { if running { Self.queue(event, in: &pendingLines); wakeLocked() } }
    }

    static let pendingEventLimit = 4096

    /// Bounded, should the server thread ever fall behind: the oldest events go first.
    private static func queue<Event>(_ event: Event, in pending: inout [Event]) {
        if pending.count >= pendingEventLimit { pending.removeFirst(pending.count / 2) }
        pending.append(event)
    }

    /// Starts answering with `services` (the same value MQTT is given).
    public func start(_ services: Services) {
        dispatcher = ControlDispatcher(services: services)
        worker.start { [self] in serve() }
        logger.info("control socket at \(path)")
    }

    /// Closes every connection and removes the socket file.
    public func stop() {
        let wasRunning = eventLock.withLock {
            defer { running = false }
            if running { wakeLocked() }
            return running
        }
        guard wasRunning else { return }   // stopped before: the listener is closed
        if worker.hasStarted { worker.join(timeout: 2) }
        try? listener.close()
        UnixSocket.remove(path, inode: inode)
    }

    /// Called with `eventLock` held.
    private func wakeLocked() {
        wakePipe.wake()
    }

    private var isRunning: Bool { eventLock.withLock { running } }

    private func serve() {
        var lastObservation = MonotonicClock.hostTime()
        while isRunning {
            var fds = [pollfd(fd: listener.rawValue, events: Int16(POLLIN), revents: 0),
                       wakePipe.pollEntry]
            for connection in connections {
                var events = connection.isClosing ? 0 : Int16(POLLIN)
                if connection.wantsToWrite { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: connection.fd.rawValue, events: events, revents: 0))
            }
            // The timeout paces observed properties that change without an event (time, frames);
            // with no client nothing is observed, and the thread sleeps until one connects.
            let ready = poll(&fds, nfds_t(fds.count), connections.isEmpty ? -1 : 100)
            if ready < 0 && errno != EINTR { logger.error("control socket: poll(): \(UnixSocket.systemError())"); break }
            wakePipe.drain()
            if fds[0].revents & Int16(POLLIN) != 0 { acceptClients() }
            for (offset, connection) in connections.enumerated() where offset + 2 < fds.count {
                let revents = fds[offset + 2].revents
                if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { serveInput(of: connection) }
            }
            broadcastEvents()
            let now = MonotonicClock.hostTime()
            if now - lastObservation >= MediaTime(value: 1, timescale: 10) {
                lastObservation = now
                sendPropertyChanges()
            }
            for connection in connections where connection.wantsToWrite { connection.flush() }
            dropDeadConnections()
        }
        for connection in connections { connection.close() }
        connections.removeAll()
    }

    private func acceptClients() {
        for _ in 0..<64 {
            guard let fd = try? listener.accept() else { return }
            UnixSocket.makeNonBlocking(fd)
            let connection = ControlConnection(fd: fd)
            if connections.count >= Self.clientLimit {
                connection.send(ControlMessage.failure("too many clients (\(Self.clientLimit)): try again later", requestID: nil).json)
                connection.flush()
                connection.close()
                continue
            }
            connections.append(connection)
        }
    }

    private func serveInput(of connection: ControlConnection) {
        let lines = connection.readLines {
            connection.send(ControlMessage.failure("line longer than \(ControlConnection.lineLimit) bytes: closing the connection",
                                                   requestID: nil).json)
        }
        guard let dispatcher else { return }
        for line in lines where !line.allSatisfy(\.isWhitespace) {
            connection.send(dispatcher.reply(to: line, from: connection).json)
        }
    }

    private func broadcastEvents() {
        let (events, lines) = eventLock.withLock { () -> ([PlayerEvent], [ControlValue]) in
            defer {
                pendingEvents.removeAll(keepingCapacity: true)
                pendingLines.removeAll(keepingCapacity: true)
            }
            return (pendingEvents, pendingLines)
        }
        for line in lines.map(\.json) {
            for connection in connections { connection.send(line) }
        }
        guard let dispatcher, !events.isEmpty else { return }
        for event in events {
            guard let message = dispatcher.message(for: event) else { continue }
            let line = message.json
            for connection in connections { connection.send(line) }
        }
        sendPropertyChanges()
    }

    /// `property_change` events for what each client observes, when the value changed.
    private func sendPropertyChanges() {
        guard let dispatcher else { return }
        var values: [ControlProperty: ControlValue] = [:]
        for connection in connections {
            for (property, last) in connection.observed {
                let value = values[property] ?? dispatcher.value(of: property)
                values[property] = value
                if last != value {
                    connection.observed[property] = value
                    connection.send(ControlValue.object([("event", .string(ControlEventName.propertyChange.rawValue)), ("name", .string(property.rawValue)),
                                                         ("data", value)]).json)
                }
            }
        }
    }

    private func dropDeadConnections() {
        connections.removeAll { connection in
            guard connection.isDead else { return false }
            connection.close()
            return true
        }
    }
}
