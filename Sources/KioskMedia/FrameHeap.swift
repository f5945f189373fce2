import CKioskShim
import Glibc

/// How the C heap holds decoded pictures, set once at start (issue 33).
///
/// glibc serves a block of 128 KiB or more from its own mapping, but raises that threshold to
/// the size of each such block freed (up to 32 MiB). A player frees its first decoded frame
/// buffers within seconds, so from then on every picture (a 4K 10-bit frame is 25 MB, 1080p
/// 3 MB) came from the heap, and what an item's decoder left there when it closed stayed
/// mapped, in pieces the next item's sizes did not fit. Measured, 4K HEVC 10-bit, two items
/// looping: between seams RSS crept 366 -> 402 -> 458 -> 467 -> 493 MB over four seams, the
/// peak 695 MB; with the threshold held at 1 MiB it stayed at 355-374 MB, the peak 615 MB.
/// FFmpeg pools the buffers a decoder keeps reusing, so only their first allocation pays the
/// mapping; the frames the decode thread makes itself come from pools too (`FramePool`).
public enum FrameHeap {
    /// Blocks this large or larger get a mapping of their own, returned to the system when
    /// freed: a 1080p picture's luma plane (2 MB) and every plane of a 4K one; smaller planes
    /// (a 720p luma plane is 0.9 MB, 1080p chroma 0.5 MB) stay in the heap, as packets do.
    public static let ownMappingFrom = 1 << 20

    /// Holds glibc's mmap threshold at `ownMappingFrom`, unless the environment already sets one
    /// (`MALLOC_MMAP_THRESHOLD_`, or `glibc.malloc.mmap_threshold` in `GLIBC_TUNABLES`: an
    /// integrator's measured choice wins). Returns whether it set it.
    @discardableResult
    public static func holdMappingThreshold() -> Bool {
        var environment: [String: String] = [:]
        for name in ["MALLOC_MMAP_THRESHOLD_", "GLIBC_TUNABLES"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        guard !environmentSetsThreshold(environment) else { return false }
        return kiosk_hold_mmap_threshold(Int32(ownMappingFrom)) == 1
    }

    /// Whether glibc gave `block` (from malloc) a mapping of its own (tests).
    static func isMapped(_ block: UnsafeRawPointer) -> Bool { kiosk_heap_block_is_mapped(block) != 0 }

    static func environmentSetsThreshold(_ environment: [String: String]) -> Bool {
        if environment["MALLOC_MMAP_THRESHOLD_"] != nil { return true }
        return environment["GLIBC_TUNABLES"]?.contains("glibc.malloc.mmap_threshold") ?? false
    }
}
