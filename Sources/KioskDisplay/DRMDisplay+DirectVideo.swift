import CDRM
import Glibc
import KioskCore

/// The direct video path on a real card: a decoded NV12/YUV420 frame is copied (no conversion)
/// into a YUV dumb buffer and scanned out on an overlay plane with source and destination
/// rectangles from the gravity layout; the primary plane shows a black XRGB buffer behind it
/// (the bars). Atomic drivers only. Before a configuration is first used a TEST_ONLY commit
/// asks the driver (scaling limits are known only to it); a refusal turns the path off for good.
extension DRMDisplay: DirectVideoOutput {
    /// Every DRM display answers for the path; `prepareDirectScanout` says when it cannot
    /// (legacy API, no fitting plane, `video_plane: off`), so the reason is logged once.
    public var directVideo: DirectVideoOutput? { self }

    public func prepareDirectScanout(format: VideoFrameFormat, frameSize: PixelSize,
                                     layout: GravityLayout) -> DirectScanoutAnswer {
        lock.lock(); defer { lock.unlock() }
        if let directRefusal { return .refused(reason: directRefusal) }
        guard videoPlanePolicy == .auto else { return refuse("display.video_plane is off") }
        guard !isClosed else { return .unavailable(reason: "the display is closed") }
        guard let atomic = presenter.kind.atomicCommits else {
            return refuse("\(driverName) is driven through the legacy API (no atomic commits)")
        }
        // The engine lays the picture out on the buffers: on the physical screen when the CPU
        // rotates, upright when the primary plane does (then the display's turn maps it).
        let displayRotation = softwareRotation == .none ? rotation : .none
        let answer = PlaneSelection.chooseDirectScanout(format: format, layout: layout, displayRotation: displayRotation,
                                                        primaryPlaneID: planeID, crtcIndex: crtcIndex, crtcID: crtcID,
                                                        planes: planes)
        guard case .ready(let scanout) = answer else { return answer }
        do {
            let plane = try videoPlane(scanout.planeID)
            try plane.ensureBuffers(format: format, frameSize: frameSize)
            var request = atomic.primaryRequest(framebufferID: try blackFramebuffer())
            request.entries += plane.showRequest(buffer: 0, scanout: scanout).entries
            try atomic.commit(request, flags: UInt32(DRM_MODE_ATOMIC_TEST_ONLY), userData: nil,
                              what: "testing a TEST_ONLY commit of the video plane")
        } catch {
            return refuse("plane \(scanout.planeID) refused \(scanout.format) \(scanout.source) -> \(scanout.destination)"
                          + (scanout.rotation == .none ? "" : " rotated \(scanout.rotation.degrees)°") + ": \(error)")
        }
        return answer
    }

    public func presentDirect(_ frame: YUVFrameView, on scanout: PlaneScanout) throws -> Double {
        try presentDirect(frame, on: scanout, layers: .hide)
    }

    /// The frame on the video plane and, in the same commit, the layers' plane as `layers` says.
    public func presentDirect(_ frame: YUVFrameView, on scanout: PlaneScanout, layers: LayerPlaneChange) throws -> Double {
        lock.lock(); defer { lock.unlock() }
        guard !isClosed else { throw DRMError.closed }
        guard isPoweredOn else { throw DRMError.displayOff }
        guard let plane = videoPlane, plane.info.id == scanout.planeID, let black = blackBuffer,
              let atomic = presenter.kind.atomicCommits else {
            throw DRMError.callFailed(what: "showing a frame on plane \(scanout.planeID), which was not prepared",
                                      call: "drmModeAtomicCommit", errno: EINVAL)
        }
        try plane.ensureBuffers(format: frame.format, frameSize: frame.size)
        if pendingIndex != nil { _ = try finishPendingFlip() }
        let layerIndex = try layerPlaneIndex(for: layers)
        let index = plane.fill(with: frame)
        var request = atomic.primaryRequest(framebufferID: black.framebufferID)
        request.entries += plane.showRequest(buffer: index, scanout: scanout, matrix: frame.matrix).entries
        request.entries += layerPlaneRequest(layers, index: layerIndex).entries
        try atomic.commit(request, flags: UInt32(DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT),
                          userData: flipWaiter.userData, what: "showing a frame on plane \(scanout.planeID)")
        retirePrimeFront()   // an imported frame shown before this one goes once this flip is done
        let event = try awaitFlipEvent()
        frontIndex = -1   // the primary plane shows the black buffer: every XRGB buffer is free
        plane.noteShown(index)
        noteLayerPlane(layers, index: layerIndex)
        return event.seconds
    }

    /// Switches the video, layers' and ticker's planes off (close, before the previous screen is
    /// restored). Under the lock.
    func hideVideoPlane() throws(DRMError) {
        guard let hiding = planesHideRequest(), let atomic = presenter.kind.atomicCommits else { return }
        defer {
            notePlanesHidden()
            releaseRetiredPrimeFrames()   // a blocking commit: the planes are off now
        }
        try atomic.commit(hiding, flags: 0, userData: nil, what: "switching the video plane off")
    }

    /// The part of a commit that switches off whichever of the video and layers' planes shows;
    /// nil when neither does.
    func planesHideRequest() -> AtomicRequest? {
        var request = AtomicRequest()
        if let videoPlane, videoPlane.isShown { request.entries += videoPlane.hideRequest().entries }
        if let layerPlane, layerPlane.isShown { request.entries += layerPlane.hideRequest().entries }
        if let tickerPlane, tickerPlane.isShown { request.entries += tickerPlane.hideRequest().entries }
        return request.entries.isEmpty ? nil : request
    }

    /// After a commit made with `planesHideRequest`.
    func notePlanesHidden() {
        if videoPlane?.isShown == true { videoPlane?.noteHidden() }
        layerPlane?.noteHidden()
        tickerPlane?.noteHidden()
        retirePrimeFront()
    }

    /// The path is off for good: remembered, so the engine hears the same reason each time.
    private func refuse(_ reason: String) -> DirectScanoutAnswer {
        directRefusal = reason
        // A plane still showing the previous item stays until the next CPU flip switches it off
        // (freeing its framebuffers now would blank it a frame early); close frees it then.
        if let plane = videoPlane, !plane.isShown {
            plane.destroy()
            videoPlane = nil
        }
        return .refused(reason: reason)
    }

    func videoPlane(_ id: UInt32) throws(DRMError) -> VideoPlane {
        if let videoPlane, videoPlane.info.id == id { return videoPlane }
        guard let info = planes.first(where: { $0.id == id }) else {
            throw .callFailed(what: "finding plane \(id)", call: "drmModeGetPlane", errno: ENOENT)
        }
        if let old = videoPlane, old.isShown { throw .callFailed(what: "moving video to plane \(id)", call: "", errno: EBUSY) }
        videoPlane?.destroy()
        let plane = try VideoPlane(card: card, info: info, crtcID: crtcID)
        videoPlane = plane
        return plane
    }

    func blackFramebuffer() throws(DRMError) -> UInt32 {
        if let blackBuffer { return blackBuffer.framebufferID }
        let buffer = try DumbBuffer(card: card, size: size)
        buffer.pixelBuffer(index: -1).fill(PixelRect(size: size), color: 0)
        blackBuffer = buffer
        return buffer.framebufferID
    }
}
