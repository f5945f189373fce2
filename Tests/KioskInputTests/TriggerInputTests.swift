import KioskCore
import Testing
@testable import KioskInput

/// Triggers as the input thread meets them: a key press (not its autorepeat or release) and a
/// tap in a zone fire the trigger; a trigger's key is kept from the key map; other gestures go on.

private let location = SourceLocation(file: "kiosk.conf", line: 1, column: 1)
private let screen = PixelSize(width: 640, height: 480)

private func code(_ name: String) -> UInt16 { EvdevCode.keyCode(named: name)! }

private func key(_ name: String, _ value: Int32) -> InputEvent {
    InputEvent(type: EvdevCode.keyType, code: code(name), value: value, time: 0)
}

private func triggers() -> TriggerInput {
    let entry = PlaylistEntry(media: .file("/m/a"), item: ItemConfig(source: .file("/m/a"), location: location), itemIndex: 0)
    let zone = TouchZone(x: .percent(75), y: .percent(0), width: .percent(25), height: .percent(25))
    let set = TriggerSet([TriggerConfig(name: "button", keys: ["KEY_F1", "KEY_N"], content: .item(0), location: location),
                          TriggerConfig(name: "corner", zone: zone, content: .item(0), location: location),
                          TriggerConfig(name: "typo", keys: ["KEY_NOSUCHKEY"], content: .item(0), location: location)],
                         defaultEntries: [entry], playlists: [:]) { _ in ([], []) }
    return TriggerInput(triggers: set, screen: screen)
}

@Suite("Trigger input")
struct TriggerInputTests {
    @Test func aPressFiresItsTriggerOnceAHeldKeyDoesNotRepeat() {
        let input = triggers()
        #expect(input.trigger(for: key("KEY_F1", 1))?.name == "button")
        #expect(input.trigger(for: key("KEY_F1", 2)) == nil, "autorepeat")
        #expect(input.trigger(for: key("KEY_F1", 0)) == nil, "release")
        #expect(input.owns(key("KEY_F1", 2)) && input.owns(key("KEY_F1", 0)))
        #expect(input.trigger(for: InputEvent(type: EvdevCode.absType, code: code("KEY_F1"), value: 1, time: 0)) == nil)
    }

    /// KEY_N is `next` by default; bound to a trigger, the key map never sees it.
    @Test func aTriggersKeyIsTakenFromTheKeyMap() {
        let input = triggers()
        #expect(input.owns(key("KEY_N", 1)) && input.trigger(for: key("KEY_N", 1))?.name == "button")
        #expect(!input.owns(key("KEY_SPACE", 1)))
        #expect(input.boundCodes == [code("KEY_F1"), code("KEY_N")])
        #expect(input.unknownNames == ["KEY_NOSUCHKEY"])
    }

    @Test func aTapInAZoneFiresOutsideItGoesOnAsBefore() {
        let input = triggers()
        #expect(input.trigger(for: .tap(at: ScreenPoint(x: 600, y: 20)))?.name == "corner")
        #expect(input.trigger(for: .doubleTap(at: ScreenPoint(x: 600, y: 20)))?.name == "corner")
        #expect(input.trigger(for: .tap(at: ScreenPoint(x: 300, y: 20))) == nil)
        #expect(input.trigger(for: .swipe(.left)) == nil)
        #expect(input.trigger(for: .scrubBegan(fraction: 0.9)) == nil)
        #expect(input.unreachableZones.isEmpty)
        let far = TriggerSet([TriggerConfig(name: "far", zone: TouchZone(x: .pixels(2000), y: .pixels(0), width: .pixels(10),
                                                                          height: .pixels(10)), content: .item(0), location: location)],
                             defaultEntries: [], playlists: [:]) { _ in ([], []) }
        #expect(TriggerInput(triggers: far, screen: screen).unreachableZones
                == ["trigger 'far': zone [2000, 0, 10, 10] lies outside the 640x480 screen; no tap fires it"])
    }
}
