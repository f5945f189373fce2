import Foundation
import KioskCore

/// kiosk.conf's `web.splash_layer` (#36): the page's address, and the password kiosk made at
/// first start, in a text layer of `layers:` until the page's first login; from then on the
/// layer is hidden, at this start and every later one (a file in the state directory says so),
/// so a password is never left on a shop's screen once someone has used it. A `password_hash`'s
/// password is not known to kiosk: then the address alone is shown.
struct WebSplash: Sendable {
    let layer: String
    let sink: any PlayerRequestSink
    /// Written at the first login: the state directory's `web-login-seen`.
    let marker: String

    init(layer: String, sink: any PlayerRequestSink, stateDirectory: String) {
        self.layer = layer
        self.sink = sink
        marker = stateDirectory + "/web-login-seen"
    }

    /// At start: the line shown, or the layer hidden when a login was seen before.
    func begin(addresses: [String], password: String?) {
        guard !FileManager.default.fileExists(atPath: marker) else {
            sink.send(.layer(name: layer, .hide))
            return
        }
        sink.send(.layer(name: layer, .text(Self.line(addresses: addresses, password: password))))
        sink.send(.layer(name: layer, .show))
    }

    /// A login went through: hidden, and the file written so that it stays so.
    func loggedIn() {
        guard !FileManager.default.fileExists(atPath: marker) else { return }
        sink.send(.layer(name: layer, .hide))
        // Best effort: unwritten, the line comes back at the next start until a login writes it.
        try? AtomicFile.write(Data("\(Int(Date().timeIntervalSince1970))\n".utf8), to: marker)
    }

    /// One line, which any text layer shows: `Web page http://192.168.1.20:8080/ · password abcde-...`.
    static func line(addresses: [String], password: String?) -> String {
        "Web page " + addresses.joined(separator: " ") + (password.map { " · password \($0)" } ?? "")
    }

    /// The page's addresses as a browser on the LAN types them: the listened address, or for a
    /// wildcard (`0.0.0.0`, `::`) each non-loopback address of the box's interfaces (IPv4 first).
    static func addresses(scheme: String, listen: ListenAddress) -> [String] {
        let hosts = listen.host == "0.0.0.0" || listen.host == "::" ? interfaceAddresses(ipv6: listen.host == "::") : [listen.host]
        let named = hosts.isEmpty ? [ProcessInfo.processInfo.hostName] : hosts
        return named.map { "\(scheme)://\($0.contains(":") ? "[\($0)]" : $0):\(listen.port)/" }
    }

    /// getifaddrs(3): the interfaces' IPv4 addresses (and global IPv6 ones when `ipv6`), without
    /// loopback and link-local ones (a browser cannot use an fe80:: address without a zone).
    private static func interfaceAddresses(ipv6: Bool) -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var v4: [String] = [], v6: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr, entry.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0 else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || (ipv6 && family == AF_INET6) else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if family == AF_INET { v4.append(text) } else if !text.lowercased().hasPrefix("fe80") { v6.append(text) }
        }
        return v4 + v6
    }
}
