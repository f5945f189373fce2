/// The playlist files other players write besides M3U: `.pls` (an INI file: Winamp, SHOUTcast,
/// many radio sites), `.xspf` (XML: VLC's "Save Playlist" writes it by default) and `.wpl`
/// (Windows Media Player's SMIL). The XML ones are read by `BoundedXML` (as CAP alerts are):
/// a hostile file costs at most its bounds, never an entity expansion or a fetch.
extension PlaylistFile {
    /// `[playlist]`, then `File1=`, `Title1=`, `Length1=` (seconds, -1 for a stream) per entry,
    /// in the order of their numbers (not of the lines); keys in any letter case, other lines
    /// (`NumberOfEntries`, `Version`, comments) ignored.
    static func parsePLS(_ bytes: [UInt8]) -> PlaylistFile? {
        var files: [Int: (location: String, line: Int)] = [:]
        var titles: [Int: String] = [:]
        var lengths: [Int: Double] = [:]
        for (offset, raw) in lines(of: bytes).enumerated() {
            guard let equals = raw.firstIndex(of: "=") else { continue }
            let key = String(raw[..<equals]).trimmingWhitespace().lowercased()
            let value = String(raw[raw.index(after: equals)...]).trimmingWhitespace()
            for (name, kind) in [("file", 0), ("title", 1), ("length", 2)] where key.hasPrefix(name) {
                // The number after the name; "File1" and "file01" are entry 1, "FileX" none.
                guard let number = Int(key.dropFirst(name.count)), number >= 0, !value.isEmpty else { continue }
                switch kind {
                case 0: if files[number] == nil { files[number] = (value, offset + 1) }
                case 1: titles[number] = value
                default: lengths[number] = Double(value)
                }
            }
        }
        var playlist = PlaylistFile(format: .pls)
        for number in files.keys.sorted() {
            guard let file = files[number] else { continue }
            playlist.entries.append(Entry(location: file.location, title: titles[number],
                                          seconds: plausibleSeconds(lengths[number]), line: file.line))
        }
        return playlist
    }

    /// `<playlist><trackList><track><location>` a URI (`file:///...`, or relative to the file,
    /// %-escaped), `<title>`, `<duration>` in milliseconds. A track without a location (XSPF
    /// allows one named only by `<identifier>`, for a player to look up) is said and skipped.
    static func parseXSPF(_ bytes: [UInt8]) -> PlaylistFile? {
        var playlist = PlaylistFile(format: .xspf)
        guard let root = xmlRoot(bytes, of: &playlist, named: "playlist") else { return playlist }
        for (offset, track) in (root.child("trackList")?.children("track") ?? []).enumerated() {
            guard let location = track.value("location") else {
                playlist.skipped.append(Skipped(line: offset + 1, why: "a <track> without a <location>"))
                continue
            }
            let milliseconds = track.value("duration").flatMap { Double($0) }
            playlist.entries.append(Entry(location: location, title: track.value("title"),
                                          seconds: plausibleSeconds(milliseconds.map { $0 / 1000 }), line: offset + 1, isURI: true))
        }
        return playlist
    }

    /// `<smil><body><seq><media src="..\Videos\a.mp4"/>`: paths as Windows writes them
    /// (backslashes, often absolute: said as such by the expander), or URLs.
    static func parseWPL(_ bytes: [UInt8]) -> PlaylistFile? {
        var playlist = PlaylistFile(format: .wpl)
        guard let root = xmlRoot(bytes, of: &playlist, named: "smil") else { return playlist }
        for (offset, media) in (root.child("body")?.descendants("media") ?? []).enumerated() {
            guard let source = media.attributes["src"]?.trimmingWhitespace(), !source.isEmpty else {
                playlist.skipped.append(Skipped(line: offset + 1, why: "a <media> element without a src"))
                continue
            }
            playlist.entries.append(Entry(location: source, line: offset + 1))
        }
        return playlist
    }

    /// The root element of an XML playlist when it is named `name`; else nil, with the reason
    /// in `playlist.problem`.
    private static func xmlRoot(_ bytes: [UInt8], of playlist: inout PlaylistFile, named name: String) -> BoundedXML.Element? {
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        let kind = playlist.format == .xspf ? "an XSPF" : "a WPL"
        do throws(BoundedXML.Problem) {
            let root = try BoundedXML.parse(body)
            guard root.name == name else {
                playlist.problem = "not \(kind) playlist (its XML's root element is <\(root.name)>, not <\(name)>)"
                return nil
            }
            return root
        } catch {
            playlist.problem = "not \(kind) playlist: \(error)"
            return nil
        }
    }
}
