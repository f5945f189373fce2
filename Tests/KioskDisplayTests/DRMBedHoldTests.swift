import CDRM
import Foundation
import Glibc
import Testing
@testable import KioskCore
@testable import KioskDisplay

/// The guest half of Tests/System/test_drm.py. The host looks at the screen (QMP screendump)
/// while these hold it; they talk through files in KIOSK_DRM_BED_DIR, a directory shared with
/// the host. Disabled unless that variable is set.
@Suite(.serialized, .enabled(if: BedHandshake.directory != nil, "set KIOSK_DRM_BED_DIR (Tests/System/test_drm.py does)"))
struct DRMBedHoldTests {
    /// Opens the display, shows the test pattern, and holds it until the host has looked; then
    /// measures page flips, closes and holds again so the host can see the console is back.
    @Test func holdPatternForTheHost() throws {
        let bed = try #require(BedHandshake())
        // Closing the display must not be the card's last close: the kernel would then restore
        // the console by itself and hide a broken restore.
        let guardFD = try CardTests.openWithoutMaster()
        defer { Glibc.close(guardFD) }
        try bed.signal("opening")
        try bed.await("go")
        let openStart = monotonicSeconds()
        let display = try DRMDisplay(options: DRMDisplayOptions(card: CardTests.card, api: CardTests.api))
        let openSeconds = monotonicSeconds() - openStart
        let buffer = try display.backBuffer()
        TestPattern.draw(into: buffer)
        let shownAt = try display.present(buffer)
        try bed.signal("ready.json", json: [
            "driver": display.driverName, "api": display.api.rawValue, "connector": display.connectorName,
            "mode": display.mode.description, "width": display.size.width, "height": display.size.height,
            "refresh_interval": display.refreshInterval.seconds, "shown_at": shownAt,
            "apiFallbackReason": display.apiFallbackReason ?? "", "open_seconds": openSeconds,
            "flips_on_vblank": display.flipsOnVblank,
        ])
        try bed.await("release")

        // Pacing: N presents; on hardware they take N refresh intervals. bochs and virtio-gpu
        // have no vblank and complete flips at once, so the host only checks they all complete
        // with increasing CLOCK_MONOTONIC stamps.
        let count = 60
        var stamps: [Double] = []
        var presentSeconds: [Double] = []   // from the flip request to present's return
        let start = monotonicSeconds()
        for _ in 0..<count {
            let back = try display.backBuffer()
            TestPattern.draw(into: back)
            let requested = monotonicSeconds()
            stamps.append(try display.present(back))
            presentSeconds.append(monotonicSeconds() - requested)
        }
        let wall = monotonicSeconds() - start
        let intervals = zip(stamps, stamps.dropFirst()).map { $1 - $0 }
        try bed.signal("flips.json", json: [
            "count": stamps.count, "wall_seconds": wall, "first": stamps.first!, "last": stamps.last!,
            "min_interval": intervals.min() ?? 0, "max_interval": intervals.max() ?? 0,
            "mean_interval": intervals.reduce(0, +) / Double(max(1, intervals.count)),
            "increasing": zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 },
            "refresh_interval": display.refreshInterval.seconds,
            "present_mean": presentSeconds.reduce(0, +) / Double(count), "present_max": presentSeconds.max() ?? 0,
        ])
        let closeStart = monotonicSeconds()
        try display.close()
        try bed.signal("closed.json", json: ["close_seconds": monotonicSeconds() - closeStart])
        try bed.await("done")
    }

    /// Run as a second process while `holdPatternForTheHost` holds the screen.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["KIOSK_DRM_EXPECT_HELD"] == "1"))
    func secondProcessIsRefused() throws {
        let bed = try #require(BedHandshake())
        let opened = Result { () throws(DRMError) in
            try DRMDisplay(options: DRMDisplayOptions(card: CardTests.card, api: CardTests.api))
        }
        switch opened {
        case .success(let display):
            try bed.signal("second.json", json: ["opened": true, "summary": display.summary])
            Issue.record("opened the display while another process holds it")
        case .failure(let error):
            try bed.signal("second.json", json: ["opened": false, "error": error.description])
            guard case .anotherMaster = error else { Issue.record("expected anotherMaster, got \(error)"); return }
        }
    }
}

/// Files in the shared directory: the guest writes (signal), the host creates (await).
struct BedHandshake {
    static var directory: String? { ProcessInfo.processInfo.environment["KIOSK_DRM_BED_DIR"] }
    let directory: String

    init?() {
        guard let directory = Self.directory else { return nil }
        self.directory = directory
    }

    struct Timeout: Error, CustomStringConvertible {
        let name: String
        var description: String { "the host did not create \(name) in time" }
    }

    func signal(_ name: String, json: [String: Any] = [:]) throws {
        let data = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
        // Written whole under another name, then renamed: the host never reads half a file.
        let path = directory + "/" + name
        try data.write(to: URL(fileURLWithPath: path + ".tmp"))
        guard rename(path + ".tmp", path) == 0 else { throw CardTests.CannotOpen(errno: errno) }
    }

    func await(_ name: String, timeout: Double = 120) throws {
        let deadline = monotonicSeconds() + timeout
        while !FileManager.default.fileExists(atPath: directory + "/" + name) {
            guard monotonicSeconds() < deadline else { throw Timeout(name: name) }
            usleep(20_000)
        }
    }
}
