#include "kiosk_shim.h"
#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static kiosk_log_sink installed_alsa_sink;

static void alsa_bridge(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    if (installed_alsa_sink == NULL) return;
    char message[768];
    va_list arguments;
    va_start(arguments, fmt);
    vsnprintf(message, sizeof message, fmt, arguments);
    va_end(arguments);
    char text[1024];
    if (err != 0) {
        snprintf(text, sizeof text, "%s:%d (%s) %s: %s", file, line, function, message, snd_strerror(err));
    } else {
        snprintf(text, sizeof text, "%s:%d (%s) %s", file, line, function, message);
    }
    installed_alsa_sink(err, text);
}

void kiosk_alsa_log_install(kiosk_log_sink sink) {
    installed_alsa_sink = sink;
    snd_lib_error_set_handler(sink == NULL ? NULL : alsa_bridge);
}
