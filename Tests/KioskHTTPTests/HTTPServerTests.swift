import Foundation
import Glibc
import Testing
@testable import KioskHTTP

/// The server against a client that speaks HTTP/1.1 over a plain socket: what a scraper, curl or a
/// browser sends, and what comes back, headers included.
@Suite struct HTTPServerTests {
    /// One request on a fresh connection; the whole answer (the server closes after it).
    static func exchange(port: Int, _ request: String) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)   // a deadline for a hang
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        let bytes = Array(request.utf8)
        try #require(send(fd, bytes, bytes.count, 0) == bytes.count)
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            answer += buffer[..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    static func get(_ path: String, port: Int, method: String = "GET") throws -> String {
        try exchange(port: port, "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    }

    @Test func aRouteIsAnsweredWithItsStatusTypeAndBody() throws {
        let seen = Seen()
        let server = try HTTPServer(host: "127.0.0.1", port: 0) { request in
            seen.add(request)
            return request.path == "/metrics"
                ? HTTPResponse(status: 200, text: "kiosk_up 1\n", contentType: "text/plain; version=0.0.4")
                : HTTPResponse(status: 404, text: "not found\n")
        }
        defer { server.stop() }
        #expect(server.port > 0)
        let found = try Self.get("/metrics?x=1", port: server.port)
        #expect(found.hasPrefix("HTTP/1.1 200"), "\(found)")
        #expect(found.contains("Content-Type: text/plain; version=0.0.4"))
        #expect(found.contains("Cache-Control: no-store"))
        #expect(found.contains("X-Content-Type-Options: nosniff"))
        #expect(found.hasSuffix("\r\n\r\nkiosk_up 1\n"))
        let missing = try Self.get("/other", port: server.port)
        #expect(missing.hasPrefix("HTTP/1.1 404"), "\(missing)")
        #expect(seen.requests.map { [$0.method, $0.path] } == [["GET", "/metrics"], ["GET", "/other"]])
        // The headers a route reads, and the peer.
        #expect(seen.requests.map { $0.header("HOST") } == ["127.0.0.1", "127.0.0.1"])
        #expect(seen.requests.map(\.client) == ["127.0.0.1", "127.0.0.1"])
    }

    /// A body is not read: the first call answers, whatever follows (a large upload to a route
    /// that takes none costs nothing).
    @Test func aRequestWithABodyIsAnsweredWithoutReadingIt() throws {
        let server = try HTTPServer(host: "127.0.0.1", port: 0) { request in
            HTTPResponse(status: request.method == "GET" ? 200 : 405, text: "", headers: [("Allow", "GET")])
        }
        defer { server.stop() }
        let body = String(repeating: "x", count: 100_000)
        let answer = try Self.exchange(port: server.port, "POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                                       + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
        #expect(answer.hasPrefix("HTTP/1.1 405"), "\(answer.prefix(200))")
        #expect(answer.contains("Allow: GET"))
    }

    /// With a body limit, the body is read whole before the handler (sent in pieces, as a slow
    /// client does); past the limit, 413 whether the length is declared or the body is chunked.
    @Test func aBodyIsReadWholeUpToItsLimit() throws {
        let server = try HTTPServer(host: "127.0.0.1", port: 0, maxBody: 1000) { request in
            HTTPResponse(status: 200, text: "\(request.body.count):\(String(decoding: request.body.suffix(3), as: UTF8.self))")
        }
        defer { server.stop() }
        let body = String(repeating: "x", count: 997) + "end"
        let whole = try Self.exchange(port: server.port, "POST /c HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                                      + "Content-Length: 1000\r\n\r\n" + body)
        #expect(whole.hasPrefix("HTTP/1.1 200") && whole.hasSuffix("\r\n\r\n1000:end"), "\(whole.suffix(200))")
        let declared = try Self.exchange(port: server.port, "POST /c HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                                         + "Content-Length: 10737418240\r\n\r\nxx")
        #expect(declared.hasPrefix("HTTP/1.1 413"), "\(declared.prefix(200))")
        let chunk = String(repeating: "y", count: 600)
        let chunked = try Self.exchange(port: server.port, "POST /c HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                                        + "Transfer-Encoding: chunked\r\n\r\n258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n0\r\n\r\n")
        #expect(chunked.hasPrefix("HTTP/1.1 413"), "\(chunked.prefix(200))")
    }

    /// A server given its own 413 answers past the limit in that form (the web API: JSON), declared
    /// or chunked.
    @Test func aBodyPastTheLimitGetsTheServersOwnRefusal() throws {
        let server = try HTTPServer(host: "127.0.0.1", port: 0, maxBody: 100, tooLarge: { limit in
            HTTPResponse(status: 413, text: "{\"error\": \"over \(limit)\"}", contentType: "application/json")
        }) { _ in HTTPResponse(status: 200, text: "taken") }
        defer { server.stop() }
        let declared = try Self.exchange(port: server.port, "POST /c HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                                         + "Content-Length: 5000\r\n\r\nxx")
        #expect(declared.hasPrefix("HTTP/1.1 413") && declared.contains("application/json")
                && declared.hasSuffix("{\"error\": \"over 100\"}"), "\(declared.suffix(200))")
        let chunk = String(repeating: "y", count: 80)
        let chunked = try Self.exchange(port: server.port, "POST /c HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                                        + "Transfer-Encoding: chunked\r\n\r\n50\r\n\(chunk)\r\n50\r\n\(chunk)\r\n0\r\n\r\n")
        #expect(chunked.hasPrefix("HTTP/1.1 413") && chunked.hasSuffix("{\"error\": \"over 100\"}"), "\(chunked.suffix(200))")
    }

    /// A streamed body reaches its sink piece by piece, never buffered; a sink that stops taking
    /// it gets its answer out once the rest is dropped; a plan's answer needs no body at all.
    @Test func aStreamedBodyGoesToItsSinkAsItArrives() throws {
        final class Counter: HTTPBodySink, @unchecked Sendable {
            var bytes = 0
            var pieces = 0
            let limit: Int
            init(limit: Int) { self.limit = limit }
            func write(_ piece: UnsafeRawBufferPointer) -> Bool {
                bytes += piece.count
                pieces += 1
                return bytes <= limit
            }
            func finish() -> HTTPResponse {
                HTTPResponse(status: bytes <= limit ? 201 : 507, text: "\(bytes) in \(pieces > 0 ? "pieces" : "none")")
            }
        }
        let server = try HTTPServer(host: "127.0.0.1", port: 0, maxBody: 10, plan: { request in
            switch request.path {
            case "/stream": return .stream(Counter(limit: 10_000_000))
            case "/small": return .stream(Counter(limit: 1000))
            case "/refused": return .answer(HTTPResponse(status: 403, text: "no"))
            default: return .buffer
            }
        }) { _ in HTTPResponse(status: 200, text: "buffered") }
        defer { server.stop() }
        let body = String(repeating: "z", count: 3_000_000)
        let streamed = try Self.exchange(port: server.port, "PATCH /stream HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                                         + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
        #expect(streamed.hasPrefix("HTTP/1.1 201") && streamed.hasSuffix("3000000 in pieces"), "\(streamed.suffix(100))")
        // Past maxBody (10) for a buffered route, but streamed routes take any size.
        let small = try Self.exchange(port: server.port, "PATCH /small HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                                      + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
        #expect(small.hasPrefix("HTTP/1.1 507"), "\(small.prefix(100))")
        let refused = try Self.exchange(port: server.port, "PATCH /refused HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                                        + "Content-Length: 5\r\n\r\nhello")
        #expect(refused.hasPrefix("HTTP/1.1 403"))
        let buffered = try Self.exchange(port: server.port, "POST /other HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                                         + "Content-Length: 5\r\n\r\nhello")
        #expect(buffered.hasPrefix("HTTP/1.1 200") && buffered.hasSuffix("buffered"))
    }

    @Test func whatCannotBeListenedOnIsOneClearError() throws {
        #expect(throws: HTTPServerError(description: "'lobby.local' is not an IPv4 or IPv6 address")) {
            try HTTPServer(host: "lobby.local", port: 0) { _ in HTTPResponse(status: 200, text: "") }
        }
        let first = try HTTPServer(host: "127.0.0.1", port: 0) { _ in HTTPResponse(status: 200, text: "") }
        defer { first.stop() }
        // The reason after "cannot listen: " is the library's errno (EADDRINUSE here).
        do {
            _ = try HTTPServer(host: "127.0.0.1", port: first.port) { _ in HTTPResponse(status: 200, text: "") }
            Issue.record("a second server on port \(first.port) started")
        } catch {
            #expect(error.description.hasPrefix("cannot listen: "), "\(error)")
        }
    }

    /// `::` takes IPv4 too (a scraper on 127.0.0.1 reaches a server on every address).
    @Test func theIPv6WildcardTakesIPv4Too() throws {
        let server: HTTPServer
        do {
            server = try HTTPServer(host: "::", port: 0) { _ in HTTPResponse(status: 200, text: "dual\n") }
        } catch {
            // A container without IPv6 cannot make the socket at all: nothing to check there.
            #expect(error.description.hasPrefix("cannot listen: "), "\(error)")
            return
        }
        defer { server.stop() }
        let answer = try Self.get("/", port: server.port)
        #expect(answer.hasPrefix("HTTP/1.1 200") && answer.hasSuffix("dual\n"), "\(answer)")
    }
}

/// Requests as the server's thread handed them over.
final class Seen: @unchecked Sendable {
    // Safe to share: `list` is only touched with `lock` held.
    private let lock = NSLock()
    private var list: [HTTPRequest] = []
    func add(_ request: HTTPRequest) { lock.withLock { list.append(request) } }
    var requests: [HTTPRequest] { lock.withLock { list } }
}
