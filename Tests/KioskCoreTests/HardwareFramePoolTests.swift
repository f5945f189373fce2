import KioskCore
import Testing

@Suite struct HardwareFramePoolTests {
    @Test func aPictureWeighsItsSamples() {
        #expect(HardwareFramePool.frameBytes(width: 1920, height: 1080, bitsPerSample: 8) == 3_110_400)
        #expect(HardwareFramePool.frameBytes(width: 3840, height: 2160, bitsPerSample: 10) == 24_883_200)
        #expect(HardwareFramePool.frameBytes(width: -1, height: 1080, bitsPerSample: 8) == 0)
    }

    /// 1080p: the queue's count binds (8 frames ahead before a prepare, 25 MB < 32 MB), then
    /// the decode thread's two and the display's three; 4K 10-bit: the budget binds at its
    /// floor of two.
    @Test func theQueueOrItsBudgetBindsAndTheDisplayAddsThree() {
        let hd = HardwareFramePool.frameBytes(width: 1920, height: 1080, bitsPerSample: 8)
        #expect(HardwareFramePool.framesHeld(queueCapacity: 8, budgetBytes: 32 << 20, frameBytes: hd) == 13)
        #expect(HardwareFramePool.framesHeld(queueCapacity: 16, budgetBytes: 32 << 20, frameBytes: hd) == 15)
        let uhd = HardwareFramePool.frameBytes(width: 3840, height: 2160, bitsPerSample: 10)
        #expect(HardwareFramePool.framesHeld(queueCapacity: 16, budgetBytes: 32 << 20, frameBytes: uhd) == 7)
        #expect(HardwareFramePool.framesHeld(queueCapacity: 16, budgetBytes: 64 << 20, frameBytes: uhd) == 7)
        #expect(HardwareFramePool.framesHeld(queueCapacity: 16, budgetBytes: 128 << 20, frameBytes: uhd) == 10)
        // A size the container does not say: the queue's count.
        #expect(HardwareFramePool.framesHeld(queueCapacity: 4, budgetBytes: 32 << 20, frameBytes: 0) == 9)
    }

    /// A queued frame weighs its shrunk 8-bit copy where the decode thread shrinks it, else the
    /// picture as the device keeps it (two bytes a sample above 8 bits): the pool is sized by
    /// it and a frame left on its device weighs no less (a 1080p P010 frame on a 1080p screen
    /// is 6.2 MB, not its 8-bit 3.1).
    @Test func aQueuedFrameWeighsItsCopyOrItsPicture() {
        let screen = [PixelSize(width: 1920, height: 1080)]
        let uhd = PixelSize(width: 3840, height: 2160), hd = PixelSize(width: 1920, height: 1080)
        #expect(HardwareFramePool.queuedFrameBytes(picture: uhd, deep: true, covering: screen) == 3_110_400)
        #expect(HardwareFramePool.queuedFrameBytes(picture: uhd, deep: false, covering: screen) == 3_110_400)
        #expect(HardwareFramePool.queuedFrameBytes(picture: hd, deep: true, covering: screen) == 6_220_800)
        #expect(HardwareFramePool.queuedFrameBytes(picture: hd, deep: false, covering: screen) == 3_110_400)
        #expect(HardwareFramePool.queuedFrameBytes(picture: uhd, deep: true, covering: []) == 24_883_200, "no screen: no shrink")
    }

    @Test func captureBuffersGrowFromFFmpegsDefaultToV4L2sCeiling() {
        #expect(HardwareFramePool.captureBuffers(held: 0) == 20)
        #expect(HardwareFramePool.captureBuffers(held: 7) == 27)
        #expect(HardwareFramePool.captureBuffers(held: 40) == 32)
        #expect(HardwareFramePool.captureBuffers(held: -3) == 20)
    }
}
