// See CMicroHTTPD.h: libmicrohttpd opened with dlopen the first time a server is started.
// The soname's major version is the library's ABI (libmicrohttpd12 in Debian 12, 12t64 in 13).
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "CMicroHTTPD.h"

#define KIOSK_MHD_SONAME "libmicrohttpd.so.12"

static struct kiosk_mhd_api api;
static __typeof__(MHD_start_daemon) *start_daemon;
static __typeof__(MHD_get_daemon_info) *get_daemon_info;
static __typeof__(MHD_get_connection_info) *get_connection_info;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[300];
static int loaded;

static int resolve(void *library, void **slot, const char *symbol) {
    *slot = dlsym(library, symbol);
    if (!*slot) snprintf(load_error, sizeof load_error, "%s has no %s", KIOSK_MHD_SONAME, symbol);
    return *slot != NULL;
}

static void load(void) {
    void *library = dlopen(KIOSK_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s", reason ? reason : "cannot open " KIOSK_MHD_SONAME);
        return;
    }
    loaded = resolve(library, (void **)&start_daemon, "MHD_start_daemon")
        && resolve(library, (void **)&get_daemon_info, "MHD_get_daemon_info")
        && resolve(library, (void **)&get_connection_info, "MHD_get_connection_info")
        && resolve(library, (void **)&api.stop_daemon, "MHD_stop_daemon")
        && resolve(library, (void **)&api.create_response_from_buffer, "MHD_create_response_from_buffer")
        && resolve(library, (void **)&api.add_response_header, "MHD_add_response_header")
        && resolve(library, (void **)&api.queue_response, "MHD_queue_response")
        && resolve(library, (void **)&api.destroy_response, "MHD_destroy_response")
        && resolve(library, (void **)&api.lookup_connection_value, "MHD_lookup_connection_value");
}

const struct kiosk_mhd_api *kiosk_mhd_load(const char **error) {
    pthread_once(&once, load);
    *error = loaded ? NULL : load_error;
    return loaded ? &api : NULL;
}

// The library's completion callback, handing the request's own pointer to kiosk's (`cls`).
static void on_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                         enum MHD_RequestTerminationCode code) {
    (void)connection;
    (void)code;
    kiosk_mhd_completed completed = (kiosk_mhd_completed)cls;
    if (completed && con_cls && *con_cls) completed(con_cls);
}

struct MHD_Daemon *kiosk_mhd_start(const char *host, uint16_t port, unsigned connections, unsigned timeout,
                                   MHD_AccessHandlerCallback handler, void *context, kiosk_mhd_completed completed,
                                   const char *tls_certificate, const char *tls_key, char *error, size_t error_size) {
    const char *load_failure = NULL;
    if (!kiosk_mhd_load(&load_failure)) {
        snprintf(error, error_size, "%s", load_failure);
        return NULL;
    }
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *address;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, host, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        address = (const struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, host, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        address = (const struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
        // `::` (every address): IPv4 too, as a server on 0.0.0.0 would be reached.
        if (IN6_IS_ADDR_UNSPECIFIED(&v6.sin6_addr)) flags |= MHD_USE_DUAL_STACK;
    } else {
        snprintf(error, error_size, "'%s' is not an IPv4 or IPv6 address", host);
        return NULL;
    }
    if ((tls_certificate == NULL) != (tls_key == NULL)) {
        snprintf(error, error_size, "HTTPS needs both a certificate and its key");
        return NULL;
    }
    // One client may hold at most a quarter of the connections (at least 4: a browser opens
    // several), so one slow host cannot hold the page down.
    unsigned per_ip = connections / 4 < 4 ? 4 : connections / 4;
    errno = 0;
    struct MHD_Daemon *daemon;
    if (tls_certificate) {
        daemon = start_daemon(flags | MHD_USE_TLS, port, NULL, NULL, handler, context,
                              MHD_OPTION_SOCK_ADDR, address,
                              MHD_OPTION_CONNECTION_LIMIT, connections,
                              MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip,
                              MHD_OPTION_CONNECTION_TIMEOUT, timeout,
                              MHD_OPTION_NOTIFY_COMPLETED, on_completed, (void *)completed,
                              MHD_OPTION_HTTPS_MEM_CERT, tls_certificate,
                              MHD_OPTION_HTTPS_MEM_KEY, tls_key,
                              MHD_OPTION_END);
    } else {
        daemon = start_daemon(flags, port, NULL, NULL, handler, context,
                              MHD_OPTION_SOCK_ADDR, address,
                              MHD_OPTION_CONNECTION_LIMIT, connections,
                              MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip,
                              MHD_OPTION_CONNECTION_TIMEOUT, timeout,
                              MHD_OPTION_NOTIFY_COMPLETED, on_completed, (void *)completed,
                              MHD_OPTION_END);
    }
    if (!daemon) snprintf(error, error_size, "cannot listen: %s", errno ? strerror(errno) : "the library refused");
    return daemon;
}

uint16_t kiosk_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

void kiosk_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size) {
    buffer[0] = 0;
    const union MHD_ConnectionInfo *info = get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, buffer, (socklen_t)size);
    } else if (address->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, buffer, (socklen_t)size);
    }
}
