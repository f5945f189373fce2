import KioskCore
import KioskMedia

/// Named overrides opened ahead (#35), so that one asked for takes the screen at the next
/// refresh instead of after opening, probing and decoding a file: the first entry's item is
/// opened, its first frame decoded and its scaler readied as for a seam, then parked (its
/// decoder waits on its full frame queue; its sound is in no feeder's order). Which overrides:
/// `OverrideSet.toArm`, sent by the service at start and on each reload. A parked item is
/// taken when an override beginning with its entry starts (a CAP alert shows an override under
/// the alert's own name: the entry, not the name, finds it) and armed again once it ends.
final class ArmedOverrides {
    /// What the service asked to arm, highest priority first.
    private(set) var wanted: [OverrideToArm] = []
    private var parked: [String: Parked] = [:]
    /// Overrides whose item failed while parked: not armed again until the list changes (a
    /// request opens it then and says why it fails, as for any item).
    private var failed: Set<String> = []

    private struct Parked {
        let item: ActiveItem
        /// The file as it was opened (nil for a card, or nothing there): a file replaced or
        /// removed since (a content sync, an upload over it) is opened again at the request,
        /// never played stale.
        let file: FileObservation?
    }

    /// The service's new list: parked items it no longer names, or names with another entry,
    /// are closed.
    func want(_ list: [OverrideToArm]) {
        wanted = list
        failed = []
        for (name, parked) in parked where !list.contains(where: { $0.name == name && $0.entry == parked.item.entry }) {
            remove(name)?.close()
        }
    }

    /// The next override to open ahead: wanted, not parked, not failed, and not playing now
    /// (`playing`: the entries of the override on screen; its item is armed again when it ends).
    func nextToArm(playing: [PlaylistEntry]) -> OverrideToArm? {
        wanted.first { parked[$0.name] == nil && !failed.contains($0.name) && !playing.contains($0.entry) }
    }

    func park(_ item: ActiveItem, as name: String) {
        remove(name)?.close()
        parked[name] = Parked(item: item, file: Self.look(at: item.entry.media))
    }

    /// A parked item opened for `entry`, taken out; nil when there is none, or it failed or
    /// its file changed since (closed: the caller opens the entry afresh). `stale` hears of the
    /// latter.
    func take(_ entry: PlaylistEntry, stale: (String) -> Void) -> ActiveItem? {
        guard let name = wanted.map(\.name).first(where: { parked[$0]?.item.entry == entry }),
              let taken = parked.removeValue(forKey: name) else { return nil }
        if taken.item.failure != nil {
            taken.item.close()
            return nil
        }
        if taken.file != Self.look(at: entry.media) {
            taken.item.close()
            stale(name)
            return nil
        }
        return taken.item
    }

    /// Each parked item whose first frame has come, once (`ready` readies its scaler); those
    /// that failed are closed, remembered and returned for the log.
    func settle(ready: (ActiveItem, DecodedFrame) -> Void) -> [(name: String, error: MediaError)] {
        var failures: [(name: String, error: MediaError)] = []
        for (name, parked) in parked {
            if let error = parked.item.failure {
                remove(name)?.close()
                failed.insert(name)
                failures.append((name, error))
            } else if !parked.item.isScalerPrepared, let first = parked.item.firstFrame {
                parked.item.isScalerPrepared = true
                ready(parked.item, first)
            }
        }
        return failures
    }

    /// The player's rate changed: parked items decode their sound for it too.
    func setRate(_ rate: Rational) {
        for parked in parked.values { parked.item.pipeline.setRate(rate) }
    }

    /// Everything parked closed (the player stops, a reload changed how items open); the list
    /// stays, so they are armed again.
    func closeAll() {
        for name in Array(parked.keys) { remove(name)?.close() }
    }

    @discardableResult
    private func remove(_ name: String) -> ActiveItem? { parked.removeValue(forKey: name)?.item }

    private static func look(at media: MediaReference) -> FileObservation? {
        if case .file(let path) = media { FileObservation.look(at: path) } else { nil }
    }
}
