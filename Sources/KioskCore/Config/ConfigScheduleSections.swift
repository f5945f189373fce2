import Foundation
import Yams

/// `playlists:` and `schedule:`. Names of playlists are checked where they are used: an entry
/// or insert that names a playlist the file does not define is an error at that line.
extension ConfigWalker {
    static let scheduleKeys = ["timezone", "switch", "entries", "inserts"]
    static let entryKeys = ["name", "playlist", "priority"] + windowKeys
    static let insertKeys = ["name", "at", "days", "dates", "item", "playlist"]

    /// `playlists: {morning: [...], lunch: [...]}`. `default` is returned apart, with its key,
    /// since `items:` may define it as well (an error the caller reports).
    func readPlaylists(_ node: Node?, baseDirectory: String, fileSystem: any PlaylistFileSystem)
        -> (named: [PlaylistConfig], defaultPlaylist: (key: Node, items: [ItemConfig])?) {
        guard let node, !isNull(node) else { return ([], nil) }
        guard let mapping = node.mapping else {
            report(node, "'playlists' is \(describe(node)); expected a map of names to lists of items, "
                   + "like morning: [clips/morning/]")
            return ([], nil)
        }
        var named: [PlaylistConfig] = []
        var defaultPlaylist: (key: Node, items: [ItemConfig])?
        for (keyNode, value) in mapping {
            // A later copy of a duplicated name: already reported by the composer.
            if let mark = keyNode.mark, ignoredKeys.contains(TextPosition(mark)) { continue }
            guard let name = keyNode.scalar?.string, !isNull(keyNode), !name.isEmpty else {
                report(keyNode, "a playlist name is \(describe(keyNode)); expected a plain name like morning")
                continue
            }
            let items = readItemList(value, listName: "playlists.\(name)", baseDirectory: baseDirectory, fileSystem: fileSystem,
                                     playlist: name)
            if name == KioskConfig.defaultPlaylistName {
                defaultPlaylist = (keyNode, items)
            } else {
                named.append(PlaylistConfig(name: name, items: items, location: location(of: keyNode)))
            }
        }
        return (named, defaultPlaylist)
    }

    /// `schedule:`; `playlistNames` are the ones the file defines.
    func readSchedule(_ node: Node?, playlistNames: [String], baseDirectory: String,
                      fileSystem: any PlaylistFileSystem) -> ScheduleConfig {
        var schedule = ScheduleConfig()
        guard let section = section(node, name: "schedule", allowedKeys: Self.scheduleKeys) else { return schedule }
        if let name = string(section, "timezone", expected: "an IANA time zone name like Europe/Berlin") {
            if TimeZone(identifier: name) != nil {
                schedule.timezone = name
            } else {
                report(section["timezone"], "'timezone' in schedule is '\(name)', which the tz database does not know; "
                       + "expected an IANA name like Europe/Berlin, America/New_York or UTC (leave it out for the "
                       + "box's own zone)" + suggestion(for: name, among: TimeZone.knownTimeZoneIdentifiers))
            }
        }
        if let mode = choice(section, "switch", [("seam", ScheduleSwitch.atSeam), ("now", .now)]) {
            schedule.switchMode = mode
        }
        for (index, element) in list(section, "entries", of: "schedule entries").enumerated() {
            if let entry = readEntry(element, number: index + 1, playlistNames: playlistNames) {
                schedule.entries.append(entry)
                schedule.entryLocations.append(location(of: element))
            }
        }
        for (index, element) in list(section, "inserts", of: "timed inserts").enumerated() {
            if let insert = readInsert(element, number: index + 1, playlistNames: playlistNames,
                                       baseDirectory: baseDirectory, fileSystem: fileSystem) {
                schedule.inserts.append(insert)
            }
        }
        return schedule
    }

    /// The elements of a list value; empty when it is left out, empty, or not a list (reported).
    private func list(_ section: SectionMap, _ key: String, of what: String) -> [Node] {
        guard let node = section[key], !isNull(node) else { return [] }
        guard case .sequence(let sequence) = node else {
            report(node, "'\(key)' in \(section.name) is \(describe(node)); expected a list (lines starting with '- ') of \(what)")
            return []
        }
        return Array(sequence)
    }

    /// One entry: {name: lunch, playlist: lunch, days: weekdays, from: "11:30", to: "14:00",
    /// dates: {...}, priority: 1}.
    private func readEntry(_ node: Node, number: Int, playlistNames: [String]) -> ScheduleEntry? {
        let label = "schedule entry \(number)"
        guard let section = listedSection(node, label: label, allowedKeys: Self.entryKeys) else { return nil }
        let before = diagnostics.count
        let name = string(section, "name", expected: "the entry's name for messages") ?? label
        // A required key that is missing is most likely a misspelt one already reported.
        if section["playlist"] == nil && !section.hasUntakenKeys {
            report(node, "\(label) has no 'playlist'; expected playlist: followed by one of: "
                   + playlistNames.joined(separator: ", "))
        }
        let playlist = playlistReference(section, "playlist", playlistNames: playlistNames)
        let priority = integer(section, "priority", in: -1_000_000...1_000_000) ?? 0
        let window = window(section)
        guard diagnostics.count == before, let playlist, let window else { return nil }
        return ScheduleEntry(name: name, playlist: playlist, window: window, priority: priority)
    }

    /// One insert: {at: "12:00", days: weekdays, item: clips/noon.mp4} or playlist: instead of
    /// item:, exactly one of them.
    private func readInsert(_ node: Node, number: Int, playlistNames: [String], baseDirectory: String,
                            fileSystem: any PlaylistFileSystem) -> TimedInsert? {
        let label = "insert \(number)"
        guard let section = listedSection(node, label: label, allowedKeys: Self.insertKeys) else { return nil }
        let before = diagnostics.count
        let name = string(section, "name", expected: "the insert's name for messages") ?? label
        if section["at"] == nil && !section.hasUntakenKeys {
            report(node, "\(label) has no 'at'; expected at: followed by a time of day like \"12:00\"")
        }
        let at = wallTime(section, "at", allowingEndOfDay: false)
        let days = weekdays(section, "days") ?? Weekday.every
        let dates = dateRange(section)
        var content: InsertContent?
        switch (section.keyNode("item"), section.keyNode("playlist")) {
        case (let item?, let playlist?):
            let first = location(of: item).line <= location(of: playlist).line ? item : playlist
            let second = first == item ? playlist : item
            let firstAt = location(of: first)
            report(second, "\(label) has both 'item' and 'playlist' (the other at \(firstAt.line):\(firstAt.column)); "
                   + "expected exactly one: the item or the playlist to play once")
        case (nil, nil) where section.hasUntakenKeys:
            break   // most likely one of them misspelt, already reported; no insert is made
        case (nil, nil):
            report(node, "\(label) has neither 'item' nor 'playlist'; expected exactly one: item: followed by a "
                   + "file or URL, or playlist: followed by one of: " + playlistNames.joined(separator: ", "))
        case (_?, nil):
            if let text = string(section, "item", expected: "a file or URL to play once"),
               let source = itemSource(text, at: section["item"], in: label, baseDirectory: baseDirectory, fileSystem: fileSystem) {
                content = .item(source.description)
            }
        case (nil, _?):
            content = playlistReference(section, "playlist", playlistNames: playlistNames).map(InsertContent.playlist)
        }
        guard diagnostics.count == before, let at, let content else { return nil }
        return TimedInsert(name: name, at: at, days: days, firstDate: dates.first, lastDate: dates.last, content: content)
    }

    /// The name of a playlist the file defines.
    func playlistReference(_ section: SectionMap, _ key: String, playlistNames: [String]) -> String? {
        guard let name = string(section, key, expected: "the name of a playlist: " + playlistNames.joined(separator: ", ")) else {
            return nil
        }
        guard playlistNames.contains(name) else {
            report(section[key], "'\(key)' in \(section.name) is '\(quotedForMessage(name))', which no playlist defines; expected one of: "
                   + playlistNames.joined(separator: ", ") + suggestion(for: name, among: playlistNames))
            return nil
        }
        return name
    }
}
