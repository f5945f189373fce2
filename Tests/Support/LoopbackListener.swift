import Foundation
import Glibc

/// A TCP socket listening on 127.0.0.1 at a port the kernel chose, for tests that play a
/// server (one that never answers, one that answers with a status).
public func listenOnLoopback() throws -> (descriptor: Int32, port: Int) {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
            bind(listener, generic, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, generic, &length) == 0
        }
    }
    guard bound else {
        close(listener)
        throw POSIXError(.EADDRINUSE)
    }
    return (listener, Int(UInt16(bigEndian: address.sin_port)))
}
