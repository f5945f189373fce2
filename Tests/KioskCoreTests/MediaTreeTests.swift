import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// A stick's media in folders (issue 34): depth first in natural order of the path, junk
/// folders not entered, bounds said in one line, and the expander's `.tree` items.
@Suite struct MediaTreeTests {
    let stick = FakeFileSystem(files: [
        "/s/a.mp4", "/s/B.MP4", "/s/Folder/c.jpg", "/s/Folder/d e.mp4", "/s/Folder/Sub/f.mkv", "/s/z.mp4",
        "/s/Folder/notes.txt", "/s/._a.mp4", "/s/.Trashes/501/old.mp4", "/s/.fseventsd/x.mp4",
        "/s/System Volume Information/IndexerVolumeGuid.mp4", "/s/$RECYCLE.BIN/S-1/r.mp4", "/s/.hidden/h.mp4",
        "/s/Folder 10/k.mp4", "/s/Folder 9/j.mp4",
    ])

    private func isMedia(_ name: String) -> Bool { PlaylistExpander.mediaExtensions.contains(PathText.lowercasedExtension(name)) }

    @Test func filesAndFoldersInNaturalOrderOfThePathDepthFirstWithoutJunk() {
        let tree = MediaTree.list("/s", fileSystem: stick, isMedia: isMedia)
        #expect(tree.files == ["/s/a.mp4", "/s/B.MP4", "/s/Folder/c.jpg", "/s/Folder/d e.mp4", "/s/Folder/Sub/f.mkv",
                               "/s/Folder 9/j.mp4", "/s/Folder 10/k.mp4", "/s/z.mp4"])
        #expect(tree.limitReached == nil)
    }

    @Test func aStickWithOnlyFoldersPlaysAndTheBoundsAreSaidOnce() {
        let onlyFolders = FakeFileSystem(files: ["/s/Menus/lunch.mp4", "/s/1/2/3/deep.mp4", "/s/1/top.mp4"])
        #expect(MediaTree.list("/s", fileSystem: onlyFolders, isMedia: isMedia).files
                == ["/s/1/2/3/deep.mp4", "/s/1/top.mp4", "/s/Menus/lunch.mp4"])
        let shallow = MediaTree.list("/s", fileSystem: onlyFolders, isMedia: isMedia, maximumDepth: 2)
        #expect(shallow.files == ["/s/1/top.mp4", "/s/Menus/lunch.mp4"], "the rest of the tree is still listed")
        #expect(shallow.limitReached == "/s: folders deeper than 2 levels (/s/1/2/3) are not looked into")
        let few = MediaTree.list("/s", fileSystem: stick, isMedia: isMedia, maximumFiles: 3)
        #expect(few.files == ["/s/a.mp4", "/s/B.MP4", "/s/Folder/c.jpg"])
        #expect(few.limitReached == "/s: more than 3 media files; the first 3 play")
    }

    @Test func theExpanderPlaysATreeAndSaysWhenItHoldsNothing() {
        let location = SourceLocation(file: "usb", line: 0, column: 0)
        let expansion = PlaylistExpander(fileSystem: stick).expand([ItemConfig(source: .tree("/s"), location: location)])
        #expect(expansion.entries.map(\.media) == [.file("/s/a.mp4"), .file("/s/B.MP4"), .file("/s/Folder/c.jpg"),
                                                   .file("/s/Folder/d e.mp4"), .file("/s/Folder/Sub/f.mkv"),
                                                   .file("/s/Folder 9/j.mp4"), .file("/s/Folder 10/k.mp4"), .file("/s/z.mp4")])
        #expect(expansion.diagnostics.isEmpty)
        let empty = FakeFileSystem(files: ["/e/Folder/readme.txt"])
        let nothing = PlaylistExpander(fileSystem: empty).expand([ItemConfig(source: .tree("/e"), location: location)])
        #expect(nothing.entries.isEmpty)
        #expect(nothing.diagnostics.map(\.message) == ["'/e' holds no media files, in its folders either; skipped"])
        // A directory item keeps its documented top-level meaning.
        let top = PlaylistExpander(fileSystem: stick).expand([ItemConfig(source: .directory("/s"), location: location)])
        #expect(top.entries.count == 3)
    }

    @Test func aRecursiveDirectoryItemIsATreeAndItsFoldersAreWatched() throws {
        let config = try ConfigLoader.parse(text: "items:\n  - {path: /s/, recursive: true}\n  - /s/\n", fileName: "kiosk.conf",
                                            baseDirectory: "/srv/kiosk", fileSystem: stick)
        #expect(config.items.map(\.source) == [.tree("/s"), .directory("/s")])
        let watched = WatchedFolders.directories(of: config.items, fileSystem: stick)
        #expect(watched == ["/s", "/s/Folder", "/s/Folder/Sub", "/s/Folder 9", "/s/Folder 10"], "junk folders are not watched")
    }
}
