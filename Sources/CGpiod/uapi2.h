// The kernel's GPIO character device, uAPI v2 (<linux/gpio.h>), used directly where libgpiod 1.6
// cannot work: libgpiod 1.6 speaks only uAPI v1, which kernels built without CONFIG_GPIO_CDEV_V1
// refuse with EINVAL (Debian's kernels from 7.x do; a bookworm box on a backports kernel has
// libgpiod 1.6 and such a kernel). Only shim.h's libgpiod 1 path includes this; libgpiod 2 is
// uAPI v2 already. Each call opens /dev/<chip name> itself: libgpiod 1.6 does not hand out its fd.
#ifndef KIOSK_GPIO_UAPI2_H
#define KIOSK_GPIO_UAPI2_H
#include <errno.h>
#include <fcntl.h>
#include <linux/gpio.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static inline int kiosk_gpio_uapi2_open(const char *chip_name) {
    char path[96];
    snprintf(path, sizeof path, "/dev/%s", chip_name);
    return open(path, O_RDWR | O_CLOEXEC);
}

/// 0, or -1 with errno.
static inline int kiosk_gpio_uapi2_line_info(const char *chip_name, unsigned int offset, struct gpio_v2_line_info *info) {
    int fd = kiosk_gpio_uapi2_open(chip_name);
    if (fd < 0) return -1;
    memset(info, 0, sizeof *info);
    info->offset = offset;
    int result = ioctl(fd, GPIO_V2_GET_LINEINFO_IOCTL, info);
    int saved = errno;
    close(fd);
    errno = saved;
    return result;
}

/// The offset of the line called `name` among `count`, or -1 with errno (ENOENT: none).
static inline int kiosk_gpio_uapi2_find_line(const char *chip_name, unsigned int count, const char *name) {
    struct gpio_v2_line_info info;
    for (unsigned int offset = 0; offset < count; offset++) {
        if (kiosk_gpio_uapi2_line_info(chip_name, offset, &info) < 0) return -1;
        if (strncmp(info.name, name, sizeof info.name) == 0) return (int)offset;
    }
    errno = ENOENT;
    return -1;
}

/// A request of one input line with both edges: its fd, or -1 with errno.
static inline int kiosk_gpio_uapi2_request_edges(const char *chip_name, unsigned int offset, const char *consumer) {
    int chip = kiosk_gpio_uapi2_open(chip_name);
    if (chip < 0) return -1;
    struct gpio_v2_line_request request;
    memset(&request, 0, sizeof request);
    request.offsets[0] = offset;
    strncpy(request.consumer, consumer, sizeof request.consumer - 1);
    request.config.flags = GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_EDGE_RISING | GPIO_V2_LINE_FLAG_EDGE_FALLING;
    request.num_lines = 1;
    int result = ioctl(chip, GPIO_V2_GET_LINE_IOCTL, &request);
    int saved = errno;
    close(chip);
    errno = saved;
    return result < 0 ? -1 : request.fd;
}

/// 0 or 1, or -1 with errno.
static inline int kiosk_gpio_uapi2_value(int fd) {
    struct gpio_v2_line_values values;
    memset(&values, 0, sizeof values);
    values.mask = 1;
    if (ioctl(fd, GPIO_V2_LINE_GET_VALUES_IOCTL, &values) < 0) return -1;
    return (int)(values.bits & 1);
}

/// Up to `capacity` (at most 16) waiting edges: (rising, timestamp) pairs through the callback's
/// arrays; their number, or -1 with errno.
static inline int kiosk_gpio_uapi2_read(int fd, int *rising, uint64_t *timestamp_ns, unsigned int capacity) {
    struct gpio_v2_line_event events[16];
    if (capacity > 16) capacity = 16;
    ssize_t bytes = read(fd, events, capacity * sizeof events[0]);
    if (bytes < 0) return -1;
    int count = (int)(bytes / (ssize_t)sizeof events[0]);
    for (int i = 0; i < count; i++) {
        rising[i] = events[i].id == GPIO_V2_LINE_EVENT_RISING_EDGE;
        timestamp_ns[i] = events[i].timestamp_ns;
    }
    return count;
}

#endif
