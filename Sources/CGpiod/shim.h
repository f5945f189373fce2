// libgpiod (Debian's libgpiod-dev): GPIO lines as triggers (buttons, PIR sensors).
// Debian 12 ships libgpiod 1.6 (the v1 API: a chip owns its lines, a line is requested for
// events), Debian 13 libgpiod 2.x (a new API: settings, a line config and a request config
// make a request). kiosk builds against both: these static inline helpers are the one API
// KioskGPIO sees, and the only place that knows which libgpiod it was built with.
// v1 is told from v2 by GPIOD_LINE_BULK_MAX_LINES, a macro v1's gpiod.h defines and v2's
// dropped with the line bulks.
#ifndef KIOSK_GPIOD_SHIM_H
#define KIOSK_GPIOD_SHIM_H
#include <gpiod.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef GPIOD_LINE_BULK_MAX_LINES
#define KIOSK_GPIOD_API 1
// libgpiod 1.6 on a kernel without uAPI v1: the lines are read through uAPI v2 directly.
#include "uapi2.h"
#else
#define KIOSK_GPIOD_API 2
#endif

/// 1 or 2: which libgpiod API this build uses (for `kiosk probe` and logs).
static inline int kiosk_gpiod_api(void) { return KIOSK_GPIOD_API; }

/// Whether the kernel debounces in this build (v2's gpiod_line_settings_set_debounce_period_us;
/// v1 has no such call).
static inline int kiosk_gpiod_kernel_debounce(void) { return KIOSK_GPIOD_API == 2; }

static inline void kiosk_gpiod_copy(char *out, size_t size, const char *text) {
    if (size == 0) return;
    if (!text) text = "";
    strncpy(out, text, size - 1);
    out[size - 1] = 0;
}

/// A chip's name (gpiochip0), label (the driver's: pinctrl-bcm2711, gpio-sim.0-node0) and number of lines.
struct kiosk_gpio_chip_facts {
    char name[64];
    char label[64];
    unsigned int lines;
};

/// One line's name and consumer (empty when it has none) and whether something holds it.
struct kiosk_gpio_line_facts {
    char name[64];
    char consumer[64];
    int used;
};

/// One edge: rising (1) or falling (0), at the kernel's timestamp in nanoseconds (monotonic).
struct kiosk_gpio_edge {
    int rising;
    uint64_t timestamp_ns;
};

/// A line requested as an input with edge events on both edges (kiosk filters the edge it
/// wants itself, so the two APIs and an active-low line behave the same).
struct kiosk_gpio_request {
#if KIOSK_GPIOD_API == 1
    // libgpiod's line, or NULL where the kernel refused uAPI v1 and `uapi2_fd` is the request.
    struct gpiod_line *line;
    int uapi2_fd;
#else
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *buffer;
    unsigned int offset;
#endif
};

static inline struct gpiod_chip *kiosk_gpio_chip_open(const char *path) { return gpiod_chip_open(path); }
static inline void kiosk_gpio_chip_close(struct gpiod_chip *chip) { gpiod_chip_close(chip); }

/// 0, or -1 with errno.
static inline int kiosk_gpio_chip_describe(struct gpiod_chip *chip, struct kiosk_gpio_chip_facts *facts) {
#if KIOSK_GPIOD_API == 1
    kiosk_gpiod_copy(facts->name, sizeof facts->name, gpiod_chip_name(chip));
    kiosk_gpiod_copy(facts->label, sizeof facts->label, gpiod_chip_label(chip));
    facts->lines = gpiod_chip_num_lines(chip);
    return 0;
#else
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    if (!info) return -1;
    kiosk_gpiod_copy(facts->name, sizeof facts->name, gpiod_chip_info_get_name(info));
    kiosk_gpiod_copy(facts->label, sizeof facts->label, gpiod_chip_info_get_label(info));
    facts->lines = (unsigned int)gpiod_chip_info_get_num_lines(info);
    gpiod_chip_info_free(info);
    return 0;
#endif
}

/// 0, or -1 with errno (EINVAL: no such offset).
static inline int kiosk_gpio_line_describe(struct gpiod_chip *chip, unsigned int offset,
                                           struct kiosk_gpio_line_facts *facts) {
#if KIOSK_GPIOD_API == 1
    struct gpiod_line *line = gpiod_chip_get_line(chip, offset);
    if (!line && errno == EINVAL && offset < gpiod_chip_num_lines(chip)) {
        // A kernel without uAPI v1 answers libgpiod 1.6's line info with EINVAL.
        struct gpio_v2_line_info info;
        if (kiosk_gpio_uapi2_line_info(gpiod_chip_name(chip), offset, &info) < 0) return -1;
        kiosk_gpiod_copy(facts->name, sizeof facts->name, info.name);
        kiosk_gpiod_copy(facts->consumer, sizeof facts->consumer, info.consumer);
        facts->used = (info.flags & GPIO_V2_LINE_FLAG_USED) != 0;
        return 0;
    }
    if (!line) return -1;
    kiosk_gpiod_copy(facts->name, sizeof facts->name, gpiod_line_name(line));
    kiosk_gpiod_copy(facts->consumer, sizeof facts->consumer, gpiod_line_consumer(line));
    facts->used = gpiod_line_is_used(line);
    return 0;
#else
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip, offset);
    if (!info) return -1;
    kiosk_gpiod_copy(facts->name, sizeof facts->name, gpiod_line_info_get_name(info));
    kiosk_gpiod_copy(facts->consumer, sizeof facts->consumer, gpiod_line_info_get_consumer(info));
    facts->used = gpiod_line_info_is_used(info);
    gpiod_line_info_free(info);
    return 0;
#endif
}

/// The offset of the line called `name` on `chip`, or -1 with errno (ENOENT: none).
static inline int kiosk_gpio_line_offset(struct gpiod_chip *chip, const char *name) {
#if KIOSK_GPIOD_API == 1
    errno = 0;
    struct gpiod_line *line = gpiod_chip_find_line(chip, name);
    if (!line && errno == EINVAL) return kiosk_gpio_uapi2_find_line(gpiod_chip_name(chip), gpiod_chip_num_lines(chip), name);
    if (!line) {
        if (errno == 0) errno = ENOENT;
        return -1;
    }
    return (int)gpiod_line_offset(line);
#else
    return gpiod_chip_get_line_offset_from_name(chip, name);
#endif
}

/// Requests line `offset` of `chip` as an input with events on both edges, debounced by the
/// kernel for `debounce_us` where the API offers it; NULL with errno (EBUSY: held elsewhere).
/// A v1 request lives as long as `chip` stays open. With libgpiod 1.6 on a kernel that refuses
/// uAPI v1 (EINVAL), the line is requested through uAPI v2 directly, without kernel debounce,
/// as libgpiod 1 would have it.
static inline struct kiosk_gpio_request *kiosk_gpio_request_edges(struct gpiod_chip *chip, unsigned int offset,
                                                                  unsigned long debounce_us, const char *consumer) {
    struct kiosk_gpio_request *request = calloc(1, sizeof *request);
    if (!request) return NULL;
#if KIOSK_GPIOD_API == 1
    (void)debounce_us;
    request->uapi2_fd = -1;
    request->line = gpiod_chip_get_line(chip, offset);
    if (request->line && gpiod_line_request_both_edges_events(request->line, consumer) == 0) return request;
    if (errno == EINVAL && offset < gpiod_chip_num_lines(chip)) {
        request->line = NULL;
        request->uapi2_fd = kiosk_gpio_uapi2_request_edges(gpiod_chip_name(chip), offset, consumer);
        if (request->uapi2_fd >= 0) return request;
    }
    int saved = errno;
    free(request);
    errno = saved;
    return NULL;
#else
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    struct gpiod_line_config *line_config = gpiod_line_config_new();
    struct gpiod_request_config *request_config = gpiod_request_config_new();
    int failed = !settings || !line_config || !request_config;
    if (!failed) {
        gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT);
        gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_BOTH);
        gpiod_line_settings_set_debounce_period_us(settings, debounce_us);
        gpiod_request_config_set_consumer(request_config, consumer);
        failed = gpiod_line_config_add_line_settings(line_config, &offset, 1, settings) < 0;
    }
    if (!failed) {
        request->request = gpiod_chip_request_lines(chip, request_config, line_config);
        request->buffer = gpiod_edge_event_buffer_new(16);
        request->offset = offset;
        failed = !request->request || !request->buffer;
    }
    int saved = errno;
    gpiod_line_settings_free(settings);
    gpiod_line_config_free(line_config);
    gpiod_request_config_free(request_config);
    if (failed) {
        if (request->request) gpiod_line_request_release(request->request);
        if (request->buffer) gpiod_edge_event_buffer_free(request->buffer);
        free(request);
        errno = saved ? saved : ENOMEM;
        return NULL;
    }
    return request;
#endif
}

static inline void kiosk_gpio_request_release(struct kiosk_gpio_request *request) {
    if (!request) return;
#if KIOSK_GPIOD_API == 1
    if (request->line) gpiod_line_release(request->line);
    else close(request->uapi2_fd);
#else
    gpiod_line_request_release(request->request);
    gpiod_edge_event_buffer_free(request->buffer);
#endif
    free(request);
}

/// 1 when the request went around libgpiod 1.6 to the kernel's uAPI v2 (a kernel without uAPI v1).
static inline int kiosk_gpio_request_is_direct(struct kiosk_gpio_request *request) {
#if KIOSK_GPIOD_API == 1
    return request->line == NULL;
#else
    (void)request;
    return 0;
#endif
}

/// The file descriptor to poll for edges.
static inline int kiosk_gpio_request_fd(struct kiosk_gpio_request *request) {
#if KIOSK_GPIOD_API == 1
    return request->line ? gpiod_line_event_get_fd(request->line) : request->uapi2_fd;
#else
    return gpiod_line_request_get_fd(request->request);
#endif
}

/// The line's physical value, 0 or 1; -1 with errno.
static inline int kiosk_gpio_request_value(struct kiosk_gpio_request *request) {
#if KIOSK_GPIOD_API == 1
    return request->line ? gpiod_line_get_value(request->line) : kiosk_gpio_uapi2_value(request->uapi2_fd);
#else
    return (int)gpiod_line_request_get_value(request->request, request->offset);
#endif
}

/// Reads the edges waiting (call when the fd is readable: it blocks otherwise) into `edges`,
/// at most `capacity` (up to 16); their number, or -1 with errno.
static inline int kiosk_gpio_request_read(struct kiosk_gpio_request *request, struct kiosk_gpio_edge *edges,
                                          unsigned int capacity) {
    if (capacity > 16) capacity = 16;
#if KIOSK_GPIOD_API == 1
    if (!request->line) {
        int rising[16];
        uint64_t timestamps[16];
        int count = kiosk_gpio_uapi2_read(request->uapi2_fd, rising, timestamps, capacity);
        for (int i = 0; i < count; i++) {
            edges[i].rising = rising[i];
            edges[i].timestamp_ns = timestamps[i];
        }
        return count;
    }
    struct gpiod_line_event events[16];
    int count = gpiod_line_event_read_fd_multiple(gpiod_line_event_get_fd(request->line), events, capacity);
    for (int i = 0; i < count; i++) {
        edges[i].rising = events[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE;
        edges[i].timestamp_ns = (uint64_t)events[i].ts.tv_sec * 1000000000u + (uint64_t)events[i].ts.tv_nsec;
    }
    return count;
#else
    int count = gpiod_line_request_read_edge_events(request->request, request->buffer, capacity);
    for (int i = 0; i < count; i++) {
        struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(request->buffer, (unsigned long)i);
        edges[i].rising = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE;
        edges[i].timestamp_ns = gpiod_edge_event_get_timestamp_ns(event);
    }
    return count;
#endif
}

#endif
