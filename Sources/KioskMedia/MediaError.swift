import CFFmpeg
import CKioskShim
import KioskCore

/// A media file kiosk cannot use, and why, in words a signage integrator can act on.
/// `description` is the one line the CLI prints: `PATH: REASON`.
public struct MediaError: Error, CustomStringConvertible, Sendable, Equatable {
    public let source: String
    public let reason: String

    public init(source: String, reason: String) {
        self.source = source
        self.reason = reason
    }

    /// A URL's credentials are masked: this text goes to logs and events.
    public var description: String { "\(NetworkURL.masked(source)): \(reason)" }
}

/// FFmpeg's text for an AVERROR code, as av_err2str would give (a macro Swift cannot import).
func ffmpegErrorText(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    if av_strerror(code, &buffer, buffer.count) < 0 {
        return "FFmpeg error \(code)"
    }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// The calling thread's first error line from FFmpeg's log since the last clear (see `kiosk_av_first_error`), if any.
func ffmpegFirstError() -> String? {
    let text = String(cString: kiosk_av_first_error())
    return text.isEmpty ? nil : text
}

enum AVResult {
    static let eof = kiosk_averror_eof()
    static let again = kiosk_averror_eagain()
}
