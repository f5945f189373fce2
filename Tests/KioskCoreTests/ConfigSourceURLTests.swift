import Testing
@testable import KioskCore

/// Item URLs kiosk cannot open, refused by `kiosk check` at their line: each once passed and
/// then, as a live source, was tried again forever (a new user's session).
@Suite("Item URLs")
struct ConfigSourceURLTests {
    static let badValues: [ConfigErrorCase] = [
        ConfigErrorCase(name: "unknown scheme", yaml: "items:\n  - a.mp4\n  - udpp://127.0.0.1:5000\n", line: 3, column: 5,
                        fragment: "item 2 is the URL 'udpp://127.0.0.1:5000', which kiosk cannot open: 'udpp' is not a scheme "
                            + "kiosk plays; expected one of: http, https, hls, rtsp"),
        ConfigErrorCase(name: "misspelt http", yaml: "items:\n  - {path: htp://127.0.0.1/x.mp4}\n", line: 2, column: 12,
                        fragment: "'htp' is not a scheme kiosk plays; expected one of: http"),
        ConfigErrorCase(name: "port not a number", yaml: "items:\n  - \"udp://127.0.0.1:notaport\"\n", line: 2, column: 5,
                        fragment: "its port is 'notaport'; expected a number from 1 to 65535"),
        ConfigErrorCase(name: "port 0", yaml: "items:\n  - rtsp://cam:0/live\n", line: 2, column: 5,
                        fragment: "its port is '0'; expected a number from 1 to 65535"),
        ConfigErrorCase(name: "port too large", yaml: "items:\n  - path: rtsp://user:pw@cam:70000/live\n", line: 2, column: 11,
                        fragment: "item 1 is the URL 'rtsp://user:***@cam:70000/live', which kiosk cannot open: its port is '70000'"),
        ConfigErrorCase(name: "unclosed IPv6", yaml: "items:\n  - \"http://[::1\"\n", line: 2, column: 5,
                        fragment: "its IPv6 host opens '[' and never closes it"),
        ConfigErrorCase(name: "text after IPv6", yaml: "items:\n  - \"http://[::1]8080/a.mp4\"\n", line: 2, column: 5,
                        fragment: "'8080' follows its IPv6 host [::1]; expected nothing there, or :port"),
        ConfigErrorCase(name: "no host", yaml: "items:\n  - http:///x.mp4\n", line: 2, column: 5,
                        fragment: "it has no host; expected http://host/..."),
        ConfigErrorCase(name: "in a playlist", yaml: "items: [a.mp4]\nplaylists:\n  news: [\"rtsp://cam:port/1\"]\n",
                        line: 3, column: 10, fragment: "item 1 of playlists.news is the URL 'rtsp://cam:port/1'"),
        ConfigErrorCase(name: "a timed insert", yaml: "items: [a.mp4]\nschedule:\n  inserts:\n    - {at: \"12:00\", item: \"srtt://x:9000\"}\n",
                        line: 4, column: 27, fragment: "insert 1 is the URL 'srtt://x:9000', which kiosk cannot open: 'srtt' is not"),
        ConfigErrorCase(name: "the music bed", yaml: "items: [a.mp4]\naudio_track:\n  items: [\"icy://radio/stream\"]\n",
                        line: 3, column: 11, fragment: "audio_track item 1 is the URL 'icy://radio/stream'"),
    ]

    @Test func nearMissesAreSuggested() {
        for (url, meant) in [("udpp://127.0.0.1:5000", "udp"), ("htp://127.0.0.1/x.mp4", "http"), ("rtspp://cam/1", "rtsp"),
                             ("HTTPSS://cdn/a.mp4", "https")] {
            let message = SourceURLCheck.problem(in: url) ?? ""
            #expect(message.hasSuffix("(did you mean '\(meant)'?)"), "\(url): \(message)")
        }
    }

    /// What FFmpeg opens as written: listeners without a host, credentials with an '@', IPv6
    /// hosts, HLS over a scheme, capture devices, schemes in capitals.
    @Test(arguments: ["udp://@:5000", "udp://@239.1.1.1:5000", "udp://:5000", "srt://:9000?mode=listener",
                      "rist://@:1968", "tcp://:4000?listen", "rtp://239.1.1.1:5004", "rtsp://user:p@ss@cam:554/stream",
                      "http://[::1]:8080/a.mp4", "http://[fe80::1]/a.mp4", "hls+https://cdn/x.m3u8", "RTSP://cam/1",
                      "HTTPS://cdn.example.com/v.mp4", "smb://nas/share/a.mp4", "sftp://u@nas/a.mp4", "ftp://nas/a.mp4",
                      "rtmps://live.example.com/app/key", "rtmpe://h/app", "rtmpte://h/app", "rtmpts://h/app",
                      "mmsh://h/a", "mmst://h/a", "rtsps://cam:322/1", "tls://h:443", "https://cdn?t=a:b",
                      "v4l2:///dev/video0", "file:///srv/a.mp4"])
    func acceptsWhatFFmpegOpens(_ url: String) {
        #expect(SourceURLCheck.problem(in: url) == nil)
        #expect(parseDiagnostics("items:\n  - \"\(url)\"\n").isEmpty, "\(parseDiagnostics("items:\n  - \"\(url)\"\n"))")
    }

    @Test func pathsAndPseudoSourcesAreNotURLs() {
        for text in ["clips/a.mp4", "lavfi:testsrc2", "clips/a b://c.mp4", "/srv/x:1.mp4"] {
            #expect(SourceURLCheck.problem(in: text) == nil, "\(text)")
        }
    }
}
