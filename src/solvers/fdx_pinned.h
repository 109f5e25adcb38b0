/* fdx_pinned: page-locked host buffers for copies that overlap kernels (plain
   malloc on the CPU backend or without CUDA). */
#ifndef FDX_PINNED_H
#define FDX_PINNED_H

#include "core/fdx_error.h"

#include <stddef.h>

FDX_HIDDEN fdx_status fdx_pinned_alloc(fdx_ctx *ctx, size_t bytes, void **out);
FDX_HIDDEN void fdx_pinned_free(fdx_ctx *ctx, void *p);

#endif
