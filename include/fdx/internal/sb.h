/* fdx_sb (internal, for friends: see fdx/internal/error.h): the one growing
   string of the library (generated source, JSON records, index
   expressions).  Appends never fail on the spot: running out
   of memory sets `failed`, later appends do nothing, and the owner checks
   once at the end (fdx_sb_status, fdx_sb_take), so emitting code stays
   linear.  Indentation: fdx_sb_line writes `indent` levels (4 spaces each)
   before its text and a newline after it. */
#ifndef FDX_INTERNAL_SB_H
#define FDX_INTERNAL_SB_H

#include "fdx/internal/error.h"

#include <stdarg.h>
#include <stddef.h>

typedef struct fdx_sb {
    char *s;     /* NUL-terminated text (NULL while empty) */
    size_t len, cap;
    int indent;  /* levels fdx_sb_line writes before its text */
    int failed;  /* out of memory at some point: the text is incomplete */
} fdx_sb;

#define FDX_SB_INIT {NULL, 0, 0, 0, 0}

/* Appends formatted text. */
FDX_HIDDEN void fdx_sb_printf(fdx_sb *b, const char *fmt, ...) FDX_PRINTF(2, 3);
FDX_HIDDEN void fdx_sb_vprintf(fdx_sb *b, const char *fmt, va_list ap);
/* Appends a string as it is. */
FDX_HIDDEN void fdx_sb_puts(fdx_sb *b, const char *s);
/* Appends one line: the indentation, the formatted text, a newline. */
FDX_HIDDEN void fdx_sb_line(fdx_sb *b, const char *fmt, ...) FDX_PRINTF(2, 3);
/* The text so far ("" while empty; never NULL). */
FDX_HIDDEN const char *fdx_sb_str(const fdx_sb *b);
/* Drops the text, keeps the memory. */
FDX_HIDDEN void fdx_sb_clear(fdx_sb *b);
FDX_HIDDEN void fdx_sb_free(fdx_sb *b);
/* FDX_OK, or FDX_ERR_NOMEM naming `what` when an append ran out of memory. */
FDX_HIDDEN fdx_status fdx_sb_status(const fdx_sb *b, const char *what);
/* Hands the text (malloc'ed, NUL-terminated) to *out and empties the
   builder; on a failed builder frees it and returns FDX_ERR_NOMEM. */
FDX_HIDDEN fdx_status fdx_sb_take(fdx_sb *b, const char *what, char **out);

#endif
