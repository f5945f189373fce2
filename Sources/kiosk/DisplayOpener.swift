import Foundation
import KioskCore
import KioskDisplay

/// Opens the display `--display` or kiosk.conf names.
enum DisplayOpener {
    static func open(_ spec: DisplaySpec) throws -> VideoOutput {
        switch spec {
        case .headless(let size, let rate):
            return HeadlessDisplay(size: size, refreshRate: rate)
        case .auto, .drm:
            throw RuntimeFailure("no DRM device: /dev/dri is missing (no GPU driver loaded?); use --display headless:WxH to play without a screen, or deploy/vm/run to preview in a VM")
        }
    }
}
