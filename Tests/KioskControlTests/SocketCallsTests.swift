import Foundation
import Glibc
import SystemPackage
import Testing
@testable import KioskControl

/// The socket calls kiosk adds to swift-system's `FileDescriptor` (SocketCalls.swift), on a
/// socketpair: bytes both ways, end of stream, would-block, typed errors.
@Suite struct SocketCallsTests {
    private static func pair() throws -> (FileDescriptor, FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0)
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    @Test func sendAndReceiveCarryTheBytes() throws {
        let (a, b) = try Self.pair()
        defer { try? a.close(); try? b.close() }
        let sent = try Array("hello\n".utf8).withUnsafeBytes { try a.send($0, flags: Int32(MSG_NOSIGNAL)) }
        #expect(sent == 6)
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = try buffer.withUnsafeMutableBytes { try b.receive(into: $0) }
        #expect(Array(buffer[0..<count]) == Array("hello\n".utf8))
    }

    @Test func nothingToReadIsWouldBlockAndAClosedPeerIsTheEnd() throws {
        let (a, b) = try Self.pair()
        defer { try? b.close() }
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect {
            _ = try buffer.withUnsafeMutableBytes { try b.receive(into: $0, flags: Int32(MSG_DONTWAIT)) }
        } throws: { ($0 as? Errno)?.isWouldBlock == true }
        try a.close()
        #expect(try buffer.withUnsafeMutableBytes { try b.receive(into: $0) } == 0)
    }

    @Test func sendingToAClosedPeerThrowsTheErrnoWithoutSIGPIPE() throws {
        let (a, b) = try Self.pair()
        defer { try? a.close() }
        try b.close()
        #expect(throws: Errno.brokenPipe) {
            _ = try Array("x".utf8).withUnsafeBytes { try a.send($0, flags: Int32(MSG_NOSIGNAL)) }
        }
    }

    @Test func acceptTakesAConnectionAndAnEmptyQueueWouldBlock() throws {
        let path = "/tmp/kiosk-socketcalls-\(getpid()).sock"
        let (listener, inode) = try UnixSocket.listen(at: path)   // non-blocking
        defer { try? listener.close(); UnixSocket.remove(path, inode: inode) }
        #expect { _ = try listener.accept() } throws: { ($0 as? Errno)?.isWouldBlock == true }
        let client = try UnixSocket.connect(to: path)
        defer { try? client.close() }
        let server = try listener.accept()
        defer { try? server.close() }
        _ = try Array("ping".utf8).withUnsafeBytes { try client.send($0) }
        var buffer = [UInt8](repeating: 0, count: 8)
        let count = try buffer.withUnsafeMutableBytes { try server.receive(into: $0) }
        #expect(String(decoding: buffer[0..<count], as: UTF8.self) == "ping")
    }

    @Test func aBadDescriptorIsATypedError() {
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(throws: Errno.badFileDescriptor) {
            _ = try buffer.withUnsafeMutableBytes { try FileDescriptor(rawValue: -1).receive(into: $0) }
        }
    }

    /// The socket's path appears only once it listens (bound beside it, renamed into place): a
    /// client that connects the moment the file exists is never refused. 200 rounds with a
    /// thread connecting as soon as it sees the file; after each, the directory holds the
    /// socket alone (no staging name left), mode 0600.
    @Test func thePathAppearsOnlyOnceTheSocketListens() throws {
        let directory = "/tmp/kiosk-socket-appears-\(getpid())"
        mkdir(directory, 0o700)
        defer { rmdir(directory) }
        let path = directory + "/ctl.sock"
        final class Outcome: @unchecked Sendable { var refused = 0 }   // written by the prober, read after join
        let outcome = Outcome()
        for _ in 0..<200 {
            let done = DispatchSemaphore(value: 0)
            Thread {
                var seen = stat()
                while lstat(path, &seen) != 0 { sched_yield() }
                if let client = try? UnixSocket.connect(to: path) { try? client.close() } else { outcome.refused += 1 }
                done.signal()
            }.start()
            let (listener, inode) = try UnixSocket.listen(at: path)
            done.wait()
            var info = stat()
            #expect(lstat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
            #expect((try? FileManager.default.contentsOfDirectory(atPath: directory)) == ["ctl.sock"])
            try? listener.close()
            UnixSocket.remove(path, inode: inode)
        }
        #expect(outcome.refused == 0, "connections refused while the path existed: \(outcome.refused) of 200")
    }
}

