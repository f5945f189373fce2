import CFFmpeg
import CKioskShim
import KioskCore

/// An opened libavcodec encoder: the send-frame / receive-packet loop both encoders share.
/// `VideoEncoder` (libx264) and `AudioEncoder` (FFmpeg's AAC) are this with their formats.
final class EncoderContext {
    let context: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    let name: String

    /// Finds encoder `name`, lets `configure` set its fields, opens it with `options` (the
    /// encoder's private options: preset, crf...). `globalHeader`: for containers such as mp4
    /// that keep the codec's headers once, in the stream's extradata.
    init(name: String, globalHeader: Bool, options: [String: String],
         configure: (UnsafeMutablePointer<AVCodecContext>) -> Void) throws {
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw EncoderError("this FFmpeg has no \(name) encoder")
        }
        guard let context = avcodec_alloc_context3(codec), let packet = av_packet_alloc() else {
            throw EncoderError("out of memory")
        }
        self.context = context
        self.packet = packet
        self.name = name
        configure(context)
        if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        var dictionary: OpaquePointer? = nil
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        let result = avcodec_open2(context, codec, &dictionary)
        av_dict_free(&dictionary)
        guard result >= 0 else { throw EncoderError("cannot open the \(name) encoder: \(ffmpegErrorText(result))") }
    }

    deinit {
        var contextPointer: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&contextPointer)
        var packetPointer: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&packetPointer)
    }

    var timeBase: AVRational { context.pointee.time_base }

    /// Sends `frame` (nil: the end, drain everything) and hands each packet that comes out to
    /// `sink`, which must be done with it before it returns.
    func encode(_ frame: UnsafeMutablePointer<AVFrame>?, sink: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        let sent = avcodec_send_frame(context, frame)
        guard sent >= 0 else { throw EncoderError("\(name) refused a frame: \(ffmpegErrorText(sent))") }
        while true {
            let received = avcodec_receive_packet(context, packet)
            if received == AVResult.again || received == AVResult.eof { return }
            guard received >= 0 else { throw EncoderError("\(name) failed: \(ffmpegErrorText(received))") }
            defer { av_packet_unref(packet) }
            try sink(packet)
        }
    }
}

/// An encoder or muxer failure, in one line.
public struct EncoderError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
