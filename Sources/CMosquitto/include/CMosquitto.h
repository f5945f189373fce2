// libmosquitto (Debian's libmosquitto-dev for the header; libmosquitto1 at run time), opened on
// first use instead of linked: only `mqtt:` in kiosk.conf needs it, so a box without it plays,
// and the ~3 libraries it brings are not loaded at every start. The types and constants are
// the header's; the calls go through the table `kiosk_mosquitto_load` fills.
#pragma once
#include <mosquitto.h>

struct kiosk_mosquitto_api {
    __typeof__(mosquitto_lib_init) * _Nonnull lib_init;
    __typeof__(mosquitto_new) * _Nonnull new_client;
    __typeof__(mosquitto_destroy) * _Nonnull destroy;
    __typeof__(mosquitto_int_option) * _Nonnull int_option;
    __typeof__(mosquitto_threaded_set) * _Nonnull threaded_set;
    __typeof__(mosquitto_connect_callback_set) * _Nonnull connect_callback_set;
    __typeof__(mosquitto_disconnect_callback_set) * _Nonnull disconnect_callback_set;
    __typeof__(mosquitto_message_callback_set) * _Nonnull message_callback_set;
    __typeof__(mosquitto_will_set) * _Nonnull will_set;
    __typeof__(mosquitto_username_pw_set) * _Nonnull username_pw_set;
    __typeof__(mosquitto_tls_set) * _Nonnull tls_set;
    __typeof__(mosquitto_reconnect_delay_set) * _Nonnull reconnect_delay_set;
    __typeof__(mosquitto_connect_async) * _Nonnull connect_async;
    __typeof__(mosquitto_loop_forever) * _Nonnull loop_forever;
    __typeof__(mosquitto_publish) * _Nonnull publish;
    __typeof__(mosquitto_subscribe) * _Nonnull subscribe;
    __typeof__(mosquitto_disconnect) * _Nonnull disconnect;
    __typeof__(mosquitto_strerror) * _Nonnull strerror;
    __typeof__(mosquitto_connack_string) * _Nonnull connack_string;
};

/// The library's calls, opened (and `mosquitto_lib_init` run) the first time; NULL with
/// `*error` saying why (the soname missing, a symbol missing) when it cannot be.
const struct kiosk_mosquitto_api * _Nullable kiosk_mosquitto_load(const char * _Nullable * _Nonnull error);
