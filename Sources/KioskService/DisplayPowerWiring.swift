import KioskCEC
import KioskControl
import KioskCore
import KioskPlayer
import Logging

/// HDMI-CEC beside KMS for `kiosk run` (`display.power_control`): the player's display-power
/// events go to the TV as well as to the control socket. KMS itself is the engine's
/// (ItemSequencer+Requests.swift, DisplayPowerSwitch.swift); CEC observes what the engine did, it does not decide.
package enum DisplayPowerWiring {
    /// The follower `control` asks for: `cec` and `both` always (no adapter is then logged when
    /// the screen is first switched), `auto` where the box has a CEC adapter, `kms` none.
    package static func cecFollower(_ control: DisplayPowerControl, logger: Logger) -> CECPowerFollower? {
        switch control {
        case .kms: return nil
        case .cec, .both: return CECPowerFollower(logger: logger)
        case .auto: return CECAdapter.adapterPaths().isEmpty ? nil : CECPowerFollower(logger: logger)
        }
    }

}

/// The TV told of the display power the engine switched (the follower queues the CEC work).
package final class CECObserver: PlayerEventObserver {
    private let follower: CECPowerFollower

    package init?(_ follower: CECPowerFollower?) {
        guard let follower else { return nil }
        self.follower = follower
    }

    package func observe(_ event: PlayerEvent) {
        if case .displayPower(let on) = event { follower.displayPowerChanged(on: on) }
    }
}
