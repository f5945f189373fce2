import ArgumentParser
import KioskCEC
import KioskCore
import KioskService

/// `kiosk cec`: what the box's HDMI-CEC adapters say, and a Standby or a wake-up sent by hand, so
/// an operator can see whether the TV reacts before trusting display.power to it.
struct CECCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cec",
        abstract: "HDMI-CEC: show the adapters, or send the TV to standby or wake it (Image View On, Active Source).",
        discussion: """
            Without --device, status lists every /dev/cec* and names the one standby and wake use: \
            the first whose physical address shows a TV connected to a source port. kiosk claims a \
            Playback logical address (OSD name "kiosk") only when the adapter has none configured.
            """)

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case status, standby, wake
    }

    @Option(help: "The CEC device, e.g. /dev/cec0 (default: the first connected one).")
    var device: String?

    @Argument(help: "status, standby or wake.")
    var action: Action = .status

    func run() throws {
        do {
            switch action {
            case .status: try printStatus()
            case .standby: report(try CECAdapter.open(path: device).standby())
            case .wake: report(try CECAdapter.open(path: device).wake())
            }
        } catch {
            throw RuntimeFailure("\(error)")
        }
    }

    private func report(_ sent: [CECMessage]) {
        for message in sent { print("sent \(message)") }
    }

    private func printStatus() throws(CECError) {
        if let device {
            print(Self.describe(try CECAdapter(path: device).info()))
            return
        }
        let paths = CECAdapter.adapterPaths()
        guard !paths.isEmpty else { throw .noAdapter(directory: "/dev") }
        var readable: [CECAdapterInfo] = []
        var firstError: CECError?
        for path in paths {
            do {
                let info = try CECAdapter(path: path).info()
                readable.append(info)
                print(Self.describe(info))
            } catch {
                print("\(path)\n  \(error)")
                firstError = firstError ?? error
            }
        }
        guard let chosen = CECAdapterChoice.choose(readable, address: \.physicalAddress) else {
            throw firstError ?? .noAdapter(directory: "/dev")
        }
        print("standby and wake use \(chosen.path)")
    }

    static func describe(_ info: CECAdapterInfo) -> String {
        var lines = [info.path, "  driver: \(info.driver) (\(info.name))"]
        var address = "  physical address: \(info.physicalAddress)"
        if !info.physicalAddress.isValid { address += " (no TV connected)" }
        if info.physicalAddress == .root { address += " (the TV end: an HDMI input)" }
        lines.append(address)
        if info.configuredCount == 0 {
            lines.append("  logical addresses: none configured ("
                         + (info.canClaim ? "kiosk claims a Playback address when it sends" : "the driver does not let kiosk claim one") + ")")
        } else if info.logicalAddresses.isEmpty {
            lines.append("  logical addresses: \(info.configuredCount) configured, none claimed"
                         + (info.physicalAddress.isValid ? " yet" : " (claimed when a TV is connected)"))
        } else {
            lines.append("  logical addresses: " + info.logicalAddresses.map(\.description).joined(separator: ", "))
        }
        if !info.osdName.isEmpty { lines.append("  OSD name: \(info.osdName)") }
        return lines.joined(separator: "\n")
    }
}
