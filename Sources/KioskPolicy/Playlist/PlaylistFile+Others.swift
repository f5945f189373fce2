/// The playlist files other players write besides M3U: `.pls` (an INI file: Winamp, SHOUTcast,
/// many radio sites), `.xspf` (XML: VLC's "Save Playlist" writes it by default) and `.wpl`
/// (Windows Media Player's SMIL). The XML ones are read by `BoundedXML` (as CAP alerts are):
/// a hostile file costs at most its bounds, never an entity expansion or a fetch.
extension PlaylistFile {
    /// `[playlist]`, then `File1=`, `Title1=`, `Length1=` (seconds, -1 for a stream) per entry,
    /// in the order of their numbers (not of the lines); keys in any letter case, other lines
    /// (`NumberOfEntries`, `Version`, comments) ignored.
    static func parsePLS(_ bytes: [UInt8]) -> PlaylistFile? {
        var playlist = PlaylistFile(format: .pls)
        var files: [Int: (location: String, line: Int)] = [:]
        var titles: [Int: String] = [:]
        var lengths: [Int: Double] = [:]
        for (offset, raw) in lines(of: bytes).enumerated() {
            if files.count + titles.count + lengths.count + playlist.skipped.count >= lineCap { break }
            guard let equals = raw.firstIndex(of: "=") else { continue }
            let key = String(raw[..<equals]).trimmingWhitespace().lowercased()
            let value = String(raw[raw.index(after: equals)...]).trimmingWhitespace()
            for (name, kind) in [("file", 0), ("title", 1), ("length", 2)] where key.hasPrefix(name) {
                // The number after the name: "File1", "file01" and "File 1" are entry 1.
                let number = Int(String(key.dropFirst(name.count)).trimmingWhitespace()).flatMap { $0 >= 0 ? $0 : nil }
                guard kind == 0 else {
                    if let number, !value.isEmpty, kind == 1 { titles[number] = titles[number] ?? value }
                    if let number, !value.isEmpty, kind == 2 { lengths[number] = lengths[number] ?? Double(value) }
                    continue
                }
                // A line that looks like an entry and gives none is said, as an M3U's bad line is.
                let why = number == nil ? "'\(quotedForMessage(String(raw.prefix(40))))' is not a numbered File line (File1=...)"
                    : value.isEmpty ? "File\(number!)= names no file"
                    : files[number!] != nil ? "File\(number!) is given again (line \(files[number!]!.line) is the one played)" : nil
                if let why {
                    playlist.skipped.append(Skipped(line: offset + 1, why: why))
                } else if let number {
                    files[number] = (value, offset + 1)
                }
            }
        }
        playlist.skipped.sort { $0.line < $1.line }
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
            if playlist.isFull { break }
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
            if playlist.isFull { break }
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
            // 5,000 entries of VLC's ~7 elements each; bytes of a 4 MiB UTF-16 file made UTF-8.
            let root = try BoundedXML.parse(body, maxBytes: 8 << 20, maxElements: 100_000)
            guard root.name == name else {
                playlist.problem = "not \(kind) playlist (its XML's root element is <\(quotedForMessage(root.name))>, not <\(name)>)"
                return nil
            }
            return root
        } catch .tooLarge(let what) {
            playlist.problem = "too large to read (\(what)): split it into playlist files of at most 5,000 entries, listed by one"
            return nil
        } catch {
            playlist.problem = "not \(kind) playlist: \(error)"
            return nil
        }
    }
}
