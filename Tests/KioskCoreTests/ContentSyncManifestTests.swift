import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

struct ContentSyncManifestTests {
    static let base = "https://media.example.com/lobby/manifest.json"
    static let sha = String(repeating: "ab", count: 32)

    func parse(_ text: String) throws(ConfigError) -> SyncManifest {
        try SyncManifestParser.parse(text, source: "manifest.json", baseURL: Self.base)
    }

    func firstProblem(_ text: String) -> String {
        do { _ = try parse(text); return "no error" } catch { return error.diagnostics.first?.description ?? "none" }
    }

    @Test func readsFilesInOrderWithURLsResolvedAgainstTheManifest() throws {
        let manifest = try parse("""
            {"version": 1, "files": [
              {"name": "lobby.mp4", "url": "media/lobby.mp4", "size": 73400320, "sha256": "\(Self.sha)", "title": "Lobby"},
              {"name": "b.png", "url": "../shared/b.png", "size": 0, "sha256": "\(Self.sha.uppercased())"},
              {"name": "c.mp4", "url": "/abs/c.mp4", "size": 5, "sha256": "\(Self.sha)"},
              {"name": "d.mp4", "url": "http://other.example.com/d.mp4?x=1", "size": 5, "sha256": "\(Self.sha)"}
            ]}
            """)
        #expect(manifest.files.map(\.name) == ["lobby.mp4", "b.png", "c.mp4", "d.mp4"])
        #expect(manifest.files.map(\.url) == ["https://media.example.com/lobby/media/lobby.mp4",
                                              "https://media.example.com/shared/b.png",
                                              "https://media.example.com/abs/c.mp4",
                                              "http://other.example.com/d.mp4?x=1"])
        #expect(manifest.files[0].size == 73_400_320 && manifest.files[0].title == "Lobby")
        #expect(manifest.files[1].sha256 == Self.sha)   // lowercased: it names the object
        #expect(manifest.totalBytes == 73_400_330)
    }

    @Test(arguments: [
        ("{\"version\": 1, \"files\": [\n  {\"name\": \"a.mp4\", \"url\": \"a.mp4\", \"size\": 1,\n      \"sha256\": \"abc\"}]}",
         "manifest.json:3:17: sha256 must be 64 hex digits"),
        ("{\"version\": 2, \"files\": []}", "manifest.json:1:13: version 2 is not known; expected 1"),
        ("{\"files\": []}", "manifest.json:1:1: the manifest has no 'version'"),
        ("{\"version\": 1, \"files\": [{\"name\": \"../etc/passwd\", \"url\": \"a\", \"size\": 1, \"sha256\": \"SHA\"}]}",
         "manifest.json:1:35: name '../etc/passwd' holds a '/'"),
        ("{\"version\": 1, \"files\": [{\"name\": \"..\", \"url\": \"a\", \"size\": 1, \"sha256\": \"SHA\"}]}",
         "manifest.json:1:35: name '..' is not a file name"),
        ("{\"version\": 1, \"files\": [{\"name\": \".hidden.mp4\", \"url\": \"a\", \"size\": 1, \"sha256\": \"SHA\"}]}",
         "manifest.json:1:35: name '.hidden.mp4' starts with '.'"),
        ("{\"version\": 1, \"files\": [{\"name\": \"a\", \"url\": \"a\", \"size\": 1, \"sha256\": \"SHA\"},\n{\"name\": \"a\", \"url\": \"b\", \"size\": 1, \"sha256\": \"SHA\"}]}",
         "manifest.json:2:10: name 'a' is listed twice (first at 1:35)"),
        ("{\"version\": 1, \"files\": [{\"name\": \"a\", \"url\": \"a\", \"size\": -1, \"sha256\": \"SHA\"}]}",
         "manifest.json:1:60: size must be a whole number of bytes >= 0, not -1"),
        ("{\"version\": 1, \"files\": [{\"name\": \"a\", \"url\": \"a\", \"size\": \"12\", \"sha256\": \"SHA\"}]}",
         "manifest.json:1:60: size must be a whole number of bytes >= 0, not the string '12'"),
        ("{\"version\": 1, \"files\": [{\"name\": \"a\", \"url\": \"ftp://x/a\", \"size\": 1, \"sha256\": \"SHA\"}]}",
         "manifest.json:1:47: url 'ftp://x/a' does not give an http(s) URL"),
        ("{\"version\": 1, \"files\": [{\"name\": \"a\", \"size\": 1, \"sha256\": \"SHA\"}]}",
         "manifest.json:1:26: files[0] has no 'url'"),
        ("{\"version\": 1, \"files\": [{\"name\": \"a\", \"url\": \"a\", \"size\": 1, \"sha256\": \"SHA\", \"colour\": 1}]}",
         "manifest.json:1:141: unknown key 'colour' in files[0]"),
        ("{\"version\": 1, \"files\": [\n  {\"name\": \"a\",, }]}", "manifest.json:2:"),
        ("<html><body>Login</body></html>", "manifest.json:1:1: the manifest is the string '<html><body>Login</body></html>'"),
        ("", "manifest.json:1:1: the manifest is empty"),
    ])
    func eachMistakeIsOneLineWithItsPlace(text: String, expected: String) {
        let filled = text.replacingOccurrences(of: "SHA", with: Self.sha)
        #expect(firstProblem(filled).hasPrefix(expected), "\(firstProblem(filled))")
    }

    @Test func nameRules() {
        #expect(SyncManifestParser.nameProblem("lobby ad (1).mp4") == nil)
        #expect(SyncManifestParser.nameProblem("") != nil)
        #expect(SyncManifestParser.nameProblem("a\nb.mp4") != nil)
        #expect(SyncManifestParser.nameProblem(String(repeating: "x", count: 256)) != nil)
    }

    @Test func relativeReferencesFollowRFC3986() {
        // RFC 3986 section 5.4.1's normal examples, against its base.
        let base = "http://a/b/c/d;p?q"
        let cases = [("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"), ("/g", "http://a/g"),
                     ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
                     ("../g", "http://a/b/g"), ("../../g", "http://a/g")]
        for (reference, expected) in cases {
            #expect(SyncManifestParser.resolve(reference, against: base) == expected, "\(reference)")
        }
        #expect(SyncManifestParser.resolve("file:///etc/passwd", against: base) == nil)
    }
}
