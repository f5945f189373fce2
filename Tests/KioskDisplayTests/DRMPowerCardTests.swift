import CDRM
import Foundation
import Glibc
import Testing
@testable import KioskCore
@testable import KioskDisplay

/// Display power on a real KMS driver (in the VM bed: Tests/System/test_drm.py runs the card
/// tests on bochs and virtio-gpu). The kernel's own view is read back after each switch: the
/// connector's `dpms` in sysfs and, through a second file with atomic state, the CRTC's ACTIVE.
/// Part of DRMCardTests' serialized suite: only one test may be DRM master at a time.
extension DRMCardTests {
    @Test(arguments: [DRMDisplayOptions.API.atomic, .legacy])
    func offStopsScanoutAndOnShowsThePictureAgain(api: DRMDisplayOptions.API) throws {
        guard let display = try CardTests.open(api: api) else { return }
        defer { try? display.close() }
        let shown = try display.backBuffer()
        TestPattern.draw(into: shown)
        _ = try display.present(shown)
        #expect(PowerReadBack.dpms(display.connectorName) == "On")
        #expect(PowerReadBack.crtcActive(display.crtcID) == 1)

        #expect(try display.setPower(on: false))
        #expect(!display.isScanningOut)
        #expect(PowerReadBack.dpms(display.connectorName) == "Off")
        #expect(PowerReadBack.crtcActive(display.crtcID) == 0)
        let refused = try display.backBuffer()
        do {
            _ = try display.present(refused)
            Issue.record("a flip while the screen is off was taken")
        } catch DRMError.displayOff {
        }
        #expect(try display.setPower(on: false), "switching off twice is not an error")

        #expect(try display.setPower(on: true))
        #expect(display.isScanningOut)
        #expect(PowerReadBack.dpms(display.connectorName) == "On")
        #expect(PowerReadBack.crtcActive(display.crtcID) == 1)
        // The picture that was on screen is scanned out again, and flips go on.
        #expect(CardTests.crtcState(display.crtcID)?.framebuffer != 0)
        var times: [Double] = []
        for _ in 0..<3 {
            let buffer = try display.backBuffer()
            TestPattern.draw(into: buffer)
            times.append(try display.present(buffer))
        }
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "flip times after power on: \(times)")
    }

    @Test(arguments: [DRMDisplayOptions.API.atomic, .legacy])
    func closingWhileOffLeavesTheScreenOn(api: DRMDisplayOptions.API) throws {
        // A second open file keeps this close from being the card's last (see closeRestores...).
        let guardFD = try CardTests.openWithoutMaster()
        defer { Glibc.close(guardFD) }
        guard let display = try CardTests.open(api: api) else { return }
        let connector = display.connectorName
        _ = try display.setPower(on: false)
        #expect(PowerReadBack.dpms(connector) == "Off")
        try display.close()
        #expect(PowerReadBack.dpms(connector) == "On")
        #expect(throws: DRMError.self) { _ = try display.setPower(on: true) }
    }
}

/// The kernel's view of display power, read independently of the display under test.
enum PowerReadBack {
    /// The connector's DPMS state as sysfs shows it: "On" or "Off" (nil if unreadable).
    static func dpms(_ connector: String) -> String? {
        let path = "/sys/class/drm/\(URL(fileURLWithPath: CardTests.card).lastPathComponent)-\(connector)/dpms"
        return (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The CRTC's ACTIVE property (atomic state); nil where the driver has no atomic state.
    static func crtcActive(_ crtcID: UInt32) -> UInt64? {
        guard let fd = try? CardTests.openWithoutMaster() else { return nil }
        defer { Glibc.close(fd) }
        guard drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_UNIVERSAL_PLANES), 1) == 0,
              drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_ATOMIC), 1) == 0,
              let list = drmModeObjectGetProperties(fd, crtcID, UInt32(DRM_MODE_OBJECT_CRTC)) else { return nil }
        defer { drmModeFreeObjectProperties(list) }
        for i in 0..<Int(list.pointee.count_props) {
            guard let prop = drmModeGetProperty(fd, list.pointee.props[i]) else { continue }
            defer { drmModeFreeProperty(prop) }
            if cString(prop.pointee.name) == "ACTIVE" { return list.pointee.prop_values[i] }
        }
        return nil
    }
}
