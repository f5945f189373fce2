// libcurl (Debian's libcurl4-openssl-dev for the header; libcurl4 at run time), opened on first
// use instead of linked: only content sync (`sync:`), feed layers and CAP alerts need it, so a
// box without it plays, and the libraries only it brings (8 on bookworm: libcurl, nghttp2,
// ssh2, LDAP, LBER, SASL, PSL, RTMP) are not loaded at every start. The types and constants are the
// header's; the calls go through the table `kiosk_curl_load` fills. curl_easy_setopt,
// curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot call: the typed
// static inline setters and getters below call them through the table.
#pragma once
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

struct kiosk_curl_api {
    __typeof__(curl_global_init) * _Nonnull global_init;
    __typeof__(curl_easy_init) * _Nonnull easy_init;
    __typeof__(curl_easy_cleanup) * _Nonnull easy_cleanup;
    __typeof__(curl_easy_perform) * _Nonnull easy_perform;
    __typeof__(curl_easy_pause) * _Nonnull easy_pause;
    __typeof__(curl_easy_strerror) * _Nonnull easy_strerror;
    __typeof__(curl_easy_setopt) * _Nonnull easy_setopt;
    __typeof__(curl_easy_getinfo) * _Nonnull easy_getinfo;
    __typeof__(curl_slist_append) * _Nonnull slist_append;
    __typeof__(curl_slist_free_all) * _Nonnull slist_free_all;
    __typeof__(curl_multi_init) * _Nonnull multi_init;
    __typeof__(curl_multi_cleanup) * _Nonnull multi_cleanup;
    __typeof__(curl_multi_add_handle) * _Nonnull multi_add_handle;
    __typeof__(curl_multi_remove_handle) * _Nonnull multi_remove_handle;
    __typeof__(curl_multi_perform) * _Nonnull multi_perform;
    __typeof__(curl_multi_info_read) * _Nonnull multi_info_read;
    __typeof__(curl_multi_poll) * _Nonnull multi_poll;
    __typeof__(curl_multi_setopt) * _Nonnull multi_setopt;
};

/// The library's calls, opened (and `curl_global_init` run) the first time; NULL with `*error`
/// saying why (the soname missing, a symbol missing) when it cannot be.
const struct kiosk_curl_api * _Nullable kiosk_curl_load(const char * _Nullable * _Nonnull error);

typedef size_t (*kiosk_curl_data_callback)(char * _Nullable data, size_t size, size_t count, void * _Nullable user);

static inline CURLcode kiosk_curl_set_long(const struct kiosk_curl_api * _Nonnull api, CURL * _Nonnull handle,
                                           CURLoption option, long value) {
    return api->easy_setopt(handle, option, value);
}
static inline CURLcode kiosk_curl_set_offset(const struct kiosk_curl_api * _Nonnull api, CURL * _Nonnull handle,
                                             CURLoption option, curl_off_t value) {
    return api->easy_setopt(handle, option, value);
}
static inline CURLcode kiosk_curl_set_string(const struct kiosk_curl_api * _Nonnull api, CURL * _Nonnull handle,
                                             CURLoption option, const char * _Nullable value) {
    return api->easy_setopt(handle, option, value);
}
static inline CURLcode kiosk_curl_set_pointer(const struct kiosk_curl_api * _Nonnull api, CURL * _Nonnull handle,
                                              CURLoption option, void * _Nullable value) {
    return api->easy_setopt(handle, option, value);
}
static inline CURLcode kiosk_curl_set_list(const struct kiosk_curl_api * _Nonnull api, CURL * _Nonnull handle,
                                           CURLoption option, struct curl_slist * _Nullable value) {
    return api->easy_setopt(handle, option, value);
}
static inline CURLcode kiosk_curl_set_callback(const struct kiosk_curl_api * _Nonnull api, CURL * _Nonnull handle,
                                               CURLoption option, kiosk_curl_data_callback _Nonnull value) {
    return api->easy_setopt(handle, option, value);
}
static inline CURLcode kiosk_curl_get_long(const struct kiosk_curl_api * _Nonnull api, CURL * _Nonnull handle,
                                           CURLINFO info, long * _Nonnull value) {
    return api->easy_getinfo(handle, info, value);
}
static inline CURLcode kiosk_curl_get_string(const struct kiosk_curl_api * _Nonnull api, CURL * _Nonnull handle,
                                             CURLINFO info, char * _Nullable * _Nonnull value) {
    return api->easy_getinfo(handle, info, value);
}
static inline CURLcode kiosk_curl_get_pointer(const struct kiosk_curl_api * _Nonnull api, CURL * _Nonnull handle,
                                              CURLINFO info, void * _Nullable * _Nonnull value) {
    return api->easy_getinfo(handle, info, value);
}
static inline CURLMcode kiosk_curl_multi_set_long(const struct kiosk_curl_api * _Nonnull api, CURLM * _Nonnull multi,
                                                  CURLMoption option, long value) {
    return api->multi_setopt(multi, option, value);
}
