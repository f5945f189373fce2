import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

private func observed(_ size: Int64, modified: Double = 1_000, inode: UInt64 = 7) -> FileObservation {
    FileObservation(size: size, modified: modified, inode: inode)
}

private let wall = 2_000_000_000.0

@Suite("Watched folders: when a new file is complete")
struct FileSettlingTests {
    @Test func aFileClosedAfterWritingIsReadyAtOnce() {
        var settling = FileSettling(settle: 2)
        settling.note(.written, path: "/m/a.mp4", at: 10)
        #expect(settling.look(at: "/m/a.mp4", observation: observed(100, modified: wall), now: 10.1, wallNow: wall) == .settling(until: 12))
        settling.note(.written, path: "/m/a.mp4", at: 10.5)
        settling.note(.closedAfterWrite, path: "/m/a.mp4", at: 10.6)
        #expect(settling.look(at: "/m/a.mp4", observation: observed(500, modified: wall), now: 10.7, wallNow: wall) == .ready)
    }

    @Test func aFileRenamedInIsReadyAtOnce() {
        var settling = FileSettling(settle: 2)
        settling.note(.movedIn, path: "/m/b.mp4", at: 5)
        #expect(settling.look(at: "/m/b.mp4", observation: observed(9, modified: wall), now: 5.2, wallNow: wall) == .ready)
    }

    @Test func aWriterThatKeepsTheFileOpenWaitsForAStableSize() {
        var settling = FileSettling(settle: 2)
        settling.note(.written, path: "/m/c.mp4", at: 0)
        #expect(settling.look(at: "/m/c.mp4", observation: observed(10, modified: wall), now: 0.3, wallNow: wall) == .settling(until: 2))
        // Grows: the two seconds start again.
        settling.note(.written, path: "/m/c.mp4", at: 1.5)
        #expect(settling.look(at: "/m/c.mp4", observation: observed(20, modified: wall + 1.5), now: 1.8, wallNow: wall + 1.8)
                == .settling(until: 3.8))
        #expect(settling.look(at: "/m/c.mp4", observation: observed(20, modified: wall + 1.5), now: 3.7, wallNow: wall + 3.7)
                == .settling(until: 3.8))
        #expect(settling.look(at: "/m/c.mp4", observation: observed(20, modified: wall + 1.5), now: 3.9, wallNow: wall + 3.9) == .ready)
    }

    @Test func aReadyFileWrittenAgainWaitsAgain() {
        var settling = FileSettling(settle: 2)
        settling.note(.closedAfterWrite, path: "/m/d.mp4", at: 0)
        #expect(settling.look(at: "/m/d.mp4", observation: observed(10), now: 0.1, wallNow: wall) == .ready)
        settling.note(.written, path: "/m/d.mp4", at: 1)
        #expect(settling.look(at: "/m/d.mp4", observation: observed(30), now: 1.2, wallNow: wall) == .settling(until: 3.2))
    }

    @Test func filesFoundAtTheFirstLookAreJudgedByTheirAge() {
        var settling = FileSettling(settle: 2)
        #expect(settling.look(at: "/m/old.mp4", observation: observed(10, modified: wall - 3600), now: 50, wallNow: wall) == .ready)
        // Written half a second ago, no event seen: a copy may be under way.
        #expect(settling.look(at: "/m/new.mp4", observation: observed(10, modified: wall - 0.5), now: 50, wallNow: wall)
                == .settling(until: 51.5))
        #expect(settling.look(at: "/m/new.mp4", observation: observed(10, modified: wall - 0.5), now: 51.6, wallNow: wall + 1.6) == .ready)
        // A clock that reads a time before the file's: it waits the whole settle time.
        #expect(settling.look(at: "/m/future.mp4", observation: observed(10, modified: wall + 99), now: 50, wallNow: wall)
                == .settling(until: 52))
    }

    @Test func emptyFilesAreNeverReadyAndGoneFilesAreForgotten() {
        var settling = FileSettling(settle: 2)
        settling.note(.closedAfterWrite, path: "/m/e.mp4", at: 0)
        #expect(settling.look(at: "/m/e.mp4", observation: observed(0), now: 0.1, wallNow: wall) == .empty)
        #expect(settling.look(at: "/m/e.mp4", observation: nil, now: 0.2, wallNow: wall) == nil)
        // Forgotten: back again with an old time, it is judged as a first look.
        #expect(settling.look(at: "/m/e.mp4", observation: observed(5, modified: wall - 60), now: 0.3, wallNow: wall) == .ready)
    }

    @Test func aReplacedFileIsANewFileUntilItSettles() {
        var settling = FileSettling(settle: 2)
        #expect(settling.look(at: "/m/f.mp4", observation: observed(10, modified: wall - 60, inode: 1), now: 0, wallNow: wall) == .ready)
        // Replaced in place by a writer (new inode, same size): no close seen yet.
        settling.note(.written, path: "/m/f.mp4", at: 1)
        #expect(settling.look(at: "/m/f.mp4", observation: observed(10, modified: wall, inode: 2), now: 1.1, wallNow: wall) == .settling(until: 3.1))
    }
}

@Suite("Watched folders: which folders, which names, what changed")
struct WatchedFoldersTests {
    let disk = FakeFileSystem(files: ["/media/a.mp4", "/shows/x/one.mp4", "/shows/y/two.mp4", "/clips/c.mp4"],
                              emptyDirectories: ["/empty"])

    @Test func directoriesAndGlobParentsAreWatched() {
        let items: [ItemConfig] = [.written(.directory("/media")), .written(.file("/clips/c.mp4")), .written(.file("/empty")),
                                   .written(.glob("/shows/*/*.mp4")), .written(.glob("/clips/*.mp4")), .written(.url("https://cdn/x.m3u8")),
                                   .written(.directory("/media/"))]
        #expect(WatchedFolders.directories(of: items, fileSystem: disk) == ["/media", "/empty", "/shows/x", "/shows/y", "/clips"])
    }

    @Test func temporariesAndJunkAreNotCandidates() {
        for name in ["clip.mp4", "Clip.MOV", "poster.png", "été 2026.mkv"] { #expect(WatchedFolders.isCandidate(name: name), "\(name)") }
        for name in [".clip.mp4.Xa3f9", "._clip.mp4", ".DS_Store", "clip.mp4.part", "clip.mp4.crdownload", "notes.txt", "clip.mp4~"] {
            #expect(!WatchedFolders.isCandidate(name: name), "\(name)")
        }
    }

    @Test func hiddenFilesAreLeftOutOfTheExpansion() {
        let settled = SettledFileSystem(base: FakeFileSystem(files: ["/in/a.mp4", "/in/b.mp4"]), hidden: ["/in/b.mp4"])
        let expansion = PlaylistExpander(fileSystem: settled).expand([.written(.directory("/in")), .written(.glob("/in/*.mp4"))])
        #expect(expansion.entries.map(\.media.description) == ["/in/a.mp4", "/in/a.mp4"])
        let onlyPending = SettledFileSystem(base: FakeFileSystem(files: ["/in/b.mp4"]), hidden: ["/in/b.mp4"])
        let empty = PlaylistExpander(fileSystem: onlyPending).expand([.written(.directory("/in"))])
        #expect(empty.entries.isEmpty)
        // Not an empty folder: its one file is on its way, and the line says so.
        #expect(empty.diagnostics.map(\.message) == ["'/in' has no media file ready yet: 'b.mp4' is still being written (or empty); played once settled"])
        let treeOfPending = SettledFileSystem(base: FakeFileSystem(files: ["/in/x/b.mp4", "/in/y/c.mp4"]), hidden: ["/in/x/b.mp4", "/in/y/c.mp4"])
        let tree = PlaylistExpander(fileSystem: treeOfPending).expand([.written(.tree("/in"))])
        #expect(tree.diagnostics.map(\.message) == ["'/in' has no media file ready yet: 'x/b.mp4' and 1 more are still being written (or empty); played once settled"])
        let trulyEmpty = PlaylistExpander(fileSystem: SettledFileSystem(base: disk)).expand([.written(.directory("/empty"))])
        #expect(trulyEmpty.diagnostics.map(\.message).first?.contains("holds no media files") == true)
    }

    @Test func theDifferenceNamesWhatJoinedAndLeft() {
        let old = ["/m/a.mp4", "/m/b.mp4"].map { PlaylistEntry(media: .file($0), item: .written(.directory("/m")), itemIndex: 0) }
        let new = ["/m/b.mp4", "/m/c.mp4", "/m/d.mp4"].map { PlaylistEntry(media: .file($0), item: .written(.directory("/m")), itemIndex: 0) }
        let difference = PlaylistDifference(from: old, to: new)
        #expect(difference.summary == "+/m/c.mp4, +/m/d.mp4, -/m/a.mp4 (3 entries)")
        #expect(PlaylistDifference(from: new, to: []).summary == "-/m/b.mp4, -/m/c.mp4, -/m/d.mp4 (0 entries)")
        #expect(PlaylistDifference(from: old, to: old).isEmpty)
    }
}
