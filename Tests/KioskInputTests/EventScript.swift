import CEvdev
@testable import KioskInput

/// Recorded evdev traffic written the way `evtest` prints it, one event a line:
/// `TIME CODE VALUE`, e.g. `0.016 ABS_MT_POSITION_X 512`, and `0.016 SYN_REPORT` ending a
/// frame. The type follows from the code's name (libevdev's tables), so a recording reads like
/// the real thing and a typo fails the test instead of sending a wrong code.
enum EventScript {
    struct ParseError: Error, CustomStringConvertible {
        let line: String
        var description: String { "cannot read event line '\(line)'" }
    }

    static func parse(_ text: String) throws -> [InputEvent] {
        try text.split(separator: "\n").compactMap { raw -> InputEvent? in
            let line = raw.split(separator: "#", maxSplits: 1).first.map(String.init) ?? ""
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard !fields.isEmpty else { return nil }
            guard fields.count == 2 || fields.count == 3, let time = Double(fields[0]) else { throw ParseError(line: String(raw)) }
            let type = libevdev_event_type_from_code_name(fields[1])
            let code = libevdev_event_code_from_code_name(fields[1])
            guard type >= 0, code >= 0 else { throw ParseError(line: String(raw)) }
            let value = fields.count == 3 ? Int32(fields[2]) : 0
            guard let value else { throw ParseError(line: String(raw)) }
            return InputEvent(type: UInt16(type), code: UInt16(code), value: value, time: time)
        }
    }
}
