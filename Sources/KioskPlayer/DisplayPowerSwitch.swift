import KioskCore
import Logging

/// Where playback picks up when the screen comes back on.
struct PoweredOff {
    /// The entry that played (the cursor's), and where in it; nil: the loop moves on.
    var index: Int?
    var position: MediaTime?
}

/// The screen's power (`display.power`, the control socket's `display_power`): switched off
/// through KMS (or black, on a display without the control, or while CEC puts the TV to
/// sleep), and on again. It keeps where playback picks up; the sequencer closes and reopens
/// items around it.
final class DisplayPowerSwitch {
    /// Set while the display is off.
    private(set) var poweredOff: PoweredOff?
    private let screen: FramePresenter
    private let logger: Logger

    init(screen: FramePresenter, logger: Logger) {
        self.screen = screen
        self.logger = logger
    }

    var isOff: Bool { poweredOff != nil }

    /// Off from now on (the snapshot and requests see it while the items close); playback
    /// picks up at `resume`.
    func markOff(resumingAt resume: PoweredOff) {
        poweredOff = resume
    }

    /// Switches the screen off once nothing plays. `viaKMS`: the output's own control does;
    /// else (`power_control: cec`: the TV is told by KioskCEC) the picture is black.
    func switchOff(viaKMS: Bool) {
        do {
            let switchedOff = viaKMS ? try screen.output.setPower(on: false) : false
            screen.directVideo?.planesHidden()   // switching off takes the planes down
            if !switchedOff { screen.presentFiller(item: -1) }
            logger.notice("display power off: nothing is decoded until it is on again")
        } catch where outputWasClosed(error) {
            // Given back under the presenter: nothing to switch.
        } catch {
            logger.error("display power off: \(error); showing black instead")
            screen.presentFiller(item: -1)
        }
    }

    /// On again; where playback picks up.
    func switchOn(viaKMS: Bool) -> PoweredOff? {
        let resume = poweredOff
        poweredOff = nil
        do {
            if viaKMS { _ = try screen.output.setPower(on: true) }
            logger.notice("display power on")
        } catch where !outputWasClosed(error) {
            logger.error("display power on: \(error)")
        } catch {}
        return resume
    }

    /// A live reload while off: the entry that played is now at `index`, or (nil) gone, so
    /// the new list begins when the screen is on again.
    func entryMoved(to index: Int?) {
        guard isOff else { return }
        if let index {
            if poweredOff?.index != nil { poweredOff?.index = index }
        } else {
            poweredOff = PoweredOff()
        }
    }
}
