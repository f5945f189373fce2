/// A playlist file an item names, as other players and CMS exports write it: `.m3u`/`.m3u8`
/// (VLC, Winamp, foobar2000, most CMSs), `.pls` (Winamp, SHOUTcast), `.xspf` (what VLC's "Save
/// Playlist" writes by default) and `.wpl` (Windows Media Player). Each becomes the same list of
/// entries: where the media is, a title and seconds where the file gives them, and the place in
/// the file a message about it names.
///
/// Read by kiosk rather than FFmpeg: FFmpeg's only M3U reader is its HLS demuxer, which refuses
/// a plain list of files (`Invalid data found`), it reads no PLS, XSPF or WPL, and a list must
/// become playlist entries (each with its title and its own failure), not one stream.
public struct PlaylistFile: Sendable, Equatable {
    public enum Format: String, Sendable, Equatable, CaseIterable {
        case m3u, pls, xspf, wpl

        /// What a message calls one entry's place in the file: a text file's line (what an
        /// editor shows), an XML file's element by its count (the reader keeps no line numbers).
        var placeNoun: String {
            switch self {
            case .m3u, .pls: "line"
            case .xspf: "track"
            case .wpl: "media element"
            }
        }
    }

    public struct Entry: Sendable, Equatable {
        /// Where the media is, as written, trimmed: a path (relative to the playlist file's
        /// folder, backslashes as written) or a URL.
        public var location: String
        /// The entry's title, nil when none or empty.
        public var title: String?
        /// Its length in seconds when above 0 (a picture's `duration`; -1 or none: unknown).
        public var seconds: Double?
        /// Its place in the file, from 1: the line (M3U, PLS) or the element's count (XSPF, WPL).
        public var line: Int
        /// The location is a URI reference (XSPF's): a relative one is %-decoded (`a%20b.mp4`).
        public var isURI: Bool

        public init(location: String, title: String? = nil, seconds: Double? = nil, line: Int, isURI: Bool = false) {
            self.location = location
            self.title = title
            self.seconds = seconds
            self.line = line
            self.isURI = isURI
        }
    }

    /// An element of an XML playlist that names no media, and why.
    public struct Skipped: Sendable, Equatable {
        public var line: Int
        public var why: String
    }

    public var format: Format
    public var entries: [Entry] = []
    /// What the file holds that names no media (each said, as a line that gives nothing is).
    public var skipped: [Skipped] = []
    /// Why the file gives nothing as a whole (an XSPF that is not XML), nil when it was read.
    public var problem: String?

    public init(format: Format, entries: [Entry] = [], problem: String? = nil) {
        self.format = format
        self.entries = entries
        self.problem = problem
    }

    /// A message's name for the place of `line` in the file: "line 3", "track 2".
    func place(_ line: Int) -> String { "\(format.placeNoun) \(line)" }

    /// The names a playlist file has. Folders do not list them (a folder holding `show.m3u`
    /// beside its clips plays the clips); an item names one.
    public static let extensions: Set<String> = ["m3u", "m3u8", "pls", "xspf", "wpl"]

    /// Whether `path` is named as a playlist file (any letter case).
    public static func isNamed(_ path: String) -> Bool { format(of: path) != nil }

    /// The format `path`'s name says, nil when it names no playlist file.
    public static func format(of path: String) -> Format? {
        switch PathText.lowercasedExtension(path) {
        case "m3u", "m3u8": .m3u
        case "pls": .pls
        case "xspf": .xspf
        case "wpl": .wpl
        default: nil
        }
    }

    /// The entries of `bytes`, read as `format`; nil when they are an HLS stream's playlist
    /// (an `.m3u8` FFmpeg plays as a stream).
    public static func parse(_ bytes: [UInt8], as format: Format) -> PlaylistFile? {
        let bytes = utf16AsUTF8(bytes) ?? bytes
        return switch format {
        case .m3u: parseM3U(bytes)
        case .pls: parsePLS(bytes)
        case .xspf: parseXSPF(bytes)
        case .wpl: parseWPL(bytes)
        }
    }

    /// Seconds a file gives an entry, when plausible: above 0, at most kiosk.conf's bound for
    /// seconds (1e12; `1e300` would trap in MediaTime), at least a millisecond (`1e-9` is a
    /// still of no time, which kiosk.conf refuses too).
    static func plausibleSeconds(_ value: Double?) -> Double? {
        value.flatMap { $0 >= 0.001 && $0 <= 1e12 ? $0 : nil }
    }

    /// A file in UTF-16 with its byte-order mark (Windows Notepad's "Unicode", some Windows
    /// Media Player lists) as UTF-8 with a BOM; nil when `bytes` do not begin with one. Unpaired
    /// surrogates become U+FFFD.
    static func utf16AsUTF8(_ bytes: [UInt8]) -> [UInt8]? {
        let littleEndian: Bool
        switch bytes.prefix(2) {
        case [0xFF, 0xFE]: littleEndian = true
        case [0xFE, 0xFF]: littleEndian = false
        default: return nil
        }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = 2
        while index + 1 < bytes.count {
            let (low, high) = littleEndian ? (bytes[index], bytes[index + 1]) : (bytes[index + 1], bytes[index])
            units.append(UInt16(high) << 8 | UInt16(low))
            index += 2
        }
        let text = String(decoding: units, as: UTF16.self)   // an odd last byte (a cut file's) left out
        return [0xEF, 0xBB, 0xBF] + Array(text.utf8)
    }

    /// The text lines of `bytes` (`text(of:)`'s decoding), Unix, Windows' and old Macs' breaks,
    /// one at a time.
    static func lines(of bytes: [UInt8]) -> TextLines { TextLines(text(of: bytes)) }

    /// Entries and skipped lines one file keeps at most: one past what a listing reads
    /// (`PlaylistFileListing.lineLimit`), so its stop is said. A 4 MiB file of two-byte lines is
    /// 2 million entries, some 100 MB held for a listing that reads 50,000.
    static let lineCap = PlaylistFileListing.lineLimit + 1

    /// Whether the file has given `lineCap` entries and skipped lines: reading stops there.
    var isFull: Bool { entries.count + skipped.count >= Self.lineCap }

    /// UTF-8 (an `.m3u8` and XML always, most other files today), its byte-order mark dropped;
    /// else Windows' code page 1252 (Latin-1 with `’ € –` in 0x80-0x9F), what Winamp-era files
    /// hold: a name with `é` must not become U+FFFD, a file that is not found.
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
}
