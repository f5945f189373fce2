import Foundation
import KioskCore
import KioskTestSupport
import Testing
@testable import KioskCEC

/// The follower against a fake adapter: what it sends for each change, that it never throws, that
/// a failure is logged once per kind, and that changes coming faster than the bus end on the
/// newest state.
@Suite struct CECPowerFollowerTests {
    /// Records calls; fails with the queued errors first; can hold a call until released.
    final class FakeTV: CECPowerTarget, @unchecked Sendable {
        let path = "/dev/cec7"
        private let lock = NSLock()
        private var _calls: [String] = []
        private var failures: [CECError] = []
        var gate: DispatchSemaphore?
        let entered = DispatchSemaphore(value: 0)

        var calls: [String] { lock.withLock { _calls } }
        func fail(with errors: [CECError]) { lock.withLock { failures += errors } }

        private func record(_ call: String) throws(CECError) {
            let failure: CECError? = lock.withLock {
                _calls.append(call)
                return failures.isEmpty ? nil : failures.removeFirst()
            }
            entered.signal()
            gate?.wait()
            if let failure { throw failure }
        }
        func standby() throws(CECError) -> [CECMessage] {
            try record("standby")
            lock.withLock { if _answers { _power = .standby } }
            return []
        }
        func wake() throws(CECError) -> [CECMessage] {
            try record("wake")
            lock.withLock { if _answers { _power = .turningOn } }
            return []
        }
        /// A TV that follows what it is sent and says so when asked (off: it never answers).
        var answersPower: Bool {
            get { lock.withLock { _answers } }
            set { lock.withLock { _answers = newValue } }
        }
        private var _answers = false
        private var _power: CECPowerStatus? = .on
        func tvPowerStatus() throws(CECError) -> CECPowerStatus? {
            try record("power?")
            return lock.withLock { () -> CECPowerStatus? in
                guard _answers else { return nil }
                if _lagging > 0 { _lagging -= 1; return .on }
                return _power
            }
        }
        /// Says on (whatever it was sent) to this many asks more.
        var lagging: Int {
            get { lock.withLock { _lagging } }
            set { lock.withLock { _lagging = newValue } }
        }
        private var _lagging = 0
    }

    static let nack = CECError.transmitFailed(path: "/dev/cec7", message: .standby(from: .playback1), status: [.nack, .maxRetries])

    func follower(_ tv: FakeTV, log: CapturedLog, opens: OpenCounter = OpenCounter(),
                  askAfterChange: [Double] = []) -> CECPowerFollower {
        CECPowerFollower(logger: log.logger, askAfterChange: askAfterChange) { () throws(CECError) -> any CECPowerTarget in
            opens.increment()
            return tv
        }
    }

    final class OpenCounter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func increment() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    @Test func offSendsStandbyAndOnWakesOpeningTheAdapterEachTime() {
        let tv = FakeTV(), log = CapturedLog(), opens = OpenCounter()
        let follower = follower(tv, log: log, opens: opens)
        follower.displayPowerChanged(on: false)
        follower.waitUntilIdle()
        follower.displayPowerChanged(on: true)
        follower.waitUntilIdle()
        #expect(tv.calls == ["standby", "wake"])
        #expect(opens.value == 2)
        #expect(log.lines(atLeast: .notice) == ["HDMI-CEC: sent the TV to standby through /dev/cec7",
                                                "HDMI-CEC: woke the TV (Image View On, Active Source) through /dev/cec7"])
    }

    @Test func aFailureIsLoggedOncePerKindUntilItWorksAgain() {
        let tv = FakeTV(), log = CapturedLog()
        let follower = follower(tv, log: log)
        tv.fail(with: [Self.nack, Self.nack, Self.nack, .noAdapter(directory: "/dev")])
        for on in [false, true, false, true, false, true] {
            follower.displayPowerChanged(on: on)
            follower.waitUntilIdle()
        }
        tv.fail(with: [Self.nack])
        follower.displayPowerChanged(on: false)
        follower.waitUntilIdle()

        let warnings = log.lines(atLeast: .warning)
        #expect(warnings.count == 3, "\(log.formatted)")
        #expect(warnings[0].hasPrefix("HDMI-CEC: could not follow display power off: /dev/cec7: Standby (0x36)"))
        #expect(warnings[0].contains("NACK|MAX_RETRIES"))
        #expect(warnings[1].contains("no HDMI-CEC adapter"))
        #expect(warnings[2].contains("NACK"), "a NACK after a success is news again")
        #expect(log.lines.filter { $0.level == .debug }.count == 2, "the repeated NACKs, quietly")
        #expect(log.lines(atLeast: .notice).contains("HDMI-CEC: sent the TV to standby through /dev/cec7 (working again)"))
    }

    @Test func changesFasterThanTheBusEndOnTheNewestState() {
        let tv = FakeTV(), log = CapturedLog()
        let gate = DispatchSemaphore(value: 0)
        tv.gate = gate
        let follower = follower(tv, log: log)
        follower.displayPowerChanged(on: false)
        tv.entered.wait()  // standby is on the bus now
        let started = Date()
        follower.displayPowerChanged(on: true)
        follower.displayPowerChanged(on: false)
        follower.displayPowerChanged(on: true)
        #expect(Date().timeIntervalSince(started) < 0.5, "the caller is not held by a busy bus")
        gate.signal()
        tv.entered.wait()
        gate.signal()
        follower.waitUntilIdle()
        #expect(tv.calls == ["standby", "wake"])
    }

    /// The TV's power as it says it: asked at the start of the watch and after each change
    /// sent; unknown (nil) while it does not answer; one line per change.
    @Test func theTVsPowerIsAskedAtTheStartAndAfterEachChange() {
        let tv = FakeTV(), log = CapturedLog()
        tv.answersPower = true
        let follower = follower(tv, log: log)
        #expect(follower.tvPowerOn == nil, "not asked yet")
        follower.watchTVPower(every: 3600)
        defer { follower.stopWatchingTVPower() }
        let deadline = Date().addingTimeInterval(30)
        while follower.tvPowerOn == nil, Date() < deadline { usleep(10_000) }
        #expect(follower.tvPowerOn == true)
        follower.displayPowerChanged(on: false)
        follower.waitUntilIdle()
        #expect(follower.tvPowerOn == false)
        #expect(tv.calls == ["power?", "standby", "power?"])
        follower.displayPowerChanged(on: true)
        follower.waitUntilIdle()
        #expect(follower.tvPowerOn == true, "turning on counts as on")
        tv.answersPower = false
        follower.displayPowerChanged(on: false)
        follower.waitUntilIdle()
        #expect(follower.tvPowerOn == nil, "a TV that stops answering is unknown, not off")
        #expect(log.lines(atLeast: .info).filter { $0.contains("the TV says") } == [
            "HDMI-CEC: the TV says it is on", "HDMI-CEC: the TV says it is in standby", "HDMI-CEC: the TV says it is on",
            "HDMI-CEC: the TV says it is not answering (power unknown)"])
    }

    @Test func aReportPowerStatusReplyIsReadAndAnythingElseIsNot() {
        #expect(CECPowerStatus(reply: [0x04, 0x90, 0x01]) == .standby)
        #expect(CECPowerStatus(reply: [0x04, 0x90, 0x02])?.isOn == true)
        #expect(CECPowerStatus(reply: [0x04, 0x90, 0x03])?.isOn == false)
        #expect(CECPowerStatus(reply: [0x04, 0x00, 0x8F, 0x04]) == nil, "a Feature Abort is no answer")
        #expect(CECPowerStatus(reply: [0x04, 0x90, 0x07]) == nil)
        #expect(CECPowerStatus(reply: []) == nil)
        #expect(CECMessage.givePowerStatus(from: .playback1).bytes == [0x40, 0x8F])
    }

    /// A TV that still says on right after Standby (it takes seconds to change) is asked again.
    @Test func aTVThatChangesLateIsAskedAgainAfterTheChange() {
        let tv = FakeTV(), log = CapturedLog()
        tv.answersPower = true
        let follower = follower(tv, log: log, askAfterChange: [0.2])
        follower.watchTVPower(every: 3600)
        defer { follower.stopWatchingTVPower() }
        let deadline = Date().addingTimeInterval(30)
        while follower.tvPowerOn == nil, Date() < deadline { usleep(10_000) }
        tv.lagging = 1   // Standby lands, but the TV says on when asked at once
        follower.displayPowerChanged(on: false)
        follower.waitUntilIdle()
        #expect(follower.tvPowerOn == true, "asked at once: the old state")
        while follower.tvPowerOn != false, Date() < deadline { usleep(10_000) }
        #expect(follower.tvPowerOn == false, "asked again after the change")
    }
}
