import Foundation
import Yams

/// `web`: the page and JSON API served by `kiosk run` (#36); off without the section.
public struct WebConfig: Sendable, Equatable {
    /// The loopback address: reachable from the box (or through an SSH tunnel or a proxy on it)
    /// until kiosk.conf names a LAN address.
    public static let defaultListen = ListenAddress(host: "127.0.0.1", port: 8080)

    /// `listen`: `127.0.0.1:8080` by default; `0.0.0.0:8080` or `[::]:8080` for the LAN, by choice.
    public var listen = WebConfig.defaultListen
    /// `password_hash`: an Argon2id string (`kiosk web-password` makes one); nil: the random
    /// password kiosk makes at first start in the state directory's `web-password`.
    public var passwordHash: String?
    /// `hosts`: the names the box is reached by in a browser (`lobby-1.local`); IP addresses and
    /// `localhost` are always taken. A `Host` not among them is refused (DNS rebinding).
    public var hosts: [String] = []
    /// `certificate` and `key`: PEM files for HTTPS; both or neither.
    public var certificate: String?
    public var key: String?
    /// `page_file`: the file the page's playlist edits are written to (its own, never
    /// kiosk.conf); once it exists its `items:` are the default playlist. Nil: the page shows the
    /// playlist but does not edit it.
    public var pageFile: String?
    /// `upload_dir`: where the page's uploads are written (nil: the page takes none).
    public var uploadDirectory: String?
    /// `upload_min_free`: what an upload leaves free on that file system (256M by default).
    public var uploadMinFree = WebConfig.defaultUploadMinFree
    public static let defaultUploadMinFree = 256 * 1024 * 1024
    /// `splash_layer`: a text layer of `layers:` in which kiosk shows the page's address, and
    /// the password it made at first start, until the page's first login (then hidden for good):
    /// setting up a box needs no keyboard or journal. Never the password of a `password_hash`.
    public var splashLayer: String?

    public init() {}
}

extension ConfigWalker {
    static let webKeys = ["listen", "password_hash", "hosts", "certificate", "key", "page_file", "upload_dir", "upload_min_free",
                          "splash_layer"]

    func readWeb(_ node: Node?, baseDirectory: String, textLayerNames layerNames: [String]) -> WebConfig? {
        guard let node else { return nil }
        // `web: {}` (or `web:` alone) turns the page on with every default.
        if isNull(node) { return WebConfig() }
        guard let section = section(node, name: "web", allowedKeys: Self.webKeys) else { return nil }
        var web = WebConfig()
        if let text = string(section, "listen", expected: "an address and port like 127.0.0.1:8080 or 0.0.0.0:8080") {
            if let address = ListenAddress(parsing: text) { web.listen = address }
            else { report(section["listen"], "'listen' in web is '\(text)'; expected an IP address and port like 127.0.0.1:8080, 0.0.0.0:8080 or [::]:8080") }
        }
        if let hash = string(section, "password_hash", expected: "an Argon2id hash from `kiosk web-password`") {
            if hash.hasPrefix("$argon2id$") || hash.hasPrefix("$argon2i$") { web.passwordHash = hash }
            else { report(section["password_hash"], "'password_hash' in web is not an Argon2 hash (it begins '\(hash.prefix(10))'); expected the line `kiosk web-password` prints, never the password itself") }
        }
        if let hosts = stringList(section, "hosts", expected: "host names like [lobby-1.local, signage.example.com]") {
            for (index, host) in hosts.enumerated() where !Self.isHostName(host) {
                report(section["hosts"], "'hosts' in web: entry \(index + 1) '\(host)' is not a host name (no scheme, port or path)")
            }
            web.hosts = hosts.filter(Self.isHostName).map { $0.lowercased() }
        }
        web.certificate = string(section, "certificate", expected: "a PEM certificate file").map { PathText.resolve($0, against: baseDirectory) }
        web.key = string(section, "key", expected: "the PEM private key file of the certificate").map { PathText.resolve($0, against: baseDirectory) }
        web.pageFile = string(section, "page_file", expected: "the file the page writes its playlist to")
            .map { PathText.resolve($0, against: baseDirectory) }
        if let file = web.pageFile, let node = section["page_file"], file.hasSuffix("/") {
            report(node, "'page_file' in web is a folder ('\(file)'); expected a file such as /var/lib/kiosk/web-playlist.yaml")
        }
        if let file = web.pageFile, let node = section["page_file"],
           file == PathText.resolve(fileName, against: FileManager.default.currentDirectoryPath) {
            report(node, "'page_file' in web is kiosk.conf itself; expected a file of the page's own (kiosk.conf is never written)")
        }
        web.uploadDirectory = string(section, "upload_dir", expected: "the folder uploads are written to")
            .map { PathText.resolve($0, against: baseDirectory) }
        if let bytes = byteSize(section, "upload_min_free", expected: "a size (like 256M, 1G or a number of bytes)") {
            web.uploadMinFree = bytes
        }
        if let layer = string(section, "splash_layer", expected: "the name of a text layer of layers:") {
            if layerNames.contains(layer) { web.splashLayer = layer }
            else {
                report(section["splash_layer"], "'splash_layer' in web is '\(layer)', which is not a text or ticker layer of layers:; expected one of: "
                       + (layerNames.isEmpty ? "(none: add a text layer with a name under layers:)" : layerNames.joined(separator: ", "))
                       + suggestion(for: layer, among: layerNames))
            }
        }
        if (web.certificate == nil) != (web.key == nil) {
            report(section[web.certificate == nil ? "key" : "certificate"], "web has \(web.certificate == nil ? "a key but no certificate" : "a certificate but no key"); HTTPS needs both")
        }
        return web
    }

    static func isHostName(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") }
    }
}
