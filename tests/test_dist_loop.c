/* test_dist_loop: loops of the loop runtime on distributed arrays (CPU
   units, 1..4, splits along y and along x): a 5-point Laplacian loop, then a
   loop reading the first one's output at +-1 across the split, which needs
   the automatic shadow renewal; global sum and max reductions; all against
   a plain loop over the whole grid. */
#include "fdx.h"
#include "fdx_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NX = 23, NY = 19 };

static double u0(const int64_t *g, void *arg)
{
    (void)arg;
    uint64_t s = (uint64_t)(g[0] * 7919 + g[1] * 104729 + 17);
    return fdx_test_rand(&s) - 0.5;
}

static double nan_init(const int64_t *g, void *arg)
{
    (void)g, (void)arg;
    return NAN;
}

/* The reference: v = lap u on [1, n-1)^2, w = v(i,j+1) - v(i-1,j) on
   [2, n-2)^2; sum and max |v|. */
static void reference(double *w, double *sum, double *mx)
{
    static double u[NX * NY], v[NX * NY];
    for (int64_t j = 0; j < NY; j++)
        for (int64_t i = 0; i < NX; i++) {
            int64_t g[2] = {i, j};
            u[i + NX * j] = u0(g, NULL);
            v[i + NX * j] = NAN;
            w[i + NX * j] = 0;
        }
    *sum = 0, *mx = 0;
    for (int j = 1; j < NY - 1; j++)
        for (int i = 1; i < NX - 1; i++) {
            int q = i + NX * j;
            v[q] = u[q - 1] + u[q + 1] + u[q - NX] + u[q + NX] - 4 * u[q];
            *sum += v[q];
            *mx = fmax(*mx, fabs(v[q]));
        }
    for (int j = 2; j < NY - 2; j++)
        for (int i = 2; i < NX - 2; i++) w[i + NX * j] = v[i + NX * (j + 1)] - v[i - 1 + NX * j];
}

static void run(const int *grid, int units, const double *wref, double sref, double mref)
{
    fdx_options *o = NULL;
    CHECK_OK(fdx_options_create(&o));
    fdx_options_set(o, "backend", "cpu");
    fdx_dist_desc dd = {0};
    dd.rank = 2, dd.shape[0] = NX, dd.shape[1] = NY, dd.units_per_proc = units;
    dd.grid[0] = grid[0], dd.grid[1] = grid[1], dd.shadow[0] = dd.shadow[1] = 1;
    fdx_dist *d = NULL;
    CHECK_OK(fdx_dist_create(o, &dd, &d));
    fdx_options_destroy(&o);
    if (!d) return;
    fdx_darray *u = NULL, *v = NULL, *w = NULL;
    CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &u));
    CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &v));
    CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &w));
    CHECK_OK(fdx_darray_fill(u, u0, NULL));
    /* Poisoned: without renewal the second loop reads NaN from v's shadows. */
    CHECK_OK(fdx_darray_fill(v, nan_init, NULL));
    CHECK_OK(fdx_darray_fill(w, nan_init, NULL));
    fdx_dloop *lap = NULL, *diff = NULL;
    CHECK_OK(fdx_dloop_create(d, "i,j", &lap));
    int64_t lo[2] = {1, 1}, hi[2] = {NX - 1, NY - 1};
    CHECK_OK(fdx_dloop_range(lap, lo, hi));
    CHECK_OK(fdx_dloop_array(lap, "u", u, FDX_READ));
    CHECK_OK(fdx_dloop_array(lap, "v", v, FDX_WRITE));
    CHECK_OK(fdx_dloop_reduction(lap, "s", FDX_REDUCE_SUM));
    CHECK_OK(fdx_dloop_reduction(lap, "m", FDX_REDUCE_MAX));
    CHECK_OK(fdx_dloop_body(lap, "v(i,j) = u(i-1,j) + u(i+1,j) + u(i,j-1) + u(i,j+1) - 4*u(i,j);\n"
                                 "s = v(i,j); m = fabs(v(i,j));"));
    CHECK_OK(fdx_dloop_run(lap));
    double s = 0, m = 0;
    CHECK_OK(fdx_dloop_result(lap, "s", &s));
    CHECK_OK(fdx_dloop_result(lap, "m", &m));
    CHECK(fabs(s - sref) <= 1e-12 * (1 + fabs(sref)), "grid %dx%d: sum %.17g, reference %.17g", grid[0], grid[1], s,
          sref);
    CHECK(m == mref, "grid %dx%d: max %.17g, reference %.17g", grid[0], grid[1], m, mref);
    CHECK_OK(fdx_dloop_create(d, "i,j", &diff));
    int64_t lo2[2] = {2, 2}, hi2[2] = {NX - 2, NY - 2};
    CHECK_OK(fdx_dloop_range(diff, lo2, hi2));
    CHECK_OK(fdx_dloop_array(diff, "v", v, FDX_READ));
    CHECK_OK(fdx_dloop_array(diff, "w", w, FDX_WRITE));
    CHECK_OK(fdx_dloop_body(diff, "w(i,j) = v(i,j+1) - v(i-1,j);"));
    CHECK_OK(fdx_dloop_run(diff));
    CHECK(fdx_dloop_exchanges(diff) == 1, "grid %dx%d: %d renewals of v before the second loop, want 1", grid[0],
          grid[1], fdx_dloop_exchanges(diff));
    /* Again: v is fresh now, nothing to renew. */
    CHECK_OK(fdx_dloop_run(diff));
    CHECK(fdx_dloop_exchanges(diff) == 1, "grid %dx%d: v renewed again though nothing wrote it", grid[0], grid[1]);
    static double got[NX * NY];
    for (int q = 0; q < NX * NY; q++) got[q] = 0;
    CHECK_OK(fdx_darray_gather(w, got, 0));
    int bad = 0;
    for (int j = 2; j < NY - 2; j++)
        for (int i = 2; i < NX - 2; i++) bad += !(got[i + NX * j] == wref[i + NX * j]);
    CHECK(bad == 0, "grid %dx%d on %d units: %d points of the second loop differ from the reference", grid[0], grid[1],
          units, bad);
    fdx_dloop_destroy(&lap);
    fdx_dloop_destroy(&diff);
    fdx_darray_destroy(&u);
    fdx_darray_destroy(&v);
    fdx_darray_destroy(&w);
    fdx_dist_destroy(&d);
}

int main(void)
{
    static double wref[NX * NY];
    double sref, mref;
    reference(wref, &sref, &mref);
    int grids[][2] = {{1, 1}, {1, 2}, {1, 3}, {1, 4}, {2, 1}, {2, 2}, {3, 1}};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) run(grids[g], grids[g][0] * grids[g][1], wref, sref, mref);
    /* Errors: a _LOC reduction, a range outside the grid. */
    fdx_options *o = NULL;
    CHECK_OK(fdx_options_create(&o));
    fdx_options_set(o, "backend", "cpu");
    fdx_dist_desc dd = {0};
    dd.rank = 2, dd.shape[0] = NX, dd.shape[1] = NY, dd.units_per_proc = 2, dd.shadow[1] = 1;
    fdx_dist *d = NULL;
    CHECK_OK(fdx_dist_create(o, &dd, &d));
    fdx_dloop *l = NULL;
    CHECK_OK(fdx_dloop_create(d, "i,j", &l));
    CHECK_FAILS(fdx_dloop_reduction(l, "m", FDX_REDUCE_MAXLOC), FDX_ERR_UNSUPPORTED);
    int64_t lo[2] = {0, 0}, hi[2] = {NX + 1, NY};
    CHECK_FAILS(fdx_dloop_range(l, lo, hi), FDX_ERR_INVALID);
    fdx_dloop *l1 = NULL;
    CHECK_FAILS(fdx_dloop_create(d, "i", &l1), FDX_ERR_INVALID);
    fdx_dloop_destroy(&l);
    fdx_dist_destroy(&d);
    fdx_options_destroy(&o);
    return fdx_test_finish("test_dist_loop");
}
