// GNU FriBidi: the Unicode bidirectional algorithm (UAX #9), which HarfBuzz does not do.
#include <fribidi.h>

// FRIBIDI_PAR_ON is a macro of macros Swift does not import: "find the paragraph's direction
// from its first strong character" (UAX #9 P2-P3; left to right when there is none).
static const FriBidiParType kiosk_fribidi_par_auto = FRIBIDI_PAR_ON;
