/* The Laplacian on the CPU backend: exact on quadratics, equal to a reference
   loop on random inputs, boundaries untouched, second-order convergence, and
   argument errors. */
#include "fdx_test.h"
#include "laplacian_ref.h"

#include <float.h>
#include <string.h>

static fdx_ctx *ctx;

static double get(fdx_array *a, int64_t q)
{
    void *p = fdx_array_host(a);
    return fdx_array_dtype(a) == FDX_FLOAT64 ? ((double *)p)[q] : (double)((float *)p)[q];
}
static void set(fdx_array *a, int64_t q, double v)
{
    void *p = fdx_array_host(a);
    if (fdx_array_dtype(a) == FDX_FLOAT64) ((double *)p)[q] = v;
    else ((float *)p)[q] = (float)v;
}
static int interior(int rank, const int64_t *n, int64_t i, int64_t j, int64_t k)
{
    return i > 0 && i < n[0] - 1 && j > 0 && j < n[1] - 1 && (rank == 2 || (k > 0 && k < n[2] - 1));
}

/* Runs the Laplacian of `fn` (or random values if fn is NULL) and compares
   with the reference loop; returns the max error against `exact` if given. */
static void check_case(fdx_dtype dt, int rank, const int64_t *n, int random, uint64_t seed)
{
    fdx_array *in = NULL, *out = NULL;
    CHECK_OK(fdx_array_create(ctx, dt, rank, n, FDX_ON_HOST | FDX_ON_DEVICE, &in));
    CHECK_OK(fdx_array_create(ctx, dt, rank, n, FDX_ON_HOST | FDX_ON_DEVICE, &out));
    if (!in || !out) goto done;
    double h[3] = {0.5, 0.25, 2.0};
    int64_t nz = rank == 3 ? n[2] : 1, total = n[0] * n[1] * nz;
    double *uref = malloc(sizeof(double) * (size_t)total), *fref = malloc(sizeof(double) * (size_t)total);
    for (int64_t k = 0; k < nz; k++)
        for (int64_t j = 0; j < n[1]; j++)
            for (int64_t i = 0; i < n[0]; i++) {
                int64_t q = i + n[0] * (j + n[1] * k);
                double x = i * h[0], y = j * h[1], z = k * h[2];
                double v = random ? fdx_test_rand(&seed) : 0.5 * x * x - y * y + 0.25 * z * z + x * y - 3 * z + 1;
                set(in, q, v);
                uref[q] = get(in, q); /* the reference sees the rounded input */
            }
    CHECK_OK(fdx_array_fill_host(out, NAN));
    CHECK_OK(fdx_array_to_device(in));
    CHECK_OK(fdx_array_to_device(out));
    CHECK_OK(fdx_laplacian_apply(out, in, h, NULL));
    CHECK_OK(fdx_array_to_host(out));
    laplacian_ref(rank, n, h, uref, fref);
    double exact = rank == 3 ? 1.0 - 2.0 + 0.5 : 1.0 - 2.0;
    double eps = dt == FDX_FLOAT64 ? DBL_EPSILON : FLT_EPSILON, err_ref = 0, err_exact = 0;
    int64_t unwritten = 0, clobbered = 0;
    for (int64_t k = 0; k < nz; k++)
        for (int64_t j = 0; j < n[1]; j++)
            for (int64_t i = 0; i < n[0]; i++) {
                int64_t q = i + n[0] * (j + n[1] * k);
                double v = get(out, q);
                if (!interior(rank, n, i, j, k)) {
                    clobbered += !isnan(v);
                    continue;
                }
                if (isnan(v)) {
                    unwritten++;
                    continue;
                }
                err_ref = fmax(err_ref, fabs(v - fref[q]));
                err_exact = fmax(err_exact, fabs(v - exact));
            }
    /* Rounding bound: 3 terms per axis of size |u|/h^2, |u| <= umax. */
    double umax = 0;
    for (int64_t q = 0; q < total; q++) umax = fmax(umax, fabs(uref[q]));
    double tol = 16 * eps * umax * (4 / (h[0] * h[0]) + 4 / (h[1] * h[1]) + (rank == 3 ? 4 / (h[2] * h[2]) : 0));
    CHECK(unwritten == 0 && clobbered == 0, "%s %lldx%lldx%lld: %lld unwritten, %lld boundary points written",
          fdx_dtype_name(dt), (long long)n[0], (long long)n[1], (long long)nz, (long long)unwritten,
          (long long)clobbered);
    CHECK(err_ref <= tol, "%s %lldx%lldx%lld %s: error vs reference %.3g > %.3g", fdx_dtype_name(dt),
          (long long)n[0], (long long)n[1], (long long)nz, random ? "random" : "quadratic", err_ref, tol);
    if (!random)
        CHECK(err_exact <= tol, "%s quadratic: error vs exact %.3g > %.3g", fdx_dtype_name(dt), err_exact, tol);
    free(uref);
    free(fref);
done:
    fdx_array_destroy(&in);
    fdx_array_destroy(&out);
}

/* Max error of L sin(x)cos(2y)exp(z/2) on [0,1]^3 with n points per axis. */
static double smooth_error(int64_t npts)
{
    int64_t n[3] = {npts, npts, npts};
    double h = 1.0 / (double)(npts - 1), hh[3] = {h, h, h}, err = 0;
    fdx_array *in = NULL, *out = NULL;
    fdx_array_create(ctx, FDX_FLOAT64, 3, n, FDX_ON_HOST, &in);
    fdx_array_create(ctx, FDX_FLOAT64, 3, n, FDX_ON_HOST, &out);
    if (!in || !out) return NAN;
    double *u = fdx_array_host(in), *f = fdx_array_host(out);
    for (int64_t k = 0; k < npts; k++)
        for (int64_t j = 0; j < npts; j++)
            for (int64_t i = 0; i < npts; i++) u[i + npts * (j + npts * k)] = sin(i * h) * cos(2 * j * h) * exp(0.5 * k * h);
    if (fdx_laplacian_apply(out, in, hh, NULL) != FDX_OK) err = NAN;
    for (int64_t k = 1; k < npts - 1; k++)
        for (int64_t j = 1; j < npts - 1; j++)
            for (int64_t i = 1; i < npts - 1; i++) {
                double x = i * h, y = j * h, z = k * h;
                double exact = (-1 - 4 + 0.25) * sin(x) * cos(2 * y) * exp(0.5 * z);
                err = fmax(err, fabs(f[i + npts * (j + npts * k)] - exact));
            }
    fdx_array_destroy(&in);
    fdx_array_destroy(&out);
    return err;
}

static void test_errors(void)
{
    int64_t n[3] = {8, 8, 8}, m[3] = {8, 9, 8}, thin[3] = {8, 2, 8};
    fdx_array *a = NULL, *b = NULL, *c = NULL, *f = NULL, *t = NULL, *t2 = NULL;
    fdx_array_create(ctx, FDX_FLOAT64, 3, n, FDX_ON_HOST, &a);
    fdx_array_create(ctx, FDX_FLOAT64, 3, n, FDX_ON_HOST, &b);
    fdx_array_create(ctx, FDX_FLOAT64, 3, m, FDX_ON_HOST, &c);
    fdx_array_create(ctx, FDX_FLOAT32, 3, n, FDX_ON_HOST, &f);
    fdx_array_create(ctx, FDX_FLOAT64, 3, thin, FDX_ON_HOST, &t);
    fdx_array_create(ctx, FDX_FLOAT64, 3, thin, FDX_ON_HOST, &t2);
    double h[3] = {1, 1, 1}, hbad[3] = {1, -1, 1};
    CHECK_FAILS(fdx_laplacian_apply(b, c, h, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_laplacian_apply(b, f, h, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_laplacian_apply(a, a, h, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_laplacian_apply(a, b, hbad, NULL), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "h[1]") != NULL, "names the spacing: %s", fdx_last_error());
    CHECK_FAILS(fdx_laplacian_apply(t2, t, h, NULL), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "axis 1") != NULL, "names the axis: %s", fdx_last_error());
    CHECK_FAILS(fdx_laplacian_apply(NULL, b, h, NULL), FDX_ERR_INVALID);
    fdx_array_destroy(&a);
    fdx_array_destroy(&b);
    fdx_array_destroy(&c);
    fdx_array_destroy(&f);
    fdx_array_destroy(&t);
    fdx_array_destroy(&t2);
}

int main(void)
{
    ctx = fdx_test_ctx("cpu");
    if (!ctx) return fdx_test_skip("test_laplacian", "no CPU context");
    static const int64_t shapes3[][3] = {{3, 3, 3}, {17, 5, 129}, {1000, 3, 7}, {33, 31, 29}};
    static const int64_t shapes2[][3] = {{3, 3, 1}, {129, 17, 1}, {5, 1000, 1}};
    uint64_t seed = 0x5eed;
    for (int p = 0; p < 2; p++) {
        fdx_dtype dt = p ? FDX_FLOAT32 : FDX_FLOAT64;
        for (size_t s = 0; s < sizeof shapes3 / sizeof shapes3[0]; s++)
            for (int r = 0; r < 2; r++) check_case(dt, 3, shapes3[s], r, seed++);
        for (size_t s = 0; s < sizeof shapes2 / sizeof shapes2[0]; s++)
            for (int r = 0; r < 2; r++) check_case(dt, 2, shapes2[s], r, seed++);
    }
    /* Second order: halving h divides the error by about 4. */
    double e1 = smooth_error(17), e2 = smooth_error(33), e3 = smooth_error(65);
    double r1 = e1 / e2, r2 = e2 / e3;
    printf("convergence: errors %.3g %.3g %.3g, ratios %.3f %.3f\n", e1, e2, e3, r1, r2);
    CHECK(r1 > 3.5 && r1 < 4.5 && r2 > 3.5 && r2 < 4.5, "convergence ratios %.3f %.3f not near 4", r1, r2);
    test_errors();
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_laplacian");
}
