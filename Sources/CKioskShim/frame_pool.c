#include "kiosk_shim.h"
#include <libavutil/buffer.h>
#include <libavutil/common.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/mem.h>
#include <malloc.h>

// Frames made on the decode thread come from pools (FramePool.swift): the shrunk ones
// (FrameShrinker.swift) and those copied down from a hardware decoder. av_frame_get_buffer
// allocated ~3 MB a frame at 4K30 for a 1080p screen, 30 times a second, and with decoded
// pictures in mappings of their own (FrameHeap.swift) each one was an mmap, page faults and a
// munmap (+0.75 s of system time in 10 s).

/// The planes one after another in the block, rows aligned to `align` and the height padded
/// to 32 rows as av_frame_get_buffer pads them; each plane starts a multiple of `align` bytes
/// after the block's start, which is av_malloc's (as aligned as FFmpeg's SIMD needs).
static int picture_layout(enum AVPixelFormat format, int width, int height, int align,
                          uint8_t *data[4], int linesize[4], const uint8_t *base) {
    return av_image_fill_arrays(data, linesize, base, format, width, FFALIGN(height, 32), align);
}

int kiosk_frame_pool_size(int format, int width, int height, int align) {
    int size = av_image_get_buffer_size(format, width, FFALIGN(height, 32), align);
    // Slack after the last row, as av_frame_get_buffer leaves, for SIMD reads past its end.
    return size < 0 ? size : size + 16 + align;
}

int kiosk_frame_buffer_from_pool(AVFrame *frame, AVBufferPool *pool, int align) {
    AVBufferRef *buffer = av_buffer_pool_get(pool);
    if (buffer == NULL) return AVERROR(ENOMEM);
    int needed = kiosk_frame_pool_size(frame->format, frame->width, frame->height, align);
    if (needed < 0 || needed > (int)buffer->size) {
        av_buffer_unref(&buffer);
        return needed < 0 ? needed : AVERROR(EINVAL);
    }
    uint8_t *data[4];
    int linesize[4];
    int size = picture_layout(frame->format, frame->width, frame->height, align, data, linesize, buffer->data);
    if (size < 0) {
        av_buffer_unref(&buffer);
        return size;
    }
    for (int plane = 0; plane < 4; plane++) {
        frame->data[plane] = data[plane];
        frame->linesize[plane] = linesize[plane];
    }
    frame->buf[0] = buffer;
    frame->extended_data = frame->data;
    return 0;
}

int kiosk_frame_pool_fit(AVBufferPool **pool, int *block, int format, int width, int height, int align) {
    int needed = kiosk_frame_pool_size(format, width, height, align);
    if (needed <= 0) return needed < 0 ? needed : AVERROR(EINVAL);
    if (*pool != NULL && *block == needed) return 0;
    // The old pool is freed once its last block comes back from the frames still holding one.
    av_buffer_pool_uninit(pool);
    *block = 0;
    *pool = av_buffer_pool_init(needed, NULL);
    if (*pool == NULL) return AVERROR(ENOMEM);
    *block = needed;
    return 0;
}

int kiosk_hwframe_download(AVFrame *dst, const AVFrame *src, AVBufferPool **pool, int *block) {
    // What av_hwframe_transfer_data does for a frame without a buffer (transfer_data_alloc in
    // libavutil/hwcontext.c): the first format the device hands down, the frames context's
    // size (which may be larger than the picture), then the picture's size; here in a block
    // of the pool. Anything that fails on this way falls back to FFmpeg's own allocation.
    if (src->hw_frames_ctx != NULL) {
        const AVHWFramesContext *frames = (const AVHWFramesContext *)src->hw_frames_ctx->data;
        enum AVPixelFormat *formats = NULL;
        int ret = av_hwframe_transfer_get_formats(src->hw_frames_ctx, AV_HWFRAME_TRANSFER_DIRECTION_FROM, &formats, 0);
        if (ret >= 0 && formats != NULL && formats[0] != AV_PIX_FMT_NONE) {
            dst->format = formats[0];
            dst->width = frames->width;
            dst->height = frames->height;
            if (kiosk_frame_pool_fit(pool, block, dst->format, dst->width, dst->height, 64) >= 0
                && kiosk_frame_buffer_from_pool(dst, *pool, 64) >= 0
                && av_hwframe_transfer_data(dst, src, 0) >= 0) {
                av_freep(&formats);
                dst->width = src->width;
                dst->height = src->height;
                return 1;
            }
        }
        av_freep(&formats);
        av_frame_unref(dst);
    }
    return av_hwframe_transfer_data(dst, src, 0);
}

int kiosk_frame_fill_black(AVFrame *frame) {
    // A picture that could not be copied down from its device (DecodedFrame.frame): black, not
    // whatever the allocation held.
    ptrdiff_t linesizes[4];
    for (int plane = 0; plane < 4; plane++) linesizes[plane] = frame->linesize[plane];
    return av_image_fill_black(frame->data, linesizes, frame->format, frame->color_range, frame->width, frame->height);
}

int kiosk_hold_mmap_threshold(int bytes) {
    // M_MMAP_THRESHOLD is a macro Swift does not see; setting it also ends glibc's raising of
    // the threshold to each freed mapping's size.
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

int kiosk_heap_block_is_mapped(const void *block) {
    // glibc's chunk header, the word before the block: its size with flag bits, IS_MMAPPED 2.
    return (((const size_t *)block)[-1] & 2) != 0;
}
