import Foundation
import KioskCore

/// `--stats-file`: one JSON line per presented frame, for tests and benchmarks:
/// `{"t": <CLOCK_MONOTONIC seconds of the flip>, "item": <playlist index>, "pts": <media
/// seconds>, "dropped": <frames dropped so far>, "video": <a decoded video frame, or filler>,
/// "scanout": "plane" | "prime" | "cpu", "rt": <CLOCK_REALTIME seconds of the flip>}` ("copied":
/// false on a "prime" flip whose frame never went to memory), a playing
/// frame's `"aim"` (the CLOCK_MONOTONIC flip the pacer chose it for: `t` a refresh later is a
/// vblank missed), and with several screens `"display": <the screen's name>`. `rt` lets frame
/// sync across boxes (whose real-time clocks chrony or linuxptp keep together) be measured.
/// Several screens' engines share one file: it is opened for appending, whole lines in each
/// write, so their lines never mix.
///
/// Written on a thread of its own: the presenter formats a line and hands it over. A write()
/// waits while the kernel throttles a process's dirty pages (a slow SD card; a build writing
/// beside the tests), and on the presenter thread that wait would hold a flip. (Suspected,
/// not proven, in test_sync's 100-133 ms flips while a build ran beside it.)
final class StatsWriter {
    private let file: StatsFileThread
    private let display: String?
    private var line = ""

    /// Empties the file (in place: every engine of a run makes its writer before any plays,
    /// and all keep writing to the one file) or creates it.
    init(path: String, display: String? = nil) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StatsError(path: path) }
        file = StatsFileThread(handle: FileHandle(fileDescriptor: fd, closeOnDealloc: false))   // it closes it
        self.display = display
    }

    /// Writes what is queued and ends the writing thread (the presenter's end; again: nothing).
    func finish() { file.finish() }

    struct StatsError: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path): cannot write the stats file" }
    }

    struct Record {
        var flipTime: Double
        var aim: Double? = nil
        var item: Int
        var pts: Double
        var dropped: Int
        var video: Bool
        var generation: Int
        var event: String? = nil
        /// The first ticker's line position, when a ticker runs (layers).
        var ticker: Int? = nil
        /// A transition's look (0-255 each), when the flip showed one.
        var mix: Int? = nil
        var level: Int? = nil
        /// Which path showed the picture: "plane" (a YUV plane scanned the frame out) or "cpu"
        /// (converted into the primary plane's XRGB buffer; filler too).
        var scanout = "cpu"
        /// A "prime" flip whose frame was never copied down to memory: `"copied": false`.
        var uncopied = false
        /// An insert plays (its `item` counts in the insert's own list).
        var insert = false
        /// CLOCK_REALTIME seconds of the flip.
        var realTime = 0.0
    }

    func write(_ record: Record) {
        line.removeAll(keepingCapacity: true)
        line += "{\"t\":"
        Self.appendSixDecimals(record.flipTime, to: &line)
        line += ",\"item\":\(record.item),\"pts\":"
        Self.appendSixDecimals(record.pts, to: &line)
        line += ",\"dropped\":\(record.dropped),\"video\":\(record.video),\"gen\":\(record.generation)"
        if let event = record.event { line += ",\"event\":\"\(event)\"" }
        if let ticker = record.ticker { line += ",\"ticker\":\(ticker)" }
        if let mix = record.mix { line += ",\"mix\":\(mix)" }
        if let level = record.level { line += ",\"level\":\(level)" }
        if let display { line += ",\"display\":\"\(display)\"" }
        if record.insert { line += ",\"insert\":true" }
        if let aim = record.aim {
            line += ",\"aim\":"
            Self.appendSixDecimals(aim, to: &line)
        }
        if record.uncopied { line += ",\"copied\":false" }
        line += ",\"scanout\":\"\(record.scanout)\",\"rt\":"
        Self.appendSixDecimals(record.realTime, to: &line)
        line += "}\n"
        file.append(line)
    }

    /// `value` to the microsecond, as "%.6f" prints it (a half to even; no sign on a zero),
    /// without Foundation's formatter: a line is made at every flip, and four `String(format:)`
    /// a line showed in the vkms guest's profile (BENCHMARKS.md, "Planes"). Not finite: 0 (JSON
    /// has no NaN).
    static func appendSixDecimals(_ value: Double, to line: inout String) {
        guard value.isFinite else { line += "0"; return }
        let magnitude = abs(value)
        guard magnitude < 1e15 else { line += "\(value)"; return }   // no fraction left to print
        // The fraction apart (exact), so a real-time clock's 1.8e9 s keep their last digit.
        var whole = magnitude.rounded(.down)
        var micros = ((magnitude - whole) * 1e6).rounded(.toNearestOrEven)
        if micros >= 1e6 { whole += 1; micros -= 1e6 }
        if value < 0 && (whole > 0 || micros > 0) { line += "-" }
        line += String(UInt64(whole))
        let fraction = String(UInt64(micros))
        line += "." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    /// The real-time clock's reading at the monotonic instant `monotonic` (seconds; a flip is
    /// at most a frame away), as frame sync reads it (`MonotonicClock.realtimeNanoseconds`).
    static func realTime(atMonotonic monotonic: Double) -> Double {
        Double(MonotonicClock.realtimeNanoseconds(atHost: MonotonicClock.hostTime(seconds: monotonic))) / 1e9
    }

    deinit { file.finish() }
}

/// The stats file's writing thread: lines queue in memory (~150 bytes a frame) and go out
/// whole, as many as are waiting in one write, so a reader tailing the file never sees half a
/// record. Up to `mostPending` bytes wait (minutes of
/// frames); past that a write has hung (a dead mount) and new lines are dropped rather than held.
private final class StatsFileThread: @unchecked Sendable {
    // Safe to share: `pending` and `finished` are only touched with `condition` held; `handle`
    // is written to by the worker alone, and closed after it ended.
    private let condition = NSCondition()
    private var pending = ""
    private var finished = false
    private let handle: FileHandle
    private let worker = WorkerThread(name: "kiosk-stats")

    init(handle: FileHandle) {
        self.handle = handle
        worker.start { [self] in run() }
    }

    static let mostPending = 4 << 20

    func append(_ line: String) {
        condition.withLock {
            guard pending.utf8.count < Self.mostPending else { return }
            pending += line
            condition.signal()
        }
    }

    func finish() {
        let first = condition.withLock {
            defer { finished = true; condition.signal() }
            return !finished
        }
        guard first else { return }
        // A write that hangs does not hold the presenter's end (its stop waits 2 s): the
        // file is then left to the process's end.
        if worker.join(timeout: 1) { try? handle.close() }
    }

    private func run() {
        while true {
            let (lines, done) = condition.withLock {
                while pending.isEmpty && !finished { condition.wait() }
                defer { pending.removeAll(keepingCapacity: true) }
                return (pending, finished)
            }
            if !lines.isEmpty { handle.write(Data(lines.utf8)) }
            if done { return }
        }
    }
}
