import Foundation
import KioskCore
import KioskHTTP

/// The web page's playlist (#36): `GET /api/v1/playlist` lists it with its tag, `PUT` replaces
/// it when `If-Match` names the tag still current (two browsers never overwrite each other), after
/// the same checks as `kiosk check` (kiosk.conf read with the new list; an error is the same
/// message and nothing changes). Written to `web.playlist_file` atomically, never to kiosk.conf,
/// then applied through the live reload's path.
struct WebPlaylistEditor: Sendable {
    let configPath: String
    let pageFile: String?
    /// Runs the live reload (ConfigReloader, `.pageEdited`).
    let apply: @Sendable () -> Void

    func list() -> HTTPResponse {
        if let pageFile, let data = FileManager.default.contents(atPath: pageFile) {
            guard let entries = PagePlaylist.entries(ofText: String(decoding: data, as: UTF8.self)) else {
                return WebReply.json(.object([("error", .string("\(pageFile) is not a list of items the page can show; fix it or remove it"))]),
                                     status: 500)
            }
            return answer(entries, source: "page", tag: PagePlaylist.tag(of: data))
        }
        do {
            let config = try ConfigLoader.load(path: configPath)
            return answer(PagePlaylist.entries(of: config.items), source: "kiosk.conf", tag: PagePlaylist.tag(of: []))
        } catch {
            return WebReply.json(.object([("error", .string("\(error)"))]), status: 500)
        }
    }

    func replace(body: [UInt8], ifMatch: String?) -> HTTPResponse {
        guard let pageFile else {
            return WebReply.json(.object([("error", .string("kiosk.conf names no web.playlist_file: the playlist is edited in kiosk.conf"))]),
                                 status: 409)
        }
        guard let ifMatch else {
            return WebReply.json(.object([("error", .string("If-Match is required: the tag the list was read with"))]), status: 428)
        }
        let current = FileManager.default.contents(atPath: pageFile).map { [UInt8]($0) } ?? []
        guard ifMatch == PagePlaylist.tag(of: current) else {
            return WebReply.json(.object([("error", .string("the playlist was changed elsewhere since it was read: reload it and edit again"))]),
                                 status: 412)
        }
        guard let value = ControlValue.parse(String(decoding: body, as: UTF8.self)) else {
            return WebReply.json(.object([("error", .string("the body is not JSON"))]), status: 400)
        }
        let entries: [PagePlaylistEntry]
        switch PagePlaylist.entries(from: value) {
        case .success(let checked): entries = checked
        case .failure(let error): return WebReply.json(.object([("error", .string(error.description))]), status: 422)
        }
        let text = PagePlaylist.text(entries)
        do throws(ConfigError) {
            // kiosk.conf as it is, with this list: what the reload would read.
            let config = try ConfigLoader.load(path: configPath)
            let directory = PathText.normalize(PathText.resolve(configPath, against: FileManager.default.currentDirectoryPath) + "/..")
            _ = try PagePlaylist.merged(into: config, fileName: pageFile, text: text, baseDirectory: directory)
        } catch {
            return WebReply.json(.object([("error", .string(error.diagnostics.map { "\($0)" }.joined(separator: "\n")))]), status: 422)
        }
        do {
            try AtomicFile.write(text, to: pageFile, mode: 0o644)
        } catch {
            return WebReply.json(.object([("error", .string("cannot write \(pageFile): \(error)"))]), status: 500)
        }
        apply()
        return answer(entries, source: "page", tag: PagePlaylist.tag(of: Array(text.utf8)))
    }

    private func answer(_ entries: [PagePlaylistEntry], source: String, tag: String) -> HTTPResponse {
        var response = WebReply.json(.object([("source", .string(source)), ("etag", .string(tag)), ("editable", .bool(pageFile != nil)),
                                              ("items", .array(entries.map(\.controlValue)))]))
        response.headers.append(("ETag", tag))
        return response
    }
}

/// Answers of the web page's API.
enum WebReply {
    static func json(_ value: ControlValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, text: value.json + "\n", contentType: "application/json")
    }
}
