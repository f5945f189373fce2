/// A CAP 1.2 alert (OASIS Common Alerting Protocol), the parts kiosk acts on: who sent it and
/// when (its key), its status and message type, what it references, and per `<info>` block the
/// urgency, severity, expiry, texts and areas. Read from `BoundedXML`'s tree of one `<alert>`
/// or of an Atom (or RSS) feed that carries them; an entry that only links to its alert gives
/// the link, for the poller to fetch.
public struct CapAlert: Sendable, Equatable {
    /// What names an alert: CAP's `sender,identifier,sent` (the form `<references>` uses).
    public struct Key: Sendable, Hashable, CustomStringConvertible {
        public var sender: String
        public var identifier: String
        public var sent: String

        public init(sender: String, identifier: String, sent: String) {
            self.sender = sender
            self.identifier = identifier
            self.sent = sent
        }

        /// "sender,identifier,sent"; nil when it does not have three parts.
        public init?(reference: some StringProtocol) {
            let parts = reference.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 3, !parts.contains(where: \.isEmpty) else { return nil }
            self.init(sender: String(parts[0]), identifier: String(parts[1]), sent: String(parts[2]))
        }

        public var description: String { "\(sender),\(identifier),\(sent)" }
    }

    public enum Status: String, Sendable, CaseIterable { case actual = "Actual", exercise = "Exercise", system = "System", test = "Test", draft = "Draft" }
    public enum MessageType: String, Sendable, CaseIterable { case alert = "Alert", update = "Update", cancel = "Cancel", ack = "Ack", error = "Error" }

    /// CAP's urgency, least to most.
    public enum Urgency: String, Sendable, CaseIterable, Comparable {
        case unknown = "Unknown", past = "Past", future = "Future", expected = "Expected", immediate = "Immediate"
        public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
    }

    /// CAP's severity, least to most.
    public enum Severity: String, Sendable, CaseIterable, Comparable {
        case unknown = "Unknown", minor = "Minor", moderate = "Moderate", severe = "Severe", extreme = "Extreme"
        public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
    }

    /// One `<info>` block (an alert has one per language, say).
    public struct Info: Sendable, Equatable {
        public var language: String = "en-US"
        public var event: String?
        public var urgency: Urgency = .unknown
        public var severity: Severity = .unknown
        /// Seconds since 1970 (UTC); nil when the block names none.
        public var expires: Int64?
        public var headline: String?
        public var description: String?
        public var instruction: String?
        /// Each `<area>`'s `<areaDesc>` and `<geocode>` values; empty: no `<area>` (everywhere).
        public var areas: [[String]] = []

        public init() {}
    }

    public var key: Key
    public var status: Status
    public var messageType: MessageType
    public var references: [Key]
    public var infos: [Info]
}

extension CapAlert {
    /// What a document gave: its alerts, its entries' links to alerts not carried in it, and
    /// one line for each alert that could not be read (which part is missing or wrong).
    public struct Document: Sendable, Equatable {
        public var alerts: [CapAlert] = []
        public var links: [String] = []
        public var problems: [String] = []
    }

    /// The alerts of `root`: an `<alert>`, or a feed whose entries carry them (in `<content>`)
    /// or link to them. A feed without entries is a quiet feed: no alerts, no problem.
    public static func read(_ root: BoundedXML.Element) -> Document {
        var document = Document()
        let alerts = root.descendants("alert")
        for (number, element) in alerts.enumerated() {
            do {
                var notes: [String] = []
                document.alerts.append(try alert(element, notes: &notes))
                document.problems += notes.map { "\(name(of: element, number)): \($0)" }
            } catch {
                document.problems.append("\(name(of: element, number)): \(error)")
            }
        }
        if alerts.isEmpty {
            for entry in root.descendants("entry") + root.descendants("item") {
                // Atom: <link href=… type="application/cap+xml"> (or the only link); RSS: <link>URL</link>.
                let links = entry.children("link")
                let link = links.first { $0.attributes["type"]?.contains("cap") == true } ?? links.first
                if let href = link?.attributes["href"] ?? link?.text.trimmingWhitespace(), !href.isEmpty {
                    document.links.append(href)
                }
            }
        }
        return document
    }

    /// "alert 2 (KSTO1055887203)", for a line of the log (its identifier escaped as its key's).
    private static func name(of element: BoundedXML.Element, _ number: Int) -> String {
        "alert \(number + 1)\(element.value("identifier").map { " (\(quotedForMessage(keyPart($0))))" } ?? "")"
    }

    struct Unreadable: Error, CustomStringConvertible {
        var description: String
    }

    /// A sender or identifier as its key holds it: CAP forbids commas and white space there (a
    /// `<references>` list is triples split at white space; the restart file is one key a line,
    /// fields split at tabs). One that has them anyway has each written as %XX: its alert is
    /// still shown, and its key stays one triple on one line (an identifier "a\tb\nc,d,e" wrote
    /// a second key into the file, and one with a comma was forgotten at the restart). `%` is
    /// kept, so a lawful `a%20b` stays itself (and shares its key with an unlawful `a b`).
    static func keyPart(_ text: String) -> String {
        text.percentEscaped { $0 == "," || $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }
    }

    /// `notes`: what was wrong but did not keep it off the screen (an `<expires>` that is not a
    /// time: shown for the default duration, said instead of silently so).
    static func alert(_ element: BoundedXML.Element, notes: inout [String]) throws -> CapAlert {
        func required(_ name: String) throws -> String {
            guard let value = element.value(name) else { throw Unreadable(description: "no <\(name)>") }
            return value
        }
        // What the file wrote, as a line of the log quotes it (no line breaks, at most 160 characters).
        func shown(_ text: String) -> String { quotedForMessage(text) }
        let sender = try required("sender"), identifier = try required("identifier")
        let key = Key(sender: keyPart(sender), identifier: keyPart(identifier), sent: try required("sent"))
        for (name, value) in [("sender", sender), ("identifier", identifier)] where keyPart(value) != value {
            notes.append("<\(name)> holds commas or white space, which CAP forbids: known as \(shown(keyPart(value)))")
        }
        guard CapTime.seconds(key.sent) != nil else { throw Unreadable(description: "<sent> \(shown(key.sent)) is not a CAP date and time") }
        let statusText = try required("status")
        guard let status = Status(rawValue: statusText) else { throw Unreadable(description: "<status> \(shown(statusText)) is not one of CAP's") }
        let typeText = try required("msgType")
        guard let type = MessageType(rawValue: typeText) else { throw Unreadable(description: "<msgType> \(shown(typeText)) is not one of CAP's") }
        let references = (element.value("references") ?? "").split(whereSeparator: \.isWhitespace)
        // Each part as the key it names holds it (a control character in an identifier escaped alike).
        let keys = references.compactMap { Key(reference: $0) }.map { Key(sender: keyPart($0.sender), identifier: keyPart($0.identifier), sent: $0.sent) }
        if (type == .update || type == .cancel) && keys.isEmpty {
            throw Unreadable(description: "\(type.rawValue) without <references> naming what it changes")
        }
        var badExpires: [String] = []
        let infos = element.children("info").map { block -> Info in
            var info = Info()
            info.language = block.value("language") ?? info.language
            info.event = block.value("event")
            info.urgency = block.value("urgency").flatMap(Urgency.init(rawValue:)) ?? .unknown
            info.severity = block.value("severity").flatMap(Severity.init(rawValue:)) ?? .unknown
            if let text = block.value("expires") {
                info.expires = CapTime.seconds(text)
                if info.expires == nil { badExpires.append(text) }
            }
            info.headline = block.value("headline")
            info.description = block.value("description")
            info.instruction = block.value("instruction")
            info.areas = block.children("area").map { area in
                area.children("areaDesc").compactMap { $0.text.trimmingWhitespace().nilIfEmpty }
                    + area.children("geocode").compactMap { $0.value("value") }
            }
            return info
        }
        // One line however many <info> blocks say it (a feed's 20,000 said 20,000).
        if let first = badExpires.first {
            let more = badExpires.count > 1 ? " (and \(badExpires.count - 1) more <info> blocks)" : ""
            notes.append("<expires> \(shown(first)) is not a CAP date and time\(more); shown for the default duration")
        }
        return CapAlert(key: key, status: status, messageType: type, references: keys, infos: infos)
    }
}

/// CAP's dateTime ("2026-11-26T14:39:01-05:00"; a "Z" taken too) as seconds since 1970, UTC.
public enum CapTime {
    public static func seconds(_ text: String) -> Int64? {
        let s = Array(text.trimmingWhitespace().utf8)
        func number(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= s.count else { return nil }
            var value: Int64 = 0
            for byte in s[from..<(from + count)] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard s.count >= 19, s[4] == UInt8(ascii: "-"), s[7] == UInt8(ascii: "-"), s[10] == UInt8(ascii: "T"),
              s[13] == UInt8(ascii: ":"), s[16] == UInt8(ascii: ":"),
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              // A day the month has (2026-11-31 was read as December 1st).
              let date = LocalDate(year: Int(year), month: Int(month), day: Int(day)),
              hour < 24, minute < 60, second < 61 else { return nil }
        var index = 19
        if index < s.count, s[index] == UInt8(ascii: ".") {   // fractions: not in CAP, seen in feeds
            index += 1
            while index < s.count, s[index] >= 48, s[index] <= 57 { index += 1 }
        }
        var offset: Int64 = 0
        if index < s.count, s[index] == UInt8(ascii: "Z") {
            index += 1
        } else if index < s.count, s[index] == UInt8(ascii: "+") || s[index] == UInt8(ascii: "-") {
            guard let hours = number(index + 1, 2), index + 3 < s.count, s[index + 3] == UInt8(ascii: ":"),
                  let minutes = number(index + 4, 2), hours < 24, minutes < 60 else { return nil }
            offset = (hours * 3600 + minutes * 60) * (s[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        } else {
            return nil   // CAP requires the zone
        }
        guard index == s.count else { return nil }
        return Int64(date.dayNumber) * 86_400 + hour * 3600 + minute * 60 + second - offset
    }

    /// "2026-11-26T15:00:00Z": seconds since 1970 as a CAP time in UTC, for the log (raw
    /// seconds there meant nothing to a person).
    public static func text(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(LocalDate(dayNumber: Int(days)))T\(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60))Z"
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
