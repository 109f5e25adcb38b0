/* test_dacross: distributed ACROSS loops with several sweeps in flight
   (src/comm/fdx_dacross.c: every unit runs its part of one global
   wavefront, the shadows renewed every portion of B hyperplane steps).
   3D SOR-like sweeps on 2 and 3 units along each axis and on 1x2x2
   (ascending, width 1:1, 1 and 4 sweeps, portions from the model, 1, 2
   and one step each), descending and mixed orders and widths 2:1 on k on
   fewer grids: the field is
   bit for bit the one-unit run's and within 1e-12 of the sequential nest,
   the max change, its location and an integer count are equal.  Without
   the renewals (fdx_dist_test_skip_exchange) the results must differ.  The
   same loop run 4 times (FDX_DLOOP_GRAPH=1: replayed as a CUDA graph on a
   GPU) gives the same result every time.  All of it twice: the shadows
   renewed between portions, and one portion late (FDX_DLOOP_LATE=1,
   fdx_dacross_late.c); and the bound is tight in both: sweeps one step
   closer, or a lag one step shorter, and some run differs.
   test_dacross_gpu: the same with the units on the GPUs (skips without). */
#include "fdx.h"
#include "fdx/internal/test_hooks.h"
#include "fdx_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef DACROSS_BACKEND
#define DACROSS_BACKEND "cpu"
#define DACROSS_NAME "test_dacross"
#endif

enum { NX = 12, NY = 10, NZ = 13 };
#define AT(i, j, k) ((i) + NX * ((j) + NY * (int64_t)(k)))

static double u0(const int64_t *g, void *arg)
{
    (void)arg;
    uint64_t s = (uint64_t)(g[0] * 7919 + g[1] * 104729 + g[2] * 15485863 + 23);
    return fdx_test_rand(&s) - 0.5;
}

/* wide: reads U(i,j,k-2) too (width 2:1 on k) */
static const char *body1 = "double gs = (U(i-1,j,k) + U(i+1,j,k) + U(i,j-1,k) + U(i,j+1,k) + U(i,j,k-1) + U(i,j,k+1)\n"
                           "            - 0.01 * i) / 6.0;\n"
                           "double d = 1.3 * (gs - U(i,j,k));\nU(i,j,k) += d;\nch = fabs(d);\nn = fabs(d) > 0.05;\n";
static const char *body2 = "double gs = (U(i-1,j,k) + U(i+1,j,k) + U(i,j-1,k) + U(i,j+1,k) + U(i,j,k-1) + U(i,j,k+1)\n"
                           "            + 0.25 * U(i,j,k-2) - 0.01 * i) / 6.25;\n"
                           "double d = 1.3 * (gs - U(i,j,k));\nU(i,j,k) += d;\nch = fabs(d);\nn = fabs(d) > 0.05;\n";

/* The sequential nest over [lo, hi) = [2, N-1) in the given orders. */
static void nest(double *u, const int *dir, int wide, int sweeps, double *ch, int64_t *n)
{
    for (int s = 0; s < sweeps; s++) {
        *ch = 0, *n = 0;
        for (int kk = 2; kk < NZ - 1; kk++)
            for (int jj = 2; jj < NY - 1; jj++)
                for (int ii = 2; ii < NX - 1; ii++) {
                    int i = dir[0] > 0 ? ii : NX - ii, j = dir[1] > 0 ? jj : NY - jj, k = dir[2] > 0 ? kk : NZ - kk;
                    double nb = u[AT(i - 1, j, k)] + u[AT(i + 1, j, k)] + u[AT(i, j - 1, k)] + u[AT(i, j + 1, k)] +
                                u[AT(i, j, k - 1)] + u[AT(i, j, k + 1)];
                    double gs = wide ? (nb + 0.25 * u[AT(i, j, k - 2)] - 0.01 * i) / 6.25 : (nb - 0.01 * i) / 6.0;
                    double d = 1.3 * (gs - u[AT(i, j, k)]);
                    u[AT(i, j, k)] += d;
                    *ch = fmax(*ch, fabs(d));
                    *n += fabs(d) > 0.05;
                }
    }
}

typedef struct result {
    double ch;
    int64_t loc[3], n;
    int portions;
} result;

/* runs > 1: the same loop run again after a refill, every run's field
   compared with the first's (FDX_DLOOP_GRAPH=1 on a GPU: the third run
   replays a CUDA graph) */
static int runs = 1;

static int run(const int *grid, const int *dir, int wide, int sweeps, int portions, double *out, result *r)
{
    fdx_options *o = NULL;
    CHECK_OK(fdx_options_create(&o));
    fdx_options_set(o, "backend", DACROSS_BACKEND);
    fdx_dist_desc dd = {0};
    dd.rank = 3;
    dd.units_per_proc = grid[0] * grid[1] * grid[2];
    const int64_t shape[3] = {NX, NY, NZ};
    for (int a = 0; a < 3; a++) dd.shape[a] = shape[a], dd.grid[a] = grid[a], dd.shadow[a] = 2;
    fdx_dist *d = NULL;
    fdx_darray *U = NULL;
    fdx_dloop *l = NULL;
    int ok = 0;
    CHECK_OK(fdx_dist_create(o, &dd, &d));
    fdx_options_destroy(&o);
    if (!d) return 0;
    int64_t lo[3] = {2, 2, 2}, hi[3] = {NX - 1, NY - 1, NZ - 1};
    int low[3] = {1, 1, wide ? 2 : 1}, high[3] = {1, 1, 1};
    CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &U));
    CHECK_OK(fdx_darray_fill(U, u0, NULL));
    CHECK_OK(fdx_dloop_create(d, "i,j,k", &l));
    CHECK_OK(fdx_dloop_range(l, lo, hi));
    CHECK_OK(fdx_dloop_array(l, "U", U, FDX_READ_WRITE));
    CHECK_OK(fdx_dloop_across(l, low, high));
    CHECK_OK(fdx_dloop_order(l, dir));
    CHECK_OK(fdx_dloop_reduction(l, "ch", FDX_REDUCE_MAXLOC));
    CHECK_OK(fdx_dloop_reduction_typed(l, "n", FDX_REDUCE_SUM, FDX_INT64));
    CHECK_OK(fdx_dloop_set_portions(l, portions));
    CHECK_OK(fdx_dloop_body(l, wide ? body2 : body1));
    if (fdx_dloop_run_repeated(l, sweeps) == FDX_OK && fdx_dloop_result_loc(l, "ch", &r->ch, r->loc) == FDX_OK &&
        fdx_dloop_result_int(l, "n", &r->n, NULL) == FDX_OK && fdx_darray_gather(U, out, 0) == FDX_OK)
        ok = 1;
    for (int again = 1; ok && again < runs; again++) {
        static double more[NX * NY * NZ];
        double ch = 0;
        int64_t n = 0;
        CHECK_OK(fdx_darray_fill(U, u0, NULL));
        CHECK_OK(fdx_dloop_run_repeated(l, sweeps));
        CHECK_OK(fdx_dloop_result(l, "ch", &ch));
        CHECK_OK(fdx_dloop_result_int(l, "n", &n, NULL));
        CHECK_OK(fdx_darray_gather(U, more, 0));
        CHECK(memcmp(more, out, sizeof more) == 0 && ch == r->ch && n == r->n,
              "grid %dx%dx%d, run %d of the same loop differs from the first", grid[0], grid[1], grid[2], again + 1);
    }
    CHECK(ok, "grid %dx%dx%d, %d sweeps: %s", grid[0], grid[1], grid[2], sweeps, fdx_last_error());
    r->portions = fdx_dloop_portions(l);
    fdx_dloop_destroy(&l);
    fdx_darray_destroy(&U);
    fdx_dist_destroy(&d);
    return ok;
}

static double max_diff(const double *a, const double *b)
{
    double e = 0;
    for (int64_t q = 0; q < (int64_t)NX * NY * NZ; q++) e = fmax(e, fabs(a[q] - b[q]));
    return e;
}

static void test_in_flight(void)
{
    static double init[NX * NY * NZ], ref[NX * NY * NZ], one[NX * NY * NZ], got[NX * NY * NZ];
    const int grids[][3] = {{1, 1, 2}, {1, 1, 3}, {2, 1, 1}, {1, 3, 1}, {3, 1, 1}, {1, 2, 2}};
    const int dirs[3][3] = {{1, 1, 1}, {-1, -1, -1}, {1, -1, 1}};
    const int sweep_counts[2] = {1, 4}, portion_counts[4] = {0, 1, 2, 1000};
    for (int64_t q = 0; q < (int64_t)NX * NY * NZ; q++) {
        int64_t g[3] = {q % NX, (q / NX) % NY, q / (NX * NY)};
        init[q] = u0(g, NULL);
    }
    /* on the GPU (NVRTC compiles a kernel for every block shape and
       portion length): ascending and descending, 4 sweeps, the grids with
       the model's portions */
    int gpu = strcmp(DACROSS_BACKEND, "cuda") == 0;
    for (int wide = 0; wide <= 1; wide++)
        for (int dv = 0; dv < (gpu || wide ? 2 : 3); dv++)
            for (int sc = gpu || wide || dv; sc < 2; sc++) {
                int sweeps = sweep_counts[sc];
                double want_ch = 0;
                int64_t want_n = 0;
                memcpy(ref, init, sizeof ref);
                nest(ref, dirs[dv], wide, sweeps, &want_ch, &want_n);
                const int g1[3] = {1, 1, 1};
                result r1;
                if (!run(g1, dirs[dv], wide, sweeps, 0, one, &r1)) continue;
                CHECK(max_diff(one, ref) <= 1e-12 && fabs(r1.ch - want_ch) <= 1e-12 && r1.n == want_n,
                      "one unit vs the nest (wide %d, orders %d,%d,%d, %d sweeps): diff %.3g, ch %.17g vs %.17g, n %lld vs %lld",
                      wide, dirs[dv][0], dirs[dv][1], dirs[dv][2], sweeps, max_diff(one, ref), r1.ch, want_ch,
                      (long long)r1.n, (long long)want_n);
                for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++)
                    for (int pc = 0; pc < 4; pc++) {
                        /* every grid with the model's portions and 4 sweeps; the
                           other counts on 1x1x2 and 2x1x1, one sweep on 2 grids */
                        if ((pc > 0 && (sc == 0 || (g != 0 && g != 2))) || (sc == 0 && g > 1)) continue;
                        /* the other orders and widths: fewer grids and counts
                           (every block shape and portion length is a compile) */
                        if ((wide || dv) && ((g != 0 && g != 2 && g != 5) || pc == 2 || (pc > 0 && g != 0))) continue;
                        if (gpu && (pc == 1 || pc == 2 || g == 4)) continue;
                        result r;
                        memset(got, 0, sizeof got);
                        if (!run(grids[g], dirs[dv], wide, sweeps, portion_counts[pc], got, &r)) continue;
                        CHECK(memcmp(got, one, sizeof got) == 0 && r.ch == r1.ch && r.n == r1.n &&
                                  memcmp(r.loc, r1.loc, sizeof r.loc) == 0,
                              "grid %dx%dx%d wide %d orders %d,%d,%d, %d sweeps, portions %d (used %d): max diff %.3g "
                              "from one unit, ch %.17g vs %.17g at %lld,%lld,%lld vs %lld,%lld,%lld, n %lld vs %lld",
                              grids[g][0], grids[g][1], grids[g][2], wide, dirs[dv][0], dirs[dv][1], dirs[dv][2], sweeps,
                              portion_counts[pc], r.portions, max_diff(got, one), r.ch, r1.ch, (long long)r.loc[0],
                              (long long)r.loc[1], (long long)r.loc[2], (long long)r1.loc[0], (long long)r1.loc[1],
                              (long long)r1.loc[2], (long long)r.n, (long long)r1.n);
                        CHECK(r.portions >= 1, "grid %dx%dx%d: %d portions used", grids[g][0], grids[g][1],
                              grids[g][2], r.portions);
                    }
            }
}

/* The renewals between portions are what makes it exact. */
static void test_needs_renewals(void)
{
    static double one[NX * NY * NZ], got[NX * NY * NZ];
    const int g1[3] = {1, 1, 1}, g2[3] = {1, 1, 2}, dir[3] = {1, 1, 1};
    result r1, r;
    if (!run(g1, dir, 0, 3, 0, one, &r1)) return;
    fdx_dist_test_skip_exchange(1);
    int ok = run(g2, dir, 0, 3, 0, got, &r);
    fdx_dist_test_skip_exchange(0);
    CHECK(ok && max_diff(got, one) > 1e-6, "without renewals 2 units still match one unit (diff %.3g)",
          max_diff(got, one));
}

/* The same run again and again (a GPU replays it as a graph from the
   third run on with FDX_DLOOP_GRAPH=1): every run equals one unit's. */
static void test_repeated(void)
{
    static double one[NX * NY * NZ], got[NX * NY * NZ];
    const int g1[3] = {1, 1, 1}, grids[2][3] = {{1, 1, 2}, {1, 2, 2}}, dir[3] = {1, 1, 1};
    result r1, r;
    if (!run(g1, dir, 0, 4, 0, one, &r1)) return;
    setenv("FDX_DLOOP_GRAPH", "1", 1);
    runs = 4;
    for (int g = 0; g < 2; g++)
        if (run(grids[g], dir, 0, 4, 0, got, &r))
            CHECK(memcmp(got, one, sizeof got) == 0 && r.ch == r1.ch && r.n == r1.n,
                  "repeated runs on %dx%dx%d: not one unit's", grids[g][0], grids[g][1], grids[g][2]);
    runs = 1;
    unsetenv("FDX_DLOOP_GRAPH");
}

/* The exactness bound is tight, on time and late: with the sweeps one
   step closer, or the units' lag one step shorter, some run differs from
   one unit (fdx_dacross_test_tighten). */
static void test_bound_tight(int late)
{
    static double one[NX * NY * NZ], got[NX * NY * NZ];
    const int g1[3] = {1, 1, 1}, grids[3][3] = {{1, 1, 2}, {2, 1, 1}, {1, 3, 1}}, dir[3] = {1, 1, 1};
    const int portion_counts[3] = {0, 2, 4};
    /* a GPU compiles a kernel a case: one grid and the model's portions */
    int gpu = strcmp(DACROSS_BACKEND, "cuda") == 0;
    result r1, r;
    if (!run(g1, dir, 0, 4, 0, one, &r1)) return;
    for (int what = 0; what < 2; what++) {
        int differ = 0, runs_done = 0;
        fdx_dacross_test_tighten(what == 0, what == 1);
        for (int g = 0; g < (gpu ? 1 : 3); g++)
            for (int pc = 0; pc < (gpu ? 1 : 3); pc++)
                if (run(grids[g], dir, 0, 4, portion_counts[pc], got, &r)) {
                    runs_done++;
                    differ += memcmp(got, one, sizeof got) != 0 || r.ch != r1.ch || r.n != r1.n;
                }
        fdx_dacross_test_tighten(0, 0);
        CHECK(runs_done == 0 || differ > 0, "%s renewal: %s one step below the bound, all %d runs still match one unit",
              late ? "late" : "on-time", what == 0 ? "sweeps' distance" : "units' lag", runs_done);
        printf("%s renewal, %s one below the bound: %d of %d runs differ from one unit\n", late ? "late" : "on-time",
               what == 0 ? "distance" : "lag", differ, runs_done);
    }
}

int main(void)
{
    if (strcmp(DACROSS_BACKEND, "cuda") == 0 && fdx_cuda_device_count() == 0)
        return fdx_test_skip(DACROSS_NAME, "no CUDA device");
    /* on time, then renewed one portion late (FDX_DLOOP_LATE=1) */
    const char *was = getenv("FDX_DLOOP_LATE");
    char *keep = was ? strdup(was) : NULL;
    for (int late = 0; late <= 1; late++) {
        setenv("FDX_DLOOP_LATE", late ? "1" : "0", 1);
        test_in_flight();
        test_needs_renewals();
        test_repeated();
        test_bound_tight(late);
    }
    if (keep) setenv("FDX_DLOOP_LATE", keep, 1);
    else unsetenv("FDX_DLOOP_LATE");
    free(keep);
    return fdx_test_finish(DACROSS_NAME);
}
