import KioskAudio
import KioskCore
import KioskTestSupport
import Testing

/// The real ALSA path (PCMSink: open, hw params, writes, drain) recorded through the file
/// plugin, checked against what went in.
@Suite struct ALSAPlaybackTests {
    static func stereoTone() throws -> String {
        try AudioFixtures.tone("tone440-48k.wav", expression: "0.5*sin(2*PI*440*t)|0.5*sin(2*PI*440*t)")
    }

    @Test func toneComesOutAtTheRightFrequencyAndLength() throws {
        let file = AudioFixtures.scratchPath("tone")
        let sink = PCMSink(device: ALSATestConfig.device(recordingTo: file))
        let result = try PlaybackRun().play(Self.stereoTone(), through: sink)
        #expect(result.format == AudioFormat(sampleFormat: .s16, sampleRate: 48_000, channels: 2))
        #expect(sink.periodFrames > 0 && sink.bufferFrames >= sink.periodFrames)
        #expect(result.statistics.failure == nil)
        #expect(result.statistics.output.framesWritten >= 48_000)
        let recording = try Recording(file: file, format: result.format)
        #expect(abs(recording.soundingSeconds() - 1) < 0.005, "\(recording.soundingSeconds()) s of sound")
        #expect(abs(Signal.frequency(of: recording.steadyPart(), sampleRate: 48_000) - 440) < 0.5)
        #expect(abs(Signal.rms(recording.steadyPart()) - 0.5 / 2.squareRoot()) < 0.005)
        #expect(recording.channels[0] == recording.channels[1])
        let report = try #require(result.lastReport)
        #expect(abs(report.endTime.seconds - 1) < 0.001, "the last report covers the whole clip")
    }

    /// The device's own format wins over the request: ALSA's plug layer is told not to
    /// convert, swresample does it once.
    @Test(arguments: [("S32_LE", 44_100, 2, PCMSampleFormat.s32), ("FLOAT_LE", 48_000, 2, .float),
                      ("S16_LE", 22_050, 1, .s16), ("S32_LE", 96_000, 2, .s32)])
    func negotiatesWhatTheDeviceTakesNatively(alsaFormat: String, rate: Int, channels: Int, expected: PCMSampleFormat) throws {
        let file = AudioFixtures.scratchPath("native")
        let sink = PCMSink(device: ALSATestConfig.device(recordingTo: file, channels: channels, rate: rate, format: alsaFormat))
        let result = try PlaybackRun().play(Self.stereoTone(), through: sink)
        #expect(result.format.sampleFormat == expected)
        #expect(result.format.sampleRate == rate)
        #expect(result.format.channels == channels)
        let recording = try Recording(file: file, format: result.format)
        #expect(abs(recording.soundingSeconds() - 1) < 0.005)
        #expect(abs(Signal.frequency(of: recording.steadyPart(margin: rate / 20), sampleRate: rate) - 440) < 0.5)
    }

    @Test func volumeFiftyHalvesTheAmplitude() throws {
        var levels: [Double] = []
        for volume in [100, 50] {
            let file = AudioFixtures.scratchPath("volume\(volume)")
            var run = PlaybackRun()
            run.volume = volume
            let result = try run.play(Self.stereoTone(), through: PCMSink(device: ALSATestConfig.device(recordingTo: file)))
            levels.append(Signal.rms(try Recording(file: file, format: result.format).steadyPart()))
        }
        #expect(abs(levels[1] / levels[0] - 0.5) < 0.01, "volume 50 / volume 100 RMS: \(levels)")
    }

    @Test func muteGivesSilenceAndCountsTheFramesAsPlayed() throws {
        let file = AudioFixtures.scratchPath("muted")
        var run = PlaybackRun()
        run.isMuted = true
        let result = try run.play(Self.stereoTone(), through: PCMSink(device: ALSATestConfig.device(recordingTo: file)))
        let recording = try Recording(file: file, format: result.format)
        #expect(recording.channels[0].count >= 48_000)
        #expect(Signal.peak(recording.channels[0]) == 0 && Signal.peak(recording.channels[1]) == 0)
    }

    @Test func surroundFoldsDownOnAStereoOnlyDevice() throws {
        let clip = try AudioFixtures.tone("fl-only-5.1.wav", expression: "0.5*sin(2*PI*440*t)|0|0|0|0|0", layout: "5.1")
        let file = AudioFixtures.scratchPath("fold")
        var run = PlaybackRun()
        // The engine asks for the source's layout; the device only takes two channels.
        run.requested = AudioFormat(sampleFormat: .s16, sampleRate: 48_000, channels: 6)
        let result = try run.play(clip, through: PCMSink(device: ALSATestConfig.device(recordingTo: file, channels: 2)))
        #expect(result.format.channels == 2)
        let recording = try Recording(file: file, format: result.format)
        #expect(Signal.rms(recording.steadyPart(channel: 0)) > 0.1, "the front-left tone is on the left")
        #expect(Signal.peak(recording.channels[1]) < 0.001, "and not on the right")
        #expect(abs(Signal.frequency(of: recording.steadyPart(channel: 0), sampleRate: 48_000) - 440) < 0.5)
    }

    @Test(arguments: [Rational(2, 1), Rational(1, 2)])
    func tempoChangesTheDurationAndKeepsThePitch(rate: Rational) throws {
        let file = AudioFixtures.scratchPath("rate")
        var run = PlaybackRun()
        run.rate = rate
        let result = try run.play(Self.stereoTone(), through: PCMSink(device: ALSATestConfig.device(recordingTo: file)))
        let recording = try Recording(file: file, format: result.format)
        let expected = 1 / rate.doubleValue
        #expect(abs(recording.soundingSeconds() - expected) < 0.02 * expected, "\(recording.soundingSeconds()) s at rate \(rate)")
        #expect(abs(Signal.frequency(of: recording.steadyPart(), sampleRate: 48_000) - 440) < 2)
    }

    @Test func anUnknownPCMNameGivesOneClearError() throws {
        _ = ALSATestConfig.installed
        let sink = PCMSink(device: "kiosk_no_such_pcm")
        // do/catch, not #expect { } throws: { }, whose multi-statement closure crashes Swift 6.0's
        // type checker (trixie's Swift, deploy/arm64).
        do {
            _ = try sink.configure(.stereo48k)
            Issue.record("kiosk_no_such_pcm opened")
        } catch {
            if case AudioOutputError.unavailable(let device, let reason) = error {
                #expect(device == "kiosk_no_such_pcm" && reason.contains("no such device"))
                #expect("\(error)" == "audio device 'kiosk_no_such_pcm': cannot open: \(reason)")
            } else {
                Issue.record("other error: \(error)")
            }
        }
        #expect(throws: AudioOutputError.notConfigured(device: "kiosk_no_such_pcm")) { try sink.write([0, 0, 0, 0]) }
    }

    @Test func pauseResumeAndDropKeepTheDeviceUsable() throws {
        let file = AudioFixtures.scratchPath("pause")
        let sink = PCMSink(device: ALSATestConfig.device(recordingTo: file))
        let format = try sink.configure(.stereo48k)
        let period = [UInt8](repeating: 0, count: 480 * format.bytesPerFrame)
        try sink.write(period)
        try sink.pause()
        try sink.resume()
        try sink.drop()
        try sink.write(period)
        try sink.recover()
        try sink.drain()
        #expect(sink.failure == nil)
        #expect(sink.counters.framesWritten == 960)
        sink.close()
        sink.close()
    }

    @Test func probeListsPCMNamesAndEncodesAsJSON() throws {
        _ = ALSATestConfig.installed
        let probe = ALSAProbe.probe()
        #expect(probe.pcms.contains { $0.name == "null" && $0.canPlay }, "\(probe.pcms.map(\.name))")
        let decoded = try JSONDecoder().decode(ALSAProbe.self, from: JSONEncoder().encode(probe))
        #expect(decoded == probe)
        #expect(probe.summary.contains("playback PCM names:"))
        #expect(probe.summary.contains("  null"))
    }
}

import Foundation

/// RetryingAudioOutput around the real PCMSink, as `kiosk` opens a named device.
@Suite struct RetryingALSAOutputTests {
    @Test func aPresentPCMOpensAtOnce() throws {
        let file = AudioFixtures.scratchPath("retrying")
        let output = RetryingAudioOutput(alsaDevice: ALSATestConfig.device(recordingTo: file))
        #expect(try output.configure(.stereo48k) == .stereo48k)
        #expect(output.isDeviceOpen && output.failure == nil)
        output.close()
    }

    @Test func aMissingPCMPlaysOnWithoutSoundAndSaysSoOnce() throws {
        _ = ALSATestConfig.installed
        let log = CapturedLog()
        let output = RetryingAudioOutput(alsaDevice: "kiosk_no_such_pcm", logger: log.logger)
        #expect(try output.configure(.stereo48k) == .stereo48k)
        #expect(!output.isDeviceOpen)
        #expect(output.failure == .unavailable(device: "kiosk_no_such_pcm",
                                               reason: "no such device (unknown PCM name, or no sound card with that number)"))
        #expect(output.secondsUntilRetry.map { $0 > 0.9 && $0 <= 1 } == true)
        #expect(log.lines(atLeast: .info) == ["audio device 'kiosk_no_such_pcm': cannot open: no such device (unknown PCM name, "
                                              + "or no sound card with that number); playing without sound, trying again in 1 s"])
        output.close()
    }
}
