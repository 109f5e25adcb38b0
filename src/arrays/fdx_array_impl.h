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
    unsigned borrowed; /* fdx_place mask of storage the caller owns (fdx_array_wrap):
                          never freed, moved or reallocated by fdx */
};

/* A new array object of a checked type and shape in the plain layout, with
   no storage yet (`what` names the caller in messages). */
FDX_HIDDEN fdx_status fdx_array_new(fdx_ctx *ctx, fdx_dtype type, int rank, const int64_t *shape, const char *what,
                                    fdx_array **out);
/* Allocates the missing host / device storage (on the CPU backend both names
   share one buffer).  The new storage belongs to the array. */
FDX_HIDDEN fdx_status fdx_array_ensure_host(fdx_array *a);
FDX_HIDDEN fdx_status fdx_array_ensure_device(fdx_array *a);

#endif
