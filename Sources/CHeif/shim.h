// libheif (Debian's libheif-dev): HEIC and AVIF stills, which FFmpeg 5.1 cannot open. Its C API
// imports as is (opaque handles, plain structs), so nothing is wrapped here.
#include <libheif/heif.h>
