import CFFmpeg
import Glibc
import CKioskShim
import KioskCore

/// Reads an HLS playlist's text through FFmpeg's own protocols (http, https, file: the ones
/// and the options the demuxer uses for the same URL), for `HLSRestartWatch`. A master
/// playlist is followed to its first variant (a packager's restart renumbers them all).
enum HLSPlaylistFetch {
    /// A playlist larger than this is not read (a live one is a few KB).
    static let maximumBytes = 1 << 20

    /// What a look found.
    enum Answer {
        case playlist(HLSPlaylist)
        /// The server says there is no such playlist (HTTP 404, or no such file): a packager
        /// restarting on an emptied folder has not written its first one yet. `variant`: the
        /// master's first variant, not the URL itself (FFmpeg may play another).
        case notThere(variant: Bool)
        /// Unreachable, not a playlist, too large, or past the deadline.
        case failed
    }

    /// The media playlist at `url`, `deadlineSeconds` set on `interrupt` for the fetch.
    static func mediaPlaylist(_ url: String, interrupt: InterruptFlag, deadlineSeconds: Double) -> Answer {
        interrupt.setDeadline(afterSeconds: deadlineSeconds)
        defer { interrupt.setDeadline(afterSeconds: nil) }
        let answer = read(url, interrupt: interrupt)
        guard case .playlist(let playlist) = answer, let variant = playlist.variants.first else { return answer }
        guard let variantURL = HLSPlaylist.resolve(variant, against: url) else { return .failed }
        switch read(variantURL, interrupt: interrupt) {
        case .playlist(let media) where media.variants.isEmpty: return .playlist(media)
        case .notThere: return .notThere(variant: true)
        default: return .failed
        }
    }

    private static func read(_ url: String, interrupt: InterruptFlag) -> Answer {
        var context: UnsafeMutablePointer<AVIOContext>?
        var callback = interrupt.callback
        var options = NetworkOpenOptions.dictionary(for: url)
        defer { av_dict_free(&options) }
        let opened = avio_open2(&context, url, AVIO_FLAG_READ, &callback, &options)
        if opened == kiosk_averror_http_not_found() || opened == kiosk_averror(ENOENT) { return .notThere(variant: false) }
        guard opened >= 0, context != nil else { return .failed }
        defer { avio_closep(&context) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while bytes.count <= maximumBytes {
            let count = chunk.withUnsafeMutableBufferPointer { avio_read(context, $0.baseAddress, Int32($0.count)) }
            // A read cut short is no playlist: its missing tail would read as segments gone.
            if count < 0 && count != kiosk_averror_eof() { return .failed }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[..<Int(count)])
        }
        guard bytes.count <= maximumBytes, !interrupt.isCancelled,
              let playlist = HLSPlaylist.parse(String(decoding: bytes, as: UTF8.self)) else { return .failed }
        return .playlist(playlist)
    }
}
