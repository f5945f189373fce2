import Foundation
import KioskAudio
import KioskCore
import Testing

@Suite(.timeLimit(.minutes(1))) struct PCMQueueTests {
    static let format = AudioFormat(sampleFormat: .s16, sampleRate: 1000, channels: 1)

    /// `frames` frames whose samples count up from `first`.
    static func ramp(_ first: Int16, frames: Int, start: MediaTime, rate: Rational = .one, tag: Int = 0) -> PCMChunk {
        let samples = (0..<frames).map { first + Int16($0) }
        return PCMChunk(bytes: samples.withUnsafeBytes { Array($0) }, frameCount: frames, startTime: start, rate: rate, itemTag: tag)
    }

    static func pop(_ queue: PCMQueue, max: Int, timeout: Double = 0) -> (PCMSlice, [Int16])? {
        var samples = [Int16](repeating: 0, count: max)
        let slice = samples.withUnsafeMutableBytes { queue.pop(maxFrames: max, into: $0, timeout: timeout) }
        return slice.map { ($0, Array(samples.prefix($0.frameCount))) }
    }

    @Test func slicesCarryTheMediaTimeOfTheirFirstFrame() throws {
        let queue = PCMQueue(format: Self.format)
        queue.push(Self.ramp(0, frames: 25, start: MediaTime(value: 5, timescale: 1), rate: Rational(2, 1), tag: 3))
        queue.push(Self.ramp(100, frames: 10, start: MediaTime(value: 6, timescale: 1)))
        #expect(queue.queuedFrames == 35)
        #expect(queue.queuedDuration == MediaTime(value: 35, timescale: 1000))

        let (first, firstSamples) = try #require(Self.pop(queue, max: 10))
        #expect(firstSamples == Array(0..<10))
        #expect(first.startTime == MediaTime(value: 5, timescale: 1) && first.rate == Rational(2, 1) && first.itemTag == 3)
        let (second, _) = try #require(Self.pop(queue, max: 10))
        // 10 frames at rate 2 are 20 ms of media.
        #expect(second.startTime == MediaTime(value: 502, timescale: 100))
        let (third, thirdSamples) = try #require(Self.pop(queue, max: 10))
        #expect(third.frameCount == 5, "a slice never spans two chunks")
        #expect(thirdSamples == Array(20..<25))
        #expect(third.endTime(sampleRate: 1000) == MediaTime(value: 505, timescale: 100))
        let (fourth, fourthSamples) = try #require(Self.pop(queue, max: 10))
        #expect(fourth.startTime == MediaTime(value: 6, timescale: 1) && fourthSamples == Array(100..<110))
        #expect(Self.pop(queue, max: 10) == nil)
    }

    @Test func pushWaitsForRoomAndPopWaitsForFrames() throws {
        let queue = PCMQueue(format: Self.format, capacity: MediaTime(value: 1, timescale: 100))
        queue.push(Self.ramp(0, frames: 10, start: .zero))
        let pushed = DispatchSemaphore(value: 0)
        Thread { queue.push(Self.ramp(10, frames: 10, start: MediaTime(value: 1, timescale: 100))); pushed.signal() }.start()
        #expect(pushed.wait(timeout: .now() + 0.1) == .timedOut, "the queue is full: push waits")
        _ = Self.pop(queue, max: 10)
        #expect(pushed.wait(timeout: .now() + 2) == .success, "room made: push goes through")

        let started = Date()
        _ = Self.pop(queue, max: 10)
        #expect(Self.pop(queue, max: 10, timeout: 0.05) == nil)
        #expect(Date().timeIntervalSince(started) >= 0.045, "pop waited for its timeout")
    }

    @Test func flushEmptiesAndWakesAWaitingPusherWhoseChunkIsNowStale() throws {
        let queue = PCMQueue(format: Self.format, capacity: MediaTime(value: 1, timescale: 100))
        queue.push(Self.ramp(0, frames: 10, start: .zero))
        let result = ResultBox()
        let finished = DispatchSemaphore(value: 0)
        // The pusher converted its chunk for the position before the flush.
        let before = queue.generation
        Thread { result.set(queue.push(Self.ramp(10, frames: 10, start: .zero), generation: before)); finished.signal() }.start()
        Thread.sleep(forTimeInterval: 0.05)
        let generation = queue.flush()
        #expect(finished.wait(timeout: .now() + 2) == .success)
        #expect(result.value == false, "the waiting chunk belonged to the old position")
        #expect(queue.queuedFrames == 0 && queue.generation == generation)
        #expect(queue.push(Self.ramp(0, frames: 5, start: .zero), generation: generation))
    }

    @Test func closeWakesEveryone() {
        let queue = PCMQueue(format: Self.format)
        let finished = DispatchSemaphore(value: 0)
        Thread { _ = Self.pop(queue, max: 10, timeout: 30); finished.signal() }.start()
        Thread.sleep(forTimeInterval: 0.02)
        queue.close()
        #expect(finished.wait(timeout: .now() + 2) == .success)
        #expect(!queue.push(Self.ramp(0, frames: 5, start: .zero)))
    }
}

final class ResultBox: @unchecked Sendable {
    // Set on one thread, read on another after a semaphore: guarded by `lock`.
    private let lock = NSLock()
    private var stored: Bool?
    func set(_ value: Bool) { lock.lock(); stored = value; lock.unlock() }
    var value: Bool? { lock.lock(); defer { lock.unlock() }; return stored }
}

