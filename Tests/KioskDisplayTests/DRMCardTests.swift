import Foundation
import CDRM
import Glibc
import Testing
@testable import KioskCore
@testable import KioskDisplay

/// Tests on a real KMS driver. They run in the VM bed (bochs, virtio-gpu: see
/// Tests/System/test_drm.py) and are skipped where /dev/dri/card0 does not exist. Serialized:
/// only one of them may be DRM master at a time.
@Suite(.serialized, .enabled(if: CardTests.hasCard, "needs /dev/dri/card0 (runs in the VM bed)"))
struct DRMCardTests {
    @Test func probeDescribesTheCard() throws {
        let probe = DRMProbe.run()
        #expect(probe.error == nil)
        let card = try #require(probe.cards.first)
        #expect(card.error == nil)
        #expect(card.path == CardTests.card)
        #expect(!card.driver.isEmpty)
        #expect(card.capabilities?.dumbBuffer == true)
        #expect(card.capabilities?.universalPlanes == true)
        let connector = try #require(card.connectors.first { $0.info.status == .connected })
        #expect(connector.info.modes.contains { $0.isPreferred })
        #expect(connector.properties.contains { $0.name == "DPMS" })
        let primary = try #require(card.planes.first { $0.info.type == .primary })
        #expect(primary.info.formats.contains(.xrgb8888))
        #expect(primary.properties.contains { $0.name == "type" && $0.text == "Primary" })
        #expect(!card.crtcs.isEmpty && !card.encoders.isEmpty)
        let json = try JSONEncoder().encode(probe)
        #expect(try JSONDecoder().decode(DRMProbe.self, from: json).cards == probe.cards)
        #expect(probe.text.contains("\(CardTests.card)  driver \(card.driver)"))
        print(probe.text)
    }

    @Test(arguments: [DRMDisplayOptions.API.atomic, .legacy])
    func presentsFramesAndCloses(api: DRMDisplayOptions.API) throws {
        guard let display = try CardTests.open(api: api) else { return }
        print(display.summary)
        #expect(display.api == api)
        #expect(display.size == display.mode.size)
        #expect(display.refreshInterval == display.mode.refreshInterval)
        #expect(display.refreshInterval > .zero)
        #expect(display.softwareRotation == .none)
        var times: [Double] = []
        var lastIndex: Int?
        for _ in 0..<8 {
            let buffer = try display.backBuffer()
            #expect(buffer.index != lastIndex, "the buffer on screen was handed out for drawing")
            #expect(buffer.size == display.size)
            TestPattern.draw(into: buffer)
            times.append(try display.present(buffer))
            #expect(TestPattern.mismatches(in: buffer).isEmpty)
            lastIndex = buffer.index
        }
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "flip times not increasing: \(times)")
        let now = monotonicSeconds()
        #expect(times.last! <= now && times.last! > now - 5, "flip time \(times.last!) is not CLOCK_MONOTONIC (now \(now))")
        try display.close()
        try display.close()   // idempotent
        #expect(throws: DRMError.self) { try display.backBuffer() }
        // What the presenter reads to tell a stop from a failing screen (OutputClosed.swift).
        do { _ = try display.backBuffer() } catch { #expect(outputWasClosed(error), "\(error)") }
    }

    @Test(arguments: [DRMDisplayOptions.API.atomic, .legacy])
    func closeRestoresThePreviousScreen(api: DRMDisplayOptions.API) throws {
        // Keep a second file open so closing the display is not the card's last close (the
        // kernel would then restore the console itself and hide a broken restore).
        let guardFD = try CardTests.openWithoutMaster()
        defer { Glibc.close(guardFD) }
        guard let display = try CardTests.open(api: api) else { return }
        let before = try #require(CardTests.crtcState(display.crtcID))
        // `before` is read while kiosk shows its buffer; the state to come back is the saved one.
        let saved = display.savedState
        #expect(before.framebuffer != saved.framebufferID, "kiosk's modeset did not change the framebuffer")
        TestPattern.draw(into: try display.backBuffer())
        _ = try display.present(try display.backBuffer())
        try display.close()
        let after = try #require(CardTests.crtcState(display.crtcID))
        #expect(after.framebuffer == saved.framebufferID)
        #expect(after.mode == saved.mode)
    }

    /// What the CLI's SIGTERM handler does: close from another thread while the presenter
    /// thread is flipping. The presenter must get `.closed`, and the console its screen back.
    @Test func closeFromAnotherThreadWhilePresenting() throws {
        let guardFD = try CardTests.openWithoutMaster()
        defer { Glibc.close(guardFD) }
        let display = try DRMDisplay(options: DRMDisplayOptions(card: CardTests.card, api: CardTests.api))
        let presenter = PresenterLoop(display: display)
        let thread = Thread { presenter.run() }
        thread.start()
        while presenter.flips < 5 { usleep(1000) }
        try display.close()
        presenter.finished.wait()
        #expect(presenter.flips >= 5)
        #expect(presenter.stoppedBy == "the display is closed")
        #expect(CardTests.crtcState(display.crtcID)?.framebuffer == display.savedState.framebufferID)
    }

    /// The engine may be drawing when close runs: the buffer it holds stays mapped until it
    /// hands it back, which then fails with `.closed` (and unmaps it).
    @Test func bufferHeldAcrossCloseStaysDrawable() throws {
        let display = try DRMDisplay(options: DRMDisplayOptions(card: CardTests.card, api: CardTests.api))
        let held = try display.backBuffer()
        try display.close()
        TestPattern.draw(into: held)               // would crash if close had unmapped it
        #expect(TestPattern.mismatches(in: held).isEmpty)
        #expect(throws: DRMError.self) { try display.present(held) }
    }

    @Test func secondOpenerIsToldAnotherProcessIsMaster() throws {
        let first = try DRMDisplay(options: DRMDisplayOptions(card: CardTests.card, api: CardTests.api))
        do {
            let second = try DRMDisplay(options: DRMDisplayOptions(card: CardTests.card, api: CardTests.api))
            Issue.record("a second display opened while the first is master: \(second.summary)")
        } catch {
            guard case .anotherMaster(let path, _) = error else { Issue.record("got \(error)"); return }
            #expect(path == CardTests.card)
            #expect(error.description.hasPrefix("another process is DRM master on \(CardTests.card)"))
        }
        try first.close()
        // Master is free again.
        let third = try DRMDisplay(options: DRMDisplayOptions(card: CardTests.card, api: CardTests.api))
        try third.close()
    }

    /// Run by test_drm.py as user nobody after giving card0 to group video, mode 660, as udev does.
    @Test(.enabled(if: access(CardTests.card, R_OK | W_OK) != 0, "runs only for a user who may not open the card"))
    func userWithoutAccessIsToldWhichGroup() throws {
        var info = stat()
        #expect(stat(CardTests.card, &info) == 0)
        do {
            _ = try DRMDisplay(options: DRMDisplayOptions(card: CardTests.card))
            Issue.record("opened a card this user may not access")
        } catch {
            guard case .permissionDenied(let path, let group, let gid) = error else { Issue.record("got \(error)"); return }
            #expect(path == CardTests.card)
            #expect(gid == info.st_gid)
            #expect(group == groupName(info.st_gid))
            print(error)
        }
        // Auto discovery reports the same, not "no screen".
        #expect(throws: DRMError.self) { try DRMDisplay() }
        do { _ = try DRMDisplay() } catch { #expect(error.description.contains("permission denied")) }
    }

    @Test func unknownConnectorAndModeListWhatThereIs() throws {
        do {
            _ = try DRMDisplay(options: DRMDisplayOptions(card: CardTests.card, connector: "HDMI-A-9"))
            Issue.record("opened a connector that does not exist")
        } catch {
            guard case .selection(_, .unknownConnector(let name, let available)) = error else { Issue.record("got \(error)"); return }
            #expect(name == "HDMI-A-9")
            #expect(available.contains { $0.contains("(connected,") })
        }
        do {
            _ = try DRMDisplay(options: DRMDisplayOptions(card: CardTests.card, mode: ModeRequest(size: PixelSize(width: 1234, height: 567))))
            Issue.record("opened a mode nobody offers")
        } catch {
            guard case .selection(_, .modeNotOffered(let requested, _, let available)) = error else { Issue.record("got \(error)"); return }
            #expect(requested == "1234x567")
            #expect(available.contains { $0.hasSuffix("(preferred)") })
            print(error)
        }
    }

    @Test func requestedModeIsSet() throws {
        let connector = try #require(DRMProbe.probeCard(CardTests.card).connectors.first { $0.info.status == .connected })
        let preferred = try #require(connector.info.modes.first { $0.isPreferred })
        // The smallest other size the connector offers.
        let other = try #require(connector.info.modes.filter { $0.size != preferred.size }
            .min { $0.size.width * $0.size.height < $1.size.width * $1.size.height })
        let request = ModeRequest(size: other.size, refreshHz: other.refreshHz)
        let display = try DRMDisplay(options: DRMDisplayOptions(card: CardTests.card, connector: connector.info.name,
                                                                mode: request, api: CardTests.api))
        #expect(display.mode.size == other.size)
        #expect(display.size == other.size)
        #expect(display.connectorName == connector.info.name)
        #expect(CardTests.crtcState(display.crtcID)?.mode?.size == other.size)
        TestPattern.draw(into: try display.backBuffer())
        _ = try display.present(try display.backBuffer())
        try display.close()
    }

    @Test(arguments: [Rotation.clockwise90, .clockwise180])
    func rotationIsDoneByThePlaneOrLeftToTheCPU(rotation: Rotation) throws {
        let display = try DRMDisplay(options: DRMDisplayOptions(card: CardTests.card, rotation: rotation, api: CardTests.api))
        defer { try? display.close() }
        let plane = DRMProbe.probeCard(CardTests.card).planes.first { $0.info.id == display.planeID }
        let planeRotates = display.api == .atomic && plane?.rotations.contains(rotation.degrees) == true
        #expect(display.logicalSize == (rotation.swapsAxes ? display.mode.size.transposed : display.mode.size))
        if planeRotates {
            #expect(display.softwareRotation == .none)
            #expect(display.size == display.logicalSize)
        } else {
            #expect(display.softwareRotation == rotation)
            #expect(display.needsSoftwareRotation)
            #expect(display.size == display.mode.size)
        }
        _ = try display.present(try display.backBuffer())
    }

    @Test func onlyFreeBuffersOfThisDisplayArePresented() throws {
        let display = try DRMDisplay(options: DRMDisplayOptions(card: CardTests.card, api: CardTests.api))
        defer { try? display.close() }
        let back = try display.backBuffer()
        _ = try display.present(back)
        // `back` is on screen now: presenting it again would flip to itself.
        #expect(throws: DRMError.self) { try display.present(back) }
        let stranger = HeadlessDisplay(size: display.size)
        #expect(throws: DRMError.self) { try display.present(try stranger.backBuffer()) }
    }

    @Test func threeBuffersLetTheEngineDrawAhead() throws {
        let display = try DRMDisplay(options: DRMDisplayOptions(card: CardTests.card, api: CardTests.api, bufferCount: 3))
        defer { try? display.close() }
        #expect(display.bufferCount == 3)
        var seen = Set<Int>()
        var times: [Double] = []
        for _ in 0..<6 {
            let buffer = try display.backBuffer()
            seen.insert(buffer.index)
            TestPattern.draw(into: buffer)
            try display.submit(buffer)          // queued; the next backBuffer is neither front nor queued
            let next = try display.backBuffer()
            #expect(next.index != buffer.index)
            times.append(try display.waitForFlip().seconds)
        }
        #expect(seen == [0, 1, 2])
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
    }
}

/// Presents until the display refuses; counts the flips. Shared with the test's thread under a
/// lock, hence @unchecked Sendable.
final class PresenterLoop: @unchecked Sendable {
    private let display: DRMDisplay
    private let lock = NSLock()
    private var count = 0
    private var error: String?
    let finished = DispatchSemaphore(value: 0)

    init(display: DRMDisplay) { self.display = display }

    var flips: Int { lock.withLock { count } }
    var stoppedBy: String? { lock.withLock { error } }

    func run() {
        defer { finished.signal() }
        do {
            while true {
                let buffer = try display.backBuffer()
                TestPattern.draw(into: buffer)
                _ = try display.present(buffer)
                lock.withLock { count += 1 }
            }
        } catch {
            lock.withLock { self.error = "\(error)" }
        }
    }
}
