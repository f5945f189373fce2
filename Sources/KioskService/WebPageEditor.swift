import Foundation
import KioskCore
import KioskHTTP
import Yams

/// The web page's edits (#36): its playlist and its schedule, kept in `web.page_file`, never in
/// kiosk.conf. `GET /api/v1/playlist` and `/api/v1/schedule/entries` list them with the file's
/// tag; `PUT` replaces one part when `If-Match` names the tag still current (two browsers never
/// overwrite each other), after the same checks as `kiosk check` (kiosk.conf read with the new
/// file; an error is the same message and nothing changes). Written atomically, then applied
/// through the live reload's path. A part the page never saved stays kiosk.conf's.
struct WebPageEditor: Sendable {
    let configPath: String
    let pageFile: String?
    /// Runs the live reload (ConfigReloader, `.pageEdited`).
    let apply: @Sendable () -> Void

    private struct Current {
        var items: [PagePlaylistEntry]?
        var schedule: PageSchedule?
        var tag: String
    }

    private struct Refusal: Error {
        let response: HTTPResponse
    }

    private func current() -> Result<Current, Refusal> {
        guard let pageFile, let data = FileManager.default.contents(atPath: pageFile) else {
            return .success(Current(tag: PagePlaylist.tag(of: [])))
        }
        guard let contents = PagePlaylist.contents(ofText: String(decoding: data, as: UTF8.self), syncDirectory: syncDirectory()) else {
            return .failure(Refusal(response: WebReply.error(500, "\(pageFile) is not a file the page can show; fix it or remove it")))
        }
        return .success(Current(items: contents.items, schedule: contents.schedule, tag: PagePlaylist.tag(of: data)))
    }

    /// `GET /api/v1/playlist`: the page's list, else kiosk.conf's.
    func playlist() -> HTTPResponse {
        switch current() {
        case .failure(let refusal): return refusal.response
        case .success(let now):
            if let items = now.items { return answer(.array(items.map(\.controlValue)), key: "items", source: "page", tag: now.tag) }
            do {
                return answer(.array(try configEntries().map(\.controlValue)), key: "items", source: "kiosk.conf", tag: now.tag)
            } catch {
                return WebReply.error(500, "\(error)")
            }
        }
    }

    /// kiosk.conf's default playlist as the page shows it, with the options it does not edit.
    private func configEntries() throws(ConfigError) -> [PagePlaylistEntry] {
        let config = try ConfigLoader.load(path: configPath)
        let text = (try? String(contentsOfFile: configPath, encoding: .utf8)) ?? ""
        return PagePlaylist.entries(of: config.items, kept: PageItemOptions.keptPerItem(ofConfigText: text))
    }

    /// The content sync store kiosk.conf names (a page file's `sync: true` entry shows it).
    private func syncDirectory() -> String {
        (try? ConfigLoader.load(path: configPath))?.sync.content.directory ?? ContentSyncConfig.defaultDirectory
    }

    /// `GET /api/v1/schedule/entries`: the page's entries, inserts and screen windows, else
    /// kiosk.conf's as written (its `display.power` also while the page has set none).
    func schedule() -> HTTPResponse {
        switch current() {
        case .failure(let refusal): return refusal.response
        case .success(let now):
            let text = (try? String(contentsOfFile: configPath, encoding: .utf8)) ?? ""
            let map = (try? Yams.compose(yaml: text))??.mapping
            let written = PageSchedule.read(map?["schedule"], power: map?["display"]?.mapping?["power"]) ?? PageSchedule()
            // Each part from where it is in force: the page's file, else kiosk.conf.
            var shown = written
            let page = now.schedule
            if let page, page.scheduled {
                shown.entries = page.entries
                shown.inserts = page.inserts
            }
            shown.power = page?.power ?? written.power ?? []
            shown.scheduled = true
            return answer(shown.controlValue, key: "schedule", source: page?.scheduled == true ? "page" : "kiosk.conf", tag: now.tag,
                          extra: [("power_source", .string(page?.power != nil ? "page" : "kiosk.conf"))])
        }
    }

    func replacePlaylist(body: [UInt8], ifMatch: String?) -> HTTPResponse {
        replace(body: body, ifMatch: ifMatch) { value, now in
            switch PagePlaylist.entries(from: value) {
            case .success(let items):
                // The options the page does not edit stay with their entries (a save dropped them).
                let before = now.items ?? ((try? configEntries()) ?? [])
                return .success(Current(items: PageItemOptions.carrying(items, from: before), schedule: now.schedule, tag: now.tag))
            case .failure(let error): return .failure(error)
            }
        }
    }

    func replaceSchedule(body: [UInt8], ifMatch: String?) -> HTTPResponse {
        replace(body: body, ifMatch: ifMatch) { value, now in
            switch PageSchedule.from(value) {
            case .success(var schedule):
                // No "power" (a client of the first API): the windows the file had stay.
                if schedule.power == nil { schedule.power = now.schedule?.power }
                return .success(Current(items: now.items, schedule: schedule, tag: now.tag))
            case .failure(let error): return .failure(error)
            }
        }
    }

    private func replace(body: [UInt8], ifMatch: String?,
                         edit: (ControlValue, Current) -> Result<Current, PagePlaylistError>) -> HTTPResponse {
        guard let pageFile else {
            return WebReply.error(409, "kiosk.conf names no web.page_file: the playlist and schedule are edited in kiosk.conf")
        }
        guard let ifMatch else { return WebReply.error(428, "If-Match is required: the tag the list was read with") }
        let now: Current
        switch current() {
        case .failure(let refusal): return refusal.response
        case .success(let read): now = read
        }
        guard ifMatch == now.tag else {
            return WebReply.error(412, "the page's file was changed elsewhere since it was read: reload it and edit again")
        }
        guard let value = ControlValue.parse(String(decoding: body, as: UTF8.self)) else { return WebReply.error(400, "the body is not JSON") }
        let next: Current
        switch edit(value, now) {
        case .success(let edited): next = edited
        case .failure(let error): return WebReply.error(422, error.description)
        }
        let text = PagePlaylist.text(next.items, schedule: next.schedule)
        do throws(ConfigError) {
            // kiosk.conf as it is, with this file: what the reload would read.
            let config = try ConfigLoader.parse(text: try Self.configText(configPath), fileName: configPath,
                                                baseDirectory: Self.directory(of: configPath))
            _ = try PagePlaylist.merged(into: config, fileName: pageFile, text: text, baseDirectory: Self.directory(of: configPath))
        } catch {
            return WebReply.error(422, error.diagnostics.map { "\($0)" }.joined(separator: "\n"))
        }
        do {
            try AtomicFile.write(text, to: pageFile, mode: 0o644)
        } catch {
            return WebReply.error(500, "cannot write \(pageFile): \(error)")
        }
        apply()
        let tag = PagePlaylist.tag(of: Array(text.utf8))
        return value["items"] != nil
            ? answer(.array((next.items ?? []).map(\.controlValue)), key: "items", source: "page", tag: tag)
            : schedule()   // as GET gives it: each part from where it is in force
    }

    private static func configText(_ path: String) throws(ConfigError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(diagnostics: [ConfigDiagnostic(file: path, line: 0, column: 0, message: "cannot read it")])
        }
        return String(decoding: data, as: UTF8.self)
    }

    private static func directory(of path: String) -> String {
        PathText.normalize(PathText.resolve(path, against: FileManager.default.currentDirectoryPath) + "/..")
    }

    private func answer(_ value: ControlValue, key: String, source: String, tag: String,
                        extra: [(String, ControlValue)] = []) -> HTTPResponse {
        var response = WebReply.json(.object([("source", .string(source)), ("etag", .string(tag)), ("editable", .bool(pageFile != nil)),
                                              (key, value)] + extra))
        response.headers.append(("ETag", tag))
        return response
    }

}

/// Answers of the web page's API.
enum WebReply {
    static func json(_ value: ControlValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, text: value.json + "\n", contentType: "application/json")
    }

    /// A refusal: `{"error": reason}`, as the socket's replies say why.
    static func error(_ status: Int, _ reason: String) -> HTTPResponse {
        json(.object([("error", .string(reason))]), status: status)
    }

    /// A body past the server's limit, refused in the API's form; the connection closes, as the
    /// rest of the body is not read.
    @Sendable static func tooLarge(_ limit: Int) -> HTTPResponse {
        var response = error(413, HTTPServer.tooLargeReason(limit))
        response.headers.append(("Connection", "close"))
        return response
    }
}
