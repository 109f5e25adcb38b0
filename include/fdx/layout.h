/* fdx layout: how an array's elements lie in memory (an axis permutation and
   an optional diagonal arrangement of the two fastest stored axes), the index
   function of a layout (also as C/CUDA source for code generators), and the
   transforms that move data between layouts on the CPU and on CUDA. */
#ifndef FDX_LAYOUT_H
#define FDX_LAYOUT_H

#include "array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Diagonal state of the two fastest stored axes (extents Rx, then Ry):
   FDX_DIAG_ANTI stores the lines x + y = d one after another (d ascending),
   FDX_DIAG_MAIN the lines x - y = const, i.e. d = x + (Ry - 1 - y); inside a
   line the points go by x ascending.  Rx and Ry may differ. */
typedef enum fdx_diag {
    FDX_DIAG_NONE = 0,
    FDX_DIAG_MAIN,
    FDX_DIAG_ANTI
} fdx_diag;

/* A layout of a rank-`rank` array: stored axis p (p = 0 fastest) holds logical
   axis perm[p].  The identity perm with FDX_DIAG_NONE is the plain layout
   u(i,j,k) = u[i + nx*(j + ny*k)].  A diagonal state needs rank >= 2. */
typedef struct fdx_layout {
    int rank;
    int perm[FDX_MAX_RANK];
    fdx_diag diag;
} fdx_layout;

FDX_API fdx_status fdx_layout_identity(int rank, fdx_layout *out);
/* Builds and checks a layout (perm may be NULL for the identity). */
FDX_API fdx_status fdx_layout_make(int rank, const int *perm, fdx_diag diag, fdx_layout *out);
/* FDX_OK when l is a valid layout of rank `rank`; the message names the bad
   axis (out of range, duplicate) or the rank mismatch. */
FDX_API fdx_status fdx_layout_check(const fdx_layout *l, int rank);
FDX_API int fdx_layout_is_identity(const fdx_layout *l);
FDX_API const char *fdx_diag_name(fdx_diag d);                     /* none|main|anti */
FDX_API fdx_status fdx_diag_parse(const char *s, fdx_diag *out);
/* "3,0,1,2" (stored axis order, fastest first) into perm; *rank set. */
FDX_API fdx_status fdx_perm_parse(const char *s, int *rank, int *perm);

/* The index function: element offset of logical index idx[0..rank-1] in an
   array of logical extents `shape` stored with layout l. */
FDX_API int64_t fdx_layout_offset(const fdx_layout *l, const int64_t *shape, const int64_t *idx);

/* Source text for code generators.  fdx_layout_emit_helpers() returns C text
   (valid C11 and CUDA C) defining the helper the index expressions call;
   emit it once per generated file.  fdx_layout_emit_index() writes into buf a
   C expression of type long long giving the offset of the logical index whose
   components are the C expressions names[0..rank-1]; extents are constants. */
FDX_API const char *fdx_layout_emit_helpers(void);
FDX_API fdx_status fdx_layout_emit_index(const fdx_layout *l, const int64_t *shape,
                                         const char *const *names, char *buf, size_t cap);

/* ---- transforms on caller buffers ------------------------------------------
   Buffers live in the context's memory (device memory on CUDA, host memory on
   the CPU); CUDA work is asynchronous on `stream` (NULL: default stream).
   Element sizes 1, 2, 4, 8 and 16 bytes; buffers aligned to the element size. */

/* Tensor transpose: dst has extents shape[perm[p]] and dst axis p is src
   axis perm[p] (numpy's transpose(axes)).  dst == src only for batches of
   square 2D transposes (the swapped axes have equal extents and nothing else
   moves). */
FDX_API fdx_status fdx_permute(fdx_ctx *ctx, void *dst, const void *src, size_t elem_size,
                               int rank, const int64_t *shape, const int *perm, void *stream);

/* Moves an array of logical extents `shape` from layout `from` (in src) to
   layout `to` (in dst), distinct buffers.  Changing the diagonal state and
   the two fastest stored axes at once takes two passes through a scratch
   buffer the call allocates; every other conversion is one pass. */
FDX_API fdx_status fdx_layout_convert(fdx_ctx *ctx, void *dst, const fdx_layout *to, const void *src,
                                      const fdx_layout *from, size_t elem_size, int rank,
                                      const int64_t *shape, void *stream);

/* Copies the box lo[a] <= i[a] < lo[a] + box[a] of an array stored with
   layout l (logical extents shape) out to / in from `plain`, a dense buffer of
   extents box[] in the identity layout (for shadow faces and slices). */
FDX_API fdx_status fdx_layout_box_get(fdx_ctx *ctx, void *plain, const void *array, const fdx_layout *l,
                                      size_t elem_size, int rank, const int64_t *shape,
                                      const int64_t *lo, const int64_t *box, void *stream);
FDX_API fdx_status fdx_layout_box_put(fdx_ctx *ctx, void *array, const void *plain, const fdx_layout *l,
                                      size_t elem_size, int rank, const int64_t *shape,
                                      const int64_t *lo, const int64_t *box, void *stream);

/* ---- arrays ------------------------------------------------------------------
   Reorganizes the array's storage into layout l; logical indices keep their
   meaning.  Converts the current copies (fdx_array_valid; both when not
   tracked) and leaves a stale copy as it is, still stale.  Synchronous.  On
   error the array and its layout are untouched. */
FDX_API fdx_status fdx_array_set_layout(fdx_array *a, const fdx_layout *l);
FDX_API fdx_status fdx_array_layout(const fdx_array *a, fdx_layout *out);

#ifdef __cplusplus
}
#endif
#endif
