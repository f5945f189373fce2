import Foundation
import Yams

/// kiosk.conf's `audio_track` (model: `MusicBedConfig`): the short form is the bed's files
/// themselves (a path, a directory, a glob, or a list of them), the long form a map with
/// `items` and how the bed meets the items' own sound.
extension ConfigWalker {
    static let musicBedKeys = ["items", "with_item_sound", "duck", "fade", "volume"]
    static let expectedBedItems = "a sound file, directory or glob (or a list of them)"

    func readMusicBed(_ node: Node?, baseDirectory: String, fileSystem: any PlaylistFileSystem) -> MusicBedConfig? {
        guard let node, !isNull(node) else { return nil }
        if node.mapping == nil {
            return MusicBedConfig(items: bedItems(node, baseDirectory: baseDirectory, fileSystem: fileSystem))
        }
        guard let section = section(node, name: "audio_track", allowedKeys: Self.musicBedKeys) else { return nil }
        var bed = MusicBedConfig()
        if let items = section["items"] {
            bed.items = bedItems(items, baseDirectory: baseDirectory, fileSystem: fileSystem)
        } else {
            report(node, "audio_track has no 'items'; expected items: followed by \(Self.expectedBedItems)")
        }
        let modes = MusicBedConfig.WithItemSound.allCases.map { (name: $0.rawValue, value: $0) }
        if let mode = choice(section, "with_item_sound", modes) { bed.withItemSound = mode }
        if let duck = decibels(section, "duck") { bed.duckDecibels = duck }
        if let fade = seconds(section, "fade", allowingMinimum: true) {
            if fade.seconds <= 10 { bed.fadeSeconds = fade.seconds }
            else { report(section["fade"], "'fade' in audio_track is \(fade.seconds) s; expected seconds from 0 to 10") }
        }
        if let volume = integer(section, "volume", in: 0...100, unit: " (percent)") { bed.volume = volume }
        if section["duck"] != nil, bed.withItemSound != .duck, let key = section.keyNode("duck") {
            report(key, "audio_track has 'duck' but with_item_sound is \(bed.withItemSound.rawValue); "
                   + "expected with_item_sound: duck (or leave 'duck' out)")
        }
        return bed
    }

    /// The bed's files: one scalar or a list of scalars (no per-item options: the bed plays
    /// each file whole).
    private func bedItems(_ node: Node, baseDirectory: String, fileSystem: any PlaylistFileSystem) -> [ItemConfig] {
        guard let elements = scalarOrList(node) else {
            report(node, "audio_track's items are \(describe(node)); expected \(Self.expectedBedItems)")
            return []
        }
        if elements.isEmpty { report(node, "audio_track's items are an empty list; expected \(Self.expectedBedItems)") }
        var items: [ItemConfig] = []
        for (index, element) in elements.enumerated() {
            guard let text = element.scalar?.string, !isNull(element), !text.isEmpty else {
                report(element, "audio_track item \(index + 1) is \(describe(element)); expected a sound file, directory or glob")
                continue
            }
            guard let source = itemSource(text, at: element, in: "audio_track item \(index + 1)", baseDirectory: baseDirectory,
                                          fileSystem: fileSystem) else { continue }
            items.append(ItemConfig(source: source, location: location(of: element)))
        }
        return items
    }

    /// A level in dB from -60 to 0: `-12`, `-12 dB` or `-12dB`.
    private func decibels(_ section: SectionMap, _ key: String) -> Double? {
        guard let node = section[key] else { return nil }
        let expected = "expected a level in dB from -60 to 0, like -12 dB"
        guard let text = node.scalar?.string, !isNull(node) else {
            report(node, "'\(key)' in audio_track is \(describe(node)); \(expected)")
            return nil
        }
        var number = text.trimmingCharacters(in: .whitespaces)
        if number.lowercased().hasSuffix("db") { number = String(number.dropLast(2)).trimmingCharacters(in: .whitespaces) }
        guard let value = Double(number), value.isFinite, (-60...0).contains(value) else {
            report(node, "'\(key)' in audio_track is \(describe(node)); \(expected)")
            return nil
        }
        return value
    }
}
