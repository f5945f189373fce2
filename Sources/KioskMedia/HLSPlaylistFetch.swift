import CFFmpeg
import Glibc
import CKioskShim
import KioskCore

/// Reads an HLS playlist's text through FFmpeg's own protocols (http, https, file: the ones
/// and the options the demuxer uses for the same URL), for `HLSRestartWatch`. A master
/// playlist is followed to the variant FFmpeg plays where its bandwidth tells it, else to its
/// first (a packager's restart renumbers them all).
enum HLSPlaylistFetch {
    /// A playlist larger than this is not read (a live one is a few KB).
    static let maximumBytes = 1 << 20

    /// What a look found.
    enum Answer {
        case playlist(HLSPlaylist)
        /// The server says there is no such playlist (HTTP 404, or no such file): a packager
        /// restarting on an emptied folder has not written its first one yet. `variant`: a
        /// master's variant, not the URL itself (FFmpeg's open plays another when one fails).
        case notThere(variant: Bool)
        /// Unreachable, not a playlist, too large, or past the deadline.
        case failed
    }

    /// The media playlist at `url`, `deadlineSeconds` set on `interrupt` for the fetch; of a
    /// master, the variant whose `BANDWIDTH` is `variantBandwidth` (the one FFmpeg plays), else
    /// the first.
    static func mediaPlaylist(_ url: String, variantBandwidth: Int? = nil, interrupt: InterruptFlag,
                              deadlineSeconds: Double) -> Answer {
        interrupt.setDeadline(afterSeconds: deadlineSeconds)
        defer { interrupt.setDeadline(afterSeconds: nil) }
        let (answer, location) = read(url, interrupt: interrupt)
        guard case .playlist(let playlist) = answer, let variant = playlist.variant(bandwidth: variantBandwidth) else { return answer }
        // Against where the master was found: a redirect (a CDN's edge) moves its base, as it
        // does for FFmpeg's demuxer.
        guard let variantURL = HLSPlaylist.resolve(variant, against: location) else { return .failed }
        switch read(variantURL, interrupt: interrupt).answer {
        case .playlist(let media) where media.variants.isEmpty: return .playlist(media)
        case .notThere: return .notThere(variant: true)
        default: return .failed
        }
    }

    /// What `url` holds, and where it was found after the redirects followed (http's
    /// `location` option; `url` itself for other protocols).
    private static func read(_ url: String, interrupt: InterruptFlag) -> (answer: Answer, location: String) {
        var context: UnsafeMutablePointer<AVIOContext>?
        var callback = interrupt.callback
        var options = NetworkOpenOptions.dictionary(for: url)
        defer { av_dict_free(&options) }
        let opened = avio_open2(&context, url, AVIO_FLAG_READ, &callback, &options)
        if opened == kiosk_averror_http_not_found() || opened == kiosk_averror(ENOENT) { return (.notThere(variant: false), url) }
        guard opened >= 0, let open = context else { return (.failed, url) }
        defer { avio_closep(&context) }
        var location: UnsafeMutablePointer<UInt8>?
        defer { av_free(location) }
        var found = url
        if av_opt_get(UnsafeMutableRawPointer(open), "location", AV_OPT_SEARCH_CHILDREN, &location) >= 0,
           let location, location.pointee != 0 {
            found = String(cString: location)
        }
        return (contents(of: open, interrupt: interrupt), found)
    }

    private static func contents(of context: UnsafeMutablePointer<AVIOContext>, interrupt: InterruptFlag) -> Answer {
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
