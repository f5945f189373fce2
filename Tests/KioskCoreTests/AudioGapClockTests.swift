import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// An underrun or a stretch of padding silence in the sound, and what the master clock makes
/// of the writer's reports around it (AudioClockReport.gaps, PlaybackClock.observeAudio).
@Suite struct AudioGapClockTests {
    /// A device at 48 kHz fed a 10 ms chunk every 10 ms, two chunks ahead, by a writer whose
    /// decoder stalls for `stall` chunks: the writer pads with silence as the real one does and
    /// reports after each media write. The truth at a report is the media the device has
    /// really played by then: silence plays, media time stands.
    struct Simulation {
        static let rate = 48_000, chunk = 480
        struct Report {
            let report: AudioClockReport
            /// Media frames heard by the report's host time, as time.
            let truth: MediaTime
            /// The device is playing padding silence at that instant.
            let inSilence: Bool
        }
        var reports: [Report] = []

        init(chunks: Int, stallAt: Int, stall: Int) {
            let host0 = MediaTime(hostNanoseconds: 5_000_000_000)
            var stream: [Bool] = []          // per written frame: true = media
            var mediaWritten = 0, gaps = 0
            var padded = false
            for tick in 0..<chunks {
                let played = max(0, (tick - 2) * Self.chunk)   // the device starts after two chunks
                let isMedia = !(stallAt..<(stallAt + stall)).contains(tick)
                stream += Array(repeating: isMedia, count: Self.chunk)
                guard isMedia else { padded = true; continue }
                if padded { gaps += 1; padded = false }
                mediaWritten += Self.chunk
                let report = AudioClockReport(endTime: Self.frames(mediaWritten), delayFrames: stream.count - played,
                                              sampleRate: Self.rate, rate: .one, hostTime: host0 + Self.frames(played),
                                              itemTag: 1, gaps: gaps)
                reports.append(Report(report: report, truth: Self.frames(stream[0..<played].filter { $0 }.count),
                                      inSilence: !stream[played]))
            }
        }

        static func frames(_ n: Int) -> MediaTime { MediaTime(value: Int64(n), timescale: Int32(rate)) }
    }

    /// Feeds the reports to a clock as the engine does (a gap is flagged once, on the first
    /// report with a higher count) and gives, for each report after the gap, the clock minus
    /// what is heard, and whether silence was playing then.
    static func errorsAfterTheGap(_ run: Simulation, honourGaps: Bool) -> [(error: MediaTime, inSilence: Bool)] {
        let first = run.reports[0].report
        var clock = PlaybackClock(mediaTime: first.heardTime, hostTime: first.hostTime, rate: .one)
        var gapsSeen = 0
        var errors: [(MediaTime, Bool)] = []
        for entry in run.reports {
            let report = entry.report
            clock.observeAudio(report.heardTime, atHost: report.hostTime, afterGap: honourGaps && report.gaps > gapsSeen)
            gapsSeen = report.gaps
            if report.gaps > 0 { errors.append((clock.mediaTime(atHost: report.hostTime) - entry.truth, entry.inSilence)) }
        }
        return errors
    }

    @Test(arguments: [2, 6, 9])
    func afterAGapShorterThanTheResyncThresholdTheClockIsWithTheSoundAtOnce(stallChunks: Int) {
        let run = Simulation(chunks: 80, stallAt: 20, stall: stallChunks)
        let errors = Self.errorsAfterTheGap(run, honourGaps: true)
        #expect(errors.count > 40 && errors.contains { $0.inSilence }, "the simulation covers the gap's tail")
        // While media plays, the clock is exactly what is heard; while the queued padding still
        // plays, it is behind (the picture holds with the sound), never ahead.
        for (error, inSilence) in errors {
            if inSilence { #expect(error <= .zero) } else { #expect(error == .zero) }
        }
        // Gliding over the gap like drift (the old way) leaves the clock ahead of the sound by
        // most of the gap after the sound is back.
        let gliding = Self.errorsAfterTheGap(run, honourGaps: false)
        let firstWithSound = gliding.first { !$0.inSilence }!.error
        #expect(firstWithSound >= Simulation.frames(stallChunks * Simulation.chunk) * Rational(8, 10),
                "gliding: \(firstWithSound.seconds) s ahead")
    }

    @Test func aGapMakesTheClockJumpEvenBelowTheThreshold() {
        let host = MediaTime(hostNanoseconds: 1_000_000_000)
        let clock = PlaybackClock(mediaTime: .zero, hostTime: host, rate: .one)
        let behind = MediaTime(value: 950, timescale: 1000)   // 50 ms behind the clock at 1 s
        let later = host + MediaTime(value: 1, timescale: 1)
        var gliding = clock, jumping = clock
        #expect(gliding.observeAudio(behind, atHost: later) == .following(error: MediaTime(value: -50, timescale: 1000)))
        #expect(gliding.mediaTime(atHost: later) == MediaTime(value: 1, timescale: 1))
        #expect(jumping.observeAudio(behind, atHost: later, afterGap: true) == .resynchronised(error: MediaTime(value: -50, timescale: 1000)))
        #expect(jumping.mediaTime(atHost: later) == behind)
        #expect(jumping.mediaTime(atHost: later + MediaTime(value: 1, timescale: 10)) == behind + MediaTime(value: 1, timescale: 10))
    }
}
