import Foundation
import KioskCore
import KioskPlayer
import Logging

/// Where the bridge publishes: the MQTT client in `kiosk run` (KioskMQTT), a recorder in tests.
/// `publish` must only queue, never wait for the network.
public protocol FleetLink: AnyObject, Sendable {
    func publish(topic: String, payload: String, retain: Bool)
}

/// Fleet control (README, "Fleet control over MQTT"): the control socket's vocabulary over a
/// broker. Commands from `kiosk/<name>/cmd` and the group topics go through a
/// `ControlDispatcher` like the socket's lines, replies go to the reply topic; the player's
/// events become the socket's event lines on the event topic and refresh the retained status.
///
/// Nothing here runs on the caller's thread beyond queueing: events come from the presenter
/// thread, commands and connection news from libmosquitto's network thread, and one thread of
/// the bridge's own does the JSON and the dispatching. While the broker is away nothing is
/// published (libmosquitto would queue it without bound); the status is sent again on reconnect.
public final class FleetBridge: PlayerEventObserver, ServiceEventObserver, @unchecked Sendable {
    // Safe to share: `pending`, `connected`, `running` and `dispatcher` are guarded by `lock`
    // (the dispatcher is used only on the bridge's thread after `start`); the rest is immutable.
    public let topics: FleetTopics
    private let link: any FleetLink
    private let logger: Logger
    private let statusInterval: Double
    private let lock = NSCondition()
    private var pending: [Work] = []
    private var connected = false
    private var running = false
    private var stopped = false
    private var dispatcher: ControlDispatcher?
    private var triggers: (any TriggerControl)?
    private let worker = WorkerThread(name: "kiosk-mqtt")
    /// Home Assistant's discovery prefix (`mqtt.discovery`); nil: no discovery.
    private let discoveryPrefix: String?
    /// Whether screenshots go to the screen topic (`mqtt.screen_interval`): an image entity.
    private let publishesScreen: Bool

    private enum Work {
        case event(PlayerEvent)
        case line(ControlValue)
        case command(String, topic: String)
        /// A command message over the socket's line limit, not kept (4096 of them would be
        /// 256 MiB waiting).
        case overlong(topic: String)
        case play(String)
        case connected
        /// Home Assistant said `online` on its birth topic: the configs again.
        case homeAssistantStarted
    }

    /// At most this many items wait; beyond it the oldest half goes (a broker far away, a
    /// bridge thread starved), as the socket's server does with its events.
    static let pendingLimit = 4096

    /// `statusInterval`: seconds between status refreshes while nothing changes (the `time`).
    /// `discoveryPrefix`: Home Assistant's discovery prefix, to announce the kiosk there.
    /// `publishesScreen`: screenshots are published (FleetScreenPublisher), for an image entity.
    public init(topics: FleetTopics, link: any FleetLink, statusInterval: Double = 10, discoveryPrefix: String? = nil,
                publishesScreen: Bool = false, logger: Logger) {
        self.topics = topics
        self.link = link
        self.statusInterval = statusInterval
        self.discoveryPrefix = discoveryPrefix
        self.publishesScreen = publishesScreen
        self.logger = logger
    }

    /// The topics to subscribe to once connected: the command topics, and Home Assistant's birth
    /// topic with discovery on.
    public var subscriptions: [String] { topics.commandTopics + (discovery(triggers: []).map { [$0.birthTopic] } ?? []) }

    private func discovery(triggers: [String]) -> HomeAssistantDiscovery? {
        discoveryPrefix.map {
            HomeAssistantDiscovery(prefix: $0, topics: topics, version: KioskVersion.text, triggers: triggers, screen: publishesScreen)
        }
    }

    /// Starts answering with `services`, the same value the control socket is given
    /// (`ControlServer.start`). Events posted before wait.
    public func start(_ services: Services) {
        let dispatcher = ControlDispatcher(services: services)
        lock.withLock {
            self.dispatcher = dispatcher
            triggers = services.triggers
            running = true
        }
        worker.start { [self] in serve() }
    }

    /// Publishes the offline status (retained) when connected, and ends the thread.
    public func stop() {
        let wasRunning = lock.withLock { () -> Bool in
            defer { running = false; stopped = true; lock.broadcast() }
            return running
        }
        guard wasRunning else { return }
        worker.join(timeout: 2)
        if isConnected { link.publish(topic: topics.status, payload: FleetStatus.offline(version: KioskVersion.text), retain: true) }
    }

    // MARK: What other threads hand over (queue only)

    /// One of the player's event observers, on the presenter thread.
    public func observe(_ event: PlayerEvent) { enqueue(.event(event)) }

    /// The player's event handler, on the presenter thread.
    public func post(_ event: PlayerEvent) { enqueue(.event(event)) }

    /// An event line that is not the player's (content sync's), published on the event topic
    /// as the socket sends it to its clients. Any thread.
    public func post(line event: ControlValue) { enqueue(.line(event)) }

    /// A command line from one of `topics.commandTopics`, on libmosquitto's thread.
    public func received(command line: String, on topic: String) {
        // As on the socket: an empty message is no request (clearing a retained message on a
        // command topic sends one), and one over the socket's line limit is refused unread.
        if line.utf8.count > ControlConnection.lineLimit { return enqueue(.overlong(topic: topic)) }
        if line.allSatisfy(\.isWhitespace) { return }
        enqueue(.command(line, topic: topic))
    }

    /// A message on one of `subscriptions`, on libmosquitto's thread: a command line, or Home
    /// Assistant's birth message.
    public func received(message payload: String, on topic: String) {
        if let discovery = discovery(triggers: []), topic == discovery.birthTopic {
            if payload == "online" { enqueue(.homeAssistantStarted) }
            return
        }
        received(command: payload, on: topic)
    }

    /// A proof-of-play line (`mqtt.proof_of_play`), from the writer's queue.
    public func recorded(play line: String) { enqueue(.play(line)) }

    /// The broker accepted the connection: the status goes out again at once.
    public func connectionOpened() {
        lock.withLock { connected = true }
        enqueue(.connected)
    }

    public func connectionLost() { lock.withLock { connected = false } }

    private var isConnected: Bool { lock.withLock { connected } }

    private func enqueue(_ work: Work) {
        lock.withLock {
            guard !stopped else { return }
            if pending.count >= Self.pendingLimit { pending.removeFirst(pending.count / 2) }
            pending.append(work)
            lock.signal()
        }
    }

    // MARK: The bridge's thread

    /// What one turn of the bridge's thread works on.
    private struct Batch {
        let work: [Work]
        let dispatcher: ControlDispatcher
        let online: Bool
    }

    /// Waits for work, or until `deadline` (monotonic seconds); nil once stopped.
    private func nextBatch(until deadline: Double) -> Batch? {
        lock.lock()
        defer { lock.unlock() }
        while running && pending.isEmpty {
            let wait = deadline - MonotonicClock().now()
            if wait <= 0 || !lock.wait(until: conditionDeadline(in: wait)) { break }
        }
        guard running, let dispatcher else { return nil }
        let work = pending
        pending.removeAll(keepingCapacity: true)
        return Batch(work: work, dispatcher: dispatcher, online: connected)
    }

    private func serve() {
        var nextStatus = MonotonicClock().now()
        while let batch = nextBatch(until: nextStatus) {
            var statusDue = MonotonicClock().now() >= nextStatus
            for work in batch.work where handle(work, in: batch) { statusDue = true }
            if statusDue {
                if batch.online { link.publish(topic: topics.status, payload: status(from: batch.dispatcher), retain: true) }
                nextStatus = MonotonicClock().now() + statusInterval
            }
        }
    }

    /// Carries out one piece of work; true when the status may have changed.
    private func handle(_ work: Work, in batch: Batch) -> Bool {
        switch work {
        case .event(let event):
            if case .time = event { return false }   // the status carries the time; once a second is noise for a fleet
            if batch.online, let message = batch.dispatcher.message(for: event) {
                link.publish(topic: topics.event, payload: message.json, retain: false)
            }
            return true
        case .line(let message):
            if batch.online { link.publish(topic: topics.event, payload: message.json, retain: false) }
            return false
        case .command(let line, let topic):
            reply(batch.dispatcher.reply(to: line), from: topic)
            return true
        case .overlong(let topic):
            reply(ControlMessage.failure("message longer than \(ControlConnection.lineLimit) bytes: not read", requestID: nil), from: topic)
            return false
        case .play(let line):
            if batch.online { link.publish(topic: topics.plays, payload: line, retain: false) }
            return false
        case .connected, .homeAssistantStarted:
            // Before the status, so that Home Assistant has the entities when their state arrives.
            if batch.online { announce() }
            return true
        }
    }

    /// A command's reply on the reply topic; a refusal is also a line in the log.
    private func reply(_ reply: ControlValue, from topic: String) {
        if case .string(let error)? = reply["error"], error != "success" {
            logger.warning("mqtt: command from \(topic) refused: \(error)")
        }
        link.publish(topic: topics.reply, payload: reply.json, retain: false)
    }

    /// Home Assistant's configs, retained: on each connection and when Home Assistant starts
    /// (it may have lost them). The triggers are those in force now.
    private func announce() {
        let names = lock.withLock { triggers }?.triggers.triggers.map(\.name) ?? []
        for message in discovery(triggers: names)?.messages ?? [] {
            link.publish(topic: message.topic, payload: message.payload, retain: true)
        }
    }

    private func status(from dispatcher: ControlDispatcher) -> String {
        dispatcher.fleetStatus.json
    }
}
