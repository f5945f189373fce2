import Foundation
import KioskCore
import Logging

/// What one fetch of a feed gave.
public enum FeedFetchResult: Sendable, Equatable {
    /// The body (at most `FeedTitles.maxBytes`) and its validator.
    case body([UInt8], etag: String?)
    /// 304: nothing changed since `etag`.
    case notModified
    /// One line: the status, the network's error, a body too large.
    case failed(String)
}

/// Fetches `url`, with If-None-Match `etag` when set; at most `maxBytes`, within `timeout`
/// seconds. The engine is given one (libcurl's, in the kiosk executable).
public typealias FeedFetch = @Sendable (_ url: String, _ etag: String?, _ maxBytes: Int, _ timeout: Double) -> FeedFetchResult

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

    init(url: String, refresh: MediaTime, fetch: FeedFetch?, logger: Logger) {
        self.url = url
        self.refresh = refresh
        guard let fetch else {
            logger.error("layers: feed \(NetworkURL.masked(url)) cannot be fetched: this player has no HTTP client; the ticker is empty")
            return
        }
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
                    if lastProblem != nil || titles.isEmpty {
                        logger.notice("layers: feed \(shown): \(titles.count) title(s)")
                    }
                } catch {
                    problem = "\(error)"
                }
            }
            if let problem, problem != lastProblem {
                logger.error("layers: feed \(shown): \(problem); the ticker keeps its last titles")
            }
            lastProblem = problem
            lock.withLock {
                if !stopped { _ = lock.wait(until: Date(timeIntervalSinceNow: refresh.seconds)) }
            }
        }
    }
}
