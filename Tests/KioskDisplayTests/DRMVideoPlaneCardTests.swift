import Foundation
import Testing
@testable import KioskCore
@testable import KioskDisplay

/// The direct video path on the bed's real drivers (part of DRMCardTests, which
/// Tests/System/test_drm.py runs in the guest): bochs and virtio-gpu have an XRGB primary plane
/// and at most a cursor, so no plane may be chosen, the probe must say why, and the CPU path
/// must keep working.
extension DRMCardTests {
    @Test func noPlaneIsChosenAndTheCPUPathStillPresents() throws {
        guard let display = try CardTests.open(api: .atomic) else { return }
        defer { try? display.close() }
        let frame = PixelSize(width: 320, height: 240)
        let layout = GravityLayout(source: frame, target: display.size, gravity: .fit)
        for format in [VideoFrameFormat.yuv420p, .nv12] {
            let answer = display.prepareDirectScanout(format: format, frameSize: frame, layout: layout)
            guard case .unavailable(let reason) = answer else {
                Issue.record("\(display.driverName): expected the CPU path for \(format), got \(answer)")
                continue
            }
            print("\(display.driverName) \(format): \(reason)")
            #expect(reason.contains("takes \(format.drmFormats[0])"), "\(reason)")
        }
        #expect(display.videoPlane == nil && display.blackBuffer == nil, "nothing allocated for a path not taken")
        TestPattern.draw(into: try display.backBuffer())
        let buffer = try display.backBuffer()
        TestPattern.draw(into: buffer)
        #expect(try display.present(buffer) > 0)
    }

    @Test func probeSaysWhyVideoGoesThroughTheCPU() throws {
        let card = try #require(DRMProbe.run().cards.first)
        let reports = card.videoPlanes
        #expect(reports.map(\.format) == [.nv12, .yuv420p])
        #expect(reports.allSatisfy { $0.plane == nil && $0.reason?.isEmpty == false }, "\(reports)")
        #expect(DRMProbe.run().text.contains("video plane (NV12, "), "\(DRMProbe.run().text)")
        print(reports.map(\.line).joined(separator: "\n"))
    }

    @Test func offPolicyRefusesForGood() throws {
        var options = DRMDisplayOptions(card: CardTests.card)
        options.videoPlane = .off
        let display = try DRMDisplay(options: options)
        defer { try? display.close() }
        let layout = GravityLayout(source: PixelSize(width: 320, height: 240), target: display.size, gravity: .fit)
        #expect(display.prepareDirectScanout(format: .nv12, frameSize: PixelSize(width: 320, height: 240), layout: layout)
                == .refused(reason: "display.video_plane is off"))
    }
}

extension DRMCardTests {
    @Test func yuvBufferOnACardWithoutYUVPlanesFailsCleanly() throws {
        // The dumb buffer is made (8 bits per pixel on bochs; virtio-gpu makes 32-bit ones only,
        // so the same bytes as 32-bit pixels) and mapped; registering it as NV12 is refused by a
        // kernel with no plane taking NV12: one clear error, nothing left.
        let card = try KioskDisplay.Card(path: CardTests.card, wantAtomic: true)
        defer { card.close() }
        // do/catch, not #expect { } throws: { }, which Swift 6.0 (deploy/arm64) crashes on
        // around a typed-throws call.
        do {
            _ = try YUVDumbBuffer(card: card, format: .nv12, frameSize: PixelSize(width: 312, height: 232))
            Issue.record("an NV12 framebuffer was registered on a card without YUV planes")
        } catch {
            // drm_mode_addfb2 says EINVAL; virtio-gpu's own check answers ENOENT first.
            guard case .callFailed(let what, "drmModeAddFB2", let code) = error else { Issue.record("other error: \(error)"); return }
            #expect(what.contains("312x232 NV12") && [EINVAL, ENOENT].contains(code), "\(error)")
        }
    }
}
