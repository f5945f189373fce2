import Glibc
import KioskCore
import SystemPackage

/// `kiosk ctl`'s side of the socket: one blocking connection, lines out and in.
public final class ControlClient {
    private let fd: FileDescriptor
    private var buffer: [UInt8] = []

    public init(path: String) throws(ControlSocketError) {
        fd = try UnixSocket.connect(to: path)
    }

    deinit { try? fd.close() }

    public func send(_ line: String) throws(ControlSocketError) {
        var bytes = Array(line.utf8)
        bytes.append(10)
        var sent = 0
        while sent < bytes.count {
            let count: Int
            do {
                count = try bytes[sent...].withUnsafeBytes { try fd.send($0, flags: Int32(MSG_NOSIGNAL)) }
            } catch {
                throw ControlSocketError("control socket: cannot send: \(UnixSocket.systemError(Self.code(error)))")
            }
            guard count > 0 else { throw ControlSocketError("control socket: cannot send: \(UnixSocket.systemError())") }
            sent += count
        }
    }

    /// The next line from the server; nil when it closed the connection.
    public func readLine() throws(ControlSocketError) -> String? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try fd.receive(into: $0) }
            } catch {
                throw ControlSocketError("control socket: cannot read: \(UnixSocket.systemError(Self.code(error)))")
            }
            if count == 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    private static func code(_ error: any Error) -> Int32 { (error as? Errno)?.rawValue ?? EIO }

    /// Sends `words` as a command and returns the reply to it, skipping the events in between.
    public func request(_ words: [String], requestID: Int64 = 1) throws(ControlSocketError) -> ControlValue {
        let request = ControlValue.object([("command", .array(words.map { .string($0) })), ("request_id", .integer(requestID))])
        try send(request.json)
        while let line = try readLine() {
            guard let reply = ControlValue.parse(line) else { continue }
            if reply["event"] == nil, reply["request_id"] == .integer(requestID) || reply["request_id"] == nil { return reply }
        }
        throw ControlSocketError("control socket: the server closed the connection without replying")
    }
}
