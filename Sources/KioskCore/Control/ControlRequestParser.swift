/// Reads one request line: `{"command": ["seek", 30, "relative"], "request_id": 7}`, or a bare
/// name `{"command": "pause"}`. Numbers may also come as text ("30"), since shell clients pass
/// words; anything else of the wrong type, a missing or extra argument, or a value out of range is
/// refused with a message that names the command, the argument and what was expected.
public enum ControlRequestParser {
    public static let maximumSeekSeconds = 1e9

    public static func parse(_ line: String) throws(ControlRequestError) -> ControlRequest {
        guard let value = ControlValue.parse(line) else {
            throw ControlRequestError("malformed JSON: the line is not a JSON text")
        }
        guard case .object = value else {
            throw ControlRequestError("malformed request: expected a JSON object such as {\"command\": [\"pause\"]}, got \(value.typeName)")
        }
        let requestID = value["request_id"]
        guard let command = value["command"] else {
            throw ControlRequestError("malformed request: no \"command\" member", requestID: requestID)
        }
        var words: [ControlValue]
        switch command {
        case .string: words = [command]
        case .array(let items): words = items
        default:
            throw ControlRequestError("malformed request: \"command\" must be an array or a string, got \(command.typeName)",
                                      requestID: requestID)
        }
        guard !words.isEmpty else { throw ControlRequestError("malformed request: \"command\" is empty", requestID: requestID) }
        guard case .string(let name) = words.removeFirst() else {
            throw ControlRequestError("malformed request: the command name must be a string", requestID: requestID)
        }
        do {
            return ControlRequest(command: try parseCommand(name, words), requestID: requestID)
        } catch {
            throw ControlRequestError(error.description, requestID: requestID)
        }
    }

    static func parseCommand(_ name: String, _ arguments: [ControlValue]) throws(ControlRequestError) -> ControlCommand {
        let reader = ArgumentReader(command: name, arguments: arguments)
        switch name {
        case "play": try reader.expectCount(0...0); return .request(.play)
        case "pause": try reader.expectCount(0...0); return .request(.pause)
        case "toggle": try reader.expectCount(0...0); return .request(.togglePlayPause)
        case "next": try reader.expectCount(0...0); return .request(.nextItem)
        case "previous": try reader.expectCount(0...0); return .request(.previousItem)
        case "commands", "help": try reader.expectCount(0...0); return .commands
        case "seek":
            try reader.expectCount(1...2)
            let seconds = try reader.number(0, "seconds")
            guard abs(seconds) <= maximumSeekSeconds else {
                throw reader.error("seconds \(seconds) is out of range (at most \(Int(maximumSeekSeconds)) either way)")
            }
            var relative = false
            if arguments.count == 2 {
                let word = try reader.string(1, "mode")
                guard word == "absolute" || word == "relative" else {
                    throw reader.error("mode must be absolute or relative, got \"\(word)\"")
                }
                relative = word == "relative"
            }
            let time = MediaTime(seconds: seconds)
            return .request(relative ? .skip(by: time) : .seek(to: time))
        case "goto":
            try reader.expectCount(1...1)
            let index = try reader.integer(0, "index")
            guard index >= 0 else { throw reader.error("index \(index) is out of range: items count from 0") }
            return .request(.goto(index: index))
        case "play_item_once":
            // The operator's "show item 3 now, then go back": the item playing resumes where it was.
            try reader.expectCount(1...2)
            let index = try reader.integer(0, "index")
            guard index >= 0 else { throw reader.error("index \(index) is out of range: items count from 0") }
            var when = ScheduleSwitch.now
            if arguments.count == 2 {
                let word = try reader.string(1, "when")
                guard let chosen = ScheduleSwitch(rawValue: word) else {
                    throw reader.error("when must be now or seam, got \"\(word)\"")
                }
                when = chosen
            }
            return .request(.playOnce(.entry(index: index), when: when))
        case "trigger":
            // Looked up when it is carried out: the names are kiosk.conf's, which a reload changes.
            try reader.expectCount(1...1)
            let name = try reader.string(0, "name")
            guard !name.isEmpty else { throw reader.error("name is empty") }
            return .trigger(name: name)
        case "layer":
            // Looked up when it is carried out, like a trigger: the names are kiosk.conf's.
            try reader.expectCount(2...3)
            let action = try reader.string(0, "action")
            let name = try reader.string(1, "name")
            guard !name.isEmpty else { throw reader.error("name is empty") }
            switch action {
            case "show", "hide":
                try reader.expectCount(2...2)
                return .request(.layer(name: name, action == "show" ? .show : .hide))
            case "text":
                try reader.expectCount(3...3)
                let text = try reader.string(2, "text")
                guard text.count <= 4000 else { throw reader.error("text is \(text.count) characters; at most 4000") }
                return .request(.layer(name: name, .text(text)))
            default:
                throw reader.error("action must be show, hide or text, got \"\(action.prefix(40))\"")
            }
        case "load":
            guard !arguments.isEmpty else { throw reader.error("needs at least one source (a file, directory, glob or URL)") }
            return .load(sources: try arguments.indices.map { index throws(ControlRequestError) in
                let source = try reader.string(index, "source")
                guard !source.isEmpty else { throw reader.error("source \(index + 1) is empty") }
                // A path handed to C would end at the NUL and name another file.
                guard !source.unicodeScalars.contains("\0") else { throw reader.error("source \(index + 1) contains a NUL character") }
                return source
            })
        case "volume":
            try reader.expectCount(1...1)
            let volume = try reader.integer(0, "volume")
            guard (0...100).contains(volume) else { throw reader.error("volume \(volume) is out of range: use 0...100") }
            return .request(.setVolume(volume))
        case "mute":
            try reader.expectCount(0...1)
            guard !arguments.isEmpty else { return .request(.setMuted(true)) }
            switch arguments[0] {
            case .bool(let value): return .request(.setMuted(value))
            case .string("true"), .string("yes"), .string("on"): return .request(.setMuted(true))
            case .string("false"), .string("no"), .string("off"): return .request(.setMuted(false))
            case .string("toggle"): return .request(.toggleMute)
            default: throw reader.error("argument must be true, false or toggle, got \(arguments[0].json)")
            }
        case "rate":
            try reader.expectCount(1...1)
            let value = try reader.number(0, "rate")
            let rate = PlaybackRate.fraction(fromDecimal: value)
            guard PlaybackRate.isPlayable(rate) else { throw reader.error("rate \(value) is out of range: use 0.25...4") }
            // A speed, as mpv's: it does not unpause; play() resumes at it.
            return .request(.setSpeed(rate))
        case "screenshot":
            try reader.expectCount(1...1)
            let path = try reader.string(0, "path")
            guard path.hasPrefix("/") else {
                throw reader.error("path must be absolute (kiosk's working directory is not the client's), got \"\(path.prefix(80))\"")
            }
            guard !path.unicodeScalars.contains("\0") else { throw reader.error("path contains a NUL character") }
            guard !path.hasSuffix("/") else { throw reader.error("path names a directory, not a file: \"\(path.prefix(80))\"") }
            return .screenshot(path: path)
        case "display_power":
            try reader.expectCount(1...1)
            switch arguments[0] {
            case .bool(let on): return .displayPower(on ? .on : .off)
            case .string(let word):
                guard let mode = DisplayPowerMode(rawValue: word) else {
                    throw reader.error("argument must be on, off or auto, got \"\(word)\"")
                }
                return .displayPower(mode)
            default: throw reader.error("argument must be on, off or auto, got \(arguments[0].json)")
            }
        case "sync_now": try reader.expectCount(0...0); return .syncNow
        case "get", "observe", "unobserve":
            try reader.expectCount(1...1)
            let word = try reader.string(0, "property")
            guard let property = ControlProperty(rawValue: word) else {
                let known = ControlProperty.allCases.map(\.rawValue).joined(separator: ", ")
                throw reader.error("unknown property \"\(word)\": use one of \(known)")
            }
            switch name {
            case "get": return .get(property)
            case "observe": return .observe(property)
            default: return .unobserve(property)
            }
        default:
            let known = ControlCommand.usage.map(\.name).joined(separator: ", ")
            throw ControlRequestError("unknown command \"\(name)\": use one of \(known)")
        }
    }
}

extension ControlCommand {
    /// Every command's name and arguments, for `commands` and error messages; next to the
    /// parser, so a new command's word and usage are written in one file.
    public static let usage: [(name: String, arguments: String)] = [
        ("play", ""), ("pause", ""), ("toggle", ""),
        ("seek", "<seconds> [absolute|relative]"), ("next", ""), ("previous", ""), ("goto", "<index>"),
        ("play_item_once", "<index> [now|seam]"), ("trigger", "<name>"), ("layer", "show|hide <name> | text <name> <text>"),
        ("load", "<source>..."), ("volume", "<0-100>"), ("mute", "[true|false|toggle]"),
        ("rate", "<0.25-4>"), ("get", "<property>"), ("observe", "<property>"), ("unobserve", "<property>"),
        ("display_power", "on|off|auto"), ("screenshot", "<absolute path.png>"), ("sync_now", ""), ("commands", ""),
    ]
}

/// Typed access to a command's arguments, each failure naming the command and the argument.
private struct ArgumentReader {
    let command: String
    let arguments: [ControlValue]

    func error(_ text: String) -> ControlRequestError { ControlRequestError("\(command): \(text)") }

    func expectCount(_ range: ClosedRange<Int>) throws(ControlRequestError) {
        guard !range.contains(arguments.count) else { return }
        let usage = ControlCommand.usage.first { $0.name == command }?.arguments ?? ""
        let wanted = range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
        throw error("takes \(wanted) argument\(range.upperBound == 1 ? "" : "s")\(usage.isEmpty ? "" : " (\(usage))"), got \(arguments.count)")
    }

    func number(_ index: Int, _ name: String) throws(ControlRequestError) -> Double {
        let value: Double?
        switch arguments[index] {
        case .integer(let number): value = Double(number)
        case .number(let number): value = number
        case .string(let text): value = Double(text.trimmingSpaces)
        default: value = nil
        }
        guard let value, value.isFinite else {
            throw error("\(name) must be a number, got \(arguments[index].typeName) \(arguments[index].json.prefix(40))")
        }
        return value
    }

    func integer(_ index: Int, _ name: String) throws(ControlRequestError) -> Int {
        let number = try self.number(index, name)
        guard number == number.rounded(), abs(number) < 1e15 else {
            throw error("\(name) must be a whole number, got \(arguments[index].json.prefix(40))")
        }
        return Int(number)
    }

    func string(_ index: Int, _ name: String) throws(ControlRequestError) -> String {
        guard case .string(let text) = arguments[index] else {
            throw error("\(name) must be a string, got \(arguments[index].typeName) \(arguments[index].json.prefix(40))")
        }
        return text
    }
}

private extension String {
    var trimmingSpaces: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
