import Foundation
import Glibc
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// The one inotify reader: records parsed by offset (names NUL-padded, a record cut short left
/// out), and a real instance seeing a file made, written and removed in a watched directory.
@Test func recordsAreParsedByOffsetWithTheirPaddedNames() {
    var bytes: [UInt8] = []
    func record(_ watch: Int32, _ mask: UInt32, _ name: String, padded: Int) {
        withUnsafeBytes(of: watch.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: mask.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: UInt32(0)) { bytes += $0 }   // cookie
        withUnsafeBytes(of: UInt32(padded).littleEndian) { bytes += $0 }
        bytes += Array(name.utf8) + [UInt8](repeating: 0, count: padded - name.utf8.count)
    }
    record(1, UInt32(IN_CREATE), "clip.mp4", padded: 16)
    record(2, UInt32(IN_DELETE_SELF), "", padded: 0)
    record(1, UInt32(IN_MOVED_TO), "Ünïcode name.mkv", padded: 32)
    let whole = bytes
    record(3, UInt32(IN_CREATE), "cut", padded: 16)
    let events = bytes.dropLast(4).withUnsafeBytes { InotifyEvent.parse($0) }
    #expect(events == [InotifyEvent(watch: 1, mask: UInt32(IN_CREATE), name: "clip.mp4"),
                       InotifyEvent(watch: 2, mask: UInt32(IN_DELETE_SELF), name: ""),
                       InotifyEvent(watch: 1, mask: UInt32(IN_MOVED_TO), name: "Ünïcode name.mkv")])
    #expect(whole.withUnsafeBytes { InotifyEvent.parse($0) }.count == 3)
    #expect(events[0].has(IN_CREATE | IN_MOVED_TO) && !events[0].has(IN_DELETE))
}

@Test func aWatchedDirectoryReportsAFileMadeWrittenAndRemoved() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-inotify-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let inotify = try Inotify()
    let watch = try inotify.watch(directory, for: IN_CREATE | IN_CLOSE_WRITE | IN_DELETE)
    #expect(inotify.readEvents().isEmpty, "nothing yet, and the read does not block")
    try Data([1, 2, 3]).write(to: URL(fileURLWithPath: directory + "/a.mp4"))   // not atomic: no temporary
    try FileManager.default.removeItem(atPath: directory + "/a.mp4")
    var events: [InotifyEvent] = []
    // A deadline for a hang, not a speed: the kernel queues the records at once.
    let deadline = Date(timeIntervalSinceNow: 10)
    while !events.contains(where: { $0.has(IN_DELETE) }) && Date() < deadline {
        var poller = pollfd(fd: inotify.descriptor, events: Int16(POLLIN), revents: 0)
        if poll(&poller, 1, 100) > 0 { events += inotify.readEvents() }
    }
    #expect(events.map(\.name) == ["a.mp4", "a.mp4", "a.mp4"])
    #expect(events.allSatisfy { $0.watch == watch })
    #expect(events[0].has(IN_CREATE) && events[1].has(IN_CLOSE_WRITE) && events[2].has(IN_DELETE))
    #expect(throws: InotifyError.self) { try inotify.watch(directory + "/missing", for: IN_CREATE) }
}
