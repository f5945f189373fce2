import Foundation
import Logging

/// Keeps log lines so tests can check what an operator or integrator would read.
public final class CapturedLog: @unchecked Sendable {
    // Appended from whichever thread logs: guarded by `lock`.
    private let lock = NSLock()
    private var entries: [(level: Logger.Level, text: String)] = []

    public init() {}

    /// Every line kept so far, with its level.
    public var lines: [(level: Logger.Level, text: String)] { lock.withLock { entries } }

    public func lines(atLeast level: Logger.Level) -> [String] { lines.filter { $0.level >= level }.map(\.text) }

    /// Every line as an operator reads it: "level: message".
    public var formatted: [String] { lines.map { "\($0.level): \($0.text)" } }

    /// Waits up to `timeout` seconds for a line ("level: message") to satisfy `match`: for lines
    /// logged by other threads.
    public func waitFor(timeout: Double = 3, _ match: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if formatted.contains(where: match) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return false
    }

    /// A logger that keeps every line, down to trace.
    public var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(log: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ level: Logger.Level, _ text: String) {
        lock.withLock { entries.append((level, text)) }
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            log.append(event.level, event.message.description)
        }
    }
}
