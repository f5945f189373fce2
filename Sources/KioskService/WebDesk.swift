import Foundation
import KioskControl
import KioskCore
import KioskHTTP

/// What the web page's server answers (#36): the gate (Host, Origin), the login and its
/// sessions, then the route. The commands are the control socket's own lines, carried out by a
/// `ControlDispatcher` with the same services as the socket and MQTT, so all three give the same
/// replies. Called on the server's one thread; the lock keeps it safe if that ever changes.
final class WebDesk: @unchecked Sendable {
    // Safe to share: everything mutable is used with `lock` held.
    private let lock = NSLock()
    private let gate: WebGate
    private var sessions = WebSessions()
    private var throttle = LoginThrottle()
    private let dispatcher: ControlDispatcher
    private let password: WebPassword
    /// The bearer token scripts send (`Authorization: Bearer ...`), from the state directory.
    private let token: String
    /// Whether the page is served over HTTPS itself (cookies marked Secure).
    private let tls: Bool
    private let screenshotPath: String
    private let player: any ControlledPlayer
    private let page: WebPageEditor
    private let uploads: WebUploads?
    private let reports: WebReports
    private var lastScreenshot: (taken: Int64, png: [UInt8])?
    /// Told of each login that went through (`web.splash_layer` hides the password then).
    private let loggedIn: @Sendable () -> Void

    init(gate: WebGate, services: Services, password: WebPassword, token: String, tls: Bool, screenshotPath: String,
         page: WebPageEditor, uploads: WebUploads?, reports: WebReports, loggedIn: @escaping @Sendable () -> Void) {
        self.loggedIn = loggedIn
        self.reports = reports
        self.page = page
        self.uploads = uploads
        self.gate = gate
        self.dispatcher = ControlDispatcher(services: services)
        self.player = services.player
        self.password = password
        self.token = token
        self.tls = tls
        self.screenshotPath = screenshotPath
    }

    static let cookieName = "kiosk_session"

    /// Monotonic seconds: a clock set back or forward does not end sessions or throttles.
    private static var now: Int64 { Int64(ProcessInfo.processInfo.systemUptime) }

    func answer(_ request: HTTPRequest) -> HTTPResponse {
        lock.lock()
        defer { lock.unlock() }
        var response = route(request)
        response.headers += WebPages.securityHeaders
        return response
    }

    private enum Caller {
        case browser(WebSessions.Session)
        case script
    }

    /// A PATCH of an upload streams its body (WebUploads); every other request is read whole.
    /// The same gate as `answer`'s comes first, from the headers alone.
    func plan(_ request: HTTPRequest) -> HTTPBodyPlan {
        guard request.method == "PATCH", WebRoute(path: request.path) == .upload else { return .buffer }
        lock.lock()
        defer { lock.unlock() }
        switch admit(request) {
        case .failure(let refusal):
            var response = refusal.response
            response.headers += WebPages.securityHeaders
            return .answer(response)
        case .success:
            guard let uploads, let id = WebRoute.uploadID(in: request.path) else {
                return .answer(Self.refused(409, "kiosk.conf names no web.upload_dir: the page takes no uploads"))
            }
            return uploads.append(id, offset: request.header("Upload-Offset"))
        }
    }

    private struct Refusal: Error {
        let response: HTTPResponse
    }

    /// The gate, in order: the Host, the route and method, where an unsafe request comes from,
    /// the login (public routes need none), and a browser's CSRF token on unsafe requests.
    private func admit(_ request: HTTPRequest) -> Result<(WebRoute, Caller?), Refusal> {
        if let refusal = gate.hostRefusal(request.header("Host")) { return .failure(Refusal(response: Self.refused(421, refusal))) }
        let caller = self.caller(of: request)
        guard let route = WebRoute(path: request.path) else {
            // Without a login nothing says which paths exist.
            if caller == nil { return .failure(Refusal(response: Self.loginRequired(api: request.path.hasPrefix("/api/")))) }
            return .failure(Refusal(response: Self.refused(404, "no such page: \(request.path)")))
        }
        guard route.methods.contains(request.method) else {
            return .failure(Refusal(response: HTTPResponse(status: 405, text: "\(request.method) is not answered here\n",
                                                           headers: [("Allow", route.methods.joined(separator: ", "))])))
        }
        if let refusal = gate.originRefusal(method: request.method, host: request.header("Host"), origin: request.header("Origin"),
                                            referer: request.header("Referer"), fetchSite: request.header("Sec-Fetch-Site"),
                                            mayOmit: { if case .script = caller { true } else { false } }()) {
            return .failure(Refusal(response: Self.refused(403, refusal)))
        }
        if route.isPublic { return .success((route, caller)) }
        guard let caller else { return .failure(Refusal(response: Self.loginRequired(api: route.isAPI))) }
        if case .browser(let session) = caller, !WebGate.isSafe(request.method) {
            let sent = request.header("X-CSRF-Token") ?? WebForm.fields(request.body)["csrf"] ?? ""
            guard WebSecret.matches(sent, session.csrf) else {
                return .failure(Refusal(response: Self.refused(403, "the page's CSRF token is missing or wrong: reload the page")))
            }
        }
        return .success((route, caller))
    }

    private static func loginRequired(api: Bool) -> HTTPResponse {
        guard api else { return redirect("/login") }
        return HTTPResponse(status: 401, text: ControlValue.object([("error", .string("login required"))]).json + "\n",
                            contentType: "application/json", headers: [("WWW-Authenticate", "Bearer")])
    }

    private func route(_ request: HTTPRequest) -> HTTPResponse {
        let route: WebRoute, caller: Caller?
        switch admit(request) {
        case .failure(let refusal): return refusal.response
        case .success(let admitted): (route, caller) = admitted
        }
        if route.isPublic { return publicRoute(route, request, caller) }
        guard let caller else { return Self.loginRequired(api: route.isAPI) }
        switch route {
        case .console:
            guard case .browser(let session) = caller else { return Self.refused(403, "the page is for a browser's login") }
            return Self.html(WebPages.console(csrf: session.csrf, title: dispatcher.fleetStatus.title))
        case .logout:
            if case .browser(let session) = caller { sessions.close(session.token) }
            return Self.redirect("/login", cookie: "\(Self.cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict")
        case .script:
            return HTTPResponse(status: 200, text: WebAssets.script, contentType: "text/javascript; charset=utf-8")
        case .status:
            return Self.json(dispatcher.fleetStatus.json)
        case .routes:
            let list = WebRoute.allCases.map { route in
                ControlValue.object([("path", .string(route.path)), ("methods", .array(route.methods.map { .string($0) })),
                                     ("login", .bool(!route.isPublic))])
            }
            return Self.json(ControlValue.array(list).json)
        case .command:
            return command(request.body)
        case .screenshot:
            return screenshot()
        case .playlist:
            return request.method == "PUT" ? page.replacePlaylist(body: request.body, ifMatch: request.header("If-Match")) : page.playlist()
        case .scheduleEntries:
            return request.method == "PUT" ? page.replaceSchedule(body: request.body, ifMatch: request.header("If-Match")) : page.schedule()
        case .plays: return reports.playsTable()
        case .playsCSV: return reports.playsCSV()
        case .schedule: return reports.schedule()
        case .log: return WebReports.log(RecentLog.shared)
        case .uploads:
            guard let uploads else { return Self.refused(409, "kiosk.conf names no web.upload_dir: the page takes no uploads") }
            return uploads.begin(request.body)
        case .upload:
            guard let uploads, let id = WebRoute.uploadID(in: request.path) else {
                return Self.refused(409, "kiosk.conf names no web.upload_dir: the page takes no uploads")
            }
            // PATCH streams (`plan`); here only a body-less PATCH (nothing to append) arrives.
            switch request.method {
            case "DELETE": return uploads.cancel(id)
            case "PATCH":
                if case .answer(let response) = uploads.append(id, offset: request.header("Upload-Offset")) { return response }
                return uploads.status(id)
            default: return uploads.status(id)
            }
        case .login, .style:
            return publicRoute(route, request, caller)
        }
    }

    private func caller(of request: HTTPRequest) -> Caller? {
        if let authorization = request.header("Authorization"), authorization.lowercased().hasPrefix("bearer ") {
            return WebSecret.matches(String(authorization.dropFirst(7)), token) ? .script : nil
        }
        guard let cookie = WebForm.cookie(Self.cookieName, in: request.header("Cookie")),
              let session = sessions.session(for: cookie, now: Self.now) else { return nil }
        return .browser(session)
    }

    private func publicRoute(_ route: WebRoute, _ request: HTTPRequest, _ caller: Caller?) -> HTTPResponse {
        if route == .style { return HTTPResponse(status: 200, text: WebAssets.style, contentType: "text/css; charset=utf-8") }
        guard request.method == "POST" else {
            if caller != nil { return Self.redirect("/") }
            return Self.html(WebPages.login())
        }
        let client = request.client.isEmpty ? "unknown" : request.client
        if let wait = throttle.wait(for: client, now: Self.now) {
            return Self.html(WebPages.login(message: "Too many wrong passwords: try again in \(wait) s."), status: 429,
                             headers: [("Retry-After", "\(wait)")])
        }
        let given = WebForm.fields(request.body)["password"] ?? ""
        guard password.matches(given) else {
            throttle.failed(client, now: Self.now)
            return Self.html(WebPages.login(message: "Wrong password."), status: 401)
        }
        throttle.succeeded(client)
        loggedIn()
        var random = SystemRandomNumberGenerator()
        let session = sessions.open(now: Self.now, using: &random)
        let secure = tls || request.header("X-Forwarded-Proto")?.lowercased() == "https"
        return Self.redirect("/", cookie: "\(Self.cookieName)=\(session.token); Path=/; HttpOnly; SameSite=Strict"
                             + (secure ? "; Secure" : ""))
    }

    /// A line of the control vocabulary, as the socket takes it. `screenshot PATH` is the socket's
    /// (a file written where the client says); the page has its own route for the picture.
    private func command(_ body: [UInt8]) -> HTTPResponse {
        let line = String(decoding: body, as: UTF8.self)
        if case .array(let words)? = ControlValue.parse(line)?["command"], words.first == .string("screenshot") {
            return Self.json(ControlMessage.failure("screenshot: over HTTP the picture is GET /api/v1/screenshot", requestID: nil).json,
                             status: 400)
        }
        let reply = dispatcher.reply(to: line)
        let failed: Bool = { if case .string(let error)? = reply["error"] { error != "success" } else { true } }()
        return Self.json(reply.json, status: failed ? 400 : 200)
    }

    /// What the screen shows, as the socket's `screenshot` takes it, at most once a second (a
    /// page left open on several phones costs one encode a second).
    private func screenshot() -> HTTPResponse {
        let now = Self.now
        if let last = lastScreenshot, now - last.taken < 1 { return HTTPResponse(status: 200, contentType: "image/png", body: last.png) }
        do {
            try player.saveScreenshot(to: screenshotPath)
            defer { try? FileManager.default.removeItem(atPath: screenshotPath) }
            let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: screenshotPath)))
            lastScreenshot = (now, png)
            return HTTPResponse(status: 200, contentType: "image/png", body: png)
        } catch {
            return Self.refused(503, "no screenshot now: \(error)")
        }
    }

    private static func refused(_ status: Int, _ reason: String) -> HTTPResponse {
        HTTPResponse(status: status, text: reason + "\n")
    }

    private static func redirect(_ path: String, cookie: String? = nil) -> HTTPResponse {
        HTTPResponse(status: 303, text: "", headers: [("Location", path)] + (cookie.map { [("Set-Cookie", $0)] } ?? []))
    }

    private static func html(_ text: String, status: Int = 200, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, text: text, contentType: "text/html; charset=utf-8", headers: headers)
    }

    private static func json(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, text: text + "\n", contentType: "application/json")
    }
}
