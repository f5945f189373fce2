import Foundation
import Testing
@testable import KioskCore
@testable import KioskService
import KioskTestSupport

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

    /// Addresses that change under the splash's thread (a lease that comes late).
    final class Addresses: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        var now: [String] {
            get { lock.withLock { list } }
            set { lock.withLock { list = newValue } }
        }
    }

    @Test func theLineIsShownUntilTheFirstLoginAndNeverAgain() throws {
        let state = try Self.directory("login")
        defer { try? FileManager.default.removeItem(atPath: state) }
        let sink = RecordingRequests()
        let splash = WebSplash(layer: "setup", sink: sink, stateDirectory: state)
        defer { splash.stop() }
        let addresses = Addresses()
        splash.begin(password: "abcde-fghij", interval: 0.1) { addresses.now }
        #expect(sink.requests == [.layer(name: "setup", .text("Web page: waiting for the network · password abcde-fghij")),
                                  .layer(name: "setup", .show)])
        // DHCP gives an address later: the line follows, once.
        addresses.now = ["http://192.0.2.7:8080/"]
        let line = PlayerRequest.layer(name: "setup", .text("Web page http://192.0.2.7:8080/ · password abcde-fghij"))
        #expect(waitUntil(10) { sink.requests.last == line })
        usleep(300_000)
        #expect(sink.requests.filter { $0 == line }.count == 1, "an unchanged line is not sent again")
        splash.loggedIn()
        let hidden = sink.requests.count
        #expect(sink.requests.last == .layer(name: "setup", .hide))
        #expect(FileManager.default.fileExists(atPath: state + "/web-login-seen"))
        splash.loggedIn()
        addresses.now = ["http://192.0.2.8:8080/"]
        usleep(300_000)
        #expect(sink.requests.count == hidden, "after the login nothing more is sent: \(sink.requests)")
        // The next start: hidden at once, the password never drawn again.
        let later = RecordingRequests()
        let next = WebSplash(layer: "setup", sink: later, stateDirectory: state)
        next.begin(password: "abcde-fghij") { ["http://192.0.2.7:8080/"] }
        next.stop()
        #expect(later.requests == [.layer(name: "setup", .hide)])
    }

    @Test func aHashsPasswordIsNotKnownSoTheAddressAloneIsShown() {
        #expect(WebSplash.line(addresses: ["https://192.0.2.7:8443/", "https://[2001:db8::7]:8443/"], password: nil)
                == "Web page https://192.0.2.7:8443/ https://[2001:db8::7]:8443/")
    }

    @Test func theAddressesAreTheListenedOneOrTheInterfacesOfAWildcardAndTheHostsNames() {
        #expect(WebSplash.addresses(scheme: "http", listen: ListenAddress(host: "127.0.0.1", port: 8080), hosts: ["lobby.local"])
                == ["http://127.0.0.1:8080/"])
        #expect(WebSplash.addresses(scheme: "https", listen: ListenAddress(host: "::1", port: 8443)) == ["https://[::1]:8443/"])
        let lan = WebSplash.addresses(scheme: "http", listen: ListenAddress(host: "0.0.0.0", port: 80), hosts: ["lobby.local"])
        #expect(lan.last == "http://lobby.local:80/", "\(lan)")
        #expect(lan.dropLast().allSatisfy { $0.hasPrefix("http://") && $0.hasSuffix(":80/") && !$0.contains("lobby") }, "\(lan)")
        #expect(!lan.contains("http://127.0.0.1:80/"), "loopback is no address for a browser on the LAN: \(lan)")
        #expect(!lan.contains("http://\(ProcessInfo.processInfo.hostName):80/"), "the box's own name is not offered: the Host check refuses it")
    }
}
