import Foundation
import KioskAudio
import KioskCore
import KioskMedia
import KioskTestSupport
import Testing

@Suite struct SinkTests {
    @Test func nullSinkPlaysInRealTimeWithABoundedQueue() throws {
        let clock = FakeClock()
        let sink = NullSink(bufferTime: 0.040, clock: clock)
        let format = try sink.configure(AudioFormat(sampleFormat: .s16, sampleRate: 1000, channels: 1))
        let tenMilliseconds = [UInt8](repeating: 0, count: 10 * format.bytesPerFrame)
        let start = clock.now()
        for _ in 0..<4 { try sink.write(tenMilliseconds) }
        #expect(clock.now() == start, "40 ms fit in the buffer without waiting")
        #expect(sink.delayFrames == 40)
        try sink.write(tenMilliseconds)
        #expect(abs(clock.now() - start - 0.010) < 1e-9, "the fifth write waits for a period to play")
        #expect(sink.delayFrames == 40)
        clock.advance(0.015)
        #expect(sink.delayFrames == 25)
        try sink.pause()
        clock.advance(1)
        #expect(sink.delayFrames == 25, "paused: nothing plays")
        try sink.resume()
        clock.advance(0.1)
        #expect(sink.delayFrames == 0)
        try sink.write(tenMilliseconds)
        #expect(sink.counters.underruns == 1, "the queue ran dry before that write")
        try sink.drop()
        #expect(sink.delayFrames == 0)
        #expect(sink.counters.framesWritten == 60)
    }

    @Test(arguments: [PCMSampleFormat.s16, .s32, .float])
    func fileSinkWritesAWAVThatFFmpegReadsBack(format sampleFormat: PCMSampleFormat) throws {
        let path = AudioFixtures.scratchPath("sink-\(sampleFormat)", extension: "wav")
        let sink = FileSink(path: path)
        let format = try sink.configure(AudioFormat(sampleFormat: sampleFormat, sampleRate: 44_100, channels: 2))
        let reader = try AudioSampleReader(asset: Asset(source: ALSAPlaybackTests.stereoTone()), output: format)
        while let chunk = try reader.nextChunk() { try sink.write(chunk.bytes) }
        sink.close()

        let info = try Asset(source: path).info
        let stream = try #require(info.bestAudio)
        #expect(stream.sampleRate == 44_100 && stream.channels == 2)
        #expect(stream.codecName == ["s16": "pcm_s16le", "s32": "pcm_s32le", "float": "pcm_f32le"][sampleFormat.rawValue])
        #expect(abs((info.durationSeconds ?? 0) - 1) < 0.001)
        #expect(sink.counters.framesWritten == 44_100)
    }

    @Test func fileSinkRawIsJustTheSamples() throws {
        let path = AudioFixtures.scratchPath("sink", extension: "raw")
        let sink = FileSink(path: path, container: .raw)
        _ = try sink.configure(.stereo48k)
        try sink.write([1, 2, 3, 4, 5, 6, 7, 8])
        sink.close()
        #expect(try Signal.readFile(path) == [1, 2, 3, 4, 5, 6, 7, 8])
    }

    @Test func fileSinkReportsAnUnwritablePath() {
        let sink = FileSink(path: "/nonexistent-dir/x.wav")
        #expect(throws: AudioOutputError.unavailable(device: "/nonexistent-dir/x.wav", reason: "No such file or directory")) {
            try sink.configure(.stereo48k)
        }
    }
}
