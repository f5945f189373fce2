import CMicroHTTPD
import Glibc

/// One request as the handler sees it: the method, path, the headers kiosk's routes read, the
/// body (only where the server was told to take one, and never more than its cap) and the peer.
public struct HTTPRequest: Sendable, Equatable {
    public let method: String
    /// The path, without the query.
    public let path: String
    /// The headers of `HTTPServer.readHeaders` that the request carried, by lowercased name.
    public let headers: [String: String]
    public let body: [UInt8]
    /// The client's address (`127.0.0.1`, `::1`); empty when unknown.
    public let client: String

    public init(method: String, path: String, headers: [String: String] = [:], body: [UInt8] = [], client: String = "") {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.client = client
    }

    /// A header's value by its name, in any case.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]
    public var headers: [(name: String, value: String)]

    public init(status: Int, contentType: String = "text/plain; charset=utf-8", body: [UInt8],
                headers: [(name: String, value: String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    public init(status: Int, text: String, contentType: String = "text/plain; charset=utf-8",
                headers: [(name: String, value: String)] = []) {
        self.init(status: status, contentType: contentType, body: Array(text.utf8), headers: headers)
    }

    public static func == (a: HTTPResponse, b: HTTPResponse) -> Bool {
        a.status == b.status && a.contentType == b.contentType && a.body == b.body
            && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
    }
}

/// What becomes of a request's body, decided from its headers before a byte of it is read.
public enum HTTPBodyPlan: Sendable {
    /// Read whole (up to the server's `maxBody`), then the handler answers.
    case buffer
    /// Answered now (a refusal); a body is discarded unread.
    case answer(HTTPResponse)
    /// Each piece handed to the sink as it arrives (an upload of any size, never held in memory).
    case stream(any HTTPBodySink)
}

/// Where a streamed body goes, on the server's thread.
public protocol HTTPBodySink: AnyObject, Sendable {
    /// One piece of the body; false: take no more (the rest is read and dropped; `finish` says why).
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool
    /// The body has ended (or was refused midway): the answer. A connection that drops first
    /// never gets here: the sink is released, keeping what it wrote.
    func finish() -> HTTPResponse
}

public struct HTTPServerError: Error, CustomStringConvertible, Equatable {
    public let description: String
}

/// A small HTTP/1.1 server: libmicrohttpd's daemon with its own polling thread, handing each
/// request to `handler` on that thread (keep it short: it reads a snapshot, it never waits for
/// the player). Headers every answer carries: `Cache-Control: no-store`,
/// `X-Content-Type-Options: nosniff`.
public final class HTTPServer: @unchecked Sendable {
    // Safe to share: `daemon` and `context` are only touched with `lock` held; the daemon's
    // thread reaches only `Route`, which is immutable.
    private let lock = PThreadLock()
    private let api: UnsafePointer<kiosk_mhd_api>
    private var daemon: OpaquePointer?
    /// The daemon's context, retained for it until its thread has ended (`stop`): the callback
    /// never holds the server itself, so the server's last release never happens on that thread.
    private var context: Unmanaged<Route>?
    /// The port it listens on (the free one chosen when 0 was asked).
    public let port: Int

    /// The headers a handler can read (`HTTPRequest.headers`): what kiosk's routes decide by.
    public static let readHeaders = ["Host", "Origin", "Referer", "Cookie", "Authorization", "Content-Type",
                                     "Content-Length", "X-CSRF-Token", "X-Forwarded-Proto", "If-Match", "Sec-Fetch-Site",
                                     "Upload-Offset"]

    /// What the daemon's thread calls: the handler and the library's calls.
    private final class Route: @unchecked Sendable {
        // Safe to share: immutable.
        let api: UnsafePointer<kiosk_mhd_api>
        let maxBody: Int
        let plan: (@Sendable (HTTPRequest) -> HTTPBodyPlan)?
        let tooLarge: @Sendable (Int) -> HTTPResponse
        let handler: @Sendable (HTTPRequest) -> HTTPResponse
        init(api: UnsafePointer<kiosk_mhd_api>, maxBody: Int, plan: (@Sendable (HTTPRequest) -> HTTPBodyPlan)?,
             tooLarge: @escaping @Sendable (Int) -> HTTPResponse, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
            self.api = api
            self.maxBody = maxBody
            self.plan = plan
            self.tooLarge = tooLarge
            self.handler = handler
        }
    }

    /// A request's body as it arrives, kept in the connection's `con_cls` until it is answered.
    private final class PendingBody {
        var bytes: [UInt8] = []
        /// More came than `maxBody` (or the sink took no more): the rest is read and dropped.
        var tooLarge = false
        /// A streamed body's sink; nil: buffered in `bytes`.
        var sink: (any HTTPBodySink)?
    }

    /// TLS for HTTPS: the certificate (chain) and its private key, PEM text.
    public struct TLS: Sendable, Equatable {
        public var certificate: String
        public var key: String
        public init(certificate: String, key: String) {
            self.certificate = certificate
            self.key = key
        }
    }

    /// Listens on `host` (an IPv4 or IPv6 literal; `::` takes IPv4 too) and `port` (0: any free port).
    /// `maxBody`: the largest body a request may carry, read before the handler is called (0: none
    /// is read, the handler answers at once and a body is discarded); a larger one gets 413.
    /// `plan`: asked with each request's headers what becomes of its body (nil: `.buffer`).
    /// `tooLarge`: the 413 answer, given the limit (nil: a line of text), so an API answers in its own form.
    public init(host: String, port: Int, connections: Int = 16, idleTimeout: Int = 10, maxBody: Int = 0, tls: TLS? = nil,
                plan: (@Sendable (HTTPRequest) -> HTTPBodyPlan)? = nil, tooLarge: (@Sendable (Int) -> HTTPResponse)? = nil,
                handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws(HTTPServerError) {
        var loadError: UnsafePointer<CChar>?
        guard let api = kiosk_mhd_load(&loadError) else {
            let reason = loadError.map { String(cString: $0) } ?? "cannot open libmicrohttpd"
            throw HTTPServerError(description: "cannot open libmicrohttpd: \(reason) (Debian: apt install libmicrohttpd12)")
        }
        guard (0...65535).contains(port) else { throw HTTPServerError(description: "port \(port) is out of range") }
        self.api = api
        let context = Unmanaged.passRetained(Route(api: api, maxBody: max(0, maxBody), plan: plan,
                                                              tooLarge: tooLarge ?? HTTPServer.tooLarge, handler: handler))
        var message = [CChar](repeating: 0, count: 300)
        guard let started = kiosk_mhd_start(host, UInt16(port), UInt32(connections), UInt32(idleTimeout), HTTPServer.access,
                                            context.toOpaque(), HTTPServer.completed, tls?.certificate, tls?.key,
                                            &message, message.count) else {
            context.release()
            throw HTTPServerError(description: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) },
                                                      as: UTF8.self))
        }
        daemon = started
        self.context = context
        self.port = Int(kiosk_mhd_bound_port(started))
    }

    deinit { stop() }

    /// Closes the listening socket and waits for the daemon's thread (requests under way end).
    public func stop() {
        let (daemon, context) = lock.withLock { () -> (OpaquePointer?, Unmanaged<Route>?) in
            defer { self.daemon = nil; self.context = nil }
            return (self.daemon, self.context)
        }
        if let daemon { api.pointee.stop_daemon(daemon) }
        context?.release()
    }

    /// libmicrohttpd's access handler. It is called once with the headers, again for each piece
    /// of a request's body, and once more when the body is whole: the answer comes then. With
    /// `maxBody` 0 the first call answers (a body is then discarded unread).
    private static let access: MHD_AccessHandlerCallback = { context, connection, url, method, _, data, size, state in
        guard let context, let connection, let size, let state else { return .NO }
        let route = Unmanaged<Route>.fromOpaque(context).takeUnretainedValue()
        let api = route.api
        guard let stored = state.pointee else {
            // The first call: the headers are in.
            switch route.plan?(request(connection, url, method, [], api)) ?? .buffer {
            case .answer(let response):
                return answer(response, on: connection, api: api)
            case .stream(let sink):
                let pending = PendingBody()
                pending.sink = sink
                state.pointee = Unmanaged.passRetained(pending).toOpaque()
                return .YES
            case .buffer:
                break
            }
            guard route.maxBody > 0 else { return answer(route.handler(request(connection, url, method, [], api)), on: connection, api: api) }
            // A declared length past the cap is refused now, before a byte of it is read (a 10 GB
            // upload costs nothing).
            if let declared = api.pointee.lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
               let length = Int(String(cString: declared)), length > route.maxBody {
                return answer(route.tooLarge(route.maxBody), on: connection, api: api)
            }
            state.pointee = Unmanaged.passRetained(PendingBody()).toOpaque()
            return .YES
        }
        let pending = Unmanaged<PendingBody>.fromOpaque(stored).takeUnretainedValue()
        if let sink = pending.sink {
            if size.pointee > 0 {
                let count = size.pointee
                size.pointee = 0
                // A sink that refuses a piece gets no more: libmicrohttpd takes no answer while a
                // body still arrives, so the rest is read and dropped, and `finish` answers then.
                if !pending.tooLarge, let data, !sink.write(UnsafeRawBufferPointer(start: data, count: count)) {
                    pending.tooLarge = true
                }
                return .YES
            }
            return answer(sink.finish(), on: connection, api: api)
        }
        if size.pointee > 0 {
            if pending.tooLarge || pending.bytes.count + size.pointee > route.maxBody {
                pending.tooLarge = true
                pending.bytes = []
            } else if let data {
                data.withMemoryRebound(to: UInt8.self, capacity: size.pointee) {
                    pending.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: size.pointee))
                }
            }
            size.pointee = 0
            return .YES
        }
        if pending.tooLarge { return answer(route.tooLarge(route.maxBody), on: connection, api: api) }
        return answer(route.handler(request(connection, url, method, pending.bytes, api)), on: connection, api: api)
    }

    /// A request has ended: its pending body is released.
    private static let completed: kiosk_mhd_completed = { state in
        guard let state, let stored = state.pointee else { return }
        Unmanaged<PendingBody>.fromOpaque(stored).release()
        state.pointee = nil
    }

    /// The plain 413, and the reason every form of it gives.
    public static func tooLarge(_ limit: Int) -> HTTPResponse {
        HTTPResponse(status: 413, text: tooLargeReason(limit) + "\n", headers: [("Connection", "close")])
    }

    public static func tooLargeReason(_ limit: Int) -> String {
        "the request's body is larger than this route takes (\(limit) bytes)"
    }

    private static func request(_ connection: OpaquePointer, _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?,
                                _ body: [UInt8], _ api: UnsafePointer<kiosk_mhd_api>) -> HTTPRequest {
        var headers: [String: String] = [:]
        for name in readHeaders {
            if let value = api.pointee.lookup_connection_value(connection, .HEADER_KIND, name) {
                headers[name.lowercased()] = String(cString: value)
            }
        }
        var address = [CChar](repeating: 0, count: 64)
        kiosk_mhd_client_address(connection, &address, address.count)
        return HTTPRequest(method: method.map { String(cString: $0) } ?? "", path: url.map { String(cString: $0) } ?? "/",
                           headers: headers, body: body,
                           client: String(decoding: address.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    private static func answer(_ response: HTTPResponse, on connection: OpaquePointer,
                               api: UnsafePointer<kiosk_mhd_api>) -> MHD_Result {
        let created = response.body.withUnsafeBytes { bytes in
            api.pointee.create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                                    .RESPMEM_MUST_COPY)
        }
        guard let created else { return .NO }
        defer { api.pointee.destroy_response(created) }
        let headers = [("Content-Type", response.contentType), ("Cache-Control", "no-store"),
                       ("X-Content-Type-Options", "nosniff")] + response.headers.map { ($0.name, $0.value) }
        for (name, value) in headers {
            guard api.pointee.add_response_header(created, name, value) == .YES else { return .NO }
        }
        return api.pointee.queue_response(connection, UInt32(response.status), created)
    }
}

/// A pthread mutex (KioskHTTP imports no Foundation).
private final class PThreadLock: @unchecked Sendable {
    // Safe to share: a mutex.
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func withLock<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
