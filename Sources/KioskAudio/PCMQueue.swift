import Foundation
import KioskCore

/// A run of frames taken off a `PCMQueue`: where it sits on the media timeline.
public struct PCMSlice: Sendable, Hashable {
    public var frameCount: Int
    public var startTime: MediaTime
    public var rate: Rational
    public var itemTag: Int
    /// The queue's generation when the frames were taken (see `PCMQueue.flush`).
    public var generation: Int

    public func endTime(sampleRate: Int) -> MediaTime {
        startTime + MediaTime(value: Int64(frameCount), timescale: Int32(sampleRate)) * rate
    }
}

/// The bounded queue between the engine's audio thread (decode, resample, tempo: pushes
/// converted chunks) and the writer thread (pops a period at a time, applies the volume,
/// writes to the device). It holds converted samples so the writer never waits for the
/// decoder, and it is bounded so a fast decoder cannot run away from the device.
///
/// All state is guarded by `condition`'s lock, hence @unchecked Sendable.
public final class PCMQueue: @unchecked Sendable {
    public let format: AudioFormat
    /// Frames held before `push` blocks (a chunk may overshoot it once).
    public let capacityFrames: Int
    private let condition = NSCondition()
    private var chunks: [PCMChunk] = []
    private var head = 0
    /// Frames of the head chunk already taken.
    private var headOffset = 0
    private var queued = 0
    private var currentGeneration = 0
    private var closed = false

    /// `capacity` of converted sound, 0.5 s by default: rides over a slow packet read or a
    /// decoder hiccup at a seam.
    public init(format: AudioFormat, capacity: MediaTime = MediaTime(value: 1, timescale: 2)) {
        self.format = format
        capacityFrames = max(1, format.frames(in: capacity))
    }

    /// Bumped by every `flush`: chunks converted before a seek carry the old number and are
    /// refused.
    public var generation: Int { condition.lock(); defer { condition.unlock() }; return currentGeneration }

    public var queuedFrames: Int { condition.lock(); defer { condition.unlock() }; return queued }

    public var queuedDuration: MediaTime { format.duration(ofFrames: queuedFrames) }

    /// Adds `chunk`, waiting while the queue is full. Returns false, dropping the chunk, when
    /// the queue was flushed or closed meanwhile, or `generation` is not the current one.
    @discardableResult
    public func push(_ chunk: PCMChunk, generation: Int? = nil) -> Bool {
        precondition(chunk.bytes.count == chunk.frameCount * format.bytesPerFrame, "chunk size does not match the queue's format")
        condition.lock()
        defer { condition.unlock() }
        let expected = generation ?? currentGeneration
        while queued >= capacityFrames && !closed && expected == currentGeneration { condition.wait() }
        guard !closed, expected == currentGeneration else { return false }
        guard chunk.frameCount > 0 else { return true }
        chunks.append(chunk)
        queued += chunk.frameCount
        condition.broadcast()
        return true
    }

    /// Copies up to `maxFrames` frames (and no more than `buffer` holds) into `buffer`, from
    /// one chunk (so the slice has one start time and rate). Waits up to `timeout` seconds for
    /// frames; nil when none came or the queue is closed.
    public func pop(maxFrames: Int, into buffer: UnsafeMutableRawBufferPointer, timeout: Double) -> PCMSlice? {
        condition.lock()
        defer { condition.unlock() }
        if queued == 0 && !closed && timeout > 0 {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while queued == 0 && !closed {
                if !condition.wait(until: deadline) { break }
            }
        }
        guard queued > 0, !closed else { return nil }
        let chunk = chunks[head]
        let frameBytes = format.bytesPerFrame
        let count = min(maxFrames, chunk.frameCount - headOffset, buffer.count / frameBytes)
        guard count > 0 else { return nil }
        chunk.bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + headOffset * frameBytes, byteCount: count * frameBytes)
        }
        let slice = PCMSlice(frameCount: count, startTime: chunk.time(afterFrames: headOffset, sampleRate: format.sampleRate),
                             rate: chunk.rate, itemTag: chunk.itemTag, generation: currentGeneration)
        headOffset += count
        queued -= count
        if headOffset == chunk.frameCount {
            head += 1
            headOffset = 0
            // Compact now and then instead of removing from the front each time.
            if head >= 64 || head == chunks.count {
                chunks.removeFirst(head)
                head = 0
            }
        }
        condition.broadcast()
        return slice
    }

    /// Forgets everything queued (seeks) and refuses chunks of the old generation.
    @discardableResult
    public func flush() -> Int {
        condition.lock()
        defer { condition.unlock() }
        chunks.removeAll(keepingCapacity: true)
        head = 0
        headOffset = 0
        queued = 0
        currentGeneration += 1
        condition.broadcast()
        return currentGeneration
    }

    /// Wakes every waiter for good (shutdown).
    public func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
