import CFFmpeg
import CKioskShim
import Glibc
import KioskCore

/// An output file through libavformat (mp4 unless told otherwise): streams from encoders or
/// copied from an input, packets written interleaved, the index written by `finish`. A muxer
/// that is dropped unfinished closes its file as it is: the caller removes it (`kiosk compose`
/// and `kiosk record` write to a temporary name and rename only after `finish`).
public final class Muxer {
    public let path: String
    private var context: UnsafeMutablePointer<AVFormatContext>?
    /// Each stream's time base, as the caller's packets are stamped (rescaled on the way in).
    private var sourceTimeBases: [AVRational] = []
    private var started = false
    private var finished = false

    /// Opens `path` for writing as `format` (the path's own extension may be a temporary one).
    public init(path: String, format: String = "mp4") throws {
        self.path = path
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        let made = avformat_alloc_output_context2(&context, nil, format, path)
        guard made >= 0, let context else { throw EncoderError("\(path): cannot make a \(format) file: \(ffmpegErrorText(made))") }
        self.context = context
        let opened = avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE)
        guard opened >= 0 else {
            avformat_free_context(context)
            self.context = nil
            throw EncoderError("\(path): cannot write: \(ffmpegErrorText(opened))")
        }
    }

    deinit {
        guard let context else { return }
        avio_closep(&context.pointee.pb)
        avformat_free_context(context)
    }

    /// A stream fed by `encoder`; returns its index.
    func addStream(from encoder: EncoderContext) throws -> Int {
        let stream = try newStream()
        let copied = avcodec_parameters_from_context(stream.pointee.codecpar, encoder.context)
        guard copied >= 0 else { throw EncoderError("\(path): \(ffmpegErrorText(copied))") }
        stream.pointee.time_base = encoder.timeBase
        sourceTimeBases.append(encoder.timeBase)
        return Int(stream.pointee.index)
    }

    public func addStream(from encoder: VideoEncoder) throws -> Int { try addStream(from: encoder.encoder) }
    public func addStream(from encoder: AudioEncoder) throws -> Int { try addStream(from: encoder.encoder) }

    /// A stream whose packets are copied from `asset`'s stream `index` (a remux).
    public func addStream(copying asset: Asset, stream index: Int) throws -> Int {
        let input = asset.stream(at: index)
        let stream = try newStream()
        let copied = avcodec_parameters_copy(stream.pointee.codecpar, input.pointee.codecpar)
        guard copied >= 0 else { throw EncoderError("\(path): \(ffmpegErrorText(copied))") }
        // The input container's tag may not be mp4's: let the muxer choose.
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = input.pointee.time_base
        sourceTimeBases.append(input.pointee.time_base)
        return Int(stream.pointee.index)
    }

    private func newStream() throws -> UnsafeMutablePointer<AVStream> {
        precondition(!started, "streams are added before the first packet")
        guard let stream = avformat_new_stream(context, nil) else { throw EncoderError("out of memory") }
        return stream
    }

    /// Writes the header (the time bases settle here).
    public func start() throws {
        let written = avformat_write_header(context, nil)
        guard written >= 0 else { throw EncoderError("\(path): cannot write the header: \(ffmpegErrorText(written))") }
        started = true
    }

    /// The time base `stream`'s packets are written in after `start` (the muxer's own choice).
    public func timeBase(of stream: Int) -> AVRational { context!.pointee.streams[stream]!.pointee.time_base }

    /// Writes `packet` (stamped in the stream's source time base) to `stream`. The packet's
    /// data is taken over (it is unreferenced after).
    public func write(_ packet: UnsafeMutablePointer<AVPacket>, stream: Int) throws {
        if !started { try start() }
        packet.pointee.stream_index = Int32(stream)
        av_packet_rescale_ts(packet, sourceTimeBases[stream], timeBase(of: stream))
        let written = av_interleaved_write_frame(context, packet)
        guard written >= 0 else { throw EncoderError("\(path): cannot write: \(ffmpegErrorText(written))") }
    }

    /// Writes the trailer (mp4's index) and closes the file.
    public func finish() throws {
        guard let context, !finished else { return }
        if !started { try start() }
        let trailer = av_write_trailer(context)
        let closed = avio_closep(&context.pointee.pb)
        finished = true
        guard trailer >= 0 else { throw EncoderError("\(path): cannot finish the file: \(ffmpegErrorText(trailer))") }
        guard closed >= 0 else { throw EncoderError("\(path): cannot write: \(ffmpegErrorText(closed))") }
    }
}
