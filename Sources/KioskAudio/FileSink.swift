import Glibc
import KioskCore
import SystemPackage

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
    private var descriptor: FileDescriptor?
    private var dataBytes = 0

    public init(path: String, container: Container = .wav) {
        deviceName = path
        self.container = container
    }

    deinit { close() }

    public func configure(_ requested: AudioFormat) throws -> AudioFormat {
        close()
        do {
            descriptor = try FileDescriptor.open(deviceName, .writeOnly, options: [.create, .truncate, .closeOnExec],
                                                 permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw AudioOutputError.unavailable(device: deviceName, reason: Self.text(error))
        }
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
        guard let format, descriptor != nil else { throw AudioOutputError.notConfigured(device: deviceName) }
        try writeAll(frames)
        dataBytes += frames.count
        counters.framesWritten += Int64(frames.count / format.bytesPerFrame)
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try writeAll($0) }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        guard let descriptor else { throw AudioOutputError.notConfigured(device: deviceName) }
        do {
            _ = try descriptor.writeAll(bytes)   // short writes continued, EINTR retried
        } catch {
            let failed = AudioOutputError.writeFailed(device: deviceName, reason: Self.text(error))
            if failure == nil { counters.failures += 1 }
            failure = failed
            throw failed
        }
    }

    /// The errno text (strerror) for a failed call (what the messages said before typed descriptors).
    private static func text(_ error: any Error) -> String {
        guard let code = error as? Errno else { return "\(error)" }
        return code.description
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
        guard let descriptor else { return }
        if container == .wav, let format {
            let header = FileSink.wavHeader(format: format, dataBytes: dataBytes)
            _ = try? descriptor.writeAll(toAbsoluteOffset: 0, header)
        }
        try? descriptor.close()
        self.descriptor = nil
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
