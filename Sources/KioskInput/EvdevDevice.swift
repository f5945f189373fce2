import CEvdev
import Glibc
import KioskCore
import SystemPackage

/// Why an input device could not be used; the message names the device node.
public struct InputDeviceError: Error, Sendable, Hashable, CustomStringConvertible {
    public let path: String
    public let errno: Int32
    public let reason: String

    public var description: String { "cannot open \(path): \(reason)" }

    /// Permission problems may be fixed by udev a moment after the node appears, and a node
    /// seen by inotify may be gone already: worth another try.
    public var mayBeTransient: Bool { errno == EACCES || errno == EPERM || errno == ENOENT }

    static func from(path: String, errno code: Int32, doing what: String = "") -> InputDeviceError {
        let reason: String
        switch code {
        case EACCES, EPERM:
            reason = "permission denied; the user must be in group 'input' (or the service run as root)"
        case ENOENT, ENODEV, ENXIO:
            reason = "no such device (unplugged?)"
        case EBUSY:
            reason = "another program has grabbed it exclusively"
        default:
            reason = (what.isEmpty ? "" : what + ": ") + Errno(rawValue: code).description
        }
        return InputDeviceError(path: path, errno: code, reason: reason)
    }
}

/// What a read from a device brought, in the order it happened.
enum ReadItem {
    case event(InputEvent)
    /// The kernel dropped events (SYN_DROPPED); these are libevdev's sync events that bring
    /// our view of the device up to date. Events after it continue from the synced state.
    case resync([InputEvent])
}

/// The outcome of reading what a device has now.
struct ReadOutcome {
    var items: [ReadItem] = []
    /// Set when the device is gone (ENODEV) or failed: it must be closed after `items`.
    var goneReason: String?
}

/// One open /dev/input/eventN through libevdev. Used by the reader thread only (not Sendable).
final class EvdevDevice {
    let path: String
    let fd: FileDescriptor
    let capabilities: DeviceCapabilities
    /// Whether event times are CLOCK_MONOTONIC (asked for at open); if the kernel refused,
    /// the reader stamps events with the time it reads them.
    let monotonicTimestamps: Bool
    private(set) var isGrabbed = false
    private let device: OpaquePointer

    init(path: String) throws(InputDeviceError) {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, .readOnly, options: [.nonBlocking, .closeOnExec])
        } catch {
            throw .from(path: path, errno: (error as? Errno)?.rawValue ?? EIO)
        }
        var device: OpaquePointer?
        let status = libevdev_new_from_fd(fd.rawValue, &device)
        guard status == 0, let device else {
            try? fd.close()
            throw .from(path: path, errno: -status, doing: "not an evdev device")
        }
        self.path = path
        self.fd = fd
        self.device = device
        monotonicTimestamps = libevdev_set_clock_id(device, CLOCK_MONOTONIC) == 0
        capabilities = Self.readCapabilities(device)
    }

    deinit {
        if isGrabbed { _ = libevdev_grab(device, LIBEVDEV_UNGRAB) }
        libevdev_free(device)
        try? fd.close()
    }

    /// EVIOCGRAB: this process alone gets the events, so keys do not also type on the console.
    func grab() throws(InputDeviceError) {
        let status = libevdev_grab(device, LIBEVDEV_GRAB)
        guard status == 0 else { throw .from(path: path, errno: -status, doing: "exclusive grab") }
        isGrabbed = true
    }

    /// Reads everything available now (the fd is non-blocking).
    func readAvailable() -> ReadOutcome {
        var outcome = ReadOutcome()
        var raw = input_event()
        let sync = Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue)
        while true {
            let status = libevdev_next_event(device, LIBEVDEV_READ_FLAG_NORMAL.rawValue, &raw)
            if status == Int32(LIBEVDEV_READ_STATUS_SUCCESS.rawValue) {
                outcome.items.append(.event(convert(raw)))
            } else if status == sync {
                // SYN_DROPPED: the kernel's buffer overflowed. libevdev hands out the events
                // that bring our view of the device up to date; take them all now.
                var syncEvents: [InputEvent] = []
                var syncStatus = sync
                while syncStatus == sync {
                    syncStatus = libevdev_next_event(device, LIBEVDEV_READ_FLAG_SYNC.rawValue, &raw)
                    if syncStatus == sync { syncEvents.append(convert(raw)) }
                }
                outcome.items.append(.resync(syncEvents))
                if syncStatus == -ENODEV { outcome.goneReason = "unplugged"; return outcome }
            } else if status == -EAGAIN {
                return outcome
            } else {
                outcome.goneReason = status == -ENODEV ? "unplugged" : Errno(rawValue: -status).description
                return outcome
            }
        }
    }

    private func convert(_ raw: input_event) -> InputEvent {
        let time = monotonicTimestamps ? Double(raw.time.tv_sec) + Double(raw.time.tv_usec) / 1e6 : MonotonicClock().now()
        return InputEvent(type: raw.type, code: raw.code, value: raw.value, time: time)
    }

    private static func readCapabilities(_ device: OpaquePointer) -> DeviceCapabilities {
        let name = libevdev_get_name(device).map { String(cString: $0) } ?? ""
        var keys = Set<UInt16>()
        if libevdev_has_event_type(device, UInt32(EV_KEY)) != 0 {
            for code in 0...EvdevCode.keyMax where libevdev_has_event_code(device, UInt32(EV_KEY), UInt32(code)) != 0 {
                keys.insert(code)
            }
        }
        var axes: [UInt16: AxisRange] = [:]
        if libevdev_has_event_type(device, UInt32(EV_ABS)) != 0 {
            for code in 0...EvdevCode.absMax {
                guard libevdev_has_event_code(device, UInt32(EV_ABS), UInt32(code)) != 0,
                      let info = libevdev_get_abs_info(device, UInt32(code)) else { continue }
                axes[code] = AxisRange(minimum: Int(info.pointee.minimum), maximum: Int(info.pointee.maximum),
                                       resolution: Int(info.pointee.resolution))
            }
        }
        var properties = Set<UInt16>()
        for property in 0...EvdevCode.propMax where libevdev_has_property(device, UInt32(property)) != 0 {
            properties.insert(property)
        }
        return DeviceCapabilities(name: name, keys: keys, absoluteAxes: axes, properties: properties)
    }
}
