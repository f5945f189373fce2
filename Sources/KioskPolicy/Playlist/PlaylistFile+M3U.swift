import Foundation

/// `.m3u`/`.m3u8` as VLC, Winamp, foobar2000 and CMS exports write it: one media path or URL
/// per line, `#EXTINF:seconds,title` before an entry, other `#` lines ignored. An HLS stream's
/// playlist (any `#EXT-X-` tag) is not one: FFmpeg plays that as a stream.
extension PlaylistFile {
    /// The entries of `bytes`; nil when they are an HLS stream's playlist.
    static func parseM3U(_ bytes: [UInt8]) -> PlaylistFile? {
        if holdsStreamTags(bytes) { return nil }
        var playlist = PlaylistFile(format: .m3u)
        var pending: (title: String?, seconds: Double?)?
        for (offset, raw) in lines(of: bytes).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                if line.uppercased().hasPrefix("#EXT-X-") { return nil }
                if line.uppercased().hasPrefix("#EXTINF:") { pending = extinf(line.dropFirst("#EXTINF:".count)) }
                continue
            }
            if playlist.isFull { break }
            playlist.entries.append(Entry(location: line, title: pending?.title, seconds: pending?.seconds, line: offset + 1))
            pending = nil
        }
        return playlist
    }

    /// `-1 tvg-name="a, b",The Title`: the seconds before the first space or comma, the title
    /// after the first comma outside quotes (attributes may hold commas, titles too).
    static func extinf(_ text: Substring) -> (title: String?, seconds: Double?) {
        let number = text.prefix { $0 != "," && !$0.isWhitespace }
        let seconds = plausibleSeconds(Double(number))
        var quoted = false
        var title: String?
        for index in text.indices {
            if text[index] == "\"" { quoted.toggle() }
            if text[index] == ",", !quoted {
                title = text[text.index(after: index)...].trimmingCharacters(in: .whitespaces)
                break
            }
        }
        return (title?.isEmpty == false ? title : nil, seconds)
    }

    /// An HLS playlist's tags (uppercase, as RFC 8216 writes them) anywhere in `bytes`: looked
    /// for before the lines are split, so a stream's playlist is not read line by line.
    static func holdsStreamTags(_ bytes: [UInt8]) -> Bool {
        let tag = Array("#EXT-X-".utf8)
        guard bytes.count >= tag.count else { return false }
        var index = 0
        while let at = bytes[index...].firstIndex(of: tag[0]), at + tag.count <= bytes.count {
            if bytes[at..<at + tag.count].elementsEqual(tag) { return true }
            index = at + 1
        }
        return false
    }
}
