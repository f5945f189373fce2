/// The parts of kiosk.conf a live reload looks at, each with how a change to it is applied.
/// The order is the file's, so log lines read like the file.
public enum ConfigPart: String, Sendable, CaseIterable {
    /// display: card, connector, mode, rotation, headless size, video plane, power control
    /// (not `display.power`: that is part of the schedule).
    case display
    /// audio.device: which PCM.
    case audioDevice = "audio device"
    /// audio.volume and audio.muted.
    case audioLevel = "audio volume"
    /// input: devices, grab, keys, gestures, seek step.
    case input
    /// playback: loop, gravity, start_paused, rate, image_duration.
    case playback
    case overlay
    case control
    /// logging: the proof-of-play file and its limit.
    case logging
    /// metrics: the textfile and its interval.
    case metrics
    /// items, with their per-item options.
    case items
    /// playlists: the named playlists besides the default, with their items.
    case playlists
    /// schedule (entries, inserts, timezone, switch) and display.power: when what plays.
    case schedule
    /// triggers: keys, zones and the control socket's `trigger` names, and what they play.
    case triggers
    /// overrides: what each plays, its priority and duration.
    case overrides
    /// alerts: the CAP feed, its filters and what its alerts show.
    case alerts
    /// web: the page's address, password and TLS files.
    case web
    /// usb: sticks (mode, mount_root, copy_to, min_free).
    case usb
    /// mqtt: the broker, names, credentials and TLS files of fleet control.
    case mqtt
    /// sync: the timeline's epoch.
    case sync
    /// sync's content keys (manifest, interval, dir, parallel, max_rate, min_free, ca_file,
    /// public_key).
    case contentSync = "sync (content)"
    /// audio_track: the music bed's files and levels.
    case audioTrack = "audio_track"
    /// layers: the clock, text and pictures over every item.
    case layers

    /// How a running kiosk takes a change of this part.
    public var application: ReloadApplication {
        switch self {
        // The presenter thread owns the opened output and sound device for its whole life;
        // swapping them under it would mean a new display and clock mid-frame. A restart (a
        // second at most, with the service's Restart=) does that cleanly.
        case .display, .audioDevice: return .onRestart
        // The socket is bound at start (its path and mode checked then); a new path or
        // interval takes a restart.
        case .control: return .onRestart
        // The proof-of-play writer opens its file once, at start.
        case .logging: return .onRestart
        // The metrics writer is made with its file and timer at start, as proof of play is.
        case .metrics: return .onRestart
        // The stick watcher is started (or not) with its settings at start.
        case .usb: return .onRestart
        // The broker connection, its will and its subscriptions are made once, at start.
        case .mqtt: return .onRestart
        // The bed's decoder thread and its mix are made with the sound path, at start: a new
        // bed would restart it from its first file anyway, so a restart is as good.
        case .audioTrack: return .onRestart
        // The presenter loads the new font and settings between two frames.
        case .overlay: return .live
        // Like the overlay: the presenter makes the new layers between two frames.
        case .layers: return .live
        // The input service is closed (grabs released) and opened again with the new settings.
        case .input: return .reopened
        case .audioLevel, .playback, .items: return .live
        // The engine asks the settings for the timeline at every frame: a new epoch is followed at once.
        case .sync: return .live
        // The content sync thread is made with its settings at start, like the stick watcher.
        case .contentSync: return .onRestart
        // The schedule is asked from scratch at every tick (ScheduleTicker, at least once a
        // second): new rules take effect at the next tick, a playlist switch they cause lands
        // as `switch` says (the next seam, or at once). Named playlists are expanded again
        // like items; the one playing is handed over like items, the others wait until the
        // schedule chooses them. (The engine does not follow the schedule yet: README,
        // "Schedules"; until it does, these changes are held in the settings only.)
        case .playlists, .schedule: return .live
        // The control socket's `trigger` takes the new table at once; input is closed and opened
        // again (as for `input`), since a new key may make another device worth reading.
        case .triggers: return .reopened
        // `override NAME` reads the new table at once; the one on screen plays on until it ends.
        case .overrides: return .live
        // The poller is made with its feed at start, as content sync is.
        case .alerts: return .onRestart
        // The server is bound with its address, password and certificate at start.
        case .web: return .onRestart
        }
    }
}

/// How a changed part of the configuration reaches a running kiosk.
public enum ReloadApplication: Sendable, Equatable {
    /// Applied to the running player; the picture and sound go on.
    case live
    /// Its device is closed and opened again in-process (a short gap in that device only).
    case reopened
    /// Only a restart of kiosk applies it; the log says so once.
    case onRestart
}

/// The playback settings that differ between two configurations. A new one is compared in
/// `playbackSettings(_:_:)` and given its reload step in `SettingsReload` (the compiler asks).
public enum PlaybackSetting: String, Sendable, CaseIterable {
    case loop, gravity, startPaused = "start_paused", rate, imageDuration = "image_duration", stallTimeout = "stall_timeout"
    case resume, settle, region, transition, frameMemory = "frame_memory", hwdec, decoderThreads = "decoder_threads"
    case deinterlace
}

/// What differs between the configuration playing and a newly read one. Pure: the reload
/// code acts on it. Items are compared by what they say, not where in the file they are
/// written, so adding a comment line above them changes nothing.
public struct ConfigChanges: Sendable, Equatable {
    /// The parts that differ, in `ConfigPart` order.
    public let parts: [ConfigPart]
    /// Within `playback`, which settings differ.
    public let playbackSettings: [PlaybackSetting]

    public init(from old: KioskConfig, to new: KioskConfig) {
        var parts: [ConfigPart] = []
        // A mirror's or span's screens (`displays`) are the display too (a separate layout's
        // main screen comes here as `display`: KioskConfig.primaryScreen).
        if old.display.withoutPowerWindows != new.display.withoutPowerWindows || old.displays != new.displays {
            parts.append(.display)
        }
        if old.audio.device != new.audio.device { parts.append(.audioDevice) }
        if old.audio.volume != new.audio.volume || old.audio.muted != new.audio.muted { parts.append(.audioLevel) }
        if old.input != new.input { parts.append(.input) }
        let settings = Self.playbackSettings(old.playback, new.playback)
        if !settings.isEmpty { parts.append(.playback) }
        if old.overlay != new.overlay { parts.append(.overlay) }
        if old.layers.map(\.withoutLocation) != new.layers.map(\.withoutLocation) { parts.append(.layers) }
        if old.control != new.control { parts.append(.control) }
        if old.logging != new.logging { parts.append(.logging) }
        if old.metrics != new.metrics { parts.append(.metrics) }
        if !Self.sameItems(old.items, new.items) { parts.append(.items) }
        if old.playlists.map(\.withoutLocation) != new.playlists.map(\.withoutLocation) { parts.append(.playlists) }
        if old.schedule.withoutLocations != new.schedule.withoutLocations || old.display.power != new.display.power {
            parts.append(.schedule)
        }
        if old.triggers.map(\.withoutLocation) != new.triggers.map(\.withoutLocation) { parts.append(.triggers) }
        if old.overrides.map(\.withoutLocation) != new.overrides.map(\.withoutLocation) { parts.append(.overrides) }
        if old.alerts != new.alerts { parts.append(.alerts) }
        if old.web != new.web { parts.append(.web) }
        if old.usb != new.usb { parts.append(.usb) }
        if old.mqtt != new.mqtt { parts.append(.mqtt) }
        if old.sync.epoch != new.sync.epoch { parts.append(.sync) }
        if old.sync.content != new.sync.content { parts.append(.contentSync) }
        if old.audioTrack?.withoutLocations != new.audioTrack?.withoutLocations { parts.append(.audioTrack) }
        self.parts = parts
        playbackSettings = settings
    }

    public var isEmpty: Bool { parts.isEmpty }

    public func contains(_ part: ConfigPart) -> Bool { parts.contains(part) }

    /// The changed parts taken by the running kiosk (live or reopened).
    public var appliedNow: [ConfigPart] { parts.filter { $0.application != .onRestart } }

    /// The changed parts that wait for a restart.
    public var waitingForRestart: [ConfigPart] { parts.filter { $0.application == .onRestart } }

    /// "items, playback (loop, rate), audio volume" for the log.
    public var appliedSummary: String {
        appliedNow.map { part in
            part == .playback ? "playback (" + playbackSettings.map(\.rawValue).joined(separator: ", ") + ")" : part.rawValue
        }.joined(separator: ", ")
    }

    static func playbackSettings(_ old: PlaybackConfig, _ new: PlaybackConfig) -> [PlaybackSetting] {
        var changed: [PlaybackSetting] = []
        if old.loop != new.loop { changed.append(.loop) }
        if old.gravity != new.gravity { changed.append(.gravity) }
        if old.startPaused != new.startPaused { changed.append(.startPaused) }
        if old.rate != new.rate { changed.append(.rate) }
        if old.imageDuration != new.imageDuration { changed.append(.imageDuration) }
        if old.stallTimeout != new.stallTimeout { changed.append(.stallTimeout) }
        if old.resume != new.resume { changed.append(.resume) }
        if old.settle != new.settle { changed.append(.settle) }
        if old.region != new.region { changed.append(.region) }
        if old.transition != new.transition { changed.append(.transition) }
        if old.frameMemory != new.frameMemory { changed.append(.frameMemory) }
        if old.hwdec != new.hwdec { changed.append(.hwdec) }
        if old.decoderThreads != new.decoderThreads { changed.append(.decoderThreads) }
        if old.deinterlace != new.deinterlace { changed.append(.deinterlace) }
        return changed
    }

    static func sameItems(_ old: [ItemConfig], _ new: [ItemConfig]) -> Bool {
        old.map(\.withoutLocation) == new.map(\.withoutLocation)
    }
}

/// What a running player does when a reload hands it a new settings value, decided from the
/// settings it plays by and the new ones. Pure: the engine carries it out between two frames.
///
/// Settings the engine reads each time it uses them (gravity, image duration, stall timeout)
/// need no step: holding the new value is enough. Those that are also player state (the
/// rate, volume, mute, the playlist's loop mode) change only when the file changed them, so a
/// reload does not undo what keys, touch or the control socket did.
public struct SettingsReload: Sendable, Equatable {
    /// Carried out as if a user asked, in this order.
    public var requests: [PlayerRequest] = []
    /// The playlist's new loop mode.
    public var loopMode: PlaybackConfig.LoopMode?
    /// The item prepared for the seam was chosen (and a still's duration set) by the old
    /// settings or playlist: it is prepared again by the new ones.
    public var preparesUpcomingAgain = false
    /// The overlay's new settings; `.some(nil)` turns overlay and idle text off.
    public var overlay: OverlayConfig??
    /// The layers' new settings, when they changed (an empty list turns them off).
    public var layers: [LayerConfig]?

    /// `newPlaylist`: the reload also brings a new list of entries.
    public init(from old: PlayerSettings, to new: PlayerSettings, newPlaylist: Bool) {
        let playback = ConfigChanges.playbackSettings(old.playback, new.playback)
        for setting in playback {
            switch setting {
            case .loop: loopMode = new.playback.loop
            // A playing player changes speed at once, a paused one stays paused: mpv's speed.
            case .rate: requests.append(.setSpeed(new.playback.defaultRate))
            case .gravity, .imageDuration, .stallTimeout, .region: break
            // Read at each seam; one already decided (its sound faded ahead) goes on as it began.
            case .transition: break
            // Read when kiosk starts (where to resume, whether to keep saving): nothing to do now.
            case .resume: break
            // The folder watcher's, not the engine's: the reloader hands it over (settleChanged).
            case .settle: break
            // Only a start is paused or not: a reload never pauses a playing kiosk.
            case .startPaused: break
            // Each item's queue is made when it opens: the next item opened has the new size.
            case .frameMemory: break
            // Each item's decoder is chosen when it opens.
            case .hwdec, .decoderThreads, .deinterlace: break
            }
        }
        preparesUpcomingAgain = newPlaylist || playback.contains(.loop) || playback.contains(.imageDuration)
        if old.audio.volume != new.audio.volume { requests.append(.setVolume(new.audio.volume)) }
        if old.audio.muted != new.audio.muted { requests.append(.setMuted(new.audio.muted)) }
        if old.overlay != new.overlay { overlay = .some(new.overlay) }
        if old.layers.map(\.withoutLocation) != new.layers.map(\.withoutLocation) { layers = new.layers }
    }
}

extension DisplayConfig {
    /// The display without `power`, which is part of the schedule (`ConfigPart.schedule`).
    public var withoutPowerWindows: DisplayConfig {
        var copy = self
        copy.power = []
        return copy
    }
}
