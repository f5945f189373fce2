import Foundation
import Testing
@testable import KioskCore
@testable import KioskService

/// `web.splash_layer` (#36): the page's address and made password in a text layer until the
/// first login, hidden from then on, across restarts.
@Suite("The web page's address on the screen")
struct WebSplashTests {
    static func directory(_ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "kiosk-splash-\(name)-\(getpid())"
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func theLineIsShownUntilTheFirstLoginAndNeverAgain() throws {
        let state = try Self.directory("login")
        let sink = RecordingRequests()
        let splash = WebSplash(layer: "setup", sink: sink, stateDirectory: state)
        splash.begin(addresses: ["http://192.0.2.7:8080/"], password: "abcde-fghij")
        #expect(sink.requests == [.layer(name: "setup", .text("Web page http://192.0.2.7:8080/ · password abcde-fghij")),
                                  .layer(name: "setup", .show)])
        splash.loggedIn()
        #expect(sink.requests.last == .layer(name: "setup", .hide))
        #expect(FileManager.default.fileExists(atPath: state + "/web-login-seen"))
        splash.loggedIn()
        #expect(sink.requests.count == 3, "a second login sends nothing more")
        // The next start: hidden at once, the password never drawn again.
        let later = RecordingRequests()
        WebSplash(layer: "setup", sink: later, stateDirectory: state).begin(addresses: ["http://192.0.2.7:8080/"], password: "abcde-fghij")
        #expect(later.requests == [.layer(name: "setup", .hide)])
    }

    @Test func aHashsPasswordIsNotKnownSoTheAddressAloneIsShown() {
        #expect(WebSplash.line(addresses: ["https://192.0.2.7:8443/", "https://[2001:db8::7]:8443/"], password: nil)
                == "Web page https://192.0.2.7:8443/ https://[2001:db8::7]:8443/")
    }

    @Test func theAddressesAreTheListenedOneOrTheInterfacesOfAWildcard() {
        #expect(WebSplash.addresses(scheme: "http", listen: ListenAddress(host: "127.0.0.1", port: 8080)) == ["http://127.0.0.1:8080/"])
        #expect(WebSplash.addresses(scheme: "https", listen: ListenAddress(host: "::1", port: 8443)) == ["https://[::1]:8443/"])
        let lan = WebSplash.addresses(scheme: "http", listen: ListenAddress(host: "0.0.0.0", port: 80))
        #expect(!lan.isEmpty && lan.allSatisfy { $0.hasPrefix("http://") && $0.hasSuffix(":80/") }, "\(lan)")
        #expect(!lan.contains("http://127.0.0.1:80/"), "loopback is no address for a browser on the LAN: \(lan)")
    }
}
