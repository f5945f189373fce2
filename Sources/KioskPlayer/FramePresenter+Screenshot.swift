import KioskCore
import KioskMedia

/// Screenshots: what the screen shows, read back or composed from kiosk's own buffers.
extension FramePresenter {
    /// How a screenshot is being taken.
    enum ScreenCapture {
        /// Composed from kiosk's own buffers, now (or why there is nothing to take).
        case taken(Result<CapturedPicture, ScreenshotError>)
        /// Asked of the display, whose driver writes the picture later (`ScreenReadBack`).
        case readingBack(ScreenReadBack)
    }

    /// Begins a screenshot, between two frames: read back where the display can (`readBack`,
    /// and the display offers it; some drivers cannot read a CRTC back: raspberrypi/linux
    /// #6867), else composed from kiosk's own buffers.
    func beginCapture(readBack: Bool = true) -> ScreenCapture {
        guard onScreen != nil else { return .taken(.failure(ScreenshotError(description: "nothing has been shown yet"))) }
        if readBack, let pending = beginReadBack() { return .readingBack(pending) }
        return .taken(composeScreen())
    }

    /// A copy of what is on screen, at the display's size, from kiosk's own buffers: the buffer
    /// last flipped as it is, or a plane's frame drawn by the CPU path's scaler over black with
    /// the layers' plane laid over it (the OSD forces the CPU path). Copied here, between two
    /// frames; the caller encodes it on its own thread, so playback does not wait for that.
    func composeScreen() -> Result<CapturedPicture, ScreenshotError> {
        let picture: CapturedPicture
        switch onScreen {
        case nil:
            return .failure(ScreenshotError(description: "nothing has been shown yet"))
        case .buffer(let buffer):
            picture = CapturedPicture(copying: buffer)
        case .plane(let frame, let layout):
            picture = CapturedPicture(size: output.size)
            picture.buffer.fill(PixelRect(size: output.size))
            do {
                try Scaler().draw(frame, layout: layout, into: picture.buffer)
            } catch {
                return .failure(ScreenshotError(description: "cannot draw the plane's frame: \(error)"))
            }
            if let layers = directVideo?.layerPlane?.shown { picture.buffer.composite(layers) }
            if let ticker = directVideo?.layerPlane?.shownTicker { picture.buffer.composite(ticker) }
        }
        return .success(picture)
    }

    /// The display's own picture asked for (a writeback connector: planes and all, as
    /// composed); nil: compose it from kiosk's buffers. How shots are taken is logged at the
    /// first and whenever it changes (a driver that refused writeback once).
    private func beginReadBack() -> ScreenReadBack? {
        let pending: ScreenReadBack?
        do {
            pending = try output.beginReadBack()
        } catch {
            logger.warning("screenshot: reading the display back failed (\(error)); composing it instead")
            return nil
        }
        let source = output.screenshotSource
        if source != screenshotSourceLogged {
            logger.notice("screenshots: \(source)")
            screenshotSourceLogged = source
        }
        return pending
    }
}

/// A picture that owns its memory (XRGB8888, rows packed), handed from the presenter thread to
/// the one that asked for it.
final class CapturedPicture: @unchecked Sendable {
    // Written once on the presenter thread before it is handed over; read-only afterwards.
    let buffer: PixelBuffer

    init(size: PixelSize, format: PixelFormat = .xrgb8888) {
        let stride = size.width * 4
        buffer = PixelBuffer(base: UnsafeMutableRawPointer.allocate(byteCount: stride * size.height, alignment: 64),
                             size: size, stride: stride, format: format, index: 0)
    }

    /// A copy of `source` (rows packed; its stride may be padded).
    convenience init(copying source: PixelBuffer) {
        self.init(size: source.size)
        buffer.copyPixels(from: source)
    }

    deinit { buffer.base.deallocate() }
}
