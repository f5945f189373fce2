import KioskCore

/// kiosk.conf's triggers as the input thread meets them: key names resolved to this kernel's
/// codes once, zones hit-tested on the viewer's screen. A trigger's key comes before the key
/// map (it takes over a default binding), a tap in a zone before play/pause; everything else
/// goes on to the gestures and keys as before.
public struct TriggerInput: Sendable {
    public let triggers: TriggerSet
    /// The viewer's screen, where zones lie.
    public let screen: PixelSize
    private let triggerByCode: [UInt16: TriggerSet.Trigger]
    /// Names no key of this system has: reported once at start, then ignored.
    public let unknownNames: [String]

    public init(triggers: TriggerSet, screen: PixelSize, codeForName: (String) -> UInt16? = EvdevCode.keyCode(named:)) {
        self.triggers = triggers
        self.screen = screen
        var byCode: [UInt16: TriggerSet.Trigger] = [:]
        var unknown: [String] = []
        for trigger in triggers.triggers {
            for name in trigger.config.keys {
                if let code = codeForName(name) { byCode[code] = trigger } else { unknown.append(name) }
            }
        }
        triggerByCode = byCode
        unknownNames = unknown
    }

    /// The codes triggers are bound to: a device with one of them (a gpio-keys button) is read.
    public var boundCodes: Set<UInt16> { Set(triggerByCode.keys) }

    /// Whether `event` is a trigger's key; then the key map must not act on it.
    public func owns(_ event: InputEvent) -> Bool {
        event.type == EvdevCode.keyType && triggerByCode[event.code] != nil
    }

    /// The trigger a key event fires: on press only (a held button's autorepeat and its release
    /// fire nothing, or one long press would restart the content again and again).
    public func trigger(for event: InputEvent) -> TriggerSet.Trigger? {
        guard owns(event), KeyTransition(rawValue: event.value) == .pressed else { return nil }
        return triggerByCode[event.code]
    }

    /// The trigger a gesture fires: a tap (or a double tap) inside a zone.
    public func trigger(for gesture: Gesture) -> TriggerSet.Trigger? {
        switch gesture {
        case .tap(let point), .doubleTap(let point): triggers.trigger(at: point, on: screen)
        case .swipe, .scrubBegan, .scrubMoved, .scrubEnded: nil
        }
    }

    /// One line per zone no tap can reach on this screen (a pixel zone written for a larger one).
    public var unreachableZones: [String] {
        triggers.triggers.compactMap { trigger in
            trigger.config.zone?.unreachable(on: screen).map { "trigger '\(trigger.name)': \($0); no tap fires it" }
        }
    }
}
