import CFFmpeg
import KioskCore

/// Scales a decoded video frame larger than its screens need down to `DecodeShrink`'s size, on
/// the decode thread, before it is queued (issue 33): a 4K frame for a 1080p screen is then a
/// quarter of the memory in the queue, and the presenter only converts it. swscale's slice
/// threads share the work (`threads`), so a 4K stream does not hold the decode thread a whole
/// frame period.
///
/// The YUV stays YUV (no matrix, the range kept): 4:2:x sources of any depth become 8-bit
/// yuv420p, the format the presenter's SIMD path takes (10-bit takes its one-step C path, 4K
/// 10-bit there cost ~20 ms a frame); others keep their format.
final class FrameShrinker {
    private var context: OpaquePointer?
    private var key: Key?
    private let threads: Int

    private struct Key: Equatable {
        let source: PixelSize, format: Int32, target: PixelSize, fullRange: Bool
    }

    /// `threads`: swscale's slice threads (0: one per core).
    init(threads: Int = 0) { self.threads = threads }

    deinit { sws_freeContext(context) }

    /// `frame` scaled to `target` with its properties (timestamps, colour, SAR) kept; nil when
    /// swscale cannot, and the caller queues the frame as decoded.
    func shrink(_ frame: UnsafePointer<AVFrame>, to target: PixelSize) -> UnsafeMutablePointer<AVFrame>? {
        let source = PixelSize(width: Int(frame.pointee.width), height: Int(frame.pointee.height))
        guard let output = FrameShrinker.outputFormat(for: AVPixelFormat(frame.pointee.format)) else { return nil }
        let fullRange = frame.pointee.color_range == AVCOL_RANGE_JPEG
        let wanted = Key(source: source, format: frame.pointee.format, target: target, fullRange: fullRange)
        if key != wanted {
            sws_freeContext(context)
            context = FrameShrinker.makeContext(wanted, output: output, threads: threads)
            key = context == nil ? nil : wanted
        }
        guard let context else { return nil }
        var scaled = av_frame_alloc()
        guard let target = scaled else { return nil }
        target.pointee.width = Int32(wanted.target.width)
        target.pointee.height = Int32(wanted.target.height)
        target.pointee.format = output.rawValue
        guard av_frame_get_buffer(target, 0) >= 0, av_frame_copy_props(target, frame) >= 0,
              sws_scale_frame(context, target, frame) >= 0 else {
            av_frame_free(&scaled)
            return nil
        }
        // An untagged frame's matrix is guessed from its size (BT.709 from 720 lines up): the
        // smaller frame carries the guess made for the size it was decoded at as its tag.
        if ScalerColor.isUntagged(frame) {
            target.pointee.colorspace = ScalerColor.untaggedIsBT709(frame) ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M
        }
        return target
    }

    /// The largest factor worth a shrink for frames of `format` (`DecodeShrink`): a source the
    /// presenter scales in its SIMD two-step path needs half each side to gain.
    static func largestFactor(for format: AVPixelFormat) -> Double {
        Scaler.isTwoStepSource(format) ? DecodeShrink.largestFactor : DecodeShrink.largestFactorConverting
    }

    /// 8-bit 4:2:0 for a YUV source with subsampled chroma and no alpha (JPEG-range `yuvj`
    /// formats keep theirs: their range is in the format); the source's own format for
    /// anything else swscale can write; nil when it cannot.
    static func outputFormat(for format: AVPixelFormat) -> AVPixelFormat? {
        guard let descriptor = av_pix_fmt_desc_get(format) else { return nil }
        let flags = descriptor.pointee.flags
        let excluded = UInt64(AV_PIX_FMT_FLAG_RGB) | UInt64(AV_PIX_FMT_FLAG_ALPHA) | UInt64(AV_PIX_FMT_FLAG_HWACCEL)
            | UInt64(AV_PIX_FMT_FLAG_PAL)
        let name = String(cString: descriptor.pointee.name)
        if flags & excluded == 0, descriptor.pointee.nb_components == 3, descriptor.pointee.log2_chroma_w == 1,
           !name.hasPrefix("yuvj") {
            return AV_PIX_FMT_YUV420P
        }
        guard flags & UInt64(AV_PIX_FMT_FLAG_HWACCEL) == 0, sws_isSupportedOutput(format) > 0 else { return nil }
        return format
    }

    private static func makeContext(_ key: Key, output: AVPixelFormat, threads: Int) -> OpaquePointer? {
        guard let context = sws_alloc_context() else { return nil }
        let options = UnsafeMutableRawPointer(context)
        let settings: [(String, Int64)] = [
            ("srcw", Int64(key.source.width)), ("srch", Int64(key.source.height)), ("src_format", Int64(key.format)),
            ("dstw", Int64(key.target.width)), ("dsth", Int64(key.target.height)), ("dst_format", Int64(output.rawValue)),
            ("sws_flags", Int64(SWS_BILINEAR)), ("threads", Int64(threads)),
            // The range is the frame's (a property, kept); swscale must not convert it.
            ("src_range", key.fullRange ? 1 : 0), ("dst_range", key.fullRange ? 1 : 0),
        ]
        for (name, value) in settings where av_opt_set_int(options, name, value, 0) < 0 {
            sws_freeContext(context)
            return nil
        }
        guard sws_init_context(context, nil, nil) >= 0 else {
            sws_freeContext(context)
            return nil
        }
        return context
    }
}
