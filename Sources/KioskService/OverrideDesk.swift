import Foundation
import KioskControl
import KioskCore
import Logging

/// kiosk.conf's overrides for `kiosk run` (#35): `override NAME` and `override_cancel [NAME]`
/// from any source of the command table (the socket, MQTT, a trigger's `command:`) come here.
/// The `OverrideBook` decides which one has the screen; each change becomes one request to the
/// player (`showOverride`, `endOverride`) and one event line (`override_started`,
/// `override_ended`). A thread ends overrides whose `duration` has run out. What is held is
/// written to `statePath` at each change and taken back at start, so an override outlives a
/// restart (its expiry in wall-clock time, the one clock that runs on across a reboot).
package final class OverrideDesk: OverrideControl, @unchecked Sendable {
    /// What a held override plays: kiosk.conf's override of that name, or `override_text`'s
    /// card, made when it was asked (kept whole: a reload does not change its words).
    enum Held: Sendable, Equatable {
        case named(String)
        case worded(OverrideSet.Override)
    }

    // Safe to share: everything mutable is touched with `lock` held.
    private let lock = NSCondition()
    private var table: OverrideSet
    private var book = OverrideBook<Held>()
    private var onScreen: String?
    /// Whether the override on screen has a `sound` heard now (the next change stops it).
    private var soundOn = false
    private var stopping = false
    private var worker: WorkerThread?
    private var saveFailure: String?
    /// Overrides an operator cancelled (`override_cancel`), for the alert poller to take its
    /// alerts' words off the screen (`takeCancelledAlerts`).
    private var cancelledAlerts: [String] = []
    private var onCancel: (@Sendable () -> Void)?
    private let sink: any PlayerRequestSink
    private let events: [any ServiceEventObserver]
    private let statePath: String?
    private let logger: Logger

    package init(_ table: OverrideSet, sink: any PlayerRequestSink, events: [any ServiceEventObserver] = [],
                 statePath: String?, logger: Logger) {
        self.table = table
        self.sink = sink
        self.events = events
        self.statePath = statePath
        self.logger = logger
    }

    /// Has the engine open the overrides most likely to be asked for ahead, takes back what was
    /// on at the last stop, then watches expiries.
    package func open() {
        lock.withLock {
            sink.arm(overrides: table.toArm)
            restore()
        }
        worker = WorkerThread.start(name: "kiosk-overrides") { [self] in watchExpiries() }
    }

    package func close() {
        lock.withLock {
            stopping = true
            lock.broadcast()
        }
        worker?.join()
    }

    // MARK: OverrideControl

    package func start(_ name: String) -> String? {
        lock.withLock {
            guard !table.isEmpty else { return "kiosk.conf defines no overrides" }
            guard let override = table.override(named: name) else {
                return "no override '\(quotedForMessage(name))': kiosk.conf defines " + table.names.map { "'\($0)'" }.joined(separator: ", ")
            }
            guard !override.entries.isEmpty else {
                return "override '\(name)' has nothing to play: \(override.problem ?? "no entries")"
            }
            hold(override, as: .named(name))
            return nil
        }
    }

    /// Holds `override` (asked for now, by its name) in the book and carries out what that
    /// changes on screen; `lock` held.
    private func hold(_ override: OverrideSet.Override, as payload: Held) {
        let name = override.name
        let now = Self.monotonic()
        let entry = OverrideBook<Held>.Entry(id: name, priority: override.config.priority,
                                             expires: override.config.duration.map { now + $0.seconds }, payload: payload)
        apply(book.start(entry, at: now), why: "replaced by override '\(name)'")
        if onScreen != name { logger.notice("override '\(name)' waits: a higher one is on screen") }
        lock.broadcast()
    }

    /// At most this many `override_text` cards held at once: a sender flooding names must not
    /// push kiosk.conf's overrides and alerts out of the book, or rewrite a large state file.
    static let wordedLimit = 16

    package func startText(_ name: String, text: String, priority: Int?, seconds: Double?) -> String? {
        lock.withLock {
            let cards = book.entries.filter { if case .worded = $0.payload { $0.id != name } else { false } }
            guard cards.count < Self.wordedLimit else {
                return "\(Self.wordedLimit) override_text cards are held already; end one first (override_cancel NAME)"
            }
            let override: OverrideSet.Override
            switch worded(name, text: text, priority: priority, seconds: seconds) {
            case .success(let made): override = made
            case .failure(let refusal): return refusal.text
            }
            hold(override, as: .worded(override))
            return nil
        }
    }

    struct Refusal: Error { let text: String }

    /// `override_text`'s override: kiosk.conf's text override `name` with these words (its
    /// style, layers, priority and duration unless asked otherwise), or a new card, white on
    /// black, keeping no layer up. Another kind of kiosk.conf override is refused: its name
    /// says what it plays.
    private func worded(_ name: String, text: String, priority: Int?, seconds: Double?) -> Result<OverrideSet.Override, Refusal> {
        var config = OverrideConfig(name: name, content: .items([]), priority: 0,
                                    location: SourceLocation(file: "override_text", line: 0, column: 0))
        var card = TextCard(text: text)
        var item = ItemConfig(source: .card(card), location: config.location)
        if let template = table.override(named: name) {
            guard case .items(let items) = template.config.content, items.count == 1, case .card(let style) = items[0].source else {
                return .failure(Refusal(text: "kiosk.conf's override '\(name)' plays media, not a card: override_text takes "
                                        + "the name of a text: override or a new name"))
            }
            config = template.config
            item = items[0]
            card = style
            card.text = text
        }
        item.source = .card(card)
        config.content = .items([item])
        if let priority { config.priority = priority }
        if let seconds { config.duration = MediaTime(seconds: seconds, timescale: 1000) }
        let entry = PlaylistEntry(media: .card(card), item: item, itemIndex: 0)
        return .success(OverrideSet.Override(config: config, entries: [entry], problem: nil))
    }

    /// What a held override plays now.
    private func playing(_ held: Held) -> OverrideSet.Override? {
        switch held {
        case .named(let name): table.override(named: name)
        case .worded(let override): override
        }
    }

    private static func words(of override: OverrideSet.Override) -> String {
        if case .card(let card)? = override.entries.first?.media { return card.text }
        return ""
    }

    /// An alert (`CapPoller`) puts `override` on screen as `id` (its key) until `expires`
    /// (seconds since 1970) or `endAlert`; nil when it was taken, else why not. An update ends
    /// the alerts it `replacing` in the same turn, after it took their place: the screen goes
    /// from the one to the other, never through the playlist.
    package func startAlert(_ id: String, override name: String, expires: Double, replacing: [String] = []) -> String? {
        lock.withLock {
            let why = replacing.isEmpty ? "replaced by \(id)" : "updated by \(id)"
            guard let override = table.override(named: name), !override.entries.isEmpty else {
                for old in replacing { apply(book.cancel(old), why: why) }
                return "override '\(name)' has nothing to play"
            }
            let now = Self.monotonic()
            let entry = OverrideBook<Held>.Entry(id: id, priority: override.config.priority,
                                                 expires: now + (expires - Date().timeIntervalSince1970), payload: .named(name))
            apply(book.start(entry, at: now), why: why)
            for old in replacing { apply(book.cancel(old), why: why) }
            lock.broadcast()
            return nil
        }
    }

    /// The alert `id` is over (cancelled or updated by its sender).
    package func endAlert(_ id: String, why: String) {
        lock.withLock { apply(book.cancel(id), why: why) }
    }

    /// `override_cancel NAME` ends the override of that name, and also what alerts put on screen
    /// with it (their ids are their CAP keys: `override_cancel evacuate` said "not on" while an
    /// alert played evacuate); without a name, everything.
    package func cancel(_ name: String?) -> String? {
        let (refusal, told) = lock.withLock { () -> (String?, (@Sendable () -> Void)?) in
            let ids = book.entries.filter { entry in name.map { entry.id == $0 || entry.payload == .named($0) } ?? true }.map(\.id)
            guard !ids.isEmpty else { return (name.map { "override '\(quotedForMessage($0))' is not on" } ?? "no override is on", nil) }
            // Every id (the poller knows which are its alerts'), the last hundred when no poller takes them.
            cancelledAlerts = Array((cancelledAlerts + ids).suffix(100))
            apply(book.cancel(ids: Set(ids)), why: "cancelled")
            return (nil, onCancel)
        }
        told?()
        return refusal
    }

    /// `action` runs after each `cancel` that ended something: the alert poller, which sleeps
    /// until its next poll, is woken to take its alerts' words off the screen.
    package func whenCancelled(_ action: @escaping @Sendable () -> Void) {
        lock.withLock { onCancel = action }
    }

    /// The overrides cancelled by an operator since the last call (the alert poller's among them).
    package func takeCancelledAlerts() -> [String] {
        lock.withLock {
            defer { cancelledAlerts = [] }
            return cancelledAlerts
        }
    }

    /// A reload's table: asked-for names look up the new one. An override held that is gone
    /// from kiosk.conf ends; the one on screen plays on with what it plays.
    package func replace(with new: OverrideSet) {
        lock.withLock {
            table = new
            sink.arm(overrides: new.toArm)
            for entry in book.entries {
                guard case .named(let name) = entry.payload, new.override(named: name) == nil else { continue }
                apply(book.cancel(entry.id), why: "gone from kiosk.conf")
            }
        }
    }

    // MARK: Changes

    /// Carries a change of the book out; `lock` held.
    /// `ranItsCourse`: the change is an expiry (proof of play records the override completed).
    private func apply(_ change: OverrideBook<Held>.Change, why: String, ranItsCourse: Bool = false) {
        switch change {
        case .unchanged:
            break
        case .show(let entry):
            if let previous = onScreen { ended(previous, why: why) }
            onScreen = entry.id
            let override = playing(entry.payload)
            sink.send(.showOverride(name: entry.id, entries: override?.entries ?? [], layers: override?.config.layers ?? []))
            // Its sound from now, in place of the last one's; nothing sent when neither has one.
            let sound = override?.config.sound
            if sound != nil || soundOn { sink.send(.soundCue(sound)) }
            soundOn = sound != nil
            let until = entry.expires.map { String(format: "for %.0f s", $0 - Self.monotonic()) } ?? "until cancelled"
            logger.notice("override '\(entry.id)' (priority \(entry.priority)) takes the screen \(until)")
            post(.overrideStarted, entry.id, [("priority", .integer(Int64(entry.priority)))])
        case .resumePlaylist:
            if let previous = onScreen { ended(previous, why: why) }
            onScreen = nil
            sink.send(.endOverride(ranItsCourse: ranItsCourse))
            if soundOn { sink.send(.soundCue(nil)) }
            soundOn = false
            logger.notice("no override left: the playlist comes back")
        }
        save()
    }

    private func ended(_ name: String, why: String) {
        logger.notice("override '\(name)' leaves the screen: \(why)")
        post(.overrideEnded, name, [("reason", .string(why))])
    }

    private func post(_ event: ControlEventName, _ name: String, _ fields: [(String, ControlValue)]) {
        let line = ControlMessage.event(event, item: nil, time: 0, [("name", .string(name))] + fields)
        for observer in events { observer.post(line: line) }
    }

    private func watchExpiries() {
        lock.lock()
        defer { lock.unlock() }
        while !stopping {
            let now = Self.monotonic()
            if let due = book.nextExpiry, due <= now {
                apply(book.expire(at: now), why: "its duration ran out", ranItsCourse: true)
                continue
            }
            let wait = book.nextExpiry.map { min($0 - now, 60) } ?? 60
            _ = lock.wait(until: Date(timeIntervalSinceNow: max(wait, 0.001)))
        }
    }

    // MARK: Kept across a restart

    /// One line per override held: "id<TAB>expiry in wall-clock seconds, or -<TAB>override"
    /// (the id is the override's name, or an alert's key), then, for `override_text`'s, a tab,
    /// its priority, a tab and its words with tab, line break, CR and % escaped as %XX.
    private func save() {
        guard let statePath else { return }
        let wallOffset = Date().timeIntervalSince1970 - Self.monotonic()
        let lines = book.entries.map { entry in
            let expiry = entry.expires.map { String(format: "%.3f", $0 + wallOffset) } ?? "-"
            switch entry.payload {
            case .named(let name): return "\(entry.id)\t\(expiry)\t\(name)\n"
            case .worded(let override):
                return "\(entry.id)\t\(expiry)\t\(override.name)\t\(entry.priority)\t\(Self.escaped(Self.words(of: override)))\n"
            }
        }
        do {
            try AtomicFile.write(lines.joined(), to: statePath)
            saveFailure = nil
        } catch {
            if saveFailure != "\(error)" { logger.warning("overrides: cannot keep what is on across a restart: \(error)") }
            saveFailure = "\(error)"
        }
    }

    private func restore() {
        guard let statePath, let text = try? String(contentsOfFile: statePath, encoding: .utf8) else { return }
        let now = Self.monotonic()
        let wallNow = Date().timeIntervalSince1970
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3 || fields.count == 5 else { continue }
            let expires = fields[1] == "-" ? nil : Double(fields[1]).map { now + ($0 - wallNow) }
            if fields[1] != "-" && expires == nil { continue }
            let id = fields[0]
            let held: Held, priority: Int
            if fields.count == 5 {
                guard let words = Self.unescaped(fields[4]), let asked = Int(fields[3]) else { continue }
                guard case .success(let override) = worded(fields[2], text: words, priority: asked, seconds: nil) else {
                    logger.warning("override '\(id)' was on at the last stop, but kiosk.conf's '\(fields[2])' plays media now: not on again")
                    continue
                }
                held = .worded(override)
                priority = asked
            } else {
                guard let override = table.override(named: fields[2]), !override.entries.isEmpty else { continue }
                held = .named(override.name)
                priority = override.config.priority
            }
            logger.notice("override '\(id)' was on at the last stop: on again")
            let entry = OverrideBook<Held>.Entry(id: id, priority: priority, expires: expires, payload: held)
            apply(book.start(entry, at: now), why: "replaced by override '\(id)'")
        }
    }

    private static func escaped(_ text: String) -> String { text.escapedForRecordLine }

    private static func unescaped(_ text: String) -> String? { text.removingPercentEncoding }

    private static func monotonic() -> Double { MonotonicClock().now() }
}
