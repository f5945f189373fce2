import Glibc
import KioskCore
import SystemPackage

/// One client of the control socket, non-blocking, owned by the server thread. Input is cut
/// into lines; output waits in a bounded buffer, so a client that never reads costs at most
/// `outputLimit` bytes and is then dropped, and the player never waits for anyone.
final class ControlConnection {
    /// A request line may be this long (newline excluded); longer gets an error and a close.
    static let lineLimit = 64 * 1024
    static let outputLimit = 256 * 1024

    let fd: FileDescriptor
    private var input: [UInt8] = []
    private var output: [UInt8] = []
    private var outputStart = 0
    /// Set once the connection must end: it then takes no more input, and closes when the
    /// pending output is written (or at once, if it cannot be).
    private(set) var isClosing = false
    private(set) var isDead = false
    var observed: [ControlProperty: ControlValue?] = [:]

    init(fd: FileDescriptor) { self.fd = fd }

    var wantsToWrite: Bool { outputStart < output.count }

    /// Reads what is there; returns the complete lines. At EOF a partial line is dropped with
    /// the client. A line over the limit is answered by `onOverlong` and the connection ends.
    func readLines(onOverlong: () -> Void) -> [String] {
        var lines: [String] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        // Bounded per round, so one busy client cannot starve the others.
        for _ in 0..<8 where !isClosing && !isDead {
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try fd.receive(into: $0, flags: Int32(MSG_DONTWAIT)) }
            } catch {
                if (error as? Errno)?.isWouldBlock != true { isDead = true }
                break
            }
            if count == 0 { isDead = true; break }
            let searchFrom = input.count
            input.append(contentsOf: chunk[0..<count])
            var lineStart = 0
            var index = searchFrom
            while let newline = input[index...].firstIndex(of: 10) {
                var line = input[lineStart..<newline]
                if line.last == 13 { line = line.dropLast() }   // CRLF from telnet-like clients
                if line.count > Self.lineLimit { overlong(onOverlong); return lines }
                lines.append(String(decoding: line, as: UTF8.self))
                lineStart = newline + 1
                index = lineStart
            }
            if lineStart > 0 { input.removeFirst(lineStart) }
            if input.count > Self.lineLimit { overlong(onOverlong); return lines }
        }
        return lines
    }

    private func overlong(_ onOverlong: () -> Void) {
        input.removeAll()
        onOverlong()
        isClosing = true
    }

    /// Queues one line (a reply or an event). Over the limit, the client is dropped.
    func send(_ line: String) {
        guard !isDead else { return }
        if output.count - outputStart + line.utf8.count + 1 > Self.outputLimit {
            isDead = true   // it does not read: drop it rather than buffer without end
            return
        }
        output.append(contentsOf: line.utf8)
        output.append(10)
    }

    /// Writes what the socket takes now.
    func flush() {
        while wantsToWrite && !isDead {
            let count: Int
            do {
                count = try output[outputStart...].withUnsafeBytes {
                    try fd.send($0, flags: Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
                }
            } catch {
                if (error as? Errno)?.isWouldBlock != true { isDead = true }
                break
            }
            outputStart += count
        }
        if outputStart == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 64 * 1024)
            outputStart = 0
            if isClosing { isDead = true }
        } else if outputStart > 64 * 1024 {
            output.removeFirst(outputStart)
            outputStart = 0
        }
    }

    /// Ends the connection; called once by the server.
    func close() { try? fd.close() }
}
