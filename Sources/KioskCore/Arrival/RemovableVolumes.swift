/// A block device as sysfs shows it (/sys/class/block/NAME).
public struct BlockDevice: Sendable, Equatable {
    /// "sda1", "sdb".
    public var name: String
    /// Its path under /sys/devices passes through a USB device (`.../usb2/2-1/...`).
    public var isUSB: Bool
    /// A partition (it has a `partition` file); a whole disk otherwise.
    public var isPartition: Bool
    /// A whole disk with partitions: they are mounted, not it.
    public var hasPartitions: Bool
    /// 512-byte sectors; 0 for a card reader with no card.
    public var sectors: UInt64

    public init(name: String, isUSB: Bool, isPartition: Bool, hasPartitions: Bool, sectors: UInt64) {
        self.name = name
        self.isUSB = isUSB
        self.isPartition = isPartition
        self.hasPartitions = hasPartitions
        self.sectors = sectors
    }

    /// What a stick holds a file system on: a partition, or a disk formatted without a
    /// partition table ("superfloppy", common on sticks formatted by cameras and macOS).
    public var mayHoldFileSystem: Bool { isUSB && sectors > 0 && (isPartition || !hasPartitions) }
}

/// One line of /proc/self/mountinfo, the fields kiosk needs.
public struct MountEntry: Sendable, Equatable {
    public var mountPoint: String
    public var fileSystemType: String
    /// The mount source: "/dev/sda1" for a block device.
    public var source: String
    /// The mount's ID: tells a stick mounted again at the same place, unless the place was
    /// unmounted first (Linux reuses the lowest free ID; UsbStickMedia bounds that case).
    public var mountID: Int
    /// Whether the file system itself is read-only (its super options), not only this view of
    /// it: nothing can change in it while it stays mounted.
    public var isReadOnly: Bool

    public init(mountPoint: String, fileSystemType: String, source: String, mountID: Int = 0, isReadOnly: Bool = false) {
        self.mountPoint = mountPoint
        self.fileSystemType = fileSystemType
        self.source = source
        self.mountID = mountID
        self.isReadOnly = isReadOnly
    }

    /// Parses mountinfo(5): `36 35 98:0 /root /mnt rw,noatime master:1 - ext3 /dev/root rw`.
    /// Paths escape space, tab, newline and backslash as octal (`\040`). Malformed lines: nil.
    public static func parse(mountinfo text: String) -> [MountEntry] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            guard let dash = fields.firstIndex(of: "-"), dash >= 6, fields.count >= dash + 3 else { return nil }
            let superOptions = fields.count > dash + 3 ? fields[dash + 3].split(separator: ",") : []
            return MountEntry(mountPoint: unescape(fields[4]), fileSystemType: fields[dash + 1], source: unescape(fields[dash + 2]),
                              mountID: Int(fields[0]) ?? 0, isReadOnly: superOptions.first == "ro")
        }
    }

    static func unescape(_ field: String) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(field.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "\\"), index + 3 < utf8.count,
               let value = UInt8(String(decoding: utf8[(index + 1)...(index + 3)], as: UTF8.self), radix: 8) {
                bytes.append(value)
                index += 4
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A stick's file system, mounted: where, and from which device.
public struct UsbVolume: Sendable, Equatable, Hashable {
    public var device: String
    public var mountPoint: String
    public init(device: String, mountPoint: String) {
        self.device = device
        self.mountPoint = mountPoint
    }
}

/// What to do about USB sticks after one look at sysfs and mountinfo. Pure.
public struct UsbLook: Sendable, Equatable {
    /// USB file systems mounted now (by kiosk or anyone), device order.
    public var volumes: [UsbVolume] = []
    /// USB partitions no one has mounted: kiosk mounts each at `mountPoint`.
    public var toMount: [UsbVolume] = []
    /// Folders under the mount root whose device is gone: kiosk unmounts them (lazily: a
    /// reader blocked on the dead device must not hold the unmount up) and removes the folder.
    public var toUnmount: [String] = []

    /// `devices`: sysfs's block devices; `mounts`: mountinfo; `mountRoot`: kiosk's folder;
    /// `failed`: devices kiosk could not mount (tried once per plug, not every second).
    public init(devices: [BlockDevice], mounts: [MountEntry], mountRoot: String, failed: Set<String> = []) {
        let present = Set(devices.map { "/dev/" + $0.name })
        let usbDevices = devices.filter(\.mayHoldFileSystem).sorted { $0.name < $1.name }
        let root = mountRoot.hasSuffix("/") ? mountRoot : mountRoot + "/"
        for device in usbDevices {
            let path = "/dev/" + device.name
            if let mount = mounts.first(where: { $0.source == path }) {
                volumes.append(UsbVolume(device: path, mountPoint: mount.mountPoint))
            } else if !failed.contains(path) {
                toMount.append(UsbVolume(device: path, mountPoint: root + device.name))
            }
        }
        // A pulled stick's mounts stay in the table until unmounted: the device is gone from
        // sysfs. Kiosk's own are undone; anyone else's are no longer played.
        toUnmount = mounts.filter { $0.mountPoint.hasPrefix(root) && $0.source.hasPrefix("/dev/") && !present.contains($0.source) }
            .map(\.mountPoint)
    }

    /// The file system types kiosk tries, in order: what sticks come formatted with.
    public static let fileSystemTypes = ["vfat", "exfat", "ext4"]

    /// mount(2) data per type: file names as UTF-8 on FAT and exFAT (Debian's default FAT
    /// iocharset is ascii, whose module may not be loaded: "IO charset ascii not found"), and
    /// for ext4 no journal replay on a read-only mount.
    public static func mountData(for type: String) -> String {
        switch type {
        case "vfat": return "iocharset=utf8,shortname=mixed"
        case "exfat": return "iocharset=utf8"
        case "ext4": return "noload"
        default: return ""
        }
    }
}

/// Mounts that failed because the stick was not ready, tried again at the next looks for a
/// while. A stick hot-plugged while its medium is still settling (a card reader, a slow
/// controller: the partition appears in sysfs before reads succeed) refuses the first mounts
/// with ENXIO or EIO; a mount tried once per plug ignored such a stick until it was plugged in
/// again (seen in the bed). Pure: the caller says whether an error means "not ready".
public struct MountRetries: Sendable, Equatable {
    /// How long a stick that is not ready is tried again, seconds from its first try.
    public static let window = 10.0
    private var firstTry: [String: Double] = [:]

    public init() {}

    /// After a failed mount of `device` at `now` (a monotonic clock): true to try again at
    /// the next look, false to give up until the stick is plugged in again. Only a stick that
    /// was `notReady` is tried again, within `window` of its first try.
    public mutating func shouldRetry(_ device: String, notReady: Bool, now: Double) -> Bool {
        let first = firstTry[device] ?? now
        guard notReady, now - first < Self.window else {
            firstTry[device] = nil
            return false
        }
        firstTry[device] = first
        return true
    }

    /// The device mounted or gone: a later plug starts a window of its own.
    public mutating func forget(_ device: String) { firstTry[device] = nil }

    /// Keeps only the devices still `present`.
    public mutating func keep(present: Set<String>) { firstTry = firstTry.filter { present.contains($0.key) } }

    public var isWaiting: Bool { !firstTry.isEmpty }
}
