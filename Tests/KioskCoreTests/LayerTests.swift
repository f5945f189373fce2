import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// kiosk.conf's `layers`: the forms, each bad value at its line:column, the placement on the
/// screen, a clock across Berlin's change to summer time, and a picture's alpha blended.
@Suite("Layers: config, placement, clock, image blend")
struct LayerTests {
    private let items = "items: [a.mp4]\n"
    static let layerFiles = ["/srv/kiosk/logo.png", "/srv/kiosk/news.txt"]
    private let disk = FakeFileSystem(files: layerFiles)

    private func parse(_ yaml: String) throws(ConfigError) -> KioskConfig {
        try ConfigLoader.parse(text: items + yaml, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk", fileSystem: disk)
    }

    @Test func noLayersByDefault() throws {
        #expect(try parse("").layers.isEmpty)
    }

    @Test func eachKindWithItsSettingsAndDefaults() throws {
        let layers = try parse("""
            layers:
              - clock: {format: "EEE d MMM HH:mm", timezone: Europe/Berlin, position: top-right}
              - image: {path: logo.png, width: 10%, opacity: 0.5}
              - text: {text: Welcome, background: "#000000a0", size: 48px, color: "#ffcc00", name: hello}
              - text: {file: news.txt, margin: 0}
              - clock:

            """).layers
        #expect(layers.count == 5)
        #expect(layers[0].content == .clock(format: "EEE d MMM HH:mm", timeZone: "Europe/Berlin", locale: nil))
        #expect(layers[0].position == .topRight && layers[0].name == "clock-1")
        #expect(layers[1].content == .image(path: "/srv/kiosk/logo.png", width: .percent(10)))
        #expect(layers[1].position == .topLeft && layers[1].opacity == 0.5)
        #expect(layers[2].content == .text("Welcome") && layers[2].name == "hello" && layers[2].position == .bottom)
        #expect(layers[2].background == LayerColor(rgb: 0, alpha: 0xA0) && layers[2].size == .pixels(48))
        #expect(layers[2].color == LayerColor(rgb: 0xFFCC00))
        #expect(layers[3].content == .textFile(path: "/srv/kiosk/news.txt") && layers[3].margin == .pixels(0))
        #expect(layers[4].content == .clock(format: "HH:mm", timeZone: nil, locale: nil))
        #expect(PlayerSettings(config: try parse("layers: [{clock: }]\n")).layers.count == 1)
    }

    static let badValues: [ConfigErrorCase] = [
        // A size of 0 draws nothing (it passed `kiosk check`); a margin of 0 is a margin.
        ConfigErrorCase(afterItems: "layers: [{clock: {size: 0, margin: 0}}]\n", line: 2, column: 25,
                 fragment: "'size' in layer 1 (clock) is 0; expected pixels (48) or a percentage of the screen (5%) above 0"),
        ConfigErrorCase(afterItems: "layers: [{text: {text: hi, size: 0%}}]\n", line: 2, column: 34,
                 fragment: "'size' in layer 1 (text) is the string '0%'; expected pixels (48) or a percentage of the screen (5%) above 0"),
        ConfigErrorCase(afterItems: "layers: [{text: {text: hi, color: \"#ff00zz\"}}]\n", line: 2, column: 35,
                 fragment: "'color' in layer 1 (text) is the string '#ff00zz'; expected a colour like #ffffff"),
        ConfigErrorCase(afterItems: "layers: [{clock: {timezone: Europe/Berln}}]\n", line: 2, column: 29,
                 fragment: "timezone 'Europe/Berln' is not a time zone this system knows"),
        ConfigErrorCase(afterItems: "layers: [{clok: {}}]\n", line: 2, column: 11,
                 fragment: "layer 1 is a 'clok'; expected one of clock, text, image, ticker (did you mean 'clock'?)"),
        ConfigErrorCase(afterItems: "layers: [{tickr: {text: hi}}]\n", line: 2, column: 11,
                 fragment: "(did you mean 'ticker'?)"),
        ConfigErrorCase(afterItems: "layers: [{image: {path: missing.png}}]\n", line: 2, column: 25,
                 fragment: "picture '/srv/kiosk/missing.png' does not exist"),
        ConfigErrorCase(afterItems: "layers: [{image: {width: 10%}}]\n", line: 2, column: 11,
                 fragment: "layer 1 (image) has no 'path'"),
        ConfigErrorCase(afterItems: "layers: [{text: {text: a, file: news.txt}}]\n", line: 2, column: 27,
                 fragment: "layer 1 (text) has both 'text' and 'file'"),
        ConfigErrorCase(afterItems: "layers: [{text: {}}]\n", line: 2, column: 11,
                 fragment: "layer 1 (text) has no 'text' or 'file'"),
        ConfigErrorCase(afterItems: "layers: [{clock: {position: top-rigth}}]\n", line: 2, column: 29,
                 fragment: "expected one of: top-left, top, top-right, left, center, right, bottom-left, bottom, bottom-right (did you mean 'top-right'?)"),
        ConfigErrorCase(afterItems: "layers: [{clock: {margin: 120%}}]\n", line: 2, column: 27,
                 fragment: "'margin' in layer 1 (clock) is the string '120%'; expected pixels (48) or a percentage of the screen (5%)"),
        ConfigErrorCase(afterItems: "layers: [{clock: {opacity: 2}}]\n", line: 2, column: 28,
                 fragment: "'opacity' in layer 1 (clock)"),
        ConfigErrorCase(afterItems: "layers: [{clock: {}, text: {text: a}}]\n", line: 2, column: 10,
                 fragment: "layer 1 is a map; expected one of clock, text, image, ticker with its settings"),
        ConfigErrorCase(afterItems: "layers: {clock: {}}\n", line: 2, column: 9,
                 fragment: "layers is a map; expected a list"),
        ConfigErrorCase(afterItems: "layers: [{text: {text: a, name: x}}, {clock: {name: x}}]\n", line: 2, column: 53,
                 fragment: "layer name 'x' is used twice (first at 2:33)"),
        ConfigErrorCase(afterItems: "layers: [{image: {path: logo.png, size: 10}}]\n", line: 2, column: 35,
                 fragment: "unknown key 'size' in layer 1 (image)"),
    ].reading(layerFiles)


    @Test func aChangeAppliesLiveAndMovingItChangesNothing() throws {
        let old = try parse("layers: [{clock: {}}]\n")
        let new = try parse("layers: [{clock: {position: bottom-left}}]\n")
        let changes = ConfigChanges(from: old, to: new)
        #expect(changes.parts == [.layers] && changes.waitingForRestart.isEmpty)
        #expect(new.appliedLive(to: old).layers == new.layers)
        #expect(ConfigChanges(from: old, to: try parse("\n\nlayers: [{clock: {}}]\n")).isEmpty)
        let settings = PlayerSettings(config: old)
        #expect(SettingsReload(from: settings, to: settings.reloaded(from: new), newPlaylist: false).layers == new.layers)
        #expect(SettingsReload(from: settings, to: settings.reloaded(from: old), newPlaylist: false).layers == nil)
    }

    @Test func lengthsAndColoursAsWritten() {
        #expect(LayerLength(text: "48") == .pixels(48) && LayerLength(text: "48px") == .pixels(48))
        #expect(LayerLength(text: "5%") == .percent(5) && LayerLength(text: "-1") == nil && LayerLength(text: "101%") == nil)
        #expect(LayerLength.percent(5).pixels(of: 1080) == 54)
        #expect(LayerColor(text: "#0a0B0c") == LayerColor(rgb: 0x0A0B0C))
        #expect(LayerColor(text: "#ffffff80") == LayerColor(rgb: 0xFFFFFF, alpha: 0x80))
        for bad in ["ffffff", "#fff", "#ff00zz", "#ff00ff0", "#+fffff", "#ffffff 80"] { #expect(LayerColor(text: bad) == nil, "\(bad)") }
    }

    @Test(arguments: [
        (LayerPosition.topLeft, 10, 10), (.top, 860, 10), (.topRight, 1710, 10),
        (.left, 10, 490), (.center, 860, 490), (.right, 1710, 490),
        (.bottomLeft, 10, 970), (.bottom, 860, 970), (.bottomRight, 1710, 970),
    ])
    func placedByPositionAndMargin(_ position: LayerPosition, _ x: Int, _ y: Int) {
        let rect = LayerPlacement.rect(of: PixelSize(width: 200, height: 100), at: position, margin: 10,
                                       on: PixelSize(width: 1920, height: 1080))
        #expect(rect == PixelRect(x: x, y: y, width: 200, height: 100))
    }

    @Test func imagesKeepTheirProportionAndTextItsPadding() {
        let screen = PixelSize(width: 1920, height: 1080)
        #expect(LayerPlacement.imageSize(PixelSize(width: 400, height: 100), width: .percent(10), screen: screen) == PixelSize(width: 192, height: 48))
        #expect(LayerPlacement.imageSize(PixelSize(width: 400, height: 100), width: nil, screen: screen) == PixelSize(width: 400, height: 100))
        #expect(LayerPlacement.imageSize(PixelSize(width: 400, height: 100), width: .pixels(1), screen: screen) == PixelSize(width: 1, height: 1))
        #expect(LayerPlacement.textMetrics(size: .percent(5), screen: screen) == (54, 13))
    }

    /// Berlin goes from 01:59 CET to 03:00 CEST at 01:00 UTC on the last Sunday of March; the
    /// text changes at whole minutes.
    @Test func aClockInBerlinAcrossTheChangeToSummerTime() throws {
        let clock = try #require(ClockText(pattern: "EEE d MMM HH:mm", timeZone: "Europe/Berlin", locale: nil))
        let before = Date(timeIntervalSince1970: 1_774_745_999)   // 2026-03-29T00:59:59Z
        #expect(clock.text(at: before) == "Sun 29 Mar 01:59")
        #expect(clock.text(at: before.addingTimeInterval(1)) == "Sun 29 Mar 03:00")
        #expect(clock.nextChange(after: before) == before.addingTimeInterval(1))
        let german = try #require(ClockText(pattern: "EEEE HH:mm", timeZone: "Europe/Berlin", locale: "de_DE"))
        #expect(german.text(at: before) == "Sonntag 01:59")
        #expect(ClockText(pattern: "HH:mm", timeZone: "Europe/Berln", locale: nil) == nil)
        let seconds = try #require(ClockText(pattern: "HH:mm:ss", timeZone: "UTC", locale: nil))
        #expect(seconds.nextChange(after: Date(timeIntervalSince1970: 10.5)) == Date(timeIntervalSince1970: 11))
    }

    @Test func aPictureIsBlendedByItsAlphaTimesTheOpacity() {
        let size = PixelSize(width: 8, height: 4)
        let stride = 8 * 4
        let memory = UnsafeMutableRawPointer.allocate(byteCount: stride * 4, alignment: 64)
        defer { memory.deallocate() }
        let buffer = PixelBuffer(base: memory, size: size, stride: stride, index: 0)
        buffer.fill(PixelRect(size: size), color: 0x0000FF)
        // Opaque red, half-transparent green, transparent white.
        let image = LayerImage(width: 3, height: 1, pixels: [0xFFFF0000, 0x8000FF00, 0x00FFFFFF])
        buffer.blend(image, at: (x: 6, y: 1))            // the third pixel is off the screen
        #expect(buffer.pixel(x: 6, y: 1) == 0xFF0000)
        #expect(buffer.pixel(x: 7, y: 1) == 0x00807F)     // green 128/255 over blue
        #expect(buffer.pixel(x: 5, y: 1) == 0x0000FF && buffer.pixel(x: 6, y: 0) == 0x0000FF)
        buffer.blend(image, at: (x: 0, y: 2), opacity: 128)
        #expect(buffer.pixel(x: 0, y: 2) == 0x80007F)
        #expect(buffer.pixel(x: 2, y: 2) == 0x0000FF)
    }
}

extension LayerTests {
    /// kiosk.conf shows the section commented out (no layers by default); taken in, it reads.
    @Test func theExamplesCommentedSectionParses() throws {
        let section = try #require(try ExampleConfigFile.commentedSection("# layers:"))
        let disk = FakeFileSystem(files: ["/srv/kiosk/logo.png"])
        let layers = try ConfigLoader.parse(text: items + section + "\n", fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                                            fileSystem: disk).layers
        #expect(layers.map(\.name) == ["clock-1", "image-2", "text-3", "ticker-4"])
        #expect(layers[3].content == .ticker(.text("Opening hours: 9-18"), speed: 120, separator: "   •   "))
        #expect(layers[0].content == .clock(format: "EEE d MMM HH:mm", timeZone: "Europe/Berlin", locale: "en_GB"))
        #expect(layers[0].background == LayerColor(rgb: 0, alpha: 0x80) && layers[0].size == .percent(4))
    }
}

extension LayerTests {
    @Test func aRegionForTheVideo() throws {
        let region = try #require(try parse("playback: {region: [0, 0, 75%, 100%]}\n").playback.region)
        #expect(region == ScreenRegion(x: .pixels(0), y: .pixels(0), width: .percent(75), height: .percent(100)))
        #expect(region.rect(on: PixelSize(width: 1920, height: 1080)) == PixelRect(x: 0, y: 0, width: 1440, height: 1080))
        // Pixels past a smaller screen are cut; nothing left is nil.
        #expect(ScreenRegion(x: .pixels(100), y: .pixels(0), width: .pixels(4000), height: .percent(50))
            .rect(on: PixelSize(width: 640, height: 360)) == PixelRect(x: 100, y: 0, width: 540, height: 180))
        #expect(ScreenRegion(x: .pixels(700), y: .pixels(0), width: .pixels(10), height: .pixels(10))
            .rect(on: PixelSize(width: 640, height: 360)) == nil)
        // A 16:9 picture fitted into a 4:3 region at the right: bars above and below, inside it.
        let layout = GravityLayout(source: PixelSize(width: 1600, height: 900), target: PixelSize(width: 400, height: 300), gravity: .fit)
            .placed(in: PixelRect(x: 240, y: 0, width: 400, height: 300), of: PixelSize(width: 640, height: 300))
        #expect(layout.destination == PixelRect(x: 240, y: 37, width: 400, height: 225) && layout.target == PixelSize(width: 640, height: 300))
        let changes = ConfigChanges(from: try parse(""), to: try parse("playback: {region: [0, 0, 50%, 50%]}\n"))
        #expect(changes.parts == [.playback] && changes.playbackSettings == [.region])
    }

    static let badRegions: [ConfigErrorCase] = [
        ConfigErrorCase(afterItems: "playback: {region: [0, 0, 75%]}\n", line: 2, column: 20,
                       fragment: "'region' in playback is a list; expected [x, y, width, height]"),
        ConfigErrorCase(afterItems: "playback: {region: [0, 0, 75%, tall]}\n", line: 2, column: 32,
                       fragment: "an entry of 'region' in playback is the string 'tall'"),
        ConfigErrorCase(afterItems: "playback: {region: [50%, 0, 75%, 100%]}\n", line: 2, column: 20,
                       fragment: "reaches past the screen's right edge (125.0%)"),
    ].reading(layerFiles)

}
