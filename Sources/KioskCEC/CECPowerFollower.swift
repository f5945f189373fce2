import Foundation
import KioskCore
import Logging

/// What the follower drives: a CEC adapter, or a fake in tests.
public protocol CECPowerTarget: AnyObject {
    var path: String { get }
    @discardableResult func standby() throws(CECError) -> [CECMessage]
    @discardableResult func wake() throws(CECError) -> [CECMessage]
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

    /// `devicePath`: a /dev/cecN, or nil to pick one at each change (`CECAdapter.discover`).
    public convenience init(devicePath: String? = nil, logger: Logger) {
        self.init(logger: logger) { () throws(CECError) -> any CECPowerTarget in
            try CECAdapter.open(path: devicePath)
        }
    }

    /// With another way to reach the adapter (tests).
    public init(logger: Logger, open: @escaping Opener) {
        self.logger = logger
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
        } catch {
            let first = lock.withLock { reported.insert(error.kind).inserted }
            if first {
                logger.warning("HDMI-CEC: could not follow display power \(on ? "on" : "off"): \(error) (said once; again only after it worked)")
            } else {
                logger.debug("HDMI-CEC: display power \(on ? "on" : "off"): \(error)")
            }
        }
    }
}
