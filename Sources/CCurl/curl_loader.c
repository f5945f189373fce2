// See CCurl.h: libcurl opened with dlopen the first time a transfer is made.
// The soname's major version is the library's ABI (libcurl4 in Debian 12, libcurl4t64 in 13;
// both install libcurl.so.4, built with OpenSSL as the -dev package kiosk builds with).
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include "CCurl.h"

#define KIOSK_CURL_SONAME "libcurl.so.4"

static struct kiosk_curl_api api;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[300];
static int loaded;

static int resolve(void *library, void **slot, const char *symbol) {
    *slot = dlsym(library, symbol);
    if (!*slot) snprintf(load_error, sizeof load_error, "%s has no %s", KIOSK_CURL_SONAME, symbol);
    return *slot != NULL;
}

static void load(void) {
    void *library = dlopen(KIOSK_CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s", reason ? reason : "cannot open " KIOSK_CURL_SONAME);
        return;
    }
    loaded = resolve(library, (void **)&api.global_init, "curl_global_init")
        && resolve(library, (void **)&api.easy_init, "curl_easy_init")
        && resolve(library, (void **)&api.easy_cleanup, "curl_easy_cleanup")
        && resolve(library, (void **)&api.easy_perform, "curl_easy_perform")
        && resolve(library, (void **)&api.easy_pause, "curl_easy_pause")
        && resolve(library, (void **)&api.easy_strerror, "curl_easy_strerror")
        && resolve(library, (void **)&api.easy_setopt, "curl_easy_setopt")
        && resolve(library, (void **)&api.easy_getinfo, "curl_easy_getinfo")
        && resolve(library, (void **)&api.slist_append, "curl_slist_append")
        && resolve(library, (void **)&api.slist_free_all, "curl_slist_free_all")
        && resolve(library, (void **)&api.multi_init, "curl_multi_init")
        && resolve(library, (void **)&api.multi_cleanup, "curl_multi_cleanup")
        && resolve(library, (void **)&api.multi_add_handle, "curl_multi_add_handle")
        && resolve(library, (void **)&api.multi_remove_handle, "curl_multi_remove_handle")
        && resolve(library, (void **)&api.multi_perform, "curl_multi_perform")
        && resolve(library, (void **)&api.multi_info_read, "curl_multi_info_read")
        && resolve(library, (void **)&api.multi_poll, "curl_multi_poll")
        && resolve(library, (void **)&api.multi_setopt, "curl_multi_setopt");
    // Not thread-safe, once per process: here, under pthread_once.
    if (loaded && api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed");
        loaded = 0;
    }
}

const struct kiosk_curl_api *kiosk_curl_load(const char **error) {
    pthread_once(&once, load);
    *error = loaded ? NULL : load_error;
    return loaded ? &api : NULL;
}
