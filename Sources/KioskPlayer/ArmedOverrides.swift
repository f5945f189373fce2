import KioskCore
import KioskMedia

/// Named overrides opened ahead (#35), so that one asked for takes the screen at the next
/// refresh instead of after opening, probing and decoding a file: the first entry's item is
/// opened, its first frame decoded and its scaler readied as for a seam, then parked (its
/// decoder waits on its full frame queue; its sound is in no feeder's order). Which overrides:
/// `OverrideSet.toArm`, sent by the service at start and on each reload. A parked item is
/// taken when an override beginning with its entry starts (a CAP alert shows an override under
/// the alert's own name: the entry, not the name, finds it) and armed again once it ends.
/// Files are looked at once a second (`recheckFiles`): a parked item whose file was replaced or
/// removed (a content sync, an upload) is closed at once, so its decoder does not hold the old
/// file's space for months until asked for, and armed again with the new file once it holds
/// still; an override that failed is tried again when its file changes (one delivered later).
final class ArmedOverrides {
    /// What the service asked to arm, highest priority first.
    private(set) var wanted: [OverrideToArm] = []
    private var parked: [String: Parked] = [:]
    /// Overrides whose item failed while parked, with their file as it was opened: not armed
    /// again until the list or the file changes (a request opens it then and says why it
    /// fails, as for any item).
    private var failed: [String: FileObservation?] = [:]
    /// Overrides whose file changed at the last look, with that look: armed once a look finds it
    /// the same again (a file still being written is not opened half done).
    private var settling: [String: FileObservation?] = [:]
    private var lastLook: MediaTime?
    /// How often the files of the overrides to arm are looked at (one stat(2) each).
    static let recheckInterval = MediaTime(value: 1, timescale: 1)

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
        failed = [:]
        settling = settling.filter { name, _ in list.contains { $0.name == name } }
        for (name, parked) in parked where !list.contains(where: { $0.name == name && $0.entry == parked.item.entry }) {
            remove(name)?.close()
        }
    }

    /// The next override to open ahead: wanted, not parked, not failed, and not playing now
    /// (`playing`: the entries of the override on screen; its item is armed again when it ends).
    func nextToArm(playing: [PlaylistEntry]) -> OverrideToArm? {
        wanted.first { parked[$0.name] == nil && failed[$0.name] == nil && settling[$0.name] == nil && !playing.contains($0.entry) }
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
                failed[name] = parked.file
                failures.append((name, error))
            } else if !parked.item.isScalerPrepared, let first = parked.item.firstFrame {
                parked.item.isScalerPrepared = true
                ready(parked.item, first)
            }
        }
        return failures
    }

    /// What changed in the files at `now`, at most once per `recheckInterval`: parked items
    /// whose file is not the one opened are closed (the names returned, for the log), failed
    /// ones whose file changed are tried again, and either is armed once its file holds still
    /// for a look.
    func recheckFiles(atHost now: MediaTime) -> [(name: String, entry: PlaylistEntry)] {
        if let lastLook, now - lastLook < Self.recheckInterval { return [] }
        lastLook = now
        var closed: [(name: String, entry: PlaylistEntry)] = []
        for want in wanted {
            guard case .file = want.entry.media else { continue }
            let file = Self.look(at: want.entry.media)
            if let held = parked[want.name] {
                guard held.file != file else { continue }
                remove(want.name)?.close()
                settling[want.name] = file
                closed.append((want.name, want.entry))
            } else if let seen = failed[want.name] {
                guard seen != file else { continue }
                failed.removeValue(forKey: want.name)
                settling[want.name] = file
            } else if let seen = settling[want.name] {
                if seen == file { settling.removeValue(forKey: want.name) } else { settling[want.name] = file }
            }
        }
        return closed
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
