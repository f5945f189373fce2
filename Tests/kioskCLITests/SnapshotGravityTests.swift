import Testing
import KioskTestSupport
typealias Color = RGBImage.Color

/// Pixels of `kiosk snapshot` for each gravity: bars exact to 1 px, corner markers where the
/// pattern puts them, and the whole picture close to ffmpeg's own crop+scale of the same region.
@Suite struct SnapshotGravityTests {
    let wide = try! MediaFixtures.pattern("wide-235.mp4", width: 640, height: 272)
    let fourThree = try! MediaFixtures.pattern("four-three.mp4", width: 640, height: 480)
    /// 320x240 coded with 2:1 pixels: shows as 640x240.
    let anamorphic = try! MediaFixtures.pattern("anamorphic.mp4", width: 320, height: 240, extraFilters: ",setsar=2/1")

    @Test func fitLetterboxesWidePicture() throws {
        let image = try Kiosk.snapshot(wide, size: "1280x800", gravity: "fit")
        // 640x272 -> 1280x544 at y = 128 (geometry table); bars black, exact to a pixel.
        #expect(abs(image.blackRows(atColumn: 640) - 128) <= 1)
        #expect(abs(image.blackRows(atColumn: 640, fromBottom: true) - 128) <= 1)
        #expect(image.blackColumns(atRow: 400) == 0)
        #expect(image.pixel(64, 128 + 64).isNear(.red))
        #expect(image.pixel(1280 - 64, 128 + 64).isNear(.green))
        #expect(image.pixel(64, 672 - 64).isNear(.blue))
        #expect(image.pixel(1280 - 64, 672 - 64).isNear(.yellow))
        #expect(image.pixel(640, 400).isNear(.gray))
        #expect(image.pixel(640, 130).isNear(.magenta))
        let reference = try Kiosk.reference(wide, filter: "scale=1280:544,pad=1280:800:0:128")
        #expect(image.meanDifference(to: reference) < 4)
    }

    @Test func fillCropsTheSidesOfAWidePicture() throws {
        let image = try Kiosk.snapshot(wide, size: "1280x800", gravity: "fill")
        #expect(image.blackRows(atColumn: 640) == 0)
        #expect(image.blackColumns(atRow: 400) == 0)
        // Crop 435x272 from x = 102: the side borders and corner squares are cut away,
        // the top and bottom borders stay.
        #expect(image.pixel(10, 10).isNear(.magenta))
        #expect(image.pixel(10, 400).isNear(.gray))
        #expect(image.pixel(1270, 400).isNear(.gray))
        #expect(image.pixel(10, 790).isNear(.magenta))
        let reference = try Kiosk.reference(wide, filter: "crop=435:272:102:0,scale=1280:800")
        #expect(image.meanDifference(to: reference) < 4)
    }

    @Test func stretchFillsTheScreenWithTheWholePicture() throws {
        let image = try Kiosk.snapshot(wide, size: "1280x800", gravity: "stretch")
        #expect(image.blackRows(atColumn: 640) == 0)
        #expect(image.pixel(10, 400).isNear(.magenta))
        #expect(image.pixel(64, 94).isNear(.red))
        #expect(image.pixel(1280 - 64, 800 - 94).isNear(.yellow))
        let reference = try Kiosk.reference(wide, filter: "scale=1280:800")
        #expect(image.meanDifference(to: reference) < 4)
    }

    @Test func fitPillarboxesFourThree() throws {
        let image = try Kiosk.snapshot(fourThree, size: "1280x800", gravity: "fit")
        // 640x480 -> 1067x800 at x = 106.
        #expect(abs(image.blackColumns(atRow: 400) - 106) <= 1)
        #expect(abs(image.blackColumns(atRow: 400, fromRight: true) - 107) <= 1)
        #expect(image.blackRows(atColumn: 640) == 0)
        #expect(image.pixel(106 + 53, 53).isNear(.red))
        #expect(image.pixel(1280 - 107 - 53, 800 - 53).isNear(.yellow))
    }

    @Test func fillCropsTopAndBottomOfFourThree() throws {
        let image = try Kiosk.snapshot(fourThree, size: "1280x800", gravity: "fill")
        // Scale 2, 400 of 480 rows from y = 40: the top and bottom borders are cut away.
        #expect(image.pixel(640, 4).isNear(.gray))
        #expect(image.pixel(4, 400).isNear(.magenta))
        #expect(image.pixel(64, 30).isNear(.red))
        let reference = try Kiosk.reference(fourThree, filter: "crop=640:400:0:40,scale=1280:800")
        #expect(image.meanDifference(to: reference) < 4)
    }

    @Test func anamorphicPixelsAreWidened() throws {
        let image = try Kiosk.snapshot(anamorphic, size: "1280x800", gravity: "fit")
        // Shows as 640x240 (8:3): 1280x480 at y = 160.
        #expect(abs(image.blackRows(atColumn: 640) - 160) <= 1)
        #expect(abs(image.blackRows(atColumn: 640, fromBottom: true) - 160) <= 1)
        #expect(image.pixel(128, 160 + 64).isNear(.red))
        #expect(image.pixel(1280 - 128, 640 - 64).isNear(.yellow))
        let reference = try Kiosk.reference(anamorphic, filter: "scale=1280:480,setsar=1,pad=1280:800:0:160")
        #expect(image.meanDifference(to: reference) < 4)
    }

    @Test func displayRotationTurnsThePictureForPortraitScreens() throws {
        // A landscape panel mounted turned clockwise: the picture is turned 90 degrees clockwise
        // on the panel, so the viewer sees it upright; the red top-left corner lands top-right.
        let image = try Kiosk.snapshot(wide, size: "1280x800", gravity: "fit", extra: ["--rotation", "90"])
        // 272x640 shown -> fit into 1280x800: 340x800 at x = 470.
        #expect(abs(image.blackColumns(atRow: 400) - 470) <= 1)
        #expect(image.pixel(470 + 340 - 40, 40).isNear(.red))
        #expect(image.pixel(470 + 40, 800 - 40).isNear(.yellow))
        let reference = try Kiosk.reference(wide, filter: "transpose=clock,scale=340:800,pad=1280:800:470:0")
        #expect(image.meanDifference(to: reference) < 4)
    }
}
