import Foundation
import KioskCore
import KioskDisplay
import KioskMedia
import Logging

/// `kiosk bench`'s race, run by the shipped engine: a `QueuePlayer` plays the file once,
/// untimed (each frame presented as soon as it is decoded), on a headless display that flips at
/// once. The decode thread, frame queue, scaler and presenter are the ones a screen gets, so the
/// race measures what plays, not a copy of it.
public enum EngineRace {
    public struct Result: Sendable {
        public var frames: Int
        /// From before opening the file to the last counted flip.
        public var seconds: Double
        public var firstFrameSeconds: Double?
    }

    /// Plays `media` onto `display` until it ends or `limit` frames (all when nil) are shown.
    /// A file that cannot play throws a `MediaError` with the engine's reason.
    public static func run(media: String, display: HeadlessDisplay, gravity: VideoGravity, threads: Int,
                           limit: Int?, deinterlace: Deinterlacing = .auto, logger: Logger) throws -> Result {
        let item = ItemConfig(source: ItemSource.classify(media, baseDirectory: FileManager.default.currentDirectoryPath,
                                                          fileSystem: LocalFileSystem()),
                              location: SourceLocation(file: "argument 1", line: 0, column: 0))
        let entries = PlaylistExpander().expand([item]).entries
        guard !entries.isEmpty else { throw MediaError(source: media, reason: "nothing to play") }
        var settings = PlayerSettings()
        settings.playback.gravity = gravity
        settings.playback.deinterlace = deinterlace
        settings.decoderThreads = .fixed(threads)
        settings.untimed = true
        settings.exitWhenFinished = true
        let counter = CountingOutput(display, limit: limit)
        let skipped = SkipReason()
        let start = HeadlessDisplay.monotonicSeconds()
        // The race says itself why a file cannot play (one line); the engine's own lines (the
        // skip, the empty playlist) only when debugging.
        var engineLogger = logger
        if engineLogger.logLevel > .debug { engineLogger.logLevel = .critical }
        let player = try QueuePlayer(output: counter, playlist: PlaylistCursor(entries: entries, loopMode: .none),
                                     settings: settings, logger: engineLogger) { event in
            if case .itemSkipped(_, let reason) = event { skipped.note(reason) }
        }
        player.start()
        // Ends by itself at the file's end or when it cannot play; a limit ends it sooner.
        while !player.waitUntilFinished(timeout: 0.005) {
            if counter.reachedLimit { break }
        }
        player.stop(timeout: 10)
        let flips = counter.flips
        if flips.count == 0, let reason = skipped.reason { throw MediaError(source: media, reason: reason) }
        return Result(frames: flips.count, seconds: (flips.last ?? HeadlessDisplay.monotonicSeconds()) - start,
                      firstFrameSeconds: flips.first.map { $0 - start })
    }
}

/// The first reason an item was skipped for (set on the presenter thread, read after it ended).
private final class SkipReason: @unchecked Sendable {
    private let lock = NSLock()
    private var first: String?
    func note(_ reason: String) { lock.withLock { if first == nil { first = reason } } }
    var reason: String? { lock.withLock { first } }
}

/// Counts the flips of the race and keeps the limit's picture on screen: presents after the
/// limit are not shown (the engine runs on until it is stopped, a few frames later).
private final class CountingOutput: VideoOutput, @unchecked Sendable {
    // `first`/`last`/`count` are written on the presenter thread under `lock`.
    private let base: HeadlessDisplay
    private let limit: Int?
    private let lock = NSLock()
    private var first: Double?
    private var last: Double?
    private var count = 0

    init(_ base: HeadlessDisplay, limit: Int?) {
        self.base = base
        self.limit = limit
    }

    var size: PixelSize { base.size }
    var refreshInterval: MediaTime { base.refreshInterval }
    var softwareRotation: Rotation { base.softwareRotation }
    var summary: String { base.summary }
    var scanoutSize: PixelSize { base.scanoutSize }
    var rotation: Rotation { base.rotation }
    var directVideo: DirectVideoOutput? { nil }
    func close() throws { try base.close() }
    func expectedFlip(after host: Double) -> Double { base.expectedFlip(after: host) }
    var flipsWhenAsked: Bool { base.flipsWhenAsked }
    var flipsOnVblankGrid: Bool { base.flipsOnVblankGrid }
    func setPower(on: Bool) throws -> Bool { try base.setPower(on: on) }
    func backBuffer() throws -> PixelBuffer { try base.backBuffer() }

    func present(_ buffer: PixelBuffer) throws -> Double {
        if reachedLimit { return HeadlessDisplay.monotonicSeconds() }
        let flip = try base.present(buffer)
        lock.withLock {
            if first == nil { first = flip }
            last = flip
            count += 1
        }
        return flip
    }

    var reachedLimit: Bool { lock.withLock { limit.map { count >= $0 } ?? false } }

    /// The first and last flip, and how many there were.
    var flips: (count: Int, first: Double?, last: Double?) { lock.withLock { (count, first, last) } }
}
