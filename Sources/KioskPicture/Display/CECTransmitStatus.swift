/// What the kernel says became of a transmitted CEC message (`cec_msg.tx_status`, the
/// CEC_TX_STATUS_* bits of <linux/cec.h>), and what it means to an operator. Kept here, without
/// the C header, so the wording is unit tested; KioskCEC passes the byte in.
public struct CECTransmitStatus: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let ok = CECTransmitStatus(rawValue: 1 << 0)
    public static let arbitrationLost = CECTransmitStatus(rawValue: 1 << 1)
    public static let nack = CECTransmitStatus(rawValue: 1 << 2)
    public static let lowDrive = CECTransmitStatus(rawValue: 1 << 3)
    public static let error = CECTransmitStatus(rawValue: 1 << 4)
    public static let maxRetries = CECTransmitStatus(rawValue: 1 << 5)
    public static let aborted = CECTransmitStatus(rawValue: 1 << 6)
    public static let timeout = CECTransmitStatus(rawValue: 1 << 7)

    static let names: [(CECTransmitStatus, String)] = [
        (.ok, "OK"), (.arbitrationLost, "ARB_LOST"), (.nack, "NACK"), (.lowDrive, "LOW_DRIVE"),
        (.error, "ERROR"), (.maxRetries, "MAX_RETRIES"), (.aborted, "ABORTED"), (.timeout, "TIMEOUT"),
    ]

    /// The kernel sets OK alone on success; any other bit (often with MAX_RETRIES) is a failure.
    public var succeeded: Bool { contains(.ok) }

    /// The bits by their <linux/cec.h> names, `NACK|MAX_RETRIES`.
    public var description: String {
        let set = Self.names.filter { contains($0.0) }.map(\.1)
        return set.isEmpty ? "none" : set.joined(separator: "|")
    }

    /// Why a message to `destination` failed, in words an operator can act on.
    public func explanation(destination: CECLogicalAddress) -> String {
        if contains(.nack) {
            if destination == .broadcast { return "a device on the bus rejected the broadcast" }
            return "no device at logical address \(destination) acknowledged it: the TV is not on the "
                + "CEC bus, or its CEC setting (Anynet+, Bravia Sync, SimpLink, VIERA Link...) is off"
        }
        if contains(.timeout) { return "the adapter did not finish sending it in time (no CEC line, or a stuck bus)" }
        if contains(.arbitrationLost) { return "another device kept winning the bus" }
        if contains(.lowDrive) { return "the CEC line was pulled low by another device (a faulty device or cable)" }
        if contains(.aborted) { return "the adapter was unconfigured or closed while sending it" }
        return "the adapter reported an error"
    }
}

/// Which /dev/cecN kiosk drives when none is named: a box may have several (one per HDMI
/// port, or a capture card's input adapter). Ranked by the physical address, read without
/// changing anything.
public enum CECAdapterChoice {
    /// Higher is better. A source port with a sink connected has a valid address that is not
    /// 0.0.0.0; 0.0.0.0 belongs to a TV-side adapter (an HDMI input, such as vivid's capture
    /// side), which is the wrong end of the cable; f.f.f.f has no sink connected, kept as the
    /// last resort so the error then says "not connected" rather than "no adapter".
    public static func rank(_ address: CECPhysicalAddress) -> Int {
        if !address.isValid { return 0 }
        return address == .root ? 1 : 2
    }

    /// The first of the best-ranked candidates, in the order given (cec0 before cec1).
    public static func choose<Candidate>(_ candidates: [Candidate], address: (Candidate) -> CECPhysicalAddress) -> Candidate? {
        var best: (candidate: Candidate, rank: Int)?
        for candidate in candidates {
            let rank = rank(address(candidate))
            if best == nil || rank > best!.rank { best = (candidate, rank) }
        }
        return best?.candidate
    }
}
