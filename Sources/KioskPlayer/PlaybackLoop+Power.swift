import KioskCore

/// Where playback picks up when the screen comes back on.
struct PoweredOff {
    /// The entry that played (the cursor's), and where in it; nil: the loop moves on.
    var index: Int?
    var position: MediaTime?
}

/// Display power (`display.power`, the control socket's `display_power`). Off: the screen is
/// switched off (or shows black, on a display without the control), every item is closed so
/// nothing is decoded, and the loop idles with the watchdog fed. On: the item that played comes
/// back where it was, or what the schedule switched to meanwhile begins.
extension PlaybackLoop {
    var isDisplayOff: Bool { poweredOff != nil }

    /// Whether the output's own control switches the screen (`display.power_control`).
    var usesKMSPower: Bool { settings.display.powerControl != .cec }

    func setDisplayPower(on: Bool) {
        guard on == isDisplayOff else { return }
        on ? powerOn() : powerOff()
        onEvent?(.displayPower(on: on))
        publishSnapshot()
    }

    private func powerOff() {
        let playing = current != nil && !finished
        poweredOff = PoweredOff(index: playing ? navigator.currentIndex : nil, position: playing ? currentTime : nil)
        items.closeAll()
        idleUntil = nil
        audio?.flush()
        apply(.queueEmpty)
        do {
            // `power_control: cec` leaves KMS alone: the TV is told (KioskCEC), the picture is black.
            let switchedOff = usesKMSPower ? try output.setPower(on: false) : false
            if !switchedOff { screen.presentFiller(item: -1, dropped: dropped) }
            logger.notice("display power off: nothing is decoded until it is on again")
        } catch {
            logger.error("display power off: \(error); showing black instead")
            screen.presentFiller(item: -1, dropped: dropped)
        }
    }

    private func powerOn() {
        let resume = poweredOff
        poweredOff = nil
        do {
            if usesKMSPower { _ = try output.setPower(on: true) }
            logger.notice("display power on")
        } catch {
            logger.error("display power on: \(error)")
        }
        finished = false
        // A switch that waited while the screen was dark is taken now; else the item resumes.
        if navigator.program.pendingSwitch == nil, let index = resume?.index, navigator.entries.indices.contains(index) {
            begin(.play(index), seamFrom: nil, resumingAt: resume?.position)
        } else {
            begin(navigator.advance(), seamFrom: nil)
        }
    }
}
