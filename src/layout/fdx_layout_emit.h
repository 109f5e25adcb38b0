/* fdx_layout_emit (internal): the layout's index function as source text,
   appended to a generator's string builder (fdx_layout_emit_index is the
   public form that writes into a caller's buffer). */
#ifndef FDX_LAYOUT_EMIT_H
#define FDX_LAYOUT_EMIT_H

#include "fdx/internal/sb.h"
#include "fdx/layout.h"

/* Appends the offset of element (names[0], names[1], ...) of an array of
   `shape` stored in layout `l`: a C expression of type long long, with
   fdx_diag_index (fdx_layout_emit_helpers) for diagonal layouts. */
FDX_HIDDEN fdx_status fdx_layout_emit_index_sb(const fdx_layout *l, const int64_t *shape, const char *const *names,
                                               fdx_sb *out);

#endif
