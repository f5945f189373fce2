// libwebpdemux's animation decoder (Debian's libwebpdemux2), opened on first use instead of
// linked: only an animated WebP needs it, which FFmpeg 5.1 and 7.1 cannot decode (animations
// came with FFmpeg 9.0). Its types are declared in kiosk_shim.h as libwebp's demux.h has them
// since 0.5 (demux ABI 0x0107, which bookworm's 1.2 and trixie's 1.5 both take): the library
// is dlopen'ed, so no -dev package is needed to build, and the ABI number passed to its
// `...Internal` constructors is checked by the library itself.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include "kiosk_shim.h"

#define KIOSK_WEBP_DEMUX_SONAME "libwebpdemux.so.2"
#define KIOSK_WEBP_DEMUX_ABI_VERSION 0x0107
#define KIOSK_WEBP_MODE_RGBA 1

static struct {
    int (*options_init)(kiosk_webp_anim_options *, int);
    kiosk_webp_anim_decoder *(*decoder_new)(const kiosk_webp_data *, const kiosk_webp_anim_options *, int);
    int (*get_info)(const kiosk_webp_anim_decoder *, kiosk_webp_anim_info *);
    int (*get_next)(kiosk_webp_anim_decoder *, uint8_t **, int *);
    int (*has_more)(const kiosk_webp_anim_decoder *);
    void (*reset)(kiosk_webp_anim_decoder *);
    void (*delete_decoder)(kiosk_webp_anim_decoder *);
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[300];
static int loaded;

static int resolve(void *library, void **slot, const char *symbol) {
    *slot = dlsym(library, symbol);
    if (!*slot) snprintf(load_error, sizeof load_error, "%s has no %s", KIOSK_WEBP_DEMUX_SONAME, symbol);
    return *slot != NULL;
}

static void load(void) {
    void *library = dlopen(KIOSK_WEBP_DEMUX_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s", reason ? reason : "cannot open " KIOSK_WEBP_DEMUX_SONAME);
        return;
    }
    loaded = resolve(library, (void **)&api.options_init, "WebPAnimDecoderOptionsInitInternal")
        && resolve(library, (void **)&api.decoder_new, "WebPAnimDecoderNewInternal")
        && resolve(library, (void **)&api.get_info, "WebPAnimDecoderGetInfo")
        && resolve(library, (void **)&api.get_next, "WebPAnimDecoderGetNext")
        && resolve(library, (void **)&api.has_more, "WebPAnimDecoderHasMoreFrames")
        && resolve(library, (void **)&api.reset, "WebPAnimDecoderReset")
        && resolve(library, (void **)&api.delete_decoder, "WebPAnimDecoderDelete");
}

const char *kiosk_webp_anim_load(void) {
    pthread_once(&once, load);
    return loaded ? NULL : load_error;
}

kiosk_webp_anim_decoder *kiosk_webp_anim_decoder_new(const uint8_t *bytes, size_t size) {
    kiosk_webp_anim_options options;
    if (!api.options_init(&options, KIOSK_WEBP_DEMUX_ABI_VERSION)) return NULL;
    options.color_mode = KIOSK_WEBP_MODE_RGBA;
    options.use_threads = 0;
    kiosk_webp_data data = {bytes, size};
    return api.decoder_new(&data, &options, KIOSK_WEBP_DEMUX_ABI_VERSION);
}

int kiosk_webp_anim_decoder_info(const kiosk_webp_anim_decoder *decoder, kiosk_webp_anim_info *info) {
    return api.get_info(decoder, info);
}

int kiosk_webp_anim_decoder_next(kiosk_webp_anim_decoder *decoder, uint8_t **rgba, int *timestamp) {
    return api.get_next(decoder, rgba, timestamp);
}

int kiosk_webp_anim_decoder_has_more(const kiosk_webp_anim_decoder *decoder) { return api.has_more(decoder); }
void kiosk_webp_anim_decoder_reset(kiosk_webp_anim_decoder *decoder) { api.reset(decoder); }
void kiosk_webp_anim_decoder_delete(kiosk_webp_anim_decoder *decoder) { api.delete_decoder(decoder); }
