#include "kiosk_shim.h"
#include <stdio.h>
#include <string.h>

static kiosk_log_sink installed_sink;
static int installed_max_level = AV_LOG_WARNING;
/// The calling thread's first error line from FFmpeg since it was cleared, without the
/// "[class @ address]" prefix: FFmpeg's return codes are often generic (EBUSY for a picture
/// too large), its log says why, and the first line is the cause (later ones are consequences).
static _Thread_local char first_error[256];

static void bridge(void *avcl, int level, const char *fmt, va_list vl) {
    if (level <= AV_LOG_ERROR && first_error[0] == 0) {
        va_list copy;
        va_copy(copy, vl);
        int print_prefix = 0;
        av_log_format_line2(NULL, level, fmt, copy, first_error, sizeof first_error, &print_prefix);
        va_end(copy);
        size_t n = strlen(first_error);
        while (n > 0 && (first_error[n - 1] == '\n' || first_error[n - 1] == '\r' || first_error[n - 1] == ' ')) first_error[--n] = 0;
    }
    if (level > installed_max_level || installed_sink == NULL) return;
    char line[1024];
    int print_prefix = 1;
    av_log_format_line2(avcl, level, fmt, vl, line, sizeof line, &print_prefix);
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
    if (n > 0) installed_sink(level, line);
}

void kiosk_av_log_install(kiosk_log_sink sink, int max_level) {
    installed_sink = sink;
    installed_max_level = max_level;
    // The bridge filters by `max_level` itself; FFmpeg must still hand it error lines, which
    // `kiosk_av_first_error` keeps for the one-line reasons kiosk gives for a bad file.
    av_log_set_level(max_level < AV_LOG_ERROR ? AV_LOG_ERROR : max_level);
    av_log_set_callback(bridge);
}

const char *kiosk_av_first_error(void) { return first_error; }

void kiosk_av_clear_first_error(void) { first_error[0] = 0; }
