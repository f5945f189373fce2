#include "kiosk_shim.h"
#include <stdio.h>
#include <string.h>

static kiosk_log_sink installed_sink;
static int installed_max_level = AV_LOG_WARNING;

static void bridge(void *avcl, int level, const char *fmt, va_list vl) {
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
    av_log_set_level(max_level);
    av_log_set_callback(bridge);
}
