import Foundation
import Yams

/// One file of a manifest: where to get it, what it must be, and its playlist options.
public struct SyncManifestFile: Sendable, Equatable {
    /// The name it plays under (and its title unless `title` is set): no "/", never "." or "..".
    public var name: String
    /// Absolute: the manifest's `url` resolved against the manifest's own URL (RFC 3986).
    public var url: String
    public var size: Int64
    /// 64 lowercase hex digits.
    public var sha256: String
    public var title: String?

    public init(name: String, url: String, size: Int64, sha256: String, title: String? = nil) {
        self.name = name
        self.url = url
        self.size = size
        self.sha256 = sha256
        self.title = title
    }
}

/// kiosk's manifest (BrightSign's fields): `{"version": 1, "files": [{"name": "lobby.mp4",
/// "url": "media/lobby.mp4", "size": 73400320, "sha256": "..."}]}`, in play order.
public struct SyncManifest: Sendable, Equatable {
    public static let version = 1
    public var files: [SyncManifestFile]

    public init(files: [SyncManifestFile]) { self.files = files }

    public var totalBytes: Int64 { files.reduce(0) { $0 + $1.size } }
}

/// Reads a manifest with Yams (JSON is YAML, and Yams' nodes keep their line and column) so a
/// mistake reads `manifest.json:12:7: sha256 must be 64 hex digits`.
public enum SyncManifestParser {
    static let fileKeys = ["name", "url", "size", "sha256", "title"]

    /// `source` names the manifest in messages (its URL or path); `baseURL` resolves `url`s.
    public static func parse(_ text: String, source: String, baseURL: String) throws(ConfigError) -> SyncManifest {
        let document = YAMLDocumentComposer.compose(text, fileName: source)
        if !document.diagnostics.isEmpty { throw ConfigError(diagnostics: document.diagnostics) }
        let walker = ConfigWalker(fileName: source, ignoredKeys: document.ignoredKeys)
        guard let root = document.root else {
            throw ConfigError(diagnostics: [ConfigDiagnostic(file: source, line: 1, column: 1,
                message: "the manifest is empty; expected {\"version\": 1, \"files\": [...]}")])
        }
        let manifest = walker.readManifest(root, baseURL: baseURL)
        guard walker.diagnostics.isEmpty, let manifest else {
            throw ConfigError(diagnostics: walker.diagnostics.sorted { ($0.line, $0.column) < ($1.line, $1.column) })
        }
        return manifest
    }

    /// Whether `name` can be a file of the store's sets: one path component, visible, not "..".
    public static func nameProblem(_ name: String) -> String? {
        // Quoted as a log line holds it: a server's name can hold line breaks and be megabytes long.
        let quoted = quotedForMessage(name)
        if name.isEmpty { return "an empty name" }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "name '\(quoted)' holds a control character"
        }
        if name.contains("/") { return "name '\(quoted)' holds a '/'; expected a plain file name" }
        if name == "." || name == ".." { return "name '\(name)' is not a file name" }
        if name.hasPrefix(".") { return "name '\(quoted)' starts with '.' (hidden files never play); expected a plain file name" }
        if name.utf8.count > 255 { return "name '\(quotedForMessage(name, limit: 20))' is longer than 255 bytes" }
        return nil
    }

    /// `reference` resolved against `base` as RFC 3986 says; nil unless the result is http(s).
    public static func resolve(_ reference: String, against base: String) -> String? {
        guard let baseURL = URL(string: base), let url = URL(string: reference, relativeTo: baseURL)?.absoluteURL,
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            return nil
        }
        return url.absoluteString
    }

    static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) }
    }
}

extension ConfigWalker {
    func readManifest(_ root: Node, baseURL: String) -> SyncManifest? {
        guard root.mapping != nil, let top = section(root, name: "the manifest", allowedKeys: ["version", "files"]) else {
            report(root, "the manifest is \(describe(root)); expected {\"version\": 1, \"files\": [...]}")
            return nil
        }
        if top["version"] == nil {
            report(root, "the manifest has no 'version'; expected \"version\": 1")
        } else if let version = integer(top, "version", in: 0...Int.max), version != SyncManifest.version {
            report(top["version"], "version \(version) is not known; expected 1")
        }
        guard let filesNode = top["files"] else {
            report(root, "the manifest has no 'files'; expected a list of {name, url, size, sha256}")
            return nil
        }
        guard case .sequence(let sequence) = filesNode else {
            report(filesNode, "'files' is \(describe(filesNode)); expected a list of {name, url, size, sha256}")
            return nil
        }
        var files: [SyncManifestFile] = []
        var firstPlace: [String: SourceLocation] = [:]
        for (index, element) in sequence.enumerated() {
            let label = "files[\(index)]"
            guard let entry = listedSection(element, label: label, allowedKeys: SyncManifestParser.fileKeys) else { continue }
            var valid = true
            for key in ["name", "url", "size", "sha256"] where entry[key] == nil {
                report(element, "\(label) has no '\(key)'")
                valid = false
            }
            let name = string(entry, "name", expected: "a file name")
            if let name {
                if let problem = SyncManifestParser.nameProblem(name) {
                    report(entry["name"], problem)
                    valid = false
                } else if let first = firstPlace[name] {
                    report(entry["name"], "name '\(quotedForMessage(name))' is listed twice (first at \(first.line):\(first.column)); expected each name once")
                    valid = false
                } else {
                    firstPlace[name] = location(of: entry["name"])
                }
            }
            var url: String?
            if let reference = string(entry, "url", expected: "a URL, relative to the manifest's") {
                url = SyncManifestParser.resolve(reference, against: baseURL)
                if url == nil { report(entry["url"], "url '\(quotedForMessage(reference))' does not give an http(s) URL against \(baseURL)") }
            }
            var size: Int?
            if let node = entry["size"] {
                if let value = node.int, node.scalar?.style == .plain || node.scalar?.style == .any, value >= 0 { size = value }
                else { report(node, "size must be a whole number of bytes >= 0, not \(describe(node))") }
            }
            var sha: String?
            if let node = entry["sha256"] {
                if let text = node.scalar?.string, SyncManifestParser.isSHA256(text) { sha = text.lowercased() }
                else { report(node, "sha256 must be 64 hex digits") }
            }
            let title = string(entry, "title", expected: "the text the overlay shows")
            guard valid, let name, let url, let size, let sha else { continue }
            files.append(SyncManifestFile(name: name, url: url, size: Int64(size), sha256: sha, title: title))
        }
        return files.count == sequence.count ? SyncManifest(files: files) : nil
    }
}
