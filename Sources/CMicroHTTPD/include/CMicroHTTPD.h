// libmicrohttpd (Debian's libmicrohttpd-dev for the header; libmicrohttpd12 at run time), opened
// on first use instead of linked, as libmosquitto is: only `metrics.listen` (and the web page to
// come) needs an HTTP server, so a box without the library plays, and it is not loaded at every
// start. MHD_start_daemon and MHD_get_daemon_info are variadic, which Swift cannot call: the
// two functions below make those calls with kiosk's fixed options.
#pragma once
#include <stdint.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

struct kiosk_mhd_api {
    __typeof__(MHD_stop_daemon) * _Nonnull stop_daemon;
    __typeof__(MHD_create_response_from_buffer) * _Nonnull create_response_from_buffer;
    __typeof__(MHD_add_response_header) * _Nonnull add_response_header;
    __typeof__(MHD_queue_response) * _Nonnull queue_response;
    __typeof__(MHD_destroy_response) * _Nonnull destroy_response;
    __typeof__(MHD_lookup_connection_value) * _Nonnull lookup_connection_value;
};

/// The library's calls, opened the first time; NULL with `*error` saying why (the soname or a
/// symbol missing) when it cannot be.
const struct kiosk_mhd_api * _Nullable kiosk_mhd_load(const char * _Nullable * _Nonnull error);

/// A daemon with its own polling thread on `host` (an IPv4 or IPv6 literal) and `port` (0: any
/// free port), at most `connections` at once, each closed after `timeout` idle seconds.
/// NULL with `error` (of `error_size` bytes) saying why: the address, the library, the bind.
struct MHD_Daemon * _Nullable kiosk_mhd_start(const char * _Nonnull host, uint16_t port, unsigned connections,
                                              unsigned timeout, MHD_AccessHandlerCallback _Nonnull handler,
                                              void * _Nullable context, char * _Nonnull error, size_t error_size);

/// The port a started daemon listens on (the free port chosen for 0).
uint16_t kiosk_mhd_bound_port(struct MHD_Daemon * _Nonnull daemon);
