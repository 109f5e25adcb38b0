/* Loops with DVMH's remaining single-unit meanings (test_loop_order_gpu.c
   runs the same on CUDA): descending index order and per-index ACROSS widths
   low:high (NAS LU's lower and upper sweeps on a rank-4 array u(5,nx,ny,nz)),
   mixed orders under the GPU's diagonal layouts, accesses that ACROSS cannot
   run refused with the access named (box-shaped, beyond the widths, not
   index +- constant), typed reductions (int, int64, float; sum, product,
   max, min, and, or, maxloc), and arrays aligned with a shift; every
   result against the sequential nest written here. */
#include "loop_test.h"

#include <string.h>

#ifndef LOOP_TEST_BACKEND
#define LOOP_TEST_BACKEND "cpu"
#define LOOP_TEST_NAME "test_loop_order"
#endif

#define NX 11
#define NY 9
#define NZ 7
#define NC 5
#define AT(i, j, k) ((i) + NX * ((j) + NY * (k)))
#define AT4(m, i, j, k) ((m) + NC * AT(i, j, k))

static uint64_t seed = 777;

/* NAS LU's shape of work: u(5,nx,ny,nz), a lower sweep (ascending, reads
   i-1, j-1, k-1 of every component: widths 1:0) and an upper sweep
   (descending in every index, reads i+1, j+1, k+1: widths 0:1). */
static void lu_ref(double *u, int upper)
{
    for (int kk = 1; kk < NZ - 1; kk++)
        for (int jj = 1; jj < NY - 1; jj++)
            for (int ii = 1; ii < NX - 1; ii++) {
                int i = upper ? NX - 1 - ii : ii, j = upper ? NY - 1 - jj : jj, k = upper ? NZ - 1 - kk : kk;
                int s = upper ? 1 : -1;
                for (int m = 0; m < NC; m++)
                    u[AT4(m, i, j, k)] = 0.3 * u[AT4(m, i, j, k)] + 0.2 * u[AT4(m, i + s, j, k)] +
                                         0.25 * u[AT4(m, i, j + s, k)] + 0.25 * u[AT4((m + 1) % NC, i, j, k + s)];
            }
}

static const char *lu_lower = "for (int m = 0; m < 5; m++)\n"
                              "  u(m,i,j,k) = 0.3 * u(m,i,j,k) + 0.2 * u(m,i-1,j,k) + 0.25 * u(m,i,j-1,k)\n"
                              "             + 0.25 * u((m+1)%5,i,j,k-1);\n";
static const char *lu_upper = "for (int m = 0; m < 5; m++)\n"
                              "  u(m,i,j,k) = 0.3 * u(m,i,j,k) + 0.2 * u(m,i+1,j,k) + 0.25 * u(m,i,j+1,k)\n"
                              "             + 0.25 * u((m+1)%5,i,j,k+1);\n";

static void test_lu_sweeps(void)
{
    const int64_t n4[4] = {NC, NX, NY, NZ};
    size_t cnt = (size_t)NC * NX * NY * NZ;
    double *u0 = malloc(cnt * 8), *ref = malloc(cnt * 8), *got = malloc(cnt * 8);
    for (size_t q = 0; q < cnt; q++) u0[q] = fdx_test_rand(&seed);
    for (int upper = 0; upper < 2; upper++)
        for (int plan = 0; plan < 2; plan++) {
            memcpy(ref, u0, cnt * 8);
            lu_ref(ref, upper);
            fdx_array *U = make(4, n4, u0);
            fdx_loop *l = NULL;
            CHECK_OK(fdx_loop_create(ctx, "i,j,k", &l));
            int64_t lo[3] = {1, 1, 1}, hi[3] = {NX - 1, NY - 1, NZ - 1};
            int one[3] = {1, 1, 1}, zero[3] = {0, 0, 0}, down[3] = {-1, -1, -1};
            CHECK_OK(fdx_loop_range(l, lo, hi));
            CHECK_OK(fdx_loop_array(l, "u", U, FDX_READ_WRITE));
            CHECK_OK(fdx_loop_across_widths(l, upper ? zero : one, upper ? one : zero));
            if (upper) CHECK_OK(fdx_loop_order(l, down));
            CHECK_OK(fdx_loop_body(l, upper ? lu_upper : lu_lower));
            if (plan) {
                CHECK_OK(fdx_loop_set_autotfm(l, 2));
                CHECK_OK(fdx_loop_plan_for(l, FDX_BACKEND_CUDA));
            }
            CHECK_OK(fdx_loop_run(l, NULL));
            nvrtc_check(l);
            CHECK_OK(fdx_array_get(U, got));
            double e = max_rel(got, ref, cnt);
            CHECK(e <= 1e-12, "LU %s sweep (GPU planning %d): max relative difference %.3g", upper ? "upper" : "lower",
                  plan, e);
            fdx_loop_destroy(&l);
            fdx_array_destroy(&U);
        }
    free(u0), free(ref), free(got);
}

/* SOR with an order per index, `sweeps` sequential nests. */
static void sor_ref(double *u, const int *dir, int sweeps)
{
    for (int s = 0; s < sweeps; s++)
        for (int kk = 1; kk < NZ - 1; kk++)
            for (int jj = 1; jj < NY - 1; jj++)
                for (int ii = 1; ii < NX - 1; ii++) {
                    int i = dir[0] > 0 ? ii : NX - 1 - ii, j = dir[1] > 0 ? jj : NY - 1 - jj,
                        k = dir[2] > 0 ? kk : NZ - 1 - kk;
                    double gs = (u[AT(i - 1, j, k)] + u[AT(i + 1, j, k)] + u[AT(i, j - 1, k)] + u[AT(i, j + 1, k)] +
                                 u[AT(i, j, k - 1)] + u[AT(i, j, k + 1)] - 0.01) / 6.0;
                    u[AT(i, j, k)] += 1.2 * (gs - u[AT(i, j, k)]);
                }
}

/* Mixed orders, pipelined sweeps, under the plain layout and the GPU's
   planned diagonals (main when the two plane axes run opposite ways). */
static void test_sor_orders(void)
{
    const int64_t n[3] = {NX, NY, NZ};
    size_t cnt = NX * NY * NZ;
    double *u0 = malloc(cnt * 8), *ref = malloc(cnt * 8), *got = malloc(cnt * 8);
    for (size_t q = 0; q < cnt; q++) u0[q] = fdx_test_rand(&seed);
    const int dirs[4][3] = {{-1, -1, -1}, {-1, 1, 1}, {1, -1, 1}, {1, 1, -1}};
    for (int v = 0; v < 4; v++)
        for (int plan = 0; plan < 2; plan++) {
            memcpy(ref, u0, cnt * 8);
            sor_ref(ref, dirs[v], 3);
            fdx_array *U = make(3, n, u0);
            fdx_loop *l = NULL;
            CHECK_OK(fdx_loop_create(ctx, "i,j,k", &l));
            int64_t lo[3] = {1, 1, 1}, hi[3] = {NX - 1, NY - 1, NZ - 1};
            int w[3] = {1, 1, 1};
            CHECK_OK(fdx_loop_range(l, lo, hi));
            CHECK_OK(fdx_loop_array(l, "U", U, FDX_READ_WRITE));
            CHECK_OK(fdx_loop_across(l, w));
            CHECK_OK(fdx_loop_order(l, dirs[v]));
            CHECK_OK(fdx_loop_body(l, "double gs = (U(i-1,j,k) + U(i+1,j,k) + U(i,j-1,k) + U(i,j+1,k)\n"
                                      "  + U(i,j,k-1) + U(i,j,k+1) - 0.01) / 6.0;\nU(i,j,k) += 1.2 * (gs - U(i,j,k));\n"));
            if (plan) {
                CHECK_OK(fdx_loop_set_autotfm(l, 2));
                CHECK_OK(fdx_loop_plan_for(l, FDX_BACKEND_CUDA));
            }
            CHECK_OK(fdx_loop_run_repeated(l, 3, NULL));
            nvrtc_check(l);
            if (plan) {
                fdx_layout now;
                CHECK_OK(fdx_array_layout(U, &now));
                fdx_diag want = dirs[v][0] != dirs[v][1] ? FDX_DIAG_MAIN : FDX_DIAG_ANTI;
                CHECK(now.diag == want, "orders %d,%d,%d: diagonal %d planned, want %d", dirs[v][0], dirs[v][1],
                      dirs[v][2], (int)now.diag, (int)want);
            }
            CHECK_OK(fdx_array_get(U, got));
            double e = max_rel(got, ref, cnt);
            CHECK(e <= 1e-12, "SOR orders %d,%d,%d (planned %d): max relative difference %.3g", dirs[v][0], dirs[v][1],
                  dirs[v][2], plan, e);
            fdx_loop_destroy(&l);
            fdx_array_destroy(&U);
        }
    free(u0), free(ref), free(got);
}

/* A refused body: the run fails with FDX_ERR_INVALID naming `access`. */
static void refused(fdx_array *U, fdx_array *F, const int *low, const int *high, const char *body, const char *access)
{
    fdx_loop *l = NULL;
    CHECK_OK(fdx_loop_create(ctx, "i,j,k", &l));
    int64_t lo[3] = {2, 2, 2}, hi[3] = {NX - 2, NY - 2, NZ - 2};
    CHECK_OK(fdx_loop_range(l, lo, hi));
    CHECK_OK(fdx_loop_array(l, "U", U, FDX_READ_WRITE));
    CHECK_OK(fdx_loop_array(l, "F", F, FDX_READ));
    CHECK_OK(fdx_loop_across_widths(l, low, high));
    CHECK_OK(fdx_loop_body(l, body));
    CHECK_FAILS(fdx_loop_run(l, NULL), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), access) != NULL, "refusal names %s: %s", access, fdx_last_error());
    fdx_loop_destroy(&l);
}

/* Box-shaped dependences used to run and differ from the nest by 0.077:
   now refused; a read-only array may be read anywhere. */
static void test_refusals(void)
{
    const int64_t n[3] = {NX, NY, NZ};
    size_t cnt = NX * NY * NZ;
    double *u0 = malloc(cnt * 8);
    for (size_t q = 0; q < cnt; q++) u0[q] = fdx_test_rand(&seed);
    fdx_array *U = make(3, n, u0), *F = make(3, n, u0);
    int one[3] = {1, 1, 1}, lo1[3] = {1, 1, 1}, hi0[3] = {0, 0, 0};
    refused(U, F, one, one, "U(i,j,k) = 0.5 * (U(i,j+1,k-1) + U(i-1,j,k));", "U(i,j+1,k-1)");
    refused(U, F, one, one, "U(i,j,k) = U(i-2,j,k);", "U(i-2,j,k)");
    refused(U, F, lo1, hi0, "U(i,j,k) = U(i,j+1,k);", "U(i,j+1,k)"); /* high width 0 */
    refused(U, F, one, one, "U(i,j,k) = U(2*i/2,j,k);", "U(2*i/2,j,k)");
    /* accepted: a read-only array at a box offset, a written one star-shaped */
    fdx_loop *l = NULL;
    CHECK_OK(fdx_loop_create(ctx, "i,j,k", &l));
    int64_t lo[3] = {1, 1, 1}, hi[3] = {NX - 1, NY - 1, NZ - 1};
    CHECK_OK(fdx_loop_range(l, lo, hi));
    CHECK_OK(fdx_loop_array(l, "U", U, FDX_READ_WRITE));
    CHECK_OK(fdx_loop_array(l, "F", F, FDX_READ));
    CHECK_OK(fdx_loop_across(l, one));
    CHECK_OK(fdx_loop_body(l, "U(i,j,k) = 0.5 * (U(i - 1, j, k) + F(i+1,j-1,k+1));"));
    CHECK_OK(fdx_loop_run(l, NULL));
    CHECK_FAILS(fdx_loop_order(l, (int[]){1, 0, 1}), FDX_ERR_INVALID);
    fdx_loop_destroy(&l);
    fdx_array_destroy(&U);
    fdx_array_destroy(&F);
    free(u0);
}

/* Typed reductions against the nest; maxloc ties go to the first
   iteration in the loop's order (descending here). */
static void test_typed_reductions(void)
{
    const int64_t n[3] = {NX, NY, NZ};
    size_t cnt = NX * NY * NZ;
    double *a = malloc(cnt * 8);
    for (size_t q = 0; q < cnt; q++) a[q] = (double)(int)(fdx_test_rand(&seed) * 8) - 2; /* ties: few values */
    fdx_array *A = make(3, n, a);
    fdx_loop *l = NULL;
    CHECK_OK(fdx_loop_create(ctx, "i,j,k", &l));
    CHECK_OK(fdx_loop_on(l, A, NULL));
    CHECK_OK(fdx_loop_array(l, "A", A, FDX_READ));
    CHECK_OK(fdx_loop_reduction_typed(l, "isum", FDX_REDUCE_SUM, FDX_INT32));
    CHECK_OK(fdx_loop_reduction_typed(l, "lsum", FDX_REDUCE_SUM, FDX_INT64));
    CHECK_OK(fdx_loop_reduction_typed(l, "iprod", FDX_REDUCE_PROD, FDX_INT64));
    CHECK_OK(fdx_loop_reduction_typed(l, "imax", FDX_REDUCE_MAX, FDX_INT32));
    CHECK_OK(fdx_loop_reduction_typed(l, "imin", FDX_REDUCE_MIN, FDX_INT64));
    CHECK_OK(fdx_loop_reduction_typed(l, "band", FDX_REDUCE_AND, FDX_INT32));
    CHECK_OK(fdx_loop_reduction_typed(l, "bor", FDX_REDUCE_OR, FDX_INT64));
    CHECK_OK(fdx_loop_reduction_typed(l, "fsum", FDX_REDUCE_SUM, FDX_FLOAT32));
    CHECK_OK(fdx_loop_reduction_typed(l, "dprod", FDX_REDUCE_PROD, FDX_FLOAT64));
    CHECK_OK(fdx_loop_reduction_typed(l, "mxl", FDX_REDUCE_MAXLOC, FDX_INT32));
    CHECK_OK(fdx_loop_reduction(l, "mnl", FDX_REDUCE_MINLOC));
    CHECK_FAILS(fdx_loop_reduction_typed(l, "fand", FDX_REDUCE_AND, FDX_FLOAT64), FDX_ERR_INVALID);
    CHECK_OK(fdx_loop_order(l, (int[]){-1, 1, -1}));
    CHECK_OK(fdx_loop_body(l, "int v = (int)A(i,j,k);\n"
                              "isum = v; lsum = v * 1000000000LL; iprod = (i == 3 && k == 2) ? v + 3 : 1;\n"
                              "imax = v * (int)j; imin = v - (long long)i; band = ~(1 << ((v + 2) & 7)); bor = 1LL << ((v + 10) & 31);\n"
                              "fsum = 0.5f; dprod = (i == 1 && j == 1) ? 1.5 : 1.0; mxl = v; mnl = A(i,j,k);\n"));
    CHECK_OK(fdx_loop_run(l, NULL));
    nvrtc_check(l);
    long long isum = 0, lsum = 0, iprod = 1, imax = INT64_MIN, imin = INT64_MAX, band = -1, bor = 0;
    double dprod = 1, mx = -1e300, mn = 1e300;
    int64_t lmx[3] = {0}, lmn[3] = {0};
    for (int kk = 0; kk < NZ; kk++)
        for (int j = 0; j < NY; j++)
            for (int ii = 0; ii < NX; ii++) {
                int i = NX - 1 - ii, k = NZ - 1 - kk, v = (int)a[AT(i, j, k)];
                isum += v, lsum += v * 1000000000LL;
                iprod *= (i == 3 && k == 2) ? v + 3 : 1;
                imax = v * j > imax ? v * j : imax;
                imin = v - i < imin ? v - i : imin;
                band &= ~(1 << ((v + 2) & 7));
                bor |= 1LL << ((v + 10) & 31);
                dprod *= (i == 1 && j == 1) ? 1.5 : 1.0;
                if (v > mx) mx = v, lmx[0] = i, lmx[1] = j, lmx[2] = k;
                if (a[AT(i, j, k)] < mn) mn = a[AT(i, j, k)], lmn[0] = i, lmn[1] = j, lmn[2] = k;
            }
    int64_t iv, loc[3];
    double dv;
    CHECK_OK(fdx_loop_result_int(l, "isum", &iv, NULL));
    CHECK(iv == isum, "int sum %lld vs %lld", (long long)iv, isum);
    CHECK_OK(fdx_loop_result_int(l, "lsum", &iv, NULL));
    CHECK(iv == lsum, "int64 sum %lld vs %lld", (long long)iv, lsum);
    CHECK_OK(fdx_loop_result_int(l, "iprod", &iv, NULL));
    CHECK(iv == iprod, "int64 product %lld vs %lld", (long long)iv, iprod);
    CHECK_OK(fdx_loop_result_int(l, "imax", &iv, NULL));
    CHECK(iv == imax, "int max %lld vs %lld", (long long)iv, imax);
    CHECK_OK(fdx_loop_result_int(l, "imin", &iv, NULL));
    CHECK(iv == imin, "int64 min %lld vs %lld", (long long)iv, imin);
    CHECK_OK(fdx_loop_result_int(l, "band", &iv, NULL));
    CHECK(iv == band, "and %lld vs %lld", (long long)iv, band);
    CHECK_OK(fdx_loop_result_int(l, "bor", &iv, NULL));
    CHECK(iv == bor, "or %lld vs %lld", (long long)iv, bor);
    CHECK_OK(fdx_loop_result(l, "fsum", &dv, NULL));
    CHECK(dv == 0.5 * (double)cnt, "float sum %g vs %g", dv, 0.5 * (double)cnt);
    CHECK_OK(fdx_loop_result(l, "dprod", &dv, NULL));
    CHECK(dv == dprod, "double product %.17g vs %.17g", dv, dprod);
    CHECK_FAILS(fdx_loop_result_int(l, "dprod", &iv, NULL), FDX_ERR_INVALID);
    CHECK_OK(fdx_loop_result_int(l, "mxl", &iv, loc));
    CHECK(iv == (int64_t)mx && loc[0] == lmx[0] && loc[1] == lmx[1] && loc[2] == lmx[2],
          "int maxloc %lld at %lld,%lld,%lld vs %g at %lld,%lld,%lld", (long long)iv, (long long)loc[0],
          (long long)loc[1], (long long)loc[2], mx, (long long)lmx[0], (long long)lmx[1], (long long)lmx[2]);
    CHECK_OK(fdx_loop_result(l, "mnl", &dv, loc));
    CHECK(dv == mn && loc[0] == lmn[0] && loc[1] == lmn[1] && loc[2] == lmn[2], "minloc %g at %lld,%lld,%lld", dv,
          (long long)loc[0], (long long)loc[1], (long long)loc[2]);
    fdx_loop_destroy(&l);
    fdx_array_destroy(&A);
    free(a);
}

/* ALIGN with a shift: B holds the interior only, element 0 at index (1,1). */
static void test_origin(void)
{
    const int64_t n[2] = {NX, NY}, nb[2] = {NX - 2, NY - 2};
    double a[NX * NY], got[(NX - 2) * (NY - 2)];
    for (int q = 0; q < NX * NY; q++) a[q] = fdx_test_rand(&seed);
    fdx_array *A = make(2, n, a), *B = make(2, nb, NULL);
    fdx_loop *l = NULL;
    CHECK_OK(fdx_loop_create(ctx, "i,j", &l));
    int64_t lo[2] = {1, 1}, hi[2] = {NX - 1, NY - 1}, org[2] = {1, 1};
    CHECK_OK(fdx_loop_range(l, lo, hi));
    CHECK_OK(fdx_loop_array(l, "A", A, FDX_READ));
    CHECK_OK(fdx_loop_array(l, "B", B, FDX_WRITE));
    CHECK_OK(fdx_loop_array_origin(l, "B", org));
    CHECK_FAILS(fdx_loop_array_origin(l, "C", org), FDX_ERR_INVALID);
    CHECK_OK(fdx_loop_body(l, "B(i,j) = A(i+1,j) - A(i,j-1) + 1000.0 * j + i;"));
    CHECK_OK(fdx_loop_run(l, NULL));
    nvrtc_check(l);
    CHECK_OK(fdx_array_get(B, got));
    int bad = 0;
    for (int j = 1; j < NY - 1; j++)
        for (int i = 1; i < NX - 1; i++)
            bad += got[(i - 1) + (NX - 2) * (j - 1)] != a[(i + 1) + NX * j] - a[i + NX * (j - 1)] + 1000.0 * j + i;
    CHECK(bad == 0, "shifted array: %d points differ", bad);
    fdx_loop_destroy(&l);
    fdx_array_destroy(&A);
    fdx_array_destroy(&B);
}

int main(void)
{
    if (strcmp(LOOP_TEST_BACKEND, "cuda") == 0 && fdx_cuda_device_count() == 0)
        return fdx_test_skip(LOOP_TEST_NAME, "no CUDA device");
    ctx = fdx_test_ctx(LOOP_TEST_BACKEND);
    if (!ctx) return fdx_test_skip(LOOP_TEST_NAME, "no context on this backend");
    test_refusals();
    test_lu_sweeps();
    test_sor_orders();
    test_typed_reductions();
    test_origin();
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish(LOOP_TEST_NAME);
}
