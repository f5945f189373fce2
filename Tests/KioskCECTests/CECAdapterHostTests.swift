import Foundation
import Glibc
import KioskCore
import Testing
@testable import KioskCEC

/// What the adapter code does on a machine without CEC (the host): finding none, opening the
/// wrong thing, and the words of each error. The real ioctls run in the VM bed (test_cec.py).
@Suite struct CECAdapterHostTests {
    func temporaryDirectory(with names: [String]) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cec-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for name in names { _ = FileManager.default.createFile(atPath: directory + "/" + name, contents: nil) }
        return directory
    }

    @Test func adaptersAreListedInNumberOrderAndOtherNamesIgnored() throws {
        let directory = try temporaryDirectory(with: ["cec10", "cec2", "cec0", "cecx", "video0", "cec"])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(CECAdapter.adapterPaths(in: directory) == ["cec0", "cec2", "cec10"].map { directory + "/" + $0 })
    }

    @Test func noDeviceIsNoAdapter() throws {
        let directory = try temporaryDirectory(with: ["video0"])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: CECError.noAdapter(directory: directory)) { try CECAdapter.discover(in: directory) }
        #expect(CECError.noAdapter(directory: "/dev").description.hasPrefix("no HDMI-CEC adapter: no /dev/cec* device"))
    }

    @Test func aMissingPathSaysSoWithThePath() {
        #expect(throws: CECError.openFailed(path: "/nonexistent/cec0", errno: ENOENT)) {
            try CECAdapter(path: "/nonexistent/cec0")
        }
        #expect(CECError.openFailed(path: "/nonexistent/cec0", errno: ENOENT).description
                    == "/nonexistent/cec0: cannot open: No such file or directory")
    }

    @Test func aDeviceThatIsNotCECFailsAtItsFirstCall() throws {
        let adapter = try CECAdapter(path: "/dev/null")
        // ENOTTY from a kernel; ENOSYS under qemu-user (deploy/arm64 runs these tests there), which
        // answers an ioctl it does not know so instead of passing it on. (Not a `catch` pattern on
        // the typed error: Swift 6.3's SIL verifier crashes on that here.)
        func failure(_ body: () throws -> Void) -> CECError? {
            do { try body() } catch { return error as? CECError }
            return nil
        }
        func notAnIoctl(_ call: String) -> [CECError] {
            [ENOTTY, ENOSYS].map { CECError.callFailed(path: "/dev/null", call: call, errno: $0) }
        }
        let info = failure { _ = try adapter.info() }
        #expect(notAnIoctl("CEC_ADAP_G_CAPS").contains { $0 == info }, "\(String(describing: info))")
        let standby = failure { _ = try adapter.standby() }
        #expect(notAnIoctl("CEC_S_MODE").contains { $0 == standby }, "\(String(describing: standby))")
    }

    @Test func errorsSayWhatToDo() {
        #expect(CECError.permissionDenied(path: "/dev/cec0", group: "video").description
                    == "/dev/cec0: permission denied: add kiosk's user to the group 'video' that owns it (usermod -aG video USER)")
        let nack = CECError.transmitFailed(path: "/dev/cec1", message: .imageViewOn(from: .playback1), status: [.nack, .maxRetries])
        #expect(nack.kind == .nack)
        #expect(nack.description.hasPrefix("/dev/cec1: Image View On (0x04) from 4 (Playback Device 1) to 0 (TV) failed (NACK|MAX_RETRIES): no device"))
        #expect(CECError.transmitFailed(path: "/dev/cec1", message: .imageViewOn(from: .playback1), status: [.timeout]).kind == .timeout)
        #expect(CECError.notConnected(path: "/dev/cec1").description.contains("f.f.f.f: no TV connected"))
        #expect(CECError.callFailed(path: "/dev/cec1", call: "CEC_S_MODE", errno: EBUSY).description.contains("exclusive initiator"))
    }
}
