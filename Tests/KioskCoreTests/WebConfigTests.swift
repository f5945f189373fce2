import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPolicy

/// kiosk.conf's `web:` (#36): what a valid section reads as, and each bad value's one diagnostic
/// at its line:column (run by `ConfigErrorTests` with the others).

private let items = "items: [a.mp4]\n"

private func parse(_ yaml: String) throws -> KioskConfig {
    try ConfigLoader.parse(text: yaml, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk", fileSystem: FakeFileSystem(files: []))
}

let webConfigErrorTable: [ConfigErrorCase] = [
    ConfigErrorCase(name: "web listens on a name", yaml: items + "web: {listen: 'kiosk.local:80'}\n", line: 2, column: 15,
                    fragment: "'listen' in web is 'kiosk.local:80'; expected an IP address and port like 127.0.0.1:8080"),
    ConfigErrorCase(name: "web's password written as itself", yaml: items + "web: {password_hash: hunter22}\n", line: 2, column: 22,
                    fragment: "'password_hash' in web is not an Argon2 hash (it begins 'hunter22'); expected the line `kiosk web-password` prints"),
    ConfigErrorCase(name: "web's host with a scheme", yaml: items + "web: {hosts: ['http://lobby.local']}\n", line: 2, column: 14,
                    fragment: "'hosts' in web: entry 1 'http://lobby.local' is not a host name"),
    ConfigErrorCase(name: "web's certificate without its key", yaml: items + "web: {certificate: web.crt}\n", line: 2, column: 20,
                    fragment: "web has a certificate but no key; HTTPS needs both"),
    ConfigErrorCase(name: "web's splash layer not defined", yaml: items + "layers: [{text: {text: Hi, name: info}}]\nweb: {splash_layer: inf}\n",
                    line: 3, column: 21,
                    fragment: "'splash_layer' in web is 'inf', which is not a text or ticker layer of layers:; expected one of: info (did you mean 'info'?)"),
    ConfigErrorCase(name: "web's splash layer a clock", yaml: items + "layers: [{clock: {name: time}}]\nweb: {splash_layer: time}\n",
                    line: 3, column: 21,
                    fragment: "'splash_layer' in web is 'time', which is not a text or ticker layer of layers:; expected one of: (none: add a text layer"),
    ConfigErrorCase(name: "web's unknown key", yaml: items + "web: {user: admin}\n", line: 2, column: 7,
                    fragment: "unknown key 'user' in web"),
]

@Suite("The web page in kiosk.conf")
struct WebConfigTests {
    @Test func noSectionServesNoPage() throws {
        #expect(try parse(items).web == nil)
    }

    @Test func anEmptySectionServesTheLoopbackWithTheMadePassword() throws {
        for text in ["web: {}\n", "web:\n"] {
            let web = try #require(try parse(items + text).web)
            #expect(web.listen == ListenAddress(host: "127.0.0.1", port: 8080))
            #expect(web.passwordHash == nil)
            #expect(web.hosts.isEmpty)
            #expect(web.certificate == nil && web.key == nil)
        }
    }

    @Test func everyKeyIsRead() throws {
        let web = try #require(try parse(items + """
            web:
              listen: '0.0.0.0:8443'
              password_hash: '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$aGFzaA'
              hosts: [Lobby-1.local, signage.example.com]
              certificate: tls/web.crt
              key: /etc/kiosk/web.key
              splash_layer: setup
            layers: [{text: {text: Welcome, name: setup}}]

            """).web)
        #expect(web.splashLayer == "setup")
        #expect(web.listen == ListenAddress(host: "0.0.0.0", port: 8443))
        #expect(web.passwordHash?.hasPrefix("$argon2id$") == true)
        #expect(web.hosts == ["lobby-1.local", "signage.example.com"])
        #expect(web.certificate == "/srv/kiosk/tls/web.crt")
        #expect(web.key == "/etc/kiosk/web.key")
    }

    @Test func theExampleFilesSectionReadsAsItsCommentsSay() throws {
        let section = try #require(try ExampleConfigFile.commentedSection("# web:"))
        let web = try #require(try parse(section + "\n" + items).web)
        #expect(web.listen == WebConfig.defaultListen)
        #expect(web.hosts == ["lobby-1.local"])
        #expect(web.passwordHash == nil && web.certificate == nil)
        #expect(web.pageFile == "/var/lib/kiosk/web-page.yaml")
        #expect(web.uploadDirectory == "/srv/kiosk/uploads")
        #expect(web.uploadMinFree == 256 * 1024 * 1024)
    }

    @Test func aChangedSectionAppliesOnRestart() throws {
        let old = try parse(items + "web: {}\n")
        let new = try parse(items + "web: {listen: '127.0.0.1:9090'}\n")
        let changes = ConfigChanges(from: old, to: new)
        #expect(changes.parts == [.web])
        #expect(ConfigPart.web.application == .onRestart)
    }
}
