/* fdx_layout_plan_cache: the plans of recent transforms, so that a transform
   repeated on the same shape does not plan again (see the .c file). */
#ifndef FDX_LAYOUT_PLAN_CACHE_H
#define FDX_LAYOUT_PLAN_CACHE_H

#include "core/fdx_error.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The knobs a plan depends on: every FDX_LAYOUT_* variable set, as
   "NAME=value" lines (fdx_knob_snapshot), NUL-padded to n bytes so that
   whole keys compare with memcmp.  Returns 0 when they do not fit (the
   caller does not cache) or when FDX_LAYOUT_PLAN_CACHE=0 turns the cache
   off. */
FDX_HIDDEN int fdx_layout_plan_knobs(char *buf, size_t n);
/* Copies the value stored under the klen bytes at key into val (vlen bytes)
   and returns 1, or returns 0 when there is none (or it has another size). */
FDX_HIDDEN int fdx_layout_plan_cache_find(const void *key, size_t klen, void *val, size_t vlen);
/* Stores a copy of val under key, evicting the least recently used entry
   when the table is full; out of memory it just does not store. */
FDX_HIDDEN void fdx_layout_plan_cache_put(const void *key, size_t klen, const void *val, size_t vlen);

#ifdef __cplusplus
}
#endif
#endif
