/* fdx_array_impl: the array object as the library's upper layers see it. */
#ifndef FDX_ARRAY_IMPL_H
#define FDX_ARRAY_IMPL_H

#include "backends/fdx_backend.h"
#include "fdx/array.h"
#include "fdx/layout.h"

struct fdx_array {
    fdx_ctx *ctx;
    fdx_dtype dtype;
    size_t elem_size;
    int rank;
    int64_t shape[FDX_MAX_RANK];  /* logical extents, first index fastest */
    int64_t count;
    void *host;    /* NULL until host storage exists */
    void *device;  /* backend memory; on the CPU backend also host memory */
    fdx_layout layout; /* how both storages hold the elements (src/layout) */
    unsigned valid;    /* fdx_place mask of the current copies; 0: not tracked (src/loops) */
};

#endif
