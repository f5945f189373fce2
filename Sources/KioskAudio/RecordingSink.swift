import KioskCore

/// Plays into nothing in real time (a `NullSink`, paced by the clock like a sound card) while
/// recording every sample into a file (`FileSink`): `--audio file:PATH` for headless tests and
/// benchmarks that need both the audio master clock and the recording.
public final class RecordingSink: AudioOutput {
    private let pacer: NullSink
    private let recorder: FileSink

    public init(path: String) {
        pacer = NullSink(name: "file:\(path)")
        recorder = FileSink(path: path, container: path.lowercased().hasSuffix(".wav") ? .wav : .raw)
    }

    public var deviceName: String { pacer.deviceName }
    public var format: AudioFormat? { recorder.format }
    public var counters: AudioOutputCounters { recorder.counters }
    public var failure: AudioOutputError? { recorder.failure }
    public var delayFrames: Int { pacer.delayFrames }

    public func configure(_ requested: AudioFormat) throws -> AudioFormat {
        let format = try recorder.configure(requested)
        return try pacer.configure(format)
    }

    public func write(_ frames: UnsafeRawBufferPointer) throws {
        try recorder.write(frames)
        try pacer.write(frames)
    }

    public func waitForRoom(frames: Int, timeout: Double) throws { try pacer.waitForRoom(frames: frames, timeout: timeout) }
    public func pause() throws { try pacer.pause() }
    public func resume() throws { try pacer.resume() }
    public func drop() throws { try pacer.drop() }
    public func drain() throws { try pacer.drain() }
    public func recover() throws { try pacer.recover() }

    public func close() {
        pacer.close()
        recorder.close()
    }
}
