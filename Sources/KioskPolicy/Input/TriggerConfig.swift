/// One entry of kiosk.conf's `triggers:`: something that plays content once on demand, then
/// gives the loop back. Fired by a key (a GPIO button can be one, through the kernel's
/// gpio-keys), a GPIO line read through libgpiod, a tap in a zone of the screen, or the control
/// socket's `trigger NAME`.
public struct TriggerConfig: Sendable, Equatable {
    /// What a trigger plays.
    public enum Content: Sendable, Equatable {
        /// `item: N`: the default playlist's entry N, counted from 0 (as the control socket's
        /// `goto` counts).
        case item(Int)
        /// `playlist: NAME`: a playlist of `playlists:`, once through.
        case playlist(String)
        /// `items: [...]`: a list of its own, in the syntax of `items`.
        case items([ItemConfig])
        /// `command: [goto, 2]`: a row of the control command table with its arguments (as
        /// words), answered as the socket would: a key, a zone or a GPIO line reaches every
        /// command. Checked against the table when kiosk.conf is read.
        case command([String])
    }

    /// `name`: what logs, proof of play and `kiosk ctl trigger NAME` call it; unique.
    public var name: String
    /// `key`: evdev key names (KEY_F1, BTN_0), upper case; empty: no key fires it. A key here
    /// takes precedence over its default binding in `input.keys`.
    public var keys: [String]
    /// `zone`: a tap inside fires it instead of play/pause; nil: no zone.
    public var zone: TouchZone?
    /// `gpio`: a GPIO line whose debounced edge fires it; nil: none.
    public var gpio: GPIOTriggerLine?
    public var content: Content
    /// `then`: resume (default) | restart.
    public var then: TriggerPlay.Return
    /// `during_trigger`: replace (default) | ignore.
    public var duringTrigger: TriggerPlay.Overlap
    /// Where the entry was written.
    public var location: SourceLocation

    public init(name: String, keys: [String] = [], zone: TouchZone? = nil, gpio: GPIOTriggerLine? = nil, content: Content,
                then: TriggerPlay.Return = .resume, duringTrigger: TriggerPlay.Overlap = .replace,
                location: SourceLocation) {
        self.name = name
        self.keys = keys
        self.zone = zone
        self.gpio = gpio
        self.content = content
        self.then = then
        self.duringTrigger = duringTrigger
        self.location = location
    }

    /// The rules the request carries.
    public var play: TriggerPlay { TriggerPlay(name: name, then: then, duringTrigger: duringTrigger) }

    /// The trigger as it would read anywhere in the file: for comparing what it says.
    public var withoutLocation: TriggerConfig {
        var copy = self
        copy.location = SourceLocation(file: "", line: 0, column: 0)
        if case .items(let items) = content { copy.content = .items(items.map(\.withoutLocation)) }
        return copy
    }
}
