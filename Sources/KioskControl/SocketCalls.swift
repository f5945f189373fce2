import Glibc
import SystemPackage

/// The socket calls swift-system's `FileDescriptor` does not have, in its style: typed errors
/// (`Errno`) and EINTR retried unless `retryOnInterrupt` is false. Flags are recv(2)/send(2)'s
/// (MSG_DONTWAIT, MSG_NOSIGNAL).
extension FileDescriptor {
    /// recv(2): how many bytes came; 0 when the peer closed the connection.
    func receive(into buffer: UnsafeMutableRawBufferPointer, flags: Int32 = 0,
                 retryOnInterrupt: Bool = true) throws(Errno) -> Int {
        try Self.retrying(retryOnInterrupt) { recv(rawValue, buffer.baseAddress, buffer.count, flags) }
    }

    /// send(2): how many bytes the socket took.
    func send(_ buffer: UnsafeRawBufferPointer, flags: Int32 = 0, retryOnInterrupt: Bool = true) throws(Errno) -> Int {
        try Self.retrying(retryOnInterrupt) { Glibc.send(rawValue, buffer.baseAddress, buffer.count, flags) }
    }

    /// accept(2) on a listening socket: the new connection's descriptor.
    func accept(retryOnInterrupt: Bool = true) throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: Int32(try Self.retrying(retryOnInterrupt) { Int(Glibc.accept(rawValue, nil, nil)) }))
    }

    private static func retrying(_ retryOnInterrupt: Bool, _ call: () -> Int) throws(Errno) -> Int {
        while true {
            let result = call()
            if result >= 0 { return result }
            let code = Errno(rawValue: errno)
            if retryOnInterrupt && code == .interrupted { continue }
            throw code
        }
    }
}

extension Errno {
    /// EAGAIN/EWOULDBLOCK: a non-blocking call found nothing to do now.
    var isWouldBlock: Bool { rawValue == Glibc.EAGAIN || rawValue == Glibc.EWOULDBLOCK }
}
