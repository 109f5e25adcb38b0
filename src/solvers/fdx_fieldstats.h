/* fdx_fieldstats: sums, extremes and the wave energy of a field, reduced
   where the field lives (OpenMP on the CPU, CUDA kernels on the device); 32
   bytes come back.

   The order of the sums is part of the definition, so a result is the same
   bit for bit on the CPU (any number of threads), on a GPU, and for any
   split of the grid (the distributed run reduces its gathered field the
   same way):
     - each row (the points of a box with one j and k, i ascending) is summed
       in 32 lanes: lane l adds the points l, l + 32, l + 64, ... in turn,
       then the lanes are combined pairwise, l += l + 16, l += l + 8, ...,
       l += l + 1 (a warp's shuffle tree);
     - the rows of a plane are added in ascending j, the planes in ascending k.
   Every product and sum is rounded on its own (no fused multiply-add).
   Minimum and maximum are exact in any order. */
#ifndef FDX_FIELDSTATS_H
#define FDX_FIELDSTATS_H

#include "core/fdx_error.h"
#include "fdx/array.h"
#include "fdx/stencil.h"

#include <stdint.h>

/* What a box reduces to.  Plain statistics: a = sum u, b = sum u^2, and
   the smallest and largest u.  Energy: a and b are its two terms. */
typedef struct fdx_stats {
    double a, b, min, max;
} fdx_stats;

/* The wave energy's terms (fdx_sim_diag.c):
   a = sum over all points (u - p)^2 idt2 / c2,
   b = - sum over interior points u (L p) ih2, L = sum over axes of w[0..2r]. */
typedef struct fdx_energy_args {
    double idt2, ih2;
    int r;
    double w[FDX_STENCIL_MAX_ORDER + 1];
} fdx_energy_args;

/* Statistics of u over the box lo <= index < hi (3 axes; 0 and 1 beyond its rank). */
FDX_HIDDEN fdx_status fdx_fieldstats_box(fdx_array *u, const int64_t *lo, const int64_t *hi, fdx_stats *out,
                                         void *stream);
/* The energy terms of u (this level), p (the previous one) and c2 (c^2);
   min and max are those of u. */
FDX_HIDDEN fdx_status fdx_fieldstats_energy(fdx_array *u, fdx_array *p, fdx_array *c2, const fdx_energy_args *e,
                                            fdx_stats *out, void *stream);

/* Statistics of u - p over every point (Poisson's change in a sweep). */
FDX_HIDDEN fdx_status fdx_fieldstats_diff(fdx_array *u, fdx_array *p, fdx_stats *out, void *stream);

/* The reduction's layout, shared by the CPU loops and the CUDA kernels. */
typedef struct fdx_stats_job {
    int mode;              /* 0: statistics of u; 1: energy; 2: statistics of u - p */
    int is_double, rank;
    int64_t n[3];          /* the array's extents (1 beyond its rank) */
    int64_t lo[3], hi[3];  /* the box */
    const void *u, *p, *c2;
    fdx_energy_args e;
} fdx_stats_job;

#ifdef FDX_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* scratch: 4 (rows + planes + 1) doubles of device memory; the result is
   written to scratch[0..3] (a, b, min, max).  Returns a cudaError_t as int. */
FDX_HIDDEN int fdx_fieldstats_cuda_reduce(const fdx_stats_job *job, double *scratch, void *stream);
#ifdef __cplusplus
}
#endif
#endif

#endif
