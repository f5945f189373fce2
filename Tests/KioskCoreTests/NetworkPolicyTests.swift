import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

private func seconds(_ value: Double) -> MediaTime { MediaTime(seconds: value, timescale: 1000) }

@Suite("Network URLs: what is a stream, and masking credentials for logs")
struct NetworkURLTests {
    @Test(arguments: [
        ("http://example.com/a.m3u8", true), ("HTTPS://cdn.example.com/v.mp4", true),
        ("rtsp://camera/stream", true), ("file:///srv/a.mp4", false), ("/srv/a.mp4", false),
        ("lavfi:testsrc2", false), ("clips/a b://c.mp4", false),
    ])
    func networkSources(source: String, isNetwork: Bool) {
        #expect(NetworkURL.isNetwork(source) == isNetwork)
    }

    @Test(arguments: [
        ("http://user:s3cret@host:8080/live/index.m3u8", "http://user:***@host:8080/live/index.m3u8"),
        ("https://TOKEN123@cdn.example.com/a.mp4", "https://***@cdn.example.com/a.mp4"),
        ("https://cdn.example.com/a.m3u8?token=abc&quality=hd&Signature=xyz#t=5",
         "https://cdn.example.com/a.m3u8?token=***&quality=hd&Signature=***#t=5"),
        ("http://a:b@host?key=1", "http://a:***@host?key=***"),
        ("https://cdn.example.com/path@v2/a.mp4", "https://cdn.example.com/path@v2/a.mp4"),
        ("http://host/a.mp4", "http://host/a.mp4"),
        ("/srv/media/a:b@c.mp4", "/srv/media/a:b@c.mp4"),
    ])
    func masking(source: String, masked: String) {
        #expect(NetworkURL.masked(source) == masked)
    }

    @Test func maskedTextNeverContainsThePassword() {
        let url = "https://kiosk:hunter2@media.example.com/hunter2-free/index.m3u8?pass=hunter2"
        let masked = NetworkURL.masked(url)
        #expect(!masked.contains(":hunter2@") && !masked.hasSuffix("hunter2"))
        #expect(masked.hasPrefix("https://kiosk:***@media.example.com/"))
    }
}

@Suite("Reconnect policy: backoff, then give up")
struct ReconnectPolicyTests {
    @Test func delaysDoubleUpToTheCap() {
        let policy = ReconnectPolicy.standard
        let delays = (0..<6).map { policy.decide(failedAttempts: $0, elapsed: .zero) }
        #expect(delays == [0.5, 1, 2, 2, 2, 2].map { .retry(after: seconds($0)) })
    }

    @Test func givesUpOnceTheNextAttemptWouldStartPastTheBudget() {
        let policy = ReconnectPolicy(giveUpAfter: MediaTime(value: 15, timescale: 1))
        #expect(policy.decide(failedAttempts: 5, elapsed: seconds(13)) == .retry(after: seconds(2)))
        #expect(policy.decide(failedAttempts: 5, elapsed: seconds(13.5)) == .giveUp)
        #expect(policy.decide(failedAttempts: 0, elapsed: seconds(15)) == .giveUp)
    }

    @Test func aWholeOutageIsBoundedByTheBudget() {
        // Simulate attempts that each fail at once: the waits add up to no more than the budget.
        let policy = ReconnectPolicy.standard
        var elapsed = MediaTime.zero
        var attempts = 0
        while case .retry(let delay) = policy.decide(failedAttempts: attempts, elapsed: elapsed) {
            elapsed += delay
            attempts += 1
            #expect(attempts < 100)
        }
        #expect(elapsed <= policy.giveUpAfter!)
        #expect(attempts == 8)   // 0.5 + 1 + 2 * 6 = 13.5 s; a ninth wait would end at 15.5 s
    }
}

@Suite("Rebuffering: when a stalled item runs dry and when it plays on")
struct RebufferPolicyTests {
    @Test func runsDryOnlyTwoFramesPastTheLastOne() {
        let frame = MediaTime(value: 1, timescale: 25)
        #expect(!RebufferPolicy.hasRunDry(position: seconds(10.05), lastPresented: seconds(10), frameDuration: frame))
        #expect(RebufferPolicy.hasRunDry(position: seconds(10.09), lastPresented: seconds(10), frameDuration: frame))
    }

    @Test func aClockThatRanDryWaitsAtTheFrameDueAfterTheScreen() {
        let frame = MediaTime(value: 1, timescale: 25)
        // CI's case: 1.04 up, the clock noticed at 1.137 s; it waits at 1.08, the frame due next.
        #expect(RebufferPolicy.stalledPosition(position: seconds(1.137), lastPresented: seconds(1.04), frameDuration: frame)
                == seconds(1.04) + frame)
        // A clock not yet past that frame stays where it is.
        #expect(RebufferPolicy.stalledPosition(position: seconds(1.05), lastPresented: seconds(1.04), frameDuration: frame)
                == seconds(1.05))
    }

    @Test func networkWaitsForASecondAhead() {
        let policy = RebufferPolicy.network
        #expect(!policy.mayResume(framePTS: seconds(10), demuxedUntil: seconds(10.4), demuxerFinished: false, waited: seconds(1)))
        #expect(!policy.mayResume(framePTS: seconds(10), demuxedUntil: nil, demuxerFinished: false, waited: seconds(1)))
        #expect(policy.mayResume(framePTS: seconds(10), demuxedUntil: seconds(11), demuxerFinished: false, waited: seconds(1)))
    }

    @Test func theEndOrALongWaitPlaysWhatThereIs() {
        let policy = RebufferPolicy.network
        #expect(policy.mayResume(framePTS: seconds(19.9), demuxedUntil: seconds(20), demuxerFinished: true, waited: .zero))
        #expect(policy.mayResume(framePTS: seconds(10), demuxedUntil: seconds(10.1), demuxerFinished: false, waited: seconds(5)))
    }

    @Test func localFilesGoOnAtTheFirstFrame() {
        #expect(RebufferPolicy.local.mayResume(framePTS: seconds(3), demuxedUntil: nil, demuxerFinished: false, waited: .zero))
    }
}

@Suite("Live sources: which are live, and how they come back")
struct LiveSourceTests {
    @Test func liveByScheme() {
        for url in ["rtsp://cam/1", "RTSP://cam/1", "udp://239.1.1.1:5000", "rtp://239.1.1.1:5004", "srt://host:9000", "rtmp://host/app/s"] {
            #expect(LiveSource.isLive(url, formatName: "mpegts", hasDuration: false), "\(url)")
            #expect(LiveSource.isLive(url, formatName: "mpegts", hasDuration: true), "\(url): the scheme decides")
        }
    }

    /// A live item on screen refuses what it cannot do (a seek, a rate but 1), with why; a pause,
    /// the rate 1 and the playlist's requests stay.
    @Test func aLiveItemRefusesSeeksAndRatesButOne() {
        for request in [PlayerRequest.seek(to: MediaTime(seconds: 10)), .skip(by: MediaTime(seconds: -5))] {
            #expect(LiveSource.refusal(of: request)?.contains("no position to seek to") == true, "\(request)")
        }
        for request in [PlayerRequest.setRate(Rational(2, 1)), .setSpeed(Rational(1, 2))] {
            #expect(LiveSource.refusal(of: request)?.contains("played at rate 1") == true, "\(request)")
        }
        for request in [PlayerRequest.setRate(Rational(0, 1)), .setRate(.one), .setSpeed(.one), .pause, .play, .nextItem,
                        .goto(index: 1), .setVolume(40), .setDefaultRate(Rational(2, 1))] {
            #expect(LiveSource.refusal(of: request) == nil, "\(request)")
        }
    }

    /// The sources a second play cannot open while the last one's input is open (its port
    /// bound): a synchronised wall's stream slot ending with the stream prepared again.
    @Test func whichSourcesHoldTheirPort() {
        for url in ["udp://127.0.0.1:5000", "udp://@:5000", "udp://10.0.0.5:5000?pkt_size=1316", "rtp://192.168.1.2:5004",
                    "udp://[::1]:5000", "srt://0.0.0.0:9000?mode=listener", "tcp://0.0.0.0:9000?listen=1"] {
            #expect(LiveSource.holdsItsPort(url), "\(url)")
        }
        for url in ["udp://239.1.1.1:5000", "udp://@239.1.1.1:5000", "rtp://224.0.0.9:5004", "udp://[ff02::1]:5000",
                    "udp://127.0.0.1:5000?reuse=1", "srt://host:9000", "rtsp://cam/1", "https://cdn/live.m3u8",
                    "tcp://host:9000", "/srv/clip.mp4"] {
            #expect(!LiveSource.holdsItsPort(url), "\(url)")
        }
    }

    @Test func httpIsLiveOnlyAsHLSWithoutADuration() {
        #expect(LiveSource.isLive("https://cdn/live.m3u8", formatName: "hls", hasDuration: false))
        #expect(!LiveSource.isLive("https://cdn/vod.m3u8", formatName: "hls", hasDuration: true), "ENDLIST: a duration")
        #expect(!LiveSource.isLive("http://host/clip.ts", formatName: "mpegts", hasDuration: false),
                "a file whose length FFmpeg cannot tell still ends")
        #expect(!LiveSource.isLive("/srv/live.m3u8", formatName: "hls", hasDuration: false), "local: not network")
        #expect(!LiveSource.isLive("v4l2:///dev/video0", formatName: "video4linux2,v4l2", hasDuration: false))
    }

    @Test func aStreamSentOnceStartsANewTimelineAtAnyStepBack() {
        // 90 kHz MPEG-TS over UDP: the old stream was at 5 s; the restarted sender's first packet at 1.4 s.
        #expect(LiveSource.startsNewTimeline(firstTicks: 126_000, lastTicks: 450_000, ticksPerSecond: 90_000, refetchesSegments: false))
        #expect(!LiveSource.startsNewTimeline(firstTicks: 453_600, lastTicks: 450_000, ticksPerSecond: 90_000, refetchesSegments: false),
                "a stream that went on while away: the same timeline")
        // The 33-bit wrap (26.5 h) looks like a restart: a new timeline, all kept.
        #expect(LiveSource.startsNewTimeline(firstTicks: 1_000, lastTicks: (1 << 33) - 1_000, ticksPerSecond: 90_000, refetchesSegments: false))
    }

    @Test func anHLSRejoinWithinThreeSegmentsIsTheSameTimeline() {
        #expect(LiveSource.refetchesSegments(formatName: "hls") && !LiveSource.refetchesSegments(formatName: "mpegts"))
        // A stale playlist (its packager dead) rejoined three 6 s segments back: repeats, dropped.
        #expect(!LiveSource.startsNewTimeline(firstTicks: 9_000_000 - 18 * 90_000, lastTicks: 9_000_000, ticksPerSecond: 90_000,
                                              refetchesSegments: true))
        // A packager restarted from zero after 100 s: a new timeline.
        #expect(LiveSource.startsNewTimeline(firstTicks: 126_000, lastTicks: 9_000_000, ticksPerSecond: 90_000, refetchesSegments: true))
        #expect(!LiveSource.startsNewTimeline(firstTicks: 0, lastTicks: 1, ticksPerSecond: Int64.max, refetchesSegments: true),
                "no overflow")
    }

    @Test func liveIsTriedAgainEveryHalfSecondForever() {
        let policy = ReconnectPolicy.live
        let delays = (0..<5).map { policy.decide(failedAttempts: $0, elapsed: .zero) }
        #expect(delays == [0.1, 0.2, 0.4, 0.5, 0.5].map { .retry(after: seconds($0)) })
        #expect(policy.decide(failedAttempts: 100_000, elapsed: seconds(30 * 86_400)) == .retry(after: seconds(0.5)))
        #expect(policy.silentReadLimit == seconds(2))
        // SRT: a second of silence is a dead peer; the others keep 2 s.
        #expect(ReconnectPolicy.live(scheme: "srt").silentReadLimit == seconds(1))
        for scheme in ["udp", "rtsp", "https", nil] { #expect(ReconnectPolicy.live(scheme: scheme) == policy) }
    }

    @Test func liveResumesOnceItsFramesSpanTheLatency() {
        let frame = MediaTime(value: 1, timescale: 25)
        let latency = RebufferPolicy.defaultLiveLatency
        // test_live_sources: the two late frames a lost sender's demuxer flushed do not resume it.
        #expect(!RebufferPolicy.liveMayResume(queuedFrames: 2, frameDuration: frame, latency: latency, queueFull: false, demuxerFinished: false))
        #expect(RebufferPolicy.liveMayResume(queuedFrames: 8, frameDuration: frame, latency: latency, queueFull: false, demuxerFinished: false))
        #expect(RebufferPolicy.liveMayResume(queuedFrames: 2, frameDuration: frame, latency: latency, queueFull: true, demuxerFinished: false),
                "4K frames: a full queue holds less than the latency")
        #expect(RebufferPolicy.liveMayResume(queuedFrames: 1, frameDuration: frame, latency: .zero, queueFull: false, demuxerFinished: false))
        #expect(RebufferPolicy.liveMayResume(queuedFrames: 0, frameDuration: frame, latency: latency, queueFull: false, demuxerFinished: true))
    }
}
