import Yams

/// kiosk.conf's `sync` section (model: `SyncConfig`).
extension ConfigWalker {
    static let syncKeys = ["epoch"]

    func readSync(_ node: Node?, playback: PlaybackConfig) -> SyncConfig {
        var sync = SyncConfig()
        guard let section = section(node, name: "sync", allowedKeys: Self.syncKeys) else { return sync }
        guard let text = string(section, "epoch", expected: InstantText.expected) else {
            if section["epoch"] == nil {
                report(section.node, "the sync section has no 'epoch'; expected \(InstantText.expected) (or leave the section out)")
            }
            return sync
        }
        guard let epoch = InstantText.nanoseconds(parsing: text) else {
            report(section["epoch"], "'epoch' in sync is '\(text)': not a valid instant; expected \(InstantText.expected)")
            return sync
        }
        // The timeline loops; a playlist that stops, or one item repeated, is not a timeline.
        if playback.loop != .playlist {
            report(section.keyNode("epoch"), "sync needs 'playback.loop: playlist' (the timeline loops the whole playlist); "
                   + "loop is '\(playback.loop.rawValue)'")
            return sync
        }
        sync.epoch = epoch
        return sync
    }
}
