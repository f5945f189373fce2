/// A command's arguments with typed access, each failure naming the command and the argument.
/// Numbers may also come as text ("30"), since shell clients pass words; anything else of the
/// wrong type, a missing or extra argument, or a value out of range is refused.
struct ControlArguments {
    let command: String
    /// The command's arguments as the table shows them, for a wrong count.
    let usage: String
    let arguments: [ControlValue]

    func error(_ text: String) -> ControlRequestError { ControlRequestError("\(command): \(text)") }

    /// A word the client sent, as a refusal quotes it: JSON-escaped (no line break reaches a
    /// log), at most 40 characters (a line may be 64 KiB).
    static func said(_ word: String) -> String { ControlValue.string(word).said }

    func expectCount(_ range: ClosedRange<Int>) throws(ControlRequestError) {
        guard !range.contains(arguments.count) else { return }
        let wanted = range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
        throw error("takes \(wanted) argument\(range.upperBound == 1 ? "" : "s")\(usage.isEmpty ? "" : " (\(usage))"), got \(arguments.count)")
    }

    /// A command of no arguments.
    func none(_ command: ControlCommand) throws(ControlRequestError) -> ControlCommand {
        try expectCount(0...0)
        return command
    }

    func number(_ index: Int, _ name: String) throws(ControlRequestError) -> Double {
        let value: Double?
        switch arguments[index] {
        case .integer(let number): value = Double(number)
        case .number(let number): value = number
        // Decimal only: Double("0x10") is 16, and `volume 0x10` set 16.
        case .string(let text) where text.trimmingSpaces.allSatisfy({ "0123456789.+-eE".contains($0) }): value = Double(text.trimmingSpaces)
        default: value = nil
        }
        guard let value, value.isFinite else {
            // 1e999 is a number, just not one that fits: "got a string" misled.
            if value != nil { throw error("\(name) must be a finite number, got \(String(arguments[index].json.prefix(40)))") }
            let json = String(arguments[index].json.prefix(40))
            // "got null", not "got null null".
            throw error("\(name) must be a number, got \(arguments[index].typeName)" + (json == arguments[index].typeName ? "" : " \(json)"))
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

    /// A playlist index: whole, from 0 (its upper bound is the player's to check).
    func index(_ position: Int) throws(ControlRequestError) -> Int {
        let index = try integer(position, "index")
        guard index >= 0 else { throw error("index \(index) is out of range: items count from 0") }
        return index
    }

    func string(_ index: Int, _ name: String) throws(ControlRequestError) -> String {
        guard case .string(let text) = arguments[index] else {
            throw error("\(name) must be a string, got \(arguments[index].typeName) \(arguments[index].json.prefix(40))")
        }
        return text
    }

    func nonEmptyString(_ index: Int, _ name: String) throws(ControlRequestError) -> String {
        let text = try string(index, name)
        guard !text.isEmpty else { throw error("\(name) is empty") }
        return text
    }

    // MARK: The commands with more than a count to check

    /// `goto <index> [<seconds>]`: the entry, opened at a position when one is given.
    func goto() throws(ControlRequestError) -> ControlCommand {
        try expectCount(1...2)
        let index = try index(0)
        guard arguments.count == 2 else { return .request(.goto(index: index)) }
        let seconds = try number(1, "seconds")
        guard seconds >= 0, seconds <= ControlRequestParser.maximumSeekSeconds else {
            throw error("seconds \(seconds) is out of range (0 to \(Int(ControlRequestParser.maximumSeekSeconds)))")
        }
        return .request(.goto(index: index, at: seconds > 0 ? MediaTime(seconds: seconds) : nil))
    }

    func seek() throws(ControlRequestError) -> ControlCommand {
        try expectCount(1...2)
        let seconds = try number(0, "seconds")
        guard abs(seconds) <= ControlRequestParser.maximumSeekSeconds else {
            throw error("seconds \(seconds) is out of range (at most \(Int(ControlRequestParser.maximumSeekSeconds)) either way)")
        }
        var relative = false
        if arguments.count == 2 {
            let word = try string(1, "mode")
            guard word == "absolute" || word == "relative" else {
                throw error("mode must be absolute or relative, got \(Self.said(word))")
            }
            relative = word == "relative"
        }
        let time = MediaTime(seconds: seconds)
        return .request(relative ? .skip(by: time) : .seek(to: time))
    }

    func playItemOnce() throws(ControlRequestError) -> ControlCommand {
        try expectCount(1...2)
        let index = try index(0)
        var when = ScheduleSwitch.now
        if arguments.count == 2 {
            let word = try string(1, "when")
            guard let chosen = ScheduleSwitch(rawValue: word) else { throw error("when must be now or seam, got \(Self.said(word))") }
            when = chosen
        }
        return .request(.playOnce(.entry(index: index), when: when))
    }

    /// Looked up when it is carried out, like a trigger: the names are kiosk.conf's.
    func layer() throws(ControlRequestError) -> ControlCommand {
        try expectCount(2...3)
        let action = try string(0, "action")
        let name = try nonEmptyString(1, "name")
        switch action {
        case "show", "hide":
            try expectCount(2...2)
            return .request(.layer(name: name, action == "show" ? .show : .hide))
        case "text":
            try expectCount(3...3)
            let text = try string(2, "text")
            guard text.count <= 4000 else { throw error("text is \(text.count) characters; at most 4000") }
            return .request(.layer(name: name, .text(text)))
        default:
            throw error("action must be show, hide or text, got \(Self.said(action))")
        }
    }

    func load() throws(ControlRequestError) -> ControlCommand {
        guard !arguments.isEmpty else { throw error("needs at least one source (a file, directory, glob or URL)") }
        var sources: [String] = []
        for index in arguments.indices {
            let source = try string(index, "source")
            guard !source.isEmpty else { throw error("source \(index + 1) is empty") }
            // A path handed to C would end at the NUL and name another file.
            guard !source.unicodeScalars.contains("\0") else { throw error("source \(index + 1) contains a NUL character") }
            sources.append(source)
        }
        return .load(sources: sources)
    }

    func mute() throws(ControlRequestError) -> ControlCommand {
        try expectCount(0...1)
        guard !arguments.isEmpty else { return .request(.setMuted(true)) }
        switch arguments[0] {
        case .bool(let value): return .request(.setMuted(value))
        case .string("true"), .string("yes"), .string("on"), .string("1"), .integer(1): return .request(.setMuted(true))
        case .string("false"), .string("no"), .string("off"), .string("0"), .integer(0): return .request(.setMuted(false))
        case .string("toggle"): return .request(.toggleMute)
        default: throw error("argument must be true, false or toggle (yes/no, on/off, 1/0), got \(arguments[0].said)")
        }
    }

    func screenshot() throws(ControlRequestError) -> ControlCommand {
        try expectCount(1...1)
        let path = try string(0, "path")
        guard path.hasPrefix("/") else {
            throw error("path must be absolute (kiosk's working directory is not the client's), got \(Self.said(path))")
        }
        guard !path.unicodeScalars.contains("\0") else { throw error("path contains a NUL character") }
        guard !path.hasSuffix("/") else { throw error("path names a directory, not a file: \(Self.said(path))") }
        return .screenshot(path: path)
    }

    func displayPower() throws(ControlRequestError) -> ControlCommand {
        try expectCount(1...1)
        switch arguments[0] {
        case .bool(let on): return .displayPower(on ? .on : .off)
        case .string(let word):
            guard let mode = DisplayPowerMode(rawValue: word) else { throw error("argument must be on, off or auto, got \(Self.said(word))") }
            return .displayPower(mode)
        default: throw error("argument must be on, off or auto, got \(arguments[0].said)")
        }
    }

    func property() throws(ControlRequestError) -> ControlProperty {
        try expectCount(1...1)
        let word = try string(0, "property")
        guard let property = ControlProperty(rawValue: word) else {
            let known = ControlProperty.allCases.map(\.rawValue).joined(separator: ", ")
            throw error("unknown property \(Self.said(word)): use one of \(known)")
        }
        return property
    }
}

private extension String {
    var trimmingSpaces: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}

extension ControlArguments {
    /// `override_text NAME TEXT [PRIORITY] [SECONDS]`: the words as kiosk.conf's `text:` takes
    /// them (some not a space, at most `TextCard.maximumLength` characters).
    func overrideText() throws(ControlRequestError) -> ControlCommand {
        try expectCount(2...4)
        let name = try nonEmptyString(0, "name")
        guard !name.contains(where: { $0.isWhitespace || $0 == "," }), name.count <= 64 else {
            throw error("name \(Self.said(name)) has a space or a comma, or is over 64 characters; expected a plain name")
        }
        let text = try string(1, "text")
        guard text.contains(where: { !$0.isWhitespace }) else { throw error("text has no words") }
        guard text.count <= TextCard.maximumLength, text.utf8.count <= TextCard.maximumBytes else {
            throw error("text is \(text.count) characters (\(text.utf8.count) bytes); at most \(TextCard.maximumLength) "
                        + "(\(TextCard.maximumBytes) bytes)")
        }
        var priority: Int?
        if arguments.count > 2 {
            let value = try integer(2, "priority")
            guard (-1_000_000...1_000_000).contains(value) else { throw error("priority \(value) is out of range (-1000000 to 1000000)") }
            priority = value
        }
        var seconds: Double?
        if arguments.count > 3 {
            let value = try number(3, "seconds")
            guard value >= 0.001, value <= 366 * 86_400 else {
                throw error("seconds \(value) is out of range (0.001 to a year)")
            }
            seconds = value
        }
        return .overrideText(name: name, text: text, priority: priority, seconds: seconds)
    }
}
