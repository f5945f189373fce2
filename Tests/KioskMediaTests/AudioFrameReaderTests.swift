import KioskCore
import KioskTestSupport
import Testing
import KioskMedia

@Suite struct AudioFrameReaderTests {
    static func aacClip() throws -> String {
        try AudioFixtures.tone("tone440-44k.m4a", expression: "0.5*sin(2*PI*440*t)|0.5*sin(2*PI*440*t)",
                           sampleRate: 44_100, seconds: 1, codec: "aac")
    }

    @Test func readsEveryFrameInOrderFromAnAACFile() throws {
        let reader = try AudioFrameReader(asset: Asset(source: Self.aacClip()))
        var frames = 0
        var previousEnd: MediaTime? = nil
        while let frame = try reader.nextFrame() {
            #expect(frame.sampleRate == 44_100)
            #expect(frame.channels == 2)
            #expect(frame.sampleFormatName == "fltp")
            if let previousEnd { #expect(frame.pts == previousEnd, "frames follow each other without gaps") }
            previousEnd = frame.endTime
            frames += frame.frameCount
        }
        // AAC encodes whole 1024-sample frames; FFmpeg trims the encoder's priming and padding.
        #expect(abs(frames - 44_100) <= 1024, "\(frames) frames for a 1 s clip")
        #expect(reader.damagedPackets == 0)
    }

    @Test(arguments: [0.25, 0.5, 0.7375])
    func seekStartsExactlyAtTheTarget(seconds: Double) throws {
        let clip = try AudioFixtures.tone("tone440-48k.wav", expression: "0.5*sin(2*PI*440*t)|0.5*sin(2*PI*440*t)")
        let reader = try AudioFrameReader(asset: Asset(source: clip))
        let target = MediaTime(seconds: seconds, timescale: 48_000)
        try reader.seek(to: target)
        let first = try #require(try reader.nextFrame())
        #expect(first.pts == target)
        var frames = first.frameCount
        while let frame = try reader.nextFrame() { frames += frame.frameCount }
        #expect(Int64(frames) == 48_000 - target.ticks(in: Rational(1, 48_000)))
    }

    /// The engine's path: its demux thread's packets into an AudioDecoder, trimmed after a seek.
    @Test func demuxedPacketsDecodeAndTrimToASeekTarget() throws {
        let asset = try Asset(source: Self.aacClip())
        let demuxer = Demuxer(asset: asset, video: false)
        let decoder = try AudioDecoder(asset: asset, streamIndex: try #require(demuxer.audioStream))
        let target = MediaTime(value: 1, timescale: 2)
        try demuxer.seek(to: target)
        decoder.flush()
        var frames: [DecodedAudioFrame] = []
        decoding: while true {
            switch decoder.receive() {
            case .frame(let frame):
                if frame.trim(before: target) { frames.append(frame) }
            case .needsInput:
                if case .packet(let packet) = demuxer.read() { _ = decoder.send(packet) } else { _ = decoder.send(nil as Packet?) }
            case .finished:
                break decoding
            }
        }
        let first = try #require(frames.first)
        #expect(first.pts == target, "the first sample heard is the one at the target")
        let total = frames.reduce(0) { $0 + $1.frameCount }
        #expect(abs(total - 22_050) <= 1024, "half a second left: \(total) frames")
    }

    @Test func aFileWithoutAudioIsRefusedWithAReason() throws {
        let clip = try MediaFixtures.clip("video-only.mp4", ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=5:duration=1",
                                                          "-c:v", "mpeg4"])
        #expect {
            try AudioFrameReader(asset: Asset(source: clip))
        } throws: { error in
            "\(error)".contains("no audio stream")
        }
    }
}
