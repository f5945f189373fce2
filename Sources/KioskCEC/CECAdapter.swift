import CCEC
import Foundation
import Glibc
import KioskCore
import SystemPackage

/// What an adapter says about itself (`kiosk cec status`), read without changing anything.
public struct CECAdapterInfo: Sendable, Equatable {
    public var path: String
    /// The kernel driver (`vc4_hdmi`, `dw_hdmi`, `vivid`...) and the adapter's name.
    public var driver: String
    public var name: String
    /// CEC_CAP_LOG_ADDRS: userspace may claim logical addresses (else the driver does).
    public var canClaim: Bool
    public var physicalAddress: CECPhysicalAddress
    /// How many logical addresses are configured (0: none, kiosk would claim one)...
    public var configuredCount: Int
    /// ...and which were claimed: empty while a claim runs or while no sink is connected.
    public var logicalAddresses: [CECLogicalAddress]
    public var osdName: String
}

/// One /dev/cecN, opened for sending. kiosk is a Playback device: it claims that logical address
/// only when the adapter has none configured (a CEC daemon or the driver may have done it, and
/// kiosk then sends from theirs). The claim outlives kiosk: the kernel keeps it until someone
/// configures the adapter otherwise.
public final class CECAdapter {
    public let path: String
    private let fd: FileDescriptor

    /// The OSD name kiosk claims with (a TV shows it in its source list; 14 characters at most).
    public static let osdName = "kiosk"

    /// Opens `path` (blocking, so a transmit returns with its result).
    public init(path: String) throws(CECError) {
        self.path = path
        do {
            fd = try FileDescriptor.open(path, .readWrite, options: .closeOnExec)
        } catch {
            let code = (error as? Errno)?.rawValue ?? EIO
            if code == EACCES || code == EPERM { throw .permissionDenied(path: path, group: Self.group(of: path)) }
            throw .openFailed(path: path, errno: code)
        }
    }

    deinit { try? fd.close() }

    /// `path`, or else the adapter `discover` picks.
    public static func open(path: String?) throws(CECError) -> CECAdapter {
        if let path { return try CECAdapter(path: path) }
        return try discover()
    }

    /// The /dev/cecN devices, in number order.
    public static func adapterPaths(in directory: String = "/dev") -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name -> (Int, String)? in
            guard name.hasPrefix("cec"), let number = Int(name.dropFirst(3)) else { return nil }
            return (number, directory + "/" + name)
        }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The first adapter with a connected sink on a source port (`CECAdapterChoice`): a box can
    /// have one adapter per HDMI port, and only the one wired to the TV can reach it. When none
    /// can be opened, the first one's error (a permission problem is the usual one).
    public static func discover(in directory: String = "/dev") throws(CECError) -> CECAdapter {
        let paths = adapterPaths(in: directory)
        guard !paths.isEmpty else { throw .noAdapter(directory: directory) }
        var opened: [(adapter: CECAdapter, address: CECPhysicalAddress)] = []
        var firstError: CECError?
        for path in paths {
            do {
                let adapter = try CECAdapter(path: path)
                opened.append((adapter, (try? adapter.physicalAddress()) ?? .invalid))
            } catch {
                firstError = firstError ?? error
            }
        }
        guard let chosen = CECAdapterChoice.choose(opened, address: \.address) else {
            throw firstError ?? .noAdapter(directory: directory)
        }
        return chosen.adapter
    }

    // MARK: reading

    public func physicalAddress() throws(CECError) -> CECPhysicalAddress {
        var address: UInt16 = 0
        try check(kiosk_cec_get_physical_address(fd.rawValue, &address), "CEC_ADAP_G_PHYS_ADDR")
        return CECPhysicalAddress(rawValue: address)
    }

    public func info() throws(CECError) -> CECAdapterInfo {
        var caps = cec_caps()
        try check(kiosk_cec_get_caps(fd.rawValue, &caps), "CEC_ADAP_G_CAPS")
        let addresses = try logicalAddresses()
        return CECAdapterInfo(path: path, driver: text(of: caps.driver), name: text(of: caps.name),
                              canClaim: caps.capabilities & kiosk_cec_cap_log_addrs() != 0,
                              physicalAddress: try physicalAddress(), configuredCount: addresses.configured,
                              logicalAddresses: addresses.claimed, osdName: addresses.osdName)
    }

    private func logicalAddresses() throws(CECError) -> (configured: Int, claimed: [CECLogicalAddress], osdName: String) {
        var addresses = cec_log_addrs()
        try check(kiosk_cec_get_logical_addresses(fd.rawValue, &addresses), "CEC_ADAP_G_LOG_ADDRS")
        let configured = Int(kiosk_cec_log_addrs_count(&addresses))
        let claimed = (0..<UInt32(min(configured, 4))).compactMap {
            CECLogicalAddress(rawValue: kiosk_cec_log_addr(&addresses, $0))  // 0xff (none) is not one
        }
        var name = [CChar](repeating: 0, count: 15)
        kiosk_cec_osd_name(&addresses, &name)
        return (configured, claimed, String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    // MARK: sending

    /// Standby to the TV. Returns what was sent.
    @discardableResult
    public func standby() throws(CECError) -> [CECMessage] {
        let message = CECMessage.standby(from: try prepareToSend())
        try transmit(message)
        return [message]
    }

    /// Image View On to the TV, then Active Source with this adapter's physical address.
    /// Returns what was sent.
    @discardableResult
    public func wake() throws(CECError) -> [CECMessage] {
        let initiator = try prepareToSend()
        let address = try physicalAddress()
        guard address.isValid else { throw .notConnected(path: path) }
        let messages = CECMessage.wake(from: initiator, physicalAddress: address)
        for message in messages { try transmit(message) }
        return messages
    }

    /// The TV's power state (Give Device Power Status, its Report Power Status within a second);
    /// nil when the TV does not say (no reply, a Feature Abort, a TV without the feature).
    public func tvPowerStatus() throws(CECError) -> CECPowerStatus? {
        let message = CECMessage.givePowerStatus(from: try prepareToSend())
        var txStatus: UInt8 = 0, rxStatus: UInt8 = 0, length: UInt32 = 0
        var reply = [UInt8](repeating: 0, count: 16)
        let result = message.bytes.withUnsafeBufferPointer { bytes in
            kiosk_cec_transmit_reply(fd.rawValue, bytes.baseAddress, UInt32(bytes.count), CECOpcode.reportPowerStatus.rawValue,
                                     1000, &txStatus, &rxStatus, &reply, &length)
        }
        if result == -ENONET { throw .notConnected(path: path) }
        try check(result, "CEC_TRANSMIT")
        let outcome = CECTransmitStatus(rawValue: txStatus)
        guard outcome.succeeded else { throw .transmitFailed(path: path, message: message, status: outcome) }
        return CECPowerStatus(reply: Array(reply.prefix(Int(length))))
    }

    /// Sends one message as it is (its initiator must be the adapter's).
    public func transmit(_ message: CECMessage) throws(CECError) {
        var status: UInt8 = 0
        let bytes = message.bytes
        let result = bytes.withUnsafeBufferPointer { kiosk_cec_transmit(fd.rawValue, $0.baseAddress, UInt32($0.count), &status) }
        if result == -ENONET { throw .notConnected(path: path) }
        try check(result, "CEC_TRANSMIT")
        let outcome = CECTransmitStatus(rawValue: status)
        guard outcome.succeeded else { throw .transmitFailed(path: path, message: message, status: outcome) }
    }

    /// Makes this file handle an initiator and returns the logical address to send from,
    /// claiming a Playback address first when the adapter has none configured.
    public func prepareToSend() throws(CECError) -> CECLogicalAddress {
        try check(kiosk_cec_become_initiator(fd.rawValue), "CEC_S_MODE")
        var addresses = try logicalAddresses()
        if addresses.configured == 0 {
            var caps = cec_caps()
            try check(kiosk_cec_get_caps(fd.rawValue, &caps), "CEC_ADAP_G_CAPS")
            guard caps.capabilities & kiosk_cec_cap_log_addrs() != 0 else {
                throw .cannotClaim(path: path, reason: "none is configured and the driver does not let "
                                   + "programs claim one (no CEC_CAP_LOG_ADDRS)")
            }
            // Claimed even with no sink connected: the kernel keeps the request and claims the
            // address when a TV appears, so a later change of power finds it ready.
            try check(kiosk_cec_claim_playback(fd.rawValue, Self.osdName), "CEC_ADAP_S_LOG_ADDRS")
            addresses = try logicalAddresses()
        }
        guard let initiator = addresses.claimed.first else {
            if try !physicalAddress().isValid { throw .notConnected(path: path) }
            throw .cannotClaim(path: path, reason: "\(addresses.configured) configured but none claimed yet "
                               + "(every address of its type taken, or the claim still running)")
        }
        // An HDMI input's adapter (a capture card, vivid's input) is the TV end of the cable.
        guard initiator != .tv else {
            throw .cannotClaim(path: path, reason: "the adapter is the TV (logical address 0): it belongs "
                               + "to an HDMI input, not to the output the screen is on; choose another with --device")
        }
        return initiator
    }

    // MARK: helpers

    private func check(_ result: Int32, _ call: String) throws(CECError) {
        guard result == 0 else {
            if result == -EACCES || result == -EPERM {
                throw .permissionDenied(path: path, group: Self.group(of: path))
            }
            throw .callFailed(path: path, call: call, errno: -result)
        }
    }

    /// The name of the group owning the device node, for "join this group".
    static func group(of path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0, let entry = getgrgid(status.st_gid), let name = entry.pointee.gr_name else {
            return nil
        }
        return String(cString: name)
    }

    private func text<T>(of tuple: T) -> String {
        withUnsafeBytes(of: tuple) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
