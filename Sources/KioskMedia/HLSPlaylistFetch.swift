import CFFmpeg
import CKioskShim
import KioskCore

/// Reads an HLS playlist's text through FFmpeg's own protocols (http, https, file: the ones
/// and the options the demuxer uses for the same URL), for `HLSRestartWatch`. A master
/// playlist is followed to its first variant (a packager's restart renumbers them all).
enum HLSPlaylistFetch {
    /// A playlist larger than this is not read (a live one is a few KB).
    static let maximumBytes = 1 << 20

    /// The media playlist at `url`, or nil (unreachable, not a playlist, too large, or past
    /// `deadlineSeconds`, set on `interrupt` for the fetch).
    static func mediaPlaylist(_ url: String, interrupt: InterruptFlag, deadlineSeconds: Double) -> HLSPlaylist? {
        interrupt.setDeadline(afterSeconds: deadlineSeconds)
        defer { interrupt.setDeadline(afterSeconds: nil) }
        guard let text = read(url, interrupt: interrupt), let playlist = HLSPlaylist.parse(text) else { return nil }
        guard let variant = playlist.variants.first else { return playlist }
        guard let variantURL = HLSPlaylist.resolve(variant, against: url), let text = read(variantURL, interrupt: interrupt),
              let media = HLSPlaylist.parse(text), media.variants.isEmpty else { return nil }
        return media
    }

    private static func read(_ url: String, interrupt: InterruptFlag) -> String? {
        var context: UnsafeMutablePointer<AVIOContext>?
        var callback = interrupt.callback
        var options = NetworkOpenOptions.dictionary(for: url)
        defer { av_dict_free(&options) }
        guard avio_open2(&context, url, AVIO_FLAG_READ, &callback, &options) >= 0, context != nil else { return nil }
        defer { avio_closep(&context) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while bytes.count <= maximumBytes {
            let count = chunk.withUnsafeMutableBufferPointer { avio_read(context, $0.baseAddress, Int32($0.count)) }
            // A read cut short is no playlist: its missing tail would read as segments gone.
            if count < 0 && count != kiosk_averror_eof() { return nil }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[..<Int(count)])
        }
        guard bytes.count <= maximumBytes, !interrupt.isCancelled else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
