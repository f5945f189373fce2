import Foundation
import Logging

/// The last lines kiosk logged at notice and above, kept in memory for the web page's log and
/// its count of errors in the last hour (#36): bounded, so months unattended cost nothing more.
/// A line logged with the metadata `private` (the made web password) is never kept.
package final class RecentLog: @unchecked Sendable {
    // Safe to share: `lines` is touched with `lock` held.
    package static let shared = RecentLog()
    private let lock = NSLock()
    private var lines: [Line] = []
    /// At most this many; the oldest go first.
    package static let limit = 1000

    package struct Line: Sendable {
        package let at: Date
        package let level: Logger.Level
        package let source: String
        package let message: String
    }

    package init() {}

    func append(_ line: Line) {
        lock.withLock {
            lines.append(line)
            if lines.count > Self.limit { lines.removeFirst(lines.count - Self.limit) }
        }
    }

    package func lines(since: Date) -> [Line] {
        lock.withLock { lines.filter { $0.at >= since } }
    }
}

/// The swift-log handler that feeds `RecentLog`, beside the one writing to stderr.
package struct RecentLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level
    private let label: String
    private let log: RecentLog

    package init(label: String, level: Logger.Level, log: RecentLog = .shared) {
        self.label = label
        self.logLevel = level
        self.log = log
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
                     file: String, function: String, line: UInt) {
        guard level >= .notice, metadata?["private"] == nil, self.metadata["private"] == nil else { return }
        log.append(RecentLog.Line(at: Date(), level: level, source: source, message: message.description))
    }
}
