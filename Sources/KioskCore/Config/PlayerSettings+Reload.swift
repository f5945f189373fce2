// What of a newly read kiosk.conf a running kiosk takes: the settings' side of a reload.
// The player's steps for it are `SettingsReload` (ConfigChanges.swift).

extension KioskConfig {
    /// What a running kiosk plays by once `self`, a newly read file, is applied to it: this
    /// file, except the parts that wait for a restart (`ConfigPart.application`), which keep
    /// the values `running` has.
    public func appliedLive(to running: KioskConfig) -> KioskConfig {
        var merged = self
        for part in ConfigPart.allCases where part.application == .onRestart {
            switch part {
            case .display:
                // display.power belongs to the schedule, which applies live.
                merged.display = running.display
                merged.display.power = display.power
            case .audioDevice: merged.audio.device = running.audio.device
            case .audioLevel:
                merged.audio.volume = running.audio.volume
                merged.audio.muted = running.audio.muted
            case .input: merged.input = running.input
            case .playback: merged.playback = running.playback
            case .overlay: merged.overlay = running.overlay
            case .control: merged.control = running.control
            case .logging: merged.logging = running.logging
            case .metrics: merged.metrics = running.metrics
            case .usb: merged.usb = running.usb
            case .mqtt: merged.mqtt = running.mqtt
            case .sync: merged.sync.epoch = running.sync.epoch
            case .contentSync: merged.sync.content = running.sync.content
            case .audioTrack: merged.audioTrack = running.audioTrack
            case .layers: merged.layers = running.layers
            case .items: merged.items = running.items
            case .playlists: merged.playlists = running.playlists
            case .schedule:
                merged.schedule = running.schedule
                merged.display.power = running.display.power
            case .triggers: merged.triggers = running.triggers
            case .overrides: merged.overrides = running.overrides
            case .alerts: merged.alerts = running.alerts
            case .web: merged.web = running.web
            }
        }
        return merged
    }
}

extension PlayerSettings {
    /// The settings a running kiosk plays by once a reload read `config`: its parts that apply
    /// live or reopened (`ConfigPart.application`); the display, sound device and control
    /// socket opened at start, and what the command line set, stay as they are.
    public func reloaded(from config: KioskConfig) -> PlayerSettings {
        var next = self
        for part in ConfigPart.allCases where part.application != .onRestart {
            switch part {
            case .audioLevel:
                next.audio.volume = config.audio.volume
                next.audio.muted = config.audio.muted
            case .input: next.input = config.input
            case .playback: next.playback = config.playback
            case .overlay: next.overlay = config.overlay
            case .layers: next.layers = config.layers
            case .sync: next.sync.epoch = config.sync.epoch
            // The scheduler reads the new rules at its next tick (ConfigPart.application).
            case .schedule: next.schedule = ScheduleSettings(config)
            // Opened at start from these settings: taking them live would mean opening again.
            case .display, .audioDevice, .control, .logging, .metrics, .usb, .mqtt, .audioTrack, .contentSync, .alerts, .web: break
            // Entries are expanded from the file system and handed over beside the settings.
            case .items, .playlists: break
            // Expanded like items and handed to input and the control socket beside the settings.
            case .triggers: break
            // Expanded like items and handed to the override desk beside the settings.
            case .overrides: break
            }
        }
        return next
    }
}
