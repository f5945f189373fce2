import Foundation
import KioskControl
import KioskCore
import KioskPlayer

/// What the health figures read of a player (`QueuePlayer` has all of it; tests hand a fake).
package protocol HealthSource: AnyObject, Sendable {
    var timeControlStatus: TimeControlStatus { get }
    /// Since when (CLOCK_MONOTONIC seconds) it has waited for an item to open or buffer.
    var waitingForDataSince: Double? { get }
    var currentItemIndex: Int? { get }
    var playlistCount: Int { get }
    var framesPresented: Int { get }
    var framesDropped: Int { get }
    var presenterHealth: PresenterHealth { get }
    var isDisplayOn: Bool { get }
}

extension QueuePlayer: HealthSource {}

/// The kiosk's health (`HealthSnapshot`) when asked: the control socket's and MQTT's `health`
/// property, the MQTT status's alerts, and what `metrics.textfile` writes. One of the player's
/// event observers (it counts items started, failed and stalled); the player's figures and the
/// box's sensors are read at each ask, on the asker's thread.
package final class HealthSampler: PlayerEventObserver, HealthControl, @unchecked Sendable {
    // Safe to share: `counters`, `source` and `running` are only touched with `lock` held.
    private let lock = NSLock()
    private var counters = HealthCounters()
    private weak var source: (any HealthSource)?
    private var running = true
    private let sensors: BoxSensors
    private let startTime: Double
    private var sync: (@Sendable () -> HealthSnapshot.Sync)?
    private var mqttConnected: (@Sendable () -> Bool)?
    private var display: (@Sendable () -> (connected: Bool?, hotplugs: Int))?
    private var tvPowerOn: (@Sendable () -> Bool?)?
    /// The last sample and when (monotonic): asks within `freshness` get it again, so an
    /// `observe health` (compared every 100 ms) reads sysfs once a second and changes at most as often.
    private var cached: (snapshot: HealthSnapshot, at: Double)?
    private let freshness: Double

    /// `freshness`: seconds a sample is handed out again (tests: 0).
    package init(sensors: BoxSensors, startTime: Double = Date().timeIntervalSince1970, freshness: Double = 1) {
        self.sensors = sensors
        self.startTime = startTime
        self.freshness = freshness
    }

    /// The player, once it exists.
    package func attach(_ source: any HealthSource) {
        lock.withLock {
            self.source = source
            cached = nil
        }
    }

    /// Content sync's figures, once it runs.
    package func attach(sync: @escaping @Sendable () -> HealthSnapshot.Sync) { lock.withLock { self.sync = sync } }

    /// The fleet connection's state, once it exists.
    package func attach(mqttConnected: @escaping @Sendable () -> Bool) { lock.withLock { self.mqttConnected = mqttConnected } }

    /// The screens' cables (`DisplayConnectionWatcher.figures`), once watched.
    package func attach(display: @escaping @Sendable () -> (connected: Bool?, hotplugs: Int)) {
        lock.withLock { self.display = display }
    }

    /// The TV's power as it says it over HDMI-CEC (`CECPowerFollower.tvPowerOn`), once asked.
    package func attach(tvPowerOn: @escaping @Sendable () -> Bool?) { lock.withLock { self.tvPowerOn = tvPowerOn } }

    /// A clean stop: what is asked from now on says kiosk is not running.
    package func stopping() {
        lock.withLock {
            running = false
            cached = nil
        }
    }

    /// The player's event, on the presenter thread: a count under a lock, nothing more.
    package func observe(_ event: PlayerEvent) {
        guard case .playback(let playback, _, _) = event else { return }
        switch playback {
        case .itemStarted, .itemFailed:
            lock.withLock {
                counters.count(playback)
                cached = nil
            }
        default: break
        }
    }

    /// The health now (or at most `freshness` ago); nil before the player exists (or once it is gone).
    package var health: HealthSnapshot? {
        let now = MonotonicClock().now()
        let (source, counters, running, sync, mqtt, display, tv, cached) = lock.withLock {
            (self.source, self.counters, self.running, self.sync, self.mqttConnected, self.display, self.tvPowerOn, self.cached)
        }
        if let cached, now - cached.at < freshness { return cached.snapshot }
        guard var snapshot = sample(source: source, counters: counters, running: running, sync: sync, mqtt: mqtt) else {
            return nil
        }
        if let display = display?() {
            snapshot.displayConnected = display.connected
            snapshot.displayHotplugs = display.hotplugs
        }
        snapshot.tvPowerOn = tv?()
        snapshot.displayOn = source?.isDisplayOn ?? true
        lock.withLock { self.cached = (snapshot, now) }
        return snapshot
    }

    private func sample(source: (any HealthSource)?, counters: HealthCounters, running: Bool,
                        sync: (@Sendable () -> HealthSnapshot.Sync)?, mqtt: (@Sendable () -> Bool)?) -> HealthSnapshot? {
        guard let source else { return nil }
        let presenter = source.presenterHealth
        // The presenter's times are CLOCK_MONOTONIC; the figures are Unix time.
        let monotonicNow = MonotonicClock().now(), wallNow = Date().timeIntervalSince1970
        var snapshot = HealthSnapshot(
            version: KioskVersion.text, startTime: startTime, state: source.timeControlStatus,
            itemIndex: source.currentItemIndex, playlistCount: source.playlistCount,
            framesPresented: source.framesPresented, framesDropped: source.framesDropped,
            lastPicture: presenter.lastPicture.map { wallNow - (monotonicNow - $0) },
            pictureOverdue: presenter.progressOverdueSince.map { max(0, monotonicNow - $0) } ?? 0, running: running,
            displayFailing: presenter.displayFailingSince != nil, counters: counters,
            temperatures: sensors.temperatures(), underVoltage: sensors.underVoltage(), sync: sync?(),
            mqttConnected: mqtt?())
        snapshot.waitingForDataSince = source.waitingForDataSince.map { wallNow - (monotonicNow - $0) }
        snapshot.disks = sensors.diskSpace()
        snapshot.sampledAt = wallNow
        return snapshot
    }
}
