/* fdx_array_wrap on CUDA: the tests of test_wrap.c on memory from cudaMalloc
   (another library's allocation, as CuPy's or PyTorch's), first on the
   default stream, then on the caller's non-blocking stream set with
   fdx_ctx_set_stream; plus the speed of a wrapped array against an
   fdx-allocated one (the same kernel: the ratio must be about 1). */
#define WRAP_TEST_BACKEND "cuda"
#define WRAP_TEST_NAME "test_wrap_gpu"
#define WRAP_TEST_EXTRA
static void test_extra(void);
#include "test_wrap.c"

typedef struct lap_run {
    fdx_array *out, *in;
    double h[3];
} lap_run;

static fdx_status lap_once(void *arg, void *stream)
{
    lap_run *r = arg;
    return fdx_laplacian_apply(r->out, r->in, r->h, stream);
}

static void test_extra(void)
{
    const int64_t n[3] = {256, 256, 256};
    size_t bytes = (size_t)256 * 256 * 256 * 8;
    void *pu = caller_alloc(bytes), *po = caller_alloc(bytes);
    fdx_array *wu = wrap(FDX_FLOAT64, 3, n, NULL, pu), *wo = wrap(FDX_FLOAT64, 3, n, NULL, po);
    fdx_array *au = NULL, *ao = NULL;
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, n, FDX_ON_DEVICE, &au));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, n, FDX_ON_DEVICE, &ao));
    if (wu && wo && au && ao) {
        CHECK_OK(fdx_array_fill_device_bytes(wu, 0));
        CHECK_OK(fdx_array_fill_device_bytes(au, 0));
        lap_run w = {wo, wu, {1, 1, 1}}, a = {ao, au, {1, 1, 1}};
        fdx_time_stats tw, ta;
        CHECK_OK(fdx_time_run(ctx, lap_once, &a, 3, 20, &ta));
        CHECK_OK(fdx_time_run(ctx, lap_once, &w, 3, 20, &tw));
        double ratio = ta.median_ms / tw.median_ms;
        printf("wrapped vs fdx-allocated 256^3 double Laplacian: %.4f ms vs %.4f ms (speed ratio %.3f)\n",
               tw.median_ms, ta.median_ms, ratio);
        CHECK(ratio > 0.9, "a wrapped array runs at %.3f of an fdx-allocated one's speed", ratio);
    }
    fdx_array_destroy(&wu);
    fdx_array_destroy(&wo);
    fdx_array_destroy(&au);
    fdx_array_destroy(&ao);
    caller_free(pu);
    caller_free(po);
}
