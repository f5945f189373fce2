import CDRM
import Foundation
import Glibc
import KioskCore
@testable import KioskDisplay

/// Shared by the tests that drive a real card (in the VM bed; skipped on machines without one).
enum CardTests {
    static let card = "/dev/dri/card0"
    static var hasCard: Bool { FileManager.default.fileExists(atPath: card) }

    /// KIOSK_DRM_API=atomic|legacy|auto picks the path the bed exercises; auto by default.
    static var api: DRMDisplayOptions.API {
        ProcessInfo.processInfo.environment["KIOSK_DRM_API"].flatMap(DRMDisplayOptions.API.init(rawValue:)) ?? .auto
    }

    /// Opens card0 with `api`; nil when atomic was asked for and the driver lacks it (which the
    /// probe must confirm, or the test fails).
    static func open(api: DRMDisplayOptions.API) throws -> DRMDisplay? {
        do {
            return try DRMDisplay(options: DRMDisplayOptions(card: card, api: api))
        } catch {
            guard case .atomicUnsupported = error, DRMProbe.probeCard(card).capabilities?.atomic == false else { throw error }
            return nil
        }
    }

    struct CannotOpen: Error { let errno: Int32 }

    /// A plain file on card0 that is not master: the first opener of a card without master
    /// becomes master automatically, which would lock kiosk out.
    static func openWithoutMaster() throws -> Int32 {
        let fd = Glibc.open(card, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw CannotOpen(errno: errno) }
        if drmIsMaster(fd) != 0 { _ = drmDropMaster(fd) }
        return fd
    }

    /// The CRTC's framebuffer and mode as the kernel reports them now (read through a probe).
    static func crtcState(_ crtcID: UInt32) -> (framebuffer: UInt32, mode: DisplayMode?)? {
        let report = DRMProbe.probeCard(card)
        guard let crtc = report.crtcs.first(where: { $0.info.id == crtcID }) else { return nil }
        return (crtc.info.currentFramebufferID, crtc.info.currentMode)
    }
}

/// A picture the host can recognise in a screendump: mid-grey, a white border, and a colored
/// square in each corner just inside it.
enum TestPattern {
    static let background: UInt32 = 0x40_40_40
    static let border: UInt32 = 0xFF_FF_FF
    /// Top-left, top-right, bottom-left, bottom-right.
    static let corners: [UInt32] = [0xFF_00_00, 0x00_FF_00, 0x00_00_FF, 0xFF_FF_00]
    static let borderWidth = 8
    static let square = 64
    static let inset = 16

    static func cornerRects(_ size: PixelSize) -> [PixelRect] {
        let far = (x: size.width - inset - square, y: size.height - inset - square)
        return [PixelRect(x: inset, y: inset, width: square, height: square),
                PixelRect(x: far.x, y: inset, width: square, height: square),
                PixelRect(x: inset, y: far.y, width: square, height: square),
                PixelRect(x: far.x, y: far.y, width: square, height: square)]
    }

    static func draw(into buffer: PixelBuffer) {
        let size = buffer.size
        buffer.fill(PixelRect(size: size), color: border)
        buffer.fill(PixelRect(x: borderWidth, y: borderWidth, width: size.width - 2 * borderWidth,
                              height: size.height - 2 * borderWidth), color: background)
        for (rect, color) in zip(cornerRects(size), corners) { buffer.fill(rect, color: color) }
    }

    /// Reads the pattern back from `buffer`: one line per pixel that is not what `draw` put.
    static func mismatches(in buffer: PixelBuffer) -> [String] {
        let size = buffer.size
        var probes: [(x: Int, y: Int, color: UInt32)] = [
            (0, 0, border), (size.width - 1, size.height - 1, border), (size.width / 2, size.height / 2, background),
        ]
        for (rect, color) in zip(cornerRects(size), corners) {
            probes.append((rect.x + rect.width / 2, rect.y + rect.height / 2, color))
        }
        return probes.compactMap { probe in
            let got = buffer.pixel(x: probe.x, y: probe.y) & 0xFF_FF_FF
            return got == probe.color ? nil : "(\(probe.x),\(probe.y)) is \(hex(got)), not \(hex(probe.color))"
        }
    }

    private static func hex(_ value: UInt32) -> String { "0x" + String(value, radix: 16) }
}
