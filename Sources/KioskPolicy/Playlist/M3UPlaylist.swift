import Foundation

/// A playlist file (`.m3u`, `.m3u8`) as VLC, Winamp, foobar2000 and CMS exports write it: one
/// media path or URL per line, `#EXTINF:seconds,title` before an entry, other `#` lines ignored.
/// An HLS stream's playlist (any `#EXT-X-` tag) is not one: FFmpeg plays that as a stream.
///
/// Read by hand rather than by FFmpeg: FFmpeg's only M3U reader is its HLS demuxer, which refuses
/// a plain list of files (`Invalid data found`), and a list must become playlist entries (each
/// with its title and its own failure), not one stream.
public struct M3UPlaylist: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// The line as written, trimmed: a path (relative to the playlist file's folder,
        /// backslashes as written) or a URL.
        public var location: String
        /// `#EXTINF`'s title, nil when none or empty.
        public var title: String?
        /// `#EXTINF`'s seconds when above 0 (-1 means unknown, a stream's).
        public var seconds: Double?
        /// Its line in the file, from 1.
        public var line: Int

        public init(location: String, title: String? = nil, seconds: Double? = nil, line: Int) {
            self.location = location
            self.title = title
            self.seconds = seconds
            self.line = line
        }
    }

    public var entries: [Entry] = []

    /// The names a playlist file has. Folders do not list them (a folder holding `show.m3u`
    /// beside its clips plays the clips); an item names one.
    public static let extensions: Set<String> = ["m3u", "m3u8"]

    /// Whether `path` is named as a playlist file (any letter case).
    public static func isNamed(_ path: String) -> Bool { extensions.contains(PathText.lowercasedExtension(path)) }

    /// The entries of `bytes`; nil when they are an HLS stream's playlist.
    public static func parse(_ bytes: [UInt8]) -> M3UPlaylist? {
        if holdsStreamTags(bytes) { return nil }
        var playlist = M3UPlaylist()
        var pending: (title: String?, seconds: Double?)?
        // "\r\n" is one Character in Swift (never equal to "\n"): Windows' lines, and old Macs' "\r".
        let lines = text(of: bytes).split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        for (offset, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                if line.uppercased().hasPrefix("#EXT-X-") { return nil }
                if line.uppercased().hasPrefix("#EXTINF:") { pending = extinf(line.dropFirst("#EXTINF:".count)) }
                continue
            }
            playlist.entries.append(Entry(location: line, title: pending?.title, seconds: pending?.seconds, line: offset + 1))
            pending = nil
        }
        return playlist
    }

    /// `-1 tvg-name="a, b",The Title`: the seconds before the first space or comma, the title
    /// after the first comma outside quotes (attributes may hold commas, titles too).
    static func extinf(_ text: Substring) -> (title: String?, seconds: Double?) {
        let number = text.prefix { $0 != "," && !$0.isWhitespace }
        // At most kiosk.conf's bound for seconds (1e12): `#EXTINF:1e300` would trap in MediaTime.
        let seconds = Double(number).flatMap { $0 > 0 && $0 <= 1e12 ? $0 : nil }
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

    /// UTF-8 (an `.m3u8` always, most `.m3u` today), its byte-order mark dropped; else Windows'
    /// code page 1252 (Latin-1 with `’ € –` in 0x80-0x9F), what Winamp-era `.m3u` files hold: a
    /// name with `é` must not become U+FFFD, a file that is not found.
    static func text(of bytes: [UInt8]) -> String {
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        if let text = String(validating: body, as: UTF8.self) { return text }
        var text = String.UnicodeScalarView()
        for byte in body {
            let value = (0x80...0x9F).contains(byte) ? windows1252[Int(byte) - 0x80] : UInt32(byte)
            text.append(Unicode.Scalar(value) ?? "\u{FFFD}")
        }
        return String(text)
    }

    /// 0x80-0x9F in code page 1252 (its five unused bytes as Latin-1's control codes).
    private static let windows1252: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]

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
