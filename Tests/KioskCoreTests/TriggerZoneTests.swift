import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// Touch zones in the viewer's orientation (the display's rotation applied, as every touch
/// point is), and the trigger table the sources look triggers up in.

private let landscape = PixelSize(width: 640, height: 480)

@Suite("Trigger zones and table")
struct TriggerZoneTests {
    @Test func pixelZonesAreHalfOpenSoNeighboursNeverShareATap() {
        let left = TouchZone(x: .pixels(0), y: .pixels(0), width: .pixels(100), height: .pixels(50))
        let right = TouchZone(x: .pixels(100), y: .pixels(0), width: .pixels(100), height: .pixels(50))
        let edge = ScreenPoint(x: 100, y: 10)
        #expect(!left.contains(edge, on: landscape) && right.contains(edge, on: landscape))
        #expect(left.contains(ScreenPoint(x: 0, y: 0), on: landscape))
        #expect(!left.contains(ScreenPoint(x: 50, y: 50), on: landscape))
    }

    @Test func percentZonesFollowTheScreenAndOwnItsFarEdges() {
        let corner = TouchZone(x: .percent(80), y: .percent(0), width: .percent(20), height: .percent(25))
        #expect(corner.bounds(on: landscape) == (512, 0, 640, 120))
        // A touch clamped onto the screen's right edge (TouchTransform does that) is inside.
        #expect(corner.contains(ScreenPoint(x: 640, y: 0), on: landscape))
        #expect(!corner.contains(ScreenPoint(x: 511.9, y: 10), on: landscape))
        let full = PixelSize(width: 1920, height: 1080)
        #expect(corner.contains(ScreenPoint(x: 1600, y: 200), on: full) && !corner.contains(ScreenPoint(x: 1500, y: 200), on: full))
    }

    /// A portrait screen: the panel scans out 640x480 turned 90 degrees, the viewer sees
    /// 480x640. A zone in the viewer's top-right corner is hit by the panel point that shows
    /// there, not by the panel's own top-right corner.
    @Test func aZoneIsWhereTheViewerSeesItOnARotatedScreen() throws {
        let transform = try TouchTransform(rawX: 0...4095, rawY: 0...4095, scanout: landscape, rotation: .clockwise90,
                                           device: "touch")
        let viewer = transform.screen
        #expect(viewer == PixelSize(width: 480, height: 640))
        let topRight = TouchZone(x: .percent(75), y: .percent(0), width: .percent(25), height: .percent(20))
        // Turned clockwise by 90, the viewer's top-right corner lies at the panel's bottom right.
        let shown = transform.screenPoint(rawX: 4095, rawY: 4000)
        #expect(topRight.contains(shown, on: viewer), "\(shown)")
        let panelTopRight = transform.screenPoint(rawX: 4095, rawY: 0)
        #expect(!topRight.contains(panelTopRight, on: viewer), "\(panelTopRight)")
    }

    @Test func aPixelZoneBeyondASmallerScreenIsUnreachable() {
        let zone = TouchZone(x: .pixels(1800), y: .pixels(0), width: .pixels(100), height: .pixels(100))
        #expect(zone.unreachable(on: landscape) == "zone [1800, 0, 100, 100] lies outside the 640x480 screen")
        #expect(zone.unreachable(on: PixelSize(width: 1920, height: 1080)) == nil)
        #expect(!zone.contains(ScreenPoint(x: 640, y: 10), on: landscape))
    }

    @Test func theTableExpandsContentAndAnswersByNameKeyAndPoint() {
        let location = SourceLocation(file: "kiosk.conf", line: 1, column: 1)
        let everything = TouchZone(x: .percent(0), y: .percent(0), width: .percent(100), height: .percent(100))
        let corner = TouchZone(x: .pixels(0), y: .pixels(0), width: .pixels(100), height: .pixels(100))
        let configs = [
            TriggerConfig(name: "one", keys: ["KEY_F1"], zone: corner, content: .item(1), location: location),
            TriggerConfig(name: "promo", zone: everything, content: .playlist("promo"), then: .restart, location: location),
            TriggerConfig(name: "gone", content: .item(7), location: location),
            TriggerConfig(name: "own", content: .items([]), location: location),
        ]
        let table = TriggerSet(configs, defaultEntries: playlistEntries("a", "b"), playlists: ["promo": playlistEntries("p")]) { _ in
            ([], ["no such file /m/x.mp4"])
        }
        #expect(table.names == ["one", "promo", "gone", "own"])
        #expect(table.trigger(named: "one")?.request
                == .playOnce(.entries(playlistEntries("b")), when: .now, trigger: TriggerPlay(name: "one")))
        #expect(table.trigger(forKey: "key_f1")?.name == "one")
        #expect(table.trigger(forKey: "KEY_F2") == nil)
        // Overlapping zones: the first listed wins.
        #expect(table.trigger(at: ScreenPoint(x: 50, y: 50), on: landscape)?.name == "one")
        #expect(table.trigger(at: ScreenPoint(x: 300, y: 300), on: landscape)?.name == "promo")
        #expect(table.trigger(named: "promo")?.request
                == .playOnce(.entries(playlistEntries("p")), when: .now, trigger: TriggerPlay(name: "promo", then: .restart)))
        #expect(table.trigger(named: "gone")?.request == nil)
        #expect(table.trigger(named: "gone")?.problem == "item 7 is not in the default playlist (it has 2 entries, counted from 0)")
        #expect(table.trigger(named: "own")?.problem == "its items have nothing to play now; no such file /m/x.mp4")
        #expect(table.keyNames == ["KEY_F1"] && table.hasZones)
    }
}
