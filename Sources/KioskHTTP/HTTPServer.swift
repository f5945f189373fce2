import CMicroHTTPD
import Glibc

/// One request as the handler sees it: what kiosk's routes need, no body (the server answers
/// requests that carry one before reading it).
public struct HTTPRequest: Sendable, Equatable {
    public let method: String
    /// The path, without the query.
    public let path: String

    public init(method: String, path: String) {
        self.method = method
        self.path = path
    }
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

    /// What the daemon's thread calls: the handler and the library's calls.
    private final class Route: @unchecked Sendable {
        // Safe to share: immutable.
        let api: UnsafePointer<kiosk_mhd_api>
        let handler: @Sendable (HTTPRequest) -> HTTPResponse
        init(api: UnsafePointer<kiosk_mhd_api>, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
            self.api = api
            self.handler = handler
        }
    }

    /// Listens on `host` (an IPv4 or IPv6 literal; `::` takes IPv4 too) and `port` (0: any free port).
    public init(host: String, port: Int, connections: Int = 16, idleTimeout: Int = 10,
                handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws(HTTPServerError) {
        var loadError: UnsafePointer<CChar>?
        guard let api = kiosk_mhd_load(&loadError) else {
            let reason = loadError.map { String(cString: $0) } ?? "cannot open libmicrohttpd"
            throw HTTPServerError(description: "cannot open libmicrohttpd: \(reason) (Debian: apt install libmicrohttpd12)")
        }
        guard (0...65535).contains(port) else { throw HTTPServerError(description: "port \(port) is out of range") }
        self.api = api
        let context = Unmanaged.passRetained(Route(api: api, handler: handler))
        var message = [CChar](repeating: 0, count: 300)
        guard let started = kiosk_mhd_start(host, UInt16(port), UInt32(connections), UInt32(idleTimeout), HTTPServer.access,
                                            context.toOpaque(), &message, message.count) else {
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

    /// libmicrohttpd's access handler. It is called again for each piece of a request's body;
    /// kiosk's routes take none, so the first call answers (a body is then discarded unread).
    private static let access: MHD_AccessHandlerCallback = { context, connection, url, method, _, _, _, _ in
        guard let context, let connection else { return .NO }
        let route = Unmanaged<Route>.fromOpaque(context).takeUnretainedValue()
        let request = HTTPRequest(method: method.map { String(cString: $0) } ?? "",
                                  path: url.map { String(cString: $0) } ?? "/")
        return answer(route.handler(request), on: connection, api: route.api)
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
