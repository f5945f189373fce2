import KioskCore

/// What the mapper needs to know about the player when a gesture comes.
public struct PlayerView: Sendable, Hashable {
    public var isPlaying: Bool
    public var duration: MediaTime?

    public init(isPlaying: Bool, duration: MediaTime?) {
        self.isPlaying = isPlaying; self.duration = duration
    }

    public init(_ player: PlayerRequestSink) {
        self.init(isPlaying: player.rate.numerator != 0, duration: player.duration)
    }
}

/// Settings of the mapping from gestures and keys to player requests.
public struct InputActionSettings: Sendable, Equatable {
    /// kiosk.conf `seek_step`: what seek keys and double taps skip.
    public var seekStep: MediaTime
    /// kiosk.conf `gestures`.
    public var gestures: GestureSwitches
    /// The volume keys' step, in percent.
    public var volumeStep: Int
    /// The shortest time between two seeks while scrubbing: a seek restarts decoding from a
    /// keyframe, and a finger reports 60-120 moves a second.
    public var scrubSeekInterval: Double
    /// The viewer's screen width: a double tap on its right half skips forward.
    public var screenWidth: Double

    public init(seekStep: MediaTime = MediaTime(value: 10, timescale: 1), gestures: GestureSwitches = GestureSwitches(),
                volumeStep: Int = 5, scrubSeekInterval: Double = 0.1, screenWidth: Double) {
        self.seekStep = seekStep; self.gestures = gestures; self.volumeStep = volumeStep
        self.scrubSeekInterval = scrubSeekInterval; self.screenWidth = screenWidth
    }
}

/// Maps gestures and key actions to player requests. Pure and synchronous, owned by the input
/// thread: tap toggles play/pause; swipe left goes to the next item, right to the previous;
/// a scrub pauses, seeks as the finger moves (at most one seek per `scrubSeekInterval`, the
/// last position caught up by `advance(to:)`) and resumes at the end if it was playing; a
/// double tap skips `seekStep` forward on the right half, back on the left. Keys do as named.
public struct InputActionMapper: Sendable {
    public let settings: InputActionSettings

    private struct Scrub: Sendable {
        let wasPlaying: Bool
        var lastSeekTime: Double?
        /// A position the rate limit held back, sent at `lastSeekTime + interval`.
        var heldFraction: Double?
    }
    private var scrub: Scrub?

    public init(settings: InputActionSettings) {
        self.settings = settings
    }

    /// When `advance(to:)` must be called to send a held-back scrub position; nil if none.
    public var pendingDeadline: Double? {
        guard let scrub, scrub.heldFraction != nil, let last = scrub.lastSeekTime else { return nil }
        return last + settings.scrubSeekInterval
    }

    public mutating func requests(for gesture: Gesture, at time: Double, player: PlayerView) -> [PlayerRequest] {
        switch gesture {
        case .tap:
            return settings.gestures.tap ? [.togglePlayPause] : []
        case .doubleTap(let point):
            guard settings.gestures.doubleTap else { return [] }
            let forward = point.x >= settings.screenWidth / 2
            return [.skip(by: forward ? settings.seekStep : .zero - settings.seekStep)]
        case .swipe(let direction):
            guard settings.gestures.swipe else { return [] }
            // The finger pushes the picture aside: leftward brings in the next one, as on a phone.
            return [direction == .left ? .nextItem : .previousItem]
        case .scrubBegan(let fraction):
            guard settings.gestures.scrub else { return [] }
            scrub = Scrub(wasPlaying: player.isPlaying)
            return (player.isPlaying ? [.pause] : []) + scrubSeek(to: fraction, at: time, player: player)
        case .scrubMoved(let fraction):
            return scrubSeek(to: fraction, at: time, player: player)
        case .scrubEnded(let fraction):
            guard let ended = scrub else { return [] }
            scrub = nil
            var requests = seek(to: fraction, player: player)
            if ended.wasPlaying { requests.append(.play) }
            return requests
        }
    }

    public func requests(for key: KeyAction) -> [PlayerRequest] {
        switch key {
        case .toggle: [.togglePlayPause]
        case .seekForward: [.skip(by: settings.seekStep)]
        case .seekBackward: [.skip(by: .zero - settings.seekStep)]
        case .volumeUp: [.adjustVolume(by: settings.volumeStep)]
        case .volumeDown: [.adjustVolume(by: -settings.volumeStep)]
        case .next: [.nextItem]
        case .previous: [.previousItem]
        case .mute: [.toggleMute]
        }
    }

    /// Sends the scrub position the rate limit held back, once its time has come.
    public mutating func advance(to time: Double, player: PlayerView) -> [PlayerRequest] {
        guard let deadline = pendingDeadline, time >= deadline, let fraction = scrub?.heldFraction else { return [] }
        return scrubSeek(to: fraction, at: time, player: player, due: true)
    }

    /// - Parameter due: the held position's deadline has passed (decided by the caller, so
    ///   that rounding in `time - last` cannot hold it back once more).
    private mutating func scrubSeek(to fraction: Double, at time: Double, player: PlayerView, due: Bool = false) -> [PlayerRequest] {
        guard var current = scrub else { return [] }
        defer { scrub = current }
        if !due, let last = current.lastSeekTime, time < last + settings.scrubSeekInterval {
            current.heldFraction = fraction
            return []
        }
        current.heldFraction = nil
        current.lastSeekTime = time
        return seek(to: fraction, player: player)
    }

    private func seek(to fraction: Double, player: PlayerView) -> [PlayerRequest] {
        guard let duration = player.duration, duration > .zero else { return [] }
        let clamped = Swift.min(1, Swift.max(0, fraction))
        // In ten-thousandths of the length: finer than a finger can point, and exact in MediaTime.
        return [.seek(to: duration * Rational(Int64((clamped * 10_000).rounded()), 10_000))]
    }
}
