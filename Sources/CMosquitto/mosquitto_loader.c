// See CMosquitto.h: libmosquitto opened with dlopen the first time an MQTT client is made.
// The soname's major version is the library's ABI (libmosquitto1 in Debian 12 and 13).
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include "CMosquitto.h"

#define KIOSK_MOSQUITTO_SONAME "libmosquitto.so.1"

static struct kiosk_mosquitto_api api;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[300];
static int loaded;

static int resolve(void *library, void **slot, const char *symbol) {
    *slot = dlsym(library, symbol);
    if (!*slot) snprintf(load_error, sizeof load_error, "%s has no %s", KIOSK_MOSQUITTO_SONAME, symbol);
    return *slot != NULL;
}

static void load(void) {
    void *library = dlopen(KIOSK_MOSQUITTO_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s", reason ? reason : "cannot open " KIOSK_MOSQUITTO_SONAME);
        return;
    }
    loaded = resolve(library, (void **)&api.lib_init, "mosquitto_lib_init")
        && resolve(library, (void **)&api.new_client, "mosquitto_new")
        && resolve(library, (void **)&api.destroy, "mosquitto_destroy")
        && resolve(library, (void **)&api.int_option, "mosquitto_int_option")
        && resolve(library, (void **)&api.threaded_set, "mosquitto_threaded_set")
        && resolve(library, (void **)&api.connect_callback_set, "mosquitto_connect_callback_set")
        && resolve(library, (void **)&api.disconnect_callback_set, "mosquitto_disconnect_callback_set")
        && resolve(library, (void **)&api.message_callback_set, "mosquitto_message_callback_set")
        && resolve(library, (void **)&api.will_set, "mosquitto_will_set")
        && resolve(library, (void **)&api.username_pw_set, "mosquitto_username_pw_set")
        && resolve(library, (void **)&api.tls_set, "mosquitto_tls_set")
        && resolve(library, (void **)&api.reconnect_delay_set, "mosquitto_reconnect_delay_set")
        && resolve(library, (void **)&api.connect_async, "mosquitto_connect_async")
        && resolve(library, (void **)&api.loop_forever, "mosquitto_loop_forever")
        && resolve(library, (void **)&api.publish, "mosquitto_publish")
        && resolve(library, (void **)&api.subscribe, "mosquitto_subscribe")
        && resolve(library, (void **)&api.disconnect, "mosquitto_disconnect")
        && resolve(library, (void **)&api.strerror, "mosquitto_strerror")
        && resolve(library, (void **)&api.connack_string, "mosquitto_connack_string");
    // Not thread-safe, once per process: here, under pthread_once.
    if (loaded) api.lib_init();
}

const struct kiosk_mosquitto_api *kiosk_mosquitto_load(const char **error) {
    pthread_once(&once, load);
    *error = loaded ? NULL : load_error;
    return loaded ? &api : NULL;
}
