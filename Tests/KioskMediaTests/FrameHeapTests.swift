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
    /// picture of that size came from the heap (where a closed item's frames stayed).
    @Test func aPictureFreedAndAllocatedAgainGetsAMappingEachTime() throws {
        #expect(FrameHeap.holdMappingThreshold())
        let size = 3 << 20   // a 1080p frame
        for round in 0..<3 {
            let before = FrameHeap.mappedBytes
            let block = try #require(malloc(size))
            memset(block, 1, size)
            let mapped = FrameHeap.mappedBytes - before
            free(block)
            #expect(mapped >= size, "round \(round): \(mapped) bytes of a \(size)-byte block in its own mapping")
            #expect(FrameHeap.mappedBytes - before < size, "round \(round): the mapping is given back when freed")
        }
    }
}
