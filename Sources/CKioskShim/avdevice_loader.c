// libavdevice, opened on first use instead of linked: only a capture item (v4l2://) needs it,
// and linking it would load its own dependencies (libavfilter, SDL, X11...) at every start. Its
// soname's major version is libavformat's: FFmpeg bumps them together (59 in 5.1, 61 in 7.1).
// All kiosk needs from it is avdevice_register_all(), after which av_find_input_format("v4l2")
// (libavformat) finds the device demuxer.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include "kiosk_shim.h"

#define KIOSK_STRINGIFY2(x) #x
#define KIOSK_STRINGIFY(x) KIOSK_STRINGIFY2(x)
#define KIOSK_AVDEVICE_SONAME "libavdevice.so." KIOSK_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[300];
static int loaded;

static void load(void) {
    void *library = dlopen(KIOSK_AVDEVICE_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s", reason ? reason : "cannot open " KIOSK_AVDEVICE_SONAME);
        return;
    }
    void (*register_all)(void) = (void (*)(void))dlsym(library, "avdevice_register_all");
    if (!register_all) {
        snprintf(load_error, sizeof load_error, "%s has no avdevice_register_all", KIOSK_AVDEVICE_SONAME);
        return;
    }
    register_all();
    loaded = 1;
}

const char *kiosk_avdevice_load(void) {
    pthread_once(&once, load);
    return loaded ? NULL : load_error;
}
