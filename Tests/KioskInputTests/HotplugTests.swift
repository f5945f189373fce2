import Foundation
import KioskCore
import Logging
import KioskTestSupport
import Testing
@testable import KioskInput

/// A fresh directory standing in for /dev/input.
private func scratchDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-input-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

@Suite struct HotplugWatcherTests {
    @Test func createAttribAndDeleteOfEventNodes() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let watcher = try #require(HotplugWatcher(directory: directory))
        #expect(FileManager.default.createFile(atPath: directory + "/event7", contents: nil))
        #expect(FileManager.default.createFile(atPath: directory + "/mouse0", contents: nil))   // not an event node
        chmod(directory + "/event7", 0o660)
        unlink(directory + "/event7")
        let changes = watcher.readChanges()
        #expect(changes == [.appeared(path: directory + "/event7", created: true),
                            .appeared(path: directory + "/event7", created: false),
                            .removed(path: directory + "/event7")])
        #expect(watcher.readChanges() == [])
    }

    @Test func aDirectoryThatAppearsLaterIsWatchedFromThen() throws {
        let parent = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let watcher = try #require(HotplugWatcher(directory: parent + "/input"))
        try FileManager.default.createDirectory(atPath: parent + "/input", withIntermediateDirectories: false)
        #expect(watcher.readChanges() == [.directoryAppeared])
        #expect(FileManager.default.createFile(atPath: parent + "/input/event0", contents: nil))
        #expect(watcher.readChanges() == [.appeared(path: parent + "/input/event0", created: true)])
    }
}

@Suite struct InputServiceHostTests {
    @Test func notADeviceIsLoggedNotFatalAndStopIsPrompt() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(FileManager.default.createFile(atPath: directory + "/event0", contents: Data("not a device".utf8)))
        let log = CapturedLog()
        let service = InputService(config: InputConfig(), screen: InputScreen(scanout: PixelSize(width: 640, height: 480), rotation: .none),
                                   player: RecordingPlayer(), logger: log.logger, directory: directory)
        service.start()
        #expect(log.waitFor { $0.contains("cannot open \(directory)/event0: not an evdev device") })
        // Plugged in later: looked at as soon as it appears, with the same clear message.
        #expect(FileManager.default.createFile(atPath: directory + "/event1", contents: Data("nor this".utf8)))
        #expect(log.waitFor { $0.contains("cannot open \(directory)/event1: not an evdev device") })
        let start = Date()
        #expect(service.stop())
        #expect(Date().timeIntervalSince(start) < 0.5)
        #expect(service.stop(), "a second stop is harmless")
    }

    @Test func noDevicesIsANotice() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = CapturedLog()
        let service = InputService(config: InputConfig(), screen: InputScreen(scanout: PixelSize(width: 640, height: 480), rotation: .none),
                                   player: RecordingPlayer(), logger: log.logger, directory: directory)
        service.start()
        #expect(log.waitFor { $0.contains("notice: input: no touchscreen or keyboard found; devices plugged in later will be used") })
        #expect(service.stop())
        #expect(!log.formatted.contains { $0.hasPrefix("error") || $0.hasPrefix("warning") }, "\(log.formatted)")
    }
}

