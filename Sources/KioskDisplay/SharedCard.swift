import Foundation
import KioskCore

/// One DRM card driving several screens (`displays:` with two connectors of one card): KMS
/// allows one master per card, so the card is opened once, its descriptor and master shared by
/// every `DRMDisplay` on it. Each screen keeps its own CRTC, buffers and page flips; the flip
/// events of all of them arrive on the one descriptor, and `events` lets each waiter take its
/// own (whoever reads one hands it to the waiter its user data names). Given back (master
/// dropped, descriptor closed) when the last screen on it closes.
public final class SharedCard: @unchecked Sendable {
    // Safe to share: `users` and `claimedCRTCs` are only touched with `lock` held; the card's
    // event reading is serialized by `events`.
    let card: Card
    let events = NSLock()
    private let lock = NSLock()
    private var users = 0
    private var claimedCRTCs: Set<UInt32> = []

    /// Opens `path` (/dev/dri/cardN or cardN) and becomes its master.
    public init(path: String, api: DRMDisplayOptions.API = .auto,
                deviceDirectory: String = DRMDevices.defaultDirectory) throws(DRMError) {
        card = try Card(path: DRMDevices.resolve(path, in: deviceDirectory), wantAtomic: api != .legacy)
        try card.becomeMaster()
    }

    public var path: String { card.path }

    /// CRTCs other screens on this card drive: a new screen must take another.
    var busyCRTCs: Set<UInt32> { lock.withLock { claimedCRTCs } }

    func claim(crtc: UInt32) { lock.withLock { users += 1; claimedCRTCs.insert(crtc) } }

    /// A screen on it closed; the last one gives the card back.
    func release(crtc: UInt32) {
        let last = lock.withLock { () -> Bool in
            claimedCRTCs.remove(crtc)
            users -= 1
            return users == 0
        }
        if last { close() }
    }

    /// Drops master and closes the card; what still holds it fails its next call (EBADF).
    public func close() {
        card.dropMaster()
        card.close()
    }
}
