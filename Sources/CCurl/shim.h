// libcurl (Debian's libcurl4-openssl-dev): content sync's HTTP(S) downloads.
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: these typed
// static inline setters and getters are the only way KioskFetch reaches them.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

typedef size_t (*kiosk_curl_data_callback)(char *data, size_t size, size_t count, void *user);

static inline CURLcode kiosk_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode kiosk_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode kiosk_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode kiosk_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode kiosk_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode kiosk_curl_set_callback(CURL *handle, CURLoption option, kiosk_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode kiosk_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode kiosk_curl_get_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode kiosk_curl_get_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLMcode kiosk_curl_multi_set_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
