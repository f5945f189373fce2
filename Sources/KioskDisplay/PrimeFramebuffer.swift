import CDRM
import Foundation
import Glibc
import KioskCore

/// A framebuffer over another device's buffers: each dma-buf object of a `PrimeFrameDescriptor`
/// imported into the card (`drmPrimeFDToHandle`, counted in the card's `GEMHandleLedger`), and one
/// framebuffer registered over the planes (`drmModeAddFB2WithModifiers`), as mpv's
/// drmprime-overlay and Kodi's GBM path do. No pixel is copied. `release()` (idempotent; deinit
/// too) removes the framebuffer and lets go of the handles, closing each with its last import.
/// The display holds a shown one until a later flip has replaced it on screen.
public final class PrimeFramebuffer: @unchecked Sendable {
    // Safe to hand between threads: released once, under `lock`; the rest is immutable.
    public let plan: PrimeFramebufferPlan
    public private(set) var framebufferID: UInt32 = 0
    /// The GEM handle of each object, in the descriptor's object order.
    public let handles: [UInt32]
    private let card: Card
    private let lock = NSLock()
    /// What keeps the frame's memory alive (a decoder's surface): let go with the release.
    public var keepAlive: AnyObject? {
        get { lock.withLock { kept } }
        set { lock.withLock { kept = newValue } }
    }
    private var kept: AnyObject?
    /// Set once a flip commit showing it went through: from then on the display releases it
    /// (after a later flip), even when waiting for that flip fails.
    public internal(set) var isHeldByDisplay: Bool {
        get { lock.withLock { held } }
        set { lock.withLock { held = newValue } }
    }
    private var held = false

    init(card: Card, frame: PrimeFrameDescriptor) throws(DRMError) {
        let plan: PrimeFramebufferPlan
        do { plan = try frame.framebufferPlan() } catch { throw .badPrimeFrame(error) }
        self.plan = plan
        self.card = card
        var handles: [UInt32] = []
        for (index, object) in frame.objects.enumerated() {
            // The import and its count in one step: another display of the card releasing the
            // same buffer cannot close the handle between them.
            let imported = card.gemHandles.update { ledger -> Result<UInt32, DRMError> in
                var handle: UInt32 = 0
                guard drmPrimeFDToHandle(card.fd.rawValue, object.fd, &handle) == 0 else {
                    return .failure(.callFailed(what: "importing object \(index) (dma-buf fd \(object.fd)) of a \(plan.size) \(plan.format) frame",
                                                call: "drmPrimeFDToHandle", errno: errno))
                }
                ledger.noteImported(handle)
                return .success(handle)
            }
            switch imported {
            case .success(let handle): handles.append(handle)
            case .failure(let error):
                Self.release(handles, on: card)
                throw error
            }
        }
        self.handles = handles
        do {
            framebufferID = try Self.addFramebuffer(plan, handles: handles, on: card)
        } catch {
            // Released here; deinit (which runs: every property is set) must not release again.
            released = true
            Self.release(handles, on: card)
            throw error
        }
    }

    deinit { release() }

    /// Removes the framebuffer (a plane still showing it goes dark: the display releases a
    /// shown one only after a later flip) and lets go of the imports.
    public func release() {
        lock.lock(); defer { lock.unlock() }
        guard !released else { return }
        released = true
        let id = framebufferID
        if id != 0 { card.gemHandles.update { _ in if card.isOpen { _ = drmModeRmFB(card.fd.rawValue, id) } } }
        framebufferID = 0
        Self.release(handles, on: card)
        kept = nil
    }

    private var released = false

    /// Each handle's import let go, and the handle closed with its last one, under the ledger's
    /// lock (which `Card.close` takes too: the descriptor is not closed under the call).
    private static func release(_ handles: [UInt32], on card: Card) {
        card.gemHandles.update { ledger in
            for handle in handles where ledger.releaseImport(handle) && card.isOpen {
                _ = drmCloseBufferHandle(card.fd.rawValue, handle)
            }
        }
    }

    private static func addFramebuffer(_ plan: PrimeFramebufferPlan, handles: [UInt32], on card: Card) throws(DRMError) -> UInt32 {
        var handleList = [UInt32](repeating: 0, count: 4), pitches = handleList, offsets = handleList
        var modifiers = [UInt64](repeating: 0, count: 4)
        for (index, plane) in plan.planes.enumerated() {
            handleList[index] = handles[plane.object]
            pitches[index] = plane.pitch
            offsets[index] = plane.offset
            modifiers[index] = plane.modifier
        }
        var id: UInt32 = 0
        let flags: UInt32 = plan.usesModifiers ? UInt32(DRM_MODE_FB_MODIFIERS) : 0
        let result = drmModeAddFB2WithModifiers(card.fd.rawValue, UInt32(plan.size.width), UInt32(plan.size.height),
                                                plan.format.rawValue, handleList, pitches, offsets,
                                                plan.usesModifiers ? modifiers : nil, &id, flags)
        guard result == 0 else {
            let modifier = plan.usesModifiers ? String(format: " (modifier 0x%016llx)", plan.planes[0].modifier) : ""
            throw .callFailed(what: "registering a \(plan.size) \(plan.format)\(modifier) framebuffer of another device's frame",
                              call: "drmModeAddFB2WithModifiers", errno: errno)
        }
        return id
    }
}
