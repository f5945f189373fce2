import Foundation
import KioskAudio
import KioskCore
import Testing

/// The PCM the real-device tests play to, from KIOSK_TEST_PCM.
let realTestDevice = ProcessInfo.processInfo.environment["KIOSK_TEST_PCM"]

/// The ALSA path on a device that keeps real time: run by Tests/System/test_audio.py in the VM
/// bed with KIOSK_TEST_PCM=hw:Loopback,0,0 while arecord records the other end of snd-aloop
/// (the host checks the recording). Off unless KIOSK_TEST_PCM names a PCM. Results go to
/// $KIOSK_TEST_OUT/audio-device.json when set, for the system test to report.
@Suite(.serialized, .enabled(if: realTestDevice != nil), .timeLimit(.minutes(2)))
struct RealDeviceTests {
    static let device = realTestDevice
    static let format = AudioFormat(sampleFormat: .s16, sampleRate: 48_000, channels: 2)

    /// `seconds` of a 440 Hz sine at half scale, stereo s16, made here (ffmpeg starts slowly
    /// in the emulated guest).
    static func tone(seconds: Double, startTime: MediaTime) -> PCMChunk {
        let frames = Int(seconds * 48_000)
        var samples = [Int16](repeating: 0, count: frames * 2)
        for frame in 0..<frames {
            let value = Int16((0.5 * sin(2 * Double.pi * 440 * Double(frame) / 48_000) * 32767).rounded())
            samples[2 * frame] = value
            samples[2 * frame + 1] = value
        }
        return PCMChunk(bytes: samples.withUnsafeBytes { Array($0) }, frameCount: frames, startTime: startTime)
    }

    /// Two seconds of tone through the writer thread: the first at volume 100, the second at
    /// 50 (the host checks the recording's levels). The clock reports must follow the device.
    @Test func playsAToneWithAVolumeStepAndAClockThatFollowsTheDevice() throws {
        let sink = PCMSink(device: try #require(Self.device))
        let format = try sink.configure(Self.format)
        #expect(format == Self.format, "the loopback takes what arecord holds it to")
        let queue = PCMQueue(format: format, capacity: MediaTime(value: 3, timescale: 1))
        let writer = AudioWriter(output: sink, queue: queue, options: AudioWriter.Options(keepAliveWithSilence: false))
        let reports = ReportLog()
        writer.onReport { reports.append($0) }
        let done = DispatchSemaphore(value: 0)
        queue.push(Self.tone(seconds: 1, startTime: .zero))
        queue.push(Self.tone(seconds: 1, startTime: MediaTime(value: 1, timescale: 1)))
        Thread { writer.run(); done.signal() }.start()
        // The volume changes when the first second is heard; what is heard at that moment is
        // saved for the host, which finds in the recording when the change was heard.
        var changedAt = 0.0
        while changedAt < 1 {
            Thread.sleep(forTimeInterval: 0.001)
            guard let report = writer.lastReport else { continue }
            changedAt = report.heardTime.seconds + MonotonicClock.hostTime().seconds - report.hostTime.seconds
        }
        writer.setVolume(50)
        while queue.queuedFrames > 0 { Thread.sleep(forTimeInterval: 0.005) }
        writer.stop()
        done.wait()
        try sink.drain()
        sink.close()

        let all = reports.all
        let first = try #require(all.first), last = try #require(all.last)
        let mediaElapsed = (last.heardTime - first.heardTime).seconds
        let hostElapsed = (last.hostTime - first.hostTime).seconds
        // The heard time advances with the host's clock: the slope of a least-squares line
        // through all reports (single reports jitter by a timer tick in the emulated guest).
        // An underrun is a gap in the device's timeline (the heard time stops, the host's goes
        // on): that happens when the emulated guest is starved, and the system test reports it.
        let slope = Self.slope(all.map { ($0.hostTime.seconds, $0.heardTime.seconds) })
        if sink.counters.underruns == 0 {
            #expect(abs(slope - 1) < 0.02, "heard time runs at \(slope) s per second")
        }
        #expect(all.allSatisfy { $0.heardTime <= $0.endTime }, "nothing is heard before it is written")
        let delays = all.map(\.delayFrames)
        #expect(delays.allSatisfy { $0 >= 0 && $0 <= sink.bufferFrames }, "delays within the buffer")
        #expect(sink.failure == nil)
        try Self.save([
            "device": Self.device ?? "", "format": "\(format)", "periodFrames": sink.periodFrames,
            "bufferFrames": sink.bufferFrames, "underruns": sink.counters.underruns, "reports": all.count,
            "maxDelayFrames": delays.max() ?? 0, "mediaSeconds": mediaElapsed, "hostSeconds": hostElapsed, "clockSlope": slope,
            "volumeChangedAtMediaSeconds": changedAt,
        ], as: "tone")
    }

    @Test func anUnderrunIsRecoveredAndCounted() throws {
        let sink = PCMSink(device: try #require(Self.device))
        let format = try sink.configure(Self.format)
        let tenth = Self.tone(seconds: 0.1, startTime: .zero)
        try sink.write(tenth.bytes)
        try sink.write(tenth.bytes)
        // Nothing written for longer than the buffer holds.
        Thread.sleep(forTimeInterval: 0.3)
        try sink.write(tenth.bytes)
        #expect(sink.counters.underruns >= 1)
        #expect(sink.failure == nil)
        #expect(sink.counters.framesWritten == Int64(3 * format.frames(in: MediaTime(value: 1, timescale: 10))))
        try sink.drop()
        sink.close()
        try Self.save(["underruns": sink.counters.underruns], as: "underrun")
    }

    @Test func pauseFreezesTheDelayAndResumePlaysOn() throws {
        let sink = PCMSink(device: try #require(Self.device))
        _ = try sink.configure(Self.format)
        let tenth = Self.tone(seconds: 0.1, startTime: .zero)
        try sink.write(tenth.bytes)
        try sink.write(tenth.bytes)
        try sink.pause()
        let paused = sink.delayFrames
        Thread.sleep(forTimeInterval: 0.1)
        #expect(sink.delayFrames == paused, "nothing plays while paused")
        try sink.resume()
        // The device moves on at its next timer tick: wait for it (an emulated guest on a busy
        // host may run that tick late), up to two seconds.
        let deadline = Date().addingTimeInterval(2)
        while sink.delayFrames >= paused && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(sink.delayFrames < paused, "playing again")
        try sink.drop()
        sink.close()
    }

    @Test func aBusyDeviceGivesOneClearError() throws {
        let name = try #require(Self.device)
        let holder = PCMSink(device: name.replacingOccurrences(of: ",0,0", with: ",0,1"))
        _ = try? holder.configure(Self.format)
        // Both substreams of the loopback device taken: a third open is refused as busy.
        let other = PCMSink(device: name)
        _ = try other.configure(Self.format)
        let third = PCMSink(device: name.replacingOccurrences(of: ",0,0", with: ",0"))
        #expect {
            try third.configure(Self.format)
        } throws: { error in
            "\(error)".contains("device busy")
        }
        other.close()
        holder.close()
    }

    static func slope(_ points: [(x: Double, y: Double)]) -> Double {
        let n = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.x } / n, meanY = points.reduce(0) { $0 + $1.y } / n
        let covariance = points.reduce(0) { $0 + ($1.x - meanX) * ($1.y - meanY) }
        let variance = points.reduce(0) { $0 + ($1.x - meanX) * ($1.x - meanX) }
        return covariance / variance
    }

    static func save(_ values: [String: Any], as name: String) throws {
        guard let directory = ProcessInfo.processInfo.environment["KIOSK_TEST_OUT"] else { return }
        let data = try JSONSerialization.data(withJSONObject: values, options: [.sortedKeys])
        try data.write(to: URL(fileURLWithPath: directory).appendingPathComponent("audio-\(name).json"))
    }
}
