#include "kiosk_shim.h"
#include <libavutil/buffer.h>
#include <libavutil/common.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/imgutils.h>
#include <malloc.h>

// The decode thread's shrunk frames come from a pool (FrameShrinker.swift): av_frame_get_buffer
// allocated ~3 MB a frame at 4K30 for a 1080p screen, 30 times a second, and with decoded
// pictures in mappings of their own (FrameHeap.swift) each one was an mmap, page faults and a
// munmap (+0.75 s of system time in 10 s).

/// The planes laid out as av_frame_get_buffer lays them out: rows aligned to `align`, the
/// height padded to 32 rows, and bytes after the last row for SIMD reads past its end.
static int picture_layout(enum AVPixelFormat format, int width, int height, int align,
                          uint8_t *data[4], int linesize[4], const uint8_t *base) {
    return av_image_fill_arrays(data, linesize, base, format, width, FFALIGN(height, 32), align);
}

int kiosk_frame_pool_size(int format, int width, int height, int align) {
    int size = av_image_get_buffer_size(format, width, FFALIGN(height, 32), align);
    return size < 0 ? size : size + 16 + align - 1;
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

int kiosk_hold_mmap_threshold(int bytes) {
    // M_MMAP_THRESHOLD is a macro Swift does not see; setting it also ends glibc's raising of
    // the threshold to each freed mapping's size.
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

size_t kiosk_heap_mapped_bytes(void) {
    return mallinfo2().hblkhd;
}
