import Foundation

/// One named list of `playlists:` other than `default` (the default playlist is
/// `KioskConfig.items`, written as `items:` or `playlists.default:`).
public struct PlaylistConfig: Sendable, Equatable {
    public var name: String
    /// Same syntax as `items`; at least one in a loaded file.
    public var items: [ItemConfig]
    /// Where its name was written.
    public var location: SourceLocation

    public init(name: String, items: [ItemConfig], location: SourceLocation) {
        self.name = name
        self.items = items
        self.location = location
    }

    /// The playlist as it would read anywhere in the file: for comparing what it says.
    public var withoutLocation: PlaylistConfig {
        PlaylistConfig(name: name, items: items.map(\.withoutLocation), location: SourceLocation(file: "", line: 0, column: 0))
    }
}

/// `schedule:` — which playlist plays when, and timed inserts. The rules themselves are the
/// pure `Schedule` model (`KioskConfig.scheduleRules` adds `display.power`).
public struct ScheduleConfig: Sendable, Equatable {
    /// `timezone`: an IANA name known to the tz database; nil reads times on the box's own
    /// clock (/etc/localtime).
    public var timezone: String?
    /// `switch`: seam | now.
    public var switchMode: ScheduleSwitch = .atSeam
    /// `entries`, in file order (the order breaks ties between equal priorities).
    public var entries: [ScheduleEntry] = []
    /// `inserts`, in file order.
    public var inserts: [TimedInsert] = []
    /// Where each entry was written, index for index with `entries`: for `kiosk check`'s
    /// warnings. Not part of what the schedule says (a reload compares `withoutLocations`).
    public var entryLocations: [SourceLocation] = []
    /// Windows (of entries and of `display.power`) whose `from` and `to` are the same time:
    /// `kiosk check`'s warnings, at the `to`. Not part of what the schedule says either.
    public var windowWarnings: [ConfigDiagnostic] = []

    public init() {}

    public var withoutLocations: ScheduleConfig {
        var copy = self
        copy.entryLocations = []
        copy.windowWarnings = []
        return copy
    }
}

/// `display.power_control`: how the screen is switched off and on outside `display.power`.
public enum DisplayPowerControl: String, Sendable, CaseIterable {
    /// KMS, and CEC as well where the output has a CEC adapter.
    case auto
    /// The CRTC's ACTIVE property (atomic) or the connector's DPMS property (legacy).
    case kms
    /// HDMI-CEC: Standby, then Image View On and Active Source.
    case cec
    case both
}

extension KioskConfig {
    /// The name of the playlist `items:` (or `playlists.default:`) defines.
    public static let defaultPlaylistName = "default"

    /// Every playlist name the file defines, the default first.
    public var playlistNames: [String] { [Self.defaultPlaylistName] + playlists.map(\.name) }

    /// The items of the playlist called `name`; nil when the file defines none of that name.
    public func items(ofPlaylist name: String) -> [ItemConfig]? {
        name == Self.defaultPlaylistName ? items : playlists.first { $0.name == name }?.items
    }

    /// The schedule's rules: its entries and inserts, `display.power`'s windows, the default
    /// playlist outside every entry. Empty for a file without `schedule:` and `display.power:`
    /// (the default playlist always, the screen always on).
    public var scheduleRules: Schedule {
        Schedule(entries: schedule.entries, defaultPlaylist: Self.defaultPlaylistName, inserts: schedule.inserts,
                 powerWindows: display.power, switchMode: schedule.switchMode)
    }

    /// The clock the schedule reads: `schedule.timezone`, or the box's zone. The name was
    /// checked when the file was read; an unknown one (not reachable from a loaded file) is
    /// read as the box's zone.
    public var scheduleClock: ZoneClock {
        ZoneClock(named: schedule.timezone) ?? ZoneClock(zone: .current)
    }

    /// How messages and `kiosk schedule` name that zone: "Europe/Berlin".
    public var scheduleZoneName: String { scheduleClock.zone.identifier }
}

extension KioskConfig {
    /// `kiosk check`'s warnings, in file order: windows whose `from` equals their `to`
    /// (`ScheduleConfig.windowWarnings`), and entries of the same priority that can be active
    /// at the same time. Not errors: the rule decides (the entry listed first wins), but the
    /// operator may have meant the other. Each overlap is placed at the later entry and names both.
    public var scheduleWarnings: [ConfigDiagnostic] {
        (schedule.windowWarnings + overlapWarnings).enumerated().sorted { a, b in
            (a.element.line, a.element.column, a.offset) < (b.element.line, b.element.column, b.offset)
        }.map(\.element)
    }

    private var overlapWarnings: [ConfigDiagnostic] {
        let locations = schedule.entryLocations
        func place(_ index: Int) -> SourceLocation {
            locations.indices.contains(index) ? locations[index] : SourceLocation(file: "kiosk.conf", line: 0, column: 0)
        }
        return ScheduleOverlaps.ambiguous(in: schedule.entries).map { overlap in
            let first = schedule.entries[overlap.first], second = schedule.entries[overlap.second]
            return ConfigDiagnostic(location: place(overlap.second), message:
                "warning: schedule entries '\(first.name)' (\(place(overlap.first))) and '\(second.name)' "
                + "(\(place(overlap.second))) have the same priority (\(first.priority)) and can both be active, "
                + "e.g. \(overlap.example); the entry listed first wins, so '\(first.name)' plays then; give one "
                + "a higher priority if that is not what you meant")
        }
    }
}
