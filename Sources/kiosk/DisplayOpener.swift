import Foundation
import KioskCore
import KioskDisplay
import Logging

/// Opens the display `--display` or kiosk.conf names, and gives the screen back at the end.
enum DisplayOpener {
    /// `paced` false (`--untimed`): a headless display flips at once instead of at its refresh
    /// rate, so untimed runs go as fast as decoding; a DRM screen always flips on its vblank.
    static func open(_ spec: DisplaySpec, rotation: Rotation, paced: Bool = true,
                     videoPlane: VideoPlanePolicy = .auto) throws -> VideoOutput {
        do {
            switch spec {
            case .headless(let size, let rate, let pacing):
                return HeadlessDisplay(size: size, refreshRate: rate, paced: paced, pacing: pacing, rotation: rotation)
            case .auto:
                var options = DRMDisplayOptions(rotation: rotation)
                options.videoPlane = videoPlane
                return try DRMDisplay(options: options)
            case .drm(let card, let connector, let mode):
                var options = DRMDisplayOptions(card: card, connector: connector, mode: mode, rotation: rotation)
                options.videoPlane = videoPlane
                return try DRMDisplay(options: options)
            }
        } catch {
            // Only DRMDisplay throws here, and only DRMError (typed throws).
            throw RuntimeFailure("\(error)")
        }
    }

    /// One line on what is driven, as mpv names its video output: an integrator reading the
    /// journal sees the card, connector, mode, API and how flips are paced.
    static func announce(_ output: VideoOutput, logger: Logger) {
        guard let drm = output as? DRMDisplay else { return }
        logger.notice("display: \(drm.summary)")
    }

    static func close(_ output: VideoOutput, logger: Logger) {
        guard let drm = output as? DRMDisplay else { return }
        do { try drm.close() } catch { logger.error("display: \(error)") }
    }
}
