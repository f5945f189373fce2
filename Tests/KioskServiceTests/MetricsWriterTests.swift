import Foundation
import KioskCore
import KioskPlayer
import Logging
import Testing
@testable import KioskService
import KioskHTTP

/// `metrics.textfile`'s service: the file written whole from a player's figures and events, and
/// the box's sensors read from a tree laid out as sysfs and procfs are.
@Suite struct MetricsWriterTests {
    final class FakeSource: HealthSource, @unchecked Sendable {
        // Safe to share: fields are set before the writer reads them, on the test's thread.
        var timeControlStatus = TimeControlStatus.playing
        var waitingForDataSince: Double?
        var currentItemIndex: Int? = 1
        var playlistCount = 2
        var framesPresented = 250
        var framesDropped = 3
        var presenterHealth = PresenterHealth(startedAt: MonotonicClock().now())
        var isDisplayOn = true
    }

    static func directory(_ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "kiosk-metrics-\(name)-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func write(_ text: String, _ path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    static func samples(_ text: String) -> [String: String] {
        var samples: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            samples[String(parts[0])] = String(parts[1])
        }
        return samples
    }

    @Test func theFileSaysThePlayersFiguresAndTheEventsCounted() throws {
        let root = try Self.directory("writer")
        let path = root + "/kiosk.prom"
        var config = MetricsConfig()
        config.interval = MediaTime(value: 3600, timescale: 1)
        let source = FakeSource()
        // The last picture 2 s ago on the monotonic clock: 2 s before now in Unix time.
        source.presenterHealth.lastPicture = MonotonicClock().now() - 2
        let sampler = HealthSampler(sensors: BoxSensors(sys: root + "/none", proc: root + "/none", stateDirectory: root),
                                    startTime: 1_795_435_200)
        let writer = MetricsWriter(config: config, path: path, sampler: sampler, logger: Logger(label: "metrics-tests"))
        let item = PlayerItemReference(serial: 1, name: "a")
        sampler.observe(.playback(.itemStarted(item), item: 0, time: .zero))
        sampler.observe(.playback(.itemFailed(item, reason: "stalled: no new frame and no sound for 10 s while playing (at 1 s)"),
                                  item: 0, time: .zero))
        sampler.observe(.time(.zero, item: 0))
        sampler.attach(source)
        writer.begin()
        // The first write is made before `begin` returns.
        let running = Self.samples(try String(contentsOfFile: path, encoding: .utf8))
        #expect(running["kiosk_item_index"] == "1")
        #expect(running["kiosk_state{state=\"playing\"}"] == "1")
        #expect(running["kiosk_running"] == "1")
        writer.finish()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let samples = Self.samples(text)
        #expect(samples["kiosk_frames_presented_total"] == "250")
        #expect(samples["kiosk_frames_dropped_total"] == "3")
        #expect(samples["kiosk_items_started_total"] == "1")
        #expect(samples["kiosk_stalls_total"] == "1")
        #expect(samples["kiosk_start_time_seconds"] == "1795435200")
        let last = try #require(samples["kiosk_last_frame_timestamp_seconds"].flatMap(Double.init))
        #expect(abs(Date().timeIntervalSince1970 - 2 - last) < 1, "\(last)")
        #expect(!FileManager.default.fileExists(atPath: AtomicFile.temporaryPath(for: path)))
        #expect(!text.contains("kiosk_temperature_celsius"), "no thermal zones in the tree")
    }

    /// The state directory's and the uploads' file systems, read with statvfs: one figure per file
    /// system (two folders on one disk are the first's), a folder that is gone left out.
    @Test func theDisksAreReadOncePerFileSystem() throws {
        let root = try Self.directory("disks")
        let sensors = BoxSensors(sys: root, proc: root, stateDirectory: root,
                                 disks: [(use: "state", path: root), (use: "uploads", path: root), (use: "gone", path: root + "/none")])
        let disks = sensors.diskSpace()
        #expect(disks.map(\.use) == ["state"], "\(disks)")
        let space = try #require(disks.first?.space)
        #expect(space.size > 0 && space.free >= 0 && space.free <= space.size, "\(space)")
        let sampler = HealthSampler(sensors: sensors, freshness: 0)
        let source = FakeSource()   // held: the sampler keeps its player weakly
        sampler.attach(source)
        #expect(sampler.health?.disks.map(\.use) == ["state"])
    }

    /// A presenter that has shown nothing new for 5 s: the overdue seconds say so and grow; none
    /// expected (paused): 0. The clean stop's file says kiosk stopped.
    @Test func theOverdueSecondsGrowOnAFrozenPictureAndTheStopSaysStopped() throws {
        let root = try Self.directory("frozen")
        let source = FakeSource()
        source.presenterHealth.progressOverdueSince = MonotonicClock().now() - 5
        let sampler = HealthSampler(sensors: BoxSensors(sys: root, proc: root, stateDirectory: root), freshness: 0)
        let writer = MetricsWriter(config: MetricsConfig(), path: root + "/k.prom", sampler: sampler, logger: Logger(label: "t"))
        #expect(sampler.health == nil, "no player yet")
        sampler.attach(source)
        writer.begin()
        let first = try #require(sampler.health?.pictureOverdue)
        #expect(first >= 5 && first < 60, "\(first)")
        #expect(sampler.health?.alerts == [], "5 s overdue is not an alert yet (10 s is)")
        usleep(20_000)
        #expect(try #require(sampler.health?.pictureOverdue) > first)
        source.presenterHealth.progressOverdueSince = MonotonicClock().now() - 12
        #expect(sampler.health?.alerts.first?.hasPrefix("picture frozen for 1") == true, "\(String(describing: sampler.health?.alerts))")
        source.presenterHealth.progressOverdueSince = nil
        #expect(sampler.health?.pictureOverdue == 0)
        #expect(sampler.health?.alerts == [])
        writer.finish()
        let samples = Self.samples(try String(contentsOfFile: root + "/k.prom", encoding: .utf8))
        #expect(samples["kiosk_running"] == "0")
        #expect(samples["kiosk_state{state=\"playing\"}"] == "0")
    }

    /// Asked again within a second, the same sample (the property observed every 100 ms neither
    /// reads sysfs each time nor changes each time); a counted event makes a new one.
    @Test func aSampleIsHandedOutAgainForASecond() throws {
        let root = try Self.directory("fresh")
        let source = FakeSource()
        let sampler = HealthSampler(sensors: BoxSensors(sys: root, proc: root, stateDirectory: root), freshness: 3600)
        sampler.attach(source)
        let first = try #require(sampler.health)
        source.framesPresented = 999
        #expect(sampler.health == first)
        #expect(first.sampledAt > 0)
        sampler.observe(.playback(.itemStarted(PlayerItemReference(serial: 1, name: "a")), item: 0, time: .zero))
        #expect(sampler.health?.framesPresented == 999)
        #expect(sampler.health?.counters.itemsStarted == 1)
    }

    @Test func theListenerAnswersMetricsOnlyAndSaysWhy() throws {
        let health = HealthSnapshot(version: "0.1.0", startTime: 10, framesPresented: 7)
        let found = MetricsListener.answer(HTTPRequest(method: "GET", path: "/metrics"), health: health)
        #expect(found.status == 200 && found.contentType == "text/plain; version=0.0.4; charset=utf-8")
        #expect(String(decoding: found.body, as: UTF8.self) == health.text)
        #expect(MetricsListener.answer(HTTPRequest(method: "GET", path: "/"), health: health).status == 404)
        let post = MetricsListener.answer(HTTPRequest(method: "POST", path: "/metrics"), health: health)
        #expect(post.status == 405 && post.headers.contains { $0 == ("Allow", "GET, HEAD") })
        #expect(MetricsListener.answer(HTTPRequest(method: "GET", path: "/metrics"), health: nil).status == 503)
    }

    @Test func thermalZonesAreReadInZoneOrderWithTheirType() throws {
        let root = try Self.directory("thermal")
        for (zone, type, temp) in [(10, "gpu-thermal", "51000"), (2, "cpu-thermal", "48312"), (3, "broken", "")] {
            try Self.write(type + "\n", "\(root)/class/thermal/thermal_zone\(zone)/type")
            try Self.write(temp + "\n", "\(root)/class/thermal/thermal_zone\(zone)/temp")
        }
        try Self.write("", "\(root)/class/thermal/cooling_device0/type")
        let sensors = BoxSensors(sys: root, proc: root, stateDirectory: root)
        #expect(sensors.temperatures() == [.init(zone: "thermal_zone2", sensor: "cpu-thermal", celsius: 48.312),
                                           .init(zone: "thermal_zone10", sensor: "gpu-thermal", celsius: 51)])
        #expect(sensors.underVoltage() == nil, "no rpi_volt hwmon: not a Pi")
    }

    /// The driver clears the firmware's sticky bit: an alarm seen once stays "since boot" for
    /// that boot only, across kiosk's restarts (the latch is a file), and a new boot starts clear.
    @Test func underVoltageIsLatchedOncePerBoot() throws {
        let root = try Self.directory("volt")
        let state = root + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try Self.write("cpu_thermal\n", "\(root)/sys/class/hwmon/hwmon0/name")
        try Self.write("rpi_volt\n", "\(root)/sys/class/hwmon/hwmon1/name")
        let alarm = "\(root)/sys/class/hwmon/hwmon1/in0_lcrit_alarm"
        let bootID = "\(root)/proc/sys/kernel/random/boot_id"
        try Self.write("0\n", alarm)
        try Self.write("6a1e1d2c-0000-4000-8000-000000000001\n", bootID)
        let sensors = BoxSensors(sys: root + "/sys", proc: root + "/proc", stateDirectory: state)
        #expect(sensors.underVoltage() == .init(now: false, sinceBoot: false))
        try Self.write("1\n", alarm)
        #expect(sensors.underVoltage() == .init(now: true, sinceBoot: true))
        try Self.write("0\n", alarm)
        #expect(sensors.underVoltage() == .init(now: false, sinceBoot: true))
        // kiosk restarted in the same boot: still latched.
        #expect(BoxSensors(sys: root + "/sys", proc: root + "/proc", stateDirectory: state).underVoltage()
                == .init(now: false, sinceBoot: true))
        // Another boot: clear until the next alarm.
        try Self.write("6a1e1d2c-0000-4000-8000-000000000002\n", bootID)
        #expect(sensors.underVoltage() == .init(now: false, sinceBoot: false))
    }
}
