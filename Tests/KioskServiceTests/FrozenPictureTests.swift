import Foundation
import Glibc
import KioskCore
import KioskDisplay
import KioskPlayer
import KioskTestSupport
import Testing

/// A picture frozen in a state that claims to play (issue 12): the watchdog is not fed while
/// it lasts, and the stall guard ends the item, after which the next one plays and the pings
/// come back. The frozen item is a terminal fed part of an MPEG-TS and then silent: its reader
/// blocks as on a dead network mount, with a picture up and the player "playing".
@Suite struct FrozenPictureTests {
    @Test func theWatchdogStarvesWhileFrozenAndTheStallGuardEndsTheItem() throws {
        let clip = try MediaFixtures.clip("frozen-source.ts", ["-f", "lavfi", "-i",
                                                               MediaFixtures.patternFilter(width: 160, height: 120, rate: 25, seconds: 10),
                                                               "-c:v", "libx264", "-preset", "ultrafast", "-g", "25",
                                                               "-pix_fmt", "yuv420p", "-f", "mpegts"])
        let good = try MediaFixtures.pattern("frozen-next.mp4", width: 160, height: 120, rate: 25, seconds: 1)
        let source = try SilentTerminal(feeding: Array(try Data(contentsOf: URL(fileURLWithPath: clip))), fraction: 0.6)
        defer { source.close() }

        // Watchdog 2 s: progress overdue for 1 s starves it. The guard waits 6 s, longer, so
        // the frozen state is seen by the watchdog first.
        let notifier = RecordingNotifier(watchdogInterval: 2)
        var settings = PlayerSettings()
        settings.playback.stallTimeout = MediaTime(value: 6, timescale: 1)
        let skipped = SkippedItems()
        let entries = [source.path, good].enumerated().map { index, path in
            PlaylistEntry(media: .file(path), item: ItemConfig(source: .file(path), location: SourceLocation(file: "test", line: index + 1, column: 1)),
                          itemIndex: index)
        }
        let player = try QueuePlayer(output: HeadlessDisplay(size: PixelSize(width: 160, height: 120)),
                                     playlist: PlaylistCursor(entries: entries, loopMode: .none), settings: settings,
                                     logger: PlayerFixture.logger, onEvent: { event in
                                         if case .itemSkipped(let index, let reason) = event { skipped.add(index, reason) }
                                     })
        let supervisor = ServiceSupervisor(player: player, notifier: notifier, logger: PlayerFixture.logger)
        player.start()
        defer { player.stop() }

        let frozen = PlayerFixture.poll(supervisor, timeout: 60) {
            notifier.statuses.last?.hasPrefix("stalled: the picture has been frozen") == true
        }
        #expect(frozen, "\(notifier.statuses)")
        #expect(player.framesPresented > 25, "the part that came was played first")
        #expect(skipped.all.isEmpty, "the guard ended it before the watchdog saw the freeze")
        let pings = notifier.pings
        for _ in 0..<5 { supervisor.check() }
        #expect(notifier.pings == pings, "no watchdog ping while the picture is frozen")

        // The guard ends the frozen item; the next plays and the watchdog is fed again.
        let resumed = PlayerFixture.poll(supervisor, timeout: 60) { notifier.pings > pings && player.currentItemIndex == 1 }
        #expect(resumed, "\(notifier.statuses)")
        #expect(skipped.all.count == 1)
        #expect(skipped.all.first?.0 == 0)
        #expect(skipped.all.first?.1.hasPrefix("stalled: no new frame and no sound for 6.0 s while playing") == true,
                "\(skipped.all)")

        // The playlist (loop: none) ends on the next item's last frame: nothing should play
        // then, so nothing is overdue and the watchdog stays fed.
        let ended = PlayerFixture.poll(supervisor, timeout: 30) { player.timeControlStatus != .playing }
        #expect(ended)
        let pingsAtEnd = notifier.pings
        _ = PlayerFixture.poll(supervisor, timeout: 3) { false }
        #expect(notifier.pings > pingsAtEnd, "\(notifier.statuses)")
        #expect(notifier.statuses.last?.hasPrefix("stalled") == false, "\(notifier.statuses)")
    }
}

/// The items the player skipped, with why, collected from its events.
private final class SkippedItems: @unchecked Sendable {
    // Safe to share: `items` is only touched with `lock` held.
    private let lock = NSLock()
    private var items: [(Int, String)] = []
    func add(_ index: Int, _ reason: String) { lock.withLock { items.append((index, reason)) } }
    var all: [(Int, String)] { lock.withLock { items } }
}

/// A pseudo-terminal in raw mode whose slave side reads the first `fraction` of some bytes and
/// then nothing, without an end: a local path whose reads block.
private final class SilentTerminal: @unchecked Sendable {
    let path: String
    private let master: Int32
    private let slave: Int32

    init(feeding bytes: [UInt8], fraction: Double) throws {
        // Swift's Glibc module leaves out the pseudo-terminal calls (_XOPEN_SOURCE): from libc.
        typealias Call = @convention(c) (Int32) -> Int32
        typealias NameCall = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        func libc<T>(_ name: String, _: T.Type) throws -> T {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { throw FixtureError("no \(name) in libc") }
            return unsafeBitCast(symbol, to: T.self)
        }
        let openpt = try libc("posix_openpt", Call.self), grant = try libc("grantpt", Call.self)
        let unlock = try libc("unlockpt", Call.self), name = try libc("ptsname", NameCall.self)
        master = openpt(O_RDWR | O_NOCTTY)
        guard master >= 0, grant(master) == 0, unlock(master) == 0, let name = name(master) else {
            throw FixtureError("no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        path = String(cString: name)
        slave = open(path, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw FixtureError("cannot open \(path): \(String(cString: strerror(errno)))") }
        var settings = termios()
        tcgetattr(slave, &settings)
        cfmakeraw(&settings)
        tcsetattr(slave, TCSANOW, &settings)
        let part = Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
        let fd = master
        let writer = Thread {
            var offset = 0
            while offset < part.count {
                let written = part[offset...].withUnsafeBytes { write(fd, $0.baseAddress, Swift.min(4096, $0.count)) }
                if written <= 0 { return }   // closed at the end of the test
                offset += written
            }
        }
        writer.start()
    }

    func close() {
        Glibc.close(master)
        Glibc.close(slave)
    }
}
