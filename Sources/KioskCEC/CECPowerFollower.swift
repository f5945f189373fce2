import Foundation
import KioskCore
import Logging

/// What the follower drives: a CEC adapter, or a fake in tests.
public protocol CECPowerTarget: AnyObject {
    var path: String { get }
    @discardableResult func standby() throws(CECError) -> [CECMessage]
    @discardableResult func wake() throws(CECError) -> [CECMessage]
    /// The TV's own word on its power; nil when it does not answer.
    func tvPowerStatus() throws(CECError) -> CECPowerStatus?
}

extension CECAdapter: CECPowerTarget {}

/// Follows the display's power with the TV's: Standby when the screen goes off, Image View On and
/// Active Source when it comes on. For the engine's display-power events: the call returns at
/// once and the messages go out on the follower's own queue (a transmit blocks until the bus is
/// done, up to ~2 s per message when nobody answers), the newest state winning when changes come
/// faster than that. Nothing is thrown: a TV that does not answer must not stop the playlist.
///
/// Each change opens the adapter afresh (changes are rare, opening is cheap) so an adapter that
/// appears late or a TV plugged in later is found. A failure is logged once per kind of failure
/// (`CECError.Kind`) at warning, later ones of that kind at debug, until a change succeeds again:
/// a box whose TV has no CEC would otherwise log the same warning twice a day for years.
public final class CECPowerFollower: @unchecked Sendable {
    public typealias Opener = @Sendable () throws(CECError) -> any CECPowerTarget

    private let open: Opener
    private let logger: Logger
    private let queue = DispatchQueue(label: "kiosk.cec.power")
    // Guarded by `lock`: the state wanted next, whether the queue is already busy, and the kinds
    // of failure already reported.
    private let lock = NSLock()
    private var wanted: Bool?
    private var working = false
    private var reported: Set<CECError.Kind> = []
    /// What the TV last said of its power (nil: unknown, not asked, or it did not answer).
    private var power: CECPowerStatus?
    private var powerWatch: DispatchSourceTimer?

    /// `devicePath`: a /dev/cecN, or nil to pick one at each change (`CECAdapter.discover`).
    public convenience init(devicePath: String? = nil, logger: Logger) {
        self.init(logger: logger) { () throws(CECError) -> any CECPowerTarget in
            try CECAdapter.open(path: devicePath)
        }
    }

    /// With another way to reach the adapter (tests). `askAfterChange`: seconds after a change
    /// at which the TV's power is asked again (a TV takes seconds to change).
    public init(logger: Logger, askAfterChange: [Double] = [2, 5, 15], open: @escaping Opener) {
        self.logger = logger
        self.askAfterChange = askAfterChange
        self.open = open
    }

    /// The display was switched on (true) or off (false). Returns at once.
    public func displayPowerChanged(on: Bool) {
        lock.lock()
        wanted = on
        let start = !working
        working = true
        lock.unlock()
        if start { queue.async { self.drain() } }
    }

    /// Seconds after a change sent at which the TV is asked again (besides at once).
    private let askAfterChange: [Double]

    /// Whether the TV says it is on (or turning on); nil while unknown: the metrics' TV power.
    public var tvPowerOn: Bool? { lock.withLock { power?.isOn } }

    /// Asks the TV for its power state now and every `interval` seconds (and after each change
    /// kiosk sends), on the follower's queue: a TV switched off by its remote, or one that
    /// ignored a wake-up, is seen within `interval`. One question a minute is a few bytes on a bus
    /// that carries hundreds a second.
    public func watchTVPower(every interval: Double) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: interval)
        timer.setEventHandler { [weak self] in self?.askPower() }
        lock.withLock {
            powerWatch?.cancel()
            powerWatch = timer
        }
        timer.resume()
    }

    /// Stops asking (a clean exit).
    public func stopWatchingTVPower() {
        lock.withLock {
            powerWatch?.cancel()
            powerWatch = nil
        }
    }

    /// Waits until every change asked for so far was sent (or failed). For tests and a clean exit.
    public func waitUntilIdle() {
        queue.sync {}
    }

    private func drain() {
        while true {
            lock.lock()
            guard let on = wanted else {
                working = false
                lock.unlock()
                return
            }
            wanted = nil
            lock.unlock()
            apply(on: on)
        }
    }

    private func apply(on: Bool) {
        let what = on ? "woke the TV (Image View On, Active Source)" : "sent the TV to standby"
        do throws(CECError) {
            let target = try open()
            if on { try target.wake() } else { try target.standby() }
            let recovered = lock.withLock {
                defer { reported.removeAll() }
                return !reported.isEmpty
            }
            logger.notice("HDMI-CEC: \(what) through \(target.path)\(recovered ? " (working again)" : "")")
            if lock.withLock({ powerWatch != nil }) {
                ask(target)
                // A TV takes seconds to change (and says the old state meanwhile): asked again then.
                for delay in askAfterChange { queue.asyncAfter(deadline: .now() + delay) { [weak self] in self?.askPower() } }
            }
        } catch {
            let first = lock.withLock { reported.insert(error.kind).inserted }
            if first {
                logger.warning("HDMI-CEC: could not follow display power \(on ? "on" : "off"): \(error) (said once; again only after it worked)")
            } else {
                logger.debug("HDMI-CEC: display power \(on ? "on" : "off"): \(error)")
            }
        }
    }

    /// On the queue: the TV's power state through a newly opened adapter.
    private func askPower() {
        guard lock.withLock({ powerWatch != nil }) else { return }   // a follow-up after the watch stopped
        do throws(CECError) {
            ask(try open())
        } catch {
            logger.debug("HDMI-CEC: asking the TV's power: \(error)")
            note(nil)
        }
    }

    private func ask(_ target: any CECPowerTarget) {
        do throws(CECError) {
            let status = try target.tvPowerStatus()
            logger.debug("HDMI-CEC: the TV's power: \(status.map { "\($0)" } ?? "no answer")")
            note(status)
        } catch {
            logger.debug("HDMI-CEC: asking the TV's power: \(error)")
            note(nil)
        }
    }

    /// The answer kept; a change is one line (a TV switched off by its remote is worth knowing).
    private func note(_ status: CECPowerStatus?) {
        let before = lock.withLock { () -> CECPowerStatus? in
            defer { power = status }
            return power
        }
        guard before?.isOn != status?.isOn else { return }
        let said = status.map { $0.isOn ? "on" : "in standby" } ?? "not answering (power unknown)"
        logger.notice("HDMI-CEC: the TV says it is \(said)")
    }
}
