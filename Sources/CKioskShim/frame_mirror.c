#include "kiosk_shim.h"
#include <libavutil/frame.h>
#include <libavutil/mem.h>
#include <libavutil/pixdesc.h>
#include <string.h>

// A still's left-right mirror (EXIF 2, 4, 5, 7) is done once on its decoded pixels, here in C
// rather than Swift: a 48 MP photo is ~72 MB of samples, and the tests run unoptimised builds.

/// Reverses `count` pixels of `step` bytes each in place.
static void reverse_pixels(uint8_t *row, int count, int step) {
    uint8_t swap[32];
    for (int left = 0, right = count - 1; left < right; left++, right--) {
        memcpy(swap, row + left * step, step);
        memcpy(row + left * step, row + right * step, step);
        memcpy(row + right * step, swap, step);
    }
}

/// Reverses `count` 1-bit pixels (most significant bit first, as FFmpeg's monowhite and
/// monoblack store them) through `scratch` of (count + 7) / 8 bytes.
static void reverse_bits(uint8_t *row, int count, uint8_t *scratch) {
    int bytes = (count + 7) / 8;
    memset(scratch, 0, bytes);
    for (int x = 0; x < count; x++) {
        int from = count - 1 - x;
        if (row[from >> 3] & (0x80 >> (from & 7))) scratch[x >> 3] |= 0x80 >> (x & 7);
    }
    // Bits past `count` in the last byte are padding: kept as they were.
    int tail = count & 7;
    if (tail) scratch[bytes - 1] |= row[bytes - 1] & (0xFF >> tail);
    memcpy(row, scratch, bytes);
}

int kiosk_frame_mirror_horizontally(AVFrame *frame) {
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(frame->format);
    if (desc == NULL || frame->width <= 0 || frame->height <= 0) return AVERROR(EINVAL);
    // Pixels in hardware memory, Bayer mosaics, packed 4:2:2 (YUYV: two pixels share their
    // chroma in one group) and 4-bit packed formats have no per-pixel unit to reverse.
    if (desc->flags & (AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_BAYER)) return AVERROR(ENOSYS);
    int bitstream = (desc->flags & AV_PIX_FMT_FLAG_BITSTREAM) != 0;
    if (bitstream && !(desc->nb_components == 1 && desc->comp[0].depth == 1)) return AVERROR(ENOSYS);
    if (!(desc->flags & AV_PIX_FMT_FLAG_PLANAR) && desc->log2_chroma_w > 0) return AVERROR(ENOSYS);
    int result = av_frame_make_writable(frame);
    if (result < 0) return result;
    int planes = av_pix_fmt_count_planes(frame->format);
    uint8_t *scratch = bitstream ? av_malloc((frame->width + 7) / 8) : NULL;
    if (bitstream && scratch == NULL) return AVERROR(ENOMEM);
    for (int plane = 0; plane < planes; plane++) {
        // The step of a plane's pixel: the widest of its components (3 for RGB24, 2 for NV12's
        // interleaved chroma, 1 for planar 8-bit); in bits for the 1-bit formats.
        int step = 0;
        for (int c = 0; c < desc->nb_components; c++)
            if (desc->comp[c].plane == plane && desc->comp[c].step > step) step = desc->comp[c].step;
        if (step <= 0 || step > 32) { av_free(scratch); return AVERROR(ENOSYS); }
        // Planes 1 and 2 of a YUV format are its subsampled chroma (as av_image_fill_linesizes).
        int chroma = (plane == 1 || plane == 2) && !(desc->flags & AV_PIX_FMT_FLAG_RGB);
        int width = chroma ? AV_CEIL_RSHIFT(frame->width, desc->log2_chroma_w) : frame->width;
        int height = chroma ? AV_CEIL_RSHIFT(frame->height, desc->log2_chroma_h) : frame->height;
        for (int y = 0; y < height; y++) {
            uint8_t *row = frame->data[plane] + (ptrdiff_t)y * frame->linesize[plane];
            if (bitstream) reverse_bits(row, width, scratch);
            else reverse_pixels(row, width, step);
        }
    }
    av_free(scratch);
    return 0;
}
