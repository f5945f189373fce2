import KioskCore

extension PlaybackLoop {
    /// Applies a live reload of kiosk.conf on the presenter thread, between two frames: the new
    /// settings replace the old whole (gravity, image and stall times are read from them at each
    /// use); `SettingsReload` says what else changes, so a reload does not undo what keys or
    /// touch did. `entries`: the new playlist, when it changed.
    func applyReload(_ new: PlayerSettings, entries: [PlaylistEntry]?) {
        let reload = SettingsReload(from: settings, to: new, newPlaylist: entries != nil)
        settings = new
        if let loopMode = reload.loopMode { navigator.setLoopMode(loopMode) }
        if reload.preparesUpcomingAgain {
            items.dropUpcoming()
        }
        if let entries {
            // While an insert plays, the loop it returns to takes the new list (nil).
            switch navigator.replaceLoopEntries(entries) {
            case nil: break
            case .keptCurrent(let index)?:
                // The current item plays on; its new options (gravity, volume) take effect now,
                // its trim, duration and loop count from its next play.
                current?.index = index
                current?.entry = entries[index]
                if isDisplayOff, poweredOff?.index != nil { poweredOff?.index = index }
            case .currentRemoved?, .notStarted?:
                // With the screen off, the new list begins when it is on again.
                if isDisplayOff { poweredOff = PoweredOff() } else { begin(navigator.advance(), seamFrom: nil) }
            }
            finished = false
        }
        for request in reload.requests { apply(request) }
        applyVolume()   // an item's own volume or mute may have changed
        if let overlay = reload.overlay { screen.configureOverlay(overlay) }
        publishSnapshot()
    }
}
