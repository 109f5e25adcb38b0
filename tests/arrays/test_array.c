/* Arrays: shapes, storage, copies, and the errors that name bad values. */
#include "fdx_test.h"

#include <string.h>

int main(void)
{
    fdx_ctx *ctx = fdx_test_ctx("cpu");
    if (!ctx) return fdx_test_skip("test_array", "no CPU context");
    fdx_array *a = NULL;

    for (int rank = 1; rank <= FDX_MAX_RANK; rank++) {
        int64_t shape[FDX_MAX_RANK];
        int64_t count = 1;
        for (int d = 0; d < rank; d++) count *= (shape[d] = 2 + d);
        CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, rank, shape, FDX_ON_HOST, &a));
        if (!a) continue;
        CHECK(fdx_array_rank(a) == rank && fdx_array_count(a) == count, "rank %d count %lld", rank,
              (long long)fdx_array_count(a));
        CHECK(fdx_array_bytes(a) == (size_t)count * 8, "bytes");
        CHECK(fdx_array_extent(a, rank - 1) == rank + 1 && fdx_array_extent(a, rank) == 0, "extents");
        fdx_array_destroy(&a);
        CHECK(a == NULL, "destroy clears");
    }

    int64_t s3[3] = {5, 4, 3};
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT32, 3, s3, FDX_ON_HOST | FDX_ON_DEVICE, &a));
    if (a) {
        CHECK_OK(fdx_array_fill_host(a, 2.5));
        float *h = fdx_array_host(a);
        int all = 1;
        for (int i = 0; i < 60; i++) all &= h[i] == 2.5f;
        CHECK(all, "fill");
        CHECK_OK(fdx_array_to_device(a));
        CHECK_OK(fdx_array_to_host(a));
        CHECK(h[59] == 2.5f, "round trip on the CPU backend");
        CHECK_OK(fdx_array_fill_device_bytes(a, 0));
        CHECK_OK(fdx_array_to_host(a));
        CHECK(((float *)fdx_array_host(a))[7] == 0.0f, "device fill visible after copy");
        fdx_array_destroy(&a);
    }

    int64_t bad[3] = {5, 0, 3};
    CHECK_FAILS(fdx_array_create(ctx, FDX_FLOAT64, 3, bad, FDX_ON_HOST, &a), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "axis 1") != NULL, "names the axis: %s", fdx_last_error());
    CHECK(a == NULL, "no array on failure");
    bad[1] = -7;
    CHECK_FAILS(fdx_array_create(ctx, FDX_FLOAT64, 3, bad, FDX_ON_HOST, &a), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_array_create(ctx, FDX_FLOAT64, 0, s3, FDX_ON_HOST, &a), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_array_create(ctx, FDX_FLOAT64, FDX_MAX_RANK + 1, s3, FDX_ON_HOST, &a), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_array_create(ctx, (fdx_dtype)42, 3, s3, FDX_ON_HOST, &a), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_array_create(ctx, FDX_FLOAT64, 3, s3, 0, &a), FDX_ERR_INVALID);
    int64_t huge[3] = {(int64_t)1 << 30, (int64_t)1 << 30, (int64_t)1 << 30};
    CHECK_FAILS(fdx_array_create(ctx, FDX_FLOAT64, 3, huge, FDX_ON_HOST, &a), FDX_ERR_NOMEM);
    CHECK(strstr(fdx_last_error(), "overflow") != NULL, "overflow named: %s", fdx_last_error());
    int64_t big[1] = {(int64_t)1 << 55};
    CHECK_FAILS(fdx_array_create(ctx, FDX_FLOAT64, 1, big, FDX_ON_HOST, &a), FDX_ERR_NOMEM);

    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_array");
}
