import Glibc
import KioskCore

/// Records what would be played into a file, raw interleaved PCM or WAV, as fast as it is
/// written (no pacing, no delay): tests compare the recording with what went in, and
/// `kiosk` can dump the audio path's output for listening.
public final class FileSink: AudioOutput {
    public enum Container: Sendable, Hashable { case raw, wav }

    public let deviceName: String
    public let container: Container
    public private(set) var format: AudioFormat?
    public private(set) var counters = AudioOutputCounters()
    public private(set) var failure: AudioOutputError?
    private var descriptor: Int32 = -1
    private var dataBytes = 0

    public init(path: String, container: Container = .wav) {
        deviceName = path
        self.container = container
    }

    deinit { close() }

    public func configure(_ requested: AudioFormat) throws -> AudioFormat {
        close()
        let fd = open(deviceName, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw AudioOutputError.unavailable(device: deviceName, reason: String(cString: strerror(errno)))
        }
        descriptor = fd
        format = requested
        dataBytes = 0
        failure = nil
        if container == .wav {
            // Sizes are patched in on close; a reader of an unfinished file sees 0-length data.
            try writeAll(FileSink.wavHeader(format: requested, dataBytes: 0))
        }
        return requested
    }

    public func write(_ frames: UnsafeRawBufferPointer) throws {
        guard let format, descriptor >= 0 else { throw AudioOutputError.notConfigured(device: deviceName) }
        try writeAll(frames)
        dataBytes += frames.count
        counters.framesWritten += Int64(frames.count / format.bytesPerFrame)
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try writeAll($0) }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                let error = AudioOutputError.writeFailed(device: deviceName, reason: String(cString: strerror(errno)))
                if failure == nil { counters.failures += 1 }
                failure = error
                throw error
            }
            offset += written
        }
    }

    /// A file always has room.
    public func waitForRoom(frames: Int, timeout: Double) throws {}
    public var delayFrames: Int { 0 }
    public func pause() throws {}
    public func resume() throws {}
    public func drop() throws {}
    public func drain() throws {}
    public func recover() throws {}

    public func close() {
        guard descriptor >= 0 else { return }
        if container == .wav, let format {
            let header = FileSink.wavHeader(format: format, dataBytes: dataBytes)
            _ = header.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        Glibc.close(descriptor)
        descriptor = -1
    }

    /// A canonical 44-byte RIFF/WAVE header: PCM (tag 1) for integers, IEEE float (tag 3).
    static func wavHeader(format: AudioFormat, dataBytes: Int) -> [UInt8] {
        var header: [UInt8] = []
        func append(_ text: String) { header += Array(text.utf8) }
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { header += $0 } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { header += $0 } }
        append("RIFF"); append32(36 + dataBytes); append("WAVE")
        append("fmt "); append32(16)
        append16(format.sampleFormat == .float ? 3 : 1)
        append16(format.channels)
        append32(format.sampleRate)
        append32(format.sampleRate * format.bytesPerFrame)
        append16(format.bytesPerFrame)
        append16(format.sampleFormat.bytesPerSample * 8)
        append("data"); append32(dataBytes)
        return header
    }
}
