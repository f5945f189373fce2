import Foundation
import Logging
import Testing
@testable import KioskService

/// The web page's log (#36): notice and above kept, bounded, the made password never kept.
@Suite struct RecentLogTests {
    @Test func keepsNoticesAndAboveBoundedAndNothingPrivate() {
        let recent = RecentLog()
        let logger = Logger(label: "test") { label in RecentLogHandler(label: label, level: .trace, log: recent) }
        logger.info("an info line")
        logger.notice("a notice line")
        logger.error("an error line")
        logger.notice("the password is x", metadata: ["private": "true"])
        let lines = recent.lines(since: Date(timeIntervalSinceNow: -60))
        #expect(lines.map(\.message) == ["a notice line", "an error line"])
        #expect(lines.map(\.level) == [.notice, .error])
        #expect(recent.lines(since: Date(timeIntervalSinceNow: 60)).isEmpty)
        for index in 0..<(RecentLog.limit + 10) { logger.warning("line \(index)") }
        let kept = recent.lines(since: .distantPast)
        #expect(kept.count == RecentLog.limit)
        #expect(kept.last?.message == "line \(RecentLog.limit + 9)")
    }
}
