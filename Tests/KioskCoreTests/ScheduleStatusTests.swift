import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// The control socket's `schedule` property and `display_power` modes (ScheduleStatus.swift).
@Suite struct ScheduleStatusTests {
    @Test func modesHoldOrFollowTheSchedule() {
        #expect(DisplayPowerMode.auto.powerOn(scheduled: true))
        #expect(!DisplayPowerMode.auto.powerOn(scheduled: false))
        #expect(DisplayPowerMode.on.powerOn(scheduled: false))
        #expect(!DisplayPowerMode.off.powerOn(scheduled: true))
    }

    @Test func theStatusSaysWhatTheScheduleChoseTheHoldAndTheNextChange() throws {
        // Sunday 21:00 in Berlin: outside the 08:00-20:00 power window, outside opening hours.
        let night = try ScheduleDryRunTests.dryRun(at: "2026-10-25T21:00", span: nil)
        #expect(night.status(powerMode: .auto).json == """
            {"at":"2026-10-25T21:00:00+01:00","timezone":"Europe/Berlin",\
            "state":{"playlist":"default","entry":null,"display_power":"off"},\
            "display_power_mode":"auto","display_power":"off",\
            "next_change":{"at":"2026-10-26T08:00:00+01:00","utc_offset":"+01:00","playlist":"default",\
            "entry":null,"display_power":"on"}}
            """)
        // Held on by the socket: the schedule's own answer is still shown beside it.
        let held = night.status(powerMode: .on)
        #expect(held["display_power_mode"] == .string("on"))
        #expect(held["display_power"] == .string("on"))
        #expect(held["state"]?["display_power"] == .string("off"))
    }

    @Test func settingsGiveTheSameAnswerAsTheDryRun() throws {
        let config = try ConfigLoader.parse(text: ScheduleDryRunTests.shop, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                                            fileSystem: FakeFileSystem(files: []))
        let settings = ScheduleSettings(config)
        let at = try #require(ScheduleTimeText.parseInstant("2026-10-22T12:00", clock: config.scheduleClock))
        #expect(settings.dryRun(at: at).status(powerMode: .auto)
                == ScheduleDryRun(config: config, at: at, span: nil).status(powerMode: .auto))
        var ticker = settings.ticker
        #expect(ticker.state == nil)
        _ = ticker.tick(now: at)
        #expect(ticker.state?.playlist == "shop")
    }
}
