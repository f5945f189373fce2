import Testing
import KioskTestSupport

/// Phone videos carry a display matrix instead of turned pixels; kiosk turns them as FFmpeg's
/// own player does (ffmpeg's autorotate is the reference).
@Suite struct SnapshotRotationTagTests {
    static func rotated(_ degrees: Int) throws -> String {
        let plain = try MediaFixtures.pattern("plain-320x240.mp4", width: 320, height: 240)
        return try MediaFixtures.clip("rotate-tag-\(degrees).mp4",
                                      MediaFixtures.rotationTagArguments(input: plain, degrees: degrees))
    }

    @Test(arguments: [90, 180, 270])
    func rotationTagIsHonoured(degrees: Int) throws {
        let clip = try Self.rotated(degrees)
        let probe = try Kiosk.run("probe", clip)
        #expect(probe.stdout.contains("rotate "))
        let portrait = degrees != 180
        let size = portrait ? "480x640" : "640x480"
        let image = try Kiosk.snapshot(clip, size: size, gravity: "fit")
        // Exactly twice the shown size: no bars.
        #expect(image.blackRows(atColumn: image.width / 2) == 0)
        #expect(image.blackColumns(atRow: image.height / 2) == 0)
        let reference = try Kiosk.reference(clip, filter: "scale=\(size.replacingOccurrences(of: "x", with: ":"))")
        #expect(image.meanDifference(to: reference) < 4)
        // And the markers are turned, not just the shape: the four corners differ from the
        // unrotated picture's order in the way the tag says.
        let corners = [image.pixel(40, 40), image.pixel(image.width - 40, 40),
                       image.pixel(40, image.height - 40), image.pixel(image.width - 40, image.height - 40)]
        let upright: [RGBImage.Color] = [.red, .green, .blue, .yellow]
        #expect(!zip(corners, upright).allSatisfy { $0.isNear($1) })
        #expect(zip(corners, [reference.pixel(40, 40), reference.pixel(reference.width - 40, 40),
                              reference.pixel(40, reference.height - 40),
                              reference.pixel(reference.width - 40, reference.height - 40)]).allSatisfy { $0.isNear($1) })
    }
}
