/// One observer of the player's events (the control socket, MQTT, CEC, proof of play, resume),
/// as `PresentedFrameObserver` is of frames. Called on the presenter thread: an observer hands
/// the event to a queue or thread of its own and returns.
public protocol PlayerEventObserver: AnyObject, Sendable {
    func observe(_ event: PlayerEvent)
}

/// The player's observers in one list, told each event in the list's order. `kiosk run` lists
/// them as ARCHITECTURE.md states: the control socket, CEC, MQTT, proof of play, resume. Made
/// before the player (its `onEvent` is given at init) and fixed from then on.
public struct PlayerEventObservers: Sendable {
    public let observers: [any PlayerEventObserver]

    /// `observers` in order; nil entries (a service that is off) are left out.
    public init(_ observers: [(any PlayerEventObserver)?]) {
        self.observers = observers.compactMap { $0 }
    }

    /// The player's `onEvent`.
    public var handler: @Sendable (PlayerEvent) -> Void {
        { [observers] event in for observer in observers { observer.observe(event) } }
    }
}
