import Foundation
import KioskControl
import KioskCore
import KioskFetch
import Logging

/// kiosk.conf's `alerts.cap` for `kiosk run` (#35): a thread that fetches the CAP feed every
/// `interval` (If-None-Match: a 304 costs nothing), reads it with `BoundedXML` and
/// `CapAlert.read` (an entry that only links to its alert has that fetched too, at most
/// `maxLinks` a poll), and hands the alerts to `CapAlertBook`, whose actions become overrides
/// on the `OverrideDesk` (the configured override, one per alert, by its key) and the alert's
/// words in `text_layer`. A feed that cannot be fetched or read is one line per new reason; the
/// alerts on stay on until they end. The book (what was acted on) is kept in `statePath`. An
/// alert or feed pushed through the command table (`cap XML`: a webhook, `kiosk ctl cap FILE`)
/// is read at once and acted on by the same thread, woken for it.
package final class CapPoller: AlertControl, @unchecked Sendable {
    // Safe to share: the thread is; `pushed` is guarded by `pushLock`; the rest is the poll
    // thread's (or a test's, with no thread).
    private let thread = StoppableThread(name: "kiosk-cap")
    private let config: CapFeedConfig
    private let desk: OverrideDesk
    private let sink: any PlayerRequestSink
    private let fetch: FeedFetch
    private let statePath: String?
    private let logger: Logger
    private var book: CapAlertBook
    private var etag: String?
    private var said: Set<String> = []
    /// The alerts shown and when each ends (seconds since 1970): the text layer shows the newest.
    private var shown: [(key: CapAlert.Key, text: String, expires: Int64)] = []
    /// Linked alerts already read: a CAP message never changes (a new one has a new identifier),
    /// so a feed that links the same alerts poll after poll costs one fetch each, not one a poll.
    private var readLinks: Set<String> = []
    static let maxLinks = 20
    /// Overrides an operator cancelled, taken from the desk between polls (the poll thread's).
    private var cancelledMeanwhile: [String] = []
    private let pushLock = NSLock()
    private var pushed: [CapAlert] = []

    package init(_ config: CapFeedConfig, desk: OverrideDesk, sink: any PlayerRequestSink, fetch: @escaping FeedFetch = SmallHTTPGet.feed,
                 statePath: String?, logger: Logger) {
        self.config = config
        self.desk = desk
        self.sink = sink
        self.fetch = fetch
        self.statePath = statePath
        self.logger = logger
        book = CapAlertBook(filter: config.filter)
        if let statePath, let text = try? String(contentsOfFile: statePath, encoding: .utf8) {
            let lines = text.split(separator: "\n").map(String.init)
            book.restore(lines)
            shown = Self.restoredWords(lines, active: book.active, now: Int64(Date().timeIntervalSince1970))
        }
    }

    package func start() {
        if let layer = config.textLayer { sink.send(.layer(name: layer, .hide)) }
        // The words of an alert on at the last stop come back with its override (they stayed hidden).
        showText()
        desk.whenCancelled { [thread] in thread.nudge() }
        thread.start { [self] in
            while !thread.shouldStop {
                poll()
                // Between polls, what is pushed is taken at once: `take` wakes the thread.
                let start = MonotonicClock().now()
                while !thread.shouldStop {
                    let left = config.interval.seconds - (MonotonicClock().now() - start)
                    if left <= 0 { break }
                    thread.sleep(seconds: left)
                    takePushed()
                }
            }
        }
    }

    /// `cap XML` (AlertControl): a pushed alert or feed, read now (why it cannot be read is the
    /// refusal) and acted on by the poll thread. A pushed feed's links are not fetched: push the
    /// alerts themselves.
    package func take(_ document: String) -> String? {
        let read: CapAlert.Document
        do {
            read = CapAlert.read(try BoundedXML.parse(Array(document.utf8)))
        } catch {
            return "not a CAP document: \(error)"
        }
        guard !read.alerts.isEmpty else {
            return read.problems.isEmpty ? "no CAP alert in it" : read.problems.joined(separator: "; ")
        }
        for problem in read.problems { logger.warning("alerts: pushed: \(problem)") }
        pushLock.withLock { pushed += read.alerts }
        thread.nudge()
        return nil
    }

    /// Pushed alerts waiting, through the book (the poll thread; tests call it directly).
    package func takePushed() {
        cancelledMeanwhile += desk.takeCancelledAlerts()   // words leave at once too (the desk wakes the thread)
        guard pushLock.withLock({ !pushed.isEmpty }) || !cancelledMeanwhile.isEmpty else { return }
        act(on: [])
    }

    /// Waits for a poll under way (a fetch takes at most 10 s; links are not begun after a stop).
    package func stop() { thread.stop(timeout: 12) }

    /// One look at the feed (the tests call it directly).
    package func poll() {
        var alerts: [CapAlert] = []
        switch fetch(config.url, etag, BoundedXML.maxBytes, 10) {
        case .notModified:
            break
        case .failed(let reason):
            sayOnce("alerts: \(NetworkURL.masked(config.url)): \(reason); the alerts on stay on until they end")
        case .body(let bytes, let newTag):
            etag = newTag
            guard let document = read(bytes, from: config.url) else { break }
            alerts = document.alerts
            for link in document.links.filter({ !readLinks.contains($0) }).prefix(Self.maxLinks) where !thread.shouldStop {
                if case .body(let linked, _) = fetch(link, nil, BoundedXML.maxBytes, 10), let one = read(linked, from: link) {
                    alerts += one.alerts
                    if readLinks.count >= 10_000 { readLinks = [] }
                    readLinks.insert(link)
                }
            }
        }
        act(on: alerts)
    }

    /// The alerts fetched, and any pushed meanwhile, through the book: shown, ended, kept.
    private func act(on fetched: [CapAlert]) {
        let now = Int64(Date().timeIntervalSince1970)
        let taken = pushLock.withLock { () -> [CapAlert] in
            defer { pushed = [] }
            return pushed
        }
        for action in book.take(taken + fetched, now: now) { carryOut(action) }
        // An alert an operator cancelled (`override_cancel`) is over: its words leave too.
        let cancelled = Set(cancelledMeanwhile + desk.takeCancelledAlerts())
        cancelledMeanwhile = []
        for alert in shown where cancelled.contains(alert.key.description) { book.ended(alert.key) }
        shown.removeAll { $0.expires <= now || cancelled.contains($0.key.description) }
        showText()
        save()
    }

    private func read(_ bytes: [UInt8], from url: String) -> CapAlert.Document? {
        do {
            let document = CapAlert.read(try BoundedXML.parse(bytes))
            for problem in document.problems { sayOnce("alerts: \(NetworkURL.masked(url)): \(problem)") }
            return document
        } catch {
            sayOnce("alerts: \(NetworkURL.masked(url)): \(error)")
            return nil
        }
    }

    private func carryOut(_ action: CapAlertBook.Action) {
        switch action {
        case .show(let notice):
            logger.notice("alerts: CAP alert \(notice.key) (\(notice.severity.rawValue)\(notice.event.map { ", \(quotedForMessage($0))" } ?? "")) on screen")
            if let refusal = desk.startAlert(notice.key.description, override: config.override, expires: Double(notice.expires),
                                             replacing: notice.replaces.map(\.description)) {
                logger.warning("alerts: CAP alert \(notice.key): \(refusal)")
            }
            shown.removeAll { notice.replaces.contains($0.key) }
            let words = [notice.headline ?? notice.event, notice.text].compactMap { $0 }.joined(separator: ": ")
            shown.append((notice.key, words.isEmpty ? "Alert" : words, notice.expires))
        case .end(let key, let why):
            desk.endAlert(key.description, why: why)
            shown.removeAll { $0.key == key }
        case .note(let line):
            logger.notice("alerts: \(line)")
        }
    }

    private var textOnScreen: String?

    /// The newest alert's words in the text layer; hidden when none is on.
    private func showText() {
        guard let layer = config.textLayer else { return }
        let text = shown.last?.text
        guard text != textOnScreen else { return }
        textOnScreen = text
        if let text {
            sink.send(.layer(name: layer, .text(text)))
            sink.send(.layer(name: layer, .show))
        } else {
            sink.send(.layer(name: layer, .hide))
        }
    }

    private func sayOnce(_ line: String) {
        guard said.insert(line).inserted else { return }
        if said.count > 200 { said = [line] }
        logger.warning("\(line)")
    }

    private var saved: [String]?

    /// Written when it changed (a flash card is not worn by a quiet feed polled all year).
    private func save() {
        let lines = book.exported + shown.map { "shown\t\($0.key)\t\($0.expires)\t\(Self.escaped($0.text))" }
        guard let statePath, lines != saved else { return }
        do {
            try AtomicFile.write(lines.joined(separator: "\n"), to: statePath)
            saved = lines
        } catch {
            sayOnce("alerts: cannot keep which alerts were shown across a restart: \(error)")
        }
    }

    /// The words shown, as `save` writes them after the book's lines ("shown", key, end, words
    /// with %, tab and line breaks escaped): those of alerts still active and not yet over.
    static func restoredWords(_ lines: [String], active: Set<CapAlert.Key>, now: Int64) -> [(key: CapAlert.Key, text: String, expires: Int64)] {
        lines.compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 4, fields[0] == "shown", let key = CapAlert.Key(reference: fields[1]), active.contains(key),
                  let expires = Int64(fields[2]), expires > now, let text = String(fields[3]).removingPercentEncoding else { return nil }
            return (key, text, expires)
        }
    }

    static func escaped(_ text: String) -> String { text.escapedForRecordLine }
}
