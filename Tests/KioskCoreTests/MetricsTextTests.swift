import Foundation
import Testing
@testable import KioskCore

/// `metrics.textfile`'s pure parts: Prometheus' text format, the health's families, the counters
/// kept from events, and the `metrics` section of kiosk.conf.
@Suite struct MetricsTextTests {
    @Test func familiesAreHelpTypeAndSamplesWithEscapedLabels() {
        let text = MetricsText.render([
            MetricFamily("a_total", .counter, help: "Counted\nhere \\ there.", value: 3),
            MetricFamily("b", .gauge, help: "B.", samples: [.init(1.5, labels: [("x", "say \"hi\"\n\\")]), .init(0, labels: [("x", "y")])]),
            MetricFamily("c", .gauge, help: "Absent.", samples: []),
        ])
        #expect(text == """
            # HELP a_total Counted\\nhere \\\\ there.
            # TYPE a_total counter
            a_total 3
            # HELP b B.
            # TYPE b gauge
            b{x="say \\"hi\\"\\n\\\\"} 1.5
            b{x="y"} 0

            """)
    }

    @Test(arguments: [(0.0, "0"), (1_795_435_200.0, "1795435200"), (-2, "-2"), (0.25, "0.25"), (Double.nan, "NaN"),
                      (Double.infinity, "+Inf"), (-Double.infinity, "-Inf"), (1e300, "1e+300")])
    func numbersAreWrittenAsPrometheusReadsThem(value: Double, written: String) {
        #expect(MetricsText.number(value) == written)
    }

    static func lines(_ snapshot: HealthSnapshot) -> [String] {
        snapshot.text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
    }

    @Test func aPlayingKioskSaysItsStateFramesAndLastPicture() {
        var counters = HealthCounters()
        let item = PlayerItemReference(serial: 1, name: "a")
        for event: PlaybackEvent in [.itemStarted(item), .itemFailed(item, reason: "no video or audio stream"),
                                     .itemStarted(item), .itemFailed(item, reason: "stalled: no new frame and no sound for 10 s"),
                                     .itemEnded(item)] {
            counters.count(event)
        }
        let snapshot = HealthSnapshot(version: "0.1.0", startTime: 1_795_435_200, state: .playing, itemIndex: 2,
                                      playlistCount: 3, framesPresented: 1500, framesDropped: 4, lastPicture: 1_795_435_260.5,
                                      pictureOverdue: 0.04, counters: counters,
                                      temperatures: [.init(zone: "thermal_zone0", sensor: "cpu-thermal", celsius: 48.312)])
        let lines = Self.lines(snapshot)
        for expected in ["kiosk_build_info{version=\"0.1.0\"} 1", "kiosk_start_time_seconds 1795435200",
                         "kiosk_state{state=\"playing\"} 1", "kiosk_state{state=\"paused\"} 0",
                         "kiosk_state{state=\"waitingToPlayAtSpecifiedRate\"} 0", "kiosk_item_index 2", "kiosk_playlist_items 3",
                         "kiosk_frames_presented_total 1500", "kiosk_frames_dropped_total 4",
                         "kiosk_last_frame_timestamp_seconds 1795435260.5", "kiosk_picture_overdue_seconds 0.04", "kiosk_display_failing 0", "kiosk_running 1",
                         "kiosk_items_started_total 2", "kiosk_items_failed_total 2", "kiosk_stalls_total 1",
                         "kiosk_temperature_celsius{zone=\"thermal_zone0\",sensor=\"cpu-thermal\"} 48.312"] {
            #expect(lines.contains(expected), "\(expected) in \(lines)")
        }
        #expect(!lines.contains { $0.hasPrefix("kiosk_under_voltage") }, "not a Pi: no under-voltage series")
    }

    @Test func whatIsNotKnownIsAbsentNotZero() {
        let snapshot = HealthSnapshot(version: "0.1.0", startTime: 10, state: .waitingToPlayAtSpecifiedRate)
        let text = snapshot.text
        #expect(!text.contains("kiosk_item_index"))
        #expect(!text.contains("kiosk_last_frame_timestamp_seconds"))
        #expect(!text.contains("kiosk_temperature_celsius"))
        #expect(text.contains("kiosk_state{state=\"waitingToPlayAtSpecifiedRate\"} 1"))
    }

    /// The file a clean stop leaves: kiosk not running, in no state, on no item, nothing overdue,
    /// so a rule on the state does not take a stop for a frozen screen.
    @Test func theFileOfACleanStopSaysStoppedAndNoState() {
        let snapshot = HealthSnapshot(version: "0.1.0", startTime: 10, state: .playing, itemIndex: 1, framesPresented: 9,
                                      pictureOverdue: 3, running: false)
        let lines = Self.lines(snapshot)
        #expect(lines.contains("kiosk_running 0"))
        #expect(lines.filter { $0.hasPrefix("kiosk_state{") }.allSatisfy { $0.hasSuffix(" 0") })
        #expect(!lines.contains { $0.hasPrefix("kiosk_item_index") })
        #expect(lines.contains("kiosk_picture_overdue_seconds 0"))
        #expect(lines.contains("kiosk_frames_presented_total 9"), "the counts stay")
    }

    @Test func aPiSaysItsUnderVoltageNowAndSinceBoot() {
        let snapshot = HealthSnapshot(version: "0.1.0", startTime: 10, underVoltage: .init(now: false, sinceBoot: true))
        let lines = Self.lines(snapshot)
        #expect(lines.contains("kiosk_under_voltage 0"))
        #expect(lines.contains("kiosk_under_voltage_since_boot 1"))
    }

    @Test func everyCounterEndsInTotalAndEveryNameIsOneFamily() {
        let families = HealthSnapshot(version: "0.1.0", startTime: 10, underVoltage: .init(now: true, sinceBoot: true),
                                      sync: .init(lastSuccess: 5, failures: 1, storeFreeBytes: 1), mqttConnected: true).families
        #expect(families.contains { $0.name == "kiosk_sync_failures_total" } && families.contains { $0.name == "kiosk_mqtt_connected" })
        #expect(Set(families.map(\.name)).count == families.count)
        for family in families {
            #expect((family.kind == .counter) == family.name.hasSuffix("_total"), "\(family.name)")
            #expect(family.name.range(of: "^kiosk_[a-z_]+$", options: .regularExpression) != nil, "\(family.name)")
        }
    }

    /// The alerts a fleet hears (the MQTT status, `get health`): each a few words, none while
    /// all is well or once stopped.
    @Test func alertsSayWhatIsWrongInAFewWords() {
        var snapshot = HealthSnapshot(version: "0.1.0", startTime: 0, state: .playing, pictureOverdue: 0.04,
                                      temperatures: [.init(zone: "thermal_zone0", sensor: "cpu-thermal", celsius: 55)])
        #expect(snapshot.alerts == [])
        snapshot.pictureOverdue = 42.7
        snapshot.displayFailing = true
        snapshot.underVoltage = .init(now: false, sinceBoot: true)
        snapshot.temperatures.append(.init(zone: "thermal_zone1", sensor: "gpu-thermal", celsius: 86.2))
        #expect(snapshot.alerts == ["picture frozen for 42 s", "display failing", "under-voltage since boot", "gpu-thermal at 86 °C"])
        snapshot.state = .paused
        #expect(!snapshot.alerts.contains { $0.hasPrefix("picture frozen") }, "a paused picture is held on purpose")
        snapshot.running = false
        #expect(snapshot.alerts == [])
    }

    /// Waiting for data is no stall (a live source with no sender is waited for, never skipped),
    /// but ten seconds of it without a picture is an alert, from the start or the last picture.
    @Test func waitingLongForDataIsAnAlert() {
        var snapshot = HealthSnapshot(version: "0.1.0", startTime: 1000, state: .waitingToPlayAtSpecifiedRate)
        snapshot.waitingForDataSince = 1000
        snapshot.sampledAt = 1009
        #expect(snapshot.alerts == [])
        snapshot.sampledAt = 1012.5
        #expect(snapshot.alerts == ["no picture yet: waiting for data for 12 s"])
        // A still shown for 10 s before the next item opens: counted from the waiting, not the picture.
        snapshot.lastPicture = 1000
        snapshot.waitingForDataSince = 1010.2
        #expect(snapshot.alerts == [], "2.3 s of waiting")
        snapshot.sampledAt = 1030
        #expect(snapshot.alerts == ["no new picture: waiting for data for 19 s"])
        snapshot.displayOn = false
        #expect(snapshot.alerts == [], "a screen switched off waits on purpose")
        snapshot.displayOn = true
        snapshot.waitingForDataSince = nil
        #expect(snapshot.alerts == [], "not waiting for data (nothing to play, the idle screen)")
        snapshot.waitingForDataSince = 1000
        snapshot.state = .paused
        #expect(snapshot.alerts == [])
    }

    @Test func theHealthPropertyGivesAgesNotTimestamps() {
        let snapshot = HealthSnapshot(version: "0.1.0", startTime: 1000, state: .playing, itemIndex: 0, framesPresented: 10,
                                      lastPicture: 1099.75, pictureOverdue: 0.25)
        let value = snapshot.controlValue(at: 1100)
        #expect(value.json == #"{"alerts":[],"state":"playing","item":0,"frames_presented":10,"frames_dropped":0,"last_frame_age":0.25,"picture_overdue":0.25,"display_failing":false,"display_connected":null,"display_hotplugs":0,"tv_power_on":null,"items_started":0,"items_failed":0,"stalls":0,"temperatures":[],"under_voltage":null,"sync":null,"mqtt_connected":null,"disks":[],"uptime":100.0}"#)
    }

    /// The disks kiosk writes to: figures by use (a fixed label, never a path), and an alert
    /// below 64 MiB free, which names the use and the MiB left.
    @Test func aDiskNearlyFullIsAnAlertAndItsFiguresAreSaid() {
        var snapshot = HealthSnapshot(version: "0.1.0", startTime: 0, state: .playing)
        snapshot.disks = [.init(use: "state", space: DiskSpace(free: 5 << 30, size: 16 << 30)),
                          .init(use: "uploads", space: DiskSpace(free: 10 << 20, size: 32 << 30))]
        #expect(snapshot.alerts == ["uploads disk almost full: 10 MiB free"])
        let lines = Self.lines(snapshot)
        #expect(lines.contains("kiosk_disk_free_bytes{use=\"state\"} 5368709120"))
        #expect(lines.contains("kiosk_disk_free_bytes{use=\"uploads\"} 10485760"))
        #expect(lines.contains("kiosk_disk_size_bytes{use=\"uploads\"} 34359738368"))
        #expect(snapshot.controlValue(at: 0)["disks"]?.json
                == #"[{"use":"state","free_bytes":5368709120,"size_bytes":17179869184},{"use":"uploads","free_bytes":10485760,"size_bytes":34359738368}]"#)
        snapshot.disks[1].space.free = HealthSnapshot.diskLowBelow
        #expect(snapshot.alerts == [], "64 MiB free is not an alert yet")
        #expect(!Self.lines(HealthSnapshot(version: "0.1.0", startTime: 0)).contains { $0.hasPrefix("kiosk_disk") },
                "no disk known: no family")
    }

    @Test func contentSyncAndTheBrokerAreSaidWhenConfigured() {
        let snapshot = HealthSnapshot(version: "0.1.0", startTime: 0,
                                      sync: .init(lastSuccess: 1_795_435_200, failures: 2, storeFreeBytes: 5e9), mqttConnected: false)
        let lines = Self.lines(snapshot)
        #expect(lines.contains("kiosk_sync_last_success_timestamp_seconds 1795435200"))
        #expect(lines.contains("kiosk_sync_failures_total 2"))
        #expect(lines.contains("kiosk_store_free_bytes 5000000000"))
        #expect(lines.contains("kiosk_mqtt_connected 0"))
        let value = snapshot.controlValue(at: 1_795_435_260)
        #expect(value["sync"]?.json == #"{"last_success_age":60.0,"failures":2,"store_free_bytes":5000000000}"#)
        #expect(value["mqtt_connected"] == .bool(false))
        let off = Self.lines(HealthSnapshot(version: "0.1.0", startTime: 0))
        #expect(!off.contains { $0.hasPrefix("kiosk_sync") || $0.hasPrefix("kiosk_store") || $0.hasPrefix("kiosk_mqtt") })
    }

    static let items = "items: [a.mp4]\n"

    @Test func theSectionNamesANodeExporterFileAndAnInterval() throws {
        let config = try ConfigLoader.parse(text: "metrics: {textfile: prom/kiosk.prom, interval: 30}\n" + Self.items,
                                            fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                                            fileSystem: FakeFileSystem(files: ["/srv/kiosk/a.mp4"]))
        #expect(config.metrics.textfile == "/srv/kiosk/prom/kiosk.prom")
        #expect(config.metrics.interval == MediaTime(value: 30, timescale: 1))
        let plain = try ConfigLoader.parse(text: Self.items, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                                           fileSystem: FakeFileSystem(files: ["/srv/kiosk/a.mp4"]))
        #expect(plain.metrics.textfile == nil)
        #expect(plain.metrics.interval == MetricsConfig.defaultInterval)
    }

    @Test(arguments: [
        ("metrics:\n  textfile: /var/lib/node/kiosk.txt\n", 2, 13,
         "'textfile' in metrics is '/var/lib/node/kiosk.txt', which node_exporter would not read; expected the path of a .prom file"),
        ("metrics:\n  textfile: a.prom\n  interval: 0.5\n", 3, 13, "'interval' in metrics is 0.5; expected seconds >= 1"),
        ("metrics:\n  textfile: a.prom\n  interval: 7200\n", 3, 13, "'interval' in metrics is 7200; expected seconds from 1 to 3600"),
        ("metrics:\n  textfle: a.prom\n", 2, 3, "unknown key 'textfle' in metrics; expected one of: textfile, interval, listen (did you mean 'textfile'?)"),
        ("metrics:\n  listen: localhost:9477\n", 2, 11,
         "'listen' in metrics is 'localhost:9477'; expected an address and port like 127.0.0.1:9477, [::1]:9477 or 0.0.0.0:9477"),
    ])
    func badValuesAreOneDiagnosticAtTheirPlace(yaml: String, line: Int, column: Int, fragment: String) {
        let diagnostics = parseDiagnostics(yaml + Self.items, files: ["/srv/kiosk/a.mp4"])
        #expect(diagnostics.count == 1, "\(diagnostics)")
        #expect(diagnostics.contains { $0.line == line && $0.column == column && $0.message.contains(fragment) },
                "\(diagnostics)")
    }

    @Test func theExampleFilesSectionReadsAsItsCommentsSay() throws {
        let section = try #require(try ExampleConfigFile.commentedSection("# metrics:"))
        let config = try ConfigLoader.parse(text: section + "\n" + Self.items, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                                            fileSystem: FakeFileSystem(files: ["/srv/kiosk/a.mp4"]))
        #expect(config.metrics.textfile == "/var/lib/prometheus/node-exporter/kiosk.prom")
        #expect(config.metrics.interval == MetricsConfig.defaultInterval)
        #expect(config.metrics.listen == ListenAddress(host: "127.0.0.1", port: 9477))
    }

    @Test(arguments: [("127.0.0.1:9477", "127.0.0.1", 9477), ("0.0.0.0:80", "0.0.0.0", 80), ("[::1]:9477", "::1", 9477),
                      ("[fe80::1]:1", "fe80::1", 1)])
    func listenAddressesAreIPLiteralsWithAPort(text: String, host: String, port: Int) throws {
        let address = try #require(ListenAddress(parsing: text))
        #expect(address == ListenAddress(host: host, port: port))
        #expect(address.description == text)
    }

    @Test(arguments: ["localhost:9477", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536", "256.1.1.1:80", "::1:9477",
                      "[::1]9477", "[lobby]:80", "1.2.3:80", "127.0.0.1:9x", "", "1²7.0.0.1:9477", "127.0.0.1:９４７７",
                      "١٢٧.0.0.1:80"])
    func anythingElseIsNoListenAddress(text: String) {
        #expect(ListenAddress(parsing: text) == nil)
    }

    @Test func aChangedSectionAppliesAtRestart() {
        var old = KioskConfig(), new = KioskConfig()
        old.metrics.textfile = "/a.prom"
        new.metrics.textfile = "/b.prom"
        #expect(ConfigChanges(from: old, to: new).parts == [.metrics])
        #expect(ConfigPart.metrics.application == .onRestart)
        #expect(new.appliedLive(to: old).metrics == old.metrics)
    }
}
