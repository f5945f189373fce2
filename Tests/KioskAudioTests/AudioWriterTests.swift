import Foundation
import KioskAudio
import KioskCore
import KioskTestSupport
import Testing

/// The writer thread against a device that keeps real time (NullSink underneath): volume
/// latency, clock reports, pause, flush, keep-alive, failures.
@Suite(.serialized, .timeLimit(.minutes(1))) struct AudioWriterTests {
    static let format = AudioFormat(sampleFormat: .float, sampleRate: 48_000, channels: 2)

    /// `seconds` of a constant level, as a chunk: a gain change shows as a level change.
    static func level(_ value: Float, seconds: Double, start: MediaTime = .zero, tag: Int = 0) -> PCMChunk {
        let frames = Int(seconds * Double(format.sampleRate))
        let samples = [Float](repeating: value, count: frames * format.channels)
        return PCMChunk(bytes: samples.withUnsafeBytes { Array($0) }, frameCount: frames, startTime: start, itemTag: tag)
    }

    /// A writer on its own thread; `finish` stops it and waits.
    final class Running: @unchecked Sendable {
        let output = RecordingOutput()
        let queue: PCMQueue
        let writer: AudioWriter
        private let done = DispatchSemaphore(value: 0)

        init(options: AudioWriter.Options = AudioWriter.Options(), capacity: MediaTime = MediaTime(value: 2, timescale: 1),
             bed: PCMQueue? = nil, cues: PCMQueue? = nil, queued: PCMChunk? = nil) throws {
            _ = try output.configure(AudioWriterTests.format)
            queue = PCMQueue(format: AudioWriterTests.format, capacity: capacity)
            if let queued { queue.push(queued) }   // there before the writer's first look
            writer = AudioWriter(output: output, queue: queue, bed: bed, cues: cues, options: options)
            let thread = Thread { [writer, done] in writer.run(); done.signal() }
            thread.start()
        }

        func waitUntilPlayed() {
            while queue.queuedFrames > 0 { Thread.sleep(forTimeInterval: 0.002) }
        }

        func finish() {
            writer.stop()
            done.wait()
        }

        var channel0: [Float] {
            Signal.channels(of: output.bytes, format: .float, channelCount: 2)[0]
        }
    }

    /// The delay read a clock report was made from, checked for order: the writer reads the
    /// device's delay and then the host time, with no write in between.
    static func checkedDelayRead(of report: AudioClockReport, in output: RecordingOutput) throws -> RecordingOutput.DelayRead {
        let host = report.hostTime.seconds
        let read = try #require(output.delayRead(before: host, frames: report.delayFrames), "no delay read of \(report.delayFrames) frames before \(host)")
        #expect(!output.writeStarts.contains { $0 > read.hostTime && $0 < host }, "a write came between the delay read and the report")
        return read
    }

    /// The report's claim checked at the device's own reading of the delay, not at the report's
    /// hostTime. The two are adjacent clock readings on the writer thread, but a thread can be
    /// preempted between any two: on a busy machine, and under qemu-user's emulation, where
    /// a 2 ms bound on `heard - hostTime` missed by 0.14 ms. That gap measures the scheduler,
    /// not the writer (unit tests check behaviour, never speed); `checkedDelayRead` checks the
    /// order. What is left is exact: the frame the delay names is heard at that reading, to the
    /// rounding of frames (a frame is 0.02 ms). With nothing queued (the device ran dry while
    /// the writer was late) the named frame comes with the next write: not before the reading.
    static func expectHeard(_ heard: Double, at read: RecordingOutput.DelayRead, _ message: @autoclosure () -> String) {
        if read.frames > 0 {
            #expect(abs(heard - read.hostTime) < 0.0002, "\(message()) (delay read at \(read.hostTime))")
        } else {
            #expect(heard > read.hostTime - 0.0002, "\(message()) (device dry at \(read.hostTime))")
        }
    }

    /// The gain is applied where samples enter the device, not where they are queued: a change
    /// takes effect from the write after it (heard one device buffer later, 40 ms here, plus
    /// at most a write of 10 ms). Judged in frames written, not in time: the writer thread may
    /// be late on a busy machine, which moves when the change is heard, never where.
    @Test func aVolumeChangeTakesEffectFromTheNextWrite() throws {
        let run = try Running()
        run.queue.push(Self.level(0.5, seconds: 1.2))
        #expect(Self.waitFor { run.output.bytes.count >= Int(0.3 * 48_000) * Self.format.bytesPerFrame })
        let bytesPerFrame = Self.format.bytesPerFrame
        let writtenBefore = run.output.bytes.count / bytesPerFrame
        run.writer.setVolume(20)
        let writtenAfter = run.output.bytes.count / bytesPerFrame
        run.waitUntilPlayed()
        run.finish()

        let samples = run.channel0
        let rampStart = try #require(samples.firstIndex { $0 < 0.5 - 1e-6 })
        let rampEnd = try #require(samples.firstIndex { abs($0 - 0.1) < 1e-6 })
        let chunk = Int(AudioWriter.Options().chunkTime * 48_000)
        #expect(rampStart >= writtenBefore, "nothing written before the change is changed (ramp at frame \(rampStart), \(writtenBefore) written)")
        // A chunk whose gain was taken just before the change may still be on its way.
        #expect(rampStart <= writtenAfter + chunk,
                "the ramp begins at frame \(rampStart), more than a write after the \(writtenAfter) written at the change")
        // About 0.9 s was still queued upstream when the volume changed: a gain applied when
        // samples are queued rather than written would not reach it (no ramp until its end).
        #expect(samples.count - writtenAfter > 12 * chunk, "sound was still queued at the change (\(samples.count - writtenAfter) frames)")
        // A 5 ms ramp, not a step: no click.
        #expect(abs(rampEnd - rampStart - 240) <= 1, "ramp of \(rampEnd - rampStart) frames")
        #expect(samples[rampStart..<rampEnd].allSatisfy { $0 < 0.5 && $0 > 0.1 })
    }

    @Test func clockReportsTrackWhatIsHeard() throws {
        let run = try Running()
        let reports = ReportLog()
        run.writer.onReport { reports.append($0) }
        run.queue.push(Self.level(0.25, seconds: 0.5, start: MediaTime(value: 10, timescale: 1), tag: 7))
        run.waitUntilPlayed()
        run.finish()

        let all = reports.all
        #expect(all.count >= 45, "a report per 10 ms write: \(all.count)")
        for report in all {
            // The frame heard at hostTime is the one the report says.
            let frame = Int(((report.heardTime.seconds - 10) * 48_000).rounded())
            let heard = try #require(run.output.heardTime(ofFrame: frame))
            let read = try Self.checkedDelayRead(of: report, in: run.output)
            Self.expectHeard(heard, at: read, "frame \(frame) heard at \(heard), reported for \(report.hostTime.seconds)")
            #expect(report.itemTag == 7 && report.sampleRate == 48_000 && report.rate == .one)
        }
        #expect(run.writer.lastReport?.endTime == MediaTime(value: 21, timescale: 2))
    }

    @Test func pauseStopsWritingAndResumeGoesOn() throws {
        let run = try Running()
        run.queue.push(Self.level(0.25, seconds: 0.4))
        Thread.sleep(forTimeInterval: 0.1)
        run.writer.pause()
        Thread.sleep(forTimeInterval: 0.05)
        let whilePaused = run.output.bytes.count
        Thread.sleep(forTimeInterval: 0.1)
        #expect(run.output.bytes.count == whilePaused, "nothing written while paused")
        let pausedDelay = run.output.delayFrames
        Thread.sleep(forTimeInterval: 0.02)
        #expect(run.output.delayFrames == pausedDelay, "the device's queue is frozen")
        run.writer.resume()
        run.waitUntilPlayed()
        run.finish()
        #expect(run.output.calls.starts(with: ["pause", "resume"]))
        #expect(run.output.bytes.count == Int(0.4 * 48_000) * Self.format.bytesPerFrame)
    }

    /// Waiting for frames holds the item's sound with its clock, but a music bed is not the
    /// item's: it is written on, alone, and the device is never paused; the item goes on from
    /// where it was held, every sample once.
    @Test func aHoldStopsTheItemsSoundWhileTheBedPlaysOn() throws {
        let bed = PCMQueue(format: Self.format, capacity: MediaTime(value: 4, timescale: 1))
        bed.push(Self.level(0.125, seconds: 3, tag: -1))
        let run = try Running(bed: bed)
        run.queue.push(Self.level(0.25, seconds: 0.4))
        Thread.sleep(forTimeInterval: 0.1)
        run.writer.holdItemSound()
        Thread.sleep(forTimeInterval: 0.05)
        let queuedAtHold = run.queue.queuedFrames
        let bytesAtHold = run.output.bytes.count
        Thread.sleep(forTimeInterval: 0.25)
        #expect(run.queue.queuedFrames == queuedAtHold && queuedAtHold > 0, "nothing taken from the item's queue while held")
        let writtenWhileHeld = (run.output.bytes.count - bytesAtHold) / Self.format.bytesPerFrame
        #expect(writtenWhileHeld > Int(0.15 * 48_000), "the bed is written on while held: \(writtenWhileHeld) frames")
        run.writer.resume()
        run.waitUntilPlayed()
        Thread.sleep(forTimeInterval: 0.05)
        run.finish()
        #expect(!run.output.calls.contains("pause"), "a hold does not pause the device: \(run.output.calls)")
        #expect(run.writer.currentStatistics.holds == 1)
        // Item over bed is 0.375, bed alone 0.125: the item's 0.4 s heard once, in two runs
        // with the bed alone between them.
        let samples = run.channel0
        let mixed = samples.filter { abs($0 - 0.375) < 1e-6 }.count
        #expect(mixed == Int(0.4 * 48_000), "every item sample once, over the bed: \(mixed)")
        var runs: [Bool] = []
        for sample in samples where abs(sample - 0.375) < 1e-6 || abs(sample - 0.125) < 1e-6 {
            let isItem = abs(sample - 0.375) < 1e-6
            if runs.last != isItem { runs.append(isItem) }
        }
        // (The bed may be written alone before the item's first samples arrive: the writer runs
        // before the test pushes them.)
        #expect(runs.drop(while: { !$0 }).starts(with: [true, false, true]), "item, bed alone while held, item again: \(runs)")
    }

    static func cueQueue(_ seconds: Double) -> PCMQueue {
        let cues = PCMQueue(format: format, capacity: MediaTime(value: 4, timescale: 1))
        cues.push(level(0.5, seconds: seconds, tag: -2))
        return cues
    }

    /// How many samples of `samples` are `value` (levels here are exact in float).
    static func counter(_ samples: [Float]) -> (Float) -> Int {
        { value in samples.filter { abs($0 - value) < 1e-6 }.count }
    }

    static func waitFor(_ condition: () -> Bool) -> Bool {
        for _ in 0..<2500 where !condition() { Thread.sleep(forTimeInterval: 0.002) }
        return condition()
    }

    /// A sound cue (an override's `sound`) is mixed over the item's sound, and written alone
    /// where nothing else plays: every sample of each heard once.
    @Test func aSoundCueIsMixedOverTheItemAndWrittenAlone() throws {
        let cues = Self.cueQueue(0.2)
        let run = try Running(cues: cues, queued: Self.level(0.25, seconds: 0.1))
        #expect(Self.waitFor { cues.queuedFrames == 0 && run.queue.queuedFrames == 0 })
        Thread.sleep(forTimeInterval: 0.05)
        run.finish()
        let count = Self.counter(run.channel0)
        #expect(count(0.75) == Int(0.1 * 48_000), "the item's every sample under the cue: \(count(0.75))")
        #expect(count(0.25) == 0, "no item sample without the cue: \(count(0.25))")
        #expect(count(0.5) == Int(0.1 * 48_000), "the cue's other samples alone, once: \(count(0.5))")
        #expect(!run.output.calls.contains("drop"), "the writer never drops a cue: \(run.output.calls)")
    }

    /// An alarm plays on through a pause (a visitor's tap) and a wait for frames: the device
    /// runs for the cue while the item's sound is held, every item sample heard once after.
    @Test func aSoundCuePlaysOnThroughAPause() throws {
        let cues = PCMQueue(format: Self.format, capacity: MediaTime(value: 4, timescale: 1))
        let run = try Running(cues: cues, queued: Self.level(0.25, seconds: 1))
        run.writer.pause()
        #expect(Self.waitFor { run.output.calls.contains("pause") })
        let heldAt = run.queue.queuedFrames
        cues.push(Self.level(0.5, seconds: 0.3, tag: -2))
        #expect(Self.waitFor { cues.queuedFrames == 0 }, "the cue is written while paused")
        #expect(run.queue.queuedFrames == heldAt && heldAt > 0, "the item's sound is held meanwhile")
        run.writer.resume()
        run.waitUntilPlayed()
        Thread.sleep(forTimeInterval: 0.05)
        run.finish()
        let count = Self.counter(run.channel0)
        #expect(count(0.5) == Int(0.3 * 48_000), "the cue alone while paused: \(count(0.5))")
        #expect(count(0.25) == 48_000, "every item sample once: \(count(0.25))")
    }

    @Test func holdWithoutABedIsAPause() throws {
        let run = try Running()
        run.queue.push(Self.level(0.25, seconds: 0.3))
        Thread.sleep(forTimeInterval: 0.05)
        run.writer.holdItemSound()
        Thread.sleep(forTimeInterval: 0.05)
        run.writer.resume()
        run.waitUntilPlayed()
        run.finish()
        #expect(run.output.calls.starts(with: ["pause", "resume"]))
        #expect(run.writer.currentStatistics.holds == 0 && run.writer.currentStatistics.pauses == 1)
    }

    @Test func flushDropsWhatIsQueuedAndRefusesStaleChunks() throws {
        let run = try Running()
        let oldGeneration = run.queue.generation
        run.queue.push(Self.level(0.5, seconds: 1))
        Thread.sleep(forTimeInterval: 0.1)
        let generation = run.writer.flush()
        #expect(generation == oldGeneration + 1)
        #expect(run.writer.lastReport == nil, "no clock until the new position plays")
        #expect(!run.queue.push(Self.level(0.5, seconds: 0.1), generation: oldGeneration), "a chunk converted before the seek is refused")
        run.queue.push(Self.level(0.125, seconds: 0.2, start: MediaTime(value: 30, timescale: 1), tag: 2), generation: generation)
        run.waitUntilPlayed()
        Thread.sleep(forTimeInterval: 0.02)
        run.finish()
        let samples = run.channel0
        let loud = samples.filter { $0 == 0.5 }.count
        #expect(loud < 48_000 / 2, "most of the first second was dropped (\(loud) frames played)")
        #expect(samples.filter { $0 == 0.125 }.count == Int(0.2 * 48_000), "all of the new position played")
        #expect(run.output.calls.contains("drop"))
        let report = try #require(run.writer.lastReport)
        #expect(report.itemTag == 2 && report.endTime == MediaTime(value: 151, timescale: 5))
    }

    @Test func silenceKeepsTheDeviceRunningWhenTheQueueRunsDry() throws {
        let run = try Running()
        run.queue.push(Self.level(0.25, seconds: 0.05))
        run.waitUntilPlayed()
        Thread.sleep(forTimeInterval: 0.1)
        run.finish()
        let silence = run.writer.currentStatistics.silenceFrames
        #expect(silence >= 4 * 480, "silence written while starved: \(silence) frames")
        #expect(run.output.counters.underruns == 0)
        #expect(run.channel0.suffix(Int(silence)).allSatisfy { $0 == 0 })
    }

    /// A decoder stall of 80 ms between two stretches of sound, the writer padding with silence
    /// (or, without keep-alive, the device underrunning): the first report after the gap says
    /// so, and every report's line (heard time at host time, advancing in real time) meets the
    /// sound after the gap where the recording has it.
    @Test(arguments: [true, false])
    func aGapInTheSoundIsReportedAndTheReportsMeetTheSoundAfterIt(keepAlive: Bool) throws {
        let run = try Running(options: AudioWriter.Options(keepAliveWithSilence: keepAlive))
        let reports = ReportLog()
        run.writer.onReport { reports.append($0) }
        run.queue.push(Self.level(0.25, seconds: 0.3, start: MediaTime(value: 10, timescale: 1), tag: 3))
        run.waitUntilPlayed()
        Thread.sleep(forTimeInterval: 0.08)
        let resume = MediaTime(value: 103, timescale: 10)
        run.queue.push(Self.level(0.5, seconds: 0.3, start: resume, tag: 3))
        run.waitUntilPlayed()
        run.finish()

        let all = reports.all
        let samples = run.channel0
        let resumedAt = try #require(samples.firstIndex { $0 == 0.5 }, "the sound after the gap was written")
        if keepAlive {
            #expect(samples[(resumedAt - 480)..<resumedAt].allSatisfy { $0 == 0 }, "padded with silence")
        } else {
            #expect(run.output.counters.underruns >= 1, "the device ran dry")
        }
        let before = all.filter { $0.endTime <= resume }, after = all.filter { $0.endTime > resume }
        #expect(!before.isEmpty && before.allSatisfy { $0.gaps == 0 })
        #expect(after.count >= 20 && after.allSatisfy { $0.gaps == 1 }, "one gap: \(Set(after.map(\.gaps)))")
        for report in after {
            // The line reaches media time `target` at `predicted`; the recording says when it was heard.
            let target = Swift.max(report.heardTime, resume)
            let predicted = report.hostTime.seconds + (target - report.heardTime).seconds
            let frame = resumedAt + Int(((target - resume).seconds * 48_000).rounded())
            let heard = try #require(run.output.heardTime(ofFrame: frame))
            let read = try Self.checkedDelayRead(of: report, in: run.output)
            // The line as of the device's reading of the delay (see expectHeard).
            let fromRead = read.hostTime + (target - report.heardTime).seconds
            let line = RecordingOutput.DelayRead(hostTime: fromRead, frames: read.frames)
            Self.expectHeard(heard, at: line, "media \(target.seconds) heard at \(heard), the report's line says \(predicted)")
        }
    }

    @Test func aFailingOutputIsReportedOnceAndThePipelineKeepsItsPace() throws {
        let output = ScriptedOutput()
        _ = try output.configure(Self.format)
        output.writesBeforeFailing = 2
        let queue = PCMQueue(format: Self.format)
        let log = CapturedLog()
        let writer = AudioWriter(output: output, queue: queue, logger: log.logger)
        let failures = ReportLog()
        writer.onFailureChange { failures.appendFailure($0) }
        let done = DispatchSemaphore(value: 0)
        Thread { writer.run(); done.signal() }.start()
        let started = MonotonicClock().now()
        queue.push(Self.level(0.5, seconds: 0.2))
        while queue.queuedFrames > 0 { Thread.sleep(forTimeInterval: 0.002) }
        let elapsed = MonotonicClock().now() - started
        writer.stop()
        done.wait()
        #expect(elapsed > 0.15, "dropped samples still take their time (\(elapsed) s)")
        #expect(writer.currentStatistics.failure == .disconnected(device: "scripted", reason: "No such device"))
        #expect(failures.failures == [.disconnected(device: "scripted", reason: "No such device")])
        #expect(log.lines(atLeast: .error) == ["audio device 'scripted' went away: No such device; playing on without sound"])
    }
}

/// Collects what the writer thread reports.
final class ReportLog: @unchecked Sendable {
    // Appended on the writer thread, read on the test thread: guarded by `lock`.
    private let lock = NSLock()
    private var reports: [AudioClockReport] = []
    private var failureChanges: [AudioOutputError?] = []

    func append(_ report: AudioClockReport) { lock.lock(); reports.append(report); lock.unlock() }
    func appendFailure(_ failure: AudioOutputError?) { lock.lock(); failureChanges.append(failure); lock.unlock() }
    var all: [AudioClockReport] { lock.lock(); defer { lock.unlock() }; return reports }
    var failures: [AudioOutputError?] { lock.lock(); defer { lock.unlock() }; return failureChanges }
}
