import CDRM
import Glibc
import KioskCore

/// A configuration of an imported frame on the video plane the driver accepted once.
struct PrimeScanoutKey: Hashable {
    let format: FourCC
    let modifier: UInt64
    let scanout: PlaneScanout
}

/// The zero-copy path: another device's frame (a hardware decoder's DRM PRIME frame) imported
/// onto the card as a `PrimeFramebuffer` and scanned out on the video plane as it is, the black
/// primary plane behind it, as mpv's drmprime-overlay does. A configuration is asked of the
/// driver with a TEST_ONLY commit the first time; a refusal is thrown with the driver's errno
/// (the caller drops to the copy path). A shown frame is held until a later flip has replaced it
/// on screen, then released: the decoder's buffer is never scanned out after it was given back.
extension DRMDisplay: PrimeScanoutOutput {
    public func presentPrime(_ picture: PrimePicture, on scanout: PlaneScanout, layers: LayerPlaneChange) throws -> Double {
        let framebuffer = try importPrime(picture.descriptor)
        framebuffer.keepAlive = picture.owner
        do {
            return try presentPrime(framebuffer, on: scanout, matrix: picture.matrix, layers: layers)
        } catch {
            // Past its commit the display holds it (a flip that timed out may still land).
            if !framebuffer.isHeldByDisplay { framebuffer.release() }
            throw error
        }
    }

    /// `frame` imported onto this display's card, no pixel copied; the caller owns it until it
    /// is handed to `presentPrime`.
    public func importPrime(_ frame: PrimeFrameDescriptor) throws -> PrimeFramebuffer {
        lock.lock(); defer { lock.unlock() }
        guard !isClosed else { throw DRMError.closed }
        return try PrimeFramebuffer(card: card, frame: frame)
    }

    /// The plane an imported frame of `format` in the memory layout `modifier` laid out on screen
    /// by `layout` goes on, or why none can take it (no atomic API, no plane with the format or
    /// listing the layout in IN_FORMATS, no scaling, `video_plane: off`).
    public func preparePrimeScanout(format: FourCC, modifier: UInt64, layout: GravityLayout) -> DirectScanoutAnswer {
        lock.lock(); defer { lock.unlock() }
        guard videoPlanePolicy == .auto else { return .refused(reason: "display.video_plane is off") }
        guard !isClosed else { return .unavailable(reason: "the display is closed") }
        guard presenter.kind.atomicCommits != nil else {
            return .refused(reason: "\(driverName) is driven through the legacy API (no atomic commits)")
        }
        let displayRotation = softwareRotation == .none ? rotation : .none
        return PlaneSelection.choosePrimeScanout(format: format, modifier: modifier, layout: layout, displayRotation: displayRotation,
                                                 primaryPlaneID: planeID, crtcIndex: crtcIndex, crtcID: crtcID, planes: planes)
    }

    /// The planes of this display's CRTC that take `format`, each with the modifiers its
    /// IN_FORMATS lists for it (nil: it has no IN_FORMATS), for a report.
    public func listedModifiers(for format: FourCC) -> [UInt32: [UInt64]?] {
        lock.lock(); defer { lock.unlock() }
        var listed: [UInt32: [UInt64]?] = [:]
        for plane in planes where plane.type != .cursor && plane.canDrive(crtcIndex: crtcIndex) && plane.formats.contains(format) {
            listed[plane.id] = plane.listedModifiers(for: format)
        }
        return listed
    }

    /// Shows `framebuffer` on the plane `scanout` names, the layers' plane as `layers` says, and
    /// returns the flip's time. Once its commit went through the display owns the framebuffer
    /// (`isHeldByDisplay`; released after a later flip), even if waiting for the flip throws;
    /// when this throws before that, the caller still does.
    public func presentPrime(_ framebuffer: PrimeFramebuffer, on scanout: PlaneScanout, matrix: YUVMatrix = .bt709,
                             layers: LayerPlaneChange = .hide) throws -> Double {
        lock.lock(); defer { lock.unlock() }
        guard !isClosed else { throw DRMError.closed }
        guard isPoweredOn else { throw DRMError.displayOff }
        guard let atomic = presenter.kind.atomicCommits else { throw DRMError.atomicUnsupported(path: cardPath) }
        let plane = try videoPlane(scanout.planeID)
        if pendingIndex != nil { _ = try finishPendingFlip() }
        let layerIndex = try layerPlaneIndex(for: layers)
        var request = atomic.primaryRequest(framebufferID: try blackFramebuffer())
        request.entries += plane.showRequest(framebufferID: framebuffer.framebufferID, scanout: scanout, matrix: matrix).entries
        request.entries += layerPlaneRequest(layers, index: layerIndex).entries
        let key = PrimeScanoutKey(format: framebuffer.plan.format, modifier: framebuffer.plan.planes[0].modifier, scanout: scanout)
        let what = "showing another device's \(framebuffer.plan.size) \(framebuffer.plan.format) frame on plane \(scanout.planeID)"
        if !primeTested.contains(key) {
            try atomic.commit(request, flags: UInt32(DRM_MODE_ATOMIC_TEST_ONLY), userData: nil, what: "testing " + what)
            primeTested.insert(key)
        }
        try atomic.commit(request, flags: UInt32(DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT),
                          userData: flipWaiter.userData, what: what)
        framebuffer.isHeldByDisplay = true
        if primeFront !== framebuffer {
            retirePrimeFront()   // the frame shown until now goes once this flip is on screen
            primeFront = framebuffer
        }
        frontIndex = -1      // the primary plane shows the black buffer
        plane.noteShowingImport()
        noteLayerPlane(layers, index: layerIndex)
        let event = try awaitFlipEvent()
        plane.releaseRetiredBuffers()   // YUV buffers of an older size, off the screen now
        return event.seconds
    }

    /// GEM handles held by imports on this display's card, and imports not yet released.
    public var primeImportCounts: (handles: Int, imports: Int) {
        let ledger = card.gemHandles.snapshot
        return (ledger.importedHandles, ledger.openImports)
    }

    /// The check of the one trap in PRIME import: a dma-buf exported from one of kiosk's own
    /// buffers and imported back on the same card gets the buffer's own handle; releasing the
    /// import must not close it. Makes a small buffer, exports, imports and releases it, and
    /// says whether the import returned the same handle, whether the buffer's handle still
    /// stood after the release, and whether it was closed once the buffer itself was freed.
    public func checkOwnBufferImport() throws -> (sameHandle: Bool, survivedRelease: Bool, closedAfterFree: Bool) {
        lock.lock(); defer { lock.unlock() }
        guard !isClosed else { throw DRMError.closed }
        let size = PixelSize(width: 64, height: 64)
        let buffer = try DumbBuffer(card: card, size: size)
        defer { buffer.destroy() }
        let handle = buffer.gemHandle
        let exported = try exportHandle(handle)
        defer { Glibc.close(exported) }
        let frame = PrimeFrameDescriptor(size: size, objects: [.init(fd: exported, size: buffer.byteCount, modifier: FormatModifier.invalid)],
                                         layers: [.init(format: .xrgb8888, planes: [.init(object: 0, offset: 0, pitch: buffer.pitch)])])
        let imported = try PrimeFramebuffer(card: card, frame: frame)
        let sameHandle = imported.handles == [handle]
        imported.release()
        let survived = handleStands(handle)
        buffer.destroy()
        return (sameHandle, survived, !handleStands(handle))
    }

    /// Of `handles` (imports' handles seen earlier), those that still name a buffer on the card
    /// and are not kiosk's own buffers' (a closed number is handed out again): what imports
    /// still hold, as the kernel sees it.
    public func standingHandles(among handles: [UInt32]) -> [UInt32] {
        lock.lock(); defer { lock.unlock() }
        let ledger = card.gemHandles.snapshot
        return handles.filter { !ledger.isCreated($0) && handleStands($0) }
    }

    /// A dma-buf of the buffer `handle` on this card (closed by the caller).
    private func exportHandle(_ handle: UInt32) throws(DRMError) -> Int32 {
        var fd: Int32 = -1
        guard drmPrimeHandleToFD(card.fd.rawValue, handle, UInt32(DRM_CLOEXEC | DRM_RDWR), &fd) == 0 else {
            throw .callFailed(what: "exporting buffer handle \(handle) as a dma-buf", call: "drmPrimeHandleToFD", errno: errno)
        }
        return fd
    }

    /// Whether `handle` still names a buffer on this card (an export of it succeeds).
    private func handleStands(_ handle: UInt32) -> Bool {
        guard let fd = try? exportHandle(handle) else { return false }
        Glibc.close(fd)
        return true
    }

    /// Under the lock: the shown imported frame leaves the screen with the commit being made.
    func retirePrimeFront() {
        if let primeFront { primeRetired.append(primeFront) }
        primeFront = nil
    }

    /// Under the lock, once the commit that took them off the screen has completed.
    func releaseRetiredPrimeFrames() {
        primeRetired.forEach { $0.release() }
        primeRetired.removeAll()
    }
}
