/* Loops on the CPU backend (test_loop_gpu.c runs the same on CUDA): every result against the same body run as a
   sequential nest here; reductions; ACROSS loops under every layout and with
   pipelined sweeps; the planner's decisions for the seeds' two loops; body
   compile errors with the body's line numbers. */
#include "loop_test.h"
#include "layout/fdx_layout_index.h"
#include "loops/fdx_loop_diag.h"

#include <string.h>

#ifndef LOOP_TEST_BACKEND
#define LOOP_TEST_BACKEND "cpu"
#define LOOP_TEST_NAME "test_loop"
#endif

#define NX 13
#define NY 11
#define NZ 9
#define AT(i, j, k) ((i) + NX * ((j) + NY * (k)))

static uint64_t seed = 12345;

/* Reductions "s" (sum of cnt values, reference s) and "mx" (maxloc,
   reference mx at lmx) of loop l. */
static void check_sum_maxloc(const fdx_loop *l, double s, size_t cnt, double mx, const int64_t *lmx, const char *what)
{
    double v;
    int64_t loc[3];
    CHECK_OK(fdx_loop_result(l, "s", &v, NULL));
    CHECK(fabs(v - s) <= 1e-12 * fabs(s) * cnt, "%s: sum %.17g vs %.17g", what, v, s);
    CHECK_OK(fdx_loop_result(l, "mx", &v, loc));
    CHECK(v == mx && loc[0] == lmx[0] && loc[1] == lmx[1] && loc[2] == lmx[2], "%s: maxloc %g at %lld,%lld,%lld vs %g",
          what, v, (long long)loc[0], (long long)loc[1], (long long)loc[2], mx);
}

static void test_parallel_and_reductions(void)
{
    const int64_t n[3] = {NX, NY, NZ};
    size_t cnt = NX * NY * NZ;
    double *a = malloc(cnt * 8), *b = malloc(cnt * 8), *ref = malloc(cnt * 8), *got = malloc(cnt * 8);
    for (size_t q = 0; q < cnt; q++) {
        a[q] = fdx_test_rand(&seed);
        b[q] = NAN; /* poison */
    }
    fdx_array *A = make(3, n, a), *B = make(3, n, b);
    fdx_loop *l = NULL;
    CHECK_OK(fdx_loop_create(ctx, "i,j,k", &l));
    int64_t lo[3] = {1, 1, 1}, hi[3] = {NX - 1, NY - 1, NZ - 1};
    CHECK_OK(fdx_loop_range(l, lo, hi));
    CHECK_OK(fdx_loop_array(l, "A", A, FDX_READ));
    CHECK_OK(fdx_loop_array(l, "B", B, FDX_WRITE));
    CHECK_OK(fdx_loop_scalar(l, "alpha", 0.25));
    CHECK_OK(fdx_loop_reduction(l, "s", FDX_REDUCE_SUM));
    CHECK_OK(fdx_loop_reduction(l, "mx", FDX_REDUCE_MAXLOC));
    CHECK_OK(fdx_loop_reduction(l, "mn", FDX_REDUCE_MINLOC));
    CHECK_OK(fdx_loop_reduction(l, "m", FDX_REDUCE_MAX));
    CHECK_OK(fdx_loop_body(l, "double v = A(i,j,k) + alpha * (A(i-1,j,k) + A(i+1,j,k) - A(i,j-1,k) * A(i,j,k+1));\n"
                              "B(i,j,k) = v;\n s += v; mx = v; mn = v; m = fabs(v);"));
    CHECK_OK(fdx_loop_run(l, NULL));
    nvrtc_check(l);
    double s = 0, mx = -1e300, mn = 1e300, m = 0;
    int64_t lmx[3] = {0}, lmn[3] = {0};
    for (size_t q = 0; q < cnt; q++) ref[q] = NAN;
    for (int k = 1; k < NZ - 1; k++)
        for (int j = 1; j < NY - 1; j++)
            for (int i = 1; i < NX - 1; i++) {
                double v = a[AT(i, j, k)] + 0.25 * (a[AT(i - 1, j, k)] + a[AT(i + 1, j, k)] - a[AT(i, j - 1, k)] * a[AT(i, j, k + 1)]);
                ref[AT(i, j, k)] = v;
                s += v;
                if (v > mx) mx = v, lmx[0] = i, lmx[1] = j, lmx[2] = k;
                if (v < mn) mn = v, lmn[0] = i, lmn[1] = j, lmn[2] = k;
                if (fabs(v) > m) m = fabs(v);
            }
    CHECK_OK(fdx_array_get(B, got));
    CHECK(same_or_poisoned(got, ref, cnt), "parallel loop differs from the sequential nest (or wrote outside its range)");
    check_sum_maxloc(l, s, cnt, mx, lmx, "parallel loop");
    double v;
    int64_t loc[3];
    CHECK_OK(fdx_loop_result(l, "mn", &v, loc));
    CHECK(v == mn && loc[0] == lmn[0] && loc[1] == lmn[1] && loc[2] == lmn[2], "minloc %g vs %g", v, mn);
    CHECK_OK(fdx_loop_result(l, "m", &v, NULL));
    CHECK_FAILS(fdx_loop_result(l, "m", &v, loc), FDX_ERR_INVALID); /* max keeps no location */
    CHECK(v == m, "max %g vs %g", v, m);
    CHECK_FAILS(fdx_loop_result(l, "nosuch", &v, NULL), FDX_ERR_INVALID);
    /* a scalar changes without a new body */
    CHECK_OK(fdx_loop_scalar(l, "alpha", 0.0));
    CHECK_OK(fdx_loop_run(l, NULL));
    CHECK_OK(fdx_array_get(B, got));
    CHECK(got[AT(3, 4, 5)] == a[AT(3, 4, 5)], "alpha = 0 gives A: %g vs %g", got[AT(3, 4, 5)], a[AT(3, 4, 5)]);
    fdx_loop_destroy(&l);
    fdx_loop_destroy(&l); /* NULL is fine */
    fdx_array_destroy(&A);
    fdx_array_destroy(&B);
    free(a), free(b), free(ref), free(got);
}

/* The seed's SOR sweep, in place, lexicographic, sequential. */
static void sor_ref(double *u, const double *f, double w, int sweeps)
{
    for (int s = 0; s < sweeps; s++)
        for (int k = 1; k < NZ - 1; k++)
            for (int j = 1; j < NY - 1; j++)
                for (int i = 1; i < NX - 1; i++) {
                    double gs = (u[AT(i - 1, j, k)] + u[AT(i + 1, j, k)] + u[AT(i, j - 1, k)] + u[AT(i, j + 1, k)] +
                                 u[AT(i, j, k - 1)] + u[AT(i, j, k + 1)] - f[AT(i, j, k)]) / 6.0;
                    u[AT(i, j, k)] += w * (gs - u[AT(i, j, k)]);
                }
}

/* The largest change the last of `sweeps` sweeps from u0 makes. */
static double sor_last_change(const double *u0, const double *f, double w, int sweeps, size_t cnt)
{
    double *a = malloc(cnt * 8), *b = malloc(cnt * 8), want = 0;
    memcpy(a, u0, cnt * 8);
    sor_ref(a, f, w, sweeps - 1);
    memcpy(b, a, cnt * 8);
    sor_ref(b, f, w, 1);
    for (size_t q = 0; q < cnt; q++) want = fabs(b[q] - a[q]) > want ? fabs(b[q] - a[q]) : want;
    free(a), free(b);
    return want;
}

static const char *sor_body = "double gs = (U(i-1,j,k) + U(i+1,j,k) + U(i,j-1,k) + U(i,j+1,k)\n"
                              "             + U(i,j,k-1) + U(i,j,k+1) - F(i,j,k)) / 6.0;\n"
                              "double d = w * (gs - U(i,j,k));\nU(i,j,k) += d;\nch = fabs(d);\n";

static void test_across(void)
{
    const int64_t n[3] = {NX, NY, NZ};
    size_t cnt = NX * NY * NZ;
    double *u0 = malloc(cnt * 8), *f = malloc(cnt * 8), *ref = malloc(cnt * 8), *got = malloc(cnt * 8);
    for (size_t q = 0; q < cnt; q++) u0[q] = fdx_test_rand(&seed), f[q] = fdx_test_rand(&seed);
    const int perms[4][3] = {{0, 1, 2}, {1, 0, 2}, {2, 0, 1}, {0, 1, 2}};
    const fdx_diag diags[4] = {FDX_DIAG_NONE, FDX_DIAG_ANTI, FDX_DIAG_MAIN, FDX_DIAG_NONE};
    for (int sweeps = 1; sweeps <= 3; sweeps += 2)
        for (int v = 0; v < 5; v++) {
            memcpy(ref, u0, cnt * 8);
            sor_ref(ref, f, 1.3, sweeps);
            fdx_array *U = make(3, n, u0), *F = make(3, n, f);
            fdx_layout lay;
            if (v < 4) {
                CHECK_OK(fdx_layout_make(3, perms[v], diags[v], &lay));
                CHECK_OK(fdx_array_set_layout(U, &lay));
            }
            fdx_loop *l = NULL;
            CHECK_OK(fdx_loop_create(ctx, "i,j,k", &l));
            int64_t lo[3] = {1, 1, 1}, hi[3] = {NX - 1, NY - 1, NZ - 1};
            int width[3] = {1, 1, 1};
            CHECK_OK(fdx_loop_range(l, lo, hi));
            CHECK_OK(fdx_loop_array(l, "U", U, FDX_READ_WRITE));
            CHECK_OK(fdx_loop_array(l, "F", F, FDX_READ));
            CHECK_OK(fdx_loop_scalar(l, "w", 1.3));
            CHECK_OK(fdx_loop_reduction(l, "ch", FDX_REDUCE_MAX));
            CHECK_OK(fdx_loop_across(l, width));
            CHECK_OK(fdx_loop_body(l, sor_body));
            if (v == 1 || v == 2) CHECK_OK(fdx_loop_set_autotfm(l, 0)); /* run under these layouts */
            if (v == 3) CHECK_OK(fdx_loop_set_autotfm(l, 2));
            if (v >= 3) CHECK_OK(fdx_loop_plan_for(l, FDX_BACKEND_CUDA)); /* GPU layouts, CPU code */
            CHECK_OK(fdx_loop_run_repeated(l, sweeps, NULL));
            nvrtc_check(l);
            CHECK_OK(fdx_array_get(U, got));
            double e = max_rel(got, ref, cnt);
            CHECK(e <= 1e-12, "ACROSS sweeps %d, layout variant %d: max relative difference %.3g", sweeps, v, e);
            /* the last sweep's change */
            double ch, want = sor_last_change(u0, f, 1.3, sweeps, cnt);
            CHECK_OK(fdx_loop_result(l, "ch", &ch, NULL));
            CHECK(fabs(ch - want) <= 1e-12 * want, "last sweep's change %.17g vs %.17g", ch, want);
            if (v == 3) {
                fdx_layout now;
                CHECK_OK(fdx_array_layout(U, &now));
                CHECK(now.diag == FDX_DIAG_ANTI && now.perm[0] == 0 && now.perm[1] == 1, "autotfm diagonalized U");
            }
            fdx_loop_destroy(&l);
            fdx_array_destroy(&U);
            fdx_array_destroy(&F);
        }
    free(u0), free(f), free(ref), free(got);
}

/* Repeated runs of one ACROSS loop: on CUDA the second run with the same
   launches captures them as a graph and later ones replay it; a changed
   scalar or sweep count launches anew.  Each run against the nest. */
static void test_replay(void)
{
    const int64_t n[3] = {NX, NY, NZ};
    size_t cnt = NX * NY * NZ;
    double *u0 = malloc(cnt * 8), *f = malloc(cnt * 8), *ref = malloc(cnt * 8), *got = malloc(cnt * 8);
    for (size_t q = 0; q < cnt; q++) u0[q] = fdx_test_rand(&seed), f[q] = fdx_test_rand(&seed);
    fdx_array *U = make(3, n, u0), *F = make(3, n, f);
    fdx_loop *l = NULL;
    CHECK_OK(fdx_loop_create(ctx, "i,j,k", &l));
    CHECK_OK(fdx_loop_range(l, (int64_t[]){1, 1, 1}, (int64_t[]){NX - 1, NY - 1, NZ - 1}));
    CHECK_OK(fdx_loop_array(l, "U", U, FDX_READ_WRITE));
    CHECK_OK(fdx_loop_array(l, "F", F, FDX_READ));
    CHECK_OK(fdx_loop_scalar(l, "w", 1.3));
    CHECK_OK(fdx_loop_reduction(l, "ch", FDX_REDUCE_MAX));
    CHECK_OK(fdx_loop_across(l, (int[]){1, 1, 1}));
    CHECK_OK(fdx_loop_body(l, sor_body));
    memcpy(ref, u0, cnt * 8);
    static const struct {
        double w;
        int sweeps;
    } runs[] = {{1.3, 1}, {1.3, 1}, {1.3, 1}, {1.3, 1}, {0.7, 1}, {0.7, 1}, {0.7, 1}, {1.1, 2}, {1.1, 2}, {1.1, 2}};
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        CHECK_OK(fdx_loop_scalar(l, "w", runs[r].w));
        CHECK_OK(fdx_loop_run_repeated(l, runs[r].sweeps, NULL));
        double want = sor_last_change(ref, f, runs[r].w, runs[r].sweeps, cnt), ch;
        sor_ref(ref, f, runs[r].w, runs[r].sweeps);
        CHECK_OK(fdx_array_get(U, got));
        double e = max_rel(got, ref, cnt);
        CHECK(e <= 1e-12, "repeated run %zu: max relative difference %.3g", r, e);
        CHECK_OK(fdx_loop_result(l, "ch", &ch, NULL));
        CHECK(fabs(ch - want) <= 1e-12 * want, "repeated run %zu: change %.17g vs %.17g", r, ch, want);
    }
    fdx_loop_destroy(&l);
    fdx_array_destroy(&U);
    fdx_array_destroy(&F);
    free(u0), free(f), free(ref), free(got);
}

/* ACROSS in i,j only (k independent): on the GPU the lines of a plane are
   the k values, a box with no range from t; under the identity and an
   anti-diagonal layout, 2 sweeps, against the sequential nest. */
static void test_across_2d(void)
{
    const int64_t n[3] = {NX, NY, NZ};
    size_t cnt = NX * NY * NZ;
    double *u0 = malloc(cnt * 8), *f = malloc(cnt * 8), *ref = malloc(cnt * 8), *got = malloc(cnt * 8);
    for (size_t q = 0; q < cnt; q++) u0[q] = fdx_test_rand(&seed), f[q] = fdx_test_rand(&seed);
    memcpy(ref, u0, cnt * 8);
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < NZ; k++)
            for (int j = 1; j < NY - 1; j++)
                for (int i = 1; i < NX - 1; i++)
                    ref[AT(i, j, k)] = 0.25 * (ref[AT(i - 1, j, k)] + ref[AT(i + 1, j, k)] + ref[AT(i, j - 1, k)] +
                                               ref[AT(i, j + 1, k)]) + 0.5 * f[AT(i, j, k)];
    for (int v = 0; v < 2; v++) {
        fdx_array *U = make(3, n, u0), *F = make(3, n, f);
        for (size_t q = 0; q < cnt; q++) got[q] = NAN;
        fdx_layout lay;
        CHECK_OK(fdx_layout_make(3, NULL, v ? FDX_DIAG_ANTI : FDX_DIAG_NONE, &lay));
        CHECK_OK(fdx_array_set_layout(U, &lay));
        fdx_loop *l = NULL;
        CHECK_OK(fdx_loop_create(ctx, "i,j,k", &l));
        int64_t lo[3] = {1, 1, 0}, hi[3] = {NX - 1, NY - 1, NZ};
        int width[3] = {1, 1, 0};
        CHECK_OK(fdx_loop_range(l, lo, hi));
        CHECK_OK(fdx_loop_array(l, "U", U, FDX_READ_WRITE));
        CHECK_OK(fdx_loop_array(l, "F", F, FDX_READ));
        CHECK_OK(fdx_loop_across(l, width));
        CHECK_OK(fdx_loop_set_autotfm(l, 0));
        CHECK_OK(fdx_loop_body(l, "U(i,j,k) = 0.25 * (U(i-1,j,k) + U(i+1,j,k) + U(i,j-1,k) + U(i,j+1,k))"
                                  " + 0.5 * F(i,j,k);"));
        CHECK_OK(fdx_loop_run_repeated(l, 2, NULL));
        nvrtc_check(l);
        CHECK_OK(fdx_array_get(U, got));
        double e = max_rel(got, ref, cnt);
        CHECK(e <= 1e-12, "ACROSS i,j only, layout %d: max relative difference %.3g", v, e);
        fdx_loop_destroy(&l);
        fdx_array_destroy(&U);
        fdx_array_destroy(&F);
    }
    free(u0), free(f), free(ref), free(got);
}

static void test_planner_seeds(void)
{
    /* The seed's ARRAY[Z][Y][X][5]: component fastest, no loop over it. */
    const int64_t s4[4] = {5, 40, 36, 34};
    fdx_array *A = make(4, s4, NULL);
    fdx_loop *l = NULL;
    CHECK_OK(fdx_loop_create(ctx, "i,j,k", &l));
    int axes[3] = {1, 2, 3};
    CHECK_OK(fdx_loop_on(l, A, axes));
    CHECK_OK(fdx_loop_array(l, "A", A, FDX_READ_WRITE));
    CHECK_OK(fdx_loop_body(l, "A(3,i,j,k) = A(1,i,j,k) * 0.5 + A(4,i,j,k);"));
    fdx_loop_decision d;
    CHECK_OK(fdx_loop_plan(l, FDX_BACKEND_CUDA, &d));
    CHECK(d.thread_index == 0 && !d.across, "AOS: thread index %d", d.thread_index);
    CHECK(d.array[0].moved && d.array[0].to.perm[0] == 1 && d.array[0].to.perm[1] == 0 && d.array[0].to.perm[2] == 2 &&
              d.array[0].to.perm[3] == 3 && d.array[0].to.diag == FDX_DIAG_NONE,
          "AOS: swap the two fastest axes (%s)", d.array[0].why);
    CHECK_OK(fdx_loop_set_autotfm(l, 0));
    CHECK_OK(fdx_loop_plan(l, FDX_BACKEND_CUDA, &d));
    CHECK(!d.array[0].moved, "AOS with autotfm off moves nothing");
    CHECK_OK(fdx_loop_set_autotfm(l, 1));
    CHECK_OK(fdx_loop_plan(l, FDX_BACKEND_CPU, &d));
    CHECK(!d.array[0].moved, "CPU plan moves nothing");
    /* run it with the GPU's layout on the CPU and compare in the plain layout */
    size_t cnt = 5 * 40 * 36 * 34;
    double *a = malloc(cnt * 8), *got = malloc(cnt * 8);
    for (size_t q = 0; q < cnt; q++) a[q] = fdx_test_rand(&seed);
    CHECK_OK(fdx_array_put(A, a));
    CHECK_OK(fdx_loop_plan_for(l, FDX_BACKEND_CUDA));
    CHECK_OK(fdx_loop_run(l, NULL));
    fdx_layout now;
    CHECK_OK(fdx_array_layout(A, &now));
    CHECK(now.perm[0] == 1 && now.perm[1] == 0, "AOS array transformed");
    CHECK_OK(fdx_loop_plan(l, FDX_BACKEND_CUDA, &d));
    CHECK(!d.array[0].moved, "second run: the layout stays");
    CHECK_OK(fdx_array_get(A, got));
    for (size_t q = 3; q < cnt; q += 5) a[q] = a[q - 2] * 0.5 + a[q + 1];
    CHECK(memcmp(a, got, cnt * 8) == 0, "AOS loop under the swapped layout");
    /* too small to repay */
    const int64_t tiny[4] = {5, 4, 4, 4};
    fdx_array *S = make(4, tiny, NULL);
    fdx_loop *ls = NULL;
    CHECK_OK(fdx_loop_create(ctx, "i,j,k", &ls));
    CHECK_OK(fdx_loop_on(ls, S, axes));
    CHECK_OK(fdx_loop_array(ls, "A", S, FDX_READ_WRITE));
    CHECK_OK(fdx_loop_body(ls, "A(3,i,j,k) = A(1,i,j,k);"));
    CHECK_OK(fdx_loop_plan(ls, FDX_BACKEND_CUDA, &d));
    CHECK(!d.array[0].moved && strstr(d.array[0].why, "too small"), "small loop: %s", d.array[0].why);
    fdx_loop_destroy(&ls);
    fdx_array_destroy(&S);

    /* The seed's ACROSS loop: diagonalize the two fastest axes. */
    const int64_t s3[3] = {40, 40, 40};
    fdx_array *U = make(3, s3, NULL);
    fdx_loop *la = NULL;
    CHECK_OK(fdx_loop_create(ctx, "i,j,k", &la));
    CHECK_OK(fdx_loop_on(la, U, NULL));
    CHECK_OK(fdx_loop_array(la, "A", U, FDX_READ_WRITE));
    int w[3] = {1, 1, 1};
    CHECK_OK(fdx_loop_across(la, w));
    CHECK_OK(fdx_loop_body(la, "if (i > 0 && j > 0 && k > 0 && i < 39 && j < 39 && k < 39)\n"
                               "  A(i,j,k) = A(i+1,j,k) + A(i,j+1,k) + A(i,j,k+1) + A(i-1,j,k) + A(i,j-1,k) + A(i,j,k-1);"));
    CHECK_OK(fdx_loop_plan(la, FDX_BACKEND_CUDA, &d));
    CHECK(d.across && d.thread_index == 0 && d.array[0].moved && d.array[0].to.diag == FDX_DIAG_ANTI &&
              d.array[0].to.perm[0] == 0 && d.array[0].to.perm[1] == 1,
          "SOR: anti-diagonal of axes 0,1 (%s)", d.array[0].why);
    fdx_loop_destroy(&la);
    fdx_array_destroy(&U);
    fdx_loop_destroy(&l);
    fdx_array_destroy(&A);
    free(a), free(got);
}

FDX_LOOP_DIAG_POINT_DEFINE(static, fdx_diag_point, long long, double, sqrt)
FDX_LOOP_DIAG_POINT_DEFINE(static, fdx_diag_point32, unsigned, float, sqrtf)

/* Parallel loops on arrays an ACROSS loop left on the anti-diagonal walk
   the diagonals (GPU planning) instead of moving them back: the
   enumeration's inverse against the layout's index, then an ACROSS loop
   and two parallel loops (one writing its output whole: relabelled, not
   moved; one writing the interior: moved, the rest kept) against the nest,
   with the move counts. */
static void test_diag_walk(void)
{
    int bad = 0;
    for (long long a = 1; a <= 12; a++)
        for (long long b = 1; b <= 12; b++)
            for (long long r = 0; r < a * b; r++) {
                long long x = -1, y = -1;
                unsigned x32 = 0, y32 = 0;
                fdx_diag_point(r, a, b, &x, &y);
                fdx_diag_point32((unsigned)r, (unsigned)a, (unsigned)b, &x32, &y32);
                bad += x < 0 || x >= a || y < 0 || y >= b || fdx_diag_index(x, y, a, b) != r || x32 != x || y32 != y;
            }
    /* the 32-bit helper's float square root near the top of its range */
    const long long b32[3][2] = {{46340, 46340}, {40000, 53000}, {3001, 2000}};
    uint64_t rs32 = 99;
    for (int c = 0; c < 3; c++)
        for (int q = 0; q < 200000; q++) {
            long long a = b32[c][0], b = b32[c][1], n = a * b;
            long long r = (long long)((fdx_test_rand(&rs32) + 1) * 0.5 * (double)n);
            r = r < 0 ? 0 : r >= n ? n - 1 : r;
            unsigned x32 = 0, y32 = 0;
            fdx_diag_point32((unsigned)r, (unsigned)a, (unsigned)b, &x32, &y32);
            bad += x32 >= a || y32 >= b || fdx_diag_index(x32, y32, a, b) != r;
        }
    const long long big[3][2] = {{3001, 2000}, {1, 70000}, {46341, 46341}};
    for (int c = 0; c < 3; c++) {
        long long a = big[c][0], b = big[c][1], n = a * b;
        const long long rs[8] = {0, 1, n / 3, n / 2, n / 2 + 1, n - a - 1, n - 2, n - 1};
        for (int q = 0; q < 8; q++) {
            long long x = -1, y = -1;
            unsigned x32 = 0, y32 = 0;
            fdx_diag_point(rs[q], a, b, &x, &y);
            bad += x < 0 || x >= a || y < 0 || y >= b || fdx_diag_index(x, y, a, b) != rs[q];
            if (n < ((long long)1 << 31)) {
                fdx_diag_point32((unsigned)rs[q], (unsigned)a, (unsigned)b, &x32, &y32);
                bad += x32 != x || y32 != y;
            }
        }
    }
    CHECK(!bad, "fdx_diag_point is not the inverse of the anti-diagonal index at %d points", bad);

    const int64_t n[3] = {NX, NY, NZ};
    size_t cnt = NX * NY * NZ;
    double *a = malloc(cnt * 8), *poison = malloc(cnt * 8), *rb = malloc(cnt * 8), *rc = malloc(cnt * 8),
           *got = malloc(cnt * 8);
    for (size_t q = 0; q < cnt; q++) a[q] = fdx_test_rand(&seed), poison[q] = NAN;
    fdx_array *A = make(3, n, a), *B = make(3, n, poison), *C = make(3, n, poison);
    fdx_loop *la = NULL, *lb = NULL, *lc = NULL;
    const int w[3] = {1, 1, 1};
    const int64_t lo[3] = {1, 1, 1}, hi[3] = {NX - 1, NY - 1, NZ - 1};
    CHECK_OK(fdx_loop_create(ctx, "i,j,k", &la));
    CHECK_OK(fdx_loop_on(la, A, NULL));
    CHECK_OK(fdx_loop_array(la, "A", A, FDX_READ_WRITE));
    CHECK_OK(fdx_loop_across(la, w));
    CHECK_OK(fdx_loop_body(la, "if (i > 0 && j > 0 && k > 0) A(i,j,k) = 0.25 * (A(i,j,k) + A(i-1,j,k) + A(i,j-1,k) + A(i,j,k-1));"));
    CHECK_OK(fdx_loop_create(ctx, "i,j,k", &lb));
    CHECK_OK(fdx_loop_on(lb, A, NULL));
    CHECK_OK(fdx_loop_array(lb, "A", A, FDX_READ));
    CHECK_OK(fdx_loop_array(lb, "B", B, FDX_WRITE));
    CHECK_OK(fdx_loop_reduction(lb, "s", FDX_REDUCE_SUM));
    CHECK_OK(fdx_loop_reduction(lb, "mx", FDX_REDUCE_MAXLOC));
    CHECK_OK(fdx_loop_body(lb, "B(i,j,k) = 2 * A(i,j,k) + (i > 0 ? A(i-1,j,k) : 0); s = B(i,j,k); mx = B(i,j,k);"));
    CHECK_OK(fdx_loop_create(ctx, "i,j,k", &lc));
    CHECK_OK(fdx_loop_range(lc, lo, hi));
    CHECK_OK(fdx_loop_array(lc, "A", A, FDX_READ));
    CHECK_OK(fdx_loop_array(lc, "B", B, FDX_READ));
    CHECK_OK(fdx_loop_array(lc, "C", C, FDX_WRITE));
    CHECK_OK(fdx_loop_body(lc, "C(i,j,k) = A(i+1,j,k) - B(i,j-1,k) * A(i,j,k+1);"));
    fdx_loop *all[3] = {la, lb, lc};
    for (int q = 0; q < 3; q++) {
        CHECK_OK(fdx_loop_plan_for(all[q], FDX_BACKEND_CUDA));
        CHECK_OK(fdx_loop_set_autotfm(all[q], 2));
    }
    CHECK_OK(fdx_loop_run(la, NULL));
    fdx_loop_decision d;
    CHECK_OK(fdx_loop_plan(lb, FDX_BACKEND_CUDA, &d));
    CHECK(d.diag_index == 1 && d.thread_index == 0 && !d.array[0].moved && d.array[1].moved && d.array[1].relabel &&
              d.array[1].to.diag == FDX_DIAG_ANTI,
          "B walks A's anti-diagonals, B relabelled (diagonal index %d, A moved %d, B relabel %d: %s)", d.diag_index,
          d.array[0].moved, d.array[1].relabel, d.array[1].why);
    CHECK_OK(fdx_loop_run(lb, NULL));
    CHECK_OK(fdx_loop_plan(lc, FDX_BACKEND_CUDA, &d));
    CHECK(d.diag_index == 1 && d.array[2].moved && !d.array[2].relabel, "C (interior only) is moved, not relabelled");
    CHECK_OK(fdx_loop_run(lc, NULL));
    CHECK_OK(fdx_loop_run(lb, NULL)); /* again: nothing moves */
    CHECK_OK(fdx_loop_run(lc, NULL));
    nvrtc_check(lb);
    nvrtc_check(lc);
    fdx_loop_moves ma, mb, mc;
    CHECK_OK(fdx_loop_move_stats(la, &ma));
    CHECK_OK(fdx_loop_move_stats(lb, &mb));
    CHECK_OK(fdx_loop_move_stats(lc, &mc));
    CHECK(ma.transforms == 1 && ma.relabels == 0 && mb.transforms == 0 && mb.relabels == 1 && mc.transforms == 1 &&
              mc.relabels == 0 && ma.bytes > 0 && mb.bytes == 0,
          "moves: ACROSS %lld+%lld, B %lld+%lld, C %lld+%lld", (long long)ma.transforms, (long long)ma.relabels,
          (long long)mb.transforms, (long long)mb.relabels, (long long)mc.transforms, (long long)mc.relabels);
    /* the nest */
    for (int k = 1; k < NZ; k++)
        for (int j = 1; j < NY; j++)
            for (int i = 1; i < NX; i++)
                a[AT(i, j, k)] = 0.25 * (a[AT(i, j, k)] + a[AT(i - 1, j, k)] + a[AT(i, j - 1, k)] + a[AT(i, j, k - 1)]);
    double s = 0, mx = -1e300;
    int64_t lmx[3] = {0};
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                double v = 2 * a[AT(i, j, k)] + (i > 0 ? a[AT(i - 1, j, k)] : 0);
                rb[AT(i, j, k)] = v;
                s += v;
                if (v > mx) mx = v, lmx[0] = i, lmx[1] = j, lmx[2] = k;
            }
    for (size_t q = 0; q < cnt; q++) rc[q] = NAN;
    for (int k = 1; k < NZ - 1; k++)
        for (int j = 1; j < NY - 1; j++)
            for (int i = 1; i < NX - 1; i++) rc[AT(i, j, k)] = a[AT(i + 1, j, k)] - rb[AT(i, j - 1, k)] * a[AT(i, j, k + 1)];
    CHECK_OK(fdx_array_get(A, got));
    CHECK(max_rel(got, a, cnt) <= 1e-12, "ACROSS under the anti-diagonal: %.3g", max_rel(got, a, cnt));
    CHECK_OK(fdx_array_get(B, got));
    CHECK(max_rel(got, rb, cnt) <= 1e-12, "B written whole after a relabel: %.3g", max_rel(got, rb, cnt));
    CHECK_OK(fdx_array_get(C, got));
    CHECK(same_or_poisoned(got, rc, cnt), "C (interior, poisoned rest kept through its move) differs from the nest");
    check_sum_maxloc(lb, s, cnt, mx, lmx, "over the diagonals");
    for (int q = 0; q < 3; q++) fdx_loop_destroy(&all[q]);
    fdx_array_destroy(&A);
    fdx_array_destroy(&B);
    fdx_array_destroy(&C);
    free(a), free(poison), free(rb), free(rc), free(got);
}

/* With a context stream, loops without reductions return once queued;
   the runs stay in order on that stream and the results are the nest's
   (fdx_array_get waits for the context's stream). */
static void test_ctx_stream(void)
{
    const fdx_backend *be = fdx_ctx_ops(ctx);
    void *stream = NULL;
    CHECK_OK(be->stream_create(&stream));
    CHECK_OK(fdx_ctx_set_stream(ctx, stream));
    const int64_t n[3] = {NX, NY, NZ};
    size_t cnt = NX * NY * NZ;
    double *a = malloc(cnt * 8), *got = malloc(cnt * 8);
    for (size_t q = 0; q < cnt; q++) a[q] = fdx_test_rand(&seed);
    fdx_array *A = make(3, n, a);
    fdx_loop *l = NULL, *r = NULL;
    CHECK_OK(fdx_loop_create(ctx, "i,j,k", &l));
    CHECK_OK(fdx_loop_on(l, A, NULL));
    CHECK_OK(fdx_loop_array(l, "A", A, FDX_READ_WRITE));
    CHECK_OK(fdx_loop_body(l, "A(i,j,k) = 2 * A(i,j,k) + 1;")); /* exact with or without FMA */
    CHECK_OK(fdx_loop_create(ctx, "i,j,k", &r));
    CHECK_OK(fdx_loop_on(r, A, NULL));
    CHECK_OK(fdx_loop_array(r, "A", A, FDX_READ));
    CHECK_OK(fdx_loop_reduction(r, "s", FDX_REDUCE_MAX));
    CHECK_OK(fdx_loop_body(r, "s = A(i,j,k);"));
    for (int q = 0; q < 3; q++) CHECK_OK(fdx_loop_run(l, NULL));
    CHECK_OK(fdx_loop_run(r, NULL)); /* a reduction waits */
    double mx = -1e300, v = 0;
    for (size_t q = 0; q < cnt; q++) {
        a[q] = 2 * (2 * (2 * a[q] + 1) + 1) + 1;
        mx = a[q] > mx ? a[q] : mx;
    }
    CHECK_OK(fdx_loop_result(r, "s", &v, NULL));
    CHECK(v == mx, "max after 3 queued runs on the context stream: %g vs %g", v, mx);
    CHECK_OK(fdx_loop_run(l, NULL));
    CHECK_OK(fdx_array_get(A, got));
    for (size_t q = 0; q < cnt; q++) a[q] = 2 * a[q] + 1;
    CHECK(memcmp(a, got, cnt * 8) == 0, "loop queued on the context stream, then fdx_array_get");
    CHECK_OK(fdx_ctx_set_stream(ctx, NULL));
    be->stream_destroy(stream);
    fdx_loop_destroy(&l);
    fdx_loop_destroy(&r);
    fdx_array_destroy(&A);
    free(a), free(got);
}

static void test_errors(void)
{
    const int64_t n[3] = {8, 8, 8};
    fdx_array *A = make(3, n, NULL);
    fdx_loop *l = NULL;
    CHECK_FAILS(fdx_loop_create(ctx, "i,j,k,l,m", &l), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_loop_create(ctx, "i,2j", &l), FDX_ERR_INVALID);
    CHECK_OK(fdx_loop_create(ctx, "i,j,k", &l));
    CHECK_FAILS(fdx_loop_array(l, "i", A, FDX_READ), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_loop_run(l, NULL), FDX_ERR_INVALID); /* no body */
    CHECK_OK(fdx_loop_on(l, A, NULL));
    CHECK_OK(fdx_loop_array(l, "A", A, FDX_WRITE));
    CHECK_OK(fdx_loop_name(l, "broken"));
    CHECK_OK(fdx_loop_body(l, "double x = 1;\nA(i,j,k) = x +;\n"));
    CHECK_FAILS(fdx_loop_run(l, NULL), FDX_ERR_COMPILE);
    CHECK(strstr(fdx_last_error(), "broken body:2") || strstr(fdx_last_error(), "broken body(2)"), "compiler message with the body's line: %s", fdx_last_error());
    CHECK_OK(fdx_loop_body(l, "A(i,j) = 1;"));
    CHECK_FAILS(fdx_loop_run(l, NULL), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "rank 3"), "rank mismatch named: %s", fdx_last_error());
    fdx_loop_destroy(&l);
    fdx_array_destroy(&A);
}

/* On CUDA: actuality; copies happen only when the other side holds the
   current copy. */
static void test_actuality(void)
{
    const int64_t n[3] = {16, 8, 4};
    double h[512], back[512];
    for (int q = 0; q < 512; q++) h[q] = fdx_test_rand(&seed);
    fdx_array *A = NULL;
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, n, FDX_ON_HOST, &A));
    if (!A) return;
    memcpy(fdx_array_host(A), h, sizeof h);
    CHECK(fdx_array_valid(A) == 0, "new array untracked");
    fdx_loop *l = NULL;
    CHECK_OK(fdx_loop_create(ctx, "i,j,k", &l));
    CHECK_OK(fdx_loop_on(l, A, NULL));
    CHECK_OK(fdx_loop_array(l, "A", A, FDX_READ_WRITE));
    CHECK_OK(fdx_loop_body(l, "A(i,j,k) = 2 * A(i,j,k);"));
    CHECK_OK(fdx_loop_run(l, NULL)); /* copies the host data over */
    CHECK(fdx_array_valid(A) == FDX_ON_DEVICE, "device current after the loop");
    CHECK(((double *)fdx_array_host(A))[5] == h[5], "host copy untouched (stale)");
    CHECK_OK(fdx_array_get(A, back));
    CHECK(back[5] == 2 * h[5] && back[511] == 2 * h[511], "get reads the device copy");
    CHECK_OK(fdx_array_put(A, h));
    CHECK_OK(fdx_loop_run(l, NULL));
    CHECK_OK(fdx_array_get(A, back));
    CHECK(back[7] == 2 * h[7], "put then loop: %g vs %g", back[7], 2 * h[7]);
    fdx_loop_destroy(&l);
    fdx_array_destroy(&A);
}

/* The CUDA kernel shapes (FDX_LOOP_KERNEL, FDX_LOOP_PPT, FDX_LOOP_BLOCK,
   FDX_LOOP_LINES; the CPU backend ignores them): a 2D loop on an odd
   300 x 70 grid (many blocks: the grid kernel's partial slots, the launch
   cap for reductions) and a rank-4 loop, each with sum, maxloc and minloc
   and a poisoned output, against the sequential nest. */
static void test_kernel_shape(const char *what)
{
    enum { MX = 300, MY = 70 };
    const int64_t n[2] = {MX, MY};
    size_t cnt = MX * MY;
    double *a = malloc(cnt * 8), *b = malloc(cnt * 8), *ref = malloc(cnt * 8), *got = malloc(cnt * 8);
    for (size_t q = 0; q < cnt; q++) a[q] = fdx_test_rand(&seed), b[q] = ref[q] = NAN;
    fdx_array *A = make(2, n, a), *B = make(2, n, b);
    fdx_loop *l = NULL;
    CHECK_OK(fdx_loop_create(ctx, "i,j", &l));
    CHECK_OK(fdx_loop_range(l, (int64_t[]){1, 2}, (int64_t[]){MX - 2, MY - 1}));
    CHECK_OK(fdx_loop_array(l, "A", A, FDX_READ));
    CHECK_OK(fdx_loop_array(l, "B", B, FDX_WRITE));
    CHECK_OK(fdx_loop_reduction(l, "s", FDX_REDUCE_SUM));
    CHECK_OK(fdx_loop_reduction(l, "mx", FDX_REDUCE_MAXLOC));
    CHECK_OK(fdx_loop_reduction(l, "mn", FDX_REDUCE_MINLOC));
    CHECK_OK(fdx_loop_body(l, "double v = A(i,j) - 0.5 * (A(i-1,j) + A(i+1,j)) + 0.25 * A(i,j-2) * A(i,j+1);\n"
                              "B(i,j) = v; s += v; mx = v; mn = v;"));
    CHECK_OK(fdx_loop_run(l, NULL));
    double s = 0, mx = -1e300, mn = 1e300;
    int64_t lmx[2] = {0}, lmn[2] = {0};
    for (int j = 2; j < MY - 1; j++)
        for (int i = 1; i < MX - 2; i++) {
            double v = a[i + MX * j] - 0.5 * (a[i - 1 + MX * j] + a[i + 1 + MX * j]) +
                       0.25 * a[i + MX * (j - 2)] * a[i + MX * (j + 1)];
            ref[i + MX * j] = v;
            s += v;
            if (v > mx) mx = v, lmx[0] = i, lmx[1] = j;
            if (v < mn) mn = v, lmn[0] = i, lmn[1] = j;
        }
    CHECK_OK(fdx_array_get(B, got));
    CHECK(same_or_poisoned(got, ref, cnt), "%s: 2D loop differs from the nest (or wrote outside its range)", what);
    double v;
    int64_t loc[2];
    CHECK_OK(fdx_loop_result(l, "s", &v, NULL));
    CHECK(fabs(v - s) <= 1e-12 * cnt, "%s: sum %.17g vs %.17g", what, v, s);
    CHECK_OK(fdx_loop_result(l, "mx", &v, loc));
    CHECK(v == mx && loc[0] == lmx[0] && loc[1] == lmx[1], "%s: maxloc %g at %lld,%lld vs %g", what, v,
          (long long)loc[0], (long long)loc[1], mx);
    CHECK_OK(fdx_loop_result(l, "mn", &v, loc));
    CHECK(v == mn && loc[0] == lmn[0] && loc[1] == lmn[1], "%s: minloc %g vs %g", what, v, mn);
    fdx_loop_destroy(&l);
    fdx_array_destroy(&A);
    fdx_array_destroy(&B);
    /* rank 4, fast axis of 5 points: blocks of 32 x 8 threads */
    const int64_t n4[4] = {5, 9, 7, 6};
    size_t c4 = 5 * 9 * 7 * 6;
    for (size_t q = 0; q < c4; q++) ref[q] = b[q] = NAN;
    A = make(4, n4, a), B = make(4, n4, b);
    CHECK_OK(fdx_loop_create(ctx, "i,j,k,m", &l));
    CHECK_OK(fdx_loop_range(l, (int64_t[]){0, 1, 1, 0}, (int64_t[]){5, 8, 6, 6}));
    CHECK_OK(fdx_loop_array(l, "A", A, FDX_READ));
    CHECK_OK(fdx_loop_array(l, "B", B, FDX_WRITE));
    CHECK_OK(fdx_loop_reduction(l, "s", FDX_REDUCE_SUM));
    CHECK_OK(fdx_loop_body(l, "double v = A(i,j,k,m) + A(i,j-1,k,m) * A(i,j,k+1,m) - m;\nB(i,j,k,m) = v; s += v;"));
    CHECK_OK(fdx_loop_run(l, NULL));
    s = 0;
#define AT4(i, j, k, m) ((i) + 5 * ((j) + 9 * ((k) + 7 * (m))))
    for (int m = 0; m < 6; m++)
        for (int k = 1; k < 6; k++)
            for (int j = 1; j < 8; j++)
                for (int i = 0; i < 5; i++) {
                    double w = a[AT4(i, j, k, m)] + a[AT4(i, j - 1, k, m)] * a[AT4(i, j, k + 1, m)] - m;
                    ref[AT4(i, j, k, m)] = w;
                    s += w;
                }
#undef AT4
    CHECK_OK(fdx_array_get(B, got));
    CHECK(same_or_poisoned(got, ref, c4), "%s: rank-4 loop differs from the nest", what);
    CHECK_OK(fdx_loop_result(l, "s", &v, NULL));
    CHECK(fabs(v - s) <= 1e-12 * c4, "%s: rank-4 sum %.17g vs %.17g", what, v, s);
    fdx_loop_destroy(&l);
    fdx_array_destroy(&A);
    fdx_array_destroy(&B);
    free(a), free(b), free(ref), free(got);
}

/* The tests of parallel loops again under each CUDA kernel shape the
   knobs select, and of ACROSS loops under each block size (on the CPU
   backend once: the knobs change nothing there). */
static void test_kernel_shapes(void)
{
    static const char *const knobs[][2] = {
        {NULL, NULL},          {"FDX_LOOP_KERNEL", "flat"}, {"FDX_LOOP_PPT", "1"},    {"FDX_LOOP_PPT", "2"},
        {"FDX_LOOP_PPT", "8"}, {"FDX_LOOP_BLOCK", "32"},    {"FDX_LOOP_BLOCK", "256"}, {"FDX_LOOP_GRAPH", "0"},
        {"FDX_LOOP_DIAG", "lines"},
    };
    int variants = strcmp(LOOP_TEST_BACKEND, "cuda") == 0 ? (int)(sizeof knobs / sizeof *knobs) : 1;
    for (int v = 0; v < variants; v++) {
        char what[64];
        snprintf(what, sizeof what, "%s=%s", knobs[v][0] ? knobs[v][0] : "default", knobs[v][1] ? knobs[v][1] : "");
        if (knobs[v][0]) setenv(knobs[v][0], knobs[v][1], 1);
        test_kernel_shape(what);
        if (v && strncmp(knobs[v][0], "FDX_LOOP_PPT", 12) == 0) test_parallel_and_reductions();
        if (v && strcmp(knobs[v][0], "FDX_LOOP_KERNEL") == 0) test_parallel_and_reductions();
        if (v && strcmp(knobs[v][0], "FDX_LOOP_GRAPH") == 0) test_replay();
        if (v && strcmp(knobs[v][0], "FDX_LOOP_DIAG") == 0) test_diag_walk();
        if (v && strcmp(knobs[v][0], "FDX_LOOP_BLOCK") == 0) {
            test_across();
            setenv("FDX_LOOP_LINES", "0", 1);
            test_across();
            unsetenv("FDX_LOOP_LINES");
        }
        if (knobs[v][0]) unsetenv(knobs[v][0]);
    }
}

int main(void)
{
    if (strcmp(LOOP_TEST_BACKEND, "cuda") == 0 && fdx_cuda_device_count() == 0)
        return fdx_test_skip(LOOP_TEST_NAME, "no CUDA device");
    ctx = fdx_test_ctx(LOOP_TEST_BACKEND);
    if (!ctx) return fdx_test_skip(LOOP_TEST_NAME, "no context on this backend");
    test_parallel_and_reductions();
    test_across();
    test_across_2d();
    test_replay();
    test_planner_seeds();
    test_diag_walk();
    test_kernel_shapes();
    test_ctx_stream();
    test_errors();
    if (strcmp(LOOP_TEST_BACKEND, "cuda") == 0) test_actuality();
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish(LOOP_TEST_NAME);
}
