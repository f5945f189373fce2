import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

private func entries(_ paths: [String]) -> [PlaylistEntry] {
    paths.map { PlaylistEntry(media: .file($0), item: ItemConfig(source: .file($0), location: SourceLocation(file: "k", line: 1, column: 1)), itemIndex: 0) }
}

private func disk(_ name: String, usb: Bool = true, partition: Bool = false, partitions: Bool = false, sectors: UInt64 = 2048) -> BlockDevice {
    BlockDevice(name: name, isUSB: usb, isPartition: partition, hasPartitions: partitions, sectors: sectors)
}

@Suite("USB sticks: what to mount, what plays")
struct UsbStickTests {
    @Test func mountinfoLinesAreParsedWithTheirEscapes() {
        let text = """
        22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw
        36 22 8:17 / /media/My\\040Stick rw,nosuid shared:20 master:3 - vfat /dev/sdb1 ro,fmask=0022
        37 22 0:5 / /dev rw - devtmpfs udev rw
        broken line
        """
        let mounts = MountEntry.parse(mountinfo: text)
        #expect(mounts == [MountEntry(mountPoint: "/", fileSystemType: "ext4", source: "/dev/vda1", mountID: 22),
                           MountEntry(mountPoint: "/media/My Stick", fileSystemType: "vfat", source: "/dev/sdb1", mountID: 36, isReadOnly: true),
                           MountEntry(mountPoint: "/dev", fileSystemType: "devtmpfs", source: "udev", mountID: 37)])
    }

    @Test func usbPartitionsAndSuperfloppiesAreMountedOthersAreNot() {
        let devices = [disk("sda", partitions: true), disk("sda1", partition: true), disk("sdb"),
                       disk("sdc", sectors: 0), disk("vda", usb: false), disk("vda1", usb: false, partition: true)]
        let look = UsbLook(devices: devices, mounts: [], mountRoot: "/run/kiosk/usb")
        #expect(look.toMount == [UsbVolume(device: "/dev/sda1", mountPoint: "/run/kiosk/usb/sda1"),
                                 UsbVolume(device: "/dev/sdb", mountPoint: "/run/kiosk/usb/sdb")])
        #expect(look.volumes.isEmpty && look.toUnmount.isEmpty)
    }

    @Test func sticksMountedByOthersAreFollowedAndFailuresNotRetried() {
        let devices = [disk("sda", partitions: true), disk("sda1", partition: true), disk("sdb")]
        let mounts = [MountEntry(mountPoint: "/media/stick", fileSystemType: "vfat", source: "/dev/sda1")]
        let look = UsbLook(devices: devices, mounts: mounts, mountRoot: "/run/kiosk/usb/", failed: ["/dev/sdb"])
        #expect(look.volumes == [UsbVolume(device: "/dev/sda1", mountPoint: "/media/stick")])
        #expect(look.toMount.isEmpty)
    }

    @Test func aStickNotReadyIsTriedAgainForAWhileOthersAreNot() {
        var retries = MountRetries()
        // (device, not ready, now) -> try again?
        let tries: [(String, Bool, Double, Bool)] = [
            ("/dev/sda1", true, 100, true), ("/dev/sda1", true, 109.9, true), ("/dev/sda1", true, 110, false),
            ("/dev/sdb1", false, 100, false), ("/dev/sdc1", true, 100, true),
        ]
        for (device, notReady, now, expected) in tries {
            let retried = retries.shouldRetry(device, notReady: notReady, now: now)
            #expect(retried == expected, "\(device) at \(now)")
        }
        // sda1 gave up (its window is over), sdb1 was never waited on; sdc1 is waited on until
        // it is gone.
        #expect(retries.isWaiting)
        retries.keep(present: ["/dev/sda1"])
        #expect(!retries.isWaiting)
        // Mounted, then plugged again later: a window of its own.
        _ = retries.shouldRetry("/dev/sdd1", notReady: true, now: 100)
        retries.forget("/dev/sdd1")
        let again = [500.0, 509, 510.5].map { retries.shouldRetry("/dev/sdd1", notReady: true, now: $0) }
        #expect(again == [true, true, false])
    }

    @Test func aPulledSticksMountUnderTheRootIsUndoneOnly() {
        let mounts = [MountEntry(mountPoint: "/run/kiosk/usb/sda1", fileSystemType: "vfat", source: "/dev/sda1"),
                      MountEntry(mountPoint: "/media/other", fileSystemType: "vfat", source: "/dev/sdc1"),
                      MountEntry(mountPoint: "/run/kiosk/usb/x", fileSystemType: "tmpfs", source: "tmpfs")]
        let look = UsbLook(devices: [disk("vda", usb: false)], mounts: mounts, mountRoot: "/run/kiosk/usb")
        #expect(look.toUnmount == ["/run/kiosk/usb/sda1"])
        #expect(look.volumes.isEmpty)
    }

    @Test func aStickReplacesThePlaylistAndItsRemovalGivesItBack() {
        var choice = UsbPlaylistChoice()
        let configured = entries(["/srv/a.mp4", "/srv/b.mp4"]), stick = entries(["/run/kiosk/usb/sda1/x.mp4"])
        #expect(choice.update(found: [], configured: configured) == nil)
        #expect(choice.update(found: stick, configured: configured) == .switchPlaylist(stick, when: .now))
        #expect(choice.overridesConfigured)
        #expect(choice.update(found: stick, configured: configured) == nil)
        let more = entries(["/run/kiosk/usb/sda1/x.mp4", "/run/kiosk/usb/sdb1/y.mp4"])
        #expect(choice.update(found: more, configured: configured) == .switchPlaylist(more, when: .now))
        #expect(choice.update(found: [], configured: configured) == .switchPlaylist(configured, when: .now))
        #expect(!choice.overridesConfigured)
        #expect(choice.update(found: [], configured: configured) == nil)
    }

    @Test func theCopyPlanSkipsWhatIsThereAndWhatDoesNotFit() {
        typealias File = UsbCopyPlan.File
        let stick = [File(name: "a.mp4", size: 100, modified: 10), File(name: "b.mp4", size: 300, modified: 20),
                     File(name: "c.mp4", size: 50, modified: 30), File(name: "empty.mp4", size: 0, modified: 1),
                     File(name: "d.mp4", size: 60, modified: 40)]
        let folder = [File(name: "a.mp4", size: 100, modified: 10), File(name: "c.mp4", size: 49, modified: 30),
                      File(name: "old.mp4", size: 5, modified: 1)]
        let plan = UsbCopyPlan(stick: stick, folder: folder, available: 1_200, minFree: 1_000)
        #expect(plan.unchanged == ["a.mp4"])
        #expect(plan.copy.map(\.name) == ["c.mp4", "d.mp4"])
        #expect(plan.tooLarge.map(\.file.name) == ["b.mp4"] && plan.tooLarge.map(\.available) == [1_200])
        #expect(plan.stale == ["old.mp4"])
        #expect(UsbCopyPlan.temporaryName(for: "c.mp4").hasPrefix("."))
    }
}

@Suite("kiosk.conf: usb and playback.settle")
struct ArrivalConfigTests {
    private func load(_ text: String) throws(ConfigError) -> KioskConfig {
        try ConfigLoader.load(contents: Data(text.utf8), path: "/etc/kiosk/kiosk.conf",
                              fileSystem: FakeFileSystem(files: ["/srv/a.mp4"]))
    }

    @Test func defaultsAndShorthand() throws {
        let plain = try load("items: [/srv/a.mp4]\n")
        #expect(plain.usb == UsbConfig() && plain.usb.mode == .off)
        #expect(plain.playback.settle == MediaTime(value: 2, timescale: 1))
        #expect(try load("usb: auto\nitems: [/srv/a.mp4]\n").usb.mode == .play)
        #expect(try load("usb: copy\nitems: [/srv/a.mp4]\n").usb.mode == .copy)
    }

    @Test func theSectionReadsEveryKey() throws {
        let config = try load("""
        playback: {settle: 0.5}
        usb: {mode: copy, mount_root: /media/kiosk, copy_to: usb-media, min_free: 1G}
        items: [/srv/a.mp4]
        """)
        #expect(config.usb.mode == .copy && config.usb.mountRoot == "/media/kiosk")
        #expect(config.usb.copyTo == "/etc/kiosk/usb-media" && config.usb.minFree == 1 << 30)
        #expect(config.playback.settle == MediaTime(seconds: 0.5))
    }

    @Test func badValuesAreErrorsAtTheirLine() {
        #expect(throws: ConfigError.self) { try load("usb: sometimes\nitems: [/srv/a.mp4]\n") }
        do {
            _ = try load("usb:\n  mode: play\n  mount_root: relative\n  min_free: lots\n  copy: x\nitems: [/srv/a.mp4]\n")
            Issue.record("accepted")
        } catch {
            let lines = error.diagnostics.map(\.line)
            #expect(lines.contains(3) && lines.contains(4) && lines.contains(5), "\(error.diagnostics)")
        }
    }

    @Test func aChangeOfUsbWaitsForARestartAndSettleIsLive() throws {
        let old = try load("items: [/srv/a.mp4]\n"), new = try load("usb: play\nplayback: {settle: 5}\nitems: [/srv/a.mp4]\n")
        let changes = ConfigChanges(from: old, to: new)
        #expect(changes.waitingForRestart == [.usb])
        #expect(changes.playbackSettings == [.settle])
        #expect(new.appliedLive(to: old).usb == old.usb)
    }
}

/// A stick holding a playlist file at its top plays that list; else its media, folders too.
@Suite("USB sticks: a playlist file at the top")
struct UsbStickPlaylistTests {
    @Test func aPlaylistFileAtTheTopIsWhatPlays() {
        let plain = UsbStickItems.item(for: "/media/sda1", topNames: ["a.mp4", "Folder", "notes.txt"])
        #expect(plain.item.source == .tree("/media/sda1") && plain.note == nil)
        let listed = UsbStickItems.item(for: "/media/sda1", topNames: ["a.mp4", "._show.m3u", ".hidden.pls", "Show.XSPF"])
        #expect(listed.item.source == .file("/media/sda1/Show.XSPF") && listed.note == nil, "hidden names and forks are not lists")
        let several = UsbStickItems.item(for: "/media/sda1", topNames: ["b.m3u", "list10.pls", "list2.pls", "a.mp4"])
        #expect(several.item.source == .file("/media/sda1/b.m3u"))
        #expect(several.note == "3 playlist files at the top of /media/sda1 (b.m3u, list2.pls, list10.pls): b.m3u plays, the first by name")
    }

    /// The stick's list is read as any playlist file: its entries in its order, relative to it.
    @Test func theListsEntriesPlayInItsOrder() {
        var stick = FakeFileSystem(files: ["/media/sda1/a.mp4", "/media/sda1/Menus/lunch.mp4", "/media/sda1/show.m3u"])
        stick.contents = ["/media/sda1/show.m3u": Array("Menus/lunch.mp4\r\nE:\\a.mp4\r\n".utf8)]
        let item = UsbStickItems.item(for: "/media/sda1", topNames: ["a.mp4", "Menus", "show.m3u"]).item
        let expansion = PlaylistExpander(fileSystem: stick).expand([item])
        #expect(expansion.entries.map(\.media.description) == ["/media/sda1/Menus/lunch.mp4", "/media/sda1/a.mp4"])
    }

    /// A stick's list is a passer-by's file: it plays the stick's own files, never another
    /// file of the box nor a URL into the shop's network.
    @Test func aSticksListNamesTheSticksFilesOnly() {
        var stick = FakeFileSystem(files: ["/media/sda1/a.mp4", "/media/sda1/show.m3u", "/etc/shadow", "/media/sda10/b.mp4",
                                           "/var/lib/kiosk/media/c.mp4", "/home/me/d.mp4", "/media/sda1/d.mp4", "/media/sda1/live.m3u8"])
        stick.contents = ["/media/sda1/show.m3u": Array(("/etc/shadow\n../../etc/shadow\nhttp://10.0.0.1/admin\n../sda10/b.mp4\n"
            + "/media/sda1/a.mp4\nfile:///var/lib/kiosk/media/c.mp4\n/home/me/Videos/a.mp4\n/home/me/d.mp4\nlive.m3u8\n").utf8),
                          "/media/sda1/live.m3u8": Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\nhttp://10.0.0.1/seg.ts\n".utf8)]
        var expander = PlaylistExpander(fileSystem: stick)
        expander.confinement = "/media/sda1"
        let expansion = expander.expand([UsbStickItems.item(for: "/media/sda1", topNames: ["a.mp4", "show.m3u"]).item])
        #expect(expansion.entries.map(\.media.description) == ["/media/sda1/a.mp4", "/media/sda1/a.mp4", "/media/sda1/d.mp4"],
                "/home/me/Videos/a.mp4 missing, /home/me/d.mp4 the box's: both found on the stick")
        #expect(expansion.diagnostics.map(\.message) == [
            "playlist file '/media/sda1/show.m3u' line 1: '/etc/shadow' is not a file in /media/sda1; a list there plays files there only; skipped",
            "playlist file '/media/sda1/show.m3u' line 2: '/etc/shadow' is not a file in /media/sda1; a list there plays files there only; skipped",
            "playlist file '/media/sda1/show.m3u' line 3: 'http://10.0.0.1/admin' is a URL; a list in /media/sda1 plays files there only; skipped",
            "playlist file '/media/sda1/show.m3u' line 4: '/media/sda10/b.mp4' is not a file in /media/sda1; a list there plays files there only; skipped",
            "playlist file '/media/sda1/show.m3u' line 6: '/var/lib/kiosk/media/c.mp4' is not a file in /media/sda1; a list there plays "
                + "files there only; skipped",
            "playlist file '/media/sda1/show.m3u' line 9: '/media/sda1/live.m3u8' is an HLS stream's playlist; a list in /media/sda1 "
                + "plays files there only; skipped",
        ])
        // An HLS stream's playlist at the stick's top is not handed to FFmpeg either.
        let top = expander.expand([UsbStickItems.item(for: "/media/sda1", topNames: ["live.m3u8"]).item])
        #expect(top.entries.isEmpty && top.diagnostics.map(\.message) == [
            "'/media/sda1/live.m3u8' is an HLS stream's playlist; a list in /media/sda1 plays files there only; skipped"])
    }

    /// On a real file system: a link out of the stick and a device are not the stick's files.
    @Test func linksOutAndDevicesAreNotTheSticks() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-stick-\(getpid())").path
        try? FileManager.default.removeItem(atPath: root)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/Menus", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/Menus/a.mp4"))
        try FileManager.default.createSymbolicLink(atPath: root + "/w.mp4", withDestinationPath: "/dev/null")
        try FileManager.default.createSymbolicLink(atPath: root + "/all", withDestinationPath: "/")
        try FileManager.default.createSymbolicLink(atPath: root + "/inside.mp4", withDestinationPath: "Menus/a.mp4")
        // Folders through links inside the stick: walked, they listed a.mp4 again at every level.
        try FileManager.default.createSymbolicLink(atPath: root + "/loop", withDestinationPath: ".")
        try FileManager.default.createSymbolicLink(atPath: root + "/Menus/up", withDestinationPath: "..")
        try Data("Menus/a.mp4\nw.mp4\nall/etc/hostname\ninside.mp4\n".utf8).write(to: URL(fileURLWithPath: root + "/show.m3u"))
        // A list that is a link out of the stick, or empty, is not the stick's list.
        try FileManager.default.createSymbolicLink(atPath: root + "/a.m3u", withDestinationPath: "/etc/hostname")
        try Data().write(to: URL(fileURLWithPath: root + "/b.m3u"))
        var expander = PlaylistExpander()
        expander.confinement = root
        let item = UsbStickItems.item(for: root, fileSystem: LocalFileSystem())
        #expect(item.item.source == .file(root + "/show.m3u") && item.note == nil)
        let expansion = expander.expand([item.item])
        #expect(expansion.entries.map(\.media.description) == [root + "/Menus/a.mp4", root + "/inside.mp4"])
        #expect(expansion.diagnostics.map(\.message).map { $0.contains("is not a file in \(root)") } == [true, true])
        // The stick as a tree (no list): the link to a device is not played, the link to / not walked.
        let tree = expander.expand([ItemConfig(source: .tree(root), location: item.item.location)])
        #expect(tree.entries.map(\.media.description) == [root + "/inside.mp4", root + "/Menus/a.mp4"])
        #expect(tree.diagnostics.isEmpty)
        let folder = expander.expand([ItemConfig(source: .directory(root), location: item.item.location)])
        #expect(folder.entries.map(\.media.description) == [root + "/inside.mp4"])
    }
}
