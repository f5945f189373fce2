import Foundation
import Testing
@testable import KioskCore

/// The screens' cables: what a reading of the connectors changes (a cable pulled, plugged in
/// again), the hotplugs counted, the health's `display_connected`, and the kernel's uevents.
@Suite struct DisplayConnectionsTests {
    @Test func aCablePulledAndPluggedInAgainIsTwoHotplugsAndOneReturn() {
        var connections = DisplayConnections()
        #expect(connections.allConnected == nil, "nothing read yet: unknown, not connected")
        #expect(connections.update([("card1-HDMI-A-1", .connected)]) == [], "the first reading is no change")
        #expect(connections.allConnected == true)
        #expect(connections.update([("card1-HDMI-A-1", .connected)]) == [])
        #expect(connections.update([("card1-HDMI-A-1", .disconnected)]) == [.unplugged("card1-HDMI-A-1")])
        #expect(connections.allConnected == false)
        #expect(connections.update([("card1-HDMI-A-1", nil)]) == [], "an unreadable connector keeps its state")
        #expect(connections.allConnected == false)
        #expect(connections.update([("card1-HDMI-A-1", .connected)]) == [.returned("card1-HDMI-A-1")])
        #expect(connections.allConnected == true)
        #expect(connections.hotplugs == 2)
    }

    @Test func aScreenFoundDisconnectedAtTheStartReturnsWhenPluggedIn() {
        var connections = DisplayConnections()
        #expect(connections.update([("card0-DP-1", .disconnected)]) == [], "the first reading is no change")
        #expect(connections.allConnected == false)
        #expect(connections.update([("card0-DP-1", .connected)]) == [.returned("card0-DP-1")])
    }

    @Test func unknownIsNeitherAnAlertNorAReturn() {
        var connections = DisplayConnections()
        _ = connections.update([("card1-Virtual-1", .unknown)])
        #expect(connections.allConnected == nil, "a connector that cannot tell gives no figure")
        #expect(connections.update([("card1-Virtual-1", .connected)]) == [], "unknown to connected is not a return")
        #expect(connections.hotplugs == 1)
        #expect(connections.update([("card1-Virtual-1", .unknown)]) == [])
        #expect(connections.allConnected == nil)
    }

    @Test func withSeveralScreensOneUnpluggedIsNotAllConnected() {
        var connections = DisplayConnections()
        _ = connections.update([("card1-HDMI-A-1", .connected), ("card1-HDMI-A-2", .connected)])
        #expect(connections.update([("card1-HDMI-A-1", .connected), ("card1-HDMI-A-2", .disconnected)])
                == [.unplugged("card1-HDMI-A-2")])
        #expect(connections.allConnected == false)
        #expect(connections.update([("card1-HDMI-A-1", .disconnected), ("card1-HDMI-A-2", .connected)])
                == [.unplugged("card1-HDMI-A-1"), .returned("card1-HDMI-A-2")])
    }

    @Test func theHealthSaysTheCableInItsMetricsAlertsAndProperty() {
        var snapshot = HealthSnapshot(version: "0.1.0", startTime: 0, state: .playing)
        #expect(!snapshot.text.contains("kiosk_display_connected"), "headless: absent")
        #expect(snapshot.text.contains("kiosk_display_hotplugs_total 0"))
        snapshot.displayConnected = false
        snapshot.displayHotplugs = 1
        #expect(snapshot.text.contains("kiosk_display_connected 0\n"))
        #expect(snapshot.text.contains("kiosk_display_hotplugs_total 1\n"))
        #expect(snapshot.alerts == ["display disconnected"])
        let property = snapshot.controlValue(at: 10)
        guard case .object(let members) = property else { Issue.record("not an object: \(property)"); return }
        #expect(members.first { $0.0 == "display_connected" }?.1 == .bool(false))
        #expect(members.first { $0.0 == "display_hotplugs" }?.1 == .integer(1))
        snapshot.tvPowerOn = false
        #expect(snapshot.alerts == [], "a TV in standby may drop its hotplug line: no alert")
        snapshot.tvPowerOn = nil
        snapshot.displayOn = false
        #expect(snapshot.alerts == [], "nor while the display is switched off")
        snapshot.displayOn = true
        snapshot.displayConnected = true
        #expect(snapshot.alerts == [])
        #expect(snapshot.text.contains("kiosk_display_connected 1\n"))
    }

    @Test func theTVsPowerIsAMetricOnlyWhenTheTVSaysIt() {
        var snapshot = HealthSnapshot(version: "0.1.0", startTime: 0, state: .playing)
        #expect(!snapshot.text.contains("kiosk_tv_power_on"), "no CEC, or no answer: absent")
        snapshot.tvPowerOn = false
        #expect(snapshot.text.contains("kiosk_tv_power_on 0\n"))
        #expect(snapshot.alerts == [], "a TV in standby is the schedule's business, not an alert")
        snapshot.tvPowerOn = true
        #expect(snapshot.text.contains("kiosk_tv_power_on 1\n"))
    }

    static func datagram(_ fields: [String]) -> [UInt8] { fields.flatMap { Array($0.utf8) + [0] } }

    @Test func aDRMHotplugUeventIsReadFromItsDatagram() {
        let bytes = Self.datagram(["change@/devices/platform/vkms/drm/card1", "ACTION=change",
                                   "DEVPATH=/devices/platform/vkms/drm/card1", "SUBSYSTEM=drm", "HOTPLUG=1",
                                   "DEVNAME=dri/card1", "SEQNUM=2301"])
        let event = bytes.withUnsafeBytes { KernelUevent.parse($0) }
        #expect(event?.isDisplayHotplug == true)
        #expect(event?.properties["DEVNAME"] == "dri/card1")
        let input = Self.datagram(["add@/devices/virtual/input/input7", "ACTION=add", "SUBSYSTEM=input"])
        #expect(input.withUnsafeBytes { KernelUevent.parse($0) }?.isDisplayHotplug == false)
        let udev = Self.datagram(["libudev", "garbage"])
        #expect(udev.withUnsafeBytes { KernelUevent.parse($0) } == nil, "udev's rebroadcast is not the kernel's")
        #expect([UInt8]().withUnsafeBytes { KernelUevent.parse($0) } == nil)
    }
}
