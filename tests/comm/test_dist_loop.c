/* test_dist_loop: loops of the loop runtime on distributed arrays (CPU
   units, several per process; test_dist_loop_gpu.c: the same with the
   units on the GPUs, several a GPU when there are fewer).  Against one unit and a plain nest here:
   - global indices: bodies that use the coordinates (v = i + 1000 j, sines
     of the coordinates) on 1x2, 2x1, 2x2 and 2x2x2 grids, bit for bit;
   - a 5-point Laplacian, then a loop reading its output at +-1 across the
     split (automatic shadow renewal, NaN-poisoned shadows);
   - reductions sum, product, max, min, and, or, maxloc, minloc on double,
     float and integer variables: exact ones identical on every grid, loc
     in global indices;
   - distributed ACROSS: SOR-like sweeps forward and backward (descending),
     2D and 3D, widths low:high, several portion counts, 1 and 2 sweeps:
     bit for bit the same on every grid and equal to the sequential nest;
   - box-shaped ACROSS dependences refused, naming the access. */
#include "fdx.h"
#include "fdx_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef DIST_LOOP_BACKEND
#define DIST_LOOP_BACKEND "cpu"
#define DIST_LOOP_NAME "test_dist_loop"
#endif

enum { NX = 23, NY = 19, MX = 13, MY = 11, MZ = 9 };

static double u0(const int64_t *g, void *arg)
{
    (void)arg;
    uint64_t s = (uint64_t)(g[0] * 7919 + g[1] * 104729 + g[2] * 15485863 + 17);
    return fdx_test_rand(&s) - 0.5;
}

static double nan_init(const int64_t *g, void *arg)
{
    (void)g, (void)arg;
    return NAN;
}

/* 1: every loop below plans as for a GPU with autotfm forced (blocks take
   permuted and diagonal layouts, faces move by slice copies); 0: the
   same planning with autotfm off (plain blocks, the same CPU code: no FP
   contraction); -1: the defaults.  The moves add up in `moves`. */
static int planned = -1;
static fdx_loop_moves moves;

static void setup(fdx_dloop *l)
{
    if (planned < 0 || !l) return;
    CHECK_OK(fdx_dloop_plan_for(l, FDX_BACKEND_CUDA));
    CHECK_OK(fdx_dloop_set_autotfm(l, planned ? 2 : 0));
}

static void count_moves(const fdx_dloop *l)
{
    fdx_loop_moves m;
    if (planned != 1 || !l || fdx_dloop_move_stats(l, &m) != FDX_OK) return;
    moves.transforms += m.transforms, moves.relabels += m.relabels, moves.bytes += m.bytes;
}

static fdx_dist *make_dist(int rank, const int64_t *shape, const int *grid, int shadow)
{
    fdx_options *o = NULL;
    CHECK_OK(fdx_options_create(&o));
    fdx_options_set(o, "backend", DIST_LOOP_BACKEND);
    fdx_dist_desc dd = {0};
    dd.rank = rank;
    dd.units_per_proc = 1;
    for (int a = 0; a < rank; a++) {
        dd.shape[a] = shape[a], dd.grid[a] = grid[a], dd.shadow[a] = shadow;
        dd.units_per_proc *= grid[a];
    }
    fdx_dist *d = NULL;
    CHECK_OK(fdx_dist_create(o, &dd, &d));
    fdx_options_destroy(&o);
    return d;
}


/* ---- global indices ------------------------------------------------------- */

/* Gathers (whole grid) after a coordinate-dependent loop; one unit's result
   is the reference. */
static void coords_run(int rank, const int *grid, double *out)
{
    const int64_t s2[2] = {NX, NY}, s3[3] = {MX, MY, MZ};
    const int64_t *shape = rank == 2 ? s2 : s3;
    fdx_dist *d = make_dist(rank, shape, grid, 1);
    if (!d) return;
    fdx_darray *v = NULL;
    CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &v));
    CHECK_OK(fdx_darray_fill(v, nan_init, NULL));
    fdx_dloop *l = NULL;
    CHECK_OK(fdx_dloop_create(d, rank == 2 ? "i,j" : "i,j,k", &l));
    CHECK_OK(fdx_dloop_array(l, "v", v, FDX_WRITE));
    CHECK_OK(fdx_dloop_body(l, rank == 2 ? "v(i,j) = i + 1000.0 * j + sin(0.37 * i) * cos(0.11 * j);"
                                         : "v(i,j,k) = i + 1000.0 * j + 1e6 * k + sin(0.3 * i + 0.7 * k) * exp(0.01 * j);"));
    CHECK_OK(fdx_dloop_run(l));
    CHECK_OK(fdx_darray_gather(v, out, 0));
    fdx_dloop_destroy(&l);
    fdx_darray_destroy(&v);
    fdx_dist_destroy(&d);
}

static void test_global_indices(void)
{
    static double ref[MX * MY * MZ > NX * NY ? MX * MY * MZ : NX * NY], got[sizeof ref / sizeof ref[0]];
    const int one[3] = {1, 1, 1}, grids2[3][2] = {{1, 2}, {2, 1}, {2, 2}}, grids3[2][3] = {{2, 2, 2}, {1, 3, 2}};
    coords_run(2, one, ref);
    /* the integer part is the coordinates themselves */
    int bad = 0;
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) bad += fabs(ref[i + NX * j] - (i + 1000.0 * j)) > 1.0;
    CHECK(bad == 0, "one unit: %d points do not carry their coordinates", bad);
    for (int g = 0; g < 3; g++) {
        coords_run(2, grids2[g], got);
        CHECK(memcmp(got, ref, sizeof(double) * NX * NY) == 0, "global indices on %dx%d differ from one unit",
              grids2[g][0], grids2[g][1]);
    }
    coords_run(3, one, ref);
    for (int g = 0; g < 2; g++) {
        coords_run(3, grids3[g], got);
        CHECK(memcmp(got, ref, sizeof(double) * MX * MY * MZ) == 0, "global indices on %dx%dx%d differ from one unit",
              grids3[g][0], grids3[g][1], grids3[g][2]);
    }
}

/* ---- renewal and reductions ------------------------------------------------ */

/* The reference: v = lap u on [1, n-1)^2, w = v(i,j+1) - v(i-1,j) on
   [2, n-2)^2; sum and max |v|. */
static void lap_reference(double *w, double *sum, double *mx)
{
    static double u[NX * NY], v[NX * NY];
    for (int64_t j = 0; j < NY; j++)
        for (int64_t i = 0; i < NX; i++) {
            int64_t g[3] = {i, j, 0};
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

typedef struct reds {
    double dsum, dmax, dmin, dprod, fsum, mxv, mnv;
    int64_t isum, imax, imin, iand, ior, iprod, lsum, mxl[2], mnl[2], imxl[2];
} reds;

static void run_lap(const int *grid, const double *wref, double sref, double mref, reds *out)
{
    const int64_t shape[2] = {NX, NY};
    fdx_dist *d = make_dist(2, shape, grid, 1);
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
    CHECK_OK(fdx_dloop_reduction(lap, "mn", FDX_REDUCE_MIN));
    CHECK_OK(fdx_dloop_reduction(lap, "pr", FDX_REDUCE_PROD));
    CHECK_OK(fdx_dloop_reduction(lap, "mxl", FDX_REDUCE_MAXLOC));
    CHECK_OK(fdx_dloop_reduction(lap, "mnl", FDX_REDUCE_MINLOC));
    CHECK_OK(fdx_dloop_reduction_typed(lap, "fs", FDX_REDUCE_SUM, FDX_FLOAT32));
    CHECK_OK(fdx_dloop_reduction_typed(lap, "is", FDX_REDUCE_SUM, FDX_INT32));
    CHECK_OK(fdx_dloop_reduction_typed(lap, "ls", FDX_REDUCE_SUM, FDX_INT64));
    CHECK_OK(fdx_dloop_reduction_typed(lap, "ip", FDX_REDUCE_PROD, FDX_INT64));
    CHECK_OK(fdx_dloop_reduction_typed(lap, "imx", FDX_REDUCE_MAX, FDX_INT32));
    CHECK_OK(fdx_dloop_reduction_typed(lap, "imn", FDX_REDUCE_MIN, FDX_INT64));
    CHECK_OK(fdx_dloop_reduction_typed(lap, "ia", FDX_REDUCE_AND, FDX_INT64));
    CHECK_OK(fdx_dloop_reduction_typed(lap, "io", FDX_REDUCE_OR, FDX_INT32));
    CHECK_OK(fdx_dloop_reduction_typed(lap, "iml", FDX_REDUCE_MAXLOC, FDX_INT32));
    /* ties on purpose: iml's value repeats, loc must be the first in order */
    CHECK_OK(fdx_dloop_body(lap, "v(i,j) = u(i-1,j) + u(i+1,j) + u(i,j-1) + u(i,j+1) - 4*u(i,j);\n"
                                 "s = v(i,j); m = fabs(v(i,j)); mn = v(i,j); pr = (i == 5 && j > 10) ? 1.25 : 1.0;\n"
                                 "mxl = v(i,j); mnl = v(i,j); fs = 0.25f;\n"
                                 "int q = (int)floor(8 * v(i,j));\n"
                                 "is = q; ls = (long long)q * 3000000000LL; ip = (j == 7 && i < 6) ? i : 1;\n"
                                 "imx = q * (int)i; imn = q - (long long)j; ia = ~(1LL << (i % 40)); io = 1 << (j % 20);\n"
                                 "iml = q > 3 ? 3 : q;\n"));
    CHECK_OK(fdx_dloop_run(lap));
    double s = 0, m = 0;
    CHECK_OK(fdx_dloop_result(lap, "s", &s));
    CHECK_OK(fdx_dloop_result(lap, "m", &m));
    CHECK(fabs(s - sref) <= 1e-12 * (1 + fabs(sref)), "grid %dx%d: sum %.17g, reference %.17g", grid[0], grid[1], s,
          sref);
    CHECK(m == mref, "grid %dx%d: max %.17g, reference %.17g", grid[0], grid[1], m, mref);
    out->dsum = s, out->dmax = m;
    CHECK_OK(fdx_dloop_result(lap, "mn", &out->dmin));
    CHECK_OK(fdx_dloop_result(lap, "pr", &out->dprod));
    CHECK_OK(fdx_dloop_result(lap, "fs", &out->fsum));
    int64_t loc[2];
    CHECK_OK(fdx_dloop_result_loc(lap, "mxl", &out->mxv, loc));
    out->mxl[0] = loc[0], out->mxl[1] = loc[1];
    CHECK_OK(fdx_dloop_result_loc(lap, "mnl", &out->mnv, loc));
    out->mnl[0] = loc[0], out->mnl[1] = loc[1];
    CHECK_FAILS(fdx_dloop_result_loc(lap, "s", &s, loc), FDX_ERR_INVALID);
    CHECK_OK(fdx_dloop_result_int(lap, "is", &out->isum, NULL));
    CHECK_OK(fdx_dloop_result_int(lap, "ls", &out->lsum, NULL));
    CHECK_OK(fdx_dloop_result_int(lap, "ip", &out->iprod, NULL));
    CHECK_OK(fdx_dloop_result_int(lap, "imx", &out->imax, NULL));
    CHECK_OK(fdx_dloop_result_int(lap, "imn", &out->imin, NULL));
    CHECK_OK(fdx_dloop_result_int(lap, "ia", &out->iand, NULL));
    CHECK_OK(fdx_dloop_result_int(lap, "io", &out->ior, NULL));
    int64_t iv;
    CHECK_OK(fdx_dloop_result_int(lap, "iml", &iv, loc));
    out->imxl[0] = loc[0], out->imxl[1] = loc[1];
    CHECK(iv == 3, "int maxloc value %lld", (long long)iv);

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
    CHECK(bad == 0, "grid %dx%d: %d points of the second loop differ from the reference", grid[0], grid[1], bad);
    fdx_dloop_destroy(&lap);
    fdx_dloop_destroy(&diff);
    fdx_darray_destroy(&u);
    fdx_darray_destroy(&v);
    fdx_darray_destroy(&w);
    fdx_dist_destroy(&d);
}

/* Exact reductions on the host, in the loop's order, for the first grid. */
static void reds_reference(reds *r)
{
    memset(r, 0, sizeof *r);
    r->dmin = INFINITY, r->dprod = 1, r->mxv = -INFINITY, r->mnv = INFINITY;
    r->imax = INT64_MIN, r->imin = INT64_MAX, r->iand = -1, r->iprod = 1;
    int64_t imxv = INT64_MIN;
    for (int j = 1; j < NY - 1; j++)
        for (int i = 1; i < NX - 1; i++) {
            int64_t g[3] = {i, j, 0}, gw[3] = {i - 1, j, 0}, ge[3] = {i + 1, j, 0}, gs[3] = {i, j - 1, 0},
                    gn[3] = {i, j + 1, 0};
            double v = u0(gw, NULL) + u0(ge, NULL) + u0(gs, NULL) + u0(gn, NULL) - 4 * u0(g, NULL);
            int q = (int)floor(8 * v);
            r->dmin = fmin(r->dmin, v);
            r->dprod *= (i == 5 && j > 10) ? 1.25 : 1.0;
            if (v > r->mxv) r->mxv = v, r->mxl[0] = i, r->mxl[1] = j;
            if (v < r->mnv) r->mnv = v, r->mnl[0] = i, r->mnl[1] = j;
            r->isum += q, r->lsum += (long long)q * 3000000000LL;
            r->iprod *= (j == 7 && i < 6) ? i : 1;
            r->imax = q * i > r->imax ? q * i : r->imax;
            r->imin = q - j < r->imin ? q - j : r->imin;
            r->iand &= ~(1LL << (i % 40));
            r->ior |= 1 << (j % 20);
            int c = q > 3 ? 3 : q;
            if (c > imxv) imxv = c, r->imxl[0] = i, r->imxl[1] = j;
        }
    r->fsum = 0.25 * (NX - 2) * (NY - 2);
}

static void test_renewal_and_reductions(void)
{
    static double wref[NX * NY];
    double sref, mref;
    lap_reference(wref, &sref, &mref);
    reds want, got;
    reds_reference(&want);
    int grids[][2] = {{1, 1}, {1, 2}, {1, 3}, {2, 1}, {2, 2}, {3, 1}, {1, 4}};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        memset(&got, 0, sizeof got);
        run_lap(grids[g], wref, sref, mref, &got);
        const int *gr = grids[g];
        CHECK(got.dmin == want.dmin && got.dprod == want.dprod && got.fsum == want.fsum, "grid %dx%d: min %g/%g prod %g/%g fsum %g/%g",
              gr[0], gr[1], got.dmin, want.dmin, got.dprod, want.dprod, got.fsum, want.fsum);
        CHECK(got.mxv == want.mxv && got.mxl[0] == want.mxl[0] && got.mxl[1] == want.mxl[1],
              "grid %dx%d: maxloc %g at %lld,%lld, want %g at %lld,%lld", gr[0], gr[1], got.mxv, (long long)got.mxl[0],
              (long long)got.mxl[1], want.mxv, (long long)want.mxl[0], (long long)want.mxl[1]);
        CHECK(got.mnv == want.mnv && got.mnl[0] == want.mnl[0] && got.mnl[1] == want.mnl[1], "grid %dx%d: minloc",
              gr[0], gr[1]);
        CHECK(got.isum == want.isum && got.lsum == want.lsum && got.iprod == want.iprod, "grid %dx%d: int sums %lld/%lld %lld/%lld prod %lld/%lld",
              gr[0], gr[1], (long long)got.isum, (long long)want.isum, (long long)got.lsum, (long long)want.lsum,
              (long long)got.iprod, (long long)want.iprod);
        CHECK(got.imax == want.imax && got.imin == want.imin && got.iand == want.iand && got.ior == want.ior,
              "grid %dx%d: int max/min/and/or", gr[0], gr[1]);
        CHECK(got.imxl[0] == want.imxl[0] && got.imxl[1] == want.imxl[1], "grid %dx%d: int maxloc tie at %lld,%lld, want %lld,%lld",
              gr[0], gr[1], (long long)got.imxl[0], (long long)got.imxl[1], (long long)want.imxl[0], (long long)want.imxl[1]);
    }
}

/* ---- distributed ACROSS ----------------------------------------------------- */

#define AT3(i, j, k) ((i) + MX * ((j) + MY * (k)))

/* SOR in 3D with orders dir, widths 1:1, `sweeps` sequential nests; or in
   2D (k fixed at 0, MZ = 1 plane) when rank is 2. */
static void sor_nest(double *u, int rank, const int *dir, int sweeps)
{
    int nz = rank == 3 ? MZ : 1;
    for (int s = 0; s < sweeps; s++)
        for (int kk = rank == 3 ? 1 : 0; kk < (rank == 3 ? nz - 1 : 1); kk++)
            for (int jj = 1; jj < MY - 1; jj++)
                for (int ii = 1; ii < MX - 1; ii++) {
                    int i = dir[0] > 0 ? ii : MX - 1 - ii, j = dir[1] > 0 ? jj : MY - 1 - jj;
                    int k = rank == 3 ? (dir[2] > 0 ? kk : nz - 1 - kk) : 0;
                    double nb = u[AT3(i - 1, j, k)] + u[AT3(i + 1, j, k)] + u[AT3(i, j - 1, k)] + u[AT3(i, j + 1, k)];
                    if (rank == 3) nb += u[AT3(i, j, k - 1)] + u[AT3(i, j, k + 1)];
                    double gs = (nb - 0.01 * i) / (rank == 3 ? 6.0 : 4.0);
                    u[AT3(i, j, k)] += 1.3 * (gs - u[AT3(i, j, k)]);
                }
}

static const char *sor2 = "double gs = (U(i-1,j) + U(i+1,j) + U(i,j-1) + U(i,j+1) - 0.01 * i) / 4.0;\n"
                          "double d = 1.3 * (gs - U(i,j));\nU(i,j) += d;\nch = fabs(d);\n";
static const char *sor3 = "double gs = (U(i-1,j,k) + U(i+1,j,k) + U(i,j-1,k) + U(i,j+1,k) + U(i,j,k-1) + U(i,j,k+1)\n"
                          "            - 0.01 * i) / 6.0;\n"
                          "double d = 1.3 * (gs - U(i,j,k));\nU(i,j,k) += d;\nch = fabs(d);\n";

/* Runs the distributed SOR; returns the gathered field and the last
   sweep's max change with its location. */
static void across_run(int rank, const int *grid, const int *dir, int sweeps, int portions, double *out, double *ch,
                       int64_t *chloc)
{
    const int64_t shape[3] = {MX, MY, MZ};
    fdx_dist *d = make_dist(rank, shape, grid, 1);
    if (!d) return;
    fdx_darray *U = NULL;
    CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &U));
    CHECK_OK(fdx_darray_fill(U, u0, NULL));
    fdx_dloop *l = NULL;
    CHECK_OK(fdx_dloop_create(d, rank == 2 ? "i,j" : "i,j,k", &l));
    setup(l);
    int64_t lo[3] = {1, 1, 1}, hi[3] = {MX - 1, MY - 1, MZ - 1};
    int one[3] = {1, 1, 1};
    CHECK_OK(fdx_dloop_range(l, lo, hi));
    CHECK_OK(fdx_dloop_array(l, "U", U, FDX_READ_WRITE));
    CHECK_OK(fdx_dloop_across(l, one, one));
    CHECK_OK(fdx_dloop_order(l, dir));
    CHECK_OK(fdx_dloop_reduction(l, "ch", FDX_REDUCE_MAXLOC));
    CHECK_OK(fdx_dloop_set_portions(l, portions));
    CHECK_OK(fdx_dloop_body(l, rank == 2 ? sor2 : sor3));
    CHECK_OK(fdx_dloop_run_repeated(l, sweeps));
    CHECK_OK(fdx_dloop_result_loc(l, "ch", ch, chloc));
    CHECK_OK(fdx_darray_gather(U, out, 0));
    count_moves(l);
    fdx_dloop_destroy(&l);
    fdx_darray_destroy(&U);
    fdx_dist_destroy(&d);
}

static void test_across(void)
{
    static double init[MX * MY * MZ], ref[MX * MY * MZ], prev[MX * MY * MZ], one[MX * MY * MZ], got[MX * MY * MZ];
    const int g2[4][3] = {{1, 1, 1}, {1, 2, 1}, {2, 1, 1}, {2, 2, 1}}, g3[3][3] = {{1, 1, 1}, {2, 2, 2}, {1, 1, 3}};
    const int dirs[3][3] = {{1, 1, 1}, {-1, -1, -1}, {1, -1, -1}};
    for (int rank = 2; rank <= 3; rank++) {
        int64_t cnt = rank == 2 ? MX * MY : MX * MY * MZ;
        for (int64_t q = 0; q < cnt; q++) {
            int64_t g[3] = {q % MX, (q / MX) % MY, q / (MX * MY)};
            init[q] = u0(g, NULL);
        }
        for (int dv = 0; dv < 3; dv++)
            for (int sweeps = 1; sweeps <= 2; sweeps++) {
                memcpy(ref, init, sizeof(double) * (size_t)cnt);
                sor_nest(ref, rank, dirs[dv], sweeps);
                memcpy(prev, init, sizeof(double) * (size_t)cnt);
                sor_nest(prev, rank, dirs[dv], sweeps - 1);
                double want_ch = -1;
                int64_t want_loc = -1; /* first in the loop's order on ties: compare by value only */
                for (int64_t q = 0; q < cnt; q++)
                    if (fabs(ref[q] - prev[q]) > want_ch) want_ch = fabs(ref[q] - prev[q]), want_loc = q;
                (void)want_loc;
                int ngrids = rank == 2 ? 4 : 3;
                for (int g = 0; g < ngrids; g++) {
                    const int *grid = rank == 2 ? g2[g] : g3[g];
                    for (int portions = 0; portions <= (g ? 3 : 0); portions += 3) {
                        double ch = 0;
                        int64_t loc[3] = {0, 0, 0};
                        memset(got, 0, sizeof got);
                        across_run(rank, grid, dirs[dv], sweeps, portions, g == 0 ? one : got, &ch, loc);
                        double *res = g == 0 ? one : got;
                        double e = 0;
                        for (int64_t q = 0; q < cnt; q++) e = fmax(e, fabs(res[q] - ref[q]));
                        CHECK(e <= 1e-12, "ACROSS %dD orders %d,%d,%d grid %dx%dx%d, %d sweeps, %d portions: max diff %.3g from the nest",
                              rank, dirs[dv][0], dirs[dv][1], dirs[dv][2], grid[0], grid[1], grid[2], sweeps, portions, e);
                        CHECK(fabs(ch - want_ch) <= 1e-12, "ACROSS %dD grid %dx%dx%d: last change %.17g vs %.17g", rank,
                              grid[0], grid[1], grid[2], ch, want_ch);
                        int64_t q = loc[0] + MX * (loc[1] + MY * (rank == 3 ? loc[2] : 0));
                        CHECK(q >= 0 && q < cnt && fabs(ref[q] - prev[q]) == fabs(ref[q] - prev[q]) &&
                                  fabs(fabs(ref[q] - prev[q]) - want_ch) <= 1e-12,
                              "ACROSS %dD grid %dx%dx%d: change's location %lld,%lld,%lld", rank, grid[0], grid[1], grid[2],
                              (long long)loc[0], (long long)loc[1], (long long)loc[2]);
                        if (g > 0)
                            CHECK(memcmp(got, one, sizeof(double) * (size_t)cnt) == 0,
                                  "ACROSS %dD orders %d,%d,%d grid %dx%dx%d, %d portions: not bit for bit one unit's", rank,
                                  dirs[dv][0], dirs[dv][1], dirs[dv][2], grid[0], grid[1], grid[2], portions);
                    }
                }
            }
    }
}

/* ---- ALIGN: components, per-array shadows and corners ---------------------- */

enum { NC = 5 };

static double comp_init(const int64_t *g, void *arg)
{
    (void)arg;
    uint64_t s = (uint64_t)(g[0] * 7919 + g[1] * 104729 + g[2] * 15485863 + g[3] * 31 + 5);
    return fdx_test_rand(&s);
}

/* u(5,MX,MY,MZ): a parallel loop over the points touching components (the
   seed's AOS loop, reading neighbours), then NAS LU's lower and upper
   sweeps as distributed ACROSS loops; the gathered field. */
static void comp_run(const int *grid, double *out)
{
    const int64_t shape[3] = {MX, MY, MZ};
    fdx_dist *d = make_dist(3, shape, grid, 1);
    if (!d) return;
    fdx_darray_desc ad = {0};
    ad.type = FDX_FLOAT64, ad.ncomp = NC;
    fdx_darray *u = NULL;
    CHECK_OK(fdx_darray_create_desc(d, &ad, &u));
    CHECK(u && fdx_array_rank(fdx_darray_local(u, 0)) == 4, "a component array's blocks have rank 4");
    CHECK_OK(fdx_darray_fill(u, comp_init, NULL));
    fdx_dloop *aos = NULL, *lower = NULL, *upper = NULL;
    int64_t lo[3] = {1, 1, 1}, hi[3] = {MX - 1, MY - 1, MZ - 1};
    int one[3] = {1, 1, 1}, zero[3] = {0, 0, 0}, down[3] = {-1, -1, -1};
    CHECK_OK(fdx_dloop_create(d, "i,j,k", &aos));
    setup(aos);
    CHECK_OK(fdx_dloop_range(aos, lo, hi));
    CHECK_OK(fdx_dloop_array(aos, "u", u, FDX_READ_WRITE));
    CHECK_OK(fdx_dloop_body(aos, "u(3,i,j,k) = u(1,i,j,k) * u(4,i,j,k) + 0.5 * u(1,i-1,j,k) + 0.25 * u(0,i,j+1,k)"
                                 " + u(2,i,j,k-1) + 1e-3 * (i + 100 * j + 10000 * k);"));
    CHECK_OK(fdx_dloop_run(aos));
    CHECK_OK(fdx_dloop_create(d, "i,j,k", &lower));
    setup(lower);
    CHECK_OK(fdx_dloop_range(lower, lo, hi));
    CHECK_OK(fdx_dloop_array(lower, "u", u, FDX_READ_WRITE));
    CHECK_OK(fdx_dloop_across(lower, one, zero));
    CHECK_OK(fdx_dloop_body(lower, "for (int m = 0; m < 5; m++)\n"
                                   "  u(m,i,j,k) = 0.3 * u(m,i,j,k) + 0.2 * u(m,i-1,j,k) + 0.25 * u(m,i,j-1,k)\n"
                                   "             + 0.25 * u((m+1)%5,i,j,k-1);\n"));
    CHECK_OK(fdx_dloop_run(lower));
    CHECK_OK(fdx_dloop_create(d, "i,j,k", &upper));
    setup(upper);
    CHECK_OK(fdx_dloop_range(upper, lo, hi));
    CHECK_OK(fdx_dloop_array(upper, "u", u, FDX_READ_WRITE));
    CHECK_OK(fdx_dloop_across(upper, zero, one));
    CHECK_OK(fdx_dloop_order(upper, down));
    CHECK_OK(fdx_dloop_body(upper, "for (int m = 0; m < 5; m++)\n"
                                   "  u(m,i,j,k) = 0.3 * u(m,i,j,k) + 0.2 * u(m,i+1,j,k) + 0.25 * u(m,i,j+1,k)\n"
                                   "             + 0.25 * u((m+1)%5,i,j,k+1);\n"));
    CHECK_OK(fdx_dloop_run_repeated(upper, 2));
    CHECK_OK(fdx_darray_gather(u, out, 0));
    count_moves(aos);
    count_moves(lower);
    count_moves(upper);
    fdx_dloop_destroy(&aos);
    fdx_dloop_destroy(&lower);
    fdx_dloop_destroy(&upper);
    fdx_darray_destroy(&u);
    fdx_dist_destroy(&d);
}

/* The same three loops as nests on the host. */
static void comp_reference(double *u)
{
#define U5(m, i, j, k) u[(m) + NC * ((i) + MX * ((j) + MY * (k)))]
    for (int k = 0; k < MZ; k++)
        for (int j = 0; j < MY; j++)
            for (int i = 0; i < MX; i++)
                for (int m = 0; m < NC; m++) {
                    int64_t g[4] = {i, j, k, m};
                    U5(m, i, j, k) = comp_init(g, NULL);
                }
    for (int k = 1; k < MZ - 1; k++)
        for (int j = 1; j < MY - 1; j++)
            for (int i = 1; i < MX - 1; i++)
                U5(3, i, j, k) = U5(1, i, j, k) * U5(4, i, j, k) + 0.5 * U5(1, i - 1, j, k) + 0.25 * U5(0, i, j + 1, k) +
                                 U5(2, i, j, k - 1) + 1e-3 * (i + 100 * j + 10000 * k);
    for (int k = 1; k < MZ - 1; k++)
        for (int j = 1; j < MY - 1; j++)
            for (int i = 1; i < MX - 1; i++)
                for (int m = 0; m < NC; m++)
                    U5(m, i, j, k) = 0.3 * U5(m, i, j, k) + 0.2 * U5(m, i - 1, j, k) + 0.25 * U5(m, i, j - 1, k) +
                                     0.25 * U5((m + 1) % NC, i, j, k - 1);
    for (int s = 0; s < 2; s++)
        for (int k = MZ - 2; k >= 1; k--)
            for (int j = MY - 2; j >= 1; j--)
                for (int i = MX - 2; i >= 1; i--)
                    for (int m = 0; m < NC; m++)
                        U5(m, i, j, k) = 0.3 * U5(m, i, j, k) + 0.2 * U5(m, i + 1, j, k) + 0.25 * U5(m, i, j + 1, k) +
                                         0.25 * U5((m + 1) % NC, i, j, k + 1);
#undef U5
}

static void test_components(void)
{
    static double ref[NC * MX * MY * MZ], one[NC * MX * MY * MZ], got[NC * MX * MY * MZ];
    comp_reference(ref);
    const int g1[3] = {1, 1, 1}, grids[3][3] = {{2, 2, 2}, {1, 2, 2}, {3, 1, 1}};
    comp_run(g1, one);
    double e = 0;
    for (int q = 0; q < NC * MX * MY * MZ; q++) e = fmax(e, fabs(one[q] - ref[q]));
    CHECK(e <= 1e-12, "components on one unit: max diff %.3g from the nests", e);
    for (int g = 0; g < 3; g++) {
        memset(got, 0, sizeof got);
        comp_run(grids[g], got);
        CHECK(memcmp(got, one, sizeof got) == 0, "components (AOS loop, LU lower and upper sweeps) on %dx%dx%d: not bit for bit one unit's",
              grids[g][0], grids[g][1], grids[g][2]);
    }
}

/* Per-array shadows: v written by a loop (NaN-poisoned before), then read
   at j-2 and j-1 (shadow 2:0), w at i+1, j+1 diagonally (shadow 0:1 with
   corners); the distribution itself has no shadows at all. */
static void shadows_run(const int *grid, double *out)
{
    const int64_t shape[2] = {NX, NY};
    fdx_dist *d = make_dist(2, shape, grid, 0);
    if (!d) return;
    fdx_darray_desc dv = {0}, dw = {0};
    dv.type = dw.type = FDX_FLOAT64;
    dv.own_shadow = dw.own_shadow = 1;
    dv.shadow_lo[1] = 2, dv.shadow_lo[0] = 0;
    dw.shadow_hi[0] = dw.shadow_hi[1] = 1, dw.corners = 1;
    fdx_darray *v = NULL, *w = NULL, *r = NULL;
    CHECK_OK(fdx_darray_create_desc(d, &dv, &v));
    CHECK_OK(fdx_darray_create_desc(d, &dw, &w));
    CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &r));
    CHECK_OK(fdx_darray_fill(v, nan_init, NULL));
    CHECK_OK(fdx_darray_fill(w, nan_init, NULL));
    CHECK_OK(fdx_darray_fill(r, nan_init, NULL));
    fdx_dloop *set = NULL, *use = NULL;
    CHECK_OK(fdx_dloop_create(d, "i,j", &set));
    CHECK_OK(fdx_dloop_array(set, "v", v, FDX_WRITE));
    CHECK_OK(fdx_dloop_array(set, "w", w, FDX_WRITE));
    CHECK_OK(fdx_dloop_body(set, "v(i,j) = sin(0.3 * i) + j; w(i,j) = cos(0.2 * j) * i;"));
    CHECK_OK(fdx_dloop_run(set));
    int64_t lo[2] = {0, 2}, hi[2] = {NX - 1, NY - 1};
    CHECK_OK(fdx_dloop_create(d, "i,j", &use));
    CHECK_OK(fdx_dloop_range(use, lo, hi));
    CHECK_OK(fdx_dloop_array(use, "v", v, FDX_READ));
    CHECK_OK(fdx_dloop_array(use, "w", w, FDX_READ));
    CHECK_OK(fdx_dloop_array(use, "r", r, FDX_WRITE));
    CHECK_OK(fdx_dloop_body(use, "r(i,j) = v(i,j-2) - 2 * v(i,j-1) + w(i+1,j+1) * w(i,j+1) - w(i+1,j);"));
    CHECK_OK(fdx_dloop_run(use));
    CHECK_OK(fdx_darray_gather(r, out, 0));
    fdx_dloop_destroy(&set);
    fdx_dloop_destroy(&use);
    fdx_darray_destroy(&v);
    fdx_darray_destroy(&w);
    fdx_darray_destroy(&r);
    fdx_dist_destroy(&d);
}

static void test_array_shadows(void)
{
    static double one[NX * NY], got[NX * NY];
    const int g1[2] = {1, 1}, grids[3][2] = {{2, 2}, {1, 3}, {3, 2}};
    shadows_run(g1, one);
    int bad = 0;
    for (int j = 2; j < NY - 1; j++)
        for (int i = 0; i < NX - 1; i++) {
            double v2 = sin(0.3 * i) + (j - 2), v1 = sin(0.3 * i) + (j - 1);
            double w11 = cos(0.2 * (j + 1)) * (i + 1), w01 = cos(0.2 * (j + 1)) * i, w10 = cos(0.2 * j) * (i + 1);
            bad += fabs(one[i + NX * j] - (v2 - 2 * v1 + w11 * w01 - w10)) > 1e-12;
        }
    CHECK(bad == 0, "per-array shadows, one unit: %d points differ from the formula", bad);
    for (int g = 0; g < 3; g++) {
        for (int q = 0; q < NX * NY; q++) got[q] = 0;
        shadows_run(grids[g], got);
        int diff = 0;
        for (int j = 2; j < NY - 1; j++)
            for (int i = 0; i < NX - 1; i++) diff += memcmp(&got[i + NX * j], &one[i + NX * j], sizeof(double)) != 0;
        CHECK(diff == 0, "per-array shadows 2:0 and 0:1 with corners on %dx%d: %d points differ from one unit", grids[g][0],
              grids[g][1], diff);
    }
}

/* ---- ALIGN with a shift ---------------------------------------------------------
   X aligned with shift (1, -2): the body writes X(i-1, j+2), the element at
   grid index (i, j), and reads it back at the same place in a second loop;
   without the shift the writes would land one column and two rows off. */
static void shift_run(const int *grid, double *out)
{
    const int64_t shape[2] = {NX, NY}, sh[2] = {1, -2};
    fdx_dist *d = make_dist(2, shape, grid, 1);
    if (!d) return;
    fdx_darray *x = NULL, *y = NULL;
    CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &x));
    CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &y));
    CHECK_OK(fdx_darray_fill(x, nan_init, NULL));
    CHECK_OK(fdx_darray_fill(y, nan_init, NULL));
    fdx_dloop *set = NULL, *use = NULL;
    CHECK_OK(fdx_dloop_create(d, "i,j", &set));
    CHECK_OK(fdx_dloop_array_aligned(set, "X", x, FDX_WRITE, sh));
    CHECK_OK(fdx_dloop_body(set, "X(i-1,j+2) = 1000.0 * i + j;"));
    CHECK_OK(fdx_dloop_run(set));
    int64_t lo[2] = {1, 0}, hi[2] = {NX, NY};
    CHECK_OK(fdx_dloop_create(d, "i,j", &use));
    CHECK_OK(fdx_dloop_range(use, lo, hi));
    CHECK_OK(fdx_dloop_array_aligned(use, "X", x, FDX_READ, sh));
    CHECK_OK(fdx_dloop_array(use, "Y", y, FDX_WRITE));
    CHECK_OK(fdx_dloop_body(use, "Y(i,j) = X(i-1,j+2) - X(i-2,j+2);"));
    CHECK_OK(fdx_dloop_run(use));
    CHECK_OK(fdx_darray_gather(y, out, 0));
    fdx_dloop_destroy(&set);
    fdx_dloop_destroy(&use);
    fdx_darray_destroy(&x);
    fdx_darray_destroy(&y);
    fdx_dist_destroy(&d);
}

static void test_shift(void)
{
    static double got[NX * NY];
    const int grids[3][2] = {{1, 1}, {2, 2}, {3, 1}};
    for (int g = 0; g < 3; g++) {
        for (int q = 0; q < NX * NY; q++) got[q] = NAN;
        shift_run(grids[g], got);
        int bad = 0;
        for (int j = 0; j < NY; j++)
            for (int i = 1; i < NX; i++) bad += got[i + NX * j] != 1000.0;
        CHECK(bad == 0, "ALIGN with a shift on %dx%d: %d points differ", grids[g][0], grids[g][1], bad);
    }
}

/* ---- REMOTE_ACCESS ------------------------------------------------------------ */

/* u written by a loop (so the values come from the units, not the fill),
   then v(i,j) = u(i,j) + a line u(5, j) (column 5, a box 1 wide), a point
   u(NX-1, 0), a plane of a component array (c(1, i, 3), the row j = 3) and
   a list of three points, read wherever they live. */
static void remote_run(const int *grid, double *out)
{
    const int64_t shape[2] = {NX, NY};
    fdx_dist *d = make_dist(2, shape, grid, 1);
    if (!d) return;
    fdx_darray *u = NULL, *v = NULL, *c = NULL;
    fdx_darray_desc cd = {0};
    cd.type = FDX_FLOAT64, cd.ncomp = 2;
    CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &u));
    CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &v));
    CHECK_OK(fdx_darray_create_desc(d, &cd, &c));
    CHECK_OK(fdx_darray_fill(u, nan_init, NULL));
    CHECK_OK(fdx_darray_fill(v, nan_init, NULL));
    CHECK_OK(fdx_darray_fill(c, nan_init, NULL));
    fdx_dloop *set = NULL, *use = NULL;
    CHECK_OK(fdx_dloop_create(d, "i,j", &set));
    CHECK_OK(fdx_dloop_array(set, "u", u, FDX_WRITE));
    CHECK_OK(fdx_dloop_array(set, "c", c, FDX_WRITE));
    CHECK_OK(fdx_dloop_body(set, "u(i,j) = i + 100.0 * j + sin(1.0 * i * j); c(0,i,j) = -1.0 * i; c(1,i,j) = 0.5 * j + i;"));
    CHECK_OK(fdx_dloop_run(set));
    CHECK_OK(fdx_dloop_create(d, "i,j", &use));
    int64_t llo[2] = {5, 0}, lhi[2] = {6, NY}, plo[2] = {NX - 1, 0}, phi[2] = {NX, 1}, rlo[2] = {0, 3}, rhi[2] = {NX, 4};
    int64_t pts[6] = {NX - 1, NY - 1, 0, NY - 1, 11, 3};
    CHECK_OK(fdx_dloop_array(use, "u", u, FDX_READ));
    CHECK_OK(fdx_dloop_array(use, "v", v, FDX_WRITE));
    CHECK_OK(fdx_dloop_remote_box(use, "col", u, llo, lhi));
    CHECK_OK(fdx_dloop_remote_box(use, "pt", u, plo, phi));
    CHECK_OK(fdx_dloop_remote_box(use, "row", c, rlo, rhi));
    CHECK_OK(fdx_dloop_remote_points(use, "L", u, 3, pts));
    int64_t bad_lo[2] = {0, 0}, bad_hi[2] = {NX + 1, 1};
    CHECK_FAILS(fdx_dloop_remote_box(use, "bad", u, bad_lo, bad_hi), FDX_ERR_INVALID);
    CHECK_OK(fdx_dloop_body(use, "v(i,j) = u(i,j) + col(5,j) + 2 * pt(22,0) + 3 * row(1,i,3) + L(0) - L(1) + 0.5 * L(2);"));
    CHECK_OK(fdx_dloop_run(use));
    CHECK_OK(fdx_darray_gather(v, out, 0));
    fdx_dloop_destroy(&set);
    fdx_dloop_destroy(&use);
    fdx_darray_destroy(&u);
    fdx_darray_destroy(&v);
    fdx_darray_destroy(&c);
    fdx_dist_destroy(&d);
}

static void test_remote(void)
{
    static double got[NX * NY];
#define UF(i, j) ((i) + 100.0 * (j) + sin(1.0 * (i) * (j)))
    const int grids[4][2] = {{1, 1}, {2, 2}, {3, 1}, {1, 4}};
    for (int g = 0; g < 4; g++) {
        for (int q = 0; q < NX * NY; q++) got[q] = NAN;
        remote_run(grids[g], got);
        int bad = 0;
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                double want = UF(i, j) + UF(5, j) + 2 * UF(22, 0) + 3 * (0.5 * 3 + i) + UF(NX - 1, NY - 1) - UF(0, NY - 1) +
                              0.5 * UF(11, 3);
                bad += fabs(got[i + NX * j] - want) > 1e-9 * fabs(want);
            }
        CHECK(bad == 0, "remote access on %dx%d: %d points differ", grids[g][0], grids[g][1], bad);
    }
#undef UF
}

/* ---- errors ------------------------------------------------------------------ */

static void test_errors(void)
{
    const int64_t shape[3] = {MX, MY, MZ};
    const int grid[3] = {1, 2, 2};
    fdx_dist *d = make_dist(3, shape, grid, 1);
    if (!d) return;
    fdx_darray *U = NULL;
    CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &U));
    CHECK_OK(fdx_darray_fill(U, u0, NULL));
    fdx_dloop *l = NULL;
    CHECK_OK(fdx_dloop_create(d, "i,j,k", &l));
    int64_t lo[3] = {1, 1, 1}, hi[3] = {MX - 1, MY - 1, MZ - 1}, bad_hi[3] = {MX + 1, MY, MZ};
    int one[3] = {1, 1, 1}, two[3] = {2, 2, 2};
    CHECK_FAILS(fdx_dloop_range(l, lo, bad_hi), FDX_ERR_INVALID);
    CHECK_OK(fdx_dloop_range(l, lo, hi));
    CHECK_OK(fdx_dloop_array(l, "U", U, FDX_READ_WRITE));
    CHECK_OK(fdx_dloop_across(l, one, one));
    /* a box-shaped dependence (it used to run and differ by 0.077) */
    CHECK_OK(fdx_dloop_body(l, "U(i,j,k) = 0.5 * (U(i,j+1,k-1) + U(i-1,j,k));"));
    CHECK_FAILS(fdx_dloop_run(l), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "U(i,j+1,k-1)") != NULL, "refusal names the access: %s", fdx_last_error());
    /* widths beyond the shadow */
    CHECK_OK(fdx_dloop_across(l, two, two));
    CHECK_OK(fdx_dloop_body(l, "U(i,j,k) = U(i-2,j,k);"));
    CHECK_FAILS(fdx_dloop_run(l), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "shadow") != NULL, "widths vs shadow named: %s", fdx_last_error());
    CHECK_FAILS(fdx_dloop_order(l, (int[]){1, 2, 1}), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_dloop_reduction_typed(l, "x", FDX_REDUCE_AND, FDX_FLOAT64), FDX_ERR_INVALID);
    fdx_dloop *l1 = NULL;
    CHECK_FAILS(fdx_dloop_create(d, "i", &l1), FDX_ERR_INVALID);
    fdx_dloop_destroy(&l);
    fdx_darray_destroy(&U);
    fdx_dist_destroy(&d);
}

/* autotfm in distributed loops: the same distributed SOR (ACROSS, forward
   and descending, 2 sweeps: the renewal between them reads faces out of
   diagonal blocks) and the component loops (AOS permutes the blocks, the
   LU sweeps diagonalize them) planned as for a GPU, bit for bit the plain
   blocks' results on 1x2, 2x2 (2D) and 1x2x2, 2x2x2 (3D) unit grids. */
static void test_autotfm(void)
{
    static double plain[NC * MX * MY * MZ], got[NC * MX * MY * MZ];
    const int g2[3][3] = {{1, 1, 1}, {1, 2, 1}, {2, 2, 1}}, g3[3][3] = {{1, 1, 1}, {1, 2, 2}, {2, 2, 2}};
    const int dirs[2][3] = {{1, 1, 1}, {-1, -1, -1}};
    for (int rank = 2; rank <= 3; rank++)
        for (int g = 0; g < 3; g++)
            for (int dv = 0; dv < 2; dv++) {
                const int *grid = rank == 2 ? g2[g] : g3[g];
                size_t cnt = rank == 2 ? MX * MY : MX * MY * MZ;
                double ch0 = 0, ch1 = 0;
                int64_t loc0[3] = {0}, loc1[3] = {0};
                planned = 0;
                across_run(rank, grid, dirs[dv], 2, 0, plain, &ch0, loc0);
                planned = 1;
                fdx_loop_moves before = moves;
                across_run(rank, grid, dirs[dv], 2, 0, got, &ch1, loc1);
                CHECK(moves.transforms > before.transforms, "autotfm SOR %dD grid %dx%dx%d: no block moved", rank,
                      grid[0], grid[1], grid[2]);
                CHECK(memcmp(got, plain, sizeof(double) * cnt) == 0 && ch0 == ch1 && loc0[0] == loc1[0] &&
                          loc0[1] == loc1[1] && loc0[2] == loc1[2],
                      "autotfm SOR %dD order %d grid %dx%dx%d: not bit for bit the plain blocks' run", rank, dirs[dv][0],
                      grid[0], grid[1], grid[2]);
            }
    for (int g = 0; g < 3; g++) {
        planned = 0;
        comp_run(g3[g], plain);
        planned = 1;
        fdx_loop_moves before = moves;
        comp_run(g3[g], got);
        CHECK(moves.transforms >= before.transforms + 2, "autotfm components grid %dx%dx%d: %lld moves", g3[g][0],
              g3[g][1], g3[g][2], (long long)(moves.transforms - before.transforms));
        CHECK(memcmp(got, plain, sizeof plain) == 0,
              "autotfm components (AOS permuted, LU sweeps diagonal) grid %dx%dx%d: not bit for bit the plain run",
              g3[g][0], g3[g][1], g3[g][2]);
    }
    planned = -1;
    printf("  autotfm in distributed loops: %lld block transforms, %.2f MB moved\n", (long long)moves.transforms,
           (double)moves.bytes / 1e6);
}

int main(void)
{
    if (strcmp(DIST_LOOP_BACKEND, "cuda") == 0 && fdx_cuda_device_count() == 0)
        return fdx_test_skip(DIST_LOOP_NAME, "no CUDA device");
    test_global_indices();
    test_renewal_and_reductions();
    test_across();
    test_components();
    test_array_shadows();
    test_remote();
    test_shift();
    test_autotfm();
    test_errors();
    return fdx_test_finish(DIST_LOOP_NAME);
}
