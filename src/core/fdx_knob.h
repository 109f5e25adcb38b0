/* fdx_knob: the expert environment variables of fdx_knobs.def.  Read through
   here, never with getenv("FDX_..."), so that every one has a name in the
   table, help text and a place in `fdx info`. */
#ifndef FDX_KNOB_H
#define FDX_KNOB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fdx_knob_id {
#define FDX_KNOB(name, help) FDX_KNOB_##name,
#include "fdx_knobs.def"
#undef FDX_KNOB
    FDX_KNOB_COUNT
} fdx_knob_id;

/* The value of FDX_<name>, or NULL when it is unset or empty. */
const char *fdx_knob(fdx_knob_id k);
/* 1 when FDX_<name> is set to exactly `value`. */
int fdx_knob_is(fdx_knob_id k, const char *value);
/* FDX_<name> as an integer in lo..hi, or def when it is unset; a value that
   is not one (measurement switches change speed, not results) is ignored
   with a warning naming it. */
long long fdx_knob_int(fdx_knob_id k, long long lo, long long hi, long long def);
/* Field `field` (from 0) of a value of fields joined by ':' ("4:32:1024")
   as fdx_knob_int reads a whole value: def when the knob or the field is
   absent, def and a warning when the field is not an integer in lo..hi. */
long long fdx_knob_int_field(fdx_knob_id k, int field, long long lo, long long hi, long long def);
/* The variable's full name ("FDX_LAYOUT_TILE") and its help text. */
const char *fdx_knob_env(fdx_knob_id k);
const char *fdx_knob_help(fdx_knob_id k);
/* Every variable of the environment whose name begins with `prefix`
   ("FDX_LAYOUT_") as "NAME=value\n", in the environment's order, into buf,
   NUL-padded to n bytes: one pass over the environment, for the keys of
   caches whose entries depend on a family of knobs (a knob lookup each
   scans the whole environment).  Returns 0 when they do not fit. */
int fdx_knob_snapshot(const char *prefix, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
