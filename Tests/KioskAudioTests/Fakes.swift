import Foundation
import KioskAudio
import KioskCore
import Logging

/// Time that only moves when someone sleeps: a minute of backoff in microseconds.
final class FakeClock: HostClock, @unchecked Sendable {
    // Guarded by `lock`: the writer thread sleeps while the test thread reads.
    private let lock = NSLock()
    private var time: Double

    init(start: Double = 1000) { time = start }

    func now() -> Double { lock.lock(); defer { lock.unlock() }; return time }
    func sleep(seconds: Double) { lock.lock(); if seconds > 0 { time += seconds }; lock.unlock() }
    func advance(_ seconds: Double) { sleep(seconds: seconds) }
}

/// An output that works or fails as a test says: opening fails while `failOpen` is true,
/// writing fails (with `writeError`) once `writesBeforeFailing` writes succeeded.
final class ScriptedOutput: AudioOutput {
    let deviceName: String
    var format: AudioFormat?
    var counters = AudioOutputCounters()
    var failure: AudioOutputError?
    var failOpen: AudioOutputError?
    var negotiate: (AudioFormat) -> AudioFormat = { $0 }
    var writesBeforeFailing = Int.max
    var writeError = AudioOutputError.disconnected(device: "scripted", reason: "No such device")
    private(set) var closed = false
    private(set) var calls: [String] = []

    init(name: String = "scripted") { deviceName = name }

    func configure(_ requested: AudioFormat) throws -> AudioFormat {
        calls.append("configure")
        if let failOpen { throw failOpen }
        format = negotiate(requested)
        return format!
    }

    func write(_ frames: UnsafeRawBufferPointer) throws {
        guard let format else { throw AudioOutputError.notConfigured(device: deviceName) }
        if writesBeforeFailing <= 0 {
            failure = writeError
            throw writeError
        }
        writesBeforeFailing -= 1
        counters.framesWritten += Int64(frames.count / format.bytesPerFrame)
    }

    var delayFrames: Int { 0 }
    func waitForRoom(frames: Int, timeout: Double) throws {}
    func pause() throws { calls.append("pause") }
    func resume() throws { calls.append("resume") }
    func drop() throws { calls.append("drop") }
    func drain() throws { calls.append("drain") }
    func recover() throws { calls.append("recover") }
    func close() { closed = true }
}

/// The device's clock, keeping its latest reading, so the recording knows the exact host times
/// the device itself used. Only touched under RecordingOutput's lock, under which every call
/// into the device is made.
final class ReadingClock: HostClock, @unchecked Sendable {
    private(set) var last = 0.0
    func now() -> Double { last = MonotonicClock().now(); return last }
    func sleep(seconds: Double) { MonotonicClock().sleep(seconds: seconds) }
}

/// Plays like a device in real time (a NullSink underneath) and keeps what was written, and
/// when each write's first frame is heard by the device's own clock: so the host time each
/// frame is heard at is known exactly, even when the writer thread was late and the device
/// underran. Every read of `delayFrames` is kept with the host time the device read it at.
final class RecordingOutput: AudioOutput, @unchecked Sendable {
    // `recorded` is read by the test thread while the writer thread appends: guarded by `lock`,
    // and so is every call into the device (its clock readings are read back under the lock).
    private let lock = NSLock()
    private let clock = ReadingClock()
    private let device: NullSink
    private var recorded: [UInt8] = []
    /// Per write: host time the device started it at (its first frame heard then), index of
    /// that first frame.
    private var writes: [(start: Double, firstFrame: Int)] = []
    private var delayReads: [DelayRead] = []
    private var recordedCalls: [String] = []
    var calls: [String] { lock.lock(); defer { lock.unlock() }; return recordedCalls }

    /// One answer of `delayFrames`: the frames, and the device's clock when it counted them.
    struct DelayRead { let hostTime: Double; let frames: Int }

    init(bufferTime: Double = 0.040) { device = NullSink(name: "recording", bufferTime: bufferTime, clock: clock) }

    var deviceName: String { device.deviceName }
    var format: AudioFormat? { device.format }
    var counters: AudioOutputCounters { device.counters }
    var failure: AudioOutputError? { nil }
    var delayFrames: Int {
        lock.lock()
        defer { lock.unlock() }
        let frames = device.delayFrames
        delayReads.append(DelayRead(hostTime: clock.last, frames: frames))
        return frames
    }

    var bytes: [UInt8] { lock.lock(); defer { lock.unlock() }; return recorded }

    /// When frame `index` of the recording was heard: the start of its write, then the frames of
    /// the same write before it.
    func heardTime(ofFrame index: Int) -> Double? {
        lock.lock()
        defer { lock.unlock() }
        guard let write = writes.last(where: { $0.firstFrame <= index }), let rate = device.format?.sampleRate else { return nil }
        return write.start + Double(index - write.firstFrame) / Double(rate)
    }

    /// The delay read a clock report was made from: the writer reads the delay and then the host
    /// time, so it is the last read with `frames` at or before `hostTime`.
    func delayRead(before hostTime: Double, frames: Int) -> DelayRead? {
        lock.lock()
        defer { lock.unlock() }
        return delayReads.last { $0.hostTime <= hostTime && $0.frames == frames }
    }

    /// Host times at which writes started, for checking that none came between a delay read
    /// and the report made from it.
    var writeStarts: [Double] { lock.lock(); defer { lock.unlock() }; return writes.map(\.start) }

    func configure(_ requested: AudioFormat) throws -> AudioFormat { try locked { try device.configure(requested) } }

    func write(_ frames: UnsafeRawBufferPointer) throws {
        // Under the lock although the device may sleep for room (up to a write's length): the
        // clock's readings must be the device's, not another thread's.
        lock.lock()
        defer { lock.unlock() }
        let rate = Double(device.format!.sampleRate)
        let firstFrame = recorded.count / device.format!.bytesPerFrame
        let queued = device.delayFrames
        let queuedEnd = clock.last + Double(queued) / rate
        recorded.append(contentsOf: frames)
        try device.write(frames)
        // The device read its clock once in write (then maybe slept): the frames follow what it
        // still held then, or start at that reading if it had run dry (NullSink's own rule).
        writes.append((Swift.max(queuedEnd, clock.last), firstFrame))
    }

    func waitForRoom(frames: Int, timeout: Double) throws { try locked { try device.waitForRoom(frames: frames, timeout: timeout) } }
    func pause() throws { try locked { recordedCalls.append("pause"); try device.pause() } }
    func resume() throws { try locked { recordedCalls.append("resume"); try device.resume() } }
    func drop() throws { try locked { recordedCalls.append("drop"); try device.drop() } }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
    func drain() throws { try locked { try device.drain() } }
    func recover() throws {}
    func close() {}
}
