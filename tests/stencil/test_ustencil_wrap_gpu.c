/* Wrapped arrays (fdx_array_wrap) on CUDA against fdx-allocated ones: the
   3x3x3 box and div(k grad u) (user stencils) and the 7-point Laplacian
   with Dirichlet conditions on every face (the boundary pass and the
   folded x faces), each applied to arrays fdx allocated, to wrappers of
   that same device memory (what another library's cudaMalloc'ed buffer
   looks like to fdx), and to wrappers 16 bytes into a larger allocation
   (the least alignment a wrap accepts).  Results must agree bit for bit
   with the allocated run (outputs poisoned first); the times of the three
   are printed as one JSON line a kernel ("op": "wrap"), which
   tools/gpu-check.d/bcfuse.sh keeps (target: wrapped as fast as
   allocated).  Tuning off: every view runs the default configuration.
   The pass of the third writes only ghosts, the same ones
   each time, so the views start alike.  256^3 double (64^3 under FDX_TEST_SANITIZER=1).  Skipped
   without a device. */
#include "fdx_test.h"

#include <stdlib.h>
#include <string.h>

#define KINDS 3
static const char *kind_name[KINDS] = {"box27", "div_k_grad", "laplacian_dirichlet"};

typedef struct job {
    int kind;
    fdx_ustencil *us;
    fdx_stencil *st;
    fdx_array *out, *in[2];
} job;

static fdx_status run_job(void *arg, void *stream)
{
    job *j = arg;
    if (j->kind == 2) return fdx_stencil_apply(j->st, j->out, j->in[0], NULL, NULL, stream);
    return fdx_ustencil_apply(j->us, j->out, j->in, j->kind == 1 ? &j->in[1] : NULL, stream);
}

/* Three views of `count` doubles: allocated, a wrapper of the same memory,
   a wrapper 16 bytes into `big`. */
static void views(fdx_ctx *ctx, const int64_t n[3], fdx_array *alloc, fdx_array *big, fdx_array **v)
{
    v[0] = alloc;
    CHECK_OK(fdx_array_wrap(ctx, FDX_FLOAT64, 3, n, NULL, NULL, fdx_array_device(alloc), FDX_ON_DEVICE, &v[1]));
    CHECK_OK(fdx_array_wrap(ctx, FDX_FLOAT64, 3, n, NULL, NULL, (char *)fdx_array_device(big) + 16, FDX_ON_DEVICE,
                            &v[2]));
}

int main(void)
{
    if (fdx_cuda_device_count() == 0) return fdx_test_skip("test_ustencil_wrap_gpu", "no CUDA device");
    fdx_ctx *ctx = NULL;
    fdx_options *o = NULL;
    CHECK_OK(fdx_options_create(&o));
    if (!o) return fdx_test_finish("test_ustencil_wrap_gpu");
    CHECK_OK(fdx_options_set(o, "backend", "cuda"));
    CHECK_OK(fdx_options_set(o, "tune", "off")); /* the default configurations: one kernel for every view */
    CHECK_OK(fdx_ctx_create(o, &ctx));
    fdx_options_destroy(&o);
    if (!ctx) return fdx_test_finish("test_ustencil_wrap_gpu");
    const char *san = getenv("FDX_TEST_SANITIZER");
    const int64_t e = san && san[0] == '1' ? 64 : 256, n[3] = {e, e, e}, count = e * e * e, big[1] = {count + 2};
    const size_t bytes = (size_t)count * 8;
    /* u, k and the output, allocated, plus their offset twins */
    fdx_array *arr[3] = {NULL}, *bigs[3] = {NULL}, *v[3][3] = {{NULL}};
    for (int a = 0; a < 3; a++) {
        CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, n, FDX_ON_HOST | FDX_ON_DEVICE, &arr[a]));
        CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 1, big, FDX_ON_DEVICE, &bigs[a]));
        if (!arr[a] || !bigs[a]) return fdx_test_finish("test_ustencil_wrap_gpu");
        views(ctx, n, arr[a], bigs[a], v[a]);
    }
    uint64_t seed = 0x3a9;
    double *hu = fdx_array_host(arr[0]), *hk = fdx_array_host(arr[1]);
    for (int64_t i = 0; i < count; i++) hu[i] = fdx_test_rand(&seed), hk[i] = 1.5 + 0.5 * fdx_test_rand(&seed);
    CHECK_OK(fdx_array_to_device(arr[0]));
    CHECK_OK(fdx_array_to_device(arr[1]));
    for (int a = 0; a < 2; a++) /* the offset twins get the same values */
        CHECK_OK(fdx_array_put(v[a][2], fdx_array_host(arr[a])));

    fdx_ustencil_desc *db = NULL, *dd = NULL;
    fdx_ustencil *box = NULL, *div = NULL;
    double w[3] = {0.25, 0.5, 0.25};
    CHECK_OK(fdx_ustencil_desc_create(3, 1, 1, 0, &db));
    CHECK_OK(fdx_ustencil_desc_add_box(db, 0, 0, 1, w));
    CHECK_OK(fdx_ustencil_desc_create(3, 1, 1, 1, &dd));
    CHECK_OK(fdx_ustencil_desc_add_div_k_grad(dd, 0, 0, 0, NULL, 1.0));
    CHECK_OK(fdx_ustencil_create(ctx, db, FDX_FLOAT64, &box));
    CHECK_OK(fdx_ustencil_create(ctx, dd, FDX_FLOAT64, &div));
    fdx_ustencil_desc_destroy(&db);
    fdx_ustencil_desc_destroy(&dd);
    fdx_stencil_desc sd;
    fdx_stencil_desc_laplacian(&sd, 3, 2, NULL);
    fdx_stencil *lap = NULL;
    CHECK_OK(fdx_stencil_create(ctx, &sd, FDX_FLOAT64, &lap));
    fdx_bc_desc bc;
    CHECK_OK(fdx_bc_parse("all=dirichlet:0.5", 3, &bc));
    if (lap) CHECK_OK(fdx_stencil_set_boundary(lap, &bc));
    double *first = malloc(bytes), *got = malloc(bytes);
    for (int kind = 0; kind < KINDS && box && div && lap && first && got; kind++) {
        double ms[3] = {0};
        for (int view = 0; view < 3; view++) {
            job j = {kind, kind == 1 ? div : box, lap, v[2][view], {v[0][view], v[1][view]}};
            CHECK_OK(fdx_array_fill_device_bytes(j.out, 0xFF));
            CHECK_OK(run_job(&j, NULL));
            CHECK_OK(fdx_ctx_sync(ctx));
            CHECK_OK(fdx_array_get(j.out, view ? got : first));
            if (view)
                CHECK(memcmp(first, got, bytes) == 0, "%s: the %s view's result differs from the allocated arrays'",
                      kind_name[kind], view == 1 ? "wrapped" : "offset wrapped");
            fdx_time_stats t;
            CHECK_OK(fdx_time_run(ctx, run_job, &j, 2, 20, &t));
            ms[view] = t.median_ms;
        }
        printf("{\"op\": \"wrap\", \"kernel\": \"%s\", \"shape\": [%lld, %lld, %lld], \"precision\": \"double\", "
               "\"alloc_ms\": %.5f, \"wrap_ms\": %.5f, \"wrap16_ms\": %.5f, \"wrap_ratio\": %.4f, \"wrap16_ratio\": "
               "%.4f, \"verified\": true}\n",
               kind_name[kind], (long long)e, (long long)e, (long long)e, ms[0], ms[1], ms[2],
               ms[0] > 0 ? ms[1] / ms[0] : 0, ms[0] > 0 ? ms[2] / ms[0] : 0);
    }
    free(first), free(got);
    fdx_ustencil_destroy(&box);
    fdx_ustencil_destroy(&div);
    fdx_stencil_destroy(&lap);
    for (int a = 0; a < 3; a++) {
        fdx_array_destroy(&v[a][1]);
        fdx_array_destroy(&v[a][2]);
        fdx_array_destroy(&arr[a]);
        fdx_array_destroy(&bigs[a]);
    }
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_ustencil_wrap_gpu");
}
