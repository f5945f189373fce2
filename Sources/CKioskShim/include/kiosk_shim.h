// What Swift cannot import from the C libraries: function-like macros and va_list callbacks,
// and the one place where kiosk bends to FFmpeg's version (5.1 on Debian 12, 7.1 on Debian 13):
// every `LIBAV*_VERSION` check lives in this header, none in the Swift code.
#ifndef KIOSK_SHIM_H
#define KIOSK_SHIM_H

#include <stdint.h>
#include <errno.h>
// FFmpeg's headers through CFFmpeg's own header, not directly: Swift then sees CFFmpeg's module
// as the one owning FFmpeg's declarations. With a second copy here, Swift 6.0 (trixie's) could
// give an enum's constants (AV_PIX_FMT_NV12, AV_SAMPLE_FMT_S16) to this module and not find them
// in a file that imports CFFmpeg alone ("cannot find in scope"); Swift 6.3 finds them either way.
#include "../../CFFmpeg/shim.h"

// An #if on an undefined macro is silently false: make a missing version header loud instead.
#ifndef LIBAVCODEC_VERSION_INT
#error "libavcodec/version.h did not define LIBAVCODEC_VERSION_INT"
#endif

static inline int kiosk_averror(int posix_errno) { return AVERROR(posix_errno); }
static inline int kiosk_averror_eof(void) { return AVERROR_EOF; }
static inline int kiosk_averror_exit(void) { return AVERROR_EXIT; }
static inline int kiosk_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int kiosk_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int kiosk_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int kiosk_averror_http_not_found(void) { return AVERROR_HTTP_NOT_FOUND; }
static inline int64_t kiosk_nopts_value(void) { return AV_NOPTS_VALUE; }

/// The stream's display matrix (nine int32, av_display_rotation_get's input), or NULL when it
/// has none. FFmpeg 6.1 (libavcodec 60.29) moved a stream's side data into
/// codecpar->coded_side_data and deprecated av_stream_get_side_data (FFmpeg 8 removes it), so
/// 7.1 reads the new place and 5.1 the old one.
static inline const int32_t *kiosk_stream_display_matrix(const AVStream *stream) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    const AVPacketSideData *side = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                           stream->codecpar->nb_coded_side_data,
                                                           AV_PKT_DATA_DISPLAYMATRIX);
    if (side == NULL || side->size < 9 * sizeof(int32_t)) return NULL;
    return (const int32_t *)side->data;
#else
    size_t size = 0;
    const uint8_t *data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (data == NULL || size < 9 * sizeof(int32_t)) return NULL;
    return (const int32_t *)data;
#endif
}

/// Mirrors a decoded picture left-right in place (copying it first when its buffers are shared),
/// for a still whose EXIF orientation has a mirror (frame_mirror.c). 0, or AVERROR(ENOSYS) for
/// a pixel format it cannot reverse (hardware, Bayer, packed 4:2:2, 4-bit): then nothing changed.
struct AVFrame;
int kiosk_frame_mirror_horizontally(struct AVFrame *frame);

/// Bytes of one pool block for a `format` picture of `width` x `height`: its planes one after
/// another, rows aligned to `align`, the height padded to 32 rows as av_frame_get_buffer pads
/// it, and slack after the last row; or a negative AVERROR (frame_pool.c).
int kiosk_frame_pool_size(int format, int width, int height, int align);

/// Gives `frame` (its format, width and height set) planes in one block of `pool`, whose blocks
/// are `kiosk_frame_pool_size` bytes: 0, or a negative AVERROR.
struct AVBufferPool;
int kiosk_frame_buffer_from_pool(struct AVFrame *frame, struct AVBufferPool *pool, int align);

/// Makes `*pool` one of `kiosk_frame_pool_size(format, width, height, align)`-byte blocks
/// (`*block`), a new one when the size changed (the old is freed once its frames are): 0, or
/// a negative AVERROR (a size FFmpeg cannot lay out, `*pool` untouched; or no memory, `*pool`
/// NULL).
int kiosk_frame_pool_fit(struct AVBufferPool **pool, int *block, int format, int width, int height, int align);

/// Copies hardware frame `src` into the empty `dst` in memory, as av_hwframe_transfer_data
/// does, in a block of `*pool` (fitted as `kiosk_frame_pool_fit`); FFmpeg's own allocation if
/// that way fails. 1 in a block of the pool, 0 in FFmpeg's allocation, or a negative AVERROR.
int kiosk_hwframe_download(struct AVFrame *dst, const struct AVFrame *src, struct AVBufferPool **pool, int *block);

/// Paints `frame` (its buffers allocated) black in its format and range: 0, or a negative AVERROR.
int kiosk_frame_fill_black(struct AVFrame *frame);

/// mallopt(M_MMAP_THRESHOLD, bytes): 1 when glibc took it (FrameHeap.swift).
int kiosk_hold_mmap_threshold(int bytes);
/// Whether glibc gave `block` (from malloc) a mapping of its own (its chunk's IS_MMAPPED bit).
int kiosk_heap_block_is_mapped(const void *block);

/// A line of FFmpeg's log, already formatted (no trailing newline).
typedef void (*kiosk_log_sink)(int level, const char *line);

/// Routes av_log through `sink` at `max_level` and below. av_log hands its callback a va_list,
/// which Swift cannot receive, so the formatting happens here.
void kiosk_av_log_install(kiosk_log_sink sink, int max_level);

/// The calling thread's first error line logged by FFmpeg since `kiosk_av_clear_first_error`
/// ("" when none, or when the bridge is not installed), kept even when the sink is quiet.
const char *kiosk_av_first_error(void);
void kiosk_av_clear_first_error(void);

/// Routes alsa-lib's error messages (which it prints to stderr by default) through `sink`;
/// `level` is the negative errno alsa-lib reports, or 0. ALSA's handler is variadic, which
/// Swift cannot implement. NULL restores alsa-lib's default (stderr).
void kiosk_alsa_log_install(kiosk_log_sink sink);

/// libavdevice is opened on first use (avdevice_loader.c), not linked, and its input formats
/// registered (a capture item, v4l2://). Returns NULL once they are, else why not.
const char *kiosk_avdevice_load(void);

/// libavfilter is opened on first use (avfilter_loader.c), not linked. Returns NULL once it is
/// usable, else why not. The kiosk_avfilter_* calls below are valid only after a NULL here.
const char *kiosk_avfilter_load(void);
AVFilterGraph *kiosk_avfilter_graph_alloc(void);
void kiosk_avfilter_graph_free(AVFilterGraph **graph);
int kiosk_avfilter_graph_config(AVFilterGraph *graph);
const AVFilter *kiosk_avfilter_get_by_name(const char *name);
int kiosk_avfilter_graph_create_filter(AVFilterContext **context, const AVFilter *filter, const char *name,
                                       const char *arguments, AVFilterGraph *graph);
int kiosk_avfilter_link(AVFilterContext *source, AVFilterContext *destination);
int kiosk_av_buffersrc_add_frame(AVFilterContext *context, AVFrame *frame);
int kiosk_av_buffersink_get_frame(AVFilterContext *context, AVFrame *frame);
AVRational kiosk_av_buffersink_get_time_base(const AVFilterContext *context);

/// libwebpdemux's animation decoder, opened on first use (webp_anim_loader.c). The structs are
/// libwebp's demux.h's (WebPData, WebPAnimDecoderOptions, WebPAnimInfo). Frames come out as the
/// whole canvas in RGBA, each with the time it ends in milliseconds.
typedef struct { const uint8_t *bytes; size_t size; } kiosk_webp_data;
typedef struct { int color_mode; int use_threads; uint32_t padding[7]; } kiosk_webp_anim_options;
typedef struct {
    uint32_t canvas_width, canvas_height, loop_count, bgcolor, frame_count;
    uint32_t pad[4];
} kiosk_webp_anim_info;
typedef struct kiosk_webp_anim_decoder kiosk_webp_anim_decoder;
/// NULL once libwebpdemux is usable, else why not.
const char *kiosk_webp_anim_load(void);
/// A decoder of the animation in `bytes` (which must outlive it), RGBA; NULL when not one.
kiosk_webp_anim_decoder *kiosk_webp_anim_decoder_new(const uint8_t *bytes, size_t size);
int kiosk_webp_anim_decoder_info(const kiosk_webp_anim_decoder *decoder, kiosk_webp_anim_info *info);
int kiosk_webp_anim_decoder_next(kiosk_webp_anim_decoder *decoder, uint8_t **rgba, int *timestamp);
int kiosk_webp_anim_decoder_has_more(const kiosk_webp_anim_decoder *decoder);
void kiosk_webp_anim_decoder_reset(kiosk_webp_anim_decoder *decoder);
void kiosk_webp_anim_decoder_delete(kiosk_webp_anim_decoder *decoder);

/// Whether a decoded frame is flagged interlaced (its two fields from different moments):
/// FFmpeg 6.1 moved the flag from `interlaced_frame` into `flags`.
static inline int kiosk_frame_is_interlaced(const AVFrame *frame) {
#ifdef AV_FRAME_FLAG_INTERLACED
    return (frame->flags & AV_FRAME_FLAG_INTERLACED) != 0;
#else
    return frame->interlaced_frame != 0;
#endif
}

/// A decoded frame's own duration in its stream's time base (its packet's: a GIF's delay, an
/// MP4 sample's), 0 when unknown: libavutil 57.30 (FFmpeg 6.0) added `duration` and deprecated
/// `pkt_duration`.
static inline int64_t kiosk_frame_duration(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(57, 30, 100)
    return frame->duration;
#else
    return frame->pkt_duration;
#endif
}

static inline void kiosk_frame_set_duration(AVFrame *frame, int64_t duration) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(57, 30, 100)
    frame->duration = duration;
#else
    frame->pkt_duration = duration;
#endif
}

#endif
