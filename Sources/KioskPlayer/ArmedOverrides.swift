import KioskCore
import KioskMedia

/// Named overrides opened ahead (#35), so that one asked for takes the screen at the next
/// refresh instead of after opening, probing and decoding a file: the first entry's item is
/// opened, its first frame decoded and its scaler readied as for a seam, then parked (its
/// decoder waits on its full frame queue; its sound is in no feeder's order). Which overrides:
/// `OverrideSet.toArm`, sent by the service at start and on each reload. A parked item is
/// taken by its override's start and armed again once that override no longer plays.
final class ArmedOverrides {
    /// What the service asked to arm, highest priority first.
    private(set) var wanted: [OverrideToArm] = []
    private var parked: [String: ActiveItem] = [:]
    /// Overrides whose item failed while parked: not armed again until the list changes (a
    /// request opens it then and says why it fails, as for any item).
    private var failed: Set<String> = []

    var parkedNames: [String] { wanted.map(\.name).filter { parked[$0] != nil } }

    /// The service's new list: parked items it no longer names, or names with another entry,
    /// are closed.
    func want(_ list: [OverrideToArm]) {
        wanted = list
        failed = []
        for (name, item) in parked where !list.contains(where: { $0.name == name && $0.entry == item.entry }) {
            remove(name)?.close()
        }
    }

    /// The next override to open ahead: wanted, not parked, not failed, not the one playing
    /// (its item is on screen; it is armed again when it ends).
    func nextToArm(playing: String?) -> OverrideToArm? {
        wanted.first { parked[$0.name] == nil && !failed.contains($0.name) && $0.name != playing }
    }

    func park(_ item: ActiveItem, as name: String) {
        remove(name)?.close()
        parked[name] = item
    }

    /// The parked item of override `name` when it is the one for `entry`, taken out; nil when
    /// there is none (or it failed since: closed).
    func take(_ name: String, entry: PlaylistEntry) -> ActiveItem? {
        guard let item = parked[name], item.entry == entry else { return nil }
        remove(name)
        if item.failure != nil {
            item.close()
            return nil
        }
        return item
    }

    /// Each parked item whose first frame has come, once (`ready` readies its scaler); those
    /// that failed are closed, remembered and returned for the log.
    func settle(ready: (ActiveItem, DecodedFrame) -> Void) -> [(name: String, error: MediaError)] {
        var failures: [(name: String, error: MediaError)] = []
        for (name, item) in parked {
            if let error = item.failure {
                remove(name)?.close()
                failed.insert(name)
                failures.append((name, error))
            } else if !item.isScalerPrepared, let first = item.firstFrame {
                item.isScalerPrepared = true
                ready(item, first)
            }
        }
        return failures
    }

    /// Everything parked closed (the player stops, a reload changed how items open); the list
    /// stays, so they are armed again.
    func closeAll() {
        for name in Array(parked.keys) { remove(name)?.close() }
    }

    @discardableResult
    private func remove(_ name: String) -> ActiveItem? { parked.removeValue(forKey: name) }
}
