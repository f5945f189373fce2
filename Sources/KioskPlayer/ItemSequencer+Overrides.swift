import KioskCore

/// Overrides opened ahead (`ArmedOverrides`): armed between frames, taken when one begins.
extension ItemSequencer {
    /// Once a turn, after the step: readies the scalers of parked items whose first frame came,
    /// says which failed, and opens the next override to arm, one a turn, only while a picture
    /// is up and running (not while a first frame is awaited, nor before a seam's prepared
    /// item has its own): the work of opening never delays a frame the screen waits for.
    func armOverridesIfDue() {
        let armed = items.armed
        let failures = armed.settle { item, first in
            let layout = screen.layout(of: first, in: item, gravity: settings.playback.gravity, region: settings.playback.region)
            _ = try? item.scaler.prepare(for: first, layout: layout)
            item.predrawn = screen.predraw(first, layout: layout, scaler: item.scaler)
        }
        for (name, error) in failures {
            logger.warning("override '\(name)': not armed: \(error.reason); it opens when asked for, and is armed once its file changes")
        }
        for (name, entry) in armed.recheckFiles(atHost: MonotonicClock.hostTime()) {
            logger.notice("override '\(name)': \(entry.title) changed since it was armed; closed, armed again once the file holds still")
        }
        let playing = navigator.program.playingOverride != nil ? navigator.entries : []
        guard !power.isOff, !time.needsFirstFrame, upcoming?.isPrimed ?? true,
              let next = armed.nextToArm(playing: playing) else { return }
        armed.park(items.open(next.entry, index: 0, settings: settings, rate: openingRate), as: next.name)
        logger.notice("override '\(next.name)': armed (\(next.entry.title) opened ahead)")
    }

    /// The override beginning at entry `index` was armed: its parked item goes on screen next
    /// (`makeCurrent` takes it as the prepared one) instead of one opened now.
    func takeArmedOverride(at index: Int) {
        guard index == 0, navigator.program.playingOverride != nil else { return }
        let entry = navigator.entries[index]
        guard let item = items.armed.take(entry, stale: { name in
            logger.notice("override '\(name)': \(entry.title) changed since it was armed; opened again")
        }) else { return }
        item.pipeline.setRate(openingRate)
        items.putAhead(item)
        logger.info("\(entry.title): shown from its armed item")
    }

    /// The rate an item opens at: the player's, or while paused the one `play` will set.
    var openingRate: Rational {
        time.state.rate.numerator != 0 ? time.state.rate : time.state.defaultRate
    }
}
