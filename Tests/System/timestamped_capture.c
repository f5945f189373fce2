/* Records an ALSA capture PCM with CLOCK_MONOTONIC timestamps, for test_av_sync.py.
 *
 * usage: timestamped_capture DEVICE RATE CHANNELS SAMPLES-FILE STAMPS-FILE READY-FILE
 *
 * SAMPLES-FILE gets the raw S16_LE interleaved samples, as read. STAMPS-FILE gets one line
 * per read, "INDEX SECONDS": the frame with that index (counted in SAMPLES-FILE) was captured
 * at that CLOCK_MONOTONIC time. It comes from snd_pcm_status after the read: the hardware
 * pointer (frames read so far + avail) and the timestamp the driver took when it last moved
 * that pointer. A capture overrun writes "xrun INDEX": frames were lost there, so stamps on
 * either side must not be mixed. READY-FILE is created once the capture is running (the
 * loopback then holds its playback end to this format). SIGINT/SIGTERM stop it cleanly.
 *
 * Why not arecord: its samples carry no timestamps, and the time it starts capturing can be
 * known only to within an exec under TCG (0.1-0.2 s), far above the 20 ms being measured.
 */
#include <alsa/asoundlib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static volatile sig_atomic_t stopping = 0;
static void on_signal(int sig) { (void)sig; stopping = 1; }

static void die(const char *what, int err) {
    fprintf(stderr, "timestamped_capture: %s: %s\n", what, snd_strerror(err));
    exit(1);
}
#define CHECK(call, what) do { int e_ = (call); if (e_ < 0) die(what, e_); } while (0)

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: %s DEVICE RATE CHANNELS SAMPLES-FILE STAMPS-FILE READY-FILE\n", argv[0]);
        return 2;
    }
    unsigned rate = (unsigned)atoi(argv[2]), channels = (unsigned)atoi(argv[3]);
    FILE *samples = fopen(argv[4], "wb"), *stamps = fopen(argv[5], "w");
    if (!samples || !stamps) { perror("timestamped_capture: output file"); return 1; }
    struct sigaction action = { .sa_handler = on_signal };  /* no SA_RESTART: a read returns */
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);

    snd_pcm_t *pcm;
    CHECK(snd_pcm_open(&pcm, argv[1], SND_PCM_STREAM_CAPTURE, 0), "open");
    snd_pcm_hw_params_t *hw;
    snd_pcm_hw_params_alloca(&hw);
    CHECK(snd_pcm_hw_params_any(pcm, hw), "hw_params_any");
    CHECK(snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "access");
    CHECK(snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE), "format");
    CHECK(snd_pcm_hw_params_set_channels(pcm, hw, channels), "channels");
    CHECK(snd_pcm_hw_params_set_rate(pcm, hw, rate, 0), "rate");
    /* Short periods (10 ms): many reads, so many stamps close to a pointer update. A long buffer
     * (1 s): a guest starved under TCG loses no samples. */
    snd_pcm_uframes_t period = rate / 100, buffer = rate;
    CHECK(snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, NULL), "period");
    CHECK(snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer), "buffer");
    CHECK(snd_pcm_hw_params(pcm, hw), "hw_params");
    snd_pcm_sw_params_t *sw;
    snd_pcm_sw_params_alloca(&sw);
    CHECK(snd_pcm_sw_params_current(pcm, sw), "sw_params_current");
    CHECK(snd_pcm_sw_params_set_tstamp_mode(pcm, sw, SND_PCM_TSTAMP_ENABLE), "tstamp_mode");
    CHECK(snd_pcm_sw_params_set_tstamp_type(pcm, sw, SND_PCM_TSTAMP_TYPE_MONOTONIC), "tstamp_type");
    CHECK(snd_pcm_sw_params(pcm, sw), "sw_params");
    CHECK(snd_pcm_start(pcm), "start");
    FILE *ready = fopen(argv[6], "w");
    if (ready) fclose(ready);

    snd_pcm_status_t *status;
    snd_pcm_status_alloca(&status);
    short *chunk = malloc(period * channels * sizeof(short));
    unsigned long long frames = 0;
    while (!stopping) {
        snd_pcm_sframes_t got = snd_pcm_readi(pcm, chunk, period);
        if (got == -EINTR) continue;
        if (got == -EPIPE) {
            fprintf(stamps, "xrun %llu\n", frames);
            CHECK(snd_pcm_prepare(pcm), "prepare after overrun");
            CHECK(snd_pcm_start(pcm), "start after overrun");
            continue;
        }
        if (got < 0) die("read", (int)got);
        fwrite(chunk, channels * sizeof(short), (size_t)got, samples);
        frames += (unsigned long long)got;
        if (snd_pcm_status(pcm, status) < 0 || snd_pcm_status_get_state(status) != SND_PCM_STATE_RUNNING)
            continue;
        snd_htimestamp_t at;
        snd_pcm_status_get_htstamp(status, &at);
        fprintf(stamps, "%llu %ld.%09ld\n", frames + snd_pcm_status_get_avail(status),
                (long)at.tv_sec, at.tv_nsec);
    }
    fclose(samples);
    fclose(stamps);
    snd_pcm_close(pcm);
    return 0;
}
