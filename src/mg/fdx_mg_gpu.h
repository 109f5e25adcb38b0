/* fdx_mg_gpu: the CUDA kernels of the multigrid solver (fdx_mg_gpu.cu,
   compiled ahead of time) as C launchers.  Each returns a cudaError_t as
   int (the launch's own error); all run on mg_gpu_stream(). */
#ifndef FDX_MG_GPU_H
#define FDX_MG_GPU_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The one-pass red-black sweep's tile (points of a plane a block owns). */
#define MG_GS2_X 32
#define MG_GS2_Y 8

/* The z-marching one-pass red-black sweep's block (threads; the tile of
   output points is 4 smaller on each axis: two rings). */
#define MG_GSZ_X 32
#define MG_GSZ_Y 16

/* The plane-marching residual+restriction's block (coarse points). */
#define MG_RR_X 32
#define MG_RR_Y 8
/* Its shared window of fine points (mg_rr_fits checks a level's tiles). */
#define MG_RR_WX (2 * MG_RR_X + 3)
#define MG_RR_WY (2 * MG_RR_Y + 3)

/* One level's shape: unknowns lo <= index < hi, strides, operator. */
typedef struct mg_geom {
    long long lo[3], hi[3], m[3], sy, sz, count;
    double c[3], diag;
    const double *k; /* variable coefficient at every stored point (device), NULL: k = 1 */
} mg_geom;

/* One axis's transfer tables in device memory (see mg_transfer). */
typedef struct mg_gpu_tr {
    const int32_t *i0, *i1, *ptr, *idx, *b0;
    const double *w0, *w1, *w, *bw;
} mg_gpu_tr;

/* The stream every launcher uses on this thread (0: the default stream). */
void *mg_gpu_stream(void);
void mg_gpu_set_stream(void *stream);

/* sum (device scalar, NULL: none) += the reduction of each kernel. */
int mg_gpu_residual(mg_geom g, const double *u, const double *f, double *r, double *sum);
/* r = f - A4 u (fourth order, second next to the boundary); sum += r^2. */
int mg_gpu_residual4(mg_geom g, const double *u, const double *f, double *r, double *sum);
int mg_gpu_apply(mg_geom g, const double *p, double *q, double *sum);
int mg_gpu_jacobi(mg_geom g, const double *u, const double *f, double *out, double omega);
int mg_gpu_gs_color(mg_geom g, double *u, const double *f, int color);
/* out = one red-black sweep of u (first colour first), out of place in
   one pass (3D, every axis Dirichlet; out holds the boundary values). */
int mg_gpu_gs_sweep2(mg_geom g, const double *u, const double *f, double *out, int first);
/* The same sweep marching in z with the columns in registers (streams u
   and f once; zc planes a block, <= 0: chosen here); uc != NULL: the old
   values are u + P uc (C the coarse level, t its transfer tables), the
   prolongation and correction folded in; sum != NULL (uc NULL): sum +=
   the squared residual of u, as mg_gpu_residual's sum. */
/* The output box of a z-marching sweep: the points of g's unknowns it
   writes (the first colour is computed on g's unknowns around it, so the
   sweeps of boxes that cover g's unknowns write what one sweep of all of
   them writes: a distributed block's interior while its shadows are
   renewed, then its edges). */
typedef struct mg_box {
    long long lo[3], hi[3];
} mg_box;
/* ob NULL: every unknown of g. */
int mg_gpu_gs_zsweep(mg_geom g, const mg_box *ob, const double *u, const double *f, double *out, int first,
                     long long zc, mg_geom C, mg_gpu_tr tx, mg_gpu_tr ty, mg_gpu_tr tz, const double *uc, double *sum);
int mg_gpu_cheby(mg_geom g, const double *u, const double *f, double *d, double *out, double alpha, double beta);
/* fc = R (f - A u) in one pass (u's ghosts filled): the fine residual is
   computed where the restriction reads it, never stored. */
int mg_gpu_resrestrict(mg_geom F, mg_geom C, mg_gpu_tr tx, mg_gpu_tr ty, mg_gpu_tr tz, const double *u,
                       const double *f, double *fc);
/* The same, each fine residual computed once (fine planes marched under
   tiles of coarse points, kc coarse planes a block, <= 0: chosen here);
   every axis Dirichlet, every tile's fine window within MG_RR_WX x
   MG_RR_WY (as tiles of MG_RR_X x MG_RR_Y coarse points). */
int mg_gpu_resrestrict_planes(mg_geom F, mg_geom C, mg_gpu_tr tx, mg_gpu_tr ty, mg_gpu_tr tz, const double *u,
                              const double *f, double *fc, long long kc);
int mg_gpu_restrict(mg_geom F, mg_geom C, mg_gpu_tr tx, mg_gpu_tr ty, mg_gpu_tr tz, const double *rf, double *fc);
int mg_gpu_prolong(mg_geom F, mg_geom C, mg_gpu_tr tx, mg_gpu_tr ty, mg_gpu_tr tz, const double *uc, double *uf,
                   int add);
/* dirichlet: bit a set when axis a is Dirichlet (its faces are injected). */
int mg_gpu_inject(mg_geom F, mg_geom C, mg_gpu_tr tx, mg_gpu_tr ty, mg_gpu_tr tz, unsigned dirichlet,
                  const double *uf, double *uc);
/* The ghost planes 0 and m - 1 of axis = planes src_lo and src_hi (-1:
   that side not): Neumann's mirror, periodic's wrap. */
int mg_gpu_ghost_planes(mg_geom g, double *a, int axis, long long src_lo, long long src_hi);
int mg_gpu_fill(long long n, double *a, double v);
int mg_gpu_dot(mg_geom g, const double *a, const double *b, double *sum);
int mg_gpu_shift(mg_geom g, double *a, double v);
int mg_gpu_cg_update(mg_geom g, double *x, const double *p, double *r, const double *q, double alpha, double *sum);
int mg_gpu_cg_direction(mg_geom g, double *p, const double *z, double beta);
/* u[map[i]] += (L L^T)^-1 t[map] (nu <= 64: one thread). */
int mg_gpu_coarse(int nu, double *chol, const int64_t *map, const double *t, double *u);
/* Caller's grid (nx, ny) <-> stored: stored = user + off, over the box lo..hi of user indices. */
int mg_gpu_copy_user(mg_geom g, const long long *off, const long long *lo, const long long *hi, long long nx,
                     long long ny, const double *src, double *dst, int to_user);

#ifdef __cplusplus
}
#endif
#endif
