import Foundation
import KioskCore
import KioskDisplay
import Logging

/// The one place kiosk opens a screen (`run`, `play`, `bench --seek`): the display the
/// settings name, and at the end gives the screen back.
package enum DisplayOpener {
    /// The display `settings.display` names. A box with no DRM device at all previews headless,
    /// with snapshots, where the settings allow it (kiosk.conf's DRM display): `settings` then
    /// say so, and the log says where the pictures go. `--untimed`: a headless display flips at
    /// once instead of at its refresh rate, so untimed runs go as fast as decoding; a DRM
    /// screen always flips on its vblank.
    package static func open(_ settings: inout PlayerSettings, logger: Logger) throws -> VideoOutput {
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

    /// `shared`: the card when several screens are opened (`openScreens`); each DRM screen
    /// then takes its own connector and CRTC on it.
    private static func open(_ display: DisplaySettings, paced: Bool, shared: SharedCard? = nil) throws(DRMError) -> VideoOutput {
        switch display.target {
        case .headless(let size, let rate, let pacing, let planes):
            if planes, display.videoPlane == .auto {
                return HeadlessPlaneDisplay(size: size, refreshRate: rate, paced: paced, pacing: pacing, rotation: display.rotation)
            }
            return HeadlessDisplay(size: size, refreshRate: rate, paced: paced, pacing: pacing, rotation: display.rotation)
        case .auto:
            var options = DRMDisplayOptions(rotation: display.rotation)
            options.videoPlane = display.videoPlane
            return try DRMDisplay(options: options, on: shared)
        case .drm(let card, let connector, let mode):
            var options = DRMDisplayOptions(card: card, connector: connector, mode: mode, rotation: display.rotation)
            options.videoPlane = display.videoPlane
            return try DRMDisplay(options: options, on: shared)
        }
    }

    /// Every screen of `displays.outputs`, in order. DRM screens on one card share it (one
    /// descriptor, one master, a CRTC each); `card: auto` is the first card. A failure closes
    /// what was opened and names the screen.
    package static func openScreens(_ displays: DisplaysConfig, paced: Bool) throws -> [VideoOutput] {
        var cards: [String: SharedCard] = [:]
        var screens: [VideoOutput] = []
        /// The cards a screen opened on (such a card is given back with its last screen).
        var cardsInUse = Set<String>()
        do {
            for output in displays.outputs {
                let settings = DisplaySettings(output.display, override: output.target)
                var shared: SharedCard?
                var cardPath: String?
                if case .drm(let card, _, _) = settings.target {
                    let path = try card ?? DRMDevices.cardPaths().first ?? "/dev/dri/card0"
                    if cards[path] == nil { cards[path] = try SharedCard(path: path) }
                    shared = cards[path]
                    cardPath = path
                }
                do { screens.append(try open(settings, paced: paced, shared: shared)) }
                catch { throw RuntimeFailure("display \(output.name): \(error)") }
                if let cardPath { cardsInUse.insert(cardPath) }
            }
        } catch {
            for screen in screens { try? screen.close() }
            // A card whose every screen closed was given back with the last; one that none
            // opened on is given back here.
            for (path, card) in cards where !cardsInUse.contains(path) { card.close() }
            throw error
        }
        return screens
    }

    /// Mirror or span: the screens as one output the single engine draws on.
    package static func openCombined(_ displays: DisplaysConfig, paced: Bool) throws -> VideoOutput {
        let screens = try openScreens(displays, paced: paced)
        let names = displays.outputs.map(\.name)
        switch displays.layout {
        case .mirror, .separate:
            return MultiScreenOutput(mirroring: screens, names: names)
        case .span:
            guard let span = MultiScreenOutput(spanning: screens, names: names, grid: displays.grid, bezel: displays.bezel) else {
                for screen in screens { try? screen.close() }
                throw RuntimeFailure("displays: a span of \(displays.grid) needs \(displays.grid.count) screens, not \(screens.count)")
            }
            return span
        }
    }

    /// One line on what is driven, as mpv names its video output: an integrator reading the
    /// journal sees the card, connector, mode, API and how flips are paced.
    package static func announce(_ output: VideoOutput, logger: Logger) {
        logger.notice("display: \(output.summary)")
    }

    package static func close(_ output: VideoOutput, logger: Logger) {
        do { try output.close() } catch { logger.error("display: \(error)") }
    }
}
