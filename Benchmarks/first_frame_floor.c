/* The first frame's floor on FFmpeg alone (issue 34; BENCHMARKS.md "An FFmpeg of kiosk's own"):
 * open and probe a file, open its video decoder as kiosk does (THREADS decoder threads, 0: FFmpeg
 * chooses; frame and slice threading), decode until the first picture, convert it bilinear to
 * 1280x720 XRGB, and print each step's milliseconds. No player around it: what kiosk's own first
 * frame, after its start-up, cannot go below.
 *
 *   cc -O2 -o first_frame_floor Benchmarks/first_frame_floor.c -lavformat -lavcodec -lavutil -lswscale
 *   ./first_frame_floor CLIP [THREADS]
 */
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s CLIP [THREADS]\n", argv[0]); return 2; }
    int threads = argc > 2 ? atoi(argv[2]) : 0;
    double began = now_ms();
    AVFormatContext *format = NULL;
    if (avformat_open_input(&format, argv[1], NULL, NULL) < 0 || avformat_find_stream_info(format, NULL) < 0) {
        fprintf(stderr, "%s: cannot open\n", argv[1]);
        return 1;
    }
    double probed = now_ms();
    int video = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (video < 0) { fprintf(stderr, "%s: no video\n", argv[1]); return 1; }
    const AVCodec *codec = avcodec_find_decoder(format->streams[video]->codecpar->codec_id);
    AVCodecContext *decoder = avcodec_alloc_context3(codec);
    avcodec_parameters_to_context(decoder, format->streams[video]->codecpar);
    decoder->thread_count = threads;
    decoder->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
    if (avcodec_open2(decoder, codec, NULL) < 0) { fprintf(stderr, "%s: decoder does not open\n", argv[1]); return 1; }
    double opened = now_ms();
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    int pictures = 0, packets = 0;
    while (!pictures && av_read_frame(format, packet) >= 0) {
        if (packet->stream_index == video) {
            avcodec_send_packet(decoder, packet);
            packets++;
            pictures = avcodec_receive_frame(decoder, frame) == 0;
        }
        av_packet_unref(packet);
    }
    if (!pictures) { fprintf(stderr, "%s: no picture\n", argv[1]); return 1; }
    double decoded = now_ms();
    struct SwsContext *scaler = sws_getContext(frame->width, frame->height, frame->format, 1280, 720, AV_PIX_FMT_BGR0,
                                               SWS_BILINEAR, NULL, NULL, NULL);
    uint8_t *planes[4];
    int strides[4];
    av_image_alloc(planes, strides, 1280, 720, AV_PIX_FMT_BGR0, 64);
    sws_scale(scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
    double converted = now_ms();
    printf("threads %d: open and probe %.1f ms, decoder open %.1f ms, first picture %.1f ms (%d packets), "
           "convert %.1f ms, in all %.1f ms\n", threads, probed - began, opened - probed, decoded - opened, packets,
           converted - decoded, converted - began);
    return 0;
}
