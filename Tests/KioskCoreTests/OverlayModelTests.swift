import KioskCore
import Testing

@Suite struct OverlayTimeLabelTests {
    @Test(arguments: [
        (0.0, "00:00"), (0.999, "00:00"), (5.0, "00:05"), (65.4, "01:05"), (599.0, "09:59"),
        (3599.9, "59:59"), (3600.0, "1:00:00"), (3725.0, "1:02:05"), (36_000.0, "10:00:00"), (-3.0, "00:00"),
    ])
    func formatsMinutesAndHours(seconds: Double, expected: String) {
        #expect(TimeLabel.text(for: MediaTime(seconds: seconds)) == expected)
    }
}

@Suite struct OverlayModelTests {
    static func at(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds) }
    static let playing = OverlayPlayerView(position: at(30), duration: at(120), timeControlStatus: .playing, title: "Intro")

    @Test func hiddenUntilInputThenGoneHideAfterSecondsAfterTheLastOne() {
        var model = OverlayModel(hideAfter: Self.at(3))
        #expect(model.content(at: Self.at(100), player: Self.playing) == nil, "nothing shows before any input")
        model.noteInput(at: Self.at(100))
        #expect(model.isVisible(at: Self.at(100)))
        #expect(model.isVisible(at: Self.at(102.9)))
        model.noteInput(at: Self.at(102))   // a second key restarts the countdown
        #expect(model.isVisible(at: Self.at(104.9)))
        #expect(model.hideTime(at: Self.at(104)) == Self.at(105))
        #expect(!model.isVisible(at: Self.at(105)))
        #expect(model.content(at: Self.at(105), player: Self.playing) == nil)
        #expect(model.hideTime(at: Self.at(105)) == nil)
    }

    @Test func showsTitleTimesFractionAndWhatATapWillDo() throws {
        var model = OverlayModel(hideAfter: Self.at(3))
        model.noteInput(at: Self.at(10))
        let content = try #require(model.content(at: Self.at(10.5), player: Self.playing))
        #expect(content == OverlayContent(center: .pause, title: "Intro", elapsed: "00:30", total: "02:00", fraction: 0.25))
        var paused = Self.playing
        paused.timeControlStatus = .paused
        #expect(model.content(at: Self.at(10.5), player: paused)?.center == .play)
    }

    @Test func unknownLengthShowsDashesAndAnEmptyBar() throws {
        var model = OverlayModel(hideAfter: Self.at(3))
        model.noteInput(at: Self.at(0))
        let live = OverlayPlayerView(position: Self.at(4000), duration: nil, timeControlStatus: .playing, title: "Live")
        let content = try #require(model.content(at: Self.at(1), player: live))
        #expect(content.elapsed == "1:06:40")
        #expect(content.total == "--:--")
        #expect(content.fraction == 0)
    }

    @Test func spinnerWhileWaitingTurnsWithTime() throws {
        var model = OverlayModel(hideAfter: Self.at(3))
        model.noteInput(at: Self.at(0))
        var waiting = Self.playing
        waiting.timeControlStatus = .waitingToPlayAtSpecifiedRate
        #expect(model.content(at: Self.at(0), player: waiting)?.center == .spinner(phase: 0))
        #expect(model.content(at: Self.at(0.25), player: waiting)?.center == .spinner(phase: 2))
        #expect(model.content(at: Self.at(1.125), player: waiting)?.center == .spinner(phase: 1))
    }

    @Test func whileScrubbingBarAndTimeFollowTheFingerNotTheDecoder() throws {
        var model = OverlayModel(hideAfter: Self.at(2))
        model.noteScrub(to: Self.at(90), at: Self.at(50))
        // The player still reports its old position: the seek is decoding.
        let content = try #require(model.content(at: Self.at(50.05), player: Self.playing))
        #expect(content.fraction == 0.75)
        #expect(content.elapsed == "01:30")
        model.noteScrub(to: Self.at(200), at: Self.at(50.1))   // past the end: clamped
        #expect(model.content(at: Self.at(50.1), player: Self.playing)?.fraction == 1)
        #expect(model.content(at: Self.at(50.1), player: Self.playing)?.elapsed == "02:00")
        model.noteInput(at: Self.at(51))   // release, play: the player's position again
        #expect(model.content(at: Self.at(51), player: Self.playing)?.fraction == 0.25)
        #expect(model.isVisible(at: Self.at(52.9)) && !model.isVisible(at: Self.at(53)))
    }
}

@Suite struct OverlayLayoutTests {
    @Test(arguments: [
        // screen, bar, label size, glyph side
        (PixelSize(width: 640, height: 480), PixelRect(x: 19, y: 456, width: 602, height: 5), 21, 76),
        (PixelSize(width: 1280, height: 720), PixelRect(x: 28, y: 684, width: 1224, height: 8), 32, 115),
        (PixelSize(width: 1920, height: 1080), PixelRect(x: 43, y: 1025, width: 1834, height: 12), 48, 172),
        (PixelSize(width: 720, height: 1280), PixelRect(x: 28, y: 1244, width: 664, height: 8), 32, 115),
    ])
    func barAlongTheBottomScaledToTheScreen(screen: PixelSize, bar: PixelRect, labelSize: Int, glyphSide: Int) {
        let layout = OverlayLayout(screen: screen)
        #expect(layout.bar == bar)
        #expect(layout.bar.maxY == screen.height - layout.margin, "the bar keeps one margin from the bottom edge")
        #expect(layout.bar.x + layout.bar.maxX == screen.width, "centered horizontally")
        #expect(layout.labelPixelSize == labelSize)
        #expect(layout.glyph.width == glyphSide && layout.glyph.height == glyphSide)
        #expect(layout.glyph.x * 2 + glyphSide == screen.width || layout.glyph.x * 2 + glyphSide == screen.width - 1)
        #expect(layout.labelBaseline < layout.bar.y && layout.bottomScrim.y < layout.labelBaseline - labelSize / 2)
        #expect(layout.bottomScrim.maxY == screen.height)
        #expect(layout.titleBaseline < layout.glyph.y)
    }

    @Test func fillIsTheFractionOfTheTrack() {
        let layout = OverlayLayout(screen: PixelSize(width: 1280, height: 720))
        #expect(layout.fill(fraction: 0).width == 0)
        #expect(layout.fill(fraction: 0.5) == PixelRect(x: 28, y: 684, width: 612, height: 8))
        #expect(layout.fill(fraction: 1).width == layout.bar.width)
        #expect(layout.fill(fraction: 7).width == layout.bar.width)
        #expect(layout.fill(fraction: .nan).width == 0)
    }

    @Test func labelsSitOnTheBarsEnds() {
        let layout = OverlayLayout(screen: PixelSize(width: 640, height: 480))
        #expect(layout.elapsedOrigin(ascent: 20) == (x: 19, y: layout.labelBaseline - 20))
        #expect(layout.totalOrigin(width: 50, ascent: 20).x == 621 - 50)
        #expect(layout.centeredOrigin(size: PixelSize(width: 100, height: 20)) == (x: 270, y: 230))
    }

    @Test(arguments: Rotation.allCases)
    func viewerSizeTurnsWithTheDisplay(rotation: Rotation) {
        let panel = PixelSize(width: 800, height: 480)
        let viewer = OverlayLayout.viewerSize(buffer: panel, rotation: rotation)
        #expect(viewer == (rotation.swapsAxes ? PixelSize(width: 480, height: 800) : panel))
    }
}
