import Foundation
import KioskCore
import Logging
import Testing
@testable import KioskService

/// Home Assistant's screen image: a screenshot published at once on each connection and every
/// interval while connected, nothing while the broker is away, a failing screenshot one line
/// and no message.
@Suite struct FleetScreenPublisherTests {
    final class Recorder: @unchecked Sendable {
        // Safe to share: guarded by `lock`.
        private let lock = NSLock()
        private var sent: [(topic: String, bytes: [UInt8])] = []
        private var online = false
        private var serial = 0
        private var shots = 0
        private var fails = false
        var failing: Bool {
            get { lock.withLock { fails } }
            set { lock.withLock { fails = newValue } }
        }

        var messages: [(topic: String, bytes: [UInt8])] { lock.withLock { sent } }
        /// Connected now, and the connection's number.
        var connection: (connected: Bool, serial: Int) { lock.withLock { (online, serial) } }
        func connect() { lock.withLock { online = true; serial += 1 } }
        func disconnect() { lock.withLock { online = false } }
        func shoot(_ path: String) throws {
            let (count, failed) = lock.withLock { () -> (Int, Bool) in
                shots += 1
                return (shots, fails)
            }
            if failed { throw FleetSetupError("the display is off") }
            try Data("picture \(count)".utf8).write(to: URL(fileURLWithPath: path))
        }
        func publish(_ topic: String, _ bytes: [UInt8]) { lock.withLock { sent.append((topic, bytes)) } }
    }

    static func waitFor(_ done: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while !done() && Date() < deadline { usleep(20_000) }
        return done()
    }

    @Test func aPictureOnEachConnectionAndNoneWhileAway() throws {
        let recorder = Recorder()
        let directory = NSTemporaryDirectory() + "kiosk-screen-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let publisher = FleetScreenPublisher(interval: 3600, topic: "kiosk/lobby/screen", directory: directory,
                                             shoot: { try recorder.shoot($0) }, publish: { recorder.publish($0, $1) },
                                             connection: { recorder.connection }, logger: Logger(label: "screen-tests"))
        publisher.start()
        defer {
            publisher.stop()
            // Its folder goes with its thread (which sleeps up to a second between looks).
            #expect(Self.waitFor { (try? FileManager.default.contentsOfDirectory(atPath: directory))?.isEmpty == true },
                    "the publisher's folder is removed once it stops")
        }
        usleep(1_500_000)
        #expect(recorder.messages.isEmpty, "nothing while the broker is away")
        recorder.connect()
        #expect(Self.waitFor { recorder.messages.count == 1 })
        #expect(recorder.messages.first?.topic == "kiosk/lobby/screen")
        #expect(recorder.messages.first.map { String(decoding: $0.bytes, as: UTF8.self) } == "picture 1")
        usleep(1_500_000)
        #expect(recorder.messages.count == 1, "the next one an interval later")
        let folders = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(folders.count == 1 && folders[0].hasPrefix("kiosk-screen-"), "a folder of its own: \(folders)")
        // Away and back between two looks of the thread: still a new connection.
        recorder.disconnect()
        recorder.connect()
        #expect(Self.waitFor { recorder.messages.count == 2 }, "again on the new connection")
        recorder.failing = true
        publisher.publishOnce()
        #expect(recorder.messages.count == 2, "a failed screenshot publishes nothing")
    }

    /// A publisher made and never started (MQTT set up, then a config error) leaves no folder.
    @Test func aPublisherNeverStartedLeavesNoFolder() throws {
        let directory = NSTemporaryDirectory() + "kiosk-screen-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let publisher = FleetScreenPublisher(interval: 60, topic: "kiosk/lobby/screen", directory: directory,
                                                 shoot: { _ in }, publish: { _, _ in }, connection: { (false, 0) },
                                                 logger: Logger(label: "screen-tests"))
            withExtendedLifetime(publisher) {
                #expect((try? FileManager.default.contentsOfDirectory(atPath: directory))?.count == 1, "made its folder")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty, "and removed it as it went")
    }

    /// The broker answers before the first frame: that picture cannot be taken, and the next try
    /// comes within seconds, not an interval (an hour here) later.
    @Test func aPictureThatCouldNotBeTakenIsTriedAgainSoon() throws {
        let recorder = Recorder()
        recorder.failing = true
        let publisher = FleetScreenPublisher(interval: 3600, topic: "kiosk/lobby/screen",
                                             shoot: { try recorder.shoot($0) }, publish: { recorder.publish($0, $1) },
                                             connection: { recorder.connection }, logger: Logger(label: "screen-tests"))
        recorder.connect()
        publisher.start()
        defer { publisher.stop() }
        usleep(1_500_000)
        #expect(recorder.messages.isEmpty)
        recorder.failing = false
        #expect(Self.waitFor { recorder.messages.count == 1 }, "tried again within the 30 s deadline")
    }
}
