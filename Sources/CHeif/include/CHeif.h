// libheif (Debian's libheif-dev for the header; libheif1 at run time), opened on first use
// instead of linked, as libmosquitto is: only a HEIC/HEIF or AVIF still needs it, and linking it
// cost every start two more libraries (libheif, libde265, whose start-up code ran at every
// `kiosk` command) and their pages (#34). The types and constants are the header's; the calls go
// through the table `kiosk_heif_load` fills.
#pragma once
#include <libheif/heif.h>

struct kiosk_heif_api {
    __typeof__(heif_context_alloc) * _Nonnull context_alloc;
    __typeof__(heif_context_free) * _Nonnull context_free;
    __typeof__(heif_context_read_from_file) * _Nonnull context_read_from_file;
    __typeof__(heif_context_get_primary_image_handle) * _Nonnull context_get_primary_image_handle;
    __typeof__(heif_image_handle_release) * _Nonnull image_handle_release;
    __typeof__(heif_image_handle_get_width) * _Nonnull image_handle_get_width;
    __typeof__(heif_image_handle_get_height) * _Nonnull image_handle_get_height;
    __typeof__(heif_image_handle_has_alpha_channel) * _Nonnull image_handle_has_alpha_channel;
    __typeof__(heif_decoding_options_alloc) * _Nonnull decoding_options_alloc;
    __typeof__(heif_decoding_options_free) * _Nonnull decoding_options_free;
    __typeof__(heif_decode_image) * _Nonnull decode_image;
    __typeof__(heif_image_release) * _Nonnull image_release;
    __typeof__(heif_image_get_bits_per_pixel_range) * _Nonnull image_get_bits_per_pixel_range;
    __typeof__(heif_image_get_plane_readonly) * _Nonnull image_get_plane_readonly;
    __typeof__(heif_image_get_colorspace) * _Nonnull image_get_colorspace;
    __typeof__(heif_image_get_chroma_format) * _Nonnull image_get_chroma_format;
    __typeof__(heif_image_get_nclx_color_profile) * _Nonnull image_get_nclx_color_profile;
    __typeof__(heif_nclx_color_profile_free) * _Nonnull nclx_color_profile_free;
    __typeof__(heif_get_file_mime_type) * _Nonnull get_file_mime_type;
    __typeof__(heif_have_decoder_for_format) * _Nonnull have_decoder_for_format;
};

/// The library's calls, opened (and `heif_init` run: it loads libheif's decoder plugins, where
/// it has any) the first time; NULL with `*error` saying why (the soname missing, a symbol
/// missing, heif_init failing) when it cannot be.
const struct kiosk_heif_api * _Nullable kiosk_heif_load(const char * _Nullable * _Nonnull error);

/// heif_image_release through the table, for the AVFrame buffer's free callback (a C function
/// pointer that captures nothing). Only called for an image the loaded library made.
void kiosk_heif_image_release(struct heif_image * _Nonnull image);
