// The kernel's HDMI-CEC API (<linux/cec.h>, /dev/cecN): no library, only ioctls. Swift cannot
// call ioctl (it is variadic) nor see the _IOWR request numbers (function-like macros), and the
// structs' fixed arrays arrive in Swift as tuples, so every call is a static inline here that
// returns 0 or -errno (read at once, before Swift code can run and change errno).
#ifndef KIOSK_CEC_SHIM_H
#define KIOSK_CEC_SHIM_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/cec.h>

static inline int kiosk_cec_ioctl(int fd, unsigned long request, void *argument) {
    int result;
    do {
        result = ioctl(fd, request, argument);
    } while (result < 0 && errno == EINTR);
    return result < 0 ? -errno : 0;
}

/// CEC_ADAP_G_CAPS: the driver, the adapter's name, its CEC_CAP_* bits.
static inline int kiosk_cec_get_caps(int fd, struct cec_caps *caps) {
    memset(caps, 0, sizeof *caps);
    return kiosk_cec_ioctl(fd, CEC_ADAP_G_CAPS, caps);
}

/// CEC_ADAP_G_PHYS_ADDR: 0xffff (f.f.f.f) while no sink is connected.
static inline int kiosk_cec_get_physical_address(int fd, uint16_t *address) {
    *address = CEC_PHYS_ADDR_INVALID;
    return kiosk_cec_ioctl(fd, CEC_ADAP_G_PHYS_ADDR, address);
}

/// CEC_ADAP_G_LOG_ADDRS: what is configured (num_log_addrs) and what was claimed (log_addr[i],
/// CEC_LOG_ADDR_INVALID until the claim is done, and again while the sink is away).
static inline int kiosk_cec_get_logical_addresses(int fd, struct cec_log_addrs *addresses) {
    memset(addresses, 0, sizeof *addresses);
    return kiosk_cec_ioctl(fd, CEC_ADAP_G_LOG_ADDRS, addresses);
}

/// The number of logical addresses configured, and the i-th one claimed (0xff: none).
static inline uint8_t kiosk_cec_log_addrs_count(const struct cec_log_addrs *addresses) {
    return addresses->num_log_addrs;
}
static inline uint8_t kiosk_cec_log_addr(const struct cec_log_addrs *addresses, unsigned index) {
    return index < CEC_MAX_LOG_ADDRS ? addresses->log_addr[index] : CEC_LOG_ADDR_INVALID;
}
static inline uint8_t kiosk_cec_log_addr_invalid(void) { return CEC_LOG_ADDR_INVALID; }
static inline uint8_t kiosk_cec_cec_version(const struct cec_log_addrs *addresses) {
    return addresses->cec_version;
}
/// Copies the OSD name (up to 14 characters, NUL-terminated in `name`, 15 bytes).
static inline void kiosk_cec_osd_name(const struct cec_log_addrs *addresses, char name[15]) {
    memcpy(name, addresses->osd_name, 15);
    name[14] = 0;
}

/// CEC_ADAP_S_LOG_ADDRS as a Playback device (the type of a media player) with CEC version 2.0,
/// the given OSD name and no vendor ID. Falls back to the unregistered address (15) when every
/// Playback address is taken, which can still send Image View On and Standby. On a blocking fd
/// the call returns once the claim is done (polling the bus: up to about a second), or at once
/// while the physical address is invalid: the kernel claims when a sink appears.
static inline int kiosk_cec_claim_playback(int fd, const char *osd_name) {
    struct cec_log_addrs addresses;
    memset(&addresses, 0, sizeof addresses);
    addresses.cec_version = CEC_OP_CEC_VERSION_2_0;
    addresses.vendor_id = CEC_VENDOR_ID_NONE;
    addresses.num_log_addrs = 1;
    addresses.flags = CEC_LOG_ADDRS_FL_ALLOW_UNREG_FALLBACK;
    strncpy(addresses.osd_name, osd_name, sizeof addresses.osd_name - 1);
    addresses.primary_device_type[0] = CEC_OP_PRIM_DEVTYPE_PLAYBACK;
    addresses.log_addr_type[0] = CEC_LOG_ADDR_TYPE_PLAYBACK;
    addresses.all_device_types[0] = CEC_OP_ALL_DEVTYPE_PLAYBACK;
    return kiosk_cec_ioctl(fd, CEC_ADAP_S_LOG_ADDRS, &addresses);
}

/// CEC_S_MODE: an initiator that shares the adapter (cec-ctl or a CEC daemon may use it too),
/// without following: the kernel answers the core messages kiosk does not handle.
static inline int kiosk_cec_become_initiator(int fd) {
    uint32_t mode = CEC_MODE_INITIATOR | CEC_MODE_NO_FOLLOWER;
    return kiosk_cec_ioctl(fd, CEC_S_MODE, &mode);
}

/// CEC_TRANSMIT of `length` bytes (header first), with no reply awaited. On a blocking fd the
/// call returns when the adapter is done with the message, its result in *tx_status; the
/// kernel ends a transmit the hardware does not finish after about 2 s (CEC_TX_STATUS_TIMEOUT),
/// so that is the bound. cec_msg.timeout stays 0: the kernel applies it only to a reply.
static inline int kiosk_cec_transmit(int fd, const uint8_t *bytes, uint32_t length, uint8_t *tx_status) {
    struct cec_msg message;
    memset(&message, 0, sizeof message);
    if (length < 1 || length > CEC_MAX_MSG_SIZE) return -EINVAL;
    memcpy(message.msg, bytes, length);
    message.len = length;
    message.timeout = 0;
    message.reply = 0;
    int result = kiosk_cec_ioctl(fd, CEC_TRANSMIT, &message);
    *tx_status = message.tx_status;
    return result;
}

/// CEC_TRANSMIT that waits up to `timeout_ms` for the destination's reply with `reply_opcode`
/// (the kernel matches it; a Feature Abort ends the wait too). The reply's bytes go to `reply`
/// (CEC_MAX_MSG_SIZE), its length to *reply_length (0: none came); *rx_status says why not.
static inline int kiosk_cec_transmit_reply(int fd, const uint8_t *bytes, uint32_t length, uint8_t reply_opcode,
                                           uint32_t timeout_ms, uint8_t *tx_status, uint8_t *rx_status,
                                           uint8_t *reply, uint32_t *reply_length) {
    struct cec_msg message;
    memset(&message, 0, sizeof message);
    if (length < 1 || length > CEC_MAX_MSG_SIZE) return -EINVAL;
    memcpy(message.msg, bytes, length);
    message.len = length;
    message.timeout = timeout_ms;
    message.reply = reply_opcode;
    int result = kiosk_cec_ioctl(fd, CEC_TRANSMIT, &message);
    *tx_status = message.tx_status;
    *rx_status = message.rx_status;
    *reply_length = (message.rx_status & CEC_RX_STATUS_OK) ? message.len : 0;
    memcpy(reply, message.msg, CEC_MAX_MSG_SIZE);
    return result;
}

static inline uint32_t kiosk_cec_cap_log_addrs(void) { return CEC_CAP_LOG_ADDRS; }
static inline uint32_t kiosk_cec_cap_transmit(void) { return CEC_CAP_TRANSMIT; }
static inline uint32_t kiosk_cec_cap_phys_addr(void) { return CEC_CAP_PHYS_ADDR; }

#endif
