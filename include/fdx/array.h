/* fdx arrays: a global shape, an element type, storage on the host and/or the
   context's device, explicit copies between them.  Memory order is the seeds':
   the first index is the fastest, u(i,j,k) = u[i + nx*(j + ny*k)]. */
#ifndef FDX_ARRAY_H
#define FDX_ARRAY_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FDX_MAX_RANK 6

typedef struct fdx_array fdx_array;

/* Where the current copy of an array lives. */
typedef enum fdx_place {
    FDX_ON_HOST = 1,
    FDX_ON_DEVICE = 2
} fdx_place;

/* Creates an array of the given shape (every extent >= 1, rank 1..FDX_MAX_RANK).
   places is a mask of fdx_place: host storage, device storage or both.  Memory
   is not initialized. On the CPU backend the "device" is host memory too. */
FDX_API fdx_status fdx_array_create(fdx_ctx *ctx, fdx_dtype type, int rank,
                                    const int64_t *shape, unsigned places,
                                    fdx_array **out);
FDX_API void fdx_array_destroy(fdx_array **a);

/* Wraps memory the caller owns, without a copy: NumPy/CuPy/PyTorch buffers,
   another library's cudaMalloc.  The caller keeps ownership: destroy frees
   the wrapper only, and the memory must outlive it.  host and/or device may
   be given (on the CPU backend they name one buffer: give either, or both
   equal).  A device pointer must be device (or managed) memory of the
   context's device, aligned to 16 bytes; a host pointer aligned to the
   element.  flags is a mask of fdx_place naming which given pointers hold the
   current values (0: all given).  strides (elements, per logical axis; NULL:
   contiguous, first index fastest) may describe any dense axis order, which
   becomes the array's layout; gaps, overlaps and negative or zero strides
   are refused with FDX_ERR_UNSUPPORTED naming the axis and stride.  Every
   operation takes a wrapped array; storage fdx must add (a device copy of a
   host-only wrap, say) belongs to the array.  fdx never moves wrapped memory:
   fdx_array_set_layout refuses a wrapped array (its layout is the
   caller's), and loops leave its layout alone. */
FDX_API fdx_status fdx_array_wrap(fdx_ctx *ctx, fdx_dtype type, int rank, const int64_t *shape,
                                  const int64_t *strides, void *host, void *device, unsigned flags,
                                  fdx_array **out);
/* fdx_place mask of the storage the caller lent (0: fdx owns all of it). */
FDX_API unsigned fdx_array_wrapped(const fdx_array *a);
/* Element strides per logical axis of both storages (for exporting an array
   to NumPy, DLPack, ...); FDX_ERR_UNSUPPORTED for a diagonal layout. */
FDX_API fdx_status fdx_array_strides(const fdx_array *a, int64_t *strides);

FDX_API int fdx_array_rank(const fdx_array *a);
FDX_API int64_t fdx_array_extent(const fdx_array *a, int axis);
FDX_API int64_t fdx_array_count(const fdx_array *a);       /* number of elements */
FDX_API size_t fdx_array_bytes(const fdx_array *a);        /* count * element size */
FDX_API fdx_dtype fdx_array_dtype(const fdx_array *a);
FDX_API fdx_ctx *fdx_array_ctx(const fdx_array *a);

/* Raw storage; NULL when the array has no storage there. */
FDX_API void *fdx_array_host(fdx_array *a);
FDX_API void *fdx_array_device(fdx_array *a);

/* Explicit copies (synchronous). Allocate the destination storage if needed. */
FDX_API fdx_status fdx_array_to_device(fdx_array *a);
FDX_API fdx_status fdx_array_to_host(fdx_array *a);

/* Fill the host copy with a value (handy for poisoning outputs), or the device
   copy with a byte pattern. */
FDX_API fdx_status fdx_array_fill_host(fdx_array *a, double value);
FDX_API fdx_status fdx_array_fill_device_bytes(fdx_array *a, unsigned char byte);

/* Checks a shape: rank in range, extents >= min_extent, total element count
   times elem_size fits in size_t and int64.  The message names the bad axis. */
FDX_API fdx_status fdx_shape_check(int rank, const int64_t *shape, int64_t min_extent,
                                   size_t elem_size);

#ifdef __cplusplus
}
#endif
#endif
