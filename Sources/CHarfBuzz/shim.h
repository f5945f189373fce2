// HarfBuzz's shaper and its FreeType bridge (hb-ft.h ships in Debian's libharfbuzz-dev): the
// shaper reads the same FT_Face the glyphs are drawn from, so sizes and glyph ids agree.
#include <ft2build.h>
#include FT_FREETYPE_H
#include <hb.h>
#include <hb-ft.h>
