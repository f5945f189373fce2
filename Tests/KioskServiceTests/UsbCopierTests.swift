import Foundation
import KioskCore
import Logging
import Testing
@testable import KioskService

/// Copy mode mirrors a stick's media and its playlist files, so a `show.m3u` at its top plays
/// from the copy folder as from the stick; what the next stick lacks goes.
@Suite(.serialized) struct UsbCopierTests {
    private func write(_ path: String, _ text: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    private func copier(to folder: String) -> UsbCopier {
        var config = UsbConfig()
        config.mode = .copy
        config.copyTo = folder
        config.minFree = 0
        return UsbCopier(config: config, logger: Logger(label: "usb-copy-tests"))
    }

    @Test func playlistFilesAreCopiedWithTheMediaAndGoWithTheStick() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-usbcopy-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let stick = root + "/stick", copy = root + "/copy"
        try write(stick + "/a.mp4", "a")
        try write(stick + "/Menus/b.mp4", "b")
        try write(stick + "/Menus/more.pls", "[playlist]\nFile1=b.mp4\n")
        try write(stick + "/show.m3u", "Menus/more.pls\na.mp4\n")
        try write(stick + "/notes.txt", "not media")
        try write(stick + "/._show.m3u", "a macOS fork")
        let copier = copier(to: copy)
        copier.copy(from: UsbVolume(device: "/dev/sda1", mountPoint: stick))
        #expect(UsbCopier.mediaFiles(in: copy).map(\.name).sorted() == ["Menus/b.mp4", "Menus/more.pls", "a.mp4", "show.m3u"])
        // The next stick has no list: the copy's goes with the stick's other files.
        try FileManager.default.removeItem(atPath: stick)
        try write(stick + "/c.mp4", "c")
        copier.copy(from: UsbVolume(device: "/dev/sda1", mountPoint: stick))
        #expect(UsbCopier.mediaFiles(in: copy).map(\.name) == ["c.mp4"])
        #expect(UsbStickItems.item(for: copy, topNames: try FileManager.default.contentsOfDirectory(atPath: copy)).item.source
                == .tree(copy))
    }

    /// A stick's links out of it are not copied: `menu.mp4 -> a file of the box` would put the
    /// box's file, readable by all, into the media folder; `all -> /` would copy the box's media.
    @Test func linksOutOfTheStickAreNotCopied() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-usbcopy-links-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let stick = root + "/stick", copy = root + "/copy"
        try write(root + "/secret/key.mp4", "the box's")
        try write(stick + "/a.mp4", "a")
        try FileManager.default.createSymbolicLink(atPath: stick + "/menu.mp4", withDestinationPath: root + "/secret/key.mp4")
        try FileManager.default.createSymbolicLink(atPath: stick + "/all", withDestinationPath: root + "/secret")
        try FileManager.default.createSymbolicLink(atPath: stick + "/same.mp4", withDestinationPath: "a.mp4")
        try FileManager.default.createSymbolicLink(atPath: stick + "/loop", withDestinationPath: ".")
        #expect(UsbCopier.mediaFiles(in: stick).map(\.name).sorted() == ["a.mp4", "same.mp4"])
        copier(to: copy).copy(from: UsbVolume(device: "/dev/sda1", mountPoint: stick))
        #expect(try FileManager.default.contentsOfDirectory(atPath: copy).sorted() == ["a.mp4", "same.mp4"])
    }
}
