/// Who holds each GEM handle of one open card. The kernel gives one handle per buffer per file
/// descriptor: every `drmPrimeFDToHandle` of the same dma-buf returns the same number, and so
/// does importing a dma-buf exported from one of kiosk's own dumb buffers; one `GEM_CLOSE`
/// drops the handle whatever the number of imports. So imports are counted (mpv's drm_prime
/// handle table does the same), the handle is closed with the last release, and a handle that
/// is also kiosk's own buffer is closed by whichever of the two lets go of it last: never twice,
/// never while the other still uses it (a closed number is handed out again for the next buffer).
public struct GEMHandleLedger: Sendable, Equatable {
    private var imports: [UInt32: Int] = [:]
    private var created: Set<UInt32> = []

    public init() {}

    /// Kiosk created a buffer with this handle (a dumb buffer).
    public mutating func noteCreated(_ handle: UInt32) { created.insert(handle) }

    /// Kiosk is done with a buffer it created: true when the handle is to be closed (destroyed)
    /// now; false while imports still use it (then the last import's release closes it).
    public mutating func destroyCreated(_ handle: UInt32) -> Bool {
        created.remove(handle)
        return imports[handle] == nil
    }

    /// An import returned `handle` (a new one, or one already held).
    public mutating func noteImported(_ handle: UInt32) { imports[handle, default: 0] += 1 }

    /// One import of `handle` is released: true when the handle is to be closed now. A handle
    /// this ledger never saw imported is never closed.
    public mutating func releaseImport(_ handle: UInt32) -> Bool {
        guard let count = imports[handle] else { return false }
        if count > 1 {
            imports[handle] = count - 1
            return false
        }
        imports[handle] = nil
        return !created.contains(handle)
    }

    /// Imports not yet released, counted per import.
    public var openImports: Int { imports.values.reduce(0, +) }
    /// Handles held by imports.
    public var importedHandles: Int { imports.count }
    public func imports(of handle: UInt32) -> Int { imports[handle] ?? 0 }
    /// A buffer kiosk created holds the handle.
    public func isCreated(_ handle: UInt32) -> Bool { created.contains(handle) }
}
