import Foundation
import KioskCore
import Logging

/// A ticker's feed (`ticker: {feed: URL, refresh: 5:00}`): a thread that fetches it every
/// `refresh` and keeps the titles of the last good answer, so the ticker runs on with them
/// while the server is down, answers garbage or takes too long. A failure is one line (the
/// URL masked, `NetworkURL.masked`) when it differs from the last one, not every refresh.
final class TickerFeed: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSCondition()
    private var latest: [String] = []
    private var stopped = false

    let url: String
    let refresh: MediaTime

    init(url: String, refresh: MediaTime, fetch: @escaping FeedFetch, logger: Logger) {
        self.url = url
        self.refresh = refresh
        WorkerThread.start(name: "kiosk-feed") { [self] in run(fetch: fetch, logger: logger) }
    }

    /// The titles of the last good answer (none before the first).
    var titles: [String] { lock.withLock { latest } }

    func stop() {
        lock.withLock {
            stopped = true
            lock.broadcast()
        }
    }

    private func run(fetch: FeedFetch, logger: Logger) {
        var etag: String? = nil
        var lastProblem: String? = nil
        var hadTitles = false
        let shown = NetworkURL.masked(url)
        while !lock.withLock({ stopped }) {
            var problem: String? = nil
            switch fetch(url, etag, FeedTitles.maxBytes, 10) {
            case .notModified: break
            case .failed(let line): problem = line
            case .body(let bytes, let validator):
                do {
                    let titles = try FeedTitles.parse(bytes)
                    lock.withLock { latest = titles }
                    etag = validator
                    // Said at the first answer and after a failure, not at every refresh.
                    if lastProblem != nil || !hadTitles {
                        logger.notice("layers: feed \(shown): \(titles.count) title(s)")
                    }
                    hadTitles = true
                } catch {
                    problem = "\(error)"
                }
            }
            if let problem, problem != lastProblem {
                logger.error("layers: feed \(shown): \(problem); the ticker keeps its last titles")
            }
            lastProblem = problem
            lock.withLock {
                if !stopped { _ = lock.wait(until: conditionDeadline(in: refresh.seconds)) }
            }
        }
    }
}
