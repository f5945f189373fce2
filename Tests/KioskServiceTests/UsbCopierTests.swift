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
        var config = UsbConfig()
        config.mode = .copy
        config.copyTo = copy
        config.minFree = 0
        let copier = UsbCopier(config: config, logger: Logger(label: "usb-copy-tests"))
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
}
