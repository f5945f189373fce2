import Foundation
import KioskCore
import KioskMedia
import KioskTestSupport
import Testing
@testable import KioskPlayer

/// `playback.frame_memory`: an item's frame queue counts bytes as well as frames, so 4K frames
/// (12-25 MB each) are not queued four deep on a small box, and never fewer than two.
@Suite struct FrameMemoryTests {
    /// A queue of weights as their own sizes: 10 bytes, always 2, at most 4.
    static func queue() -> BoundedQueue<Int> {
        BoundedQueue(capacity: 4, budget: .init(bytes: 10, minimumCount: 2) { $0 })
    }

    /// Pushes `value` on a thread of its own; the flag says when the push returned.
    static func pushInBackground(_ value: Int, to queue: BoundedQueue<Int>) -> Flag {
        let done = Flag()
        Thread.detachNewThread {
            queue.push(value)
            done.set()
        }
        return done
    }

    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }

    @Test func twoAreQueuedWhateverTheyWeighAndTheBudgetHoldsTheThird() {
        let queue = Self.queue()
        queue.push(8)
        queue.push(8)   // over the budget, but the minimum holds two
        #expect(queue.count == 2 && queue.bytes == 16)
        let third = Self.pushInBackground(1, to: queue)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!third.isSet, "16 bytes queued: a third waits however light")
        #expect(queue.pop() == 8)
        #expect(waitUntil(20) { third.isSet }, "one popped: below the minimum again")
        #expect(queue.count == 2 && queue.bytes == 9)
    }

    @Test func lightElementsFillTheCountAndAFlushEmptiesTheBytes() {
        let queue = Self.queue()
        for value in [1, 2, 3, 4] { queue.push(value) }   // 10 bytes: within the budget
        #expect(queue.count == 4 && queue.bytes == 10)
        let fifth = Self.pushInBackground(0, to: queue)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!fifth.isSet, "four is the most, whatever they weigh")
        queue.flush()
        #expect(waitUntil(20) { fifth.isSet })
        #expect(queue.count == 1 && queue.bytes == 0)
    }

    /// Before the next item is opened, the playing one queues more frames ahead: a producer
    /// waiting on the full queue goes on at once, and the byte budget still bounds it.
    @Test func aRaisedCapacityWakesTheWaitingProducerWithinTheBudget() {
        let queue = Self.queue()
        for value in [1, 1, 1, 1] { queue.push(value) }
        let fifth = Self.pushInBackground(1, to: queue)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!fifth.isSet, "four is the most until raised")
        queue.setCapacity(8)
        #expect(waitUntil(20) { fifth.isSet }, "raised to eight: room for a fifth")
        #expect(queue.count == 5 && queue.capacity == 8)
        let heavy = Self.pushInBackground(6, to: queue)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!heavy.isSet, "5 bytes queued: 6 more would pass the 10-byte budget")
        queue.flush()
        #expect(waitUntil(20) { heavy.isSet })
    }

    /// 1080p frames are ~3 MB: a 4M budget queues two, the default 32M four.
    @Test func anItemsQueueHoldsWhatItsBudgetAllows() throws {
        let clip = try MediaFixtures.clip("frame-memory-1080p.mp4", ["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=25:duration=2",
                                                                     "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
        var tight = ItemPlan(source: clip)
        tight.frameMemory = 4 << 20
        let small = ItemPipeline(plan: tight, logger: CapturedLog().logger)
        defer { small.close() }
        let roomy = ItemPipeline(plan: ItemPlan(source: clip), logger: CapturedLog().logger)
        defer { roomy.close() }
        #expect(waitUntil(60) { roomy.frames.count == 4 }, "the default budget: four 1080p frames")
        #expect(roomy.frames.bytes == 4 * 1920 * 1080 * 3 / 2)
        #expect(waitUntil(60) { small.frames.count == 2 }, "4M: two frames")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(small.frames.count == 2, "the decoder has more, but they wait")
        #expect(small.frames.bytes == 2 * 1920 * 1080 * 3 / 2)
    }

    /// A video for a screen a quarter its size each side is queued at the screen's size
    /// (`ItemPlan.videoScreens`, `DecodeShrink`): four 480x270 frames, not four 1080p ones.
    @Test func framesLargerThanTheScreenAreQueuedAtItsSize() throws {
        let clip = try MediaFixtures.clip("frame-memory-1080p.mp4", ["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=25:duration=2",
                                                                     "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
        var plan = ItemPlan(source: clip)
        plan.videoScreens = [PixelSize(width: 480, height: 270)]
        let pipeline = ItemPipeline(plan: plan, logger: CapturedLog().logger)
        defer { pipeline.close() }
        #expect(waitUntil(60) { pipeline.frames.count == 4 })
        #expect(pipeline.frames.bytes == 4 * 480 * 270 * 3 / 2)
    }
}
