// FreeType names its public header through a macro (FT_FREETYPE_H) defined in ft2build.h.
#include <ft2build.h>
#include FT_FREETYPE_H
