import KioskCore
import Testing

@Suite struct SoftwareGainTests {
    @Test(arguments: [(100, false, 1.0), (50, false, 0.5), (0, false, 0.0), (100, true, 0.0), (150, false, 1.0), (-5, false, 0.0)])
    func volumeMapsLinearly(volume: Int, muted: Bool, gain: Double) {
        #expect(SoftwareGain.linearGain(volume: volume, isMuted: muted) == gain)
    }

    @Test func aChangeRampsLinearlyOverTheRampFrames() {
        var gain = SoftwareGain(gain: 1, rampFrames: 4)
        gain.setTarget(0.5)
        var samples: [Float] = Array(repeating: 1, count: 12)   // 6 stereo frames
        samples.withUnsafeMutableBytes { gain.apply(to: $0, format: .float, channels: 2) }
        #expect(samples == [0.875, 0.875, 0.75, 0.75, 0.625, 0.625, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
        #expect(!gain.isRamping && gain.current == 0.5)
    }

    @Test func aRampCarriesOverFromOneBufferToTheNext() {
        var gain = SoftwareGain(gain: 0, rampFrames: 4)
        gain.setTarget(1)
        var first: [Int16] = [1000, 1000]
        var second: [Int16] = [1000, 1000, 1000]
        first.withUnsafeMutableBytes { gain.apply(to: $0, format: .s16, channels: 1) }
        #expect(gain.isRamping)
        second.withUnsafeMutableBytes { gain.apply(to: $0, format: .s16, channels: 1) }
        #expect(first == [250, 500])
        #expect(second == [750, 1000, 1000])
    }

    @Test func integerSamplesRoundAndNeverWrap() {
        var gain = SoftwareGain(gain: 0.5, rampFrames: 1)
        var s16: [Int16] = [Int16.min, Int16.max, 3, -3]
        s16.withUnsafeMutableBytes { gain.apply(to: $0, format: .s16, channels: 2) }
        #expect(s16 == [-16384, 16384, 2, -2])
        var s32: [Int32] = [Int32.min, Int32.max]
        s32.withUnsafeMutableBytes { gain.apply(to: $0, format: .s32, channels: 2) }
        #expect(s32 == [-1_073_741_824, 1_073_741_824])
    }

    @Test func fullGainLeavesSamplesUntouchedAndOutOfRangeTargetsClamp() {
        var gain = SoftwareGain(gain: 1, rampFrames: 8)
        var samples: [Float] = [0.3, -0.7]
        samples.withUnsafeMutableBytes { gain.apply(to: $0, format: .float, channels: 2) }
        #expect(samples == [0.3, -0.7])
        gain.setTarget(7)
        #expect(gain.target == 1 && !gain.isRamping)
        gain.setTarget(.nan)
        #expect(gain.target == 0)
    }
}

@Suite struct AudioFormatTests {
    @Test(arguments: [(1, ["MONO"]), (2, ["FL", "FR"]), (6, ["FL", "FR", "RL", "RR", "FC", "LFE"]),
                      (8, ["FL", "FR", "RL", "RR", "FC", "LFE", "SL", "SR"]), (7, ["NA", "NA", "NA", "NA", "NA", "NA", "NA"])])
    func alsaDefaultChannelOrders(channels: Int, names: [String]) {
        #expect(AudioChannel.alsaDefaultOrder(channels: channels).map(\.rawValue) == names)
    }

    @Test func sizesAndDurations() {
        let format = AudioFormat(sampleFormat: .s32, sampleRate: 48_000, channels: 6)
        #expect(format.bytesPerFrame == 24)
        #expect(format.duration(ofFrames: 480) == MediaTime(value: 1, timescale: 100))
        #expect(format.frames(in: MediaTime(value: 1, timescale: 2)) == 24_000)
        #expect(format.description == "s32 48000 Hz 6 ch (FL FR RL RR FC LFE)")
    }

    @Test func theHeardTimeIsTheEndMinusTheDelayAtTheRate() {
        let report = AudioClockReport(endTime: MediaTime(value: 10, timescale: 1), delayFrames: 4800, sampleRate: 48_000,
                                      rate: Rational(2, 1), hostTime: .zero, itemTag: 0)
        // 100 ms of device queue at rate 2 is 200 ms of media.
        #expect(report.heardTime == MediaTime(value: 98, timescale: 10))
    }
}
