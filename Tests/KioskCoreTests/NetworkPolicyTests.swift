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
        #expect(elapsed <= policy.giveUpAfter)
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
