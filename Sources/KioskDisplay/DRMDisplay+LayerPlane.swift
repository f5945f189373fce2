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

    public func presentLayers(_ layers: PixelBuffer) throws -> Double {
        lock.lock(); defer { lock.unlock() }
        guard !isClosed else { throw DRMError.closed }
        guard isPoweredOn else { throw DRMError.displayOff }
        guard videoPlane?.isShown == true, let atomic = presenter.kind.atomicCommits else {
            throw DRMError.callFailed(what: "showing the layers' plane without the video plane", call: "", errno: EINVAL)
        }
        if pendingIndex != nil { _ = try finishPendingFlip() }
        let index = try layerPlaneIndex(for: .show(layers))
        try atomic.commit(layerPlaneRequest(.show(layers), index: index),
                          flags: UInt32(DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT),
                          userData: flipWaiter.userData, what: "showing the layers' plane")
        let event = try awaitFlipEvent()
        noteLayerPlane(.show(layers), index: index)
        return event.seconds
    }

    // MARK: - under the lock (DRMDisplay+DirectVideo's commits)

    /// The buffer `change` shows, checked to be the plane's back buffer; nil for keep and hide.
    func layerPlaneIndex(for change: LayerPlaneChange) throws(DRMError) -> Int? {
        guard case .show(let buffer) = change else { return nil }
        guard let layerPlane, layerPlane.owns(buffer) else { throw .foreignBuffer(index: buffer.index) }
        return buffer.index
    }

    /// The layers' plane's part of a commit.
    func layerPlaneRequest(_ change: LayerPlaneChange, index: Int?) -> AtomicRequest {
        guard let layerPlane else { return AtomicRequest() }
        switch change {
        case .keep: return AtomicRequest()
        case .show: return index.map { layerPlane.showRequest(buffer: $0) } ?? AtomicRequest()
        case .hide: return layerPlane.isShown ? layerPlane.hideRequest() : AtomicRequest()
        }
    }

    /// After the commit that carried `layerPlaneRequest`.
    func noteLayerPlane(_ change: LayerPlaneChange, index: Int?) {
        switch change {
        case .keep: break
        case .show: if let index { layerPlane?.noteShown(index) }
        case .hide: layerPlane?.noteHidden()
        }
    }

    private func layerPlane(_ id: UInt32) throws(DRMError) -> LayerPlane {
        if let layerPlane, layerPlane.info.id == id, layerPlane.size == size { return layerPlane }
        guard let info = planes.first(where: { $0.id == id }) else {
            throw .callFailed(what: "finding plane \(id)", call: "drmModeGetPlane", errno: ENOENT)
        }
        if let old = layerPlane, old.isShown { throw .callFailed(what: "moving the layers to plane \(id)", call: "", errno: EBUSY) }
        layerPlane?.destroy()
        let plane = try LayerPlane(card: card, info: info, crtcID: crtcID, size: size)
        layerPlane = plane
        return plane
    }
}
