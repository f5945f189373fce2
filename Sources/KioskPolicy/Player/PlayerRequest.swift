/// The player's one command vocabulary: what keys, gestures, the control socket and the overlay
/// ask of the player (and the scheduler, triggers and sync will). Each source maps its own
/// words (a key binding, a gesture, a JSON line) to these; the engine has one entry for them,
/// `PlayerRequestSink.send(_:)`, and carries them out on its presenter thread.
///
/// Playback requests (rate, volume, seeking) go to `PlaybackState`, which checks and applies
/// them; playlist requests (`isPlaylistRequest`) move the engine's playlist cursor. To add an
/// action: a case here (routed in `isPlaylistRequest`), its meaning in `PlaybackState` or the
/// engine's `carryOut`, and a word for it where a source should produce it (README, "Where to
/// add what").
public enum PlayerRequest: Sendable, Equatable {
    /// Plays at `defaultRate` (AVPlayer's `play()`).
    case play
    /// Sets the rate to 0 (AVPlayer's `pause()`).
    case pause
    /// Pause when the rate is not 0, else play: the space bar, a tap.
    case togglePlayPause
    /// AVPlayer's `rate`: 0 pauses, 0.25...4 plays at that rate, anything else is refused.
    case setRate(Rational)
    /// The rate `play()` uses, 0.25...4 (AVPlayer's `defaultRate`); the current rate stays.
    case setDefaultRate(Rational)
    /// mpv's `speed` (the control socket's `rate`): sets `defaultRate`, and the rate too unless
    /// paused, so it never unpauses and `play()` resumes at it.
    case setSpeed(Rational)
    /// Volume in percent, 0...100; anything else is refused.
    case setVolume(Int)
    /// Volume up or down by `delta` percent, clamped to 0...100 (keys, held or not).
    case adjustVolume(by: Int)
    case setMuted(Bool)
    case toggleMute
    /// Seek to `time` in the current item, clamped to [0, duration] (only at 0 for an item of
    /// unknown duration).
    case seek(to: MediaTime)
    /// Seek forward (positive) or back by `delta` from the position when the engine carries
    /// the request out (not when it was sent), clamped like `seek(to:)`.
    case skip(by: MediaTime)
    /// The playlist's next entry now (AVQueuePlayer's `advanceToNextItem()`).
    case nextItem
    /// The previous entry; the first entry of a list that does not loop restarts.
    case previousItem
    /// The entry at `index`, counted from 0; an index past the end is refused (logged).
    /// `at`: opened at that position (the seek made before its first frame is shown, as
    /// `seek(to:)` before `play()`; past the item's end it is clamped like any seek).
    case goto(index: Int, at: MediaTime? = nil)
    /// A new playlist, played from its first entry.
    case load([PlaylistEntry])
    /// The loop's playlist becomes `entries` (a schedule's change), at the next item change or
    /// at once; an insert playing finishes first (`PlaylistProgram`).
    case switchPlaylist([PlaylistEntry], when: ScheduleSwitch)
    /// Plays something once, then gives the loop back: `now` interrupts the item playing,
    /// which then resumes where it was; `atSeam` plays it after that item (a timed insert,
    /// the control socket's `play_item_once`). `trigger`: a kiosk.conf trigger asked, with
    /// its own rules for the return and for meeting another trigger (`PlaylistProgram`).
    case playOnce(OnceContent, when: ScheduleSwitch, trigger: TriggerPlay? = nil)
    /// The screen on or off (`display.power`, the control socket's `display_power`). Off: the
    /// display is blanked and nothing is decoded; on: the item that played comes back where
    /// it was.
    case setDisplayPower(on: Bool)
    /// Shows or hides kiosk.conf's layer `name`, or changes its text (a text or ticker
    /// layer): `kiosk ctl layer show|hide|text NAME [TEXT]`. The presenter's, not the cursor's.
    case layer(name: String, LayerChange)
    /// An override takes the screen (`OverrideDesk` decides which): `entries` loop from now
    /// until `endOverride`, then the interrupted item comes back where it was
    /// (`PlaylistProgram+Override`). Of kiosk.conf's layers only those named in `layers` stay
    /// up while it plays (the presenter's).
    case showOverride(name: String, entries: [PlaylistEntry], layers: [String] = [])
    /// The override on screen ends; the loop comes back. `ranItsCourse`: its duration ran out
    /// (proof of play records its item completed), not a cancel or a reload.
    case endOverride(ranItsCourse: Bool = false)
    /// A sound heard over whatever plays (an override's `sound`: an alarm tone over a card),
    /// from now, mixed at the player's volume; nil stops the one heard. The audio writer's, not
    /// the cursor's.
    case soundCue(SoundCue?)
}

/// A sound file heard over the items' sound and the music bed: once, or over and over while
/// `loops` until it is stopped.
public struct SoundCue: Sendable, Equatable {
    public var path: String
    public var loops: Bool
    public init(path: String, loops: Bool = false) {
        self.path = path
        self.loops = loops
    }
}

/// What `PlayerRequest.layer` does to a layer.
public enum LayerChange: Sendable, Equatable {
    case show
    case hide
    /// The text a text or ticker layer shows from now on (until a reload).
    case text(String)
}

extension PlayerRequest {
    /// Whether the engine carries this out (its playlist cursor and program, the display's
    /// power); the others go to `PlaybackState`. Exhaustive on purpose: a new case is routed
    /// where it is declared, and the two handlers need no list of what is not theirs.
    public var isPlaylistRequest: Bool {
        switch self {
        case .nextItem, .previousItem, .goto, .load, .switchPlaylist, .playOnce, .setDisplayPower, .layer, .showOverride,
             .endOverride, .soundCue:
            true
        case .play, .pause, .togglePlayPause, .setRate, .setDefaultRate, .setSpeed, .setVolume, .adjustVolume,
             .setMuted, .toggleMute, .seek, .skip:
            false
        }
    }
}

/// Why the engine did not carry out a request, from the part that decided (the state machine,
/// the navigator, the shared timeline, the layers): a log line, and the socket's reply after
/// the command's word.
public struct PlayerRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Where requests go: the engine (`QueuePlayer`), a wrapper that also shows the overlay, or a
/// recorder in tests. Sources hold this, not the engine, so each can be tested alone.
public protocol PlayerRequestSink: AnyObject, Sendable {
    /// Posts `request` and returns at once; it is carried out on the engine's thread.
    func send(_ request: PlayerRequest)
    /// The current item's length; nil while unknown (a scrub then does nothing).
    var duration: MediaTime? { get }
    /// 0 while paused (AVPlayer's rate).
    var rate: Rational { get }
    /// kiosk.conf's overrides to open ahead (`OverrideSet.toArm`); replaces the last list.
    func arm(overrides: [OverrideToArm])
}

extension PlayerRequestSink {
    /// A sink with no engine behind it (a recorder) has nothing to open ahead.
    public func arm(overrides: [OverrideToArm]) {}
}

/// A named override the engine opens ahead (#35): its first entry's item opened, its first
/// frame decoded and its scaler readied as for a seam, so that `override NAME` takes the
/// screen at the next refresh instead of after opening a file.
public struct OverrideToArm: Sendable, Equatable {
    public var name: String
    public var entry: PlaylistEntry

    public init(name: String, entry: PlaylistEntry) {
        self.name = name
        self.entry = entry
    }
}
