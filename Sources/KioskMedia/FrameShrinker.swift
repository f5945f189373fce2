import CFFmpeg
import KioskCore

/// Scales a decoded video frame larger than its screens need down to `DecodeShrink`'s size, on
/// the decode thread, before it is queued (issue 33): a 4K frame for a 1080p screen is then a
/// quarter of the memory in the queue, and the presenter only converts it. swscale's slice
/// threads share the work (`threads`), so a 4K stream does not hold the decode thread a whole
/// frame period.
///
/// The YUV stays YUV (no matrix, the range kept): 4:2:x sources of any depth become 8-bit 4:2:0
/// (NV12 or yuv420p), the formats the presenter's SIMD path takes (10-bit takes its one-step C
/// path, 4K 10-bit there cost ~20 ms a frame); others (4:4:4, RGB) keep their format.
final class FrameShrinker {
    private var context: OpaquePointer?
    private var key: Key?
    /// The shrunk pictures' blocks, reused as the presenter lets frames go.
    private let pool = FramePool()
    /// The last set-up swscale refused: not retried frame after frame.
    private var refused: Key?
    private let threads: Int

    private struct Key: Equatable {
        let source: PixelSize, format: Int32, target: PixelSize, fullRange: Bool
    }

    /// `threads`: swscale's slice threads (0: one per core), the decoder's own setting.
    init(threads: Int = 0) { self.threads = threads }

    deinit { sws_freeContext(context) }

    /// `frame` scaled to `target` with its properties (timestamps, colour) kept and its pixel
    /// aspect `sampleAspect` corrected for the rounding of `target`'s sides (so the layout of
    /// the smaller frame is the full one's); nil when swscale cannot, and the caller queues the
    /// frame as decoded. A size or format swscale refused is not tried again for the next frames.
    func shrink(_ frame: UnsafePointer<AVFrame>, to target: PixelSize, sampleAspect: Rational) -> UnsafeMutablePointer<AVFrame>? {
        let source = PixelSize(width: Int(frame.pointee.width), height: Int(frame.pointee.height))
        guard let output = FrameShrinker.outputFormat(for: AVPixelFormat(frame.pointee.format)) else { return nil }
        let fullRange = frame.pointee.color_range == AVCOL_RANGE_JPEG
        let wanted = Key(source: source, format: frame.pointee.format, target: target, fullRange: fullRange)
        guard wanted != refused else { return nil }
        if key != wanted {
            sws_freeContext(context)
            context = FrameShrinker.makeContext(wanted, output: output, threads: threads)
            key = context == nil ? nil : wanted
            if context == nil { refused = wanted }
        }
        guard let context else { return nil }
        var scaled = av_frame_alloc()
        guard let shrunk = scaled else { return nil }
        shrunk.pointee.width = Int32(target.width)
        shrunk.pointee.height = Int32(target.height)
        shrunk.pointee.format = output.rawValue
        // A block the pool cannot give (out of memory) queues this frame as decoded, not refused.
        guard pool.attach(to: shrunk), av_frame_copy_props(shrunk, frame) >= 0,
              sws_scale_frame(context, shrunk, frame) >= 0 else {
            av_frame_free(&scaled)
            return nil
        }
        // Sides rounded to even numbers one by one change the shape a little (4K for 1366x768 is
        // 1366x770): the pixel aspect takes the difference back.
        let sar = sampleAspect.isKnownAndPositive ? sampleAspect : .one
        var corrected = AVRational()
        av_reduce(&corrected.num, &corrected.den, sar.numerator * Int64(source.width) * Int64(target.height),
                  sar.denominator * Int64(source.height) * Int64(target.width), Int64(Int32.max))
        shrunk.pointee.sample_aspect_ratio = corrected
        // An untagged frame's matrix is guessed from its size (BT.709 from 720 lines up): the
        // smaller frame carries the guess made for the size it was decoded at as its tag.
        if ScalerColor.isUntagged(frame), FrameShrinker.isYUV(output) {
            shrunk.pointee.colorspace = ScalerColor.untaggedIsBT709(frame) ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M
        }
        return shrunk
    }

    /// The largest factor worth a shrink for frames of `format` (`DecodeShrink`): a source the
    /// presenter scales in its SIMD two-step path needs half each side to gain.
    static func largestFactor(for format: AVPixelFormat) -> Double {
        Scaler.isTwoStepSource(format) ? DecodeShrink.largestFactor : DecodeShrink.largestFactorConverting
    }

    /// 8-bit 4:2:0 for a YUV source with subsampled chroma and no alpha: NV12 for a semi-planar
    /// one (the hardware downloads: NV12, P010; a video plane that takes NV12 keeps taking it),
    /// yuv420p for a planar one. JPEG-range `yuvj` formats keep theirs (their range is in the
    /// format), and anything else keeps its own (4:4:4, RGB). Nil when swscale cannot read the
    /// format or write the result.
    static func outputFormat(for format: AVPixelFormat) -> AVPixelFormat? {
        guard let descriptor = av_pix_fmt_desc_get(format), sws_isSupportedInput(format) > 0 else { return nil }
        let flags = descriptor.pointee.flags
        guard flags & UInt64(AV_PIX_FMT_FLAG_HWACCEL) == 0 else { return nil }
        let excluded = UInt64(AV_PIX_FMT_FLAG_RGB) | UInt64(AV_PIX_FMT_FLAG_ALPHA) | UInt64(AV_PIX_FMT_FLAG_PAL)
        let name = String(cString: descriptor.pointee.name)
        if flags & excluded == 0, descriptor.pointee.nb_components == 3, descriptor.pointee.log2_chroma_w == 1,
           !name.hasPrefix("yuvj") {
            let semiPlanar = av_pix_fmt_count_planes(format) == 2
            return semiPlanar ? AV_PIX_FMT_NV12 : AV_PIX_FMT_YUV420P
        }
        return sws_isSupportedOutput(format) > 0 ? format : nil
    }

    static func isYUV(_ format: AVPixelFormat) -> Bool {
        guard let descriptor = av_pix_fmt_desc_get(format) else { return false }
        return descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0 && descriptor.pointee.nb_components >= 3
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
