import Foundation
import KioskCore

/// kiosk.conf's `web.splash_layer` (#36): the page's address, and the password kiosk made at
/// first start, in a text layer of `layers:` until the page's first login; from then on the
/// layer is hidden, at this start and every later one (a file in the state directory says so),
/// so a password is not left on a shop's screen once someone has used it. (A live reload that
/// changes `layers:` shows the layer's own configured text again, never the password.) A
/// `password_hash`'s password is not known to kiosk: then the address alone is shown. The
/// addresses are read again every 15 s until the login: at boot DHCP may not have given one yet,
/// and a new lease changes it.
final class WebSplash: @unchecked Sendable {
    // Safe to share: `shown` and `done` are only touched with `lock` held.
    private let layer: String
    private let sink: any PlayerRequestSink
    /// Written at the first login: the state directory's `web-login-seen`.
    private let marker: String
    private let lock = NSLock()
    private var shown: String?
    private var done = false
    private let thread = StoppableThread(name: "kiosk-web-splash")

    init(layer: String, sink: any PlayerRequestSink, stateDirectory: String) {
        self.layer = layer
        self.sink = sink
        marker = stateDirectory + "/web-login-seen"
    }

    /// At start: the line shown and kept current, or the layer hidden when a login was seen before.
    /// `addresses` is asked again every `interval` seconds until the first login.
    func begin(password: String?, interval: Double = 15, addresses: @escaping @Sendable () -> [String]) {
        guard !FileManager.default.fileExists(atPath: marker) else {
            lock.withLock { done = true }
            sink.send(.layer(name: layer, .hide))
            return
        }
        show(Self.line(addresses: addresses(), password: password))
        sink.send(.layer(name: layer, .show))
        thread.start { [self] in
            while !thread.shouldStop {
                thread.sleep(seconds: interval)
                if thread.shouldStop || lock.withLock({ done }) { return }
                show(Self.line(addresses: addresses(), password: password))
            }
        }
    }

    /// The line, when it is new and no login has hidden the layer.
    private func show(_ line: String) {
        let send = lock.withLock { () -> Bool in
            guard !done, line != shown else { return false }
            shown = line
            return true
        }
        if send { sink.send(.layer(name: layer, .text(line))) }
    }

    /// A login went through: hidden, and the file written so that it stays so.
    func loggedIn() {
        let first = lock.withLock { () -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        sink.send(.layer(name: layer, .hide))
        // Best effort: unwritten, the line comes back at the next start until a login writes it.
        try? AtomicFile.write(Data("\(Int(Date().timeIntervalSince1970))\n".utf8), to: marker)
    }

    func stop() { thread.stop(timeout: 2) }

    /// One line, which any text layer shows: `Web page http://192.168.1.20:8080/ · password abcde-...`.
    /// No address yet (no network): it says so rather than a name the page would refuse.
    static func line(addresses: [String], password: String?) -> String {
        (addresses.isEmpty ? "Web page: waiting for the network" : "Web page " + addresses.joined(separator: " "))
            + (password.map { " · password \($0)" } ?? "")
    }

    /// The page's addresses as a browser on the LAN types them: the listened address, or for a
    /// wildcard (`0.0.0.0`, `::`) each non-loopback address of the box's interfaces (IPv4 first),
    /// then `web.hosts`' names (which the page's Host check takes); none: the network is not up.
    static func addresses(scheme: String, listen: ListenAddress, hosts names: [String] = []) -> [String] {
        let wildcard = listen.host == "0.0.0.0" || listen.host == "::"
        let hosts = wildcard ? interfaceAddresses(ipv6: listen.host == "::") + names : [listen.host]
        return hosts.map { "\(scheme)://\($0.contains(":") ? "[\($0)]" : $0):\(listen.port)/" }
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
