/* mg_dist_case.h: one case of a distributed multigrid solve (CPU or CUDA
   units, fdx_solver_create_dist) against the one-unit solver on the same
   random problem, for test_mg_dist.c and test_mg_dist_bc.c (each also
   built as a _gpu test on CUDA units).  Checks: the same cycle count,
   convergence and levels, the residual history within 1e-12 of one unit's
   (the norms add per unit, then across units: the last bits differ), the
   solution bit for bit (every field value is the same operations on the
   same values; CG's step lengths are norms, and a problem without a
   Dirichlet axis has its mean removed by a sum: those agree to rounding),
   the Dirichlet boundary values kept exactly. */
#ifndef MG_DIST_CASE_H
#define MG_DIST_CASE_H

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

/* The value of a global array at a global index (the distributed arrays
   are filled from the one-unit arrays). */
typedef struct global_fn {
    const double *v;
    int64_t n[3];
} global_fn;

static double lookup(const int64_t *g, void *arg)
{
    const global_fn *G = arg;
    return G->v[g[0] + G->n[0] * (g[1] + G->n[1] * g[2])];
}

typedef struct setup {
    fdx_solver_cycle cycle;
    fdx_solver_smoother sm;
    fdx_solver_method method;
    int coarse_sweeps; /* 0: direct */
    int coef;
    fdx_solver_bc bc[3]; /* per axis (0: Dirichlet) */
    int order;           /* 0: 2 */
} setup;

/* No Dirichlet axis: the operator's nullspace is the constants. */
static int singular(int rank, const setup *c)
{
    for (int a = 0; a < rank; a++)
        if (c->bc[a] == FDX_BC_DIRICHLET) return 0;
    return 1;
}

static fdx_status configure(fdx_solver *s, int rank, const setup *c, fdx_array *k)
{
    for (int a = 0; a < rank; a++) FDX_TRY(fdx_solver_set_bc(s, a, c->bc[a]));
    if (c->order) FDX_TRY(fdx_solver_set_order(s, c->order));
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
/* Under compute-sanitizer (FDX_TEST_SANITIZER=1) a test may name the cases
   (by seed) it keeps: racecheck runs every kernel ~100x slower, and a few
   cases reach every kernel (mg_dist_sanitize_keep, 0-terminated; NULL: all). */
static const uint64_t *mg_dist_sanitize_keep;

static int mg_dist_case_skipped(uint64_t seed)
{
    if (!mg_dist_sanitize_keep || !getenv("FDX_TEST_SANITIZER"))
        return 0;
    for (const uint64_t *k = mg_dist_sanitize_keep; *k; k++)
        if (*k == seed)
            return 0;
    return 1;
}

static double run_case(int rank, const int64_t *n, const int *grid, const setup *c, uint64_t seed, int quiet)
{
    if (mg_dist_case_skipped(seed))
        return quiet ? 1 : 0;
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
    if (singular(rank, c)) {
        /* a compatible right-hand side: mean 0 */
        double mean = 0;
        for (int64_t q = 0; q < count; q++) mean += fv[q];
        mean /= (double)count;
        for (int64_t q = 0; q < count; q++) fv[q] -= mean;
    }
    const global_fn gf = {fv, {nn[0], nn[1], nn[2]}}, gu = {uv, {nn[0], nn[1], nn[2]}};
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
    CHECK_OK(configure(one, rank, c, k));
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
    CHECK_OK(fdx_darray_fill(df, lookup, (void *)&gf));
    CHECK_OK(fdx_darray_fill(du, lookup, (void *)&gu));
    CHECK_OK(fdx_solver_create_dist(opts, d, &ds));
    CHECK_OK(configure(ds, rank, c, k));
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
    /* Without a Dirichlet axis the right-hand side is made compatible by
       its mean, a sum over units (another order than one unit's), so u
       differs in its last bits, and with it the rounding of each residual
       (eps x diag x |u| a point: ~1e-15 of r0 on these grids): the
       entries below 0.1 are compared to 1e-13 of r0. */
    const double floor_h = singular(rank, c) ? 0.1 : 0.0;
    double hdiff = 0;
    for (int i = 0; i < n1 && i < nd; i++) hdiff = fmax(hdiff, fabs(hd[i] - h1[i]) / fmax(h1[i], floor_h));
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
                const int64_t at[3] = {x, y, z};
                int edge = 0; /* on a Dirichlet face */
                for (int a = 0; a < rank; a++)
                    if (c->bc[a] == FDX_BC_DIRICHLET && (at[a] == 0 || at[a] == nn[a] - 1)) edge = 1;
                if (edge && back[q] != uv[q]) bad_boundary++;
            }
    CHECK(bad_boundary == 0, "%d boundary values changed", bad_boundary);
    if (!quiet) {
        const double tol = c->method == FDX_SOLVER_CG_MG ? 1e-9 * scale
                           : on_gpu || singular(rank, c) ? 1e-11 * scale
                                                         : 0.0;
        CHECK(diff <= tol, "%s %s %s order %d on %d units (%lldx%lldx%lld, bc %s %s %s): solution differs from one unit's by %.3g",
              cyc, smn, fdx_solver_method_name(c->method), c->order ? c->order : 2, units, (long long)nn[0],
              (long long)nn[1], (long long)nn[2], fdx_solver_bc_name(c->bc[0]), fdx_solver_bc_name(c->bc[1]),
              rank == 3 ? fdx_solver_bc_name(c->bc[2]) : "-", diff);
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

/* CUDA units: the test skips (77) without a device. */
static int mg_dist_no_device(void)
{
    if (!on_gpu) return 0;
    fdx_options *o = NULL;
    fdx_ctx *c = NULL;
    const int have = fdx_options_create(&o) == FDX_OK && fdx_options_set(o, "backend", "cuda") == FDX_OK &&
                     fdx_ctx_create(o, &c) == FDX_OK;
    fdx_ctx_destroy(&c);
    fdx_options_destroy(&o);
    return !have;
}

#endif
