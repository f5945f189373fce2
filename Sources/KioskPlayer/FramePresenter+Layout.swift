import KioskCore
import KioskMedia
import Logging

/// Where pictures go on the screen, and the splash decoded at start.
extension FramePresenter {
    /// Where `frame` of `item` goes on screen: the item's gravity, else `gravity`, on the whole
    /// screen or within `region` (kiosk.conf `playback.region`, in the viewer's coordinates).
    func layout(of frame: DecodedFrame, in item: ActiveItem, gravity: VideoGravity, region: ScreenRegion? = nil) -> GravityLayout {
        let gravity = item.entry.item.gravity ?? gravity
        let rotation = output.softwareRotation
        let viewer = OverlayLayout.viewerSize(buffer: output.size, rotation: rotation)
        guard let region, let rect = region.rect(on: viewer) else {
            return Scaler.layout(for: frame, on: output.size, gravity: gravity, displayRotation: rotation)
        }
        let inBuffer = LayerPlacement.bufferRect(rect, viewer: viewer, rotation: rotation)
        return Scaler.layout(for: frame, on: inBuffer.size, gravity: gravity, displayRotation: rotation)
            .placed(in: inBuffer, of: output.size)
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
