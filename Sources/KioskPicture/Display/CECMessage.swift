/// HDMI-CEC messages as bytes, for switching a TV off and on (HDMI 1.4b CEC, sections CEC 11-13).
/// Pure: the kernel's CEC API (KioskCEC) only carries these bytes to the bus, so what kiosk
/// says to a TV is decided and unit tested here.

/// A device's address on the CEC bus (0...15): what the header byte carries. A source claims one
/// of its type's addresses; 15 is "unregistered" as an initiator and "everyone" as a destination.
public struct CECLogicalAddress: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init?(rawValue: UInt8) {
        guard rawValue <= 15 else { return nil }
        self.rawValue = rawValue
    }

    public static let tv = CECLogicalAddress(rawValue: 0)!
    public static let playback1 = CECLogicalAddress(rawValue: 4)!
    public static let broadcast = CECLogicalAddress(rawValue: 15)!

    /// The names the CEC specification (and cec-ctl) gives each address.
    static let names = [
        "TV", "Recording Device 1", "Recording Device 2", "Tuner 1", "Playback Device 1",
        "Audio System", "Tuner 2", "Tuner 3", "Playback Device 2", "Recording Device 3", "Tuner 4",
        "Playback Device 3", "Backup 1", "Backup 2", "Specific", "Unregistered",
    ]

    public var name: String { Self.names[Int(rawValue)] }
    public var description: String { "\(rawValue) (\(name))" }
}

/// Where a device sits in the HDMI tree, four nibbles written a.b.c.d: 0.0.0.0 is the TV (the
/// root), 1.0.0.0 a source on its HDMI input 1. A source reads it from the sink's EDID; without a
/// connected sink it is f.f.f.f (invalid), and the kernel refuses to claim a logical address.
public struct CECPhysicalAddress: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let invalid = CECPhysicalAddress(rawValue: 0xFFFF)
    public static let root = CECPhysicalAddress(rawValue: 0x0000)

    /// Parses `a.b.c.d` with each part a hex digit, as cec-ctl prints it.
    public init?(parsing text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt16 = 0
        for part in parts {
            guard part.count == 1, let nibble = UInt16(part, radix: 16) else { return nil }
            value = value << 4 | nibble
        }
        rawValue = value
    }

    /// False for f.f.f.f: no sink connected (or its EDID not read), so no address to claim with.
    public var isValid: Bool { self != .invalid }

    /// Most significant byte first, as in Active Source's operands.
    public var bytes: [UInt8] { [UInt8(rawValue >> 8), UInt8(rawValue & 0xFF)] }

    public var description: String {
        [12, 8, 4, 0].map { String((rawValue >> UInt16($0)) & 0xF, radix: 16) }.joined(separator: ".")
    }
}

/// The opcodes kiosk sends (a message's second byte), and the one reply it reads.
public enum CECOpcode: UInt8, Sendable, CaseIterable {
    case imageViewOn = 0x04
    case standby = 0x36
    case activeSource = 0x82
    case giveDevicePowerStatus = 0x8F
    case reportPowerStatus = 0x90

    public var name: String {
        switch self {
        case .imageViewOn: "Image View On"
        case .standby: "Standby"
        case .activeSource: "Active Source"
        case .giveDevicePowerStatus: "Give Device Power Status"
        case .reportPowerStatus: "Report Power Status"
        }
    }
}

/// What a TV answers to Give Device Power Status (CEC 1.4 table 29, the operand of Report
/// Power Status). A TV turning on or off answers the state it is going to.
public enum CECPowerStatus: UInt8, Sendable, Equatable {
    case on = 0
    case standby = 1
    case turningOn = 2
    case turningOff = 3

    /// The state it is in or going to: on, or not.
    public var isOn: Bool { self == .on || self == .turningOn }

    /// The reply's bytes as the bus carried them (header, opcode, status); nil for anything else.
    public init?(reply bytes: [UInt8]) {
        guard bytes.count >= 3, bytes[1] == CECOpcode.reportPowerStatus.rawValue else { return nil }
        self.init(rawValue: bytes[2])
    }
}

/// One CEC frame: a header block, the opcode, its operands (at most 14 bytes in all after the
/// header: CEC_MAX_MSG_SIZE is 16).
public struct CECMessage: Hashable, Sendable, CustomStringConvertible {
    public var initiator: CECLogicalAddress
    public var destination: CECLogicalAddress
    public var opcode: CECOpcode
    public var operands: [UInt8]

    public init(from initiator: CECLogicalAddress, to destination: CECLogicalAddress, opcode: CECOpcode,
                operands: [UInt8] = []) {
        self.initiator = initiator
        self.destination = destination
        self.opcode = opcode
        self.operands = operands
    }

    /// The header block: initiator in the high nibble, destination in the low one.
    public var header: UInt8 { initiator.rawValue << 4 | destination.rawValue }

    /// What goes on the bus, header first.
    public var bytes: [UInt8] { [header, opcode.rawValue] + operands }

    /// Standby to the TV alone (directed, not broadcast: a broadcast Standby would also switch
    /// off an amplifier or a recorder on the same bus, which the screen's schedule is not about).
    public static func standby(from initiator: CECLogicalAddress) -> CECMessage {
        CECMessage(from: initiator, to: .tv, opcode: .standby)
    }

    /// Image View On: the TV leaves standby (and a menu or text screen) and shows a picture.
    public static func imageViewOn(from initiator: CECLogicalAddress) -> CECMessage {
        CECMessage(from: initiator, to: .tv, opcode: .imageViewOn)
    }

    /// Active Source, broadcast: "show the input at this physical address", so the TV switches to
    /// kiosk's HDMI input even when another source was shown before it slept.
    public static func activeSource(from initiator: CECLogicalAddress, physicalAddress: CECPhysicalAddress) -> CECMessage {
        CECMessage(from: initiator, to: .broadcast, opcode: .activeSource, operands: physicalAddress.bytes)
    }

    /// Asks the TV for its power state (answered with Report Power Status).
    public static func givePowerStatus(from initiator: CECLogicalAddress) -> CECMessage {
        CECMessage(from: initiator, to: .tv, opcode: .giveDevicePowerStatus)
    }

    /// Switching the screen on is two messages: Image View On wakes the TV, Active Source then
    /// selects kiosk's input (the order One Touch Play prescribes, CEC 13.1.1).
    public static func wake(from initiator: CECLogicalAddress, physicalAddress: CECPhysicalAddress) -> [CECMessage] {
        [imageViewOn(from: initiator), activeSource(from: initiator, physicalAddress: physicalAddress)]
    }

    /// `Standby (0x36) from 4 (Playback Device 1) to 0 (TV)`, with the operands in hex.
    public var description: String {
        var text = "\(opcode.name) (0x\(hex(opcode.rawValue))) from \(initiator) to "
        text += destination == .broadcast ? "all" : "\(destination)"
        if !operands.isEmpty { text += ": " + operands.map(hex).joined(separator: " ") }
        return text
    }
}

private func hex(_ byte: UInt8) -> String {
    let text = String(byte, radix: 16)
    return text.count == 1 ? "0" + text : text
}
