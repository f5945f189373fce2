import KioskCore
import KioskTestSupport
import Testing
import KioskMedia

@Suite struct AudioConverterTests {
    static let stereoFloat = AudioFormat(sampleFormat: .float, sampleRate: 48_000, channels: 2)

    /// Everything a clip converts to, and the chunks' time stamps.
    static func convertAll(_ path: String, to format: AudioFormat, rate: Rational = .one) throws -> (channels: [[Float]], chunks: [PCMChunk]) {
        let reader = try AudioSampleReader(asset: Asset(source: path), output: format, rate: rate)
        var bytes: [UInt8] = []
        var chunks: [PCMChunk] = []
        while let chunk = try reader.nextChunk() {
            bytes += chunk.bytes
            chunks.append(chunk)
        }
        return (Signal.channels(of: bytes, format: format.sampleFormat, channelCount: format.channels), chunks)
    }

    @Test(arguments: [(1.0, [1.0]), (2.0, [2.0]), (4.0, [2.0, 2.0]), (3.0, [2.0, 1.5]), (0.5, [0.5]),
                      (0.25, [0.5, 0.5]), (0.3, [0.5, 0.6]), (1.5, [1.5]), (0.75, [0.75])])
    func tempoChainsKeepEachFactorWithinAtempoRange(rate: Double, expected: [Double]) {
        let chain = TempoFilter.chain(for: rate)
        #expect(chain.count == expected.count)
        for (factor, wanted) in zip(chain, expected) { #expect(abs(factor - wanted) < 1e-9) }
        #expect(abs(chain.reduce(1, *) - rate) < 1e-9)
    }

    @Test(arguments: [Rational(1, 5), Rational(5, 1), Rational(0, 1)])
    func ratesOutsideTheRangeAreRefused(rate: Rational) {
        #expect(throws: MediaError.self) { try TempoFilter(format: Self.stereoFloat, rate: rate) }
    }

    @Test func resamplesMonoS16To48kStereoFloatKeepingPitchAndLevel() throws {
        let clip = try AudioFixtures.tone("mono440-44k.wav", expression: "0.5*sin(2*PI*440*t)", layout: "mono", sampleRate: 44_100)
        let (channels, chunks) = try Self.convertAll(clip, to: Self.stereoFloat)
        #expect(channels.count == 2)
        #expect(abs(channels[0].count - 48_000) <= 2, "\(channels[0].count) frames at 48 kHz for 1 s")
        #expect(channels[0] == channels[1], "mono plays on both sides")
        #expect(abs(Signal.frequency(of: channels[0], sampleRate: 48_000) - 440) < 0.5)
        // Mono is not attenuated by -3 dB on a stereo device: RMS of a 0.5 sine is 0.354.
        #expect(abs(Signal.rms(channels[0]) - 0.5 / 2.squareRoot()) < 0.01)
        #expect(chunks.first?.startTime == .zero)
    }

    /// A synchronised player's sound correction (swresample's soft compensation): +1 % makes
    /// 1 % more output from the same second of media, -1 % 1 % less, the pitch moved by as much;
    /// the chunks' times stay the media's (the last chunk ends where the second ends).
    @Test(arguments: [10_000, -10_000, 500])
    func compensationStretchesTheSoundAndKeepsMediaTimes(ppm: Int) throws {
        let clip = try AudioFixtures.tone("stereo440-48k-2s.wav", expression: "0.5*sin(2*PI*440*t)", layout: "stereo",
                                          sampleRate: 48_000, seconds: 2)
        let reader = try AudioSampleReader(asset: Asset(source: clip), output: Self.stereoFloat)
        reader.converter.setCompensation(ppm: ppm)
        var bytes: [UInt8] = []
        var chunks: [PCMChunk] = []
        while let chunk = try reader.nextChunk() {
            bytes += chunk.bytes
            chunks.append(chunk)
        }
        let frames = bytes.count / Self.stereoFloat.bytesPerFrame
        let expected = 96_000.0 * (1 + Double(ppm) / 1e6)
        #expect(abs(Double(frames) - expected) < 96_000 * 0.002 + 64, "\(frames) frames, expected about \(expected)")
        let last = try #require(chunks.last)
        let end = last.startTime.seconds + Double(last.frameCount) / 48_000 / (1 + Double(ppm) / 1e6)
        #expect(abs(end - 2.0) < 0.005, "the chunks end at \(end) s of media")
        let channels = Signal.channels(of: bytes, format: .float, channelCount: 2)
        let pitch = Signal.frequency(of: channels[0], sampleRate: 48_000)
        #expect(abs(pitch - 440 / (1 + Double(ppm) / 1e6)) < 1.0, "\(pitch) Hz")
    }

    @Test func fiveOneFoldsDownToStereoWithTheFrontLeftToneOnTheLeft() throws {
        let clip = try AudioFixtures.tone("fl-only-5.1.wav", expression: "0.5*sin(2*PI*440*t)|0|0|0|0|0", layout: "5.1")
        let (channels, _) = try Self.convertAll(clip, to: Self.stereoFloat)
        let left = Signal.rms(channels[0]), right = Signal.rms(channels[1])
        #expect(right < 1e-4, "nothing of the front-left speaker on the right (\(right))")
        // FFmpeg's matrix: L = FL + 0.707 FC + 0.707 SL, normalised by 1 + 0.707 + 0.707.
        let expected = 0.5 / 2.squareRoot() / (1 + 2 * 0.5.squareRoot())
        #expect(abs(left - expected) < 0.01 * expected * 5, "left RMS \(left), expected \(expected)")
        #expect(abs(Signal.frequency(of: channels[0], sampleRate: 48_000) - 440) < 0.5)
    }

    @Test func centreOfA51FileLandsOnTheCentreOfASixChannelALSADevice() throws {
        let clip = try AudioFixtures.tone("fc-only-5.1.wav", expression: "0|0|0.5*sin(2*PI*440*t)|0|0|0", layout: "5.1")
        // ALSA's order: FL FR RL RR FC LFE (FFmpeg's is FL FR FC LFE ...).
        let device = AudioFormat(sampleFormat: .s16, sampleRate: 48_000, channels: 6)
        let (channels, _) = try Self.convertAll(clip, to: device)
        let levels = channels.map { Signal.rms($0) }
        #expect(levels[4] > 0.3, "centre tone at ALSA index 4: \(levels)")
        for index in [0, 1, 2, 3, 5] { #expect(levels[index] < 1e-3, "channel \(index) silent: \(levels)") }
    }

    @Test(arguments: [Rational(2, 1), Rational(1, 2), Rational(4, 1), Rational(1, 4)])
    func tempoChangesDurationNotPitch(rate: Rational) throws {
        let clip = try AudioFixtures.tone("tone440-48k.wav", expression: "0.5*sin(2*PI*440*t)|0.5*sin(2*PI*440*t)")
        let (channels, chunks) = try Self.convertAll(clip, to: Self.stereoFloat, rate: rate)
        let expectedFrames = 48_000 / rate.doubleValue
        #expect(abs(Double(channels[0].count) - expectedFrames) < expectedFrames * 0.02,
                "\(channels[0].count) frames at rate \(rate), expected \(expectedFrames)")
        let steady = Array(channels[0][2400..<(channels[0].count - 2400)])
        #expect(abs(Signal.frequency(of: steady, sampleRate: 48_000) - 440) < 2)
        // Time stamps cover the media: the last chunk ends at 1 s of media time.
        let last = try #require(chunks.last)
        #expect(abs(last.endTime(sampleRate: 48_000).seconds - 1.0) < 0.02)
        #expect(chunks.allSatisfy { $0.rate == rate })
    }

    @Test func changingTheRateKeepsTheTimelineContinuous() throws {
        let clip = try AudioFixtures.tone("tone440-48k.wav", expression: "0.5*sin(2*PI*440*t)|0.5*sin(2*PI*440*t)")
        let reader = try AudioFrameReader(asset: Asset(source: clip))
        let converter = try AudioConverter(output: Self.stereoFloat)
        var chunks: [PCMChunk] = []
        var converted = 0
        while let frame = try reader.nextFrame() {
            if let chunk = try converter.convert(frame) { chunks.append(chunk) }
            converted += frame.frameCount
            if converted >= 24_000 && converter.rate == .one {
                if let tail = try converter.setRate(Rational(3, 2)) { chunks.append(tail) }
            }
        }
        if let tail = try converter.finish() { chunks.append(tail) }
        for (previous, next) in zip(chunks, chunks.dropFirst()) {
            #expect(next.startTime == previous.endTime(sampleRate: 48_000), "no gap or overlap in media time")
        }
        #expect(chunks.contains { $0.rate == .one } && chunks.contains { $0.rate == Rational(3, 2) })
        let end = try #require(chunks.last).endTime(sampleRate: 48_000)
        #expect(abs(end.seconds - 1.0) < 0.02, "the timeline ends with the media: \(end.seconds)")
    }

    @Test func seekingRestartsTheTimelineAtTheTarget() throws {
        let clip = try AudioFixtures.tone("tone440-48k.wav", expression: "0.5*sin(2*PI*440*t)|0.5*sin(2*PI*440*t)")
        let reader = try AudioSampleReader(asset: Asset(source: clip), output: Self.stereoFloat, rate: Rational(2, 1))
        _ = try reader.nextChunk()
        try reader.seek(to: MediaTime(value: 3, timescale: 4))
        let first = try #require(try reader.nextChunk())
        #expect(first.startTime == MediaTime(value: 3, timescale: 4))
    }
}
