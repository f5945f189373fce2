import Foundation
import KioskControl
import KioskCore
import KioskMQTT
import KioskPlayer
import Logging

/// kiosk.conf's `mqtt` for `kiosk run`: one libmosquitto client and the bridge that speaks the
/// control socket's vocabulary over it (KioskControl's `FleetBridge`). The broker is never
/// waited for: the connection lives on a thread of its own, which runs libmosquitto's loop
/// (reconnecting with backoff, 1, 2, 4 ... 60 s), and every problem (unreachable, refused, TLS) is
/// one line naming the broker and the reason, once per outage; playback goes on regardless.
package final class FleetConnection: @unchecked Sendable {
    // Safe to share: the client is thread-safe; `outage`, `everConnected`, `connected` and `retryDelay` are
    // guarded by `lock`, `stopping` by `stopSignal`; `networkThread` is set in `start` before `stop` can
    // run (both on the main thread); the rest is immutable after init.
    package let bridge: FleetBridge
    private let client: MQTTClient
    private let config: MQTTConfig
    private let broker: MQTTBroker
    private let logger: Logger
    private let lock = NSLock()
    /// nil while connected (or before the first try); else the kind of trouble last logged, so a
    /// broker that stays away, or refuses every retry, is one line and not one per attempt.
    private var outage: String?
    private var everConnected = false
    /// Between the broker's CONNACK and the connection's end.
    private var connected = false
    private var networkThread: WorkerThread?
    /// Connections accepted since the start (guarded by `lock`).
    private var connections = 0
    /// Home Assistant's screen image, with discovery (guarded by `lock`).
    private var screen: FleetScreenPublisher?
    /// The wait before kiosk's next try (`network`); back to 1 s once connected.
    private var retryDelay = 1.0
    /// When the broker last accepted kiosk, and how many connections in a row it ended within
    /// `shortLived` of that (guarded by `lock`): a broker that ends each connection at once
    /// (another client with kiosk's id takes the session over, then loses it to kiosk's) made
    /// two lines a second forever, with no backoff (libmosquitto's delay resets once connected).
    private var acceptedAt: Double?
    private var shortInARow = 0
    private static let shortLived = 10.0
    /// Where a connection accepted while flapping is looked at again, `shortLived` later.
    private let flappingQueue = DispatchQueue(label: "kiosk-mqtt-flapping")
    /// Set by `stop`; wakes the network thread's wait between two tries.
    private let stopSignal = NSCondition()
    private var stopping = false

    /// The connection kiosk.conf asks for; nil when `mqtt` is off, or when it cannot be set up
    /// at all (an unreadable password file or TLS file: logged, and kiosk plays without it).
    package static func make(_ config: MQTTConfig, logger: Logger) -> FleetConnection? {
        guard let broker = config.broker else { return nil }
        let topics = FleetTopics(name: config.name ?? FleetTopics.defaultName(hostName: Self.hostName()), groups: config.groups)
        do {
            return try FleetConnection(config: config, broker: broker, topics: topics, logger: logger)
        } catch {
            logger.error("mqtt: \(broker): \(error); fleet control is off, playback goes on")
            return nil
        }
    }

    private init(config: MQTTConfig, broker: MQTTBroker, topics: FleetTopics, logger: Logger) throws {
        self.config = config
        self.broker = broker
        self.logger = logger
        let box = WeakConnection()
        client = try MQTTClient(clientID: "kiosk-\(topics.name)", handlers: MQTTHandlers(
            connected: { box.connection?.connected($0) },
            disconnected: { box.connection?.disconnected($0) },
            received: { box.connection?.bridge.received(message: $0.text, on: $0.topic) }))
        bridge = FleetBridge(topics: topics, link: box, discoveryPrefix: config.discovery,
                             publishesScreen: config.discovery != nil && config.screenInterval != nil, logger: logger)
        box.connection = self
        try client.setWill(topic: topics.status, payload: FleetStatus.offline(version: KioskVersion.text), qos: config.qos, retain: true)
        if let username = config.username {
            try client.setCredentials(username: username, password: try config.passwordFile.map(Self.readPassword) ?? config.password)
        }
        if broker.usesTLS {
            // libmosquitto says only "invalid function arguments" for a file it cannot open.
            for (key, path) in [("ca_file", config.caFile), ("cert_file", config.certFile), ("key_file", config.keyFile)] {
                if let path, !FileManager.default.isReadableFile(atPath: path) {
                    throw FleetSetupError("cannot read \(key) \(path)")
                }
            }
            try client.setTLS(caFile: config.caFile, caPath: config.caFile == nil ? "/etc/ssl/certs" : nil,
                              certFile: config.certFile, keyFile: config.keyFile)
        }
        try client.setReconnectDelay(initial: 1, maximum: 60)
    }

    /// Starts the bridge with `services` (the control socket's value), then connects on a
    /// thread of its own.
    package func start(_ services: Services) {
        bridge.start(services)
        if config.discovery != nil, let interval = config.screenInterval {
            let player = services.player
            let screen = FleetScreenPublisher(interval: Double(interval), topic: bridge.topics.screen,
                                              shoot: { try player.saveScreenshot(to: $0) },
                                              publish: { [weak self] in self?.publish(topic: $0, bytes: $1, retain: true) },
                                              connection: { [weak self] in self?.connectionState ?? (false, 0) }, logger: logger)
            lock.withLock { self.screen = screen }
            screen.start()
        }
        logger.info("mqtt: connecting to \(broker) as \(bridge.topics.root)")
        networkThread = WorkerThread.start(name: "kiosk-mqtt-net") { [self] in network() }
    }

    /// The connection's thread. libmosquitto's loop (`runLoop`) reconnects by itself, with its
    /// delay, after a lost connection or a refusal; kiosk retries what it does not: a first
    /// connect that failed (libmosquitto 2.0 never retries one: a broker that came up later was
    /// never reached) and a loop that ended on an error (a TLS failure ends
    /// `mosquitto_loop_start`'s thread without a word). Same backoff: 1, 2, 4 ... 60 s.
    private func network() {
        while !isStopping {
            if let error = client.connect(host: broker.host, port: broker.port, keepalive: config.keepalive) {
                noteOutage("cannot reach \(broker): \(describe(error)); retrying with backoff, playback goes on", reason: describe(error))
            } else if let error = client.runLoop() {
                if isStopping { return }
                noteOutage("the connection to \(broker) failed: \(describe(error)); retrying with backoff, playback goes on",
                           reason: describe(error))
            } else {
                return   // kiosk's own disconnect
            }
            let delay = lock.withLock { () -> Double in
                defer { retryDelay = min(retryDelay * 2, 60) }
                return retryDelay
            }
            stopSignal.lock()
            if !stopping { _ = stopSignal.wait(until: conditionDeadline(in: delay)) }
            stopSignal.unlock()
        }
    }

    private func describe(_ error: MQTTError) -> String {
        error.isTLS ? "\(error.reason) (check ca_file, cert_file and key_file against the broker's certificate)" : error.reason
    }

    private var isStopping: Bool { stopSignal.withLock { stopping } }

    /// The offline status, a clean disconnect (the broker drops the will), the thread ended.
    package func stop() {
        stopSignal.withLock {
            stopping = true
            stopSignal.broadcast()
        }
        lock.withLock { screen }?.stop()
        bridge.stop()
        client.disconnect()
        // Connected, the loop ends once the DISCONNECT is out (0.1 s here). Between two tries
        // libmosquitto sleeps its reconnect delay without a way to wake it (up to 60 s), and a
        // stop must be done within a second: the thread is then left to the process's exit.
        networkThread?.join(timeout: 0.5)
    }

    /// Whether the broker has kiosk connected now (the health's `kiosk_mqtt_connected`).
    package var isConnected: Bool { lock.withLock { connected } }

    /// Connected now, and how many connections were accepted so far.
    private var connectionState: (connected: Bool, serial: Int) { lock.withLock { (connected, connections) } }

    /// Proof-of-play lines for the plays topic (`mqtt.proof_of_play`).
    package var playRecorded: @Sendable (String) -> Void {
        { [bridge] line in bridge.recorded(play: line) }
    }


    /// The bridge's link (through `WeakConnection`): queued with kiosk.conf's qos.
    package func publish(topic: String, payload: String, retain: Bool) {
        do {
            try client.publish(topic: topic, payload: payload, qos: config.qos, retain: retain)
        } catch {
            logger.debug("mqtt: \(error)")   // the connection's own line says why it is down
        }
    }

    /// A payload that is not text (the screen's PNG), queued like the bridge's.
    package func publish(topic: String, bytes: [UInt8], retain: Bool) {
        do {
            try client.publish(topic: topic, bytes: bytes, qos: config.qos, retain: retain)
        } catch {
            logger.debug("mqtt: \(error)")
        }
    }

    // MARK: libmosquitto's network thread

    private func connected(_ result: MQTTConnectResult) {
        switch result {
        case .accepted:
            let (again, flapping, serial) = lock.withLock { () -> (Bool, Bool, Int) in
                let flapping = shortInARow >= 2
                // While flapping its line stands: no "connected again" a second.
                defer { if !flapping { outage = nil }; everConnected = true; connected = true; retryDelay = 1 }
                acceptedAt = MonotonicClock().now()
                connections += 1
                return (everConnected, flapping, connections)
            }
            if !flapping {
                logger.notice("mqtt: connected to \(broker)\(again ? " again" : "") as \(bridge.topics.root)")
            } else {
                flappingQueue.asyncAfter(deadline: .now() + Self.shortLived + 0.1) { [weak self] in self?.noteFlappingOver(serial: serial) }
            }
            for topic in bridge.subscriptions {
                do { try client.subscribe(topic: topic, qos: config.qos) } catch { logger.error("mqtt: \(broker): \(error)") }
            }
            bridge.connectionOpened()
        case .refused(let reason):
            noteOutage("\(broker) refused the connection: \(reason); retrying with backoff, playback goes on", reason: "refused: \(reason)")
        }
    }

    private func disconnected(_ reason: String?) {
        bridge.connectionLost()
        let wasConnected = lock.withLock { () -> Bool in
            defer { connected = false }
            return connected
        }
        guard let reason else { return }   // kiosk's own disconnect
        let shortInARow = wasConnected ? noteConnectionLength() : 0
        if shortInARow >= 2 {
            // Backoff, as for a broker away: 2, 4 ... 60 s between these connections.
            let delay = UInt32(min(60, 1 << min(shortInARow - 1, 6)))
            try? client.setReconnectDelay(initial: delay, maximum: 60)
            noteOutage("\(broker) ends each connection within \(Int(Self.shortLived)) s of accepting it (\(shortInARow) in a row): "
                       + "is another client connected with kiosk's id 'kiosk-\(bridge.topics.name)'? Each kiosk needs a name of its own "
                       + "(mqtt.name); reconnecting with backoff, playback goes on", reason: "flapping")
        } else if wasConnected {
            noteOutage("lost the connection to \(broker): \(reason); reconnecting with backoff, playback goes on", reason: "lost")
        } else {
            // A TCP connect that failed in the loop (libmosquitto connects without blocking),
            // or the broker closing the connection it just refused.
            noteOutage("cannot reach \(broker): \(reason); retrying with backoff, playback goes on", reason: reason,
                       unlessRefused: true)
        }
    }

    /// A connection accepted while flapping that lasted `shortLived`: the flapping is over (its
    /// line stood alone: nothing said the broker had kiosk back).
    private func noteFlappingOver(serial: Int) {
        let now = MonotonicClock().now()
        let over = lock.withLock { () -> Bool in
            // Measured as `noteConnectionLength` measures it (Dispatch's clock is another one).
            guard connected, connections == serial, shortInARow > 0, let acceptedAt, now - acceptedAt >= Self.shortLived else { return false }
            shortInARow = 0
            outage = nil
            return true
        }
        // libmosquitto's delay is left to its own thread (`noteConnectionLength` at the end).
        guard over else { return }
        logger.notice("mqtt: connected to \(broker) again as \(bridge.topics.root): the connection has lasted \(Int(Self.shortLived)) s")
    }

    /// A connection ended: how many in a row ended soon after they were accepted (0: this one
    /// lasted, and the reconnect delay is libmosquitto's 1 s again).
    private func noteConnectionLength() -> Int {
        let now = MonotonicClock().now()
        let (count, lasted) = lock.withLock { () -> (Int, Bool) in
            let short = acceptedAt.map { now - $0 < Self.shortLived } ?? false
            shortInARow = short ? shortInARow + 1 : 0
            return (shortInARow, !short)
        }
        if lasted { try? client.setReconnectDelay(initial: 1, maximum: 60) }
        return count
    }

    /// One line per kind of trouble (`reason`: the same TLS failure at the connect and in the
    /// loop is one) until the broker accepts kiosk again.
    /// `unlessRefused`: a connection's end, which follows each refusal (the broker closes the
    /// connection it refused): the refusal's line says why.
    private func noteOutage(_ text: String, reason: String, unlessRefused: Bool = false) {
        let isNew = lock.withLock { () -> Bool in
            guard outage != reason, !(unlessRefused && outage?.hasPrefix("refused") == true) else { return false }
            outage = reason
            return true
        }
        if isNew { logger.error("mqtt: \(text)") }
    }

    private static func readPassword(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw FleetSetupError("cannot read the password file \(path)")
        }
        return String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The client's handlers and the bridge's link are made before the connection they call into
/// exists (both are needed at its init); this holds the connection once it does, without a
/// retain cycle.
private final class WeakConnection: FleetLink, @unchecked Sendable {
    // Safe to share: set once, before libmosquitto's thread or the bridge's can use it.
    package weak var connection: FleetConnection?

    package func publish(topic: String, payload: String, retain: Bool) {
        connection?.publish(topic: topic, payload: payload, retain: retain)
    }
}

package struct FleetSetupError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
