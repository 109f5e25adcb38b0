/* The Laplacian on CUDA equals the CPU reference loop on random inputs, with
   poisoned outputs; skipped without a device. */
#include "fdx_test.h"
#include "laplacian_ref.h"

#include <float.h>

static void check_case(fdx_ctx *ctx, fdx_dtype dt, int rank, const int64_t *n, uint64_t seed)
{
    fdx_array *in = NULL, *out = NULL;
    CHECK_OK(fdx_array_create(ctx, dt, rank, n, FDX_ON_HOST | FDX_ON_DEVICE, &in));
    CHECK_OK(fdx_array_create(ctx, dt, rank, n, FDX_ON_HOST | FDX_ON_DEVICE, &out));
    if (!in || !out) goto done;
    int64_t total = fdx_array_count(in);
    double h[3] = {0.1, 0.2, 0.3};
    double *u = malloc(sizeof(double) * (size_t)total), *f = malloc(sizeof(double) * (size_t)total);
    for (int64_t q = 0; q < total; q++) {
        double v = fdx_test_rand(&seed);
        if (dt == FDX_FLOAT64) ((double *)fdx_array_host(in))[q] = v;
        else ((float *)fdx_array_host(in))[q] = (float)v, v = (float)v;
        u[q] = v;
    }
    CHECK_OK(fdx_array_to_device(in));
    CHECK_OK(fdx_array_fill_device_bytes(out, 0xFF)); /* NaN in both precisions */
    CHECK_OK(fdx_laplacian_apply(out, in, h, NULL));
    CHECK_OK(fdx_array_to_host(out));
    laplacian_ref(rank, n, h, u, f);
    double eps = dt == FDX_FLOAT64 ? DBL_EPSILON : FLT_EPSILON;
    double tol = 16 * eps * (4 / 0.01 + 4 / 0.04 + 4 / 0.09), err = 0;
    int64_t bad = 0, nz = rank == 3 ? n[2] : 1;
    for (int64_t k = 0; k < nz; k++)
        for (int64_t j = 0; j < n[1]; j++)
            for (int64_t i = 0; i < n[0]; i++) {
                int64_t q = i + n[0] * (j + n[1] * k);
                double v = dt == FDX_FLOAT64 ? ((double *)fdx_array_host(out))[q] : ((float *)fdx_array_host(out))[q];
                int in_ = i > 0 && i < n[0] - 1 && j > 0 && j < n[1] - 1 && (rank == 2 || (k > 0 && k < nz - 1));
                if (!in_) bad += !isnan(v);
                else if (isnan(v)) bad++;
                else err = fmax(err, fabs(v - f[q]));
            }
    CHECK(bad == 0 && err <= tol, "%s rank %d %lldx%lldx%lld: %lld bad points, error %.3g > %.3g",
          fdx_dtype_name(dt), rank, (long long)n[0], (long long)n[1], (long long)nz, (long long)bad, err, tol);
    free(u);
    free(f);
done:
    fdx_array_destroy(&in);
    fdx_array_destroy(&out);
}

int main(void)
{
    if (fdx_cuda_device_count() == 0) return fdx_test_skip("test_laplacian_gpu", "no CUDA device");
    fdx_ctx *ctx = fdx_test_ctx("cuda");
    CHECK(ctx != NULL, "cuda context: %s", fdx_last_error());
    if (!ctx) return fdx_test_finish("test_laplacian_gpu");
    static const int64_t shapes[][3] = {{3, 3, 3}, {17, 5, 129}, {1000, 3, 7}, {67, 45, 33}, {3, 3, 1}, {1001, 77, 1}};
    uint64_t seed = 99;
    for (int p = 0; p < 2; p++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            check_case(ctx, p ? FDX_FLOAT32 : FDX_FLOAT64, shapes[s][2] == 1 ? 2 : 3, shapes[s], seed++);
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_laplacian_gpu");
}
