/// A picture in another device's memory that travels with a decoded frame: what a hardware
/// decoder's DRM PRIME frame carries (or the simulated decoder's, `kiosk play
/// --simulate-prime-decoder`). The zero-copy path shows it as it is; every other path uses the
/// frame's pixels in memory.
public struct PrimePicture: @unchecked Sendable {
    // `owner` is only kept, never used: safe wherever the frame goes.
    public let descriptor: PrimeFrameDescriptor
    /// Keeps the memory (a decoder's surface, a heap buffer) alive while a display may show it.
    public let owner: AnyObject
    /// The matrix the plane is told (the one the CPU path would convert the frame with).
    public let matrix: YUVMatrix

    public init(descriptor: PrimeFrameDescriptor, owner: AnyObject, matrix: YUVMatrix) {
        self.descriptor = descriptor; self.owner = owner; self.matrix = matrix
    }
}

/// The zero-copy path's display half, a capability beside `DirectVideoOutput`: a picture in
/// another device's memory imported and scanned out on the video plane, no pixel copied.
public protocol PrimeScanoutOutput: AnyObject {
    /// The plane a picture of DRM format `format`, its memory laid out as `modifier` says, on
    /// screen as `layout` says, goes on, or why none.
    func preparePrimeScanout(format: FourCC, modifier: UInt64, layout: GravityLayout) -> DirectScanoutAnswer
    /// Imports `picture`, shows it on `scanout` (TEST_ONLY the first time a configuration is
    /// used) with the layers' plane as `layers` says, keeps `picture.owner` until a later flip
    /// has replaced it; the flip's CLOCK_MONOTONIC seconds.
    func presentPrime(_ picture: PrimePicture, on scanout: PlaneScanout, layers: LayerPlaneChange) throws -> Double
}
