import Foundation
import Glibc
import KioskCore
import KioskTestSupport
@testable import KioskMedia
import Testing

/// A server on 127.0.0.1 that answers each GET of a path in `files` with 200 and its text, of a
/// path in `redirects` with 302 to its location, and any other with `status` and no body, on a
/// thread of its own, until released.
private final class AnsweringServer: @unchecked Sendable {
    let descriptor: Int32
    let port: Int
    /// What the server's thread answers from: not the server itself, so that the server's
    /// release (its deinit) is what stops the thread.
    private final class Files: @unchecked Sendable {
        let lock = NSLock()
        var byPath: [String: String]
        init(_ byPath: [String: String]) { self.byPath = byPath }
        subscript(path: String) -> String? {
            get { lock.withLock { byPath[path] } }
            set { lock.withLock { byPath[path] = newValue } }
        }
    }
    private let files: Files

    init(files: [String: String] = [:], redirects: [String: String] = [:], status: String = "404 Not Found") throws {
        let (listener, port) = try listenOnLoopback()
        descriptor = listener
        self.port = port
        let files = Files(files)
        self.files = files
        Thread.detachNewThread {
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 && (errno == EINTR || errno == ECONNABORTED) { continue }
                // Shut down: the test is over. Closed here, not in deinit, so that its number
                // is not reused by another test's socket while this loop may still accept on it.
                guard client >= 0 else { close(listener); return }
                // The whole request is read before the answer (a close with bytes unread resets).
                var request: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 4096)
                while !request.suffix(4).elementsEqual("\r\n\r\n".utf8) && request.count < 65_536 {
                    let count = read(client, &chunk, chunk.count)
                    guard count > 0 else { break }
                    request += chunk[..<count]
                }
                let line = String(decoding: request, as: UTF8.self).split(separator: " ")
                let path = line.count > 1 ? String(line[1].dropFirst()) : ""
                let body = files[path]
                let head = redirects[path].map { "302 Found\r\nLocation: \($0)" } ?? (body == nil ? status : "200 OK")
                let answer = Array("HTTP/1.1 \(head)\r\nContent-Length: \(body?.utf8.count ?? 0)\r\n"
                    .appending("Connection: close\r\n\r\n\(body ?? "")").utf8)
                _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(client)
            }
        }
    }

    /// What `path` answers from now on (nil: the status given at the start).
    func serve(_ path: String, _ text: String?) {
        files[path] = text
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    deinit { shutdown(descriptor, Int32(SHUT_RDWR)) }
}

@Suite("HLS playlists read beside FFmpeg: a playlist, none there, or no answer")
struct HLSPlaylistFetchTests {
    private static func fetch(_ url: String) -> HLSPlaylistFetch.Answer {
        HLSPlaylistFetch.mediaPlaylist(url, interrupt: InterruptFlag(), deadlineSeconds: 2)
    }

    private static let media = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:7\n#EXTINF:2,\nlive7.ts\n#EXTINF:2,\nlive8.ts\n"

    @Test func aMediaPlaylistIsReadAndAMasterIsFollowedToItsFirstVariant() throws {
        let server = try AnsweringServer(files: ["low/live.m3u8": Self.media,
                                                 "master.m3u8": "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=500000\nlow/live.m3u8\n"])
        withExtendedLifetime(server) {
            for path in ["low/live.m3u8", "master.m3u8"] {
                guard case .playlist(let playlist) = Self.fetch(server.url(path)) else {
                    Issue.record("\(path): \(Self.fetch(server.url(path)))")
                    continue
                }
                #expect(playlist.mediaSequence == 7 && playlist.segments == ["live7.ts", "live8.ts"], "\(path)")
            }
        }
    }

    /// A master behind a redirect (a CDN sends the player to an edge): its variant is resolved
    /// against where it was found, as FFmpeg's demuxer does, not against the URL asked for
    /// (there, `low/live.m3u8` is not: read as the variant gone).
    @Test func aRedirectedMastersVariantIsLookedForWhereTheMasterWasFound() throws {
        let server = try AnsweringServer(files: ["edge/7/low/live.m3u8": Self.media,
                                                 "edge/7/master.m3u8": "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=500000\nlow/live.m3u8\n"],
                                         redirects: ["master.m3u8": "/edge/7/master.m3u8"])
        withExtendedLifetime(server) {
            guard case .playlist(let playlist) = Self.fetch(server.url("master.m3u8")) else {
                Issue.record("\(Self.fetch(server.url("master.m3u8")))")
                return
            }
            #expect(playlist.mediaSequence == 7 && playlist.segments == ["live7.ts", "live8.ts"])
        }
    }

    /// A master whose first variant is gone while the one FFmpeg plays (told by its bandwidth)
    /// is there: the looks read the played one (without the bandwidth, the first: gone).
    @Test func theVariantFFmpegPlaysIsLookedAtNotTheMastersFirst() throws {
        let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nlow.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=3000000\nhi.m3u8\n"
        let server = try AnsweringServer(files: ["hi.m3u8": Self.media, "master.m3u8": master])
        withExtendedLifetime(server) {
            let look = { (bandwidth: Int?) in
                HLSPlaylistFetch.mediaPlaylist(server.url("master.m3u8"), variantBandwidth: bandwidth,
                                               interrupt: InterruptFlag(), deadlineSeconds: 2)
            }
            guard case .playlist(let playlist) = look(3000000) else { Issue.record("the played variant: \(look(3000000))"); return }
            #expect(playlist.mediaSequence == 7)
            guard case .notThere(variant: true) = look(nil) else { Issue.record("the first, gone: \(look(nil))"); return }
        }
    }

    @Test func aPlaylistNotThereIsToldFromOneThatCouldNotBeRead() throws {
        let server = try AnsweringServer(files: ["junk.m3u8": "not a playlist\n",
                                                 "master.m3u8": "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\ngone.m3u8\n"])
        withExtendedLifetime(server) {
            guard case .notThere(variant: false) = Self.fetch(server.url("live.m3u8")) else {
                Issue.record("404: \(Self.fetch(server.url("live.m3u8")))")
                return
            }
            guard case .failed = Self.fetch(server.url("junk.m3u8")) else { Issue.record("junk read as a playlist, or as none there"); return }
            // A master whose first variant is gone: said as such (FFmpeg may play another).
            guard case .notThere(variant: true) = Self.fetch(server.url("master.m3u8")) else { Issue.record("a gone variant"); return }
        }
        // A file that is not there (the file protocol's ENOENT), as a 404.
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("hls-fetch-\(UUID().uuidString).m3u8").path
        guard case .notThere(variant: false) = Self.fetch(missing) else { Issue.record("a missing file: \(Self.fetch(missing))"); return }
    }

    @Test func aServerErrorOrNoServerIsAFailureNotAPlaylistGone() throws {
        let broken = try AnsweringServer(status: "503 Service Unavailable")
        withExtendedLifetime(broken) {
            guard case .failed = Self.fetch(broken.url("live.m3u8")) else { Issue.record("503 taken for a playlist or for none there"); return }
        }
        // Port 1 (tcpmux): nothing listens there on a test machine, and no test binds it.
        guard case .failed = Self.fetch("http://127.0.0.1:1/live.m3u8") else { Issue.record("a refused connection taken for none there"); return }
    }

    @Test func aLookBeforeAReopenThatFindsNothingThereSkipsItAndTheRestartIsToldAfter() throws {
        let server = try AnsweringServer(files: ["live.m3u8": Self.playlist(first: 0, count: 2)])
        let looks = HLSLiveLooks(url: server.url("live.m3u8"))
        let flag = InterruptFlag()
        withExtendedLifetime(server) {
            looks.lookIfDue(flag)                       // while playing: 0-1
            server.serve("live.m3u8", nil)              // the packager restarts on an emptied folder
            guard case .notThere = looks.decideReconnect(flag) else { Issue.record("a 404 reopened on"); return }
            server.serve("live.m3u8", Self.playlist(first: 0, count: 1))
            // A segment back at once: too soon for the pace to tell, but after a 404 it is
            // written anew (a restart with the same names).
            guard case .decided(.rejoin(newTimeline: true), _) = looks.decideReconnect(flag) else {
                Issue.record("the restart after a 404 not told")
                return
            }
        }
    }

    @Test func aMastersFirstVariantNotThereIsNoReasonToSkipTheReopen() throws {
        let server = try AnsweringServer(files: ["master.m3u8": "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nlow.m3u8\n"])
        withExtendedLifetime(server) {
            guard case .unread = HLSLiveLooks(url: server.url("master.m3u8")).decideReconnect(InterruptFlag()) else {
                Issue.record("a gone variant skipped the reopen")
                return
            }
        }
    }

    private static func playlist(first: Int, count: Int) -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
            + (first..<(first + count)).map { "#EXTINF:1,\nlive\($0).ts\n" }.joined()
    }
}
