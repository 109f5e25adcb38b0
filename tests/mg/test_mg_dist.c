/* test_mg_dist: multigrid distributed over CPU units (fdx_solver_create_dist)
   against the one-unit solver on the same problem: 1x2, 2x1, 2x2, 1x1x2,
   2x2x2 and 1x1x3 unit grids, odd and even (non-nested) extents, every
   cycle and smoother, CG-MG, the coefficient, the coarse levels gathered at
   once (default) and as late as the parts allow (FDX_MG_GATHER=1), the
   red-black sweep in place by colours (2D), in one pass (3D), and out of
   place (FDX_MG_GS2=z|1: CUDA's kernels, the CPU's stand-in).  The
   same cycle count and convergence, the residual history within 1e-12 of
   one unit's (the norms add per unit then across units: the last bits
   differ), the solution bit for bit (every field value is the same
   operations on the same values; CG's step lengths are norms, so CG's
   solution agrees to rounding), and the Dirichlet boundary values kept
   exactly.  With the shadow exchange switched off the solution differs
   (the test depends on it).  The errors: a grid too small for the units,
   Neumann axes, order 4, arrays of another distribution. */
#include "fdx_test.h"
#include "fdx/internal/error.h"

#include <string.h>

/* Built again as test_mg_dist_gpu: CUDA units (all on one device when
   there is one; skipped without a device).  The one-unit CUDA solver runs
   its one-pass kernels (z-marching sweeps, fused residual+restriction,
   graphs), bit for bit the colour kernels' values by design; the check
   allows 1e-11 of the solution's scale in case a compiler contracts
   differently. */
#ifndef MG_DIST_BACKEND
#define MG_DIST_BACKEND "cpu"
#define MG_DIST_NAME "test_mg_dist"
#endif
static const int on_gpu = MG_DIST_BACKEND[0] == 'c' && MG_DIST_BACKEND[1] == 'u';

/* Random values as a function of the global index (the one-unit arrays
   and the distributed ones are filled from it). */
typedef struct field_fn {
    uint64_t seed;
    double scale;
} field_fn;

static double value(const int64_t *g, void *arg)
{
    const field_fn *F = arg;
    uint64_t x = (F->seed ^ ((uint64_t)(g[0] + 1000003 * (g[1] + 1000003 * g[2])) * 0x9E3779B97F4A7C15ULL)) | 1;
    return F->scale * fdx_test_rand(&x);
}

typedef struct setup {
    fdx_solver_cycle cycle;
    fdx_solver_smoother sm;
    fdx_solver_method method;
    int coarse_sweeps; /* 0: direct */
    int coef;
} setup;

static fdx_status configure(fdx_solver *s, const setup *c, fdx_array *k)
{
    FDX_TRY(fdx_solver_set_cycle(s, c->cycle));
    FDX_TRY(fdx_solver_set_smoother(s, c->sm, 2, 2));
    FDX_TRY(fdx_solver_set_method(s, c->method));
    FDX_TRY(fdx_solver_set_tolerance(s, 1e-9));
    FDX_TRY(fdx_solver_set_max_cycles(s, 60));
    if (c->coarse_sweeps) FDX_TRY(fdx_solver_set_coarse(s, FDX_COARSE_SWEEPS, c->coarse_sweeps));
    if (k) FDX_TRY(fdx_solver_set_coefficient(s, k));
    return FDX_OK;
}

/* One case: the problem on one unit and on the grid of units; returns the
   max |difference| of the solutions (-1 when a run failed). */
static double run_case(int rank, const int64_t *n, const int *grid, const setup *c, uint64_t seed, int quiet)
{
    const int64_t count = n[0] * n[1] * (rank == 3 ? n[2] : 1);
    int units = 1;
    for (int a = 0; a < rank; a++) units *= grid[a];
    fdx_options *opts = NULL;
    fdx_ctx *ctx = NULL;
    fdx_solver *one = NULL, *ds = NULL;
    fdx_array *f = NULL, *u = NULL, *k = NULL;
    fdx_dist *d = NULL;
    fdx_darray *df = NULL, *du = NULL;
    double *fv = malloc((size_t)count * sizeof(double)), *uv = malloc((size_t)count * sizeof(double));
    double *back = malloc((size_t)count * sizeof(double));
    double diff = -1;
    CHECK_OK(fdx_options_create(&opts));
    CHECK_OK(fdx_options_set(opts, "backend", MG_DIST_BACKEND));
    CHECK_OK(fdx_ctx_create(opts, &ctx));
    /* a random right-hand side, random boundary values and a random guess */
    const int64_t nn[3] = {n[0], n[1], rank == 3 ? n[2] : 1};
    const field_fn ff = {seed, 50}, fu = {seed * 7 + 1, 1};
    for (int64_t z = 0; z < nn[2]; z++)
        for (int64_t y = 0; y < nn[1]; y++)
            for (int64_t x = 0; x < nn[0]; x++) {
                const int64_t g[3] = {x, y, z}, q = x + nn[0] * (y + nn[1] * z);
                fv[q] = value(g, (void *)&ff);
                uv[q] = value(g, (void *)&fu);
            }
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, rank, nn, FDX_ON_HOST | FDX_ON_DEVICE, &f));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, rank, nn, FDX_ON_HOST | FDX_ON_DEVICE, &u));
    memcpy(fdx_array_host(f), fv, (size_t)count * sizeof(double));
    memcpy(fdx_array_host(u), uv, (size_t)count * sizeof(double));
    CHECK_OK(fdx_array_to_device(f));
    CHECK_OK(fdx_array_to_device(u));
    if (c->coef) {
        CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, rank, nn, FDX_ON_HOST, &k));
        double *kv = fdx_array_host(k);
        for (int64_t q = 0; q < count; q++) kv[q] = 1.5 + fdx_test_rand(&seed);
    }
    CHECK_OK(fdx_solver_create(ctx, rank, nn, &one));
    CHECK_OK(configure(one, c, k));
    CHECK_OK(fdx_solver_solve(one, f, u));
    CHECK_OK(fdx_array_to_host(u));

    fdx_dist_desc desc = {0};
    desc.rank = rank;
    for (int a = 0; a < rank; a++) desc.shape[a] = n[a], desc.grid[a] = grid[a], desc.shadow[a] = 1;
    desc.units_per_proc = units;
    CHECK_OK(fdx_dist_create(opts, &desc, &d));
    if (!d) goto done;
    CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &df));
    CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &du));
    CHECK_OK(fdx_darray_fill(df, value, (void *)&ff));
    CHECK_OK(fdx_darray_fill(du, value, (void *)&fu));
    CHECK_OK(fdx_solver_create_dist(opts, d, &ds));
    CHECK_OK(configure(ds, c, k));
    fdx_status st = fdx_solver_solve_dist(ds, df, du);
    CHECK(st == FDX_OK, "distributed solve: %s", fdx_last_error());
    if (st != FDX_OK) goto done;
    CHECK_OK(fdx_darray_gather(du, back, 0));
    const double *h1 = NULL, *hd = NULL;
    int n1 = 0, nd = 0;
    CHECK_OK(fdx_solver_residual_history(one, &h1, &n1));
    CHECK_OK(fdx_solver_residual_history(ds, &hd, &nd));
    const char *cyc = fdx_solver_cycle_name(c->cycle), *smn = fdx_solver_smoother_name(c->sm);
    if (!quiet) CHECK(fdx_solver_iterations(one) == fdx_solver_iterations(ds), "%s %s on %d units: %d cycles, one unit %d", cyc,
          smn, units, fdx_solver_iterations(ds), fdx_solver_iterations(one));
    if (!quiet) CHECK(fdx_solver_converged(one) && fdx_solver_converged(ds), "%s %s on %d units: converged %d, one unit %d", cyc,
          smn, units, fdx_solver_converged(ds), fdx_solver_converged(one));
    if (!quiet) CHECK(fdx_solver_levels(one) == fdx_solver_levels(ds), "levels %d vs %d", fdx_solver_levels(ds),
          fdx_solver_levels(one));
    double hdiff = 0;
    for (int i = 0; i < n1 && i < nd; i++) hdiff = fmax(hdiff, fabs(hd[i] - h1[i]) / h1[i]);
    if (!quiet) CHECK(n1 == nd && hdiff <= 1e-12, "%s %s on %d units: history differs by %.3g (relative)", cyc, smn, units, hdiff);
    diff = 0;
    double scale = 0;
    const double *us = fdx_array_host(u);
    for (int64_t q = 0; q < count; q++) scale = fmax(scale, fabs(us[q]));
    int bad_boundary = 0;
    for (int64_t z = 0; z < nn[2]; z++)
        for (int64_t y = 0; y < nn[1]; y++)
            for (int64_t x = 0; x < nn[0]; x++) {
                const int64_t q = x + nn[0] * (y + nn[1] * z);
                diff = fmax(diff, fabs(back[q] - us[q]));
                const int edge = x == 0 || x == nn[0] - 1 || y == 0 || y == nn[1] - 1 ||
                                 (rank == 3 && (z == 0 || z == nn[2] - 1));
                if (edge && back[q] != uv[q]) bad_boundary++;
            }
    CHECK(bad_boundary == 0, "%d boundary values changed", bad_boundary);
    if (!quiet) {
        const double tol = c->method == FDX_SOLVER_CG_MG ? 1e-9 * scale : on_gpu ? 1e-11 * scale : 0.0;
        CHECK(diff <= tol, "%s %s %s on %d units (%lldx%lldx%lld): solution differs from one unit's by %.3g", cyc, smn,
              fdx_solver_method_name(c->method), units, (long long)nn[0], (long long)nn[1], (long long)nn[2], diff);
    }
done:
    fdx_solver_destroy(&ds);
    fdx_darray_destroy(&df);
    fdx_darray_destroy(&du);
    fdx_dist_destroy(&d);
    fdx_solver_destroy(&one);
    fdx_array_destroy(&f);
    fdx_array_destroy(&u);
    fdx_array_destroy(&k);
    fdx_ctx_destroy(&ctx);
    fdx_options_destroy(&opts);
    free(fv);
    free(uv);
    free(back);
    return diff;
}

/* A distributed solve that must fail at solve (setup) with `want`. */
static void expect_failure(int rank, const int64_t *n, const int *grid, fdx_solver_bc bc, int order, fdx_status want)
{
    fdx_options *opts = NULL;
    fdx_dist *d = NULL;
    fdx_darray *f = NULL, *u = NULL;
    fdx_solver *s = NULL;
    fdx_dist_desc desc = {0};
    desc.rank = rank;
    int units = 1;
    for (int a = 0; a < rank; a++) desc.shape[a] = n[a], desc.grid[a] = grid[a], desc.shadow[a] = 1, units *= grid[a];
    desc.units_per_proc = units;
    CHECK_OK(fdx_options_create(&opts));
    CHECK_OK(fdx_options_set(opts, "backend", MG_DIST_BACKEND));
    CHECK_OK(fdx_dist_create(opts, &desc, &d));
    CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &f));
    CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &u));
    CHECK_OK(fdx_solver_create_dist(opts, d, &s));
    CHECK_OK(fdx_solver_set_bc(s, -1, bc));
    if (order == 4) CHECK_OK(fdx_solver_set_order(s, 4));
    CHECK_FAILS(fdx_solver_solve_dist(s, f, u), want);
    fdx_solver_destroy(&s);
    fdx_darray_destroy(&f);
    fdx_darray_destroy(&u);
    fdx_dist_destroy(&d);
    fdx_options_destroy(&opts);
}

int main(void)
{
    if (on_gpu) {
        fdx_options *o = NULL;
        fdx_ctx *c = NULL;
        int have = fdx_options_create(&o) == FDX_OK && fdx_options_set(o, "backend", "cuda") == FDX_OK &&
                   fdx_ctx_create(o, &c) == FDX_OK;
        fdx_ctx_destroy(&c);
        fdx_options_destroy(&o);
        if (!have) return fdx_test_skip(MG_DIST_NAME, "no CUDA device");
    }
    const setup V = {FDX_CYCLE_V, FDX_SMOOTH_RBGS, FDX_SOLVER_MG, 0, 0};
    const setup FMG = {FDX_CYCLE_FMG, FDX_SMOOTH_RBGS, FDX_SOLVER_MG, 0, 0};
    const setup W = {FDX_CYCLE_W, FDX_SMOOTH_JACOBI, FDX_SOLVER_MG, 0, 0};
    const setup F = {FDX_CYCLE_F, FDX_SMOOTH_CHEBY, FDX_SOLVER_MG, 0, 0};
    const setup CG = {FDX_CYCLE_V, FDX_SMOOTH_RBGS, FDX_SOLVER_CG_MG, 0, 0};
    const setup SWEEPS = {FDX_CYCLE_V, FDX_SMOOTH_RBGS, FDX_SOLVER_MG, 40, 0};
    const setup COEF = {FDX_CYCLE_FMG, FDX_SMOOTH_RBGS, FDX_SOLVER_MG, 0, 1};
    const setup FMGJ = {FDX_CYCLE_FMG, FDX_SMOOTH_JACOBI, FDX_SOLVER_MG, 0, 0};
    for (int deep = 0; deep < 2; deep++) {
        /* deep: every level that can be split stays distributed */
        if (deep)
            setenv("FDX_MG_GATHER", "1", 1);
        else
            unsetenv("FDX_MG_GATHER");
        const int64_t n2a[2] = {37, 29}, n2b[2] = {33, 48}, n3a[3] = {21, 19, 23}, n3b[3] = {18, 17, 20};
        const int g12[2] = {1, 2}, g21[2] = {2, 1}, g22[2] = {2, 2}, g112[3] = {1, 1, 2}, g222[3] = {2, 2, 2},
                  g113[3] = {1, 1, 3};
        run_case(2, n2a, g12, &V, 11, 0);
        run_case(2, n2a, g22, &FMG, 12, 0);
        run_case(2, n2b, g21, &W, 13, 0);
        run_case(2, n2b, g22, &F, 14, 0);
        run_case(2, n2a, g22, &CG, 15, 0);
        run_case(2, n2b, g12, &COEF, 16, 0);
        run_case(2, n2a, g22, &FMGJ, 17, 0);
        run_case(3, n3a, g222, &FMG, 21, 0);
        run_case(3, n3a, g222, &V, 22, 0);
        run_case(3, n3b, g112, &FMG, 23, 0);
        run_case(3, n3b, g222, &CG, 24, 0);
        run_case(3, n3a, g113, &SWEEPS, 25, 0);
        run_case(3, n3b, g222, &COEF, 26, 0);
        run_case(3, n3a, g222, &F, 27, 0);
        const int64_t n2c[2] = {129, 97}, n3c[3] = {41, 37, 45};
        run_case(2, n2c, g12, &FMG, 28, 0);
        run_case(3, n3c, g222, &V, 29, 0);
    }
    /* The out-of-place one-pass sweeps (CUDA's default; the CPU's stand-in
       here) on the distributed levels: z-marching and ring variants. */
    for (int v = 0; v < 2; v++) {
        setenv("FDX_MG_GS2", v ? "1" : "z", 1);
        setenv("FDX_MG_GATHER", "1", 1);
        const int64_t n3a[3] = {21, 19, 23}, n3b[3] = {18, 17, 20};
        const int g222[3] = {2, 2, 2}, g112[3] = {1, 1, 2};
        run_case(3, n3a, g222, &FMG, 41 + v, 0);
        run_case(3, n3b, g112, &V, 43 + v, 0);
        run_case(3, n3b, g222, &COEF, 45 + v, 0);
    }
    unsetenv("FDX_MG_GS2");
    /* The residual restricted in one pass on each block (CUDA's default;
       FDX_MG_FUSE=1 here): the residual computed in the shadows where the
       restriction reads (shadows one wider), not renewed.  Odd and even
       (non-nested: the restriction reads two points across a cut) extents,
       odd parts (1x1x3), levels gathered at once and late, the one-pass
       sweeps too; and one unit (fdx mg --gpus 1: no shadows, nothing to
       renew). */
    setenv("FDX_MG_FUSE", "1", 1);
    for (int deep = 0; deep < 2; deep++) {
        if (deep)
            setenv("FDX_MG_GATHER", "1", 1);
        else
            unsetenv("FDX_MG_GATHER");
        const int64_t n2a[2] = {37, 29}, n2b[2] = {33, 48}, n3a[3] = {21, 19, 23}, n3b[3] = {18, 17, 20},
                      n3c[3] = {41, 37, 45};
        const int g11[2] = {1, 1}, g22[2] = {2, 2}, g111[3] = {1, 1, 1}, g112[3] = {1, 1, 2}, g222[3] = {2, 2, 2},
                  g113[3] = {1, 1, 3};
        run_case(3, n3a, g222, &V, 51, 0);
        run_case(3, n3b, g112, &FMG, 52, 0);
        run_case(3, n3b, g222, &CG, 53, 0);
        run_case(3, n3c, g113, &V, 54, 0);
        run_case(2, n2b, g22, &W, 55, 0);
        run_case(2, n2a, g22, &COEF, 56, 0);
        run_case(3, n3a, g111, &FMG, 57, 0);
        run_case(2, n2a, g11, &V, 58, 0);
        setenv("FDX_MG_GS2", "z", 1);
        run_case(3, n3b, g222, &COEF, 59, 0);
        run_case(3, n3c, g113, &FMG, 60, 0);
        run_case(3, n3a, g111, &V, 61, 0);
        unsetenv("FDX_MG_GS2");
    }
    unsetenv("FDX_MG_FUSE");
    {
        /* one unit without the fused restriction */
        const int64_t n3a[3] = {21, 19, 23}, n2b[2] = {33, 48};
        const int g111[3] = {1, 1, 1}, g11[2] = {1, 1};
        run_case(3, n3a, g111, &COEF, 62, 0);
        run_case(2, n2b, g11, &F, 63, 0);
    }
    if (on_gpu) {
        /* CUDA: the default runs each cycle after the first as one graph
           over the units (the fused restriction too); here the graph off
           (plain launches) and the two-pass restriction, the same values */
        const int64_t n3a[3] = {21, 19, 23}, n3b[3] = {18, 17, 20}, n3c[3] = {41, 37, 45};
        const int g111[3] = {1, 1, 1}, g112[3] = {1, 1, 2}, g222[3] = {2, 2, 2}, g113[3] = {1, 1, 3};
        setenv("FDX_MG_GRAPH", "0", 1);
        run_case(3, n3c, g112, &V, 71, 0);
        run_case(3, n3b, g222, &FMG, 72, 0);
        run_case(3, n3a, g111, &CG, 73, 0);
        unsetenv("FDX_MG_GRAPH");
        setenv("FDX_MG_FUSE", "0", 1);
        run_case(3, n3c, g113, &V, 74, 0);
        run_case(3, n3a, g111, &FMG, 75, 0);
        unsetenv("FDX_MG_FUSE");
    }
    /* Without the exchange the blocks miss their neighbours' values: the
       solution must differ (so the checks above depend on the exchange). */
    setenv("FDX_MG_GATHER", "1", 1);
    fdx_dist_test_skip_exchange(1);
    {
        const int64_t n[3] = {21, 19, 23};
        const int g[3] = {2, 2, 2};
        const double d = run_case(3, n, g, &V, 31, 1); /* quiet: only the solution's difference counts */
        CHECK(d != 0, "the solution did not change without the shadow exchange");
        setenv("FDX_MG_FUSE", "1", 1); /* the one-pass restriction reads u's and f's shadows */
        const int64_t nb[3] = {18, 17, 20};
        const double e = run_case(3, nb, g, &V, 32, 1);
        CHECK(e != 0, "the solution did not change without the shadow exchange (one-pass restriction)");
        unsetenv("FDX_MG_FUSE");
    }
    fdx_dist_test_skip_exchange(0);
    unsetenv("FDX_MG_GATHER");
    {
        const int64_t tiny[3] = {9, 9, 9}, n[3] = {17, 17, 17};
        const int g8[3] = {1, 1, 8}, g2[3] = {1, 1, 2};
        expect_failure(3, tiny, g8, FDX_BC_DIRICHLET, 2, FDX_ERR_INVALID);
        expect_failure(3, n, g2, FDX_BC_NEUMANN, 2, FDX_ERR_UNSUPPORTED);
        expect_failure(3, n, g2, FDX_BC_DIRICHLET, 4, FDX_ERR_UNSUPPORTED);
    }
    return fdx_test_finish(MG_DIST_NAME);
}
