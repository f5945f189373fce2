import Foundation
import Glibc
import KioskCore
import Logging
import SystemPackage

/// `usb.mode` play or copy: follows USB sticks. Once a second (and at once when the mount
/// table changes: POLLPRI on /proc/self/mountinfo) it reads sysfs's block devices and the
/// mount table (`UsbLook` decides): a USB partition nobody mounted is mounted read-only,
/// nosuid, nodev, noexec under `usb.mount_root` when kiosk may (root or CAP_SYS_ADMIN;
/// signage boxes have no desktop automounter); sticks mounted by others (a udev rule,
/// systemd-mount) are followed wherever they are; a pulled stick's mount is undone lazily.
/// What the sticks hold (copy mode: the copy folder) goes to `UsbPlaylistChoice`, whose
/// request (`switchPlaylist` now) goes to the player like any other source's.
package final class UsbStickWatcher: @unchecked Sendable {
    // Safe to share: the thread is; the rest is touched by the watch thread only.
    private let config: UsbConfig
    private let reloader: ConfigReloader
    private let sink: any PlayerRequestSink
    private let logger: Logger
    private let thread = StoppableThread(name: "kiosk-usb")
    private var choice = UsbPlaylistChoice()
    /// Devices kiosk could not mount, not tried again until they are unplugged.
    private var failed: Set<String> = []
    /// Volumes seen at the last look, to log arrivals and departures once.
    private var known: [UsbVolume] = []
    /// Copy mode: volumes copied already (a stick is copied once per plug).
    private var copied: Set<UsbVolume> = []
    /// Lines about a folder's media (a bound reached, a bad line of its list) already said, by
    /// folder: once each while the stick stays, again when it is plugged in again.
    private var said: [String: Set<String>] = [:]
    /// What each stick plays, kept between looks (a read-only stick's for the whole plug).
    private var media = UsbStickMedia()
    /// Volumes kiosk mounted (their mount line says where; no second line for them).
    private var mountedHere: Set<String> = []
    private var mountRefusedSaid = false
    /// Sticks whose mount failed because they were not ready yet: tried again at the next looks.
    private var retries = MountRetries()

    package init(config: UsbConfig, reloader: ConfigReloader, sink: any PlayerRequestSink, logger: Logger) {
        self.config = config
        self.reloader = reloader
        self.sink = sink
        self.logger = logger
    }

    package func start() { thread.start { [self] in watch() } }

    /// Waits for a copy under way to finish its file (a stick's file is some MB at most).
    package func stop() { thread.stop(timeout: 5) }

    private var shouldStop: Bool { thread.shouldStop }

    private func watch() {
        let mountTable = try? FileDescriptor.open("/proc/self/mountinfo", .readOnly, options: .closeOnExec)
        defer { try? mountTable?.close() }
        while !shouldStop {
            lookOnce()
            // The mount table signals POLLPRI (with POLLERR) when it changes: a mount by
            // others is seen at once; sysfs has no such signal, so a plug is seen within 1 s.
            // One wait of a second, ended early by a mount or the stop (the wake pipe).
            var pollers = [pollfd(fd: mountTable?.rawValue ?? -1, events: Int16(POLLPRI), revents: 0)]
            if thread.poll(&pollers, seconds: 1), pollers[0].revents & Int16(POLLPRI) != 0 {
                _ = try? mountTable?.seek(offset: 0, from: .start)
                var scratch = [UInt8](repeating: 0, count: 4096)
                while let count = try? scratch.withUnsafeMutableBytes({ try mountTable?.read(into: $0) }), count > 0 {}
            }
        }
        // Stopping: kiosk's own mounts go with it (a stick left in is mounted again at the next
        // start; one pulled meanwhile leaves no mount behind).
        for volume in known where mountedHere.contains(volume.device) { unmount(volume.mountPoint) }
    }

    private func lookOnce() {
        let devices = SysfsBlockDevices.read()
        var mounts = Self.mounts()
        var look = UsbLook(devices: devices, mounts: mounts, mountRoot: config.mountRoot, failed: failed)
        let present = Set(devices.map { "/dev/" + $0.name })
        failed = failed.filter { present.contains($0) }
        retries.keep(present: present)
        for folder in look.toUnmount { unmount(folder) }
        if !look.toMount.isEmpty {
            for volume in look.toMount {
                switch mount(volume) {
                case .mounted:
                    mountedHere.insert(volume.device)
                    retries.forget(volume.device)
                case .refused:
                    failed.insert(volume.device)
                case .failed(let reasons, let notReady):
                    if retries.shouldRetry(volume.device, notReady: notReady, now: MonotonicClock().now()) {
                        logger.debug("USB stick \(volume.device): not ready to mount yet (\(reasons)); trying again")
                    } else {
                        failed.insert(volume.device)
                        logger.error("USB stick \(volume.device): cannot mount it as \(UsbLook.fileSystemTypes.joined(separator: ", ")) (\(reasons)); it is ignored until plugged in again")
                    }
                }
            }
            mounts = Self.mounts()
            look = UsbLook(devices: devices, mounts: mounts, mountRoot: config.mountRoot, failed: failed)
        }
        let volumes = look.volumes
        let arrived = volumes.filter { !known.contains($0) }
        for volume in arrived where !mountedHere.contains(volume.device) {
            logger.notice("USB stick \(volume.device) is at \(volume.mountPoint) (mounted by the system)")
        }
        for volume in known where !volumes.contains(volume) {
            logger.notice("USB stick \(volume.device) is gone (was at \(volume.mountPoint))")
            said[volume.mountPoint] = nil
            media.forget(volume.mountPoint)
        }
        known = volumes
        mountedHere = mountedHere.filter { device in volumes.contains { $0.device == device } }
        copied = copied.filter { volumes.contains($0) }
        let found: [PlaylistEntry]
        switch config.mode {
        case .off: return
        case .play:
            // A read-only file system (kiosk mounts sticks so) is listed once per mount.
            // The last mount at a place is the one seen there.
            let seen = Dictionary(mounts.map { ($0.mountPoint, $0) }) { _, last in last }
            let readOnly = seen.compactMapValues { $0.isReadOnly ? $0.mountID : nil }
            found = media.entries(in: volumes.map(\.mountPoint), readOnly: readOnly,
                                  now: Date().timeIntervalSince1970, say: sayOnce)
            // Each folder's entries carry its index: an arrived stick that gave none plays nothing.
            for (index, volume) in volumes.enumerated() where arrived.contains(volume) && !found.contains(where: { $0.itemIndex == index }) {
                logger.notice("USB stick \(volume.device): no media files on it, in its folders either (\(volume.mountPoint)); nothing of it plays")
            }
        case .copy:
            for volume in volumes where !copied.contains(volume) {
                copied.insert(volume)
                UsbCopier(config: config, logger: logger).copy(from: volume)
            }
            found = media.entries(in: [config.copyTo], now: Date().timeIntervalSince1970, say: sayOnce)
        }
        reloader.steer { configured in
            guard let request = choice.update(found: found, configured: configured) else { return choice.overridesConfigured }
            if choice.overridesConfigured {
                let source = config.mode == .copy ? "the copy folder \(config.copyTo)" : "the USB stick"
                logger.notice("playing \(found.count) media \(found.count == 1 ? "file" : "files") from \(source) instead of the playlist")
            } else {
                logger.notice("USB stick removed: back to the configured playlist (\(configured.count) \(configured.count == 1 ? "entry" : "entries"))")
            }
            sink.send(request)
            return choice.overridesConfigured
        }
    }

    private func sayOnce(_ line: String, about folder: String) {
        guard said[folder, default: []].insert(line).inserted else { return }
        logger.notice("\(line)")
    }

    // MARK: Mounting

    private enum MountOutcome {
        case mounted
        /// Not allowed (said once); not tried again for this plug.
        case refused
        /// Every type failed: why, per type; `notReady` when one said the medium was not
        /// readable yet (ENXIO, ENOMEDIUM, EIO, ENOENT: a stick still settling after its plug).
        case failed(reasons: String, notReady: Bool)
    }

    private static let notReadyErrors: Set<Int32> = [ENXIO, ENOMEDIUM, EIO, ENOENT]

    private func mount(_ volume: UsbVolume) -> MountOutcome {
        do {
            try FileManager.default.createDirectory(atPath: volume.mountPoint, withIntermediateDirectories: true)
        } catch {
            logger.error("USB stick \(volume.device): cannot create \(volume.mountPoint): \(error.localizedDescription)")
            return .refused
        }
        let flags = UInt(MS_RDONLY) | UInt(MS_NOSUID) | UInt(MS_NODEV) | UInt(MS_NOEXEC) | UInt(MS_NOATIME)
        var reasons: [String] = []
        var notReady = false
        for type in UsbLook.fileSystemTypes {
            if Glibc.mount(volume.device, volume.mountPoint, type, flags, UsbLook.mountData(for: type)) == 0 {
                logger.notice("USB stick \(volume.device) mounted at \(volume.mountPoint) (\(type), read-only)")
                return .mounted
            }
            let error = errno
            if error == EPERM || error == EACCES {
                rmdir(volume.mountPoint)
                if !mountRefusedSaid {
                    mountRefusedSaid = true
                    let reason = Errno(rawValue: error).description
                    logger.warning("USB stick \(volume.device): kiosk may not mount it (\(reason)): it runs without CAP_SYS_ADMIN; sticks mounted by the system are played (README, \"USB sticks\")")
                }
                return .refused
            }
            reasons.append("\(type): \(Errno(rawValue: error).description)")
            notReady = notReady || Self.notReadyErrors.contains(error)
        }
        rmdir(volume.mountPoint)
        return .failed(reasons: reasons.joined(separator: "; "), notReady: notReady)
    }

    private func unmount(_ folder: String) {
        // MNT_DETACH: a reader blocked on the pulled stick must not hold the unmount up.
        if umount2(folder, Int32(MNT_DETACH)) != 0 {
            logger.warning("USB stick at \(folder): cannot unmount it: \(Errno(rawValue: errno).description)")
            return
        }
        rmdir(folder)
    }

    private static func mounts() -> [MountEntry] {
        guard let text = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return [] }
        return MountEntry.parse(mountinfo: text)
    }
}

/// `kiosk run`'s start of the stick watcher, when `usb.mode` asks for one.
package enum UsbWiring {
    package static func start(_ config: UsbConfig, reloader: ConfigReloader, sink: any PlayerRequestSink, logger: Logger) -> UsbStickWatcher? {
        guard config.mode != .off else { return nil }
        let watcher = UsbStickWatcher(config: config, reloader: reloader, sink: sink, logger: logger)
        watcher.start()
        return watcher
    }
}

/// Block devices as sysfs lists them (/sys/class/block).
package enum SysfsBlockDevices {
    package static func read(root: String = "/sys/class/block") -> [BlockDevice] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.map { name in
            let directory = root + "/" + name
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: directory)) ?? ""
            let isPartition = FileManager.default.fileExists(atPath: directory + "/partition")
            let children = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            let size = (try? String(contentsOfFile: directory + "/size", encoding: .utf8))
                .flatMap { UInt64($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
            return BlockDevice(name: name, isUSB: target.contains("/usb"), isPartition: isPartition,
                               hasPartitions: !isPartition && children.contains { $0.hasPrefix(name) && $0 != name },
                               sectors: size)
        }
    }
}
