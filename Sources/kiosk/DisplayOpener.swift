import Foundation
import KioskCore
import KioskDisplay
import Logging

/// The one place kiosk opens a screen (`run`, `play`, `bench --seek`): the display the
/// settings name, and at the end gives the screen back.
enum DisplayOpener {
    /// The display `settings.display` names. A box with no DRM device at all previews headless,
    /// with snapshots, where the settings allow it (kiosk.conf's DRM display): `settings` then
    /// say so, and the log says where the pictures go. `--untimed`: a headless display flips at
    /// once instead of at its refresh rate, so untimed runs go as fast as decoding; a DRM
    /// screen always flips on its vblank.
    static func open(_ settings: inout PlayerSettings, logger: Logger) throws -> VideoOutput {
        let opened = Result { () throws(DRMError) in try open(settings.display, paced: !settings.untimed) }
        switch opened {
        case .success(let output):
            return output
        case .failure(.noDRMDirectory(let directory)):
            let previews = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-preview").path
            guard let size = settings.display.headlessFallback,
                  let preview = settings.previewingHeadless(defaultDirectory: previews) else {
                throw RuntimeFailure("\(DRMError.noDRMDirectory(directory))")
            }
            settings = preview
            logger.notice("no DRM display here (\(directory) is missing): playing headless at \(size), a screenshot every \(settings.snapshotInterval.seconds) s in \(preview.snapshotDirectory ?? previews)")
            return try open(settings.display, paced: !settings.untimed)
        case .failure(let error):
            throw RuntimeFailure("\(error)")
        }
    }

    private static func open(_ display: DisplaySettings, paced: Bool) throws(DRMError) -> VideoOutput {
        switch display.target {
        case .headless(let size, let rate, let pacing):
            return HeadlessDisplay(size: size, refreshRate: rate, paced: paced, pacing: pacing, rotation: display.rotation)
        case .auto:
            var options = DRMDisplayOptions(rotation: display.rotation)
            options.videoPlane = display.videoPlane
            return try DRMDisplay(options: options)
        case .drm(let card, let connector, let mode):
            var options = DRMDisplayOptions(card: card, connector: connector, mode: mode, rotation: display.rotation)
            options.videoPlane = display.videoPlane
            return try DRMDisplay(options: options)
        }
    }

    /// One line on what is driven, as mpv names its video output: an integrator reading the
    /// journal sees the card, connector, mode, API and how flips are paced.
    static func announce(_ output: VideoOutput, logger: Logger) {
        logger.notice("display: \(output.summary)")
    }

    static func close(_ output: VideoOutput, logger: Logger) {
        do { try output.close() } catch { logger.error("display: \(error)") }
    }
}
