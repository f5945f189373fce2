import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

struct ContentSyncPlanTests {
    static func file(_ name: String, _ size: Int64, _ hashDigit: Character) -> SyncManifestFile {
        SyncManifestFile(name: name, url: "http://h/\(name)", size: size, sha256: String(repeating: hashDigit, count: 64))
    }

    @Test func fetchesOnlyWhatIsMissingOnceAndCountsPartials() {
        let manifest = SyncManifest(files: [Self.file("a.mp4", 100, "a"), Self.file("b.mp4", 200, "b"),
                                            Self.file("b-again.mp4", 200, "b"), Self.file("c.mp4", 300, "c")])
        let plan = SyncPlan(manifest: manifest, objects: [String(repeating: "a", count: 64)],
                            partialSizes: [String(repeating: "c", count: 64): 120])
        #expect(plan.toFetch.map(\.name) == ["b.mp4", "c.mp4"])
        #expect(plan.bytesToFetch == 200 + 180)
        #expect(plan.filesPresent == 1)
        #expect(!plan.isComplete)
        let done = SyncPlan(manifest: manifest, objects: Set("abc".map { String(repeating: $0, count: 64) }), partialSizes: [:])
        #expect(done.isComplete && done.bytesToFetch == 0)
    }

    @Test func aPartialLongerThanTheFileCountsAsNothingLeft() {
        let plan = SyncPlan(manifest: SyncManifest(files: [Self.file("a", 10, "a")]), objects: [],
                            partialSizes: [String(repeating: "a", count: 64): 50])
        #expect(plan.bytesToFetch == 0)
    }

    @Test func spaceIsCheckedWithMinFree() {
        let plan = SyncPlan(manifest: SyncManifest(files: [Self.file("a", 1_800_000_000, "a")]), objects: [], partialSizes: [:])
        #expect(plan.spaceProblem(freeBytes: 400_000_000, minFree: 500_000_000)
                == "need 1.9 GB more, 0.4 GB free (1.8 GB to fetch, min_free 500.0 MB)")
        #expect(plan.spaceProblem(freeBytes: 2_300_000_000, minFree: 500_000_000) == nil)
        #expect(plan.spaceProblem(freeBytes: 2_299_999_999, minFree: 500_000_000) != nil)
    }

    @Test func byteCounts() {
        #expect(ByteCountText.text(999) == "999 bytes")
        #expect(ByteCountText.text(73_400_320) == "73.4 MB")
        #expect(ByteCountText.text(1_000) == "1.0 kB")
    }

    @Test(arguments: [
        (DownloadResponse(status: 304), Int64(0), Int64?.none, DownloadAction.notModified),
        (DownloadResponse(status: 206, rangeStart: 1000), 1000, 5000, .append),
        (DownloadResponse(status: 206, rangeStart: 0), 1000, 5000, .restart),
        (DownloadResponse(status: 200, contentType: "video/mp4"), 1000, 5000, .restart),
        (DownloadResponse(status: 200, contentType: "application/json"), 0, nil, .restart),
        (DownloadResponse(status: 416), 1000, 5000, .dropPartial),
        (DownloadResponse(status: 200, contentType: "text/html; charset=utf-8"), 0, 73_400_320, .fail("got text/html, not 73400320 bytes")),
        (DownloadResponse(status: 206, contentType: "TEXT/HTML", rangeStart: 10), 10, 20, .fail("got text/html, not 20 bytes")),
        (DownloadResponse(status: 404), 0, 20, .fail("HTTP 404")),
        (DownloadResponse(status: 503), 0, nil, .fail("HTTP 503")),
        (DownloadResponse(status: 304), 0, 20, .fail("HTTP 304 to a request without a validator")),
    ])
    func resumeDecisions(response: DownloadResponse, offset: Int64, size: Int64?, expected: DownloadAction) {
        #expect(response.action(offset: offset, expectedSize: size) == expected)
    }

    @Test func contentRange() {
        #expect(DownloadResponse.rangeStart(ofContentRange: "bytes 100-199/200\r\n") == 100)
        #expect(DownloadResponse.rangeStart(ofContentRange: "bytes */200") == nil)
        #expect(DownloadResponse.rangeStart(ofContentRange: "items 1-2/3") == nil)
    }

    @Test func threeMismatchesStopTheSwitchUntilANewManifest() {
        var ledger = HashMismatchLedger()
        ledger.use(manifest: "etag-1")
        let first = ledger.recordMismatch("aa"), second = ledger.recordMismatch("aa")
        #expect(first && second)
        #expect(!ledger.blocksSwitch)
        let third = ledger.recordMismatch("aa")
        #expect(!third)
        #expect(ledger.blocksSwitch)
        ledger.use(manifest: "etag-1")          // the same manifest again: still blocked
        #expect(ledger.blocksSwitch && ledger.mismatches(of: "aa") == 3)
        ledger.use(manifest: "etag-2")
        #expect(!ledger.blocksSwitch && ledger.mismatches(of: "aa") == 0)
    }

    @Test func aCertificateRefusedWithTheClockAt1970NamesTheClock() {
        let notBefore: Int64 = 1_740_787_200   // 2025-03-01
        #expect(CertificateClock.message(tlsError: "SSL certificate problem: certificate is not yet valid", now: 5, notBefore: notBefore)
                == "certificate valid from 2025-03-01, clock says 1970-01-01; retrying when the clock is set")
        #expect(CertificateClock.message(tlsError: "x", now: 5, notBefore: nil)
                == "certificate not accepted (x), clock says 1970-01-01; retrying when the clock is set")
        #expect(CertificateClock.message(tlsError: "SSL: no alternative certificate subject name", now: 1_800_000_000, notBefore: notBefore)
                == "SSL: no alternative certificate subject name")
    }

    @Test func certificateDatesAsLibcurlGivesThem() {
        #expect(CertificateClock.seconds(parsingCertificateDate: "Mar  1 00:00:00 2025 GMT") == 1_740_787_200)
        #expect(CertificateClock.seconds(parsingCertificateDate: "Jan 1 12:30:05 2090 GMT") == 3_786_957_005)
        #expect(CertificateClock.seconds(parsingCertificateDate: "Feb 30 00:00:00 2025 GMT") == nil)
        #expect(CertificateClock.seconds(parsingCertificateDate: "2025-03-01") == nil)
    }

    @Test func statusForTheServiceLine() {
        var status = ContentSyncStatus()
        #expect(status.serviceText == nil)
        status.state = .fetching
        status.filesDone = 2; status.filesTotal = 5; status.bytesDone = 1_500_000; status.bytesTotal = 73_400_320
        #expect(status.serviceText == "sync: 2/5 files, 1.5 MB of 73.4 MB")
        status.state = .failed
        status.lastError = "http://h/m.json: HTTP 404; the current set plays on"
        #expect(status.serviceText == "sync failed: http://h/m.json: HTTP 404; the current set plays on")
        status.lastError = String(repeating: "x", count: 200)
        #expect(status.serviceText?.count == "sync failed: ".count + 80)
        status.state = .idle
        status.currentSet = "2ca890fcfd180d80"
        #expect(status.serviceText == "sync: set 2ca890fcfd180d80")
    }

    @Test func statusAsJSON() {
        var status = ContentSyncStatus()
        status.state = .fetching
        status.filesDone = 1; status.filesTotal = 3; status.bytesDone = 10; status.bytesTotal = 30
        status.lastError = "http://h/a.mp4: HTTP 404"
        #expect(status.value.json == "{\"state\":\"fetching\",\"files_done\":1,\"files_total\":3,\"bytes_done\":10,\"bytes_total\":30,"
                + "\"rate\":0,\"last_error\":\"http://h/a.mp4: HTTP 404\",\"next_check\":null,\"current_set\":null}")
    }
}

struct TransferRateBudgetTests {
    @Test func holdsTheAverageToTheRate() {
        // A chunk of 16 KiB whenever allowed, over 10 simulated seconds at 1 MiB/s.
        var budget = TransferRateBudget(bytesPerSecond: 1 << 20, now: 0)
        var taken = 0
        var now = 0.0
        while now < 10 {
            if budget.take(16 << 10, now: now) { taken += 16 << 10 }
            now += 0.001
        }
        let rate = Double(taken) / 10
        #expect(rate > Double(1 << 20) * 0.97 && rate < Double(1 << 20) * 1.05, "\(rate)")
    }

    @Test func aBurstIsAQuarterSecondAtMost() {
        var budget = TransferRateBudget(bytesPerSecond: 1000, now: 0)
        // An idle minute and a half does not pile up: 250 bytes (a quarter second) at most.
        let first = budget.take(200, now: 100), second = budget.take(100, now: 100), third = budget.take(1, now: 100)
        #expect(first && second && !third)
        let soon = budget.hasBudget(now: 100.04), later = budget.hasBudget(now: 100.06)
        #expect(!soon && later)
    }
}
