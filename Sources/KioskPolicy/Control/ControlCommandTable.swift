/// The control vocabulary in one table (mpv's `mp_cmds` is the model): each command's word, its
/// arguments as `commands` lists them, the part of kiosk that answers it, and how its arguments
/// are read. The socket and MQTT parse through it, `commands` and the error messages list it,
/// and a test walks it through every source; a new command is one row here and, if it needs a new
/// kind of answer, one case of `ControlCommand` that the dispatcher's exhaustive switch then asks
/// for (ARCHITECTURE.md, "Where to add what").
public struct ControlCommandSpec: Sendable {
    /// The command's word: `{"command": ["seek", 30]}`.
    public let name: String
    /// Its arguments as `commands` and usage errors show them; "" for none.
    public let arguments: String
    /// Who answers: the engine, or one of the services (`Services` in KioskControl).
    public let answeredBy: ControlAnswerer
    /// Well-formed arguments, for the tests that walk the table through each request source.
    public let example: [ControlValue]
    /// Reads the arguments (the name already matched) into a checked command.
    let parse: @Sendable (ControlArguments) throws -> ControlCommand

    init(_ name: String, _ arguments: String = "", by answeredBy: ControlAnswerer, example: [ControlValue] = [],
         parse: @escaping @Sendable (ControlArguments) throws -> ControlCommand) {
        self.name = name
        self.arguments = arguments
        self.answeredBy = answeredBy
        self.example = example
        self.parse = parse
    }

    /// `name arguments`, as `commands` lists it.
    public var usage: String { arguments.isEmpty ? name : "\(name) \(arguments)" }
}

/// The part of kiosk that decides a command's reply.
public enum ControlAnswerer: String, Sendable, CaseIterable {
    /// The engine (a `PlayerRequest`): playback, playlist, layers.
    case player
    /// The snapshot of the player's properties (`get`).
    case properties
    /// The connection the line came on (`observe`, `unobserve`): a socket's only.
    case connection
    /// kiosk.conf's items expanded into a new playlist (`load`).
    case playlist
    /// The schedule, or the player where there is none (`display_power`).
    case schedule
    /// kiosk.conf's triggers.
    case triggers
    /// Content sync.
    case contentSync = "content_sync"
    /// kiosk.conf's overrides (`OverrideDesk`).
    case overrides
    /// kiosk.conf's `alerts.cap` (`CapPoller`).
    case alerts
    /// The presenter's buffers (`screenshot`).
    case screen
    /// This table.
    case table
}

public enum ControlCommandTable {
    /// Every command, in the order `commands` lists them.
    public static let all: [ControlCommandSpec] = [
        ControlCommandSpec("play", by: .player) { try $0.none(.request(.play)) },
        ControlCommandSpec("pause", by: .player) { try $0.none(.request(.pause)) },
        ControlCommandSpec("toggle", by: .player) { try $0.none(.request(.togglePlayPause)) },
        ControlCommandSpec("seek", "<seconds> [absolute|relative]", by: .player, example: [.integer(1)]) { try $0.seek() },
        ControlCommandSpec("next", by: .player) { try $0.none(.request(.nextItem)) },
        ControlCommandSpec("previous", by: .player) { try $0.none(.request(.previousItem)) },
        ControlCommandSpec("goto", "<index> [<seconds>]", by: .player, example: [.integer(0)]) { try $0.goto() },
        // The operator's "show item 3 now, then go back": the item playing resumes where it was.
        ControlCommandSpec("play_item_once", "<index> [now|seam]", by: .player, example: [.integer(0)]) { try $0.playItemOnce() },
        // Looked up when it is carried out: the names are kiosk.conf's, which a reload changes.
        ControlCommandSpec("trigger", "<name>", by: .triggers, example: [.string("welcome")]) { reader in
            try reader.expectCount(1...1)
            return .trigger(name: try reader.nonEmptyString(0, "name"))
        },
        ControlCommandSpec("layer", "show|hide <name> | text <name> <text>", by: .player,
                           example: [.string("hide"), .string("logo")]) { try $0.layer() },
        ControlCommandSpec("load", "<source>...", by: .playlist, example: [.string("a.mp4")]) { try $0.load() },
        ControlCommandSpec("volume", "<0-100>", by: .player, example: [.integer(5)]) { reader in
            try reader.expectCount(1...1)
            let volume = try reader.integer(0, "volume")
            guard (0...100).contains(volume) else { throw reader.error("volume \(volume) is out of range: use 0...100") }
            return .request(.setVolume(volume))
        },
        ControlCommandSpec("mute", "[true|false|toggle]", by: .player) { try $0.mute() },
        ControlCommandSpec("rate", "<0.25-4>", by: .player, example: [.integer(1)]) { reader in
            try reader.expectCount(1...1)
            let value = try reader.number(0, "rate")
            let rate = PlaybackRate.fraction(fromDecimal: value)
            guard PlaybackRate.isPlayable(rate) else { throw reader.error("rate \(value) is out of range: use 0.25...4") }
            // A speed, as mpv's: it does not unpause; play() resumes at it.
            return .request(.setSpeed(rate))
        },
        ControlCommandSpec("get", "<property>", by: .properties, example: [.string("time")]) { .get(try $0.property()) },
        ControlCommandSpec("observe", "<property>", by: .connection, example: [.string("time")]) { .observe(try $0.property()) },
        ControlCommandSpec("unobserve", "<property>", by: .connection, example: [.string("time")]) { .unobserve(try $0.property()) },
        ControlCommandSpec("display_power", "on|off|auto", by: .schedule, example: [.string("on")]) { try $0.displayPower() },
        ControlCommandSpec("screenshot", "<absolute path.png>", by: .screen, example: [.string("/tmp/kiosk-table.png")]) {
            try $0.screenshot()
        },
        ControlCommandSpec("sync_now", by: .contentSync) { try $0.none(.syncNow) },
        // Looked up when carried out, like `trigger`: the names are kiosk.conf's.
        ControlCommandSpec("override", "<name>", by: .overrides, example: [.string("evacuate")]) { reader in
            try reader.expectCount(1...1)
            return .override(name: try reader.nonEmptyString(0, "name"))
        },
        ControlCommandSpec("override_text", "<name> <text> [priority] [seconds]", by: .overrides,
                           example: [.string("notice"), .string("Closed at 5 today")]) { try $0.overrideText() },
        ControlCommandSpec("override_cancel", "[name]", by: .overrides, example: [.string("evacuate")]) { reader in
            try reader.expectCount(0...1)
            return .overrideCancel(name: reader.arguments.isEmpty ? nil : try reader.nonEmptyString(0, "name"))
        },
        ControlCommandSpec("cap", "<CAP XML>", by: .alerts, example: [.string("<alert/>")]) { reader in
            try reader.expectCount(1...1)
            return .cap(document: try reader.nonEmptyString(0, "CAP XML"))
        },
        ControlCommandSpec("commands", by: .table) { try $0.none(.commands) },
    ]

    /// Other words for a command (mpv's `help`).
    static let aliases = ["help": "commands"]

    private static let byName: [String: ControlCommandSpec] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    public static func spec(named name: String) -> ControlCommandSpec? { byName[aliases[name] ?? name] }

    /// Reads `name` with its `arguments`; a refusal names the command, the argument and what
    /// was expected.
    public static func parse(_ name: String, _ arguments: [ControlValue]) throws(ControlRequestError) -> ControlCommand {
        guard let spec = spec(named: name) else {
            throw ControlRequestError("unknown command \(ControlArguments.said(name)): use one of \(all.map(\.name).joined(separator: ", "))")
        }
        do {
            return try spec.parse(ControlArguments(command: name, usage: spec.arguments, arguments: arguments))
        } catch let error as ControlRequestError {
            throw error
        } catch {
            throw ControlRequestError("\(name): \(error)")
        }
    }
}
