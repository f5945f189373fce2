import KioskCore
import KioskMedia
import Logging

/// Where pictures go on the screen, and the splash decoded at start.
extension FramePresenter {
    /// Where `frame` of `item` goes on screen: the item's gravity, else `gravity`, on the whole
    /// screen or within `region` (kiosk.conf `playback.region`, in the viewer's coordinates).
    func layout(of frame: DecodedFrame, in item: ActiveItem, gravity: VideoGravity, region: ScreenRegion? = nil) -> GravityLayout {
        GravityLayout.onScreen(source: frame.size, sampleAspect: frame.sampleAspect, rotation: frame.rotation, buffer: output.size,
                               softwareRotation: output.softwareRotation, gravity: item.entry.item.gravity ?? gravity, region: region)
    }

    /// The splash, decoded; nil (one error line) when it cannot be: black then.
    static func loadSplash(_ path: String, screen: PixelSize, logger: Logger) -> DecodedFrame? {
        do {
            // A splash photo stands upright and, if a large JPEG, decodes no larger than the screen needs.
            return try HeifStill.firstFrame(of: path, stillScreen: screen)
        } catch {
            logger.error("splash: \(error); the idle screen is black")
            return nil
        }
    }
}
