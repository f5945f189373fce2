/// One observer of the player's events (the control socket, MQTT, CEC, proof of play, resume),
/// as `PresentedFrameObserver` is of frames. Called on the presenter thread: an observer hands
/// the event to a queue or thread of its own and returns.
public protocol PlayerEventObserver: AnyObject, Sendable {
    func observe(_ event: PlayerEvent)
}

/// The player's observers in one list, told each event in the list's order: the order they
/// were added. `kiosk run` adds them as ARCHITECTURE.md states: the control socket, CEC, MQTT,
/// proof of play, resume. Made before the player (its `onEvent` is given at init); observers
/// that exist only later are added before `start`.
public final class PlayerEventObservers: @unchecked Sendable {
    // Safe to share: `observers` is written only before the player starts (`add`), then read
    // on the presenter thread alone.
    private var observers: [any PlayerEventObserver] = []

    public init() {}

    /// Appends `observer` (nil: nothing), after those added before.
    public func add(_ observer: (any PlayerEventObserver)?) {
        if let observer { observers.append(observer) }
    }

    public var isEmpty: Bool { observers.isEmpty }

    /// The player's `onEvent`.
    public var handler: @Sendable (PlayerEvent) -> Void {
        { [self] event in for observer in observers { observer.observe(event) } }
    }
}
