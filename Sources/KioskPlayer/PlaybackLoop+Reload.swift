import KioskCore

extension PlaybackLoop {
    /// Applies a live reload of kiosk.conf on the presenter thread, between two frames: the new
    /// settings replace the old whole (gravity, image and stall times are read from them at each
    /// use); `SettingsReload` says what else changes, so a reload does not undo what keys or
    /// touch did. `entries`: the new playlist, when it changed.
    func applyReload(_ new: PlayerSettings, entries: [PlaylistEntry]?) {
        let reload = SettingsReload(from: settings, to: new, newPlaylist: entries != nil)
        settings = new
        if let loopMode = reload.loopMode { cursor.loopMode = loopMode }
        if reload.preparesUpcomingAgain {
            upcoming?.close()
            upcoming = nil
            updateAudioOrder()
        }
        if let entries {
            switch cursor.replace(entries: entries) {
            case .keptCurrent(let index):
                // The current item plays on; its new options (gravity, volume) take effect now,
                // its trim, duration and loop count from its next play.
                current?.index = index
                current?.entry = entries[index]
            case .currentRemoved, .notStarted:
                begin(cursor.advance(), seamFrom: nil)
            }
            finished = false
        }
        for request in reload.requests { apply(request) }
        applyVolume()   // an item's own volume or mute may have changed
        if let overlay = reload.overlay { configureOverlay(overlay) }
        publishSnapshot()
    }
}
