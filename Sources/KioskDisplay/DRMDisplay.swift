import CDRM
import Foundation
import Glibc
import KioskCore

/// A screen driven through DRM/KMS: the engine draws into mapped dumb buffers and page-flips
/// them; close hands the screen back as it was.
///
/// Thread safety: every method takes `lock`, so the presenter thread can present while a
/// signal-driven shutdown calls `close()` from another thread (close then waits for the flip in
/// progress, at most `flipTimeout`). That is why the class is `@unchecked Sendable`: all mutable
/// state is behind the lock, the rest is immutable after init.
public final class DRMDisplay: VideoOutput, @unchecked Sendable {
    public let cardPath: String
    public let driverName: String
    public let connectorName: String
    let connectorID: UInt32
    /// `card1-HDMI-A-1`: the card's node (a by-path link resolved) and the connector, as
    /// /sys/class/drm names the connector's folder.
    let sysfsConnectorName: String
    public let mode: DisplayMode
    /// Atomic or legacy, as used (auto resolves to one of them).
    public let api: DRMDisplayOptions.API
    public let crtcID: UInt32
    public let planeID: UInt32?
    /// The clockwise turn of the picture on the panel, as asked for.
    public let rotation: Rotation
    /// The turn the engine must apply itself (the plane cannot); `.none` when the plane rotates.
    public let softwareRotation: Rotation
    /// Size of the buffers handed out: the mode's size, transposed when the plane rotates 90/270.
    public let size: PixelSize
    public let refreshInterval: MediaTime
    public let bufferCount: Int
    /// Why `api: .auto` fell back from atomic to legacy, if it did.
    public let apiFallbackReason: String?

    let lock = NSLock()
    let card: Card
    let presenter: any ScanoutPresenter
    /// What close puts back (internal: tests compare it with the kernel's state after close).
    let savedState: SavedDisplayState
    let flipWaiter: FlipWaiter
    let flipTimeout: Double
    /// The card when other screens share it (`SharedCard`): close leaves master and the
    /// descriptor to it.
    public let sharedCard: SharedCard?
    private var buffers: [DumbBuffer]
    /// The XRGB buffer on the primary plane; -1 while it shows the direct path's black buffer.
    var frontIndex = 0
    var pendingIndex: Int?
    /// Buffers handed out by backBuffer and not presented yet: the engine may be drawing into
    /// them, so close leaves them mapped until they come back (or the display is freed).
    private var lentIndices = Set<Int>()
    var isClosed = false
    /// Display power (DRMDisplay+Power.swift): off, the CRTC scans nothing out and flips are refused.
    var isPoweredOn = true
    var lastFlip = FlipEvent(sequence: 0, seconds: 0)
    /// The direct video path (DRMDisplay+DirectVideo.swift): `display.video_plane`, the card's
    /// planes as opened, the plane in use and the black buffer behind it, and why the path is
    /// off for good once the driver refused it.
    let videoPlanePolicy: VideoPlanePolicy
    let planes: [DisplayPlaneInfo]
    let crtcIndex: Int
    var videoPlane: VideoPlane?
    var blackBuffer: DumbBuffer?
    var directRefusal: String?
    /// The imported frame (another device's buffers) the video plane shows: released once a
    /// later flip has replaced it (DRMDisplay+Prime).
    var primeFront: PrimeFramebuffer?
    /// Imported frames taken off the plane by a commit whose flip has not completed yet.
    var primeRetired: [PrimeFramebuffer] = []
    /// Plane configurations of imported frames the driver accepted in a TEST_ONLY commit.
    var primeTested: Set<PrimeScanoutKey> = []
    /// The layers' plane over the video plane (DRMDisplay+LayerPlane.swift), once prepared.
    var layerPlane: LayerPlane?
    /// A ticker's plane above it (DRMDisplay+LayerPlane.swift), once prepared.
    var tickerPlane: LayerPlane?
    /// Screenshots read back from the display (DRMDisplay+Writeback.swift): the writeback
    /// connector the modeset attached, the last read-back asked of it (its buffer, which the
    /// driver may still be writing), and why reading back stopped for good if the driver
    /// refused it.
    let writebackConnector: WritebackConnectorInfo?
    var lastReadBack: WritebackReadBack?
    var writebackRefusal: String?
    /// When flips complete: on the vblank grid the flip events trace, or at once on a driver
    /// without vblanks.
    var vblank: VblankPredictor

    /// Opens the display: picks card, connector, mode, CRTC and plane, becomes DRM master,
    /// allocates `options.bufferCount` buffers and sets the mode showing a black one. With
    /// `shared`, on that card (its master held already) and a CRTC its other screens do not use.
    public init(options: DRMDisplayOptions = DRMDisplayOptions(), on shared: SharedCard? = nil) throws(DRMError) {
        let output = try SelectedOutput.open(options, on: shared)
        let card = output.card
        try card.becomeMaster()
        // Only a card of its own is given back when opening fails; a shared one stays its owner's.
        let dropOwnMaster = { if shared == nil { card.dropMaster() } }
        let planeRotates = options.rotation != .none && card.hasAtomic && options.api != .legacy
            && output.primaryPlane?.supports(options.rotation) == true
        let bufferSize = planeRotates && options.rotation.swapsAxes ? output.mode.size.transposed : output.mode.size
        let target = ScanoutTarget(
            connectorID: output.connector.id, crtcID: output.crtc.id, planeID: output.primaryPlane?.id,
            mode: output.mode, bufferSize: bufferSize, planeRotation: planeRotates ? options.rotation : .none,
            planeHasRotationProperty: output.primaryPlane?.rotation != nil,
            previousCRTCOfConnector: output.previousCRTCOfConnector, planesToDisable: output.planesToDisable,
            // Not on a shared card: one writeback connector may serve several of its CRTCs.
            writebackConnectorID: options.writeback && shared == nil
                ? output.snapshot.writebacks.first { $0.serves(crtcIndex: output.crtc.index) }?.id : nil)
        let saved = SavedDisplayState.capture(card: card, crtcID: output.crtc.id, connector: output.connector,
                                              encoders: output.snapshot.encoders, planeID: output.primaryPlane?.id)
        var buffers: [DumbBuffer] = []
        do {
            for _ in 0..<options.bufferCount {
                let buffer = try DumbBuffer(card: card, size: bufferSize)
                buffer.pixelBuffer(index: buffers.count).fill(PixelRect(size: bufferSize), color: 0)
                buffers.append(buffer)
            }
        } catch {
            buffers.forEach { $0.destroy() }
            dropOwnMaster()
            throw error
        }
        let presenter: any ScanoutPresenter
        let fallback: String?
        do {
            (presenter, fallback) = try Self.startPresenter(card: card, target: target, api: options.api,
                                                            firstFramebuffer: buffers[0].framebufferID)
        } catch {
            // The screen may be half-configured: hand it back before failing.
            try? LegacyPresenter(card: card, target: target).restore(saved)
            buffers.forEach { $0.destroy() }
            dropOwnMaster()
            throw error
        }
        self.card = card
        self.presenter = presenter
        self.savedState = saved
        self.buffers = buffers
        flipWaiter = FlipWaiter(fd: card.fd, sharedEvents: shared?.events)
        sharedCard = shared
        shared?.claim(crtc: output.crtc.id)
        flipTimeout = options.flipTimeout
        cardPath = card.path
        driverName = card.driverName
        connectorName = output.connector.name
        connectorID = output.connector.id
        sysfsConnectorName = "\(URL(fileURLWithPath: card.path).resolvingSymlinksInPath().lastPathComponent)-\(output.connector.name)"
        mode = output.mode
        api = presenter.api
        crtcID = output.crtc.id
        planeID = output.primaryPlane?.id
        rotation = options.rotation
        softwareRotation = planeRotates ? .none : options.rotation
        size = bufferSize
        refreshInterval = output.mode.refreshInterval
        vblank = VblankPredictor(refreshInterval: output.mode.refreshInterval.seconds,
                                 lastVblank: card.lastVblank(crtcID: output.crtc.id))
        apiFallbackReason = fallback
        bufferCount = buffers.count
        videoPlanePolicy = options.videoPlane
        planes = output.snapshot.planes
        crtcIndex = output.crtc.index
        let attached = presenter.kind.atomicCommits?.writebackAttached == true
        writebackConnector = attached ? output.snapshot.writebacks.first { $0.id == target.writebackConnectorID } : nil
    }

    deinit { try? close() }

    /// Sets the mode showing `firstFramebuffer`. Atomic first where offered; `auto` falls back
    /// to legacy if the driver rejects the atomic modeset for anything but a master problem.
    private static func startPresenter(card: Card, target: ScanoutTarget, api: DRMDisplayOptions.API,
                                       firstFramebuffer: UInt32) throws(DRMError) -> (any ScanoutPresenter, String?) {
        let legacy = LegacyPresenter(card: card, target: target)
        guard api != .legacy && card.hasAtomic else {
            try legacy.modeset(framebufferID: firstFramebuffer)
            return (legacy, nil)
        }
        var atomic: AtomicPresenter?
        do {
            atomic = try AtomicPresenter(card: card, target: target)
            try atomic!.modeset(framebufferID: firstFramebuffer)
            return (atomic!, nil)
        } catch {
            atomic?.release()
            if case .anotherMaster = error { throw error }
            // Buffers for a plane-rotated picture are transposed; legacy SetCrtc cannot show them.
            if api == .atomic || target.planeRotation != .none { throw error }
            try legacy.modeset(framebufferID: firstFramebuffer)
            return (legacy, "atomic modeset failed (\(error)); using legacy")
        }
    }

    /// The panel's mode, whatever the buffers' orientation: touch coordinates come in it.
    public var scanoutSize: PixelSize { mode.size }
    /// The picture's upright size: what the engine lays the video out in.
    public var logicalSize: PixelSize { rotation.swapsAxes ? mode.size.transposed : mode.size }
    public var needsSoftwareRotation: Bool { softwareRotation != .none }
    /// The driver has vblanks: flips complete on the panel's refresh grid, not at once.
    public var flipsOnVblank: Bool { lock.withLock { vblank.isVblankPaced } }
    public var flipsWhenAsked: Bool { !flipsOnVblank }
    public var flipsOnVblankGrid: Bool { flipsOnVblank }

    /// One line for the log: what is driven and how.
    public var summary: String {
        let turn = rotation == .none ? "" : ", rotation \(rotation.degrees)° (\(needsSoftwareRotation ? "CPU" : "plane"))"
        return "\(cardPath) (\(driverName)): \(connectorName) \(mode) via \(api.rawValue) on CRTC \(crtcID)"
            + (planeID.map { " plane \($0)" } ?? "") + ", \(bufferCount) buffers of \(size)\(turn)"
            + (flipsOnVblank ? ", flips on vblank" : ", no vblank (flips complete at once)")
    }

    public func backBuffer() throws -> PixelBuffer {
        lock.lock(); defer { lock.unlock() }
        guard !isClosed else { throw DRMError.closed }
        if freeIndex() == nil {
            _ = try finishPendingFlip()   // every buffer is on screen or queued: wait for one
        }
        let index = freeIndex()!          // after a flip the previous front buffer is free
        lentIndices.insert(index)
        return buffers[index].pixelBuffer(index: index)
    }

    /// Shows `buffer` (from `backBuffer()`) at the next refresh and waits for the flip; returns
    /// its CLOCK_MONOTONIC time in seconds.
    public func present(_ buffer: PixelBuffer) throws -> Double {
        lock.lock(); defer { lock.unlock() }
        try queue(buffer)
        return try finishPendingFlip().seconds
    }

    public func expectedFlip(after host: Double) -> Double {
        lock.lock(); defer { lock.unlock() }
        return vblank.expectedFlip(after: host)
    }

    /// Queues `buffer` for the next refresh without waiting (draw ahead with 3+ buffers); a
    /// flip still in flight is waited for first.
    public func submit(_ buffer: PixelBuffer) throws {
        lock.lock(); defer { lock.unlock() }
        try queue(buffer)
    }

    /// A page flip queued now and waited for when the caller asks: the screens of a mirror or a
    /// span all flip on one refresh.
    public func submitFlip(_ buffer: PixelBuffer) throws -> () throws -> Double {
        try submit(buffer)
        return { [self] in try waitForFlip().seconds }
    }

    /// Waits for the flip `submit` queued; returns at once with the last flip if none is.
    public func waitForFlip() throws -> FlipEvent {
        lock.lock(); defer { lock.unlock() }
        return try finishPendingFlip()
    }

    /// Whether `close()` ran (from any thread).
    public var wasClosed: Bool { lock.withLock { isClosed } }

    /// Restores the screen that was there before, frees buffers, drops master, closes the card.
    /// Idempotent; safe from any thread (not from inside a signal handler: use a DispatchSource).
    /// Every step runs even if one fails; the first failure is thrown.
    public func close() throws {
        lock.lock(); defer { lock.unlock() }
        guard !isClosed else { return }
        isClosed = true
        var firstError: DRMError?
        if pendingIndex != nil {
            // A commit in flight makes the restoring modeset fail with EBUSY; wait it out.
            do { _ = try finishPendingFlip() } catch { firstError = error }
        }
        // A read-back still being written is let finish (a second at most): the restore
        // detaches the writeback connector, and vkms would drop the job, whose fence a later
        // process's first job would then signal.
        _ = lastReadBack?.waitForPicture(upTo: 1)
        do { try hideVideoPlane() } catch { firstError = firstError ?? error }
        retirePrimeFront()
        releaseRetiredPrimeFrames()
        // A screen left off would stay dark under whatever comes next (the console, a restart).
        if !isPoweredOn { do { try presenter.setActive(true) } catch { firstError = firstError ?? error } }
        do { try presenter.restore(savedState) } catch { firstError = firstError ?? error }
        videoPlane?.destroy()
        layerPlane?.destroy()
        tickerPlane?.destroy()
        blackBuffer?.destroy()
        // Its memory stays mapped for a thread still reading the picture.
        lastReadBack?.releaseKernelObjects()
        lastReadBack = nil
        for (index, buffer) in buffers.enumerated() {
            buffer.releaseKernelObjects()
            if !lentIndices.contains(index) { buffer.unmap() }
        }
        presenter.release()
        if let sharedCard {
            sharedCard.release(crtc: crtcID)
        } else {
            card.dropMaster()
            card.close()
        }
        if let firstError { throw firstError }
    }

    // MARK: - under the lock

    /// A buffer neither on screen nor queued, starting after the front one (round robin).
    private func freeIndex() -> Int? {
        guard !buffers.isEmpty else { return nil }
        for step in 1...buffers.count {
            let index = (frontIndex + step) % buffers.count
            if index != frontIndex && index != pendingIndex { return index }
        }
        return nil
    }

    private func queue(_ buffer: PixelBuffer) throws(DRMError) {
        let isOurs = buffers.indices.contains(buffer.index) && lentIndices.contains(buffer.index)
            && buffers[buffer.index].baseAddress == buffer.base
        if isClosed {
            // The drawer is done with it: now it can be unmapped.
            if isOurs { buffers[buffer.index].unmap(); lentIndices.remove(buffer.index) }
            throw .closed
        }
        if !isPoweredOn {
            if isOurs { lentIndices.remove(buffer.index) }
            throw .displayOff
        }
        guard isOurs, buffer.index != frontIndex, buffer.index != pendingIndex else {
            throw .foreignBuffer(index: buffer.index)
        }
        lentIndices.remove(buffer.index)
        if pendingIndex != nil { _ = try finishPendingFlip() }
        if let atomic = presenter.kind.atomicCommits, let hiding = planesHideRequest() {
            // Back from the direct path: the same commit switches the video and layers' planes off.
            try atomic.queueFlip(framebufferID: buffers[buffer.index].framebufferID, userData: flipWaiter.userData,
                                 alsoSetting: hiding)
            notePlanesHidden()
        } else {
            try presenter.queueFlip(framebufferID: buffers[buffer.index].framebufferID, userData: flipWaiter.userData)
        }
        pendingIndex = buffer.index
    }

    func finishPendingFlip() throws(DRMError) -> FlipEvent {
        guard let pending = pendingIndex else { return lastFlip }
        let event = try awaitFlipEvent()
        frontIndex = pending
        pendingIndex = nil
        return event
    }

    /// Waits for the flip event of the commit just made (either path) and notes when it came:
    /// the last flip, and a point on the vblank grid.
    func awaitFlipEvent() throws(DRMError) -> FlipEvent {
        let event = try flipWaiter.wait(timeout: flipTimeout)
        releaseRetiredPrimeFrames()   // the flip that replaced them is on screen
        lastFlip = event
        vblank.record(flip: event.seconds)
        return event
    }
}
