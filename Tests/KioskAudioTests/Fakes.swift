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

/// Plays like a device in real time (a NullSink underneath) and keeps what was written, and
/// when each write happened with how much was still queued: so the host time each frame is
/// heard at is known even when the writer thread was late and the device underran.
final class RecordingOutput: AudioOutput, @unchecked Sendable {
    // `recorded` is read by the test thread while the writer thread appends: guarded by `lock`.
    private let lock = NSLock()
    private let device: NullSink
    private var recorded: [UInt8] = []
    /// Per write: host time, index of its first frame, frames queued in the device before it.
    private var writes: [(host: Double, firstFrame: Int, queuedBefore: Int)] = []
    private var recordedCalls: [String] = []
    var calls: [String] { lock.lock(); defer { lock.unlock() }; return recordedCalls }

    init(bufferTime: Double = 0.040) { device = NullSink(name: "recording", bufferTime: bufferTime) }

    var deviceName: String { device.deviceName }
    var format: AudioFormat? { device.format }
    var counters: AudioOutputCounters { device.counters }
    var failure: AudioOutputError? { nil }
    // The test thread reads the queue while the writer thread pauses and resumes the device
    // (ThreadSanitizer found the race): both under `lock`.
    var delayFrames: Int { lock.lock(); defer { lock.unlock() }; return device.delayFrames }

    var bytes: [UInt8] { lock.lock(); defer { lock.unlock() }; return recorded }

    /// When frame `index` of the recording was heard: after what the device held when its
    /// write began, and the frames of the same write before it.
    func heardTime(ofFrame index: Int) -> Double? {
        lock.lock()
        defer { lock.unlock() }
        guard let write = writes.last(where: { $0.firstFrame <= index }), let rate = device.format?.sampleRate else { return nil }
        return write.host + Double(write.queuedBefore + index - write.firstFrame) / Double(rate)
    }

    func configure(_ requested: AudioFormat) throws -> AudioFormat { try device.configure(requested) }

    func write(_ frames: UnsafeRawBufferPointer) throws {
        lock.lock()
        let frameBytes = device.format!.bytesPerFrame
        writes.append((MonotonicClock().now(), recorded.count / frameBytes, device.delayFrames))
        recorded.append(contentsOf: frames)
        lock.unlock()
        try device.write(frames)
    }

    func waitForRoom(frames: Int, timeout: Double) throws { try device.waitForRoom(frames: frames, timeout: timeout) }
    func pause() throws { try locked { recordedCalls.append("pause"); try device.pause() } }
    func resume() throws { try locked { recordedCalls.append("resume"); try device.resume() } }
    func drop() throws { try locked { recordedCalls.append("drop"); try device.drop() } }

    private func locked(_ body: () throws -> Void) rethrows {
        lock.lock()
        defer { lock.unlock() }
        try body()
    }
    func drain() throws { try device.drain() }
    func recover() throws {}
    func close() {}
}
