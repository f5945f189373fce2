import Foundation
import KioskControl
import KioskCore
import Logging

/// kiosk.conf's triggers for `kiosk run`: expanded to entries at start and on every reload,
/// and held here for the two sources that fire them, input (keys, zones; reopened when the
/// table changes) and the control socket's `trigger NAME` (which reads the table in force).
/// Triggers are a source of `PlayerRequest`s like the others: nothing of them is in the engine.
package final class LiveTriggers: TriggerControl, @unchecked Sendable {
    // Safe to share: `current` is only touched with `lock` held.
    private let lock = NSLock()
    private var current: TriggerSet

    /// Where command triggers' lines go (the control dispatcher over `kiosk run`'s services),
    /// connected once those exist: input and GPIO start before them.
    private var commandRunner: (@Sendable (String) -> String?)?
    private var replaced: [@Sendable () -> Void] = []

    package init(_ triggers: TriggerSet) { current = triggers }

    package var triggers: TriggerSet { lock.withLock { current } }

    package func connectCommands(_ runner: @escaping @Sendable (String) -> String?) {
        lock.withLock { commandRunner = runner }
    }

    /// Carries a command trigger's line out as the control socket would; nil when it was done,
    /// else why not (the command's own refusal).
    @Sendable package func runCommand(_ line: String) -> String? {
        guard let runner = lock.withLock({ commandRunner }) else { return "kiosk is still starting its services" }
        return runner(line)
    }

    /// Takes `new`; true when it differs from the table in force (then each `whenReplaced`
    /// action runs).
    package func replace(with new: TriggerSet) -> Bool {
        let (changed, actions) = lock.withLock {
            defer { current = new }
            return (current != new, replaced)
        }
        if changed { actions.forEach { $0() } }
        return changed
    }

    /// `action` runs after each replacement that changed the table (a reader that blocks,
    /// the GPIO thread, is woken to read it).
    package func whenReplaced(_ action: @escaping @Sendable () -> Void) {
        lock.withLock { replaced.append(action) }
    }
}

package enum TriggerWiring {
    /// The triggers of `config`, their content expanded: `item: N` from `defaultEntries`,
    /// `playlist:` from the named playlists, `items:` like kiosk.conf's items. One line per
    /// trigger that has nothing to play now (it is kept: firing it says so again).
    package static func resolve(_ config: KioskConfig, defaultEntries: [PlaylistEntry], logger: Logger) -> TriggerSet {
        guard !config.triggers.isEmpty else { return TriggerSet() }
        let set = TriggerSet(config.triggers, defaultEntries: defaultEntries,
                             playlists: playlists(config, named: config.triggers.map(\.content), defaultEntries: defaultEntries),
                             expand: expand)
        for trigger in set.triggers {
            if let problem = trigger.problem { logger.warning("trigger '\(trigger.name)': \(problem)") }
        }
        return set
    }

    /// kiosk.conf's overrides, expanded as triggers are; one line for each with nothing to play now.
    package static func resolveOverrides(_ config: KioskConfig, defaultEntries: [PlaylistEntry], logger: Logger) -> OverrideSet {
        guard !config.overrides.isEmpty else { return OverrideSet() }
        let set = OverrideSet(config.overrides, defaultEntries: defaultEntries,
                              playlists: playlists(config, named: config.overrides.map(\.content), defaultEntries: defaultEntries),
                              expand: expand)
        for override in set.overrides {
            if let problem = override.problem { logger.warning("override '\(override.name)': \(problem)") }
        }
        return set
    }

    /// The default playlist and those `contents` name, expanded.
    private static func playlists(_ config: KioskConfig, named contents: [TriggerConfig.Content],
                                  defaultEntries: [PlaylistEntry]) -> [String: [PlaylistEntry]] {
        var playlists = [KioskConfig.defaultPlaylistName: defaultEntries]
        for playlist in config.playlists where contents.contains(.playlist(playlist.name)) {
            playlists[playlist.name] = PlaylistExpander().expand(playlist.items).entries
        }
        return playlists
    }

    private static func expand(_ items: [ItemConfig]) -> (entries: [PlaylistEntry], problems: [String]) {
        let expansion = PlaylistExpander().expand(items)
        return (expansion.entries, expansion.diagnostics.map { "\($0)" })
    }
}
