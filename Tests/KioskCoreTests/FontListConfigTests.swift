import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// `overlay.font`: auto, a path, or a list of those (the first font, then fallbacks).
@Suite struct FontListConfigTests {
    static let disk = FakeFileSystem(files: ["/srv/kiosk/fonts/big.ttf"])

    func overlay(_ yaml: String) throws -> OverlayConfig {
        try ConfigLoader.parse(text: yaml + "items: [a.mp4]\n", fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                               fileSystem: Self.disk).overlay
    }

    @Test func todaysFormsStay() throws {
        #expect(try overlay("overlay:\n  font: auto\n").font == .auto)
        #expect(try overlay("overlay:\n  font: fonts/big.ttf\n").font == .file("/srv/kiosk/fonts/big.ttf"))
        #expect(try overlay("overlay: {}\n").font == .auto)
    }

    @Test func aListKeepsItsOrderResolvesPathsAndTakesAuto() throws {
        #expect(try overlay("overlay:\n  font: [fonts/big.ttf, /usr/share/fonts/x.ttf, auto]\n").font
                == .list([.file("/srv/kiosk/fonts/big.ttf"), .file("/usr/share/fonts/x.ttf"), .auto]))
        // A missing file in a list is not a config error: the font loader reports it in one
        // line and uses the others.
        #expect(try overlay("overlay:\n  font: [fonts/none.ttf, auto]\n").font == .list([.file("/srv/kiosk/fonts/none.ttf"), .auto]))
    }

    @Test(arguments: [
        ("overlay:\n  font: []\nitems: [a.mp4]\n", "kiosk.conf:2:9: 'font' in overlay is an empty list; expected auto, the path of a TrueType font, or a list of those like [/path/a.ttf, auto]"),
        ("overlay:\n  font: [auto, \"\"]\nitems: [a.mp4]\n", "kiosk.conf:2:16: a font in the list of 'font' in overlay is the string ''; expected auto or the path of a TrueType font"),
        ("overlay:\n  font: [auto, [a.ttf]]\nitems: [a.mp4]\n", "kiosk.conf:2:16: a font in the list of 'font' in overlay is a list; expected auto or the path of a TrueType font"),
        ("overlay:\n  font: {a: b}\nitems: [a.mp4]\n", "kiosk.conf:2:9: 'font' in overlay is a map; expected auto, the path of a TrueType font, or a list of those like [/path/a.ttf, auto]"),
        ("overlay:\n  font:\nitems: [a.mp4]\n", "kiosk.conf:2:8: 'font' in overlay is empty; expected auto, the path of a TrueType font, or a list of those like [/path/a.ttf, auto]"),
    ])
    func badFontsAreErrorsAtTheirLineAndColumn(_ yaml: String, _ message: String) {
        #expect(parseDiagnostics(yaml).map(\.description) == [message])
    }
}
