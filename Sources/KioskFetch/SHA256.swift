import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// SHA-256 with libavutil's `av_sha` (FFmpeg is linked already; no new library for a hash).
/// Fed as bytes are written, so a download is verified without reading it again.
public final class SHA256 {
    private var context: OpaquePointer?

    public init() {
        context = av_sha_alloc()
        av_sha_init(context, 256)
    }

    deinit { av_free(UnsafeMutableRawPointer(context)) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        av_sha_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    public func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    /// The digest as 64 lowercase hex digits; the hasher is spent after this.
    public func finalHex() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        av_sha_final(context, &digest)
        let hex = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(64)
        for byte in digest { text.append(hex[Int(byte >> 4)]); text.append(hex[Int(byte & 15)]) }
        return String(decoding: text, as: UTF8.self)
    }

    /// Feeds the first `length` bytes of the file at `path` (a partial being resumed); false
    /// when they cannot all be read.
    public func update(fileAt path: String, length: Int64) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var left = length
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while left > 0 {
            let wanted = Int(min(Int64(buffer.count), left))
            let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, wanted) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return false }
            buffer.withUnsafeBytes { update(UnsafeRawBufferPointer(rebasing: $0[0..<got])) }
            left -= Int64(got)
        }
        return true
    }

    /// The hash of a whole file, nil when it cannot be read.
    public static func hexOfFile(at path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let hasher = SHA256()
        return hasher.update(fileAt: path, length: Int64(info.st_size)) ? hasher.finalHex() : nil
    }
}
