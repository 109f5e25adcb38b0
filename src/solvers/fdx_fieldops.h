/* fdx_fieldops: the small pointwise kernels the solvers need around the
   stencil (boundary ghosts, sponge, sources, receivers, axpy), on the
   context's backend: OpenMP loops on the CPU, ahead-of-time kernels on CUDA. */
#ifndef FDX_FIELDOPS_H
#define FDX_FIELDOPS_H

#include "core/fdx_error.h"
#include "fdx/array.h"

/* Mirrors the r layers next to each face into the r ghost layers outside
   them (u[r-1-m] = u[r+m]): zero normal flux, the insulated wall. */
FDX_HIDDEN fdx_status fdx_fieldops_mirror(fdx_array *u, int r, void *stream);
/* The same on the faces in `sides` only: bit 2a the lower face of axis a,
   bit 2a+1 the upper one (a block of a distributed grid mirrors only the
   faces it shares with the whole grid). */
FDX_HIDDEN fdx_status fdx_fieldops_mirror_sides(fdx_array *u, int r, unsigned sides, void *stream);
/* Multiplies u (and v if not NULL) by exp(-(strength (w-d)/w)^2) at points at
   distance d < w from a face (a Cerjan sponge). */
FDX_HIDDEN fdx_status fdx_fieldops_sponge(fdx_array *u, fdx_array *v, int w, double strength, void *stream);
/* The same on a block of a global grid of extents `global` whose element 0
   is at global index `origin`: distances are measured to the global faces,
   so blocks (shadows included) damp exactly as the whole grid does. */
FDX_HIDDEN fdx_status fdx_fieldops_sponge_at(fdx_array *u, fdx_array *v, int w, double strength, const int64_t *origin,
                                             const int64_t *global, void *stream);
/* u[index] += value. */
FDX_HIDDEN fdx_status fdx_fieldops_add_point(fdx_array *u, int64_t index, double value, void *stream);
/* A point source whose values a table holds, for steps captured in a CUDA
   graph (a captured kernel keeps its arguments, so the step's value cannot
   be one): k = *step (device int64); u[index] += table[k] when k < len and
   the value is not 0 (as fdx_fieldops_add_point with the host's value);
   then *step = k + 1.  table (len doubles) and step live where u does. */
FDX_HIDDEN fdx_status fdx_fieldops_add_point_step(fdx_array *u, int64_t index, const double *table, int64_t len,
                                                  int64_t *step, void *stream);
/* out[i] = u[idx[i]] for n points; idx and out are device buffers (out of
   u's element type). */
FDX_HIDDEN fdx_status fdx_fieldops_gather(fdx_array *u, const int64_t *idx, int n, void *out, void *stream);
/* y += a x over all points. */
FDX_HIDDEN fdx_status fdx_fieldops_axpy(fdx_array *y, double a, fdx_array *x, void *stream);

/* The smallest index of a NaN or Inf in u (INT64_MAX when all values are
   finite), reduced where u lives; scratch is 8 bytes of device memory (unused
   on the CPU).  Only 8 bytes come back to the host. */
FDX_HIDDEN fdx_status fdx_fieldops_first_nonfinite(fdx_array *u, void *scratch, int64_t *first, void *stream);
/* Free and total device memory (CUDA; 0 and 0 on the CPU). */
FDX_HIDDEN fdx_status fdx_fieldops_device_memory(fdx_ctx *ctx, size_t *free_bytes, size_t *total_bytes);

/* CUDA launchers (fdx_fieldops_cuda.cu); double if is_double else float. */
#ifdef FDX_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
FDX_HIDDEN int fdx_fieldops_cuda_mirror(void *u, int is_double, const int64_t *n3, int rank, int r, unsigned sides,
                                        void *stream);
/* lo/hi: the box in local indices; origin/N place the block in the grid. */
FDX_HIDDEN int fdx_fieldops_cuda_sponge_box(void *u, void *v, int is_double, const int64_t *n3, int rank,
                                            const int64_t *lo, const int64_t *hi, const int64_t *origin,
                                            const int64_t *N, int w, double strength, void *stream);
FDX_HIDDEN int fdx_fieldops_cuda_add_point(void *u, int is_double, int64_t index, double value, void *stream);
FDX_HIDDEN int fdx_fieldops_cuda_add_point_step(void *u, int is_double, int64_t index, const double *table,
                                                int64_t len, int64_t *step, void *stream);
FDX_HIDDEN int fdx_fieldops_cuda_gather(const void *u, int is_double, const int64_t *idx, int n, void *out,
                                        void *stream);
FDX_HIDDEN int fdx_fieldops_cuda_axpy(void *y, const void *x, int is_double, int64_t n, double a, void *stream);
/* Writes the smallest index of a non-finite value into *first_dev (which the
   caller set to all ones bytes, read as unsigned). */
FDX_HIDDEN int fdx_fieldops_cuda_first_nonfinite(const void *u, int is_double, int64_t n, void *first_dev,
                                                 void *stream);
FDX_HIDDEN int fdx_fieldops_cuda_mem_info(size_t *free_bytes, size_t *total_bytes);
FDX_HIDDEN const char *fdx_fieldops_cuda_error(int code);
#ifdef __cplusplus
}
#endif
#endif

#endif
