import Foundation
import KioskCore

/// `--stats-file`: one JSON line per presented frame, for tests and benchmarks:
/// `{"t": <CLOCK_MONOTONIC seconds of the flip>, "item": <playlist index>, "pts": <media
/// seconds>, "dropped": <frames dropped so far>, "video": <a decoded video frame, or filler>,
/// "scanout": "plane" | "prime" | "cpu", "rt": <CLOCK_REALTIME seconds of the flip>}`, and with several
/// screens `"display": <the screen's name>`. `rt` lets frame sync across boxes (whose real-time
/// clocks chrony or linuxptp keep together) be measured. Several screens' engines share one
/// file: it is opened for appending, each line one write, so their lines never mix.
final class StatsWriter {
    private let handle: FileHandle
    private let display: String?
    private var line = ""

    /// Empties the file (in place: every engine of a run makes its writer before any plays,
    /// and all keep writing to the one file) or creates it.
    init(path: String, display: String? = nil) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StatsError(path: path) }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)   // deinit closes it
        self.display = display
    }

    struct StatsError: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path): cannot write the stats file" }
    }

    struct Record {
        var flipTime: Double
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
        /// An insert plays (its `item` counts in the insert's own list).
        var insert = false
        /// CLOCK_REALTIME seconds of the flip.
        var realTime = 0.0
    }

    func write(_ record: Record) {
        line.removeAll(keepingCapacity: true)
        line += "{\"t\":" + String(format: "%.6f", record.flipTime)
        line += ",\"item\":\(record.item),\"pts\":" + String(format: "%.6f", record.pts)
        line += ",\"dropped\":\(record.dropped),\"video\":\(record.video),\"gen\":\(record.generation)"
        if let event = record.event { line += ",\"event\":\"\(event)\"" }
        if let ticker = record.ticker { line += ",\"ticker\":\(ticker)" }
        if let mix = record.mix { line += ",\"mix\":\(mix)" }
        if let level = record.level { line += ",\"level\":\(level)" }
        if let display { line += ",\"display\":\"\(display)\"" }
        if record.insert { line += ",\"insert\":true" }
        line += ",\"scanout\":\"\(record.scanout)\",\"rt\":" + String(format: "%.6f", record.realTime)
        line += "}\n"
        // One write per line: a reader tailing the file never sees half a record.
        handle.write(Data(line.utf8))
    }

    /// The real-time clock's reading at the monotonic instant `monotonic` (seconds; a flip is
    /// at most a frame away), as frame sync reads it (`MonotonicClock.realtimeNanoseconds`).
    static func realTime(atMonotonic monotonic: Double) -> Double {
        Double(MonotonicClock.realtimeNanoseconds(atHost: MonotonicClock.hostTime(seconds: monotonic))) / 1e9
    }

    deinit {
        try? handle.close()
    }
}
