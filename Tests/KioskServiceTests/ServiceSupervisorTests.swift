import Foundation
import KioskCore
import KioskDisplay
import KioskPlayer
import Testing

/// The supervisor with a real player: READY after the first frame, the watchdog fed while frames
/// flow and starved once the presenter hangs in the display.
@Suite struct ServiceSupervisorTests {
    @Test func readyStatusAndPingsWhilePlaying() throws {
        let notifier = RecordingNotifier(watchdogInterval: 4)
        let player = try PlayerFixture.player(on: HeadlessDisplay(size: PixelSize(width: 320, height: 240)),
                                              clipName: "service-playing.mp4")
        let supervisor = ServiceSupervisor(player: player, notifier: notifier, logger: PlayerFixture.logger)
        #expect(supervisor.stallLimit == 2)
        supervisor.check()
        #expect(!notifier.messages.contains(.ready), "READY before anything was on screen")
        player.start()
        defer { player.stop() }
        let ready = PlayerFixture.poll(supervisor, timeout: 30) {
            notifier.messages.contains(.ready) && player.framesPresented > 10
        }
        #expect(ready)
        #expect(notifier.messages.filter { $0 == .ready }.count == 1)
        #expect(notifier.statuses.last == "playing item 0: service-playing.mp4")
        // Longer than the stall limit: the loop's own signs of life keep it healthy.
        _ = PlayerFixture.poll(supervisor, timeout: 3) { false }
        #expect(!notifier.statuses.contains { $0.hasPrefix("stalled") }, "\(notifier.statuses)")
        // Frames flow: every check after the start fed the watchdog.
        let checks = notifier.messages.count
        supervisor.check()
        #expect(notifier.messages.count > checks)
        #expect(notifier.messages.last == .watchdog)
        supervisor.stopping()
        #expect(notifier.messages.suffix(2) == [.stopping, .status("stopping")])
        supervisor.check()
        #expect(notifier.messages.last == .status("stopping"), "nothing more after STOPPING")
    }

    @Test func contentSyncJoinsTheStatusLine() throws {
        let notifier = RecordingNotifier(watchdogInterval: 4)
        let player = try PlayerFixture.player(on: HeadlessDisplay(size: PixelSize(width: 320, height: 240)),
                                              clipName: "service-sync-status.mp4")
        let supervisor = ServiceSupervisor(player: player, notifier: notifier, logger: PlayerFixture.logger)
        supervisor.extraStatus = { "sync: 2/5 files, 1.5 MB of 73.4 MB" }
        player.start()
        defer { player.stop() }
        let playing = PlayerFixture.poll(supervisor, timeout: 30) { player.framesPresented > 3 }
        #expect(playing)
        #expect(notifier.statuses.last == "playing item 0: service-sync-status.mp4; sync: 2/5 files, 1.5 MB of 73.4 MB")
    }

    @Test func aHungPresenterStarvesTheWatchdog() throws {
        // Watchdog 2 s: a presenter with no sign of life for 1 s is stalled.
        let notifier = RecordingNotifier(watchdogInterval: 2)
        let display = HangingDisplay(size: PixelSize(width: 320, height: 240), framesBeforeHang: 5)
        let player = try PlayerFixture.player(on: display, clipName: "service-hang.mp4")
        let supervisor = ServiceSupervisor(player: player, notifier: notifier, logger: PlayerFixture.logger)
        player.start()
        defer {
            display.release()
            player.stop()
        }
        let starved = PlayerFixture.poll(supervisor, timeout: 30) {
            notifier.statuses.last?.hasPrefix("stalled: the presenter has made no progress") == true
        }
        #expect(starved, "\(notifier.statuses)")
        #expect(notifier.messages.contains(.ready), "five frames were on screen before the hang")
        let pings = notifier.pings
        for _ in 0..<5 { supervisor.check() }
        #expect(notifier.pings == pings, "no watchdog ping while the presenter hangs")
        // The display comes back: the presenter runs again and the pings resume.
        display.release()
        let resumed = PlayerFixture.poll(supervisor, timeout: 30) { notifier.pings > pings }
        #expect(resumed)
        #expect(notifier.statuses.last?.hasPrefix("playing") == true)
    }
}
