#include <stdint.h>
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/sync_file.h>

/* dma-buf heaps and dma-buf CPU access: ioctl is variadic, which Swift cannot call. */
static inline int kiosk_dma_heap_alloc(int heap_fd, uint64_t length, int *out_fd) {
    struct dma_heap_allocation_data data = { .len = length, .fd_flags = O_RDWR | O_CLOEXEC };
    if (ioctl(heap_fd, DMA_HEAP_IOCTL_ALLOC, &data) < 0) return -1;
    *out_fd = (int)data.fd;
    return 0;
}

/* Brackets CPU writes into a dma-buf's mapping (caches flushed for the device after). */
static inline int kiosk_dma_buf_cpu_write(int fd, int begin) {
    struct dma_buf_sync sync = { .flags = (begin ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) | DMA_BUF_SYNC_WRITE };
    return ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
}

/* A sync_file's state (SYNC_IOC_FILE_INFO with no per-fence array): 1 signalled, 0 pending,
 * below 0 the error it was signalled with (-errno); -1 with errno set when the ioctl fails is
 * told apart by *failed. */
static inline int kiosk_sync_file_status(int fd, int *failed) {
    struct sync_file_info info = { 0 };
    *failed = ioctl(fd, SYNC_IOC_FILE_INFO, &info) < 0;
    return info.status;
}
