import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// The bytes kiosk puts on the CEC bus, checked against the CEC specification's frames (the same
/// bytes `cec-ctl --standby`, `--image-view-on` and `--active-source` send).
@Suite struct CECMessageTests {
    static let playback1 = CECLogicalAddress.playback1

    @Test func standbyGoesToTheTVFromKiosksAddress() {
        let message = CECMessage.standby(from: Self.playback1)
        #expect(message.bytes == [0x40, 0x36])
        #expect(message.header == 0x40)
        #expect(message.destination == .tv)
    }

    @Test func imageViewOnGoesToTheTV() {
        #expect(CECMessage.imageViewOn(from: Self.playback1).bytes == [0x40, 0x04])
    }

    @Test func activeSourceIsBroadcastWithThePhysicalAddressHighByteFirst() {
        let address = CECPhysicalAddress(rawValue: 0x1200)
        #expect(CECMessage.activeSource(from: Self.playback1, physicalAddress: address).bytes == [0x4F, 0x82, 0x12, 0x00])
        #expect(CECMessage.activeSource(from: Self.playback1, physicalAddress: CECPhysicalAddress(rawValue: 0x3456)).bytes
                    == [0x4F, 0x82, 0x34, 0x56])
    }

    @Test func wakeIsImageViewOnThenActiveSource() {
        let messages = CECMessage.wake(from: Self.playback1, physicalAddress: CECPhysicalAddress(rawValue: 0x1000))
        #expect(messages.map(\.bytes) == [[0x40, 0x04], [0x4F, 0x82, 0x10, 0x00]])
    }

    @Test func headerPutsTheInitiatorInTheHighNibble() {
        // Playback Device 2 (8) to the TV, and the unregistered address (15) broadcasting.
        let second = CECLogicalAddress(rawValue: 8)!
        #expect(CECMessage.standby(from: second).header == 0x80)
        #expect(CECMessage.activeSource(from: .broadcast, physicalAddress: .root).header == 0xFF)
        #expect(CECLogicalAddress(rawValue: 16) == nil)
    }

    @Test func physicalAddressesPrintAsFourNibbles() {
        #expect(CECPhysicalAddress(rawValue: 0x1000).description == "1.0.0.0")
        #expect(CECPhysicalAddress(rawValue: 0x2130).description == "2.1.3.0")
        #expect(CECPhysicalAddress.root.description == "0.0.0.0")
        #expect(CECPhysicalAddress.invalid.description == "f.f.f.f")
        #expect(!CECPhysicalAddress.invalid.isValid && CECPhysicalAddress.root.isValid)
    }

    @Test func physicalAddressesParseBackAndRejectOtherText() {
        #expect(CECPhysicalAddress(parsing: "1.0.0.0") == CECPhysicalAddress(rawValue: 0x1000))
        #expect(CECPhysicalAddress(parsing: "f.f.f.f") == .invalid)
        #expect(CECPhysicalAddress(parsing: "a.B.0.1")?.rawValue == 0xAB01)
        for bad in ["1.0.0", "1.0.0.0.0", "10.0.0.0", "1..0.0", "g.0.0.0", "", "1.0.0.-"] {
            #expect(CECPhysicalAddress(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func descriptionsNameAddressesAsCecCtlDoes() {
        #expect(CECMessage.standby(from: Self.playback1).description
                    == "Standby (0x36) from 4 (Playback Device 1) to 0 (TV)")
        #expect(CECMessage.activeSource(from: Self.playback1, physicalAddress: CECPhysicalAddress(rawValue: 0x1000)).description
                    == "Active Source (0x82) from 4 (Playback Device 1) to all: 10 00")
    }

    @Test func transmitStatusNamesItsBitsAndExplainsANack() {
        let nack: CECTransmitStatus = [.nack, .maxRetries]
        #expect(!nack.succeeded && CECTransmitStatus.ok.succeeded)
        #expect(nack.description == "NACK|MAX_RETRIES")
        #expect(CECTransmitStatus(rawValue: 0).description == "none")
        #expect(nack.explanation(destination: .tv).contains("no device at logical address 0 (TV) acknowledged it"))
        #expect(CECTransmitStatus.timeout.explanation(destination: .tv).contains("in time"))
    }

    @Test func adapterChoicePrefersAConnectedSourceOverATVSideAndAnUnconnectedOne() {
        let candidates: [(String, CECPhysicalAddress)] = [
            ("/dev/cec0", .invalid), ("/dev/cec1", .root), ("/dev/cec2", CECPhysicalAddress(rawValue: 0x1000)),
            ("/dev/cec3", CECPhysicalAddress(rawValue: 0x2000)),
        ]
        #expect(CECAdapterChoice.choose(candidates, address: \.1)?.0 == "/dev/cec2")
        #expect(CECAdapterChoice.choose(Array(candidates.prefix(2)), address: \.1)?.0 == "/dev/cec1")
        #expect(CECAdapterChoice.choose(Array(candidates.prefix(1)), address: \.1)?.0 == "/dev/cec0")
        #expect(CECAdapterChoice.choose([(String, CECPhysicalAddress)](), address: \.1) == nil)
    }
}
