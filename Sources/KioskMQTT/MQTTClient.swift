import CMosquitto
import Foundation
import SystemPackage

/// A thin typed wrapper of one libmosquitto client (MQTT 3.1.1). libmosquitto owns the
/// protocol, TLS, keepalive and reconnection; kiosk only says where to connect and what to
/// send. Its network loop (`runLoop`, libmosquitto's `mosquitto_loop_forever`, the body of the
/// thread `mosquitto_loop_start` would start) calls the handlers, so they must only hand work
/// over, and `publish` only queues: nothing here waits for the network except `connect` and
/// (name lookup and the TCP connect), which runs on the loop's thread.
public final class MQTTClient: @unchecked Sendable {
    // Safe to share: libmosquitto locks its own state (`mosquitto_threaded_set`), so publish
    // and disconnect may come from any thread while the loop runs on its own; `handlers` is
    // immutable.
    private let handle: OpaquePointer
    /// libmosquitto's calls (opened on first use: CMosquitto.h).
    private let api: kiosk_mosquitto_api
    private let handlers: Unmanaged<MQTTHandlers>

    /// A client that says it is `clientID` to the broker (one per kiosk: a second connection
    /// with the same ID makes the broker drop the first). `cleanSession`: the broker keeps no
    /// subscriptions or queued messages between connections.
    public init(clientID: String, cleanSession: Bool = true, handlers: MQTTHandlers) throws(MQTTError) {
        api = try MQTTLibrary.loaded.get()
        let retained = Unmanaged.passRetained(handlers)
        guard let handle = api.new_client(clientID, cleanSession, retained.toOpaque()) else {
            retained.release()
            throw MQTTError(code: Int32(MOSQ_ERR_NOMEM.rawValue), doing: "create a client")
        }
        self.handle = handle
        self.handlers = retained
        _ = api.int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
        // Publish comes from kiosk's threads while the loop runs on its own.
        _ = api.threaded_set(handle, true)
        api.connect_callback_set(handle) { _, userdata, code in
            MQTTHandlers.from(userdata)?.connected(code == 0 ? .accepted : .refused(MQTTClient.connackReason(code)))
        }
        api.disconnect_callback_set(handle) { _, userdata, code in
            MQTTHandlers.from(userdata)?.disconnected(code == 0 ? nil : MQTTClient.reason(code))
        }
        api.message_callback_set(handle) { _, userdata, message in
            guard let message, let topic = message.pointee.topic else { return }
            let count = Int(max(message.pointee.payloadlen, 0))
            let payload = message.pointee.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
            MQTTHandlers.from(userdata)?.received(MQTTMessage(topic: String(cString: topic), payload: payload))
        }
    }

    /// Only once the loop's thread has ended (its owner joins it first).
    deinit {
        api.destroy(handle)
        handlers.release()
    }

    /// What the broker publishes for this client when it goes without a clean disconnect
    /// (power cut, SIGKILL, a dead link after 1.5 x keepalive). Before `connect`.
    public func setWill(topic: String, payload: String, qos: Int, retain: Bool) throws(MQTTError) {
        let bytes = Array(payload.utf8)
        try check(api.will_set(handle, topic, Int32(bytes.count), bytes, Int32(qos), retain), doing: "set the last will")
    }

    public func setCredentials(username: String, password: String?) throws(MQTTError) {
        try check(api.username_pw_set(handle, username, password), doing: "set the user name and password")
    }

    /// TLS with the broker's CA (`caFile`, else the CA certificates in `caPath`) and optionally
    /// a client certificate and its key. libmosquitto opens the files here (a missing one is an
    /// error now) and reads them at each connect.
    public func setTLS(caFile: String?, caPath: String?, certFile: String?, keyFile: String?) throws(MQTTError) {
        try check(api.tls_set(handle, caFile, caPath, certFile, keyFile, nil), doing: "set up TLS")
    }

    /// How long libmosquitto waits before each reconnect: `initial` seconds, doubled after
    /// each failure up to `maximum` (reset once connected).
    public func setReconnectDelay(initial: UInt32, maximum: UInt32) throws(MQTTError) {
        try check(api.reconnect_delay_set(handle, initial, maximum, true), doing: "set the reconnect delay")
    }

    /// Starts connecting (name lookup and the TCP connect happen now, on the calling thread;
    /// the MQTT handshake in `runLoop`). nil when the TCP connection is under way.
    public func connect(host: String, port: Int, keepalive: Int) -> MQTTError? {
        let code = api.connect_async(handle, host, Int32(port), Int32(keepalive))
        return code == Int32(MOSQ_ERR_SUCCESS.rawValue) ? nil : MQTTError(code: code, doing: "connect")
    }

    /// libmosquitto's network loop, on the calling thread: reads, writes, pings, and reconnects
    /// with the delay after a lost connection or a refusal. Returns after `disconnect` (nil), or
    /// with the error libmosquitto does not retry itself (TLS, protocol), which
    /// `mosquitto_loop_start`'s thread would end on silently.
    public func runLoop() -> MQTTError? {
        let code = api.loop_forever(handle, -1, 1)
        return code == Int32(MOSQ_ERR_SUCCESS.rawValue) ? nil : MQTTError(code: code, doing: "keep the connection")
    }

    /// Queues a message; never waits for the network (libmosquitto's thread sends it).
    public func publish(topic: String, payload: String, qos: Int, retain: Bool) throws(MQTTError) {
        try publish(topic: topic, bytes: Array(payload.utf8), qos: qos, retain: retain)
    }

    /// The same with a payload that is not text (a screenshot).
    public func publish(topic: String, bytes: [UInt8], qos: Int, retain: Bool) throws(MQTTError) {
        try check(api.publish(handle, nil, topic, Int32(bytes.count), bytes, Int32(qos), retain), doing: "publish to \(topic)")
    }

    public func subscribe(topic: String, qos: Int) throws(MQTTError) {
        try check(api.subscribe(handle, nil, topic, Int32(qos)), doing: "subscribe to \(topic)")
    }

    /// A clean disconnect: the broker drops the will. What was queued before is sent first;
    /// `runLoop` returns once the DISCONNECT is out (or within its 1 s wait when unconnected).
    public func disconnect() {
        _ = api.disconnect(handle)
    }

    private func check(_ code: Int32, doing action: String) throws(MQTTError) {
        guard code == Int32(MOSQ_ERR_SUCCESS.rawValue) else { throw MQTTError(code: code, doing: action) }
    }

    /// libmosquitto's text for an error code, lower-cased and without its full stop.
    static func reason(_ code: Int32) -> String {
        if code == Int32(MOSQ_ERR_ERRNO.rawValue) { return MQTTError.tidy(Errno(rawValue: errno).description) }
        guard case .success(let api) = MQTTLibrary.loaded else { return "error \(code)" }
        return MQTTError.tidy(api.strerror(code).map { String(cString: $0) } ?? "error \(code)")
    }

    /// The broker's CONNACK refusal ("Connection Refused: not authorised." -> "not authorized").
    static func connackReason(_ code: Int32) -> String {
        guard case .success(let api) = MQTTLibrary.loaded else { return "refused (\(code))" }
        var text = MQTTError.tidy(api.connack_string(code).map { String(cString: $0) } ?? "refused (\(code))")
        if let colon = text.range(of: ": ") { text = String(text[colon.upperBound...]) }
        return text.replacingOccurrences(of: "authorised", with: "authorized")
    }
}

/// One message from a subscribed topic.
public struct MQTTMessage: Sendable, Equatable {
    public let topic: String
    public let payload: [UInt8]
    public var text: String { String(decoding: payload, as: UTF8.self) }
}

/// What the broker said to a CONNECT.
public enum MQTTConnectResult: Sendable, Equatable {
    case accepted
    /// The broker's reason, like "not authorized" or "bad user name or password".
    case refused(String)
}

/// The client's handlers, called on libmosquitto's network thread: hand work over, never block.
public final class MQTTHandlers: Sendable {
    let connected: @Sendable (MQTTConnectResult) -> Void
    /// nil: a disconnect kiosk asked for; else why the connection was lost.
    let disconnected: @Sendable (String?) -> Void
    let received: @Sendable (MQTTMessage) -> Void

    public init(connected: @escaping @Sendable (MQTTConnectResult) -> Void,
                disconnected: @escaping @Sendable (String?) -> Void,
                received: @escaping @Sendable (MQTTMessage) -> Void) {
        self.connected = connected
        self.disconnected = disconnected
        self.received = received
    }

    static func from(_ userdata: UnsafeMutableRawPointer?) -> MQTTHandlers? {
        userdata.map { Unmanaged<MQTTHandlers>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// A libmosquitto call that failed: what kiosk was doing and libmosquitto's reason.
public struct MQTTError: Error, Equatable, CustomStringConvertible {
    public let code: Int32
    /// A TLS failure: a certificate, key or CA that does not match the broker's.
    public var isTLS: Bool { code == Int32(MOSQ_ERR_TLS.rawValue) }
    public let action: String
    public let reason: String

    init(code: Int32, doing action: String) {
        self.code = code
        self.action = action
        reason = MQTTClient.reason(code)
    }

    /// libmosquitto itself could not be opened (dlerror's line).
    init(library reason: String) {
        code = Int32(MOSQ_ERR_NOT_SUPPORTED.rawValue)
        action = "open libmosquitto"
        self.reason = "\(reason) (Debian: apt install libmosquitto1)"
    }

    public var description: String { "cannot \(action): \(reason)" }

    static func tidy(_ text: String) -> String {
        var text = text
        if text.hasSuffix(".") { text.removeLast() }
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }
}

/// libmosquitto, opened the first time a client is made (`mosquitto_lib_init` run once there,
/// as it must be: it is not thread-safe), or why it cannot be: a box without libmosquitto1
/// plays a kiosk.conf without `mqtt:` and says this line for one with it.
enum MQTTLibrary {
    static let loaded: Result<kiosk_mosquitto_api, MQTTError> = {
        var error: UnsafePointer<CChar>?
        guard let api = kiosk_mosquitto_load(&error) else {
            return .failure(MQTTError(library: error.map { String(cString: $0) } ?? "cannot open libmosquitto.so.1"))
        }
        return .success(api.pointee)
    }()
}
