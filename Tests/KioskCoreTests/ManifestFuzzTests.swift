import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPolicy

/// What a content-sync manifest may hold when its server, a proxy or a CMS's export is broken
/// or hostile, damaged (`ByteDamage`): reading ends with a manifest whose every file is one
/// kiosk can store and fetch, or with messages a log line can hold.
@Suite("Content sync: damaged manifests")
struct ManifestFuzzTests {
    static let base = "https://media.example.com/lobby/manifest.json"
    static let sha = String(repeating: "0123456789abcdef", count: 4)
    static let seed = """
        {"version": 1, "files": [
          {"name": "lobby.mp4", "url": "media/lobby.mp4", "size": 73400320, "sha256": "\(sha)", "title": "Lobby"},
          {"name": "menu é.png", "url": "../shared/menu%20e.png", "size": 0, "sha256": "\(sha.uppercased())"},
          {"name": "c.mp4", "url": "https://cdn.example.org/c.mp4?x=1&y=2", "size": 5, "sha256": "\(sha)"}
        ]}
        """
    static let tokens = ["{", "}", "[", "]", ",", ":", "\"", "\\\"", "\\u0000", "\\n", "\"name\": \"../x\"", "\"size\": -1",
                         "\"size\": 1e400", "\"url\": \"file:///etc/shadow\"", "\"url\": \"javascript:x\"", "&a [1]", "*a",
                         "!!binary", "? ", "- ", "#", "\t", "/", ".", ".."]
    static let chunks = ["[", "{\"a\":", "{\"name\": \"a.mp4\", \"url\": \"a.mp4\", \"size\": 1, \"sha256\": \"\(sha)\"},", "x"]

    /// 1,000 damaged manifests: parsed or refused, never more.
    @Test func damagedManifestsGiveStorableFilesOrBoundedMessages() {
        var random = SeededGenerator(state: 0x5EED_0021)
        var failures: [String] = []
        var parsed = 0
        for run in 0..<1_000 {
            var bytes = Array(Self.seed.utf8)
            let done = ByteDamage.damage(&bytes, tokens: Self.tokens, chunks: Self.chunks, using: &random)
            var found: [String] = []
            do {
                let manifest = try SyncManifestParser.parse(String(decoding: bytes, as: UTF8.self), source: "manifest.json",
                                                            baseURL: Self.base)
                parsed += 1
                if Set(manifest.files.map(\.name)).count != manifest.files.count { found.append("a name twice") }
                for file in manifest.files {
                    if let problem = SyncManifestParser.nameProblem(file.name) { found.append("name: \(problem)") }
                    let url = URL(string: file.url)
                    if !["http", "https"].contains(url?.scheme ?? "") || url?.host == nil { found.append("url \(file.url.prefix(80))") }
                    if file.size < 0 { found.append("size \(file.size)") }
                    if !SyncManifestParser.isSHA256(file.sha256) || file.sha256 != file.sha256.lowercased() {
                        found.append("sha256 \(file.sha256.prefix(80))")
                    }
                }
            } catch {
                if error.diagnostics.isEmpty { found.append("refused with no message") }
                for message in error.diagnostics.map(\.description)
                where message.count > 1_000 || message.contains(where: { $0 == "\n" || $0 == "\r" }) {
                    found.append("message \(message.prefix(120).debugDescription) (\(message.count) characters)")
                }
            }
            if !found.isEmpty { failures.append("run \(run) \(done): \(found.prefix(3))") }
        }
        #expect(failures.isEmpty, "\(failures.count) manifests: \(failures.prefix(5))")
        #expect(parsed > 0 && parsed < 1_000, "\(parsed) of 1,000 parsed: the damage is not varied enough")
    }

    @Test func aHostileNameOrURLIsQuotedNotWrittenIntoTheLog() {
        let long = String(repeating: "x", count: 100_000)
        for (field, value) in [("name", "a/b\\nforged line \(long)"), ("name", "\\u001b[2J\(long)"), ("url", "ftp://h/\\n\(long)")] {
            let name = field == "name" ? value : "a.mp4", url = field == "url" ? value : "a.mp4"
            let text = "{\"version\": 1, \"files\": [{\"name\": \"\(name)\", \"url\": \"\(url)\", \"size\": 1, \"sha256\": \"\(Self.sha)\"}]}"
            do {
                _ = try SyncManifestParser.parse(text, source: "manifest.json", baseURL: Self.base)
                Issue.record("\(field) \(value.prefix(20)) was taken")
            } catch {
                let message = error.diagnostics.map(\.description).joined(separator: " | ")
                #expect(message.count < 1_000 && !message.contains("\n") && !message.contains("\u{1B}"), "\(message.prefix(200))")
                #expect(message.contains("\(field == "name" ? "name" : "url") '"), "\(message.prefix(200))")
            }
        }
    }
}
