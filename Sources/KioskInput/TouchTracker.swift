import KioskCore

/// Turns one touch device's raw events into `TouchSample`s in viewer screen pixels: it keeps the
/// state of each contact between SYN_REPORTs and, at each SYN_REPORT, reports what changed
/// (down, move, up) for every finger. Pure: the reader thread feeds it, tests replay recordings.
///
/// Multi-touch protocol B: ABS_MT_SLOT selects a slot, ABS_MT_TRACKING_ID >= 0 puts a contact
/// in it, -1 lifts it, ABS_MT_POSITION_X/Y move it. The kernel sends only values that changed,
/// so a slot keeps its last position. Single-touch devices: BTN_TOUCH and ABS_X/ABS_Y, slot 0.
public struct TouchTracker: Sendable {
    private struct Contact: Sendable {
        var trackingID = -1
        var x = 0
        var y = 0
        /// What happened since the last SYN_REPORT.
        var wentDown = false
        var wentUp = false
        var moved = false
        /// Down since before a resync: its stroke was cancelled, so it is not reported again
        /// (a fresh `down` mid-stroke would make a tap or swipe out of half a gesture).
        var ignored = false
        var active: Bool { trackingID >= 0 }
    }

    public let transform: TouchTransform
    public let usesSlots: Bool
    private var contacts: [Int: Contact] = [:]
    private var currentSlot = 0
    private var lastPointBeforeUp: [Int: (x: Int, y: Int)] = [:]

    public init(transform: TouchTransform, usesSlots: Bool) {
        self.transform = transform
        self.usesSlots = usesSlots
    }

    /// Builds the tracker for a device's touch protocol, mapped to `scanout` turned by `rotation`.
    public init(protocol touch: TouchProtocol, scanout: PixelSize, rotation: Rotation, device: String) throws(TouchTransformError) {
        let transform = try TouchTransform(rawX: touch.xAxis.range, rawY: touch.yAxis.range, scanout: scanout,
                                           rotation: rotation, device: device)
        if case .multitouchSlots = touch { self.init(transform: transform, usesSlots: true) }
        else { self.init(transform: transform, usesSlots: false) }
    }

    /// Feeds one event; returns the samples a SYN_REPORT completes (none for other events).
    public mutating func handle(_ event: InputEvent) -> [TouchSample] {
        switch event.type {
        case EvdevCode.absType: absolute(event)
        case EvdevCode.keyType where event.code == EvdevCode.btnTouch && !usesSlots: touchButton(event)
        case EvdevCode.synType where event.code == EvdevCode.synReport: return report(at: event.time)
        default: break
        }
        return []
    }

    /// After SYN_DROPPED the device's state was brought up to date (libevdev's sync events went
    /// through `handle`, their samples discarded). Fingers still down are not reported again
    /// until they lift and touch anew: the gesture they were part of has been cancelled.
    public mutating func resynchronized() {
        for slot in contacts.keys {
            contacts[slot]!.wentDown = false
            contacts[slot]!.wentUp = false
            contacts[slot]!.moved = false
            contacts[slot]!.ignored = contacts[slot]!.active
        }
    }

    private mutating func absolute(_ event: InputEvent) {
        let value = Int(event.value)
        if usesSlots {
            switch event.code {
            case EvdevCode.mtSlot: currentSlot = value
            case EvdevCode.mtTrackingID: setTrackingID(value, slot: currentSlot)
            case EvdevCode.mtPositionX: move(slot: currentSlot) { $0.x = value }
            case EvdevCode.mtPositionY: move(slot: currentSlot) { $0.y = value }
            default: break
            }
        } else {
            switch event.code {
            case EvdevCode.absX: move(slot: 0) { $0.x = value }
            case EvdevCode.absY: move(slot: 0) { $0.y = value }
            default: break
            }
        }
    }

    private mutating func touchButton(_ event: InputEvent) {
        // Single touch has no tracking ids: BTN_TOUCH 1 is a contact, 0 lifts it.
        setTrackingID(event.value != 0 ? 0 : -1, slot: 0)
    }

    private mutating func setTrackingID(_ id: Int, slot: Int) {
        var contact = contacts[slot] ?? Contact()
        if contact.active && id != contact.trackingID {
            // Lifted, or replaced by a new contact in the same frame: report the old one's up
            // first, at its last point.
            if !contact.ignored { contact.wentUp = true; lastPointBeforeUp[slot] = (contact.x, contact.y) }
            contact.ignored = false
        }
        if id >= 0 && id != contact.trackingID { contact.wentDown = true }
        contact.trackingID = id
        contacts[slot] = contact
    }

    private mutating func move(slot: Int, _ change: (inout Contact) -> Void) {
        var contact = contacts[slot] ?? Contact()
        change(&contact)
        contact.moved = true
        contacts[slot] = contact
    }

    private mutating func report(at time: Double) -> [TouchSample] {
        var samples: [TouchSample] = []
        for slot in contacts.keys.sorted() {
            var contact = contacts[slot]!
            defer {
                contact.wentDown = false; contact.wentUp = false; contact.moved = false
                contacts[slot] = contact
            }
            if contact.wentUp, let last = lastPointBeforeUp.removeValue(forKey: slot) {
                samples.append(sample(slot: slot, phase: .up, x: last.x, y: last.y, time: time))
            }
            guard contact.active, !contact.ignored else { continue }
            if contact.wentDown {
                samples.append(sample(slot: slot, phase: .down, x: contact.x, y: contact.y, time: time))
            } else if contact.moved {
                samples.append(sample(slot: slot, phase: .move, x: contact.x, y: contact.y, time: time))
            }
        }
        return samples
    }

    private func sample(slot: Int, phase: TouchPhase, x: Int, y: Int, time: Double) -> TouchSample {
        TouchSample(slot: slot, phase: phase, point: transform.screenPoint(rawX: x, rawY: y), time: time)
    }
}
