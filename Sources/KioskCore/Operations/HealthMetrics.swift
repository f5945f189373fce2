/// What `metrics.textfile` says of one kiosk (README, "Metrics"): the player, the picture and the
/// box, as Prometheus families. Labels are few and fixed (a state, a sensor's type): never a file
/// name, so a fleet's series do not grow with its content. A value kiosk does not know is absent.
public struct HealthSnapshot: Sendable, Equatable {
    public var version: String
    /// Wall-clock seconds (Unix time) of the process's start.
    public var startTime: Double
    public var state: TimeControlStatus
    /// Since when (Unix time) it has waited for an item to open or buffer; nil while it does not.
    public var waitingForDataSince: Double?
    /// The playlist entry on screen (counted from 0); nil: none (the idle screen, an insert).
    public var itemIndex: Int?
    public var playlistCount: Int
    public var framesPresented: Int
    public var framesDropped: Int
    /// Wall-clock seconds of the last picture put on screen; nil before the first.
    public var lastPicture: Double?
    /// Seconds the next progress (a new frame, sound heard further) has been overdue while the
    /// player claims to play (`PresenterHealth.progressOverdueSince`): a frame's length while it
    /// plays, 0 while none is expected (paused), growing on a frozen picture.
    public var pictureOverdue: Double
    /// false in the file written at a clean stop: no state then, and nothing overdue.
    public var running: Bool
    /// Every attempt to put a picture on screen fails (a display gone, a flip that times out).
    public var displayFailing: Bool
    public var counters: HealthCounters
    /// Thermal zones in degrees Celsius: the zone (`thermal_zone0`) and its kernel type
    /// (`cpu-thermal`, `x86_pkg_temp`), a few per box.
    public var temperatures: [Temperature]
    /// A Raspberry Pi's under-voltage alarm now and whether it fired since boot; nil: not a Pi
    /// (no `rpi_volt` hwmon).
    public var underVoltage: UnderVoltage?
    /// Content sync's figures; nil when `sync.manifest` is none.
    public var sync: Sync?
    /// Whether the broker has kiosk connected; nil when `mqtt` is off.
    public var mqttConnected: Bool?
    /// Whether every screen's connector reads connected (`DisplayConnections.allConnected`);
    /// nil: headless, or connectors that cannot tell.
    public var displayConnected: Bool?
    /// Connector state changes seen since the start (a cable pulled, plugged in again).
    public var displayHotplugs = 0
    /// Whether the display is switched on (`display_power`): a TV switched off, or put to
    /// standby over CEC, may drop its hotplug line, which is then no alert.
    public var displayOn = true
    /// Whether the TV says over HDMI-CEC that it is on (or turning on); nil: CEC not used, or
    /// the TV does not answer.
    public var tvPowerOn: Bool?
    /// The file systems kiosk writes to (its state directory; the web page's uploads), for the
    /// status's disk figures and the alert when one is nearly full.
    public var disks: [Disk] = []
    /// When it was sampled, Unix time: the property's ages are counted to it, so a value asked
    /// again (observed every 100 ms) is the same until the next sample.
    public var sampledAt = 0.0

    public struct Sync: Sendable, Equatable {
        /// When a pass last ended well, Unix time; nil: none yet.
        public var lastSuccess: Double?
        public var failures: Int
        /// Free bytes for kiosk where the store is; nil: unknown.
        public var storeFreeBytes: Double?
        public init(lastSuccess: Double?, failures: Int, storeFreeBytes: Double?) {
            self.lastSuccess = lastSuccess
            self.failures = failures
            self.storeFreeBytes = storeFreeBytes
        }
    }

    public struct Disk: Sendable, Equatable {
        /// What kiosk keeps there (`state`, `uploads`): a fixed word, never a path (a label).
        public var use: String
        public var space: DiskSpace
        public init(use: String, space: DiskSpace) {
            self.use = use
            self.space = space
        }
    }

    public struct Temperature: Sendable, Equatable {
        public var zone: String
        public var sensor: String
        public var celsius: Double
        public init(zone: String, sensor: String, celsius: Double) {
            self.zone = zone
            self.sensor = sensor
            self.celsius = celsius
        }
    }

    public struct UnderVoltage: Sendable, Equatable {
        public var now: Bool
        public var sinceBoot: Bool
        public init(now: Bool, sinceBoot: Bool) { self.now = now; self.sinceBoot = sinceBoot }
    }

    public init(version: String, startTime: Double, state: TimeControlStatus = .paused, itemIndex: Int? = nil,
                playlistCount: Int = 0, framesPresented: Int = 0, framesDropped: Int = 0, lastPicture: Double? = nil,
                pictureOverdue: Double = 0, running: Bool = true, displayFailing: Bool = false, counters: HealthCounters = HealthCounters(),
                temperatures: [Temperature] = [], underVoltage: UnderVoltage? = nil, sync: Sync? = nil,
                mqttConnected: Bool? = nil, displayConnected: Bool? = nil, displayHotplugs: Int = 0) {
        self.version = version
        self.startTime = startTime
        self.state = state
        self.itemIndex = itemIndex
        self.playlistCount = playlistCount
        self.framesPresented = framesPresented
        self.framesDropped = framesDropped
        self.lastPicture = lastPicture
        self.pictureOverdue = pictureOverdue
        self.running = running
        self.displayFailing = displayFailing
        self.counters = counters
        self.temperatures = temperatures
        self.underVoltage = underVoltage
        self.sync = sync
        self.mqttConnected = mqttConnected
        self.displayConnected = displayConnected
        self.displayHotplugs = displayHotplugs
    }

    public var families: [MetricFamily] {
        func flag(_ value: Bool) -> Double { value ? 1 : 0 }
        var families: [MetricFamily] = [
            MetricFamily("kiosk_build_info", .gauge, help: "kiosk's version, as `kiosk --version` prints it.",
                         samples: [.init(1, labels: [("version", version)])]),
            MetricFamily("kiosk_start_time_seconds", .gauge, help: "When kiosk started, in Unix time.", value: startTime),
            MetricFamily("kiosk_running", .gauge, help: "1 while kiosk runs; 0 in the file its clean stop leaves.",
                         value: flag(running)),
            MetricFamily("kiosk_state", .gauge,
                         help: "The player's time control status (AVFoundation's): 1 for the one it is in (none once stopped).",
                         samples: [TimeControlStatus.playing, .paused, .waitingToPlayAtSpecifiedRate].map {
                             .init(flag(running && $0 == state), labels: [("state", $0.rawValue)])
                         }),
            MetricFamily("kiosk_item_index", .gauge, help: "The playlist entry on screen, counted from 0 (absent: none).",
                         samples: running ? itemIndex.map { [.init(Double($0))] } ?? [] : []),
            MetricFamily("kiosk_playlist_items", .gauge, help: "Entries in the playlist playing.", value: Double(playlistCount)),
            MetricFamily("kiosk_frames_presented_total", .counter, help: "Pictures put on screen.", value: Double(framesPresented)),
            MetricFamily("kiosk_frames_dropped_total", .counter, help: "Decoded frames dropped as late.", value: Double(framesDropped)),
            MetricFamily("kiosk_last_frame_timestamp_seconds", .gauge,
                         help: "When the last picture was put on screen, in Unix time (absent before the first).",
                         samples: lastPicture.map { [.init($0)] } ?? []),
            MetricFamily("kiosk_picture_overdue_seconds", .gauge,
                         help: "How long a new frame (or sound heard further) has been overdue while playing; grows on a frozen picture.",
                         value: running ? pictureOverdue : 0),
            MetricFamily("kiosk_display_failing", .gauge, help: "1 while every attempt to put a picture on screen fails.",
                         value: flag(displayFailing)),
            MetricFamily("kiosk_display_hotplugs_total", .counter,
                         help: "Changes of a screen's connector state seen (a cable pulled, plugged in again).",
                         value: Double(displayHotplugs)),
            MetricFamily("kiosk_items_started_total", .counter, help: "Items that began to play.", value: Double(counters.itemsStarted)),
            MetricFamily("kiosk_items_failed_total", .counter, help: "Items that could not be played or were ended as stalled.",
                         value: Double(counters.itemsFailed)),
            MetricFamily("kiosk_stalls_total", .counter, help: "Items ended because their picture and sound stopped.",
                         value: Double(counters.stalls)),
            MetricFamily("kiosk_temperature_celsius", .gauge, help: "The box's thermal zones, with their kernel type.",
                         samples: temperatures.map { .init($0.celsius, labels: [("zone", $0.zone), ("sensor", $0.sensor)]) }),
        ]
        if let sync {
            families.append(MetricFamily("kiosk_sync_last_success_timestamp_seconds", .gauge,
                                         help: "When a content sync pass last ended well, in Unix time (absent before the first).",
                                         samples: sync.lastSuccess.map { [.init($0)] } ?? []))
            families.append(MetricFamily("kiosk_sync_failures_total", .counter, help: "Content sync passes that failed.",
                                         value: Double(sync.failures)))
            families.append(MetricFamily("kiosk_store_free_bytes", .gauge, help: "Free bytes for kiosk where the content sync store is.",
                                         samples: sync.storeFreeBytes.map { [.init($0)] } ?? []))
        }
        if !disks.isEmpty {
            families.append(MetricFamily("kiosk_disk_free_bytes", .gauge,
                                         help: "Bytes kiosk may still write where it keeps its state (use=state) and uploads (use=uploads).",
                                         samples: disks.map { .init(Double($0.space.free), labels: [("use", $0.use)]) }))
            families.append(MetricFamily("kiosk_disk_size_bytes", .gauge, help: "The size of those file systems.",
                                         samples: disks.map { .init(Double($0.space.size), labels: [("use", $0.use)]) }))
        }
        if let displayConnected {
            families.append(MetricFamily("kiosk_display_connected", .gauge,
                                         help: "1 while every screen's connector reads connected (absent where it cannot tell).",
                                         value: flag(displayConnected)))
        }
        if let tvPowerOn {
            families.append(MetricFamily("kiosk_tv_power_on", .gauge,
                                         help: "1 while the TV says over HDMI-CEC that it is on (absent when it does not answer).",
                                         value: flag(tvPowerOn)))
        }
        if let mqttConnected {
            families.append(MetricFamily("kiosk_mqtt_connected", .gauge, help: "1 while the MQTT broker has kiosk connected.",
                                         value: flag(mqttConnected)))
        }
        if let underVoltage {
            families.append(MetricFamily("kiosk_under_voltage", .gauge,
                                         help: "1 while the Raspberry Pi's supply is below its limit.", value: flag(underVoltage.now)))
            families.append(MetricFamily("kiosk_under_voltage_since_boot", .gauge,
                                         help: "1 once the Raspberry Pi's supply fell below its limit since the box booted.",
                                         value: flag(underVoltage.sinceBoot)))
        }
        return families
    }

    public var text: String { MetricsText.render(families) }

    /// A picture overdue this long while playing is an alert (the stall guard ends a local
    /// item after `playback.stall_timeout`, 5 s by default; a live source it cannot end stays).
    public static let frozenAfter = 10.0
    /// Above this a sensor is an alert: SoCs throttle from about 80-85 °C.
    public static let hotAbove = 80.0
    /// Below this much free space a disk is an alert: proof of play, resume places and uploads
    /// then fail one by one (a full SD card is a common end of an unattended box).
    public static let diskLowBelow: Int64 = 64 << 20

    /// What is wrong now, each in a few words; empty: nothing (Homie's `alert` state when not).
    public var alerts: [String] {
        guard running else { return [] }
        var alerts: [String] = []
        if state == .playing && pictureOverdue >= Self.frozenAfter {
            alerts.append("picture frozen for \(Int(pictureOverdue)) s")
        }
        // Waiting for data (a live source with no sender, a server that does not answer) is no
        // stall, so the screen stayed dark or held with no alert: as long as a frozen picture.
        // (Counted from when the waiting began: a still shown 10 s before a stream opens is none.)
        if state == .waitingToPlayAtSpecifiedRate, let since = waitingForDataSince, displayOn,
           case let waited = sampledAt - since, waited >= Self.frozenAfter {
            alerts.append((lastPicture == nil ? "no picture yet" : "no new picture") + ": waiting for data for \(Int(waited)) s")
        }
        if displayFailing { alerts.append("display failing") }
        if displayConnected == false && displayOn && tvPowerOn != false { alerts.append("display disconnected") }
        if let underVoltage, underVoltage.now || underVoltage.sinceBoot {
            alerts.append(underVoltage.now ? "under-voltage" : "under-voltage since boot")
        }
        for disk in disks where disk.space.free < Self.diskLowBelow {
            alerts.append("\(disk.use) disk almost full: \(disk.space.free >> 20) MiB free")
        }
        for sensor in temperatures where sensor.celsius > Self.hotAbove {
            alerts.append("\(sensor.sensor) at \(Int(sensor.celsius)) °C")
        }
        return alerts
    }

    /// The control socket's `health` property (and MQTT's): the figures, with ages in seconds
    /// at `now` (Unix time) rather than timestamps, and the alerts.
    public func controlValue(at now: Double) -> ControlValue {
        func seconds(_ value: Double) -> ControlValue { .number((value * 1000).rounded() / 1000) }
        func integer(_ value: Int) -> ControlValue { .integer(Int64(value)) }
        let lastFrameAge: ControlValue = lastPicture.map { seconds(max(0, now - $0)) } ?? .null
        let sensors: [ControlValue] = temperatures.map {
            .object([("zone", .string($0.zone)), ("sensor", .string($0.sensor)), ("celsius", seconds($0.celsius))])
        }
        var voltage = ControlValue.null
        if let underVoltage { voltage = .object([("now", .bool(underVoltage.now)), ("since_boot", .bool(underVoltage.sinceBoot))]) }
        var syncValue = ControlValue.null
        if let sync {
            let age: ControlValue = sync.lastSuccess.map { seconds(max(0, now - $0)) } ?? .null
            let free: ControlValue = sync.storeFreeBytes.map { .integer(Int64($0)) } ?? .null
            syncValue = .object([("last_success_age", age), ("failures", integer(sync.failures)), ("store_free_bytes", free)])
        }
        let members: [(String, ControlValue)] = [
            ("alerts", .array(alerts.map { .string($0) })),
            ("state", .string(state.rawValue)),
            ("item", itemIndex.map { integer($0) } ?? .null),
            ("frames_presented", integer(framesPresented)),
            ("frames_dropped", integer(framesDropped)),
            ("last_frame_age", lastFrameAge),
            ("picture_overdue", seconds(pictureOverdue)),
            ("display_failing", .bool(displayFailing)),
            ("display_connected", displayConnected.map { .bool($0) } ?? .null),
            ("display_hotplugs", integer(displayHotplugs)),
            ("tv_power_on", tvPowerOn.map { .bool($0) } ?? .null),
            ("items_started", integer(counters.itemsStarted)),
            ("items_failed", integer(counters.itemsFailed)),
            ("stalls", integer(counters.stalls)),
            ("temperatures", .array(sensors)),
            ("under_voltage", voltage),
            ("sync", syncValue),
            ("mqtt_connected", mqttConnected.map { .bool($0) } ?? .null),
            ("disks", .array(disks.map {
                .object([("use", .string($0.use)), ("free_bytes", .integer($0.space.free)), ("size_bytes", .integer($0.space.size))])
            })),
            ("uptime", seconds(max(0, now - startTime))),
        ]
        return .object(members)
    }
}

/// The counts kept from the player's events, since the start.
public struct HealthCounters: Sendable, Equatable {
    public var itemsStarted = 0
    public var itemsFailed = 0
    public var stalls = 0

    public init() {}

    public mutating func count(_ event: PlaybackEvent) {
        switch event {
        case .itemStarted: itemsStarted += 1
        case .itemFailed(_, let reason):
            itemsFailed += 1
            // StallWatch's reasons: the one rule that ends an item that stopped moving.
            if reason.hasPrefix("stalled") { stalls += 1 }
        default: break
        }
    }
}
