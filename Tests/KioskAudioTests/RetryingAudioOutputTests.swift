import KioskAudio
import KioskCore
import KioskTestSupport
import Logging
import Testing

@Suite struct RetryingAudioOutputTests {
    static let format = AudioFormat(sampleFormat: .s16, sampleRate: 48_000, channels: 2)
    /// 10 ms of silence.
    static let chunk = [UInt8](repeating: 0, count: 480 * format.bytesPerFrame)

    /// A device the test switches on and off, with every open attempt's (fake) time.
    final class Scenario {
        let clock = FakeClock()
        let log = CapturedLog()
        var deviceAvailable = false
        var attempts: [(time: Double, keeping: AudioFormat?)] = []
        var devices: [ScriptedOutput] = []
        var negotiate: (AudioFormat) -> AudioFormat = { $0 }

        func makeOutput() -> RetryingAudioOutput {
            RetryingAudioOutput(deviceName: "hw:7,0", clock: clock, logger: log.logger) { [unowned self] keeping in
                attempts.append((clock.now(), keeping))
                let device = ScriptedOutput(name: "hw:7,0")
                device.negotiate = negotiate
                if !deviceAvailable {
                    device.failOpen = .unavailable(device: "hw:7,0", reason: "no such device (is the sound card present?)")
                }
                devices.append(device)
                return device
            }
        }

        /// Writes 10 ms chunks until `condition` holds or `limit` fake seconds passed.
        func write(to output: RetryingAudioOutput, until condition: () -> Bool, limit: Double = 120) throws {
            let start = clock.now()
            while !condition() && clock.now() - start < limit { try output.write(RetryingAudioOutputTests.chunk) }
        }
    }

    @Test func aMissingDeviceIsRetriedWithBackoffAndPickedUpWhenItAppears() throws {
        let scenario = Scenario()
        let output = scenario.makeOutput()
        let start = scenario.clock.now()
        #expect(try output.configure(Self.format) == Self.format, "plays on in the format asked for")
        #expect(output.failure == .unavailable(device: "hw:7,0", reason: "no such device (is the sound card present?)"))
        #expect(!output.isDeviceOpen)

        // Absent for 20 s: attempts at 1, 3, 7, 15 s; the one at 31 s finds it.
        try scenario.write(to: output, until: { scenario.clock.now() - start >= 20 })
        scenario.deviceAvailable = true
        try scenario.write(to: output, until: { output.isDeviceOpen })

        let offsets = scenario.attempts.map { $0.time - start }
        let expected = [0.0, 1, 3, 7, 15, 31]
        #expect(offsets.count == expected.count, "attempts at \(offsets)")
        // An attempt happens at the first write after it is due: up to a 10 ms chunk late, and
        // the next delay counts from there.
        for (index, (offset, wanted)) in zip(offsets, expected).enumerated() {
            #expect(offset >= wanted && offset - wanted < 0.011 * Double(index + 1), "attempts at \(offsets)")
        }
        #expect(scenario.attempts.first?.keeping == nil)
        #expect(scenario.attempts.dropFirst().allSatisfy { $0.keeping == Self.format }, "reopened for the format in use")
        #expect(output.failure == nil)
        #expect(output.counters.failures == 1 && output.counters.reopens == 1)
        // The stand-in consumed in real time meanwhile: 31 s of frames went somewhere.
        #expect(output.counters.framesWritten >= Int64(30 * 48_000))

        // One warning when sound stopped, one notice when it came back, retries only at debug.
        #expect(scenario.log.lines(atLeast: .notice) == [
            "audio device 'hw:7,0': cannot open: no such device (is the sound card present?); playing without sound, trying again in 1 s",
            "audio device 'hw:7,0' is back: s16 48000 Hz 2 ch (FL FR)",
        ])
        #expect(scenario.log.lines.filter { $0.level == .debug }.count == 4)
    }

    @Test func aDeviceThatVanishesMidPlayIsReplacedByTheClockAndComesBack() throws {
        let scenario = Scenario()
        scenario.deviceAvailable = true
        let output = scenario.makeOutput()
        _ = try output.configure(Self.format)
        let first = try #require(scenario.devices.first)
        first.writesBeforeFailing = 3
        try scenario.write(to: output, until: { output.failure != nil }, limit: 1)
        #expect(output.failure == .disconnected(device: "scripted", reason: "No such device"))
        #expect(first.closed, "the lost device is released")
        #expect(output.delayFrames >= 0)

        let lost = scenario.clock.now()
        try scenario.write(to: output, until: { output.isDeviceOpen })
        #expect(abs(scenario.clock.now() - lost - 1) < 0.05, "reopened after 1 s")
        #expect(output.counters.failures == 1 && output.counters.reopens == 1)
        #expect(output.counters.framesWritten > 3 * 480, "frames of the lost device are still counted")
        #expect(scenario.log.lines(atLeast: .warning) == [
            "audio device 'scripted' went away: No such device; playing without sound, trying again in 1 s",
        ])
    }

    @Test func aDeviceThatComesBackInAnotherFormatIsNotUsed() throws {
        let scenario = Scenario()
        let output = scenario.makeOutput()
        _ = try output.configure(Self.format)
        scenario.deviceAvailable = true
        scenario.negotiate = { var other = $0; other.sampleRate = 44_100; return other }
        try scenario.write(to: output, until: { scenario.attempts.count >= 3 })
        #expect(!output.isDeviceOpen)
        #expect(scenario.devices.allSatisfy { $0.closed || $0.format == nil })
        let mismatches = scenario.log.lines.filter { $0.text.contains("came back as s16 44100 Hz 2 ch (FL FR), not s16 48000 Hz") }
        #expect(mismatches.map(\.level) == [.warning, .debug], "said once as a warning, then only at debug level")
    }

    @Test func controlCallsReachTheDevice() throws {
        let scenario = Scenario()
        scenario.deviceAvailable = true
        let output = scenario.makeOutput()
        _ = try output.configure(Self.format)
        try output.pause()
        try output.resume()
        try output.drop()
        let device = try #require(scenario.devices.first)
        #expect(device.calls == ["configure", "pause", "resume", "drop"])
        output.close()
        #expect(device.closed)
    }
}
