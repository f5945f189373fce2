@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// Playlist entries for the cursor, program and schedule tests: files under /m that are never
/// opened, one item each, played `loop` times in a row.
func playlistEntry(_ name: String, loop: Int = 1) -> PlaylistEntry {
    var item = ItemConfig(source: .file("/m/" + name), location: SourceLocation(file: "kiosk.conf", line: 1, column: 1))
    item.loopCount = loop
    return PlaylistEntry(media: .file("/m/" + name), item: item, itemIndex: 0)
}

func playlistEntries(_ names: String...) -> [PlaylistEntry] { names.map { playlistEntry($0) } }
