// See CHeif.h: libheif opened with dlopen the first time a HEIF still is read. The soname's
// major version is the library's ABI (libheif1 in Debian 12 and 13).
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include "CHeif.h"

#define KIOSK_HEIF_SONAME "libheif.so.1"

static struct kiosk_heif_api api;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[300];
static int loaded;

static int resolve(void *library, void **slot, const char *symbol) {
    *slot = dlsym(library, symbol);
    if (!*slot) snprintf(load_error, sizeof load_error, "%s has no %s", KIOSK_HEIF_SONAME, symbol);
    return *slot != NULL;
}

static void load(void) {
    void *library = dlopen(KIOSK_HEIF_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s", reason ? reason : "cannot open " KIOSK_HEIF_SONAME);
        return;
    }
    __typeof__(heif_init) *init = NULL;
    loaded = resolve(library, (void **)&init, "heif_init")
        && resolve(library, (void **)&api.context_alloc, "heif_context_alloc")
        && resolve(library, (void **)&api.context_free, "heif_context_free")
        && resolve(library, (void **)&api.context_read_from_file, "heif_context_read_from_file")
        && resolve(library, (void **)&api.context_get_primary_image_handle, "heif_context_get_primary_image_handle")
        && resolve(library, (void **)&api.image_handle_release, "heif_image_handle_release")
        && resolve(library, (void **)&api.image_handle_get_width, "heif_image_handle_get_width")
        && resolve(library, (void **)&api.image_handle_get_height, "heif_image_handle_get_height")
        && resolve(library, (void **)&api.image_handle_has_alpha_channel, "heif_image_handle_has_alpha_channel")
        && resolve(library, (void **)&api.decoding_options_alloc, "heif_decoding_options_alloc")
        && resolve(library, (void **)&api.decoding_options_free, "heif_decoding_options_free")
        && resolve(library, (void **)&api.decode_image, "heif_decode_image")
        && resolve(library, (void **)&api.image_release, "heif_image_release")
        && resolve(library, (void **)&api.image_get_bits_per_pixel_range, "heif_image_get_bits_per_pixel_range")
        && resolve(library, (void **)&api.image_get_plane_readonly, "heif_image_get_plane_readonly")
        && resolve(library, (void **)&api.image_get_colorspace, "heif_image_get_colorspace")
        && resolve(library, (void **)&api.image_get_chroma_format, "heif_image_get_chroma_format")
        && resolve(library, (void **)&api.image_get_nclx_color_profile, "heif_image_get_nclx_color_profile")
        && resolve(library, (void **)&api.nclx_color_profile_free, "heif_nclx_color_profile_free")
        && resolve(library, (void **)&api.get_file_mime_type, "heif_get_file_mime_type")
        && resolve(library, (void **)&api.have_decoder_for_format, "heif_have_decoder_for_format");
    if (!loaded) return;
    // Once per process and never undone (its plugins stay loaded): here, under pthread_once.
    struct heif_error initialized = init(NULL);
    if (initialized.code != heif_error_Ok) {
        snprintf(load_error, sizeof load_error, "heif_init failed: %s",
                 initialized.message ? initialized.message : "no reason given");
        loaded = 0;
    }
}

const struct kiosk_heif_api *kiosk_heif_load(const char **error) {
    pthread_once(&once, load);
    *error = loaded ? NULL : load_error;
    return loaded ? &api : NULL;
}

void kiosk_heif_image_release(struct heif_image *image) {
    if (loaded) api.image_release(image);
}
