import Foundation
import Synchronization
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPolicy

/// The real file system, counting the folders listed (by path), so a test can tell a stick
/// walked from one whose listing was kept.
private final class CountingFileSystem: PlaylistFileSystem, @unchecked Sendable {
    let base = LocalFileSystem()
    let listed = Mutex<[String: Int]>([:])
    /// Names followed to their end (`isConfined`, `resolvedPath`): realpath each.
    let followed = Mutex(0)

    func kind(ofItemAt path: String) -> FileKind? { base.kind(ofItemAt: path) }
    func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String] {
        listed.withLock { $0[PathText.normalize(path), default: 0] += 1 }
        return try base.contentsOfDirectory(atPath: path)
    }
    func smallText(atPath path: String) -> String? { base.smallText(atPath: path) }
    func bytes(atPath path: String, offset: Int, count: Int) -> [UInt8] { base.bytes(atPath: path, offset: offset, count: count) }
    func fingerprint(atPath path: String) -> FileFingerprint? { base.fingerprint(atPath: path) }
    func isConfined(_ path: String, to root: String) -> Bool {
        followed.withLock { $0 += 1 }
        return base.isConfined(path, to: root)
    }
    func resolvedPath(_ path: String) -> String? {
        followed.withLock { $0 += 1 }
        return base.resolvedPath(path)
    }
    var knowsLinks: Bool { base.knowsLinks }
    func entryKind(atPath path: String) -> EntryKind? { base.entryKind(atPath: path) }

    var total: Int { listed.withLock { $0.values.reduce(0, +) } }
    func reset() { listed.withLock { $0 = [:] } }
}

/// A stick's folder on disk: `files` written with a few bytes each, `empty` with none.
private func stick(_ files: [String], empty: [String] = [], texts: [String: String] = [:]) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stick-\(UUID().uuidString)").path
    for (name, bytes) in files.map({ ($0, Data("media".utf8)) }) + empty.map({ ($0, Data()) }) + texts.map({ ($0.key, Data($0.value.utf8)) }) {
        let path = folder + "/" + name
        try FileManager.default.createDirectory(atPath: PathText.normalize(path + "/.."), withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: path))
    }
    return folder
}

private func names(_ entries: [PlaylistEntry], under folder: String) -> [String] {
    entries.map { entry in
        guard case .file(let path) = entry.media else { return "\(entry.media)" }
        return String(path.dropFirst(folder.count + 1))
    }
}

@Suite("USB sticks: what each plays, kept between looks")
struct UsbStickMediaTests {
    @Test func aReadOnlyStickIsListedOncePerMount() throws {
        let folder = try stick(["a.mp4", "Menus/b.mp4"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let disk = CountingFileSystem()
        var media = UsbStickMedia(fileSystem: disk)
        let first = media.entries(in: [folder], readOnly: [folder: 41], now: 0) { _, _ in }
        #expect(names(first, under: folder) == ["a.mp4", "Menus/b.mp4"])
        #expect(disk.total > 0)
        disk.reset()
        let again = media.entries(in: [folder], readOnly: [folder: 41], now: 0) { _, _ in }
        #expect(again == first)
        #expect(disk.total == 0, "listed again: \(disk.listed.withLock { $0 })")
        // Mounted again (a new mount ID at the same place): listed afresh.
        try Data("media".utf8).write(to: URL(fileURLWithPath: folder + "/c.mp4"))
        let remounted = media.entries(in: [folder], readOnly: [folder: 42], now: 0) { _, _ in }
        #expect(names(remounted, under: folder) == ["a.mp4", "c.mp4", "Menus/b.mp4"])
    }

    /// Linux gives a mount the lowest free ID: a stick swapped between two looks may come back
    /// with the ID of the one before. A minute in one mount lists it again, whatever its ID.
    @Test func aReadOnlyStickIsListedAgainAfterAMinuteInOneMount() throws {
        let folder = try stick(["a.mp4"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var media = UsbStickMedia()
        _ = media.entries(in: [folder], readOnly: [folder: 5], now: 1000) { _, _ in }
        try Data("media".utf8).write(to: URL(fileURLWithPath: folder + "/b.mp4"))
        let within = media.entries(in: [folder], readOnly: [folder: 5], now: 1000 + UsbStickMedia.readOnlyRelisting - 1) { _, _ in }
        #expect(names(within, under: folder) == ["a.mp4"])
        let after = media.entries(in: [folder], readOnly: [folder: 5], now: 1000 + UsbStickMedia.readOnlyRelisting) { _, _ in }
        #expect(names(after, under: folder) == ["a.mp4", "b.mp4"])
        // A clock that went back (a steady clock does not; a caller's might) lists it again too.
        try Data("media".utf8).write(to: URL(fileURLWithPath: folder + "/c.mp4"))
        let back = media.entries(in: [folder], readOnly: [folder: 5], now: 10) { _, _ in }
        #expect(names(back, under: folder) == ["a.mp4", "b.mp4", "c.mp4"])
    }

    /// A writable stick's list is kept between looks until a list read for it changes or a name
    /// it found missing appears: a nested list's edit and a listed file copied on after the list
    /// are seen at the next look (before: only once the top list changed).
    @Test func aWritableStickListIsReadAgainWhenANestedListChangesOrAMissingFileArrives() throws {
        let folder = try stick(["a.mp4", "Sub/x.mp4"], texts: ["show.m3u": "a.mp4\nlate.mp4\nLists/more.m3u\n",
                                                                    "Lists/more.m3u": "../a.mp4\n"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let disk = CountingFileSystem()
        var media = UsbStickMedia(fileSystem: disk)
        // Looks ten seconds after the files' times: past the 3 s in which a change is read again.
        let now = Date().timeIntervalSince1970 + 10
        let walked = { disk.listed.withLock { $0[folder + "/Sub", default: 0] } }
        #expect(names(media.entries(in: [folder], now: now) { _, _ in }, under: folder) == ["a.mp4", "a.mp4"])
        #expect(walked() == 1, "walked once for empty files")
        disk.reset()
        #expect(names(media.entries(in: [folder], now: now + 1) { _, _ in }, under: folder) == ["a.mp4", "a.mp4"])
        #expect(walked() == 0, "nothing changed: kept")
        try Data("media".utf8).write(to: URL(fileURLWithPath: folder + "/late.mp4"))
        #expect(names(media.entries(in: [folder], now: now + 2) { _, _ in }, under: folder) == ["a.mp4", "late.mp4", "a.mp4"])
        try Data("../a.mp4\n../Sub/x.mp4\n".utf8).write(to: URL(fileURLWithPath: folder + "/Lists/more.m3u"))
        #expect(names(media.entries(in: [folder], now: now + 3) { _, _ in }, under: folder)
                == ["a.mp4", "late.mp4", "a.mp4", "Sub/x.mp4"])
        disk.reset()
        _ = media.entries(in: [folder], now: now + 4) { _, _ in }
        #expect(walked() == 0, "kept again")
        // A minute after it was read: read again, whatever changed or not.
        _ = media.entries(in: [folder], now: now + 3 + UsbStickMedia.readOnlyRelisting) { _, _ in }
        #expect(walked() == 1)
    }

    /// A listed file still empty (a copy that stopped) is not played, and does not make the list
    /// read again at every look: only its first bytes do. A list dated hours ahead (a FAT stick
    /// written east of UTC, read as UTC) is kept as any other.
    @Test func anEmptyListedFileAndAListFromTheFutureKeepTheList() throws {
        let folder = try stick(["a.mp4", "Sub/x.mp4"], empty: ["late.mp4"], texts: ["show.m3u": "a.mp4\nlate.mp4\n"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let disk = CountingFileSystem()
        var media = UsbStickMedia(fileSystem: disk)
        let walked = { disk.listed.withLock { $0[folder + "/Sub", default: 0] } }
        let now = Date().timeIntervalSince1970 + 10
        #expect(names(media.entries(in: [folder], now: now) { _, _ in }, under: folder) == ["a.mp4"])
        disk.reset()
        #expect(names(media.entries(in: [folder], now: now + 1) { _, _ in }, under: folder) == ["a.mp4"])
        #expect(walked() == 0, "kept while late.mp4 is empty")
        try Data("media".utf8).write(to: URL(fileURLWithPath: folder + "/late.mp4"))
        #expect(names(media.entries(in: [folder], now: now + 2) { _, _ in }, under: folder) == ["a.mp4", "late.mp4"])
        // The files are now 5 hours "after" the look.
        var future = UsbStickMedia(fileSystem: disk)
        let early = now - 10 - 5 * 3600
        _ = future.entries(in: [folder], now: early) { _, _ in }
        disk.reset()
        _ = future.entries(in: [folder], now: early + 1) { _, _ in }
        #expect(walked() == 0, "kept though its time is ahead of the clock")
    }

    /// A list whose time is within 3 s of the look may change again within the same FAT time
    /// step (2 s) and keep its time and size: read again at each look until it is older.
    @Test func aListChangedJustNowIsNotKept() throws {
        let folder = try stick(["a.mp4", "Sub/x.mp4"], texts: ["show.m3u": "a.mp4\n"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let disk = CountingFileSystem()
        var media = UsbStickMedia(fileSystem: disk)
        let now = Date().timeIntervalSince1970
        _ = media.entries(in: [folder], now: now) { _, _ in }
        disk.reset()
        _ = media.entries(in: [folder], now: now) { _, _ in }
        #expect(disk.listed.withLock { $0[folder + "/Sub", default: 0] } == 1)
        disk.reset()
        _ = media.entries(in: [folder], now: now + 10) { _, _ in }   // read now, older than 3 s: kept from here
        _ = media.entries(in: [folder], now: now + 11) { _, _ in }
        #expect(disk.listed.withLock { $0[folder + "/Sub", default: 0] } == 1)
    }

    @Test func aWritableStickIsListedAtEveryLook() throws {
        let folder = try stick(["a.mp4"], empty: ["b.mp4"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var media = UsbStickMedia(fileSystem: CountingFileSystem())
        // b.mp4 is empty (still being copied on): not listed until it has bytes.
        #expect(names(media.entries(in: [folder], now: 0) { _, _ in }, under: folder) == ["a.mp4"])
        try Data("media".utf8).write(to: URL(fileURLWithPath: folder + "/b.mp4"))
        #expect(names(media.entries(in: [folder], now: 0) { _, _ in }, under: folder) == ["a.mp4", "b.mp4"])
        // Was read-only, mounted writable since: not kept.
        _ = media.entries(in: [folder], readOnly: [folder: 7], now: 0) { _, _ in }
        try Data("media".utf8).write(to: URL(fileURLWithPath: folder + "/c.mp4"))
        #expect(names(media.entries(in: [folder], now: 0) { _, _ in }, under: folder) == ["a.mp4", "b.mp4", "c.mp4"])
    }

    @Test func aStickPulledAndPluggedAgainIsListedAfresh() throws {
        let folder = try stick(["a.mp4"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var media = UsbStickMedia(fileSystem: CountingFileSystem())
        _ = media.entries(in: [folder], readOnly: [folder: 3], now: 0) { _, _ in }
        try Data("media".utf8).write(to: URL(fileURLWithPath: folder + "/b.mp4"))
        _ = media.entries(in: [], now: 0) { _, _ in }   // gone at this look
        let back = media.entries(in: [folder], readOnly: [folder: 3], now: 0) { _, _ in }
        #expect(names(back, under: folder) == ["a.mp4", "b.mp4"])
        media.forget(folder)
        try Data("media".utf8).write(to: URL(fileURLWithPath: folder + "/c.mp4"))
        #expect(media.entries(in: [folder], readOnly: [folder: 3], now: 0) { _, _ in }.count == 3)
    }

    @Test func aListThatGivesNothingIsSaidOnceAndTheStickIsWalkedForEmptyFilesOnce() throws {
        let folder = try stick(["a.mp4", "Sub/b.mp4"], empty: ["Sub/new.mp4"], texts: ["show.m3u": "missing.mp4\n"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let disk = CountingFileSystem()
        var media = UsbStickMedia(fileSystem: disk)
        var lines: [String] = []
        let entries = media.entries(in: [folder], now: 0) { line, about in
            #expect(about == folder)
            lines.append(line)
        }
        #expect(names(entries, under: folder) == ["a.mp4", "Sub/b.mp4"])
        #expect(entries.allSatisfy { $0.itemIndex == 0 })
        #expect(lines.contains { $0.contains("show.m3u") && $0.contains("gives nothing that plays") }, "\(lines)")
        #expect(lines.contains { $0.contains("missing.mp4") }, "\(lines)")
        // The subfolder: once for the empty files, once for the tree (was twice for the empty
        // files: once for the list, once more for the tree it fell back to).
        #expect(disk.listed.withLock { $0[PathText.normalize(folder + "/Sub")] } == 2, "\(disk.listed.withLock { $0 })")
    }

    @Test func aConfinedListingFollowsOnlyTheLinks() throws {
        let files = (0..<300).map { "F\($0 / 100)/S\($0 / 20 % 5)/clip \($0).mp4" }
        let folder = try stick(files)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createSymbolicLink(atPath: folder + "/F0/out.mp4", withDestinationPath: "/dev/null")
        try FileManager.default.createSymbolicLink(atPath: folder + "/F1/in.mp4", withDestinationPath: "../F0/S0/clip 0.mp4")
        try FileManager.default.createSymbolicLink(atPath: folder + "/F2/loop", withDestinationPath: "..")
        #expect(mkfifo(folder + "/F2/fifo.mp4", 0o600) == 0)
        let disk = CountingFileSystem()
        let tree = MediaTree.list(folder, fileSystem: ConfinedFileSystem(base: disk, root: folder)) { $0.hasSuffix(".mp4") }
        #expect(tree.files.count == 301)   // the 300, and the link that stays inside
        #expect(tree.files.contains(folder + "/F1/in.mp4") && !tree.files.contains(folder + "/F0/out.mp4"))
        #expect(!tree.files.contains(folder + "/F2/fifo.mp4") && !tree.files.contains { $0.contains("/loop/") })
        // A name not written plainly is followed, not folded as text: `lnk/..` is where `lnk` leads.
        try FileManager.default.createDirectory(atPath: folder + "/deep/dir", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder + "/deep/dir/w.mp4", withDestinationPath: "/dev/null")
        try FileManager.default.createSymbolicLink(atPath: folder + "/lnk", withDestinationPath: "deep/dir")
        let view = ConfinedFileSystem(base: disk, root: folder)
        #expect(view.kind(ofItemAt: folder + "/F0") == .directory && view.kind(ofItemAt: folder + "/F0/S0/clip 0.mp4") == .file)
        try Data("media".utf8).write(to: URL(fileURLWithPath: folder + "/w.mp4"))
        #expect(view.kind(ofItemAt: folder + "/lnk/../w.mp4") == nil, "the kernel takes it to deep/w.mp4 -> nothing there")
        disk.followed.withLock { $0 = 0 }
        _ = MediaTree.list(folder, fileSystem: ConfinedFileSystem(base: disk, root: folder)) { $0.hasSuffix(".mp4") }
        // The root, and each of the links: not each of the 300 names and 20 folders.
        #expect(disk.followed.withLock { $0 } <= 12, "\(disk.followed.withLock { $0 }) names followed")
    }

    @Test func mountinfoSaysWhichFileSystemsAreReadOnly() {
        let text = """
        40 22 8:1 / /run/kiosk/usb/sda1 ro,nosuid,nodev,noexec,noatime - vfat /dev/sda1 ro,fmask=0022,utf8
        41 22 8:17 / /media/stick rw,relatime - exfat /dev/sdb1 rw,fmask=0022
        42 22 8:17 / /media/view ro,relatime - exfat /dev/sdb1 rw,fmask=0022
        """
        let mounts = MountEntry.parse(mountinfo: text)
        #expect(mounts.map(\.isReadOnly) == [true, false, false])   // a read-only view of a writable one can change
        #expect(mounts.map(\.mountID) == [40, 41, 42])
    }
}
