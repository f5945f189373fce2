import CFFmpeg
import CKioskShim
import KioskCore

/// Plays audio faster or slower at the same pitch with FFmpeg's atempo filter (libavfilter),
/// on interleaved samples already in the output's format.
///
/// atempo takes 0.5...100 on this FFmpeg (5.1), and above 2 it skips samples instead of
/// blending them; rates outside 0.5...2 are therefore a chain of instances, each within it
/// (4.0 = 2.0 x 2.0, 0.25 = 0.5 x 0.5).
public final class TempoFilter {
    public let format: AudioFormat
    public let rate: Rational
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?
    private var framesIn: Int64 = 0
    private var finished = false

    /// The atempo factors for `rate`: each within 0.5...2, multiplying to `rate`.
    public static func chain(for rate: Double) -> [Double] {
        var factors: [Double] = []
        var remaining = rate
        while remaining > 2 { factors.append(2); remaining /= 2 }
        while remaining < 0.5 { factors.append(0.5); remaining /= 0.5 }
        factors.append(remaining)
        return factors
    }

    public init(format: AudioFormat, rate: Rational) throws {
        let value = rate.doubleValue
        guard value.isFinite, value >= 0.25, value <= 4 else {
            throw MediaError(source: "audio", reason: "tempo \(rate) is outside 0.25...4")
        }
        self.format = format
        self.rate = rate
        do {
            try build()
        } catch {
            kiosk_avfilter_graph_free(&graph)
            throw error
        }
    }

    deinit {
        kiosk_avfilter_graph_free(&graph)
    }

    private func build() throws {
        // libavfilter is loaded now, not at start-up: only rates other than 1 need it.
        if let reason = kiosk_avfilter_load() { throw failure("libavfilter is not available: \(String(cString: reason))") }
        guard let graph = kiosk_avfilter_graph_alloc() else { throw failure("out of memory") }
        self.graph = graph
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, Int32(format.channels))
        defer { av_channel_layout_uninit(&layout) }
        let formatName = String(cString: av_get_sample_fmt_name(format.sampleFormat.ffmpegFormat))
        let arguments = "time_base=1/\(format.sampleRate):sample_rate=\(format.sampleRate):sample_fmt=\(formatName):channel_layout=\(Resampler.describe(&layout))"
        source = try create("abuffer", name: "in", arguments: arguments)
        sink = try create("abuffersink", name: "out", arguments: nil)
        var previous = source!
        for (index, factor) in TempoFilter.chain(for: rate.doubleValue).enumerated() {
            let tempo = try create("atempo", name: "tempo\(index)", arguments: "tempo=\(factor)")
            try link(previous, tempo)
            previous = tempo
        }
        try link(previous, sink!)
        let result = kiosk_avfilter_graph_config(graph)
        guard result >= 0 else { throw failure("cannot configure atempo: \(ffmpegErrorText(result))") }
    }

    private func create(_ filterName: String, name: String, arguments: String?) throws -> UnsafeMutablePointer<AVFilterContext> {
        try FilterGraphParts.create(filterName, name: name, arguments: arguments, in: graph, failure: failure)
    }

    private func link(_ from: UnsafeMutablePointer<AVFilterContext>, _ to: UnsafeMutablePointer<AVFilterContext>) throws {
        try FilterGraphParts.link(from, to, failure: failure)
    }

    private func failure(_ reason: String) -> MediaError {
        MediaError(source: "audio tempo \(rate.doubleValue)", reason: reason)
    }

    /// Feeds interleaved frames; appends what the filter has ready to `destination` and
    /// returns the frames appended (atempo holds a window, ~tens of ms, back).
    @discardableResult
    public func process(_ samples: UnsafeRawBufferPointer, appendingTo destination: inout [UInt8]) throws -> Int {
        let frameCount = samples.count / format.bytesPerFrame
        guard frameCount > 0, !finished else { return 0 }
        guard let input = av_frame_alloc() else { throw failure("out of memory") }
        defer { var pointer: UnsafeMutablePointer<AVFrame>? = input; av_frame_free(&pointer) }
        input.pointee.format = format.sampleFormat.ffmpegFormat.rawValue
        input.pointee.sample_rate = Int32(format.sampleRate)
        av_channel_layout_default(&input.pointee.ch_layout, Int32(format.channels))
        input.pointee.nb_samples = Int32(frameCount)
        input.pointee.pts = framesIn
        var result = av_frame_get_buffer(input, 0)
        guard result >= 0 else { throw failure("out of memory for \(frameCount) frames") }
        input.pointee.data.0!.update(from: samples.baseAddress!.assumingMemoryBound(to: UInt8.self), count: samples.count)
        framesIn += Int64(frameCount)
        result = kiosk_av_buffersrc_add_frame(source, input)
        guard result >= 0 else { throw failure("atempo refused samples: \(ffmpegErrorText(result))") }
        return try collect(appendingTo: &destination)
    }

    /// Ends the stream: appends everything the filter still holds. Later input is ignored.
    @discardableResult
    public func finish(appendingTo destination: inout [UInt8]) throws -> Int {
        guard !finished else { return 0 }
        finished = true
        let result = kiosk_av_buffersrc_add_frame(source, nil)
        guard result >= 0 else { throw failure("cannot end the atempo stream: \(ffmpegErrorText(result))") }
        return try collect(appendingTo: &destination)
    }

    private func collect(appendingTo destination: inout [UInt8]) throws -> Int {
        guard let output = av_frame_alloc() else { throw failure("out of memory") }
        defer { var pointer: UnsafeMutablePointer<AVFrame>? = output; av_frame_free(&pointer) }
        var total = 0
        while true {
            let result = kiosk_av_buffersink_get_frame(sink, output)
            if result == AVResult.again || result == AVResult.eof { return total }
            guard result >= 0 else { throw failure("atempo failed: \(ffmpegErrorText(result))") }
            guard output.pointee.format == format.sampleFormat.ffmpegFormat.rawValue,
                  Int(output.pointee.ch_layout.nb_channels) == format.channels else {
                av_frame_unref(output)
                throw failure("atempo changed the sample format")
            }
            let count = Int(output.pointee.nb_samples)
            destination.append(contentsOf: UnsafeRawBufferPointer(start: output.pointee.data.0, count: count * format.bytesPerFrame))
            total += count
            av_frame_unref(output)
        }
    }
}
