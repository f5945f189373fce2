import Testing
@testable import KioskCore
@testable import KioskPolicy

/// The web page's pure guards (#36): Host and Origin, sessions, the login throttle, forms.
@Suite("The web page's gate, sessions and throttle")
struct WebGuardTests {
    let gate = WebGate(allowedNames: ["Lobby-1.local"])

    @Test func hostsThatNoRebindingCanUseAreTaken() {
        for host in ["127.0.0.1:8080", "192.168.1.20", "[::1]:8080", "[fe80::1]", "localhost:8080", "LOCALHOST", "lobby-1.local:8080"] {
            #expect(gate.hostRefusal(host) == nil, "\(host)")
        }
    }

    @Test func otherNamesAndNonsenseAreRefused() {
        for host in ["evil.example", "evil.example:8080", "127.0.0.1.evil.example", "lobby-1.local.evil", "", "a b", "x:y", "[::1", "1.2.3.4:"] {
            #expect(gate.hostRefusal(host) != nil, "\(host)")
        }
        #expect(gate.hostRefusal(nil) == "the request has no Host header")
        #expect(gate.hostRefusal("evil.example")?.contains("'evil.example' is not one this box answers to") == true)
    }

    @Test func anUnsafeRequestMustComeFromThisBoxsPage() {
        let host = "127.0.0.1:8080"
        #expect(gate.originRefusal(method: "POST", host: host, origin: "http://127.0.0.1:8080", referer: nil, mayOmit: false) == nil)
        // Behind a TLS proxy that keeps Host: the scheme differs, the authority does not.
        #expect(gate.originRefusal(method: "POST", host: "signage.example.com", origin: "https://signage.example.com",
                                   referer: nil, mayOmit: false) == nil)
        #expect(gate.originRefusal(method: "POST", host: host, origin: nil, referer: "http://127.0.0.1:8080/", mayOmit: false) == nil)
        #expect(gate.originRefusal(method: "POST", host: host, origin: "http://evil.example", referer: nil, mayOmit: false) != nil)
        #expect(gate.originRefusal(method: "POST", host: host, origin: "http://127.0.0.1:9999", referer: nil, mayOmit: false) != nil)
        #expect(gate.originRefusal(method: "POST", host: host, origin: "null", referer: nil, mayOmit: false) != nil)
        #expect(gate.originRefusal(method: "POST", host: host, origin: "http://user@127.0.0.1:8080", referer: nil, mayOmit: false) != nil)
        #expect(gate.originRefusal(method: "POST", host: host, origin: nil, referer: nil, mayOmit: false) != nil)
        // A script with its token sends no Origin; a browser saying cross-site is refused anyway.
        #expect(gate.originRefusal(method: "POST", host: host, origin: nil, referer: nil, mayOmit: true) == nil)
        #expect(gate.originRefusal(method: "POST", host: host, origin: "http://127.0.0.1:8080", referer: nil,
                                   fetchSite: "cross-site", mayOmit: true) != nil)
        #expect(gate.originRefusal(method: "GET", host: host, origin: "http://evil.example", referer: nil, mayOmit: false) == nil)
    }

    @Test func sessionsAreRandomExpireAndAreBounded() {
        var sessions = WebSessions()
        var random = SystemRandomNumberGenerator()
        let first = sessions.open(now: 0, using: &random)
        #expect(first.token.count == 64 && first.csrf.count == 64 && first.token != first.csrf)
        #expect(sessions.session(for: first.token, now: 10)?.csrf == first.csrf)
        #expect(sessions.session(for: String(first.token.dropLast()) + "x", now: 10) == nil)
        // Used within the idle limit it lives on; unused past it, it ends.
        #expect(sessions.session(for: first.token, now: WebSessions.idleLimit) != nil)
        #expect(sessions.session(for: first.token, now: 2 * WebSessions.idleLimit + 1) == nil)
        // However busy, it ends at its lifetime.
        let busy = sessions.open(now: 0, using: &random)
        var now: Int64 = 0
        while now < WebSessions.lifetime - 3600 {
            now += 3600
            #expect(sessions.session(for: busy.token, now: now) != nil)
        }
        #expect(sessions.session(for: busy.token, now: WebSessions.lifetime) == nil)
        // The least recently used goes when the table is full.
        var tokens: [String] = []
        for index in 0..<WebSessions.limit + 1 { tokens.append(sessions.open(now: Int64(index), using: &random).token) }
        #expect(sessions.count == WebSessions.limit)
        #expect(sessions.session(for: tokens[0], now: 100) == nil)
        #expect(sessions.session(for: tokens[WebSessions.limit], now: 100) != nil)
        sessions.close(tokens[WebSessions.limit])
        #expect(sessions.session(for: tokens[WebSessions.limit], now: 100) == nil)
    }

    @Test func wrongPasswordsAreSlowedPerClientAndAltogether() {
        var throttle = LoginThrottle()
        for _ in 0..<LoginThrottle.freeFailures {
            #expect(throttle.wait(for: "10.0.0.1", now: 0) == nil)
            throttle.failed("10.0.0.1", now: 0)
        }
        #expect(throttle.wait(for: "10.0.0.1", now: 0) == nil)
        throttle.failed("10.0.0.1", now: 0)
        #expect(throttle.wait(for: "10.0.0.1", now: 0) == 1)
        throttle.failed("10.0.0.1", now: 1)
        #expect(throttle.wait(for: "10.0.0.1", now: 1) == 2)
        for _ in 0..<20 { throttle.failed("10.0.0.1", now: 1) }
        #expect(throttle.wait(for: "10.0.0.1", now: 1) == LoginThrottle.longestWait)
        // Another client is not held up by this one, and a success clears the record.
        #expect(throttle.wait(for: "10.0.0.2", now: 1) == nil)
        throttle.succeeded("10.0.0.1")
        #expect(throttle.wait(for: "10.0.0.1", now: 1) == nil)
        // Failures from many addresses (or one proxy) together: everyone waits out the minute.
        var spread = LoginThrottle()
        for index in 0..<LoginThrottle.globalLimit { spread.failed("10.1.0.\(index)", now: 100) }
        spread.failed("10.2.0.1", now: 100)
        #expect(spread.wait(for: "10.2.0.1", now: 130) == 30)
        #expect(spread.wait(for: "10.2.0.1", now: 160) == nil)
        // ... but never one that has not failed: guesses from elsewhere never lock the operator out.
        #expect(spread.wait(for: "10.3.0.1", now: 130) == nil)
        // An IPv6 host is its /64: changing addresses inside it changes nothing.
        var six = LoginThrottle()
        for index in 0...LoginThrottle.freeFailures { six.failed("2001:db8:1:2::\(index + 1)", now: 0) }
        #expect(six.wait(for: "2001:db8:1:2:ffff::9", now: 0) == 1)
        #expect(six.wait(for: "2001:db8:1:3::1", now: 0) == nil)
        #expect(LoginThrottle.key("fe80::1") == "fe80:0:0:0::/64")
    }

    @Test func secretsCompareWholly() {
        #expect(WebSecret.matches("abc", "abc"))
        #expect(!WebSecret.matches("abc", "abd"))
        #expect(!WebSecret.matches("abc", "abcd"))
        #expect(!WebSecret.matches("", "a"))
        #expect(WebSecret.hex([0, 15, 255]) == "000fff")
    }

    @Test func formsCookiesAndHTML() {
        #expect(WebForm.fields(Array("password=a%20b+c%2B&csrf=12&csrf=13&empty&bad=%zz".utf8))
                == ["password": "a b c+", "csrf": "12", "empty": "", "bad": "%zz"])
        #expect(WebForm.cookie("kiosk_session", in: "a=1; kiosk_session=xyz ;b=2") == "xyz")
        #expect(WebForm.cookie("kiosk_session", in: "kiosk_session_old=1") == nil)
        #expect(WebForm.cookie("kiosk_session", in: nil) == nil)
        #expect(WebForm.html("<script>alert('x')</script> & \"") == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;")
    }

    @Test func aTitleHoldingMarkupStaysTextOnThePages() {
        let page = WebPages.console(csrf: "t\"oken", title: "<img src=x onerror=alert(1)>")
        #expect(!page.contains("<img src=x"))
        #expect(page.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(page.contains("content=\"t&quot;oken\""))
        #expect(!WebPages.login(message: "<b>").contains("<b>"))
        // No inline script: the CSP allows none.
        #expect(!page.contains("<script>") && page.contains("<script src=\"/app.js\" defer>"))
    }

    /// Each id once on a page: the header's "next: ..." and the Next button shared one, and the
    /// header's grey style made the button look disabled.
    @Test func theConsolesIdsAreUnique() throws {
        for page in [WebPages.console(csrf: "t", title: "x"), WebPages.login()] {
            let ids = try Regex(#"\bid="([^"]+)""#)
            let found = page.matches(of: ids).map { String($0.output[1].substring ?? "") }
            #expect(!found.isEmpty)
            #expect(Set(found).count == found.count, "repeated: \(found.filter { id in found.filter { $0 == id }.count > 1 })")
        }
    }

    @Test func onlyTheLoginAndItsStyleAreOpen() {
        #expect(WebRoute.allCases.filter(\.isPublic) == [.login, .style])
        #expect(WebRoute(path: "/api/v1/command")?.methods == ["POST"])
        #expect(WebRoute(path: "/../etc/passwd") == nil)
    }
}

/// The names uploads are kept under: never outside the upload folder, never hidden, media only,
/// never over a file already there.
@Suite("Uploads' names")
struct UploadNameTests {
    @Test func namesAreCleanedToAFileOfTheFolder() {
        #expect(UploadName.clean("../../etc/Menu: Lunch?.MP4") == "Menu Lunch.MP4")
        #expect(UploadName.clean("C:\\Users\\me\\clip (final).mov") == "clip (final).mov")
        #expect(UploadName.clean(".hidden.mp4") == "hidden.mp4")
        #expect(UploadName.clean("Café Menü.jpg") == "Café Menü.jpg")
        #expect(UploadName.clean("script.sh") == nil)
        #expect(UploadName.clean("../") == nil)
        #expect(UploadName.clean(".mp4") == nil)
        #expect(UploadName.clean("a\u{0}b.mp4") == "ab.mp4")
        #expect(UploadName.clean(String(repeating: "x", count: 500) + ".mp4") == String(repeating: "x", count: 200) + ".mp4")
        // Characters of several bytes (and marks stacked on them) count by bytes.
        let stacked = String(repeating: "e\u{301}\u{302}", count: 100) + ".mp4"
        #expect((UploadName.clean(stacked)?.utf8.count ?? 0) <= 205)
    }

    @Test func aTakenNameGetsANumber() {
        let taken: Set<String> = ["/up/menu.mp4", "/up/menu (2).mp4"]
        #expect(UploadName.free("menu.mp4", in: "/up", exists: taken.contains) == "/up/menu (3).mp4")
        #expect(UploadName.free("new.mp4", in: "/up", exists: taken.contains) == "/up/new.mp4")
    }

    @Test func onlyAnUploadIdIsAnUploadPath() {
        let id = String(repeating: "a1", count: 16)
        #expect(WebRoute(path: "/api/v1/uploads/\(id)") == .upload)
        #expect(WebRoute.uploadID(in: "/api/v1/uploads/\(id)") == id)
        for path in ["/api/v1/uploads/../../etc/passwd", "/api/v1/uploads/\(id.uppercased())", "/api/v1/uploads/\(id)/x",
                     "/api/v1/uploads/{id}", "/api/v1/uploads/"] {
            #expect(WebRoute(path: path) == nil, "\(path)")
        }
        #expect(WebRoute(path: "/api/v1/uploads") == .uploads)
    }
}
