// libmicrohttpd (Debian's libmicrohttpd-dev for the header; libmicrohttpd12 at run time), opened
// on first use instead of linked, as libmosquitto is: only `metrics.listen` (and the web page to
// come) needs an HTTP server, so a box without the library plays, and it is not loaded at every
// start. MHD_start_daemon, MHD_get_daemon_info and MHD_get_connection_info are variadic, which
// Swift cannot call: the functions below make those calls with kiosk's fixed options.
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

/// Called once a request has ended (answered, or the connection gone): `context` is the pointer
/// the access handler stored in its `con_cls`, to be freed.
typedef void (*kiosk_mhd_completed)(void * _Nullable * _Nullable con_cls);

/// The library's calls, opened the first time; NULL with `*error` saying why (the soname or a
/// symbol missing) when it cannot be.
const struct kiosk_mhd_api * _Nullable kiosk_mhd_load(const char * _Nullable * _Nonnull error);

/// A daemon with its own polling thread on `host` (an IPv4 or IPv6 literal) and `port` (0: any
/// free port), at most `connections` at once, each closed after `timeout` idle seconds.
/// `completed` (may be NULL) is told of each request's end. `tls_certificate` and `tls_key` (PEM
/// text, both or neither): HTTPS with GnuTLS, as Debian builds the library.
/// NULL with `error` (of `error_size` bytes) saying why: the address, the library, the bind.
struct MHD_Daemon * _Nullable kiosk_mhd_start(const char * _Nonnull host, uint16_t port, unsigned connections,
                                              unsigned timeout, MHD_AccessHandlerCallback _Nonnull handler,
                                              void * _Nullable context, kiosk_mhd_completed _Nullable completed,
                                              const char * _Nullable tls_certificate, const char * _Nullable tls_key,
                                              char * _Nonnull error, size_t error_size);

/// The client's address as text (`192.0.2.7`, `::1`) in `buffer`; empty when unknown.
void kiosk_mhd_client_address(struct MHD_Connection * _Nonnull connection, char * _Nonnull buffer, size_t size);

/// The port a started daemon listens on (the free port chosen for 0).
uint16_t kiosk_mhd_bound_port(struct MHD_Daemon * _Nonnull daemon);
