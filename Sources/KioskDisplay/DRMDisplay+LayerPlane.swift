import CDRM
import Glibc
import KioskCore

/// The layers' plane on a real card: an ARGB8888 overlay above the video plane, the screen's
/// size, unscaled, committed with the video plane's frames (or alone, for a ticker's refresh
/// between frames). A CPU-path flip switches it off with the video plane (DRMDisplay.queue).
extension DRMDisplay: LayerPlaneOutput {
    public func prepareLayerPlane(over scanout: PlaneScanout) -> LayerPlaneAnswer {
        lock.lock(); defer { lock.unlock() }
        guard !isClosed else { return .unavailable(reason: "the display is closed") }
        guard let atomic = presenter.kind.atomicCommits, let video = videoPlane, video.info.id == scanout.planeID,
              !video.buffers.isEmpty else {
            return .unavailable(reason: "the video plane \(scanout.planeID) is not prepared")
        }
        // The layers are drawn as the CPU path draws them, into buffers of the primary plane's
        // orientation; a screen turned by the primary plane would need the same turn here.
        guard softwareRotation == rotation else {
            return .unavailable(reason: "the screen is turned by the primary plane; the layers' plane is not")
        }
        let answer = PlaneSelection.chooseLayerPlane(videoPlaneID: scanout.planeID, primaryPlaneID: planeID,
                                                     crtcIndex: crtcIndex, planes: planes)
        guard case .ready(let id) = answer else { return answer }
        do {
            let plane = try layerPlane(id)
            var request = atomic.primaryRequest(framebufferID: try blackFramebuffer())
            request.entries += video.showRequest(buffer: 0, scanout: scanout).entries
            request.entries += plane.showRequest(buffer: plane.backBuffer().index).entries
            try atomic.commit(request, flags: UInt32(DRM_MODE_ATOMIC_TEST_ONLY), userData: nil,
                              what: "testing a TEST_ONLY commit of the layers' plane")
        } catch {
            if let plane = layerPlane, !plane.isShown { plane.destroy(); layerPlane = nil }
            return .unavailable(reason: "plane \(id) refused AR24 over the video plane \(scanout.planeID): \(error)")
        }
        return answer
    }

    public func layerBuffer() throws -> PixelBuffer {
        lock.lock(); defer { lock.unlock() }
        guard !isClosed else { throw DRMError.closed }
        guard let layerPlane else {
            throw DRMError.callFailed(what: "drawing the layers' plane, which was not prepared", call: "", errno: EINVAL)
        }
        return layerPlane.backBuffer()
    }

    public func presentLayers(_ layers: LayerPlaneChange) throws -> Double {
        lock.lock(); defer { lock.unlock() }
        guard !isClosed else { throw DRMError.closed }
        guard isPoweredOn else { throw DRMError.displayOff }
        guard videoPlane?.isShown == true, let atomic = presenter.kind.atomicCommits else {
            throw DRMError.callFailed(what: "showing the layers' plane without the video plane", call: "", errno: EINVAL)
        }
        if pendingIndex != nil { _ = try finishPendingFlip() }
        let index = try layerPlaneIndex(for: layers)
        try atomic.commit(layerPlaneRequest(layers, index: index),
                          flags: UInt32(DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT),
                          userData: flipWaiter.userData, what: "showing the layers' plane")
        let event = try awaitFlipEvent()
        noteLayerPlane(layers, index: index)
        return event.seconds
    }

    public func prepareTickerPlane(window: PixelSize, strip: PixelRect, over scanout: PlaneScanout) -> LayerPlaneAnswer {
        lock.lock(); defer { lock.unlock() }
        guard !isClosed else { return .unavailable(reason: "the display is closed") }
        guard let atomic = presenter.kind.atomicCommits, let video = videoPlane, video.info.id == scanout.planeID,
              !video.buffers.isEmpty, let layers = layerPlane else {
            return .unavailable(reason: "the layers' plane is not prepared")
        }
        let answer = PlaneSelection.chooseTickerPlane(window: window, strip: strip, screen: size, layersPlaneID: layers.info.id,
                                                      videoPlaneID: video.info.id, primaryPlaneID: planeID,
                                                      crtcIndex: crtcIndex, planes: planes)
        guard case .ready(let id) = answer else { return answer }
        do {
            let plane = try tickerPlane(id, window: window)
            // The three planes together, the ticker's window at its last column.
            var request = atomic.primaryRequest(framebufferID: try blackFramebuffer())
            request.entries += video.showRequest(buffer: 0, scanout: scanout).entries
            request.entries += layers.showRequest(buffer: layers.backBuffer().index).entries
            request.entries += plane.showRequest(buffer: plane.backBuffer().index, sourceX: window.width - strip.width,
                                                 strip: strip).entries
            try atomic.commit(request, flags: UInt32(DRM_MODE_ATOMIC_TEST_ONLY), userData: nil,
                              what: "testing a TEST_ONLY commit of the ticker's plane")
        } catch {
            if let plane = tickerPlane, !plane.isShown { plane.destroy(); tickerPlane = nil }
            return .unavailable(reason: "plane \(id) refused AR24 \(window) shown at \(strip): \(error)")
        }
        return answer
    }

    public func tickerBuffer() throws -> PixelBuffer {
        lock.lock(); defer { lock.unlock() }
        guard !isClosed else { throw DRMError.closed }
        guard let tickerPlane else {
            throw DRMError.callFailed(what: "drawing the ticker's plane, which was not prepared", call: "", errno: EINVAL)
        }
        return tickerPlane.backBuffer()
    }

    // MARK: - under the lock (DRMDisplay+DirectVideo's commits)

    /// The buffers `change` shows (the layers' and the ticker's), checked to be their planes'
    /// back buffers or, for the ticker's window, the one on screen (a scroll moves only the
    /// source); nil for what it does not show.
    func layerPlaneIndex(for change: LayerPlaneChange) throws(DRMError) -> (layers: Int?, ticker: Int?) {
        var indices: (layers: Int?, ticker: Int?) = (nil, nil)
        if let buffer = change.layersBuffer {
            guard let layerPlane, layerPlane.owns(buffer) else { throw .foreignBuffer(index: buffer.index) }
            indices.layers = buffer.index
        }
        if case .scroll(_, let ticker) = change {
            guard let tickerPlane, tickerPlane.holds(ticker.window) else { throw .foreignBuffer(index: ticker.window.index) }
            indices.ticker = ticker.window.index
        }
        return indices
    }

    /// The layers' (and the ticker's) plane's part of a commit.
    func layerPlaneRequest(_ change: LayerPlaneChange, index: (layers: Int?, ticker: Int?)) -> AtomicRequest {
        var request = AtomicRequest()
        switch change {
        case .keep: break
        case .show, .scroll:
            if let layerPlane, let layers = index.layers { request.entries += layerPlane.showRequest(buffer: layers).entries }
            if case .scroll(_, let ticker) = change, let tickerPlane, let window = index.ticker {
                request.entries += tickerPlane.showRequest(buffer: window, sourceX: ticker.sourceX, strip: ticker.strip).entries
            } else if let tickerPlane, tickerPlane.isShown {
                request.entries += tickerPlane.hideRequest().entries   // the ticker is on the layers' plane now
            }
        case .hide:
            if let layerPlane, layerPlane.isShown { request.entries += layerPlane.hideRequest().entries }
            if let tickerPlane, tickerPlane.isShown { request.entries += tickerPlane.hideRequest().entries }
        }
        return request
    }

    /// After the commit that carried `layerPlaneRequest`.
    func noteLayerPlane(_ change: LayerPlaneChange, index: (layers: Int?, ticker: Int?)) {
        switch change {
        case .keep: break
        case .show, .scroll:
            if let layers = index.layers { layerPlane?.noteShown(layers) }
            if let window = index.ticker { tickerPlane?.noteShown(window) } else if case .show = change { tickerPlane?.noteHidden() }
        case .hide:
            layerPlane?.noteHidden()
            tickerPlane?.noteHidden()
        }
    }

    private func tickerPlane(_ id: UInt32, window: PixelSize) throws(DRMError) -> LayerPlane {
        let plane = try overlay(reusing: tickerPlane, id: id, size: window, what: "the ticker")
        tickerPlane = plane
        return plane
    }

    private func layerPlane(_ id: UInt32) throws(DRMError) -> LayerPlane {
        let plane = try overlay(reusing: layerPlane, id: id, size: size, what: "the layers")
        layerPlane = plane
        return plane
    }

    /// `current` when it is plane `id` with buffers of `size`, else a new one there (`current`'s
    /// buffers freed first; refused while it is on screen: its buffers cannot go under it).
    private func overlay(reusing current: LayerPlane?, id: UInt32, size: PixelSize, what: String) throws(DRMError) -> LayerPlane {
        if let current, current.info.id == id, current.size == size { return current }
        guard let info = planes.first(where: { $0.id == id }) else {
            throw .callFailed(what: "finding plane \(id)", call: "drmModeGetPlane", errno: ENOENT)
        }
        if let current, current.isShown { throw .callFailed(what: "moving \(what) to plane \(id)", call: "", errno: EBUSY) }
        current?.destroy()
        return try LayerPlane(card: card, info: info, crtcID: crtcID, size: size)
    }
}
