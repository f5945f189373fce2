import KioskCore
import Testing

@Suite struct PresenterHealthTests {
    @Test func aLoopThatComesRoundIsHealthy() {
        var health = PresenterHealth(startedAt: 100)
        health.loopActivity = 109
        #expect(health.verdict(at: 110, stallLimit: 5) == .healthy)
    }

    @Test func aLoopSilentForTheLimitIsStalled() {
        let health = PresenterHealth(startedAt: 100)
        #expect(health.verdict(at: 104.9, stallLimit: 5) == .healthy)
        #expect(health.verdict(at: 106, stallLimit: 5) == .presenterStalled(forSeconds: 6))
    }

    @Test func aPlannedSleepCountsUntilItsWakeTime() {
        // The idle screen waits 30 s before its next retry: that is no stall...
        var health = PresenterHealth(startedAt: 100)
        health.sleepingUntil = 130
        #expect(health.verdict(at: 129, stallLimit: 5) == .healthy)
        #expect(health.verdict(at: 134, stallLimit: 5) == .healthy)
        // ...but not waking up long after it is.
        #expect(health.verdict(at: 136, stallLimit: 5) == .presenterStalled(forSeconds: 6))
    }

    @Test func aDisplayFailingEveryFlipStarvesTheWatchdog() {
        var health = PresenterHealth(startedAt: 100)
        health.loopActivity = 120
        health.displayFailingSince = 112
        health.displayError = "the page flip did not complete within 1.0 s"
        #expect(health.verdict(at: 116, stallLimit: 5) == .healthy)
        let verdict = health.verdict(at: 120, stallLimit: 5)
        #expect(verdict == .displayFailing(forSeconds: 8, reason: "the page flip did not complete within 1.0 s"))
        #expect(verdict.description == "the display has failed every frame for 8 s: the page flip did not complete within 1.0 s")
    }

    @Test func aFrozenPictureThatClaimsToPlayStarvesTheWatchdog() {
        // The loop comes round every 50 ms, but no new frame and no sound since 110 while
        // the player says it plays (issue 12): the watchdog goes unfed once that lasts.
        var health = PresenterHealth(startedAt: 100)
        health.loopActivity = 120
        health.progressOverdueSince = 110
        #expect(health.verdict(at: 114.9, stallLimit: 5) == .healthy)
        let verdict = health.verdict(at: 120, stallLimit: 5)
        #expect(verdict == .pictureFrozen(forSeconds: 10))
        #expect(verdict.description == "the picture has been frozen for 10 s while playing")
        // Paused, idle, or a network stream buffering: nothing overdue, fed again.
        health.progressOverdueSince = nil
        #expect(health.verdict(at: 120, stallLimit: 5) == .healthy)
    }

    @Test func statusLines() {
        #expect(ServiceStatusLine.text(title: "a.mp4", index: 2, timeControl: .playing, waiting: nil) == "playing item 2: a.mp4")
        #expect(ServiceStatusLine.text(title: "a.mp4", index: 2, timeControl: .paused, waiting: nil) == "paused at item 2: a.mp4")
        #expect(ServiceStatusLine.text(title: "live", index: 0, timeControl: .waitingToPlayAtSpecifiedRate, waiting: .buffering)
                == "waiting for data: item 0: live")
        #expect(ServiceStatusLine.text(title: nil, index: nil, timeControl: .waitingToPlayAtSpecifiedRate, waiting: .noItemToPlay)
                == "idle: nothing in the playlist can play (retrying)")
        #expect(ServiceStatusLine.text(title: nil, index: nil, timeControl: .waitingToPlayAtSpecifiedRate, waiting: .noItemToPlay,
                                       hasShownPicture: false) == "starting")
        #expect(ServiceStatusLine.text(title: "a.mp4", index: 0, timeControl: .playing, waiting: nil,
                                       verdict: .presenterStalled(forSeconds: 12))
                == "stalled: the presenter has made no progress for 12 s")
    }

    @Test func notificationLines() {
        #expect(ServiceNotification.ready.assignment == "READY=1")
        #expect(ServiceNotification.watchdog.assignment == "WATCHDOG=1")
        #expect(ServiceNotification.stopping.assignment == "STOPPING=1")
        #expect(ServiceNotification.status("two\nlines").assignment == "STATUS=two lines")
    }
}
