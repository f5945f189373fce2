import Foundation
import KioskCore
import KioskMedia
import Logging

/// What was just put on screen, for whoever watches the screen: the stats file, the headless
/// preview's shots (and next, proof-of-play and screenshots). Each is an observer of presented
/// frames, not a branch of the playback loop.
struct PresentedFrame {
    /// CLOCK_MONOTONIC seconds of the flip.
    var flipTime = 0.0
    /// The flip a playing frame was chosen for by the pacer (CLOCK_MONOTONIC seconds): a
    /// `flipTime` a refresh or more after it is a vblank missed (the process held up, a draw
    /// longer than foreseen), whatever frame the timeline wanted. nil for untimed pictures.
    var aim: Double?
    /// The playlist index (-1: the idle screen); during an insert, its index in the insert's
    /// own list (`insert` says so).
    var item: Int
    /// Media seconds in the item (0 for filler).
    var pts: Double
    var dropped: Int
    /// A decoded frame, or filler (black, the idle screen).
    var video: Bool
    var generation: Int
    /// Why it was shown again ("overlay": a redraw of the same frame), when it was.
    var event: String?
    /// The CPU-drawn buffer on screen; nil when a plane scanned the frame out.
    var buffer: PixelBuffer?
    /// The first ticker's line position (its left edge, in pixels), when a ticker runs.
    var ticker: Int?
    /// The transition's look when the flip showed one (not plain).
    var look: TransitionLook?
    /// An insert (a trigger, `play_item_once`, the schedule's) is on screen, not the loop.
    var insert = false
    /// The plane shows another device's memory, imported without a copy (`buffer` is nil).
    var zeroCopy = false
    /// ... and the frame was never copied down to memory either (`PrimeHandOn.copyDown`).
    var uncopied = false

    /// How the picture reached the screen, as the stats file says it.
    var scanout: String { buffer != nil ? "cpu" : zeroCopy ? "prime" : "plane" }
}

protocol PresentedFrameObserver: AnyObject {
    func presented(_ frame: PresentedFrame)
}

extension StatsWriter: PresentedFrameObserver {
    func presented(_ frame: PresentedFrame) {
        write(.init(flipTime: frame.flipTime, aim: frame.aim, item: frame.item, pts: frame.pts, dropped: frame.dropped, video: frame.video,
                    generation: frame.generation, event: frame.event, ticker: frame.ticker, mix: frame.look?.incoming, level: frame.look?.level, scanout: frame.scanout,
                    uncopied: frame.uncopied, insert: frame.insert, realTime: StatsWriter.realTime(atMonotonic: frame.flipTime)))
    }
}

/// The headless preview (`--snapshot-dir`): what is on screen, every `interval`, as shot-NNNN.png.
final class SnapshotSaver: PresentedFrameObserver {
    let directory: String
    let interval: MediaTime
    let logger: Logger
    private var last: MediaTime?
    private var taken = 0

    init(directory: String, interval: MediaTime, logger: Logger) {
        self.directory = directory
        self.interval = interval
        self.logger = logger
    }

    func presented(_ frame: PresentedFrame) {
        guard let buffer = frame.buffer else { return }
        let now = MonotonicClock.hostTime()
        if let last, now - last < interval { return }
        last = now
        taken += 1
        let path = directory + "/" + String(format: "shot-%04d.png", taken)
        do { try PNGWriter.write(buffer, to: path) } catch { logger.warning("snapshot: \(error)") }
    }
}
