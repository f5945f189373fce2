import Glibc
import KioskCore
import Logging

/// The screen touches are mapped to: the scanout (the panel's native orientation) and the
/// display rotation, as `TouchTransform` takes them.
public struct InputScreen: Sendable, Hashable {
    public var scanout: PixelSize
    public var rotation: Rotation

    public init(scanout: PixelSize, rotation: Rotation) {
        self.scanout = scanout; self.rotation = rotation
    }

    /// The screen as the viewer sees it.
    public var viewer: PixelSize { rotation.swapsAxes ? scanout.transposed : scanout }
}

/// A device being read, with its per-device gesture state.
final class OpenDevice {
    let device: EvdevDevice
    let roles: DeviceRoles
    var tracker: TouchTracker?
    var recognizer: GestureRecognizer?

    init(device: EvdevDevice, roles: DeviceRoles, tracker: TouchTracker?, recognizer: GestureRecognizer?) {
        self.device = device; self.roles = roles; self.tracker = tracker; self.recognizer = recognizer
    }

    var label: String { "\(device.path) '\(device.capabilities.name)'" }
}

/// Everything the input thread owns: the devices, hotplug, the gesture and action state. Only
/// that thread touches it (see `InputService`), so it needs no locks.
final class InputReader {
    let directory: String
    let selection: DeviceSelection
    let grab: Bool
    let screen: InputScreen
    let thresholds: GestureThresholds
    let keys: KeyTranslator
    let triggerInput: TriggerInput
    let player: PlayerRequestSink
    let logger: Logger
    var mapper: InputActionMapper
    let hotplug: HotplugWatcher?

    var devices: [String: OpenDevice] = [:]
    /// Nodes that appeared but could not be opened yet: when to try again, and how often we did.
    var retries: [String: (due: Double, attempt: Int)] = [:]
    /// Nodes looked at and not wanted (a power button, a mouse): not reopened on IN_ATTRIB.
    var ignored: Set<String> = []
    /// Carries out a command trigger's line as the control socket would (nil: done, else why not).
    let runCommand: (@Sendable (String) -> String?)?
    /// Delays between attempts to open a new node whose permissions may still be changing.
    static let retryDelays = [0.05, 0.1, 0.2, 0.4, 0.8, 1.6]

    init(config: InputConfig, screen: InputScreen, player: PlayerRequestSink, logger: Logger, directory: String,
         triggers: TriggerSet = TriggerSet(), runCommand: (@Sendable (String) -> String?)? = nil) {
        self.runCommand = runCommand
        self.directory = directory
        selection = DeviceSelection(config.devices)
        grab = config.grab
        self.screen = screen
        thresholds = GestureThresholds(doubleTapEnabled: config.gestures.doubleTap, scrubEnabled: config.gestures.scrub)
        keys = KeyTranslator(keyMap: config.keys)
        triggerInput = TriggerInput(triggers: triggers, screen: screen.viewer)
        self.player = player
        self.logger = logger
        mapper = InputActionMapper(settings: InputActionSettings(
            seekStep: config.seekStep, gestures: config.gestures, screenWidth: Double(screen.viewer.width)))
        hotplug = HotplugWatcher(directory: directory)
        if hotplug == nil { logger.warning("input: cannot watch \(directory) (inotify failed); devices plugged in later are not used") }
    }

    // MARK: Devices

    /// Opens every wanted device present now; reports once what could not be opened.
    func scanAtStart() {
        if !keys.unknownNames.isEmpty {
            logger.warning("input.keys: \(keys.unknownNames.joined(separator: ", ")) not known to this system's evdev; ignored")
        }
        if !triggerInput.unknownNames.isEmpty {
            logger.warning("triggers: \(triggerInput.unknownNames.joined(separator: ", ")) not known to this system's evdev; ignored")
        }
        for line in triggerInput.unreachableZones { logger.warning("\(line)") }
        var denied: [InputDeviceError] = []
        for path in nodePaths() {
            do throws(InputDeviceError) { try open(path) } catch {
                if error.errno == EACCES || error.errno == EPERM { denied.append(error) }
                else { logger.warning("input: \(error)") }
            }
        }
        if !denied.isEmpty {
            logger.warning("input: cannot open \(denied.map(\.path).joined(separator: ", ")): \(denied[0].reason)")
        }
        if case .listed(let entries) = selection.devices {
            let found = devices.values.flatMap { [$0.device.path, $0.device.capabilities.name] + resolvedPaths($0.device.path) }
            for entry in entries where !found.contains(entry) {
                logger.notice("input: no device '\(entry)' yet; it will be used when plugged in")
            }
        }
        if devices.isEmpty && denied.isEmpty && selection.devices == .auto {
            logger.notice("input: no touchscreen or keyboard found; devices plugged in later will be used")
        }
    }

    private func nodePaths() -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        return EventNodeNames.sorted(names).map { directory + "/" + $0 }
    }

    /// The paths kiosk.conf may use for a node: /dev/input/by-id and by-path links to it.
    private func resolvedPaths(_ path: String) -> [String] {
        var links: [String] = []
        for folder in ["by-id", "by-path"] {
            let base = directory + "/" + folder
            guard let dir = opendir(base) else { continue }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard !name.hasPrefix(".") else { continue }
                let link = base + "/" + name
                if let target = realpath(link, nil) {
                    if String(cString: target) == path { links.append(link) }
                    free(target)
                }
            }
        }
        return links
    }

    /// Opens `path` if it is wanted; throws only when it could not be opened at all.
    func open(_ path: String) throws(InputDeviceError) {
        guard devices[path] == nil else { return }
        let device = try EvdevDevice(path: path)
        let caps = device.capabilities
        var paths = [path]
        if case .listed = selection.devices { paths += resolvedPaths(path) }
        let roles = selection.roles(paths: paths, capabilities: caps, boundKeys: keys.boundCodes.union(triggerInput.boundCodes))
        guard !roles.isEmpty else {
            ignored.insert(path)
            if selection.lists(paths: paths, name: caps.name) {
                logger.warning("input: \(path) '\(caps.name)' is listed in input.devices but has neither touch nor a bound key; not used")
            } else {
                logger.debug("input: \(path) '\(caps.name)' not used (no touchscreen, no bound key)")
            }
            return
        }
        var tracker: TouchTracker?
        var recognizer: GestureRecognizer?
        if roles.contains(.touch), let touch = caps.touchProtocol {
            do {
                tracker = try TouchTracker(protocol: touch, scanout: screen.scanout, rotation: screen.rotation, device: path)
                recognizer = GestureRecognizer(screen: screen.viewer, thresholds: thresholds)
            } catch {
                logger.warning("input: \(error); its touches are ignored")
            }
        }
        if grab {
            do throws(InputDeviceError) { try device.grab() } catch {
                logger.warning("input: \(error); reading it without a grab (keys also reach the console)")
            }
        }
        ignored.remove(path)
        retries[path] = nil
        devices[path] = OpenDevice(device: device, roles: roles, tracker: tracker, recognizer: recognizer)
        var details = ""
        if let touch = caps.touchProtocol, tracker != nil {
            details = " (x \(touch.xAxis.minimum)...\(touch.xAxis.maximum), y \(touch.yAxis.minimum)...\(touch.yAxis.maximum)"
                + (device.isGrabbed ? ", grabbed)" : ")")
        } else if device.isGrabbed {
            details = " (grabbed)"
        }
        logger.notice("input: using \(path) '\(caps.name)' as \(roles.kind)\(details)")
    }

    func close(_ path: String, reason: String) {
        guard let open = devices.removeValue(forKey: path) else { return }
        if var recognizer = open.recognizer {
            act(on: recognizer.cancel(), at: MonotonicClock().now())
            open.recognizer = recognizer
        }
        logger.notice("input: \(open.label) \(reason)")
    }

    // MARK: Hotplug

    func handle(_ change: HotplugChange, now: Double) {
        switch change {
        case .directoryAppeared:
            for path in nodePaths() where devices[path] == nil { retries[path] = (now, 0) }
        case .removed(let path):
            close(path, reason: "removed")
            ignored.remove(path)
            retries[path] = nil
        case .appeared(let path, let created):
            if created { ignored.remove(path) }
            guard devices[path] == nil, !ignored.contains(path) else { return }
            attemptOpen(path, attempt: retries[path]?.attempt ?? 0, now: now)
        }
    }

    /// One try at a node that appeared; schedules the next while the failure may pass.
    func attemptOpen(_ path: String, attempt: Int, now: Double) {
        do throws(InputDeviceError) {
            try open(path)
            retries[path] = nil
        } catch {
            if error.mayBeTransient && attempt < Self.retryDelays.count {
                retries[path] = (now + Self.retryDelays[attempt], attempt + 1)
            } else {
                retries[path] = nil
                if error.errno != ENOENT { logger.warning("input: \(error)") }
            }
        }
    }

    func retryDue(now: Double) {
        for (path, retry) in retries where retry.due <= now { attemptOpen(path, attempt: retry.attempt, now: now) }
    }

    // MARK: Events

    /// Reads a device that poll marked; closes it if it went away.
    func readDevice(_ path: String) {
        guard let open = devices[path] else { return }
        let outcome = open.device.readAvailable()
        for item in outcome.items {
            switch item {
            case .event(let event): handle(event, from: open)
            case .resync(let events): resynchronize(open, with: events)
            }
        }
        if let reason = outcome.goneReason { close(path, reason: reason) }
    }

    private func handle(_ event: InputEvent, from open: OpenDevice) {
        if event.type == EvdevCode.synType && event.code == EvdevCode.synDropped { return }
        if open.roles.contains(.keys), triggerInput.owns(event) {
            if let trigger = triggerInput.trigger(for: event) { fire(trigger, from: "\(open.device.path)") }
        } else if open.roles.contains(.keys), let action = keys.action(for: event) {
            logger.debug("input: \(action) from \(open.device.path)")
            send(mapper.requests(for: action))
        }
        guard var tracker = open.tracker, var recognizer = open.recognizer else { return }
        let samples = tracker.handle(event)
        open.tracker = tracker
        for sample in samples { act(on: recognizer.handle(sample), at: sample.time) }
        open.recognizer = recognizer
    }

    /// The kernel dropped events: whatever gesture was under way is cancelled (a scrub ends
    /// where it was), and fingers still down are ignored until they lift.
    private func resynchronize(_ open: OpenDevice, with events: [InputEvent]) {
        logger.notice("input: \(open.label) dropped events (SYN_DROPPED: kiosk read too slowly); the gesture in progress is cancelled")
        guard var tracker = open.tracker, var recognizer = open.recognizer else { return }
        for event in events { _ = tracker.handle(event) }
        _ = tracker.handle(InputEvent(type: EvdevCode.synType, code: EvdevCode.synReport, value: 0, time: MonotonicClock().now()))
        tracker.resynchronized()
        open.tracker = tracker
        act(on: recognizer.cancel(), at: MonotonicClock().now())
        open.recognizer = recognizer
    }

    private func act(on gestures: [Gesture], at time: Double) {
        for gesture in gestures {
            if let trigger = triggerInput.trigger(for: gesture) {
                fire(trigger, from: "a tap in its zone")
                continue
            }
            let requests = mapper.requests(for: gesture, at: time, player: PlayerView(player))
            logger.debug("input: \(gesture) -> \(requests)")
            send(requests)
        }
    }

    /// A trigger's request (or command), or one line saying why it has nothing to play.
    private func fire(_ trigger: TriggerSet.Trigger, from source: String) {
        if let command = trigger.commandLine {
            logger.notice("input: trigger '\(trigger.name)' from \(source): \(command)")
            let refusal: String? = if let runCommand { runCommand(command) } else { "command triggers run under kiosk run" }
            if let refusal { logger.warning("input: trigger '\(trigger.name)': \(refusal)") }
            return
        }
        guard let request = trigger.request else {
            logger.warning("input: trigger '\(trigger.name)' has nothing to play: \(trigger.problem ?? "no entries")")
            return
        }
        logger.notice("input: trigger '\(trigger.name)' from \(source)")
        send([request])
    }

    private func send(_ requests: [PlayerRequest]) {
        for request in requests { player.send(request) }
    }

    // MARK: Time

    /// The earliest time something is due: a pending tap, a held scrub seek, a retry.
    var nextDeadline: Double? {
        var deadlines = devices.values.compactMap { $0.recognizer?.pendingDeadline }
        if let held = mapper.pendingDeadline { deadlines.append(held) }
        deadlines += retries.values.map(\.due)
        return deadlines.min()
    }

    /// Releases what is due by `now`.
    func advance(to now: Double) {
        for open in devices.values {
            guard var recognizer = open.recognizer, recognizer.pendingDeadline != nil else { continue }
            act(on: recognizer.advance(to: now), at: now)
            open.recognizer = recognizer
        }
        send(mapper.advance(to: now, player: PlayerView(player)))
        retryDue(now: now)
    }

    func closeAll() {
        for path in Array(devices.keys) { devices[path] = nil }
    }
}
