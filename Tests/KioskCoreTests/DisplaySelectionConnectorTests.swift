import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

@Test(arguments: [
    (UInt32(11), UInt32(1), "HDMI-A-1"), (15, 1, "Virtual-1"), (10, 2, "DP-2"), (14, 1, "eDP-1"),
    (1, 1, "VGA-1"), (3, 1, "DVI-D-1"), (7, 1, "LVDS-1"), (16, 1, "DSI-1"), (0, 1, "Unknown-1"), (99, 3, "Unknown99-3"),
])
func connectorNamesFollowTheKernel(type: UInt32, typeID: UInt32, expected: String) {
    #expect(ConnectorType.connectorName(type: type, typeID: typeID) == expected)
}

enum ConnectorFixtures {
    static let hdmi = DisplayConnectorInfo(id: 40, name: "HDMI-A-1", status: .disconnected, modes: [], encoderIDs: [39])
    static let dp = DisplayConnectorInfo(id: 42, name: "DP-1", status: .connected,
                                         modes: [ModeFixtures.p1080at60], encoderIDs: [41], currentEncoderID: 41)
    static let edp = DisplayConnectorInfo(id: 44, name: "eDP-1", status: .connected,
                                          modes: [ModeFixtures.xga], encoderIDs: [43])
    static let unknownWithModes = DisplayConnectorInfo(id: 46, name: "Virtual-1", status: .unknown,
                                                       modes: [ModeFixtures.xga], encoderIDs: [45])
    static let connectedNoModes = DisplayConnectorInfo(id: 48, name: "DP-2", status: .connected, modes: [], encoderIDs: [47])
}

struct ConnectorChoiceCase: CustomStringConvertible, Sendable {
    let name: String?
    let connectors: [DisplayConnectorInfo]
    let expected: Result<UInt32, DisplaySelectionError>
    var description: String { name ?? "first connected" }
}

@Test(arguments: [
    ConnectorChoiceCase(name: nil, connectors: [ConnectorFixtures.hdmi, ConnectorFixtures.dp, ConnectorFixtures.edp],
                        expected: .success(42)),
    // Connected but no modes (no EDID) is skipped in favour of one that can show a picture.
    ConnectorChoiceCase(name: nil, connectors: [ConnectorFixtures.connectedNoModes, ConnectorFixtures.edp], expected: .success(44)),
    // Status unknown is the fallback when nothing says "connected".
    ConnectorChoiceCase(name: nil, connectors: [ConnectorFixtures.hdmi, ConnectorFixtures.unknownWithModes], expected: .success(46)),
    ConnectorChoiceCase(name: nil, connectors: [ConnectorFixtures.unknownWithModes, ConnectorFixtures.edp], expected: .success(44)),
    ConnectorChoiceCase(name: "edp-1", connectors: [ConnectorFixtures.dp, ConnectorFixtures.edp], expected: .success(44)),
    ConnectorChoiceCase(name: "DP-1", connectors: [ConnectorFixtures.dp, ConnectorFixtures.edp], expected: .success(42)),
    ConnectorChoiceCase(name: "HDMI-A-2", connectors: [ConnectorFixtures.hdmi, ConnectorFixtures.dp],
                        expected: .failure(.unknownConnector(name: "HDMI-A-2",
                                                             available: ["HDMI-A-1 (disconnected, 0 modes)", "DP-1 (connected, 1 mode)"]))),
    ConnectorChoiceCase(name: "HDMI-A-1", connectors: [ConnectorFixtures.hdmi, ConnectorFixtures.dp],
                        expected: .failure(.connectorDisconnected(name: "HDMI-A-1"))),
    ConnectorChoiceCase(name: nil, connectors: [ConnectorFixtures.hdmi, ConnectorFixtures.connectedNoModes],
                        expected: .failure(.noConnectedConnector(connectors: ["HDMI-A-1 (disconnected, 0 modes)",
                                                                              "DP-2 (connected, 0 modes)"]))),
    ConnectorChoiceCase(name: nil, connectors: [], expected: .failure(.noConnectedConnector(connectors: []))),
])
func connectorIsChosen(_ test: ConnectorChoiceCase) {
    let result = Result { () throws(DisplaySelectionError) in
        try ConnectorSelection.choose(named: test.name, from: test.connectors).id
    }
    #expect(result == test.expected)
}

@Test func connectorErrorMessagesListWhatThereIs() {
    let unknown = DisplaySelectionError.unknownConnector(name: "HDMI-A-2", available: ["HDMI-A-1 (disconnected, 0 modes)"])
    #expect(unknown.description == "no connector named 'HDMI-A-2'; this card has: HDMI-A-1 (disconnected, 0 modes)")
    #expect(DisplaySelectionError.noConnectedConnector(connectors: []).description == "no connected screen; connectors: none")
}

enum CRTCFixtures {
    static let crtcs = [DisplayCRTCInfo(id: 31, index: 0), DisplayCRTCInfo(id: 32, index: 1), DisplayCRTCInfo(id: 33, index: 2)]
}

@Test func crtcDrivingTheConnectorIsKept() throws {
    let encoders = [DisplayEncoderInfo(id: 41, currentCRTCID: 32, possibleCRTCs: 0b111)]
    let crtc = try CRTCSelection.choose(for: ConnectorFixtures.dp, connectors: [ConnectorFixtures.dp],
                                        encoders: encoders, crtcs: CRTCFixtures.crtcs)
    #expect(crtc.id == 32)
}

@Test func freeCRTCIsFoundThroughPossibleCRTCs() throws {
    // eDP-1's encoder can use CRTC #1 and #2; #1 drives DP-1, so #2 it is.
    let encoders = [DisplayEncoderInfo(id: 41, currentCRTCID: 32, possibleCRTCs: 0b111),
                    DisplayEncoderInfo(id: 43, currentCRTCID: 0, possibleCRTCs: 0b110)]
    let crtc = try CRTCSelection.choose(for: ConnectorFixtures.edp, connectors: [ConnectorFixtures.dp, ConnectorFixtures.edp],
                                        encoders: encoders, crtcs: CRTCFixtures.crtcs)
    #expect(crtc.id == 33)
    #expect(crtc.index == 2)
}

@Test func noFreeCRTCIsAnError() {
    let encoders = [DisplayEncoderInfo(id: 41, currentCRTCID: 32, possibleCRTCs: 0b010),
                    DisplayEncoderInfo(id: 43, currentCRTCID: 0, possibleCRTCs: 0b010)]
    #expect(throws: DisplaySelectionError.noCRTC(connector: "eDP-1")) {
        try CRTCSelection.choose(for: ConnectorFixtures.edp, connectors: [ConnectorFixtures.dp, ConnectorFixtures.edp],
                                 encoders: encoders, crtcs: CRTCFixtures.crtcs)
    }
}
