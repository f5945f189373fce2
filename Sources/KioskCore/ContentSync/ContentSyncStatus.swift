/// What content sync is doing, for `kiosk sync --json`, the control socket's `sync` property
/// and the log.
public struct ContentSyncStatus: Sendable, Equatable {
    public enum State: String, Sendable {
        case off, idle, checking, fetching, switched, failed
    }

    public var state: State = .off
    public var filesDone = 0
    public var filesTotal = 0
    public var bytesDone: Int64 = 0
    public var bytesTotal: Int64 = 0
    /// Bytes per second over the last fetch.
    public var bytesPerSecond: Int64 = 0
    public var lastError: String?
    /// When the manifest is polled next, seconds since 1970; nil when not scheduled.
    public var nextCheck: Int64?
    /// The set that plays (its id), nil before the first switch.
    public var currentSet: String?
    /// When a pass last ended well (unchanged or switched), seconds since 1970; nil: not yet.
    /// For the health (metrics), not in `value`.
    public var lastSuccess: Int64?
    /// Passes that failed since kiosk started.
    public var failures = 0

    public init() {}

    /// For systemd's STATUS= line, after what plays: short, and nil when there is nothing to say.
    public var serviceText: String? {
        switch state {
        case .off: return nil
        case .checking: return "sync: checking"
        case .fetching:
            return "sync: \(filesDone)/\(filesTotal) files, \(ByteCountText.text(bytesDone)) of \(ByteCountText.text(bytesTotal))"
        case .failed:
            let error = lastError ?? "failed"
            return "sync failed: " + (error.count > 80 ? error.prefix(79) + "…" : error)
        case .idle, .switched:
            return currentSet.map { "sync: set \($0)" } ?? "sync: no set yet"
        }
    }

    /// As a JSON object, members in a fixed order.
    public var value: ControlValue {
        .object([("state", .string(state.rawValue)),
         ("files_done", ControlValue.integer(Int64(filesDone))), ("files_total", ControlValue.integer(Int64(filesTotal))),
         ("bytes_done", ControlValue.integer(bytesDone)), ("bytes_total", ControlValue.integer(bytesTotal)),
         ("rate", ControlValue.integer(bytesPerSecond)),
         ("last_error", lastError.map(ControlValue.string) ?? .null),
         ("next_check", nextCheck.map(ControlValue.integer) ?? .null),
         ("current_set", currentSet.map(ControlValue.string) ?? .null)])
    }
}
