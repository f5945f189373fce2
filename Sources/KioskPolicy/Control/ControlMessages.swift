/// The lines the control socket writes: replies to requests and events, one JSON object each.
public enum ControlMessage {
    /// `{"request_id":7,"error":"success","data":...}`; no `request_id` when the request had none.
    public static func success(_ data: ControlValue, requestID: ControlValue?) -> ControlValue {
        var members: [(String, ControlValue)] = []
        if let requestID { members.append(("request_id", requestID)) }
        members.append(("error", .string("success")))
        members.append(("data", data))
        return .object(members)
    }

    /// `{"request_id":7,"error":"<what was wrong>"}`.
    public static func failure(_ message: String, requestID: ControlValue?) -> ControlValue {
        var members: [(String, ControlValue)] = []
        if let requestID { members.append(("request_id", requestID)) }
        members.append(("error", .string(message)))
        return .object(members)
    }

    /// `{"event":"item_started","item":0,"time":12.5,...}`: every event names the item
    /// (null when there is none) and the media time in it.
    public static func event(_ name: ControlEventName, item: Int?, time: Double, _ extra: [(String, ControlValue)] = []) -> ControlValue {
        .object([("event", .string(name.rawValue)), ("item", item.map { .integer(Int64($0)) } ?? .null),
                 ("time", .number(rounded(time)))] + extra)
    }

    /// Media times to the microsecond: enough for any frame rate, and short lines.
    public static func rounded(_ seconds: Double) -> Double { (seconds * 1e6).rounded() / 1e6 }

    /// What `commands` answers.
    public static var commandList: ControlValue {
        .object([
            ("commands", .array(ControlCommand.usage.map { .string($0.arguments.isEmpty ? $0.name : "\($0.name) \($0.arguments)") })),
            ("properties", .array(ControlProperty.allCases.map { .string($0.rawValue) })),
            ("events", .array(ControlCommand.eventNames.map { .string($0) })),
        ])
    }
}

/// Names the items of `PlaybackEvent`s by their playlist index. The engine reports an item's
/// end when the next one is already current, so the index of an ended item is remembered from
/// when it started (by its serial) rather than taken from the current item.
public struct ControlEventNames: Sendable {
    private var indexOfSerial: [UInt64: Int] = [:]

    public init() {}

    /// The event for `event`, which happened while `current` was the current item's index and
    /// `time` the media time; nil for what is reported as a property change only.
    public mutating func event(for event: PlaybackEvent, current: Int?, time: Double) -> ControlValue? {
        switch event {
        case .statusChanged(let status):
            var extra: [(String, ControlValue)] = [("status", .string(Self.name(of: status)))]
            if case .failed(let reason) = status { extra.append(("reason", .string(reason))) }
            return ControlMessage.event(.status, item: current, time: time, extra)
        case .timeControlStatusChanged(let status, let reason):
            return ControlMessage.event(.timeControlStatus, item: current, time: time,
                                        [("time_control_status", .string(status.rawValue)),
                                         ("reason", reason.map { .string($0.rawValue) } ?? .null)])
        case .itemStarted(let reference):
            if let current {
                indexOfSerial[reference.serial] = current
                if indexOfSerial.count > 64 { indexOfSerial = [reference.serial: current] }   // stays small
            }
            return ControlMessage.event(.itemStarted, item: current, time: time, [("path", .string(reference.name))])
        case .itemEnded(let reference):
            return ControlMessage.event(.itemEnded, item: indexOfSerial[reference.serial], time: time,
                                        [("path", .string(reference.name))])
        case .seek(let target):
            return ControlMessage.event(.seek, item: current, time: time, [("target", .number(ControlMessage.rounded(target.seconds)))])
        case .itemFailed, .rateChanged, .defaultRateChanged, .volumeChanged, .mutedChanged:
            // item_failed comes with the failed item's index from the engine's skip report.
            return nil
        }
    }

    /// The `status` property's words.
    public static func name(of status: PlayerItemStatus) -> String {
        switch status {
        case .unknown: return "unknown"
        case .readyToPlay: return "readyToPlay"
        case .failed: return "failed"
        }
    }
}
