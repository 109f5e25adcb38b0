/* fdx_mg_impl: the multigrid solver's levels, transfers and CPU kernels. */
#ifndef FDX_MG_IMPL_H
#define FDX_MG_IMPL_H

#include "core/fdx_error.h"
#include "fdx/dist.h"
#include "fdx/mg.h"

#include <stdint.h>

#define MG_MAX_LEVELS 32
#define MG_COARSE_MAX 64 /* coarsening stops at this many unknowns */

/* The one-pass out-of-place red-black sweeps (s->gs2, L->gs2; the CPU
   runs both as a copy and its in-place sweep). */
enum { MG_GS2_RING = 1, /* CUDA: tiles with a shared ring of planes marching all of z */
       MG_GS2_Z = 2 };  /* CUDA: columns in registers marching chunks of z */

/* Linear interpolation along one axis from a coarse level (stored extent M)
   to a fine one (stored extent m), and its transpose.  Prolongation: fine
   stored index s takes w0[s]*c[i0[s]] + w1[s]*c[i1[s]] (coarse ghosts
   included).  Restriction: coarse unknown S gathers fine unknowns
   idx[ptr[S]..ptr[S+1]) with weights w (ghost entries folded onto the
   unknowns they mirror, scaled by h/H). */
typedef struct mg_transfer {
    int32_t *i0, *i1;
    double *w0, *w1;
    int32_t *ptr, *idx;
    double *w;
    int32_t span; /* the widest restriction row */
    int32_t *b0;  /* injection: coarse stored index S sits between fine b0[S] and b0[S]+1 */
    double *bw;   /* weight of b0[S] */
} mg_transfer;

typedef struct mg_dlevel mg_dlevel; /* a distributed level (fdx_mg_dist.c) */

typedef struct mg_level {
    int64_t n[3];          /* points per axis as the caller sees them (1 for a missing z) */
    int64_t m[3];          /* stored extent: n, or n + 2 with ghosts (Neumann, periodic) */
    int64_t lo[3], hi[3];  /* unknowns: lo <= stored index < hi */
    int64_t sy, sz;        /* strides (sz 0 in 2D: the z neighbours are the point itself) */
    int64_t count;         /* stored points */
    int64_t unknowns;
    double h[3], c[3];     /* spacing, 1/h^2 (0 for a missing axis) */
    double diag;           /* 2 * sum c */
    double *k;             /* variable coefficient at every stored point (host; NULL: k = 1) */
    double *dk;            /* its device copy (CUDA) */
    double *u, *f, *t, *d; /* solution, right-hand side, scratch / residual, Chebyshev direction */
    double *dsum;          /* CUDA: the device double reductions add into */
    mg_transfer tr[3];     /* to this level from the next coarser one */
    mg_transfer dtr[3];    /* the same tables in device memory (CUDA) */
    double work;           /* unknowns / finest unknowns */
    int gs2;               /* smoothed by out-of-place one-pass red-black sweeps: MG_GS2_RING or MG_GS2_Z; 0: in place */
    mg_dlevel *dl;         /* a distributed solver's level (its fields are handles, see fdx_mg_dist.c); NULL: one unit */
} mg_level;

/* The kernels a solve runs, on one backend: the cycles and the Krylov loop
   call only these.  Reductions return their value on the host (one double
   leaves the device; fields never do). */
typedef struct mg_ops {
    void (*ghosts)(const fdx_solver *s, const mg_level *L, double *a);
    /* The ghost planes of one axis over the whole stored extent of the
       others: plane 0 = plane src_lo, plane m - 1 = plane src_hi (-1: that
       side not); one pass (the ghosts' building block). */
    void (*ghost_planes)(const mg_level *L, double *a, int axis, int64_t src_lo, int64_t src_hi);
    void (*residual)(const mg_level *L, const double *u, const double *f, double *r);
    double (*resnorm2)(const mg_level *L, const double *u, const double *f);
    double (*apply)(const mg_level *L, const double *p, double *q);
    void (*jacobi)(const mg_level *L, const double *u, const double *f, double *out, double omega);
    void (*gs_color)(const mg_level *L, double *u, const double *f, int color);
    void (*gs_sweep)(const mg_level *L, double *u, const double *f, int first);
    /* One red-black sweep out of place: out = the in-place sweep of u
       (boundary values already in out), bit for bit. */
    void (*gs_sweep2)(const mg_level *L, const double *u, const double *f, double *out, int first);
    /* gs_sweep2 by the z-marching kernel writing only the unknowns in the
       box lo..hi (stored indices of L; the first colour computed around
       it): sweeps of boxes covering L's unknowns write one sweep's values.
       NULL: the backend has none (the CPU). */
    void (*gs_sweep2_box)(const mg_level *L, const double *u, const double *f, double *out, int first,
                          const int64_t *lo, const int64_t *hi);
    /* The same sweep of u + P uc (C's u, ghosts filled): prolongation,
       correction and the first post-smoothing sweep in one pass; u is only
       read (bit for bit prolong(add) then gs_sweep2). */
    void (*gs_sweep2p)(const mg_level *F, const mg_level *C, const double *uc, const double *u, const double *f,
                       double *out, int first);
    /* gs_sweep2 (z-marching on CUDA) that also returns sum (f - A u)^2 of
       u: the convergence check inside the next cycle's first sweep. */
    double (*gs_sweep2_norm)(const mg_level *L, const double *u, const double *f, double *out, int first);
    void (*cheby)(const mg_level *L, const double *u, const double *f, double *d, double *out, double alpha,
                  double beta);
    void (*restrict_)(const fdx_solver *s, const mg_level *F, const mg_level *C, const double *rf, double *fc);
    /* fc = R (f - A u) in one pass, no fine residual array (u's ghosts
       filled); NULL: the backend has none. */
    void (*resrestrict)(const fdx_solver *s, const mg_level *F, const mg_level *C, const double *u, const double *f,
                        double *fc);
    void (*prolong)(const mg_level *F, const mg_level *C, const double *uc, double *uf, int add);
    void (*inject)(const fdx_solver *s, const mg_level *F, const mg_level *C, const double *uf, double *uc);
    void (*zero)(const mg_level *L, double *a);
    void (*copy)(const mg_level *L, double *dst, const double *src);
    double (*dot)(const mg_level *L, const double *a, const double *b);
    void (*shift)(const mg_level *L, double *a, double v);
    double (*cg_update)(const mg_level *L, double *x, const double *p, double *r, const double *q, double alpha);
    void (*cg_direction)(const mg_level *L, double *p, const double *z, double beta);
    /* Coarsest level: u += A^-1 t (t: the residual) with the Cholesky factor. */
    void (*coarse)(fdx_solver *s, mg_level *L);
    /* The caller's grid to level 0's stored layout (to_user 0; only the
       unknowns unless whole) or back (to_user 1: the unknowns). */
    void (*copy_user)(const fdx_solver *s, const double *src, double *dst, int to_user, int whole);
    /* A box of a caller's array (extents nx, ny, z) to a level's stored
       layout or back (to_user 1): stored index = caller's + off, over
       the caller's indices lo <= i < hi (copy_user is this on level 0). */
    void (*copy_box)(const mg_level *L, const int64_t *off, const int64_t *lo, const int64_t *hi, int64_t nx,
                     int64_t ny, const double *src, double *dst, int to_user);
    /* mg_residual4 (NULL: the backend has no fourth-order operator). */
    double (*residual4)(const mg_level *L, const double *u, const double *f, double *r);
    /* The first error since the last call (launches, reductions); FDX_OK. */
    fdx_status (*status)(void);
    /* Runs one cycle on level 0 as a replayed CUDA graph; 0: not done
       (the caller runs mg_cycle).  NULL on the CPU. */
    int (*graph_cycle)(fdx_solver *s, fdx_solver_cycle c);
    /* Releases what graph_cycle kept. */
    void (*graph_free)(fdx_solver *s);
} mg_ops;

typedef struct mg_dist mg_dist; /* fdx_mg_dist.c */

struct fdx_solver {
    const mg_ops *ops;
    mg_dist *md;             /* distributed over units (ops is then fdx_mg_dist.c's table); NULL: one unit */
    int gpu;                 /* levels live in device memory */
    fdx_ctx *ctx;
    int rank;
    int64_t shape[3];
    fdx_solver_bc bc[3];
    double h[3];
    int h_set;
    fdx_solver_method method;
    fdx_solver_cycle cycle;
    fdx_solver_smoother smoother;
    int pre, post;
    fdx_solver_coarse coarse;
    int coarse_sweeps;
    double tol;
    int max_cycles;
    int order;               /* of the finest operator: 2 or 4 */
    double *kuser;           /* the caller's coefficient (shape), NULL: k = 1 */
    int fuse;                /* descend by resrestrict (one pass) */

    int ready, singular, nlev;
    int fused_gs;            /* red-black in one pass (3D, every axis Dirichlet) */
    int gs2;                 /* red-black sweeps out of place (gs_sweep2, swapping u and t): MG_GS2_* */
    int psmooth;             /* prolongation folded into the first post-smoothing sweep (gs_sweep2p) */
    int normfuse;            /* the residual norm inside the next cycle's first sweep (gs_sweep2_norm) */
    int skip_pre0;           /* this cycle's first sweep on level 0 has run (gs_sweep2_norm) */
    mg_level lev[MG_MAX_LEVELS];
    double *rowbuf;          /* per-thread rows for the restriction */
    int64_t rowbuf_stride;
    double *chol;            /* coarsest level: Cholesky factor (nu x nu) */
    int64_t *chol_map;       /* stored index of each coarse unknown */
    double *d_chol;          /* their device copies (CUDA) */
    int64_t *d_chol_map;
    double *chol_vec;
    int64_t chol_n;
    double *x, *p, *q;       /* CG: iterate, direction, A p (finest stored size) */
    double cheb_lo, cheb_hi; /* Chebyshev interval of D^-1 A */
    double omega;            /* Jacobi weight */

    /* CUDA: the instantiated graph of one cycle, without and with
       skip_pre0 (a solve with the norm in the sweep uses both), and of
       full multigrid (distributed solvers: MG_GRAPH_FMG) */
    void *graph[3];
    fdx_solver_cycle graph_kind[3];                                      /* -1: plain launches from now on */
    double *graph_in[3][MG_MAX_LEVELS][2], *graph_out[3][MG_MAX_LEVELS][2]; /* each level's u, t before and after */
    double graph_work[3];                                                /* work units one replay adds */
    uint64_t graph_state_in[3][MG_MAX_LEVELS], graph_state_out[3][MG_MAX_LEVELS]; /* mg_graph_hooks' state */

    double *hist;
    int nhist, iters, converged;
    double work;
};

/* ---- kernels (fdx_mg_kernels.c): unknowns only unless said ---- */
/* Fills the ghosts of Neumann (mirror) and periodic (wrap) axes. */
FDX_HIDDEN void mg_ghosts(const fdx_solver *s, const mg_level *L, double *a);
/* The CPU's ghost_planes (mg_ops). */
FDX_HIDDEN void mg_ghost_planes(const mg_level *L, double *a, int axis, int64_t src_lo, int64_t src_hi);
/* The plane a ghost plane copies, on side 0 (index 0) or 1 (m - 1) of an
   axis of stored extent m: Neumann mirrors, periodic wraps. */
FDX_HIDDEN int64_t mg_ghost_source(fdx_solver_bc bc, int64_t m, int side);
/* mg_ghosts with a backend's ghost_planes (axis after axis). */
typedef void (*mg_planes_fn)(const mg_level *L, double *a, int axis, int64_t src_lo, int64_t src_hi);
FDX_HIDDEN void mg_ghosts_by(const fdx_solver *s, const mg_level *L, double *a, mg_planes_fn planes);
/* r = f - A u; returns sum r^2.  r NULL: only the sum. */
FDX_HIDDEN double mg_residual(const mg_level *L, const double *u, const double *f, double *r);
/* r = f - A4 u (fourth order; second order next to the boundary, where
   the wide stencil would leave the grid); returns sum r^2. */
FDX_HIDDEN double mg_residual4(const mg_level *L, const double *u, const double *f, double *r);
/* q = A p; returns sum p*q. */
FDX_HIDDEN double mg_apply(const mg_level *L, const double *p, double *q);
/* out = u + omega D^-1 (f - A u). */
FDX_HIDDEN void mg_jacobi(const mg_level *L, const double *u, const double *f, double *out, double omega);
/* Gauss-Seidel on the points of one colour ((i+j+k) % 2 == color), in place. */
FDX_HIDDEN void mg_gs_color(const mg_level *L, double *u, const double *f, int color);
/* Both colours, `first` first, in one pass over memory (3D, no ghosts:
   every axis Dirichlet). */
FDX_HIDDEN void mg_gs_sweep(const mg_level *L, double *u, const double *f, int first);
/* out = u, then mg_gs_sweep on out (the CPU's stand-in for the CUDA
   one-pass out-of-place sweep: the same result, so the cycles' buffer
   swapping is tested here). */
FDX_HIDDEN void mg_gs_sweep2(const mg_level *L, const double *u, const double *f, double *out, int first);
/* out = u + P uc, then mg_gs_sweep on out (the CPU's stand-in for the
   z-marching sweep with the prolongation folded in). */
/* mg_residual's sum r^2 of u, then mg_gs_sweep2. */
FDX_HIDDEN double mg_gs_sweep2_norm(const mg_level *L, const double *u, const double *f, double *out, int first);
FDX_HIDDEN void mg_gs_sweep2p(const mg_level *F, const mg_level *C, const double *uc, const double *u, const double *f,
                              double *out, int first);
/* d = alpha d + beta D^-1 (f - A u); out = u + d (alpha 0: d's old value unused). */
FDX_HIDDEN void mg_cheby(const mg_level *L, const double *u, const double *f, double *d, double *out, double alpha,
                         double beta);
/* fc = R (f - A u) in one pass over the fine level: each coarse row's fine
   residual rows are computed into a per-thread row and restricted at
   once (no fine residual array); bit for bit mg_residual then mg_restrict. */
FDX_HIDDEN void mg_resrestrict(const fdx_solver *s, const mg_level *F, const mg_level *C, const double *u,
                               const double *f, double *fc);
/* fc = R rf (coarse unknowns). */
FDX_HIDDEN void mg_restrict(const fdx_solver *s, const mg_level *F, const mg_level *C, const double *rf, double *fc);
/* uf += P uc (add) or uf = P uc (uc's ghosts filled). */
FDX_HIDDEN void mg_prolong(const mg_level *F, const mg_level *C, const double *uc, double *uf, int add);
/* uc = fine data interpolated at the coarse points on Dirichlet faces (the
   boundary values of a coarse problem, for FMG). */
FDX_HIDDEN void mg_inject_boundary(const fdx_solver *s, const mg_level *F, const mg_level *C, const double *uf,
                                   double *uc);
/* Whole stored array: a = 0. */
FDX_HIDDEN void mg_zero(const mg_level *L, double *a);
/* Sums over unknowns. */
FDX_HIDDEN double mg_sum(const mg_level *L, const double *a);
FDX_HIDDEN double mg_dot(const mg_level *L, const double *a, const double *b);
/* a[unknowns] += v. */
FDX_HIDDEN void mg_shift(const mg_level *L, double *a, double v);
/* x += alpha p; r -= alpha q; returns sum r^2. */
FDX_HIDDEN double mg_cg_update(const mg_level *L, double *x, const double *p, double *r, const double *q, double alpha);
/* p = z + beta p. */
FDX_HIDDEN void mg_cg_direction(const mg_level *L, double *p, const double *z, double beta);

/* The CPU's table (fdx_mg_kernels.c) and CUDA's (fdx_mg_cuda.c; NULL
   without CUDA). */
FDX_HIDDEN const mg_ops *mg_cpu_ops(void);
FDX_HIDDEN const mg_ops *mg_cuda_ops(void);
/* Device memory for the CUDA levels (zeroed), its release, and the upload
   of a transfer's tables (m fine, M coarse stored points) and of the
   coarse factor (fdx_mg_cuda.c; FDX_ERR_UNSUPPORTED without CUDA). */
FDX_HIDDEN fdx_status mg_cuda_alloc(size_t bytes, void **out);
FDX_HIDDEN void mg_cuda_free(void *p);
FDX_HIDDEN fdx_status mg_cuda_upload(void *dst, const void *src, size_t bytes);
FDX_HIDDEN fdx_status mg_cuda_upload_transfer(const mg_transfer *h, mg_transfer *d, int64_t m, int64_t M);
FDX_HIDDEN void mg_cuda_free_transfer(mg_transfer *d);
FDX_HIDDEN fdx_status mg_cuda_download(void *dst, const void *src, size_t bytes);
/* A blocking stream on the current device (a distributed solver's unit),
   its release, the stream the kernels of this thread launch on, and an
   order between two streams (waiter runs after what signaller has queued). */
FDX_HIDDEN fdx_status mg_cuda_stream_create(void **out);
FDX_HIDDEN void mg_cuda_stream_destroy(void *stream);
FDX_HIDDEN void mg_cuda_use_stream(void *stream);
FDX_HIDDEN void *mg_cuda_current_stream(void);
FDX_HIDDEN fdx_status mg_cuda_order(void *waiter, void *signaller, void *event);
FDX_HIDDEN fdx_status mg_cuda_stream_sync(void *stream);
/* An event for mg_cuda_order (on the current device; recorded again at
   each order, so one a signalling unit is enough), and its release. */
FDX_HIDDEN fdx_status mg_cuda_event_create(void **out);
FDX_HIDDEN void mg_cuda_event_destroy(void *event);
/* 1 when kernels on the device of `from` can read and write `to` (the same
   device, or peer access). */
FDX_HIDDEN int mg_cuda_reaches(const void *from, const void *to);
/* The residual norm's kernel on the current stream, and the read of its
   sum (after every unit's launch: a distributed solver's units then run
   their norms at once instead of one after the other). */
FDX_HIDDEN void mg_cuda_resnorm2_launch(const mg_level *L, const double *u, const double *f);
FDX_HIDDEN double mg_cuda_sum_read(const mg_level *L);

/* What a cycle's CUDA graph needs beyond one stream and the levels' u and
   t (the distributed solver: its units' streams, and its fields' shadow
   states).  NULL members: nothing. */
typedef struct mg_graph_hooks {
    void *origin;                                 /* the stream captured and launched on */
    int relaxed;                                  /* capture in relaxed mode (the cycle sets devices) */
    void (*fork)(fdx_solver *s);                  /* the other streams wait for the origin */
    void (*join)(fdx_solver *s);                  /* the origin waits for the other streams */
    void (*settle)(fdx_solver *s);                /* brings that state to one fixed state before a cycle */
    uint64_t (*state)(const fdx_solver *s, int l); /* the host state of level l the cycle reads and changes */
    void (*set_state)(fdx_solver *s, int l, uint64_t v);
    int (*failed)(fdx_solver *s);                 /* the captured cycle's own calls failed (clears it) */
} mg_graph_hooks;
/* One cycle on level 0 as a replayed CUDA graph (fdx_mg_cuda.c: the
   one-unit table's graph_cycle with no hooks); c FDX_CYCLE_FMG: full
   multigrid (mg_fmg), with hooks only; 0: not done. */
FDX_HIDDEN int mg_cuda_graph_cycle(fdx_solver *s, fdx_solver_cycle c, const mg_graph_hooks *h);
FDX_HIDDEN void mg_cuda_graph_free(fdx_solver *s);

/* The caller's grid to level 0's stored layout (to_user 0; only the
   unknowns unless whole) or back, on host arrays. */
FDX_HIDDEN void mg_copy_user(const fdx_solver *s, const double *src, double *dst, int to_user, int whole);

/* The box of the caller's grid copy_user copies (the unknowns, or whole)
   and the offset of level 0's stored layout from it. */
FDX_HIDDEN void mg_user_box(const mg_level *L, int whole, int64_t *off, int64_t *lo, int64_t *hi);
/* The box copy of mg_copy_user on host arrays (the CPU's copy_box). */
FDX_HIDDEN void mg_copy_box(const mg_level *L, const int64_t *off, const int64_t *lo, const int64_t *hi, int64_t nx,
                            int64_t ny, const double *src, double *dst, int to_user);

/* ---- setup (fdx_mg_setup.c) ---- */
/* mg_build_geometry then mg_build_storage(s, 0). */
FDX_HIDDEN fdx_status mg_build_levels(fdx_solver *s);
/* The levels' extents, spacings and host transfer tables (and the host
   coefficient of every level), no field storage. */
FDX_HIDDEN fdx_status mg_build_geometry(fdx_solver *s);
/* Fields, device tables and scratch of levels first..nlev-1 (on the
   current device), the history, and CG's vectors when first is 0. */
FDX_HIDDEN fdx_status mg_build_storage(fdx_solver *s, int first);
/* A level's field on the solver's backend (zeroed), and its release. */
FDX_HIDDEN double *mg_alloc_field(const fdx_solver *s, int64_t count, fdx_status *st);
FDX_HIDDEN void mg_free_field(const fdx_solver *s, double *p);
/* CUDA: a level's reduction slots (L->dsum); nothing on the CPU. */
FDX_HIDDEN fdx_status mg_alloc_sums(const fdx_solver *s, mg_level *L);
/* The transfer tables' host storage for m fine and M coarse stored points
   (zeroed), and their release. */
FDX_HIDDEN fdx_status mg_transfer_alloc(mg_transfer *t, int64_t m, int64_t M);
FDX_HIDDEN void mg_transfer_free(mg_transfer *t);
FDX_HIDDEN void mg_free_levels(fdx_solver *s);
FDX_HIDDEN fdx_status mg_coarse_factor(fdx_solver *s);

/* ---- cycles (fdx_mg_cycle.c) ---- */
/* Exchanges two buffers (a level's u and t after an out-of-place sweep). */
FDX_HIDDEN void mg_swap(double **a, double **b);
/* One cycle of kind c on level l (f and u of l in place). */
FDX_HIDDEN void mg_cycle(fdx_solver *s, int l, fdx_solver_cycle c);
/* Full multigrid: level 0's u (its boundary values; the interior is
   replaced) from level 0's f, one V-cycle per level. */
FDX_HIDDEN void mg_fmg(fdx_solver *s);
FDX_HIDDEN void mg_coarse_solve(fdx_solver *s);

/* ---- distributed levels (fdx_mg_dist.c) ---- */
/* The levels of a distributed solver (instead of mg_build_levels), and
   their release (before mg_free_levels frees the gathered ones). */
FDX_HIDDEN fdx_status mg_dist_build(fdx_solver *s);
FDX_HIDDEN void mg_dist_free_levels(fdx_solver *s);
FDX_HIDDEN void mg_dist_destroy(fdx_solver *s);
/* Checks a caller's array of a distributed solve; marks the solve in
   progress on this thread (the table's status() reports its errors). */
FDX_HIDDEN fdx_status mg_dist_check(const fdx_solver *s, struct fdx_darray *a, const char *what);
FDX_HIDDEN void mg_dist_begin(fdx_solver *s);

#endif
