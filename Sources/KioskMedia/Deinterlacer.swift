import CFFmpeg
import CKioskShim
import KioskCore

/// Weaves frames flagged interlaced (a broadcast master's 1080i50, an MPEG-2 TS recording, a
/// DV camcorder's tape: two fields a field's time apart in one frame) into whole frames with
/// FFmpeg's bwdif (yadif's successor), on the decode thread, so a moving edge shows no comb on
/// a progressive panel. One frame out for each frame in (`send_frame`: the stream's frame rate
/// and timestamps kept, as VLC's and Kodi's default deinterlacing does); once it runs, frames
/// not flagged go through untouched (`deint=interlaced`: a soft-telecined or mixed stream).
/// bwdif looks at the next frame's fields, so one frame is held back until the next comes or
/// the stream ends (`finish`). Built for one picture size and format; a frame of another (a
/// resolution change) ends that graph, its frames still delivered first, and starts a new one.
final class Deinterlacer {
    /// What a graph is built for; a frame that differs needs another.
    private struct Input: Equatable {
        var width: Int32, height: Int32, format: Int32, aspectNum: Int32, aspectDen: Int32

        init(_ frame: UnsafeMutablePointer<AVFrame>) {
            width = frame.pointee.width
            height = frame.pointee.height
            format = frame.pointee.format
            aspectNum = frame.pointee.sample_aspect_ratio.num
            aspectDen = frame.pointee.sample_aspect_ratio.den
        }
    }

    /// Frames bwdif holds at once (previous, current, next), which a hardware decoder's pool
    /// must have beyond the queue's (`ItemPipeline.heldFrames`).
    static let heldFrames = 3
    /// The filter, and its options as FFmpeg's `-vf` takes them (`deint`: which frames).
    static let filter = "bwdif"
    static func options(everyFrame: Bool) -> String {
        "mode=send_frame:parity=auto:deint=" + (everyFrame ? "all" : "interlaced")
    }

    private let source: String
    private let timeBase: AVRational
    private let everyFrame: Bool
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var input: Input?
    private var bufferSource: UnsafeMutablePointer<AVFilterContext>?
    private var bufferSink: UnsafeMutablePointer<AVFilterContext>?
    /// Frames of an ended graph not yet taken, oldest first.
    private var ready: [UnsafeMutablePointer<AVFrame>] = []
    private var finished = false

    /// `timeBase`: the stream's, which frames come in and go out in; `everyFrame`: frames not
    /// flagged interlaced are woven too. Throws when libavfilter or bwdif cannot be had, naming
    /// `source`.
    init(source: String, timeBase: AVRational, like frame: UnsafeMutablePointer<AVFrame>, everyFrame: Bool = false) throws {
        self.source = source
        self.timeBase = timeBase
        self.everyFrame = everyFrame
        try build(for: Input(frame))
    }

    deinit {
        endGraph(keeping: false)
        for var frame in ready.map(Optional.some) { av_frame_free(&frame) }
    }

    /// Takes `frame` (its references move into the filter; the struct is freed here). `ticks`:
    /// its time in the stream's time base, nil when it has none. A failure drops the frame.
    func push(_ frame: UnsafeMutablePointer<AVFrame>, ticks: Int64?) throws {
        var owned: UnsafeMutablePointer<AVFrame>? = frame
        defer { av_frame_free(&owned) }
        let shape = Input(frame)
        // A graph told the end takes no more frames: the decoder's `.finished` is also any
        // decode error, after which packets come on (a damaged TS), so a new graph goes on.
        if shape != input || finished {
            endGraph(keeping: true)
            try build(for: shape)
            finished = false
        }
        frame.pointee.pts = ticks ?? kiosk_nopts_value()
        let result = kiosk_av_buffersrc_add_frame(bufferSource, frame)
        guard result >= 0 else { throw failure("bwdif refused a frame: \(ffmpegErrorText(result))") }
    }

    /// Ends the stream: the held frame can be taken. True the first time after frames came.
    func finish() -> Bool {
        guard !finished, graph != nil else { return false }
        finished = true
        _ = kiosk_av_buffersrc_add_frame(bufferSource, nil)
        return true
    }

    /// The next woven frame (the caller owns it), its `pts` and `best_effort_timestamp` in the
    /// stream's time base; nil while bwdif waits for the next frame.
    func pull() -> UnsafeMutablePointer<AVFrame>? {
        if !ready.isEmpty { return ready.removeFirst() }
        return takeFromSink()
    }

    private func takeFromSink() -> UnsafeMutablePointer<AVFrame>? {
        guard let bufferSink, let frame = av_frame_alloc() else { return nil }
        guard kiosk_av_buffersink_get_frame(bufferSink, frame) >= 0 else {
            var empty: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&empty)
            return nil
        }
        // bwdif's output counts half-frame ticks (its time base is half the input's).
        if frame.pointee.pts != kiosk_nopts_value() {
            frame.pointee.pts = av_rescale_q(frame.pointee.pts, kiosk_av_buffersink_get_time_base(bufferSink), timeBase)
        }
        frame.pointee.best_effort_timestamp = frame.pointee.pts
        // Its duration is in either time base, by FFmpeg's version: said unknown (a woven frame
        // is a video's, never held on purpose: `SeamTiming`).
        kiosk_frame_set_duration(frame, 0)
        return frame
    }

    /// Frees the graph; with `keeping`, its held frame is finished and kept in `ready` first.
    private func endGraph(keeping: Bool) {
        if keeping, graph != nil {
            if !finished { _ = kiosk_av_buffersrc_add_frame(bufferSource, nil) }
            while let frame = takeFromSink() { ready.append(frame) }
        }
        if graph != nil { kiosk_avfilter_graph_free(&graph) }
        bufferSource = nil
        bufferSink = nil
        input = nil
    }

    private func build(for shape: Input) throws {
        if let reason = kiosk_avfilter_load() { throw failure("libavfilter is not available: \(String(cString: reason))") }
        guard let made = kiosk_avfilter_graph_alloc() else { throw failure("out of memory") }
        graph = made
        let aspect = shape.aspectNum > 0 && shape.aspectDen > 0 ? "\(shape.aspectNum)/\(shape.aspectDen)" : "1/1"
        let format = av_get_pix_fmt_name(AVPixelFormat(rawValue: shape.format)).map { String(cString: $0) } ?? "\(shape.format)"
        let arguments = "video_size=\(shape.width)x\(shape.height):pix_fmt=\(format)"
            + ":time_base=\(timeBase.num)/\(timeBase.den):pixel_aspect=\(aspect)"
        do {
            let source = try create("buffer", name: "in", arguments: arguments, in: made)
            let weave = try create(Self.filter, name: "deinterlace", arguments: Self.options(everyFrame: everyFrame), in: made)
            let sink = try create("buffersink", name: "out", arguments: nil, in: made)
            try link(source, weave)
            try link(weave, sink)
            let result = kiosk_avfilter_graph_config(made)
            guard result >= 0 else { throw failure("cannot configure \(Self.filter): \(ffmpegErrorText(result))") }
            bufferSource = source
            bufferSink = sink
            input = shape
        } catch {
            kiosk_avfilter_graph_free(&graph)
            throw error
        }
    }

    private func create(_ filterName: String, name: String, arguments: String?,
                        in graph: UnsafeMutablePointer<AVFilterGraph>) throws -> UnsafeMutablePointer<AVFilterContext> {
        try FilterGraphParts.create(filterName, name: name, arguments: arguments, in: graph, failure: failure)
    }

    private func link(_ from: UnsafeMutablePointer<AVFilterContext>, _ to: UnsafeMutablePointer<AVFilterContext>) throws {
        try FilterGraphParts.link(from, to, failure: failure)
    }

    private func failure(_ reason: String) -> MediaError {
        MediaError(source: NetworkURL.masked(source), reason: "deinterlacing: " + reason)
    }
}
