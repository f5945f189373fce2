import Foundation
import Glibc
import KioskCore
import KioskSystemd
import Testing

/// libsystemd's sd_notify against a datagram socket standing in for systemd's $NOTIFY_SOCKET.
/// Serialized: it sets process-wide environment variables.
@Suite(.serialized) struct SystemdNotifierTests {
    @Test func sendsTheProtocolLinesToNotifySocket() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-notify-\(getpid()).sock").path
        let listener = try DatagramListener(path: path)
        setenv("NOTIFY_SOCKET", path, 1)
        setenv("WATCHDOG_USEC", "3000000", 1)
        setenv("WATCHDOG_PID", "\(getpid())", 1)
        defer { unsetenv("NOTIFY_SOCKET"); unsetenv("WATCHDOG_USEC"); unsetenv("WATCHDOG_PID") }

        let notifier = SystemdNotifier()
        #expect(notifier.isListening)
        #expect(notifier.watchdogInterval == 3)
        notifier.send([.ready, .status("playing item 0: a.mp4\nsecond line")])
        #expect(try listener.receive() == "READY=1\nSTATUS=playing item 0: a.mp4 second line")
        notifier.send([.watchdog])
        #expect(try listener.receive() == "WATCHDOG=1")
        notifier.send([.stopping])
        #expect(try listener.receive() == "STOPPING=1")
    }

    @Test func watchdogMeantForAnotherProcessIsOff() {
        setenv("NOTIFY_SOCKET", "/nonexistent/notify.sock", 1)
        setenv("WATCHDOG_USEC", "3000000", 1)
        setenv("WATCHDOG_PID", "1", 1)
        defer { unsetenv("NOTIFY_SOCKET"); unsetenv("WATCHDOG_USEC"); unsetenv("WATCHDOG_PID") }
        #expect(SystemdNotifier().watchdogInterval == nil)
    }

    @Test func outsideSystemdNothingListens() {
        unsetenv("NOTIFY_SOCKET")
        let notifier = SystemdNotifier()
        #expect(!notifier.isListening)
        notifier.send([.ready])   // does nothing, and must not fail
    }
}

/// A bound AF_UNIX datagram socket, read with a timeout.
final class DatagramListener {
    let fd: Int32
    let path: String

    init(path: String) throws {
        self.path = path
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8.prefix(raw.count - 1)))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0 else { throw POSIXError(.EADDRINUSE) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func receive() throws -> String {
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &bytes, bytes.count, 0)
        guard count >= 0 else { throw POSIXError(.ETIMEDOUT) }
        return String(decoding: bytes[0..<count], as: UTF8.self)
    }

    deinit {
        close(fd)
        unlink(path)
    }
}
