/// What the presenter thread last did, in CLOCK_MONOTONIC seconds: the evidence the service
/// watchdog is fed on (README, "Running as a service").
public struct PresenterHealth: Sendable, Equatable {
    /// The last time the presenter loop came round (took its commands, woke from a wait).
    public var loopActivity: Double
    /// Set while the presenter sleeps on purpose (a frame due later, a paused player, the
    /// idle screen's next retry): when it means to wake.
    public var sleepingUntil: Double?
    /// When something (a frame or the idle screen) was first and last put on screen.
    public var firstPicture: Double?
    public var lastPicture: Double?
    /// Since when every attempt to put a picture on screen has failed, and the last reason.
    public var displayFailingSince: Double?
    public var displayError: String?
    /// Since when the player, claiming to play, has shown no new frame and heard no further
    /// sound beyond what it waits for (`StallGuard.overdueSince`); nil while none is expected.
    public var progressOverdueSince: Double?

    public init(startedAt: Double) {
        loopActivity = startedAt
    }

    /// Healthy, or why not. The presenter is making progress when its loop came round, or its
    /// sleep was due, less than `stallLimit` ago, and the display has not failed for that long.
    /// A presenter stuck in a call (a hung decoder close, a blocked write, a flip that never
    /// completes) stops coming round; a flip that keeps timing out fails every present.
    public func verdict(at now: Double, stallLimit: Double) -> WatchdogVerdict {
        if let since = displayFailingSince, now - since >= stallLimit {
            return .displayFailing(forSeconds: now - since, reason: displayError ?? "unknown error")
        }
        var expected = loopActivity
        if let wake = sleepingUntil, wake > expected { expected = wake }
        if now - expected >= stallLimit { return .presenterStalled(forSeconds: now - expected) }
        // The loop comes round, but the picture is frozen in a state that claims to play (an
        // item the stall guard could not end: a network stream, a guard set longer than this).
        if let since = progressOverdueSince, now - since >= stallLimit { return .pictureFrozen(forSeconds: now - since) }
        return .healthy
    }
}

/// Whether the service watchdog may be fed.
public enum WatchdogVerdict: Sendable, Equatable, CustomStringConvertible {
    case healthy
    case presenterStalled(forSeconds: Double)
    case displayFailing(forSeconds: Double, reason: String)
    case pictureFrozen(forSeconds: Double)

    public var isHealthy: Bool { self == .healthy }

    public var description: String {
        switch self {
        case .healthy: "healthy"
        case .presenterStalled(let seconds):
            "the presenter has made no progress for \(Self.format(seconds)) s"
        case .pictureFrozen(let seconds):
            "the picture has been frozen for \(Self.format(seconds)) s while playing"
        case .displayFailing(let seconds, let reason):
            "the display has failed every frame for \(Self.format(seconds)) s: \(reason)"
        }
    }

    private static func format(_ seconds: Double) -> String {
        String(Int(seconds.rounded()))
    }
}

/// The one line systemd shows as the service's status (`systemctl status kiosk`).
public enum ServiceStatusLine {
    public static func text(title: String?, index: Int?, timeControl: TimeControlStatus,
                            waiting: WaitingReason?, verdict: WatchdogVerdict = .healthy,
                            hasShownPicture: Bool = true) -> String {
        if !verdict.isHealthy { return "stalled: \(verdict)" }
        guard let index else {
            // No item before the first one is opened, and when none could play (idle screen).
            return hasShownPicture ? "idle: nothing in the playlist can play (retrying)" : "starting"
        }
        let item = "item \(index)" + (title.map { ": \($0)" } ?? "")
        switch timeControl {
        case .playing: return "playing \(item)"
        case .paused: return "paused at \(item)"
        case .waitingToPlayAtSpecifiedRate:
            switch waiting {
            case .openingItem?: return "opening \(item)"
            case .buffering?: return "waiting for data: \(item)"
            default: return "waiting: \(item)"
            }
        }
    }
}
