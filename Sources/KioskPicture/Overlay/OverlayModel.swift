/// What the overlay shows at one moment. Equal contents draw equal pixels: the presenter
/// redraws a paused picture only when this changes.
public struct OverlayContent: Sendable, Equatable {
    /// The center: what a tap will do (like AVKit's controls: a paused picture offers play),
    /// or the spinner while the player waits for data.
    public enum Center: Sendable, Equatable {
        case play
        case pause
        case spinner(phase: Int)
    }

    public var center: Center
    public var title: String
    public var elapsed: String
    /// The item's length, or `--:--` while unknown (a live stream).
    public var total: String
    /// How much of the bar is filled, 0...1.
    public var fraction: Double

    public init(center: Center, title: String, elapsed: String, total: String, fraction: Double) {
        self.center = center; self.title = title; self.elapsed = elapsed; self.total = total; self.fraction = fraction
    }
}

/// The player as the overlay needs to see it.
public struct OverlayPlayerView: Sendable, Equatable {
    public var position: MediaTime
    public var duration: MediaTime?
    public var timeControlStatus: TimeControlStatus
    public var title: String

    public init(position: MediaTime, duration: MediaTime?, timeControlStatus: TimeControlStatus, title: String) {
        self.position = position; self.duration = duration
        self.timeControlStatus = timeControlStatus; self.title = title
    }
}

/// When the overlay is up and what it says. Pure: times are the host clock's, passed in.
/// A tap, a key or a scrub shows it; `hideAfter` after the last of them it goes. While the
/// finger scrubs, bar and time follow the finger's position rather than the decoder, which
/// catches up a little later (a seek decodes from a keyframe).
public struct OverlayModel: Sendable, Equatable {
    public var hideAfter: MediaTime
    public private(set) var lastInput: MediaTime?
    public private(set) var scrubPosition: MediaTime?
    /// Spinner steps per second (one dot of eight each step).
    public static let spinnerStepsPerSecond = 8.0

    public init(hideAfter: MediaTime) {
        self.hideAfter = hideAfter
    }

    /// A tap or key (anything but a scrub): shows the overlay, ends any scrub display.
    public mutating func noteInput(at now: MediaTime) {
        lastInput = now
        scrubPosition = nil
    }

    /// The finger asks for `position`: the overlay shows it at once.
    public mutating func noteScrub(to position: MediaTime, at now: MediaTime) {
        lastInput = now
        scrubPosition = position
    }

    public func isVisible(at now: MediaTime) -> Bool {
        guard let lastInput else { return false }
        return now < lastInput + hideAfter
    }

    /// When the overlay goes away if nothing else happens; nil while hidden.
    public func hideTime(at now: MediaTime) -> MediaTime? {
        guard isVisible(at: now), let lastInput else { return nil }
        return lastInput + hideAfter
    }

    /// What to draw now; nil when hidden.
    public func content(at now: MediaTime, player: OverlayPlayerView) -> OverlayContent? {
        guard isVisible(at: now) else { return nil }
        var position = scrubPosition ?? player.position
        if let duration = player.duration { position = position.clamped(to: .zero...Swift.max(.zero, duration)) }
        let fraction: Double
        if let duration = player.duration, duration > .zero {
            fraction = Swift.min(1, Swift.max(0, position.seconds / duration.seconds))
        } else {
            fraction = 0
        }
        let center: OverlayContent.Center
        switch player.timeControlStatus {
        case .playing: center = .pause
        case .paused: center = .play
        case .waitingToPlayAtSpecifiedRate:
            center = .spinner(phase: Int((now.seconds * Self.spinnerStepsPerSecond).rounded(.down)) % 8)
        }
        return OverlayContent(center: center, title: player.title, elapsed: TimeLabel.text(for: position),
                              total: player.duration.map(TimeLabel.text(for:)) ?? "--:--", fraction: fraction)
    }
}
