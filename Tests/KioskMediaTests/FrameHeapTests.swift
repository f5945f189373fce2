import Glibc
import Testing
@testable import KioskMedia

/// kiosk holds glibc's mmap threshold at 1 MiB (decoded pictures in mappings of their own, given
/// back when an item closes) unless the environment already chose one.
@Suite struct FrameHeapTests {
    @Test func anIntegratorsOwnThresholdWins() {
        #expect(FrameHeap.environmentSetsThreshold(["MALLOC_MMAP_THRESHOLD_": "131072"]))
        #expect(FrameHeap.environmentSetsThreshold(["GLIBC_TUNABLES": "glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=65536"]))
        #expect(!FrameHeap.environmentSetsThreshold(["GLIBC_TUNABLES": "glibc.malloc.arena_max=2"]))
        #expect(!FrameHeap.environmentSetsThreshold([:]))
    }

    /// Left to itself, glibc raised the threshold to a freed mapping's size, and the next
    /// picture of that size came from the heap (where a closed item's frames stayed). Each
    /// block is asked itself whether it is mapped (its chunk header), as the other tests
    /// allocate and free beside this one. A block the heap's free lists can serve is served
    /// from them whatever the threshold, and this process's heap holds the other tests' frames
    /// (kiosk holds the threshold before its first allocation): hence 30 MiB, more than any of
    /// theirs, and under the 32 MiB where glibc's own raising stops.
    @Test func aPictureFreedAndAllocatedAgainGetsAMappingEachTime() throws {
        #expect(FrameHeap.holdMappingThreshold())
        let size = 30 << 20
        for round in 0..<3 {
            let block = try #require(malloc(size))
            memset(block, 1, size)
            let mapped = FrameHeap.isMapped(block)
            free(block)
            #expect(mapped, "round \(round): a \(size)-byte block came from the heap")
        }
    }
}
