/* fdx_array_wrap on the CPU backend (test_wrap_gpu.c runs the same on CUDA
   with cudaMalloc'd memory and a caller's non-blocking stream): arrays over
   the caller's memory in every operation that takes an fdx_array (stencil
   apply, Laplacian, loops with reductions, get/put, transforms on the
   wrapped storage), each against a plain CPU reference on random inputs with
   poisoned outputs; strides as layouts; the refusals; the caller keeps its
   memory. */
#include "fdx_test.h"
#include "laplacian_ref.h"
#include "backends/fdx_backend.h"

#include <string.h>

#ifndef WRAP_TEST_BACKEND
#define WRAP_TEST_BACKEND "cpu"
#define WRAP_TEST_NAME "test_wrap"
#endif
#define ON_CUDA (strcmp(WRAP_TEST_BACKEND, "cuda") == 0)

#if defined(FDX_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

static fdx_ctx *ctx;
static uint64_t seed = 4242;
static void *caller_stream; /* the caller's own stream (CUDA), NULL on the CPU */

/* ---- the caller's memory: another library's allocations -------------------- */
static void *caller_alloc(size_t bytes)
{
#if defined(FDX_HAVE_CUDA)
    if (ON_CUDA) {
        void *p = NULL;
        CHECK(cudaMalloc(&p, bytes) == cudaSuccess, "cudaMalloc %zu", bytes);
        return p;
    }
#endif
    /* 8 bytes past a 64-byte boundary: fdx must not assume its own alignment */
    char *p = malloc(bytes + 64);
    return p ? p + 8 : NULL;
}

static void caller_free(void *p)
{
    if (!p) return;
#if defined(FDX_HAVE_CUDA)
    if (ON_CUDA) {
        CHECK(cudaFree(p) == cudaSuccess, "cudaFree");
        return;
    }
#endif
    free((char *)p - 8);
}

/* Copies in the caller's order: on its stream, then waits for that stream
   only (to_caller: host to the caller's memory, else back). */
static void caller_copy(void *dst, const void *src, size_t bytes, int to_caller)
{
#if defined(FDX_HAVE_CUDA)
    if (ON_CUDA) {
        CHECK(cudaMemcpyAsync(dst, src, bytes, to_caller ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                              (cudaStream_t)caller_stream) == cudaSuccess, "copy");
        CHECK(cudaStreamSynchronize((cudaStream_t)caller_stream) == cudaSuccess, "sync");
        return;
    }
#endif
    (void)to_caller;
    memcpy(dst, src, bytes);
}
#define caller_put(dst, src, bytes) caller_copy(dst, src, bytes, 1)
#define caller_get(dst, src, bytes) caller_copy(dst, src, bytes, 0)

/* Wraps caller memory as the backend's working copy. */
static fdx_array *wrap(fdx_dtype t, int rank, const int64_t *n, const int64_t *strides, void *p)
{
    fdx_array *a = NULL;
    CHECK_OK(fdx_array_wrap(ctx, t, rank, n, strides, ON_CUDA ? NULL : p, ON_CUDA ? p : NULL, 0, &a));
    return a;
}

static void fill_rand(double *x, size_t n)
{
    for (size_t q = 0; q < n; q++) x[q] = fdx_test_rand(&seed);
}

static void fill_nan(double *x, size_t n)
{
    for (size_t q = 0; q < n; q++) x[q] = NAN;
}

/* |got - want| relative to max(1, |want|) over the points where want is a
   number; points where want is NaN (not written) must be NaN in got too. */
static double max_err(const double *got, const double *want, size_t n, int *poison_bad)
{
    double e = 0;
    *poison_bad = 0;
    for (size_t q = 0; q < n; q++) {
        if (isnan(want[q])) {
            if (!isnan(got[q])) (*poison_bad)++;
            continue;
        }
        double d = fabs(got[q] - want[q]) / (fabs(want[q]) > 1 ? fabs(want[q]) : 1);
        if (!(d <= e)) e = d;
    }
    return e;
}

/* GPU arithmetic may contract differently (FMA); the CPU kernel is compiled
   from the same expression as the reference up to association. */
#define TOL 1e-12

/* ---- Laplacian on wrapped memory, 2D and 3D ---------------------------------- */
static void test_laplacian(int rank)
{
    int64_t n[3] = {21, 14, rank == 3 ? 9 : 1};
    size_t cnt = (size_t)(n[0] * n[1] * n[2]), bytes = cnt * sizeof(double);
    double h[3] = {0.5, 0.25, 2.0};
    double *u = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes);
    fill_rand(u, cnt);
    fill_nan(want, cnt);
    laplacian_ref(rank, n, h, u, want);
    void *pu = caller_alloc(bytes), *po = caller_alloc(bytes);
    fill_nan(got, cnt);
    caller_put(pu, u, bytes);
    caller_put(po, got, bytes); /* poisoned output */
    fdx_array *U = wrap(FDX_FLOAT64, rank, n, NULL, pu), *O = wrap(FDX_FLOAT64, rank, n, NULL, po);
    if (U && O) {
        CHECK(fdx_array_wrapped(U) != 0, "wrapped mask %u", fdx_array_wrapped(U));
        CHECK(ON_CUDA ? fdx_array_device(U) == pu : fdx_array_host(U) == pu, "the array uses the caller's pointer");
        CHECK_OK(fdx_laplacian_apply(O, U, h, NULL));
        if (ON_CUDA) CHECK_OK(fdx_ctx_ops(ctx)->stream_sync(caller_stream)); /* the caller waits for its stream */
        caller_get(got, po, bytes);
        int bad;
        double e = max_err(got, want, cnt, &bad);
        CHECK(e < TOL && bad == 0, "laplacian %dD on wrapped memory: error %g, %d boundary points written", rank, e, bad);
    }
    fdx_array_destroy(&U);
    fdx_array_destroy(&O);
    /* destroy left the caller's memory alone: still readable, still ours */
    double back[4];
    caller_get(back, pu, sizeof back);
    CHECK(back[3] == u[3], "caller memory intact after destroy");
    caller_free(pu);
    caller_free(po);
    free(u);
    free(want);
    free(got);
}

/* ---- a 4th-order wave update with a coefficient, float ------------------------ */
static void test_stencil_wave(void)
{
    const int64_t n[3] = {17, 13, 11};
    size_t cnt = 17 * 13 * 11, bytes = cnt * sizeof(float);
    fdx_stencil_desc d;
    double h[3] = {1, 0.5, 0.25};
    fdx_stencil_desc_laplacian(&d, 3, 4, h);
    d.update = FDX_UPDATE_WAVE;
    d.alpha = 0.01;
    d.coef = 1;
    double w[5];
    CHECK_OK(fdx_fd_weights(2, 4, w));
    float *u = malloc(bytes), *up = malloc(bytes), *c = malloc(bytes), *got = malloc(bytes);
    double *want = malloc(cnt * 8), *gotd = malloc(cnt * 8);
    for (size_t q = 0; q < cnt; q++) {
        u[q] = (float)fdx_test_rand(&seed);
        up[q] = (float)fdx_test_rand(&seed);
        c[q] = (float)(1 + 0.5 * fdx_test_rand(&seed));
        got[q] = NAN;
    }
    fill_nan(want, cnt);
    const int64_t sy = n[0], sz = n[0] * n[1], st[3] = {1, sy, sz};
    for (int64_t k = 2; k < n[2] - 2; k++)
        for (int64_t j = 2; j < n[1] - 2; j++)
            for (int64_t i = 2; i < n[0] - 2; i++) {
                int64_t p = i + j * sy + k * sz;
                double L = 0;
                for (int a = 0; a < 3; a++)
                    for (int o = -2; o <= 2; o++) L += w[o + 2] * (double)u[p + o * st[a]] / (h[a] * h[a]);
                want[p] = 2.0 * u[p] - up[p] + d.alpha * c[p] * L;
            }
    void *pu = caller_alloc(bytes), *pp = caller_alloc(bytes), *pc = caller_alloc(bytes), *po = caller_alloc(bytes);
    caller_put(pu, u, bytes);
    caller_put(pp, up, bytes);
    caller_put(pc, c, bytes);
    caller_put(po, got, bytes);
    fdx_array *U = wrap(FDX_FLOAT32, 3, n, NULL, pu), *P = wrap(FDX_FLOAT32, 3, n, NULL, pp),
              *C = wrap(FDX_FLOAT32, 3, n, NULL, pc), *O = wrap(FDX_FLOAT32, 3, n, st, po);
    fdx_stencil *s = NULL;
    CHECK_OK(fdx_stencil_create(ctx, &d, FDX_FLOAT32, &s));
    if (s && U && P && C && O) {
        CHECK_OK(fdx_stencil_apply(s, O, U, P, C, NULL));
        if (ON_CUDA) CHECK_OK(fdx_ctx_ops(ctx)->stream_sync(caller_stream));
        caller_get(got, po, bytes);
        for (size_t q = 0; q < cnt; q++) gotd[q] = got[q];
        int bad;
        double e = max_err(gotd, want, cnt, &bad);
        CHECK(e < 2e-5 && bad == 0, "wave order 4 float on wrapped memory: error %g, %d boundary points written", e, bad);
    }
    fdx_stencil_destroy(&s);
    fdx_array_destroy(&U);
    fdx_array_destroy(&P);
    fdx_array_destroy(&C);
    fdx_array_destroy(&O);
    caller_free(pu);
    caller_free(pp);
    caller_free(pc);
    caller_free(po);
    free(u), free(up), free(c), free(got), free(want), free(gotd);
}

/* ---- loops over wrapped memory, one array stored axis-permuted --------------- */
static void test_loop(void)
{
    enum { NX = 12, NY = 10, NZ = 7 };
    const int64_t n[3] = {NX, NY, NZ};
    size_t cnt = NX * NY * NZ, bytes = cnt * 8;
    double *a = malloc(bytes), *b = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes);
    fill_rand(a, cnt);
    fill_nan(b, cnt);
    fill_nan(want, cnt);
    /* A is stored k fastest, then i, then j (as if transposed by its owner):
       strides per logical axis i, j, k */
    const int64_t sa[3] = {NZ, NZ * NX, 1};
    double *a_stored = malloc(bytes);
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) a_stored[i * sa[0] + j * sa[1] + k * sa[2]] = a[i + NX * (j + NY * k)];
    double sum = 0, s = 0.75;
    for (int k = 1; k < NZ - 1; k++)
        for (int j = 1; j < NY - 1; j++)
            for (int i = 1; i < NX - 1; i++) {
                int p = i + NX * (j + NY * k);
                want[p] = a[p + 1] - a[p - 1] + s * a[p] + a[p + NX * NY];
                sum += want[p];
            }
    void *pa = caller_alloc(bytes), *pb = caller_alloc(bytes);
    caller_put(pa, a_stored, bytes);
    caller_put(pb, b, bytes);
    fdx_array *A = wrap(FDX_FLOAT64, 3, n, sa, pa), *B = wrap(FDX_FLOAT64, 3, n, NULL, pb);
    fdx_loop *l = NULL;
    CHECK_OK(fdx_loop_create(ctx, "i,j,k", &l));
    if (A && B && l) {
        fdx_layout lay;
        CHECK_OK(fdx_array_layout(A, &lay));
        CHECK(lay.perm[0] == 2 && lay.perm[1] == 0 && lay.perm[2] == 1, "strides became layout (%d,%d,%d)", lay.perm[0],
              lay.perm[1], lay.perm[2]);
        int64_t back[3];
        CHECK_OK(fdx_array_strides(A, back));
        CHECK(back[0] == sa[0] && back[1] == sa[1] && back[2] == sa[2], "strides round trip");
        int64_t lo[3] = {1, 1, 1}, hi[3] = {NX - 1, NY - 1, NZ - 1};
        CHECK_OK(fdx_loop_range(l, lo, hi));
        CHECK_OK(fdx_loop_array(l, "A", A, FDX_READ));
        CHECK_OK(fdx_loop_array(l, "B", B, FDX_WRITE));
        CHECK_OK(fdx_loop_scalar(l, "s", s));
        CHECK_OK(fdx_loop_reduction(l, "sum", FDX_REDUCE_SUM));
        CHECK_OK(fdx_loop_set_autotfm(l, 2)); /* even forced, a wrapped array keeps the caller's layout */
        CHECK_OK(fdx_loop_body(l, "B(i,j,k) = A(i+1,j,k) - A(i-1,j,k) + s * A(i,j,k) + A(i,j,k+1);\nsum = B(i,j,k);"));
        CHECK_OK(fdx_loop_run(l, NULL));
        CHECK_OK(fdx_array_layout(A, &lay));
        CHECK(lay.perm[0] == 2, "autotfm left the wrapped array's layout alone");
        double r = 0;
        CHECK_OK(fdx_loop_result(l, "sum", &r, NULL));
        CHECK(fabs(r - sum) < 1e-9 * (1 + fabs(sum)), "loop sum %.17g vs %.17g", r, sum);
        caller_get(got, pb, bytes); /* the result is in the caller's memory */
        int bad;
        double e = max_err(got, want, cnt, &bad);
        CHECK(e < TOL && bad == 0, "loop on wrapped memory: error %g, %d untouched points written", e, bad);
        /* get/put read and write the caller's memory, in logical order */
        CHECK_OK(fdx_array_get(A, got));
        CHECK(memcmp(got, a, bytes) == 0, "fdx_array_get of a permuted wrap gives the logical order");
        for (size_t q = 0; q < cnt; q++) got[q] = (double)q;
        CHECK_OK(fdx_array_put(B, got));
        caller_get(want, pb, bytes);
        CHECK(memcmp(got, want, bytes) == 0, "fdx_array_put writes the caller's memory");
    }
    fdx_loop_destroy(&l);
    fdx_array_destroy(&A);
    fdx_array_destroy(&B);
    caller_free(pa);
    caller_free(pb);
    free(a), free(b), free(want), free(got), free(a_stored);
}

/* ---- transforms: on the wrapped storage, and refused in place ---------------- */
static void test_transforms(void)
{
    const int64_t n[3] = {9, 6, 5};
    size_t cnt = 9 * 6 * 5, bytes = cnt * 8;
    double *a = malloc(bytes), *got = malloc(bytes);
    fill_rand(a, cnt);
    void *pa = caller_alloc(bytes), *pt = caller_alloc(bytes);
    caller_put(pa, a, bytes);
    fdx_array *A = wrap(FDX_FLOAT64, 3, n, NULL, pa);
    if (A) {
        const int perm[3] = {2, 0, 1};
        void *src = ON_CUDA ? fdx_array_device(A) : fdx_array_host(A);
        CHECK_OK(fdx_permute(ctx, pt, src, 8, 3, n, perm, NULL));
        if (ON_CUDA) CHECK_OK(fdx_ctx_ops(ctx)->stream_sync(caller_stream));
        caller_get(got, pt, bytes);
        int wrong = 0; /* dst axis p is src axis perm[p]: dst(k,i,j) = a(i,j,k) */
        for (int k = 0; k < 5; k++)
            for (int j = 0; j < 6; j++)
                for (int i = 0; i < 9; i++) wrong += got[k + 5 * (i + 9 * j)] != a[i + 9 * (j + 6 * k)];
        CHECK(wrong == 0, "permute of wrapped storage: %d wrong", wrong);
        fdx_layout l;
        CHECK_OK(fdx_layout_make(3, perm, FDX_DIAG_NONE, &l));
        CHECK_FAILS(fdx_array_set_layout(A, &l), FDX_ERR_UNSUPPORTED);
        CHECK(strstr(fdx_last_error(), "caller") != NULL, "message names the caller's memory: %s", fdx_last_error());
        caller_get(got, pa, bytes);
        CHECK(memcmp(got, a, bytes) == 0, "a refused set_layout leaves the caller's memory as it was");
        CHECK(ON_CUDA ? fdx_array_device(A) == pa : fdx_array_host(A) == pa, "and the pointer");
        /* the stencil engine refuses arrays not in the plain layout */
        const int64_t sp[3] = {30, 5, 1}; /* k fastest */
        fdx_array *T = wrap(FDX_FLOAT64, 3, n, sp, pt), *O = wrap(FDX_FLOAT64, 3, n, NULL, pa);
        double h[3] = {1, 1, 1};
        if (T && O) CHECK_FAILS(fdx_laplacian_apply(O, T, h, NULL), FDX_ERR_UNSUPPORTED);
        fdx_array_destroy(&T);
        fdx_array_destroy(&O);
    }
    fdx_array_destroy(&A);
    caller_free(pa);
    caller_free(pt);
    free(a), free(got);
}

/* ---- what wrap refuses ---------------------------------------------------------- */
static void test_refusals(void)
{
    const int64_t n[2] = {8, 4};
    double *buf = calloc(64, sizeof(double));
    fdx_array *a = NULL;
    void *host = ON_CUDA ? NULL : buf, *dev = ON_CUDA ? caller_alloc(64 * 8) : NULL, *p = ON_CUDA ? dev : buf;
    CHECK_FAILS(fdx_array_wrap(ctx, FDX_FLOAT64, 2, n, NULL, NULL, NULL, 0, &a), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_array_wrap(NULL, FDX_FLOAT64, 2, n, NULL, host, dev, 0, &a), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_array_wrap(ctx, FDX_FLOAT64, 0, n, NULL, host, dev, 0, &a), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_array_wrap(ctx, FDX_FLOAT64, 2, n, NULL, host, dev, 4, &a), FDX_ERR_INVALID);
    if (!ON_CUDA) CHECK_FAILS(fdx_array_wrap(ctx, FDX_FLOAT64, 2, n, NULL, NULL, buf, FDX_ON_HOST, &a), FDX_ERR_INVALID);
    const int64_t gap[2] = {1, 9}, neg[2] = {-1, 8}, zero[2] = {0, 1}, overlap[2] = {1, 4}, rows[2] = {4, 1};
    CHECK_FAILS(fdx_array_wrap(ctx, FDX_FLOAT64, 2, n, gap, host, dev, 0, &a), FDX_ERR_UNSUPPORTED);
    CHECK(strstr(fdx_last_error(), "stride 9 of axis 1") != NULL, "message names the stride: %s", fdx_last_error());
    CHECK_FAILS(fdx_array_wrap(ctx, FDX_FLOAT64, 2, n, neg, host, dev, 0, &a), FDX_ERR_UNSUPPORTED);
    CHECK_FAILS(fdx_array_wrap(ctx, FDX_FLOAT64, 2, n, zero, host, dev, 0, &a), FDX_ERR_UNSUPPORTED);
    CHECK_FAILS(fdx_array_wrap(ctx, FDX_FLOAT64, 2, n, overlap, host, dev, 0, &a), FDX_ERR_UNSUPPORTED);
    CHECK(a == NULL, "no array on failure");
    /* a row-major 8x4 (axis 1 fastest) is dense: a layout */
    CHECK_OK(fdx_array_wrap(ctx, FDX_FLOAT64, 2, n, rows, host, dev, 0, &a));
    fdx_array_destroy(&a);
    /* extent-1 axes may carry any stride */
    const int64_t n1[3] = {8, 1, 4}, s1[3] = {1, 12345, 8};
    CHECK_OK(fdx_array_wrap(ctx, FDX_FLOAT64, 3, n1, s1, host, dev, 0, &a));
    if (a) {
        fdx_layout l;
        CHECK_OK(fdx_array_layout(a, &l));
        CHECK(fdx_layout_is_identity(&l), "extent-1 axis with an odd stride is still the plain layout");
    }
    fdx_array_destroy(&a);
    CHECK_FAILS(fdx_array_wrap(ctx, FDX_FLOAT64, 2, n, NULL, ON_CUDA ? NULL : (char *)p + 4, ON_CUDA ? (char *)p + 8 : NULL,
                               0, &a),
                ON_CUDA ? FDX_ERR_UNSUPPORTED : FDX_ERR_INVALID);
#if defined(FDX_HAVE_CUDA)
    if (ON_CUDA) {
        /* host memory passed as the device pointer: named, not crashed on */
        CHECK_FAILS(fdx_array_wrap(ctx, FDX_FLOAT64, 2, n, NULL, NULL, buf, 0, &a), FDX_ERR_INVALID);
        CHECK(strstr(fdx_last_error(), "host") != NULL, "message says host memory: %s", fdx_last_error());
        /* both copies lent: to_host copies into the caller's host buffer */
        double one[32];
        for (int q = 0; q < 32; q++) one[q] = q + 0.5;
        caller_put(dev, one, sizeof one);
        CHECK_OK(fdx_array_wrap(ctx, FDX_FLOAT64, 2, n, NULL, buf, dev, FDX_ON_DEVICE, &a));
        if (a) CHECK_OK(fdx_array_to_host(a));
        CHECK(buf[31] == 31.5, "to_host wrote the caller's host buffer: %g", buf[31]);
        fdx_array_destroy(&a);
    }
#endif
    if (ON_CUDA) caller_free(dev);
    free(buf);
}

static void test_stream(void)
{
    CHECK(fdx_ctx_get_stream(ctx) == NULL, "default stream NULL");
    CHECK_FAILS(fdx_ctx_set_stream(NULL, NULL), FDX_ERR_INVALID);
}

static void run_all(void)
{
    test_laplacian(2);
    test_laplacian(3);
    test_stencil_wave();
    test_loop();
    test_transforms();
}

typedef struct lap_run {
    fdx_array *out, *in;
    double h[3];
} lap_run;

static fdx_status lap_once(void *arg, void *stream)
{
    lap_run *r = arg;
    return fdx_laplacian_apply(r->out, r->in, r->h, stream);
}

/* On CUDA: a wrapped array runs at the speed of an fdx-allocated one (the
   same kernel: the ratio must be about 1). */
static void test_speed(void)
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

int main(void)
{
    if (ON_CUDA && fdx_cuda_device_count() == 0) return fdx_test_skip(WRAP_TEST_NAME, "no CUDA device");
    ctx = fdx_test_ctx(WRAP_TEST_BACKEND);
    if (!ctx) return fdx_test_skip(WRAP_TEST_NAME, "no context on this backend");
    CHECK(fdx_version() == FDX_VERSION && strcmp(fdx_version_string(), FDX_VERSION_STRING) == 0,
          "library version %d %s matches the headers", fdx_version(), fdx_version_string());
    test_stream();
    test_refusals();
    run_all(); /* on the default stream */
    /* again on the caller's stream: every call given NULL runs on it (on CUDA
       a non-blocking stream, which the default stream does not order) */
    CHECK_OK(fdx_ctx_ops(ctx)->stream_create(&caller_stream));
#if defined(FDX_HAVE_CUDA)
    if (ON_CUDA) {
        fdx_ctx_ops(ctx)->stream_destroy(caller_stream);
        CHECK(cudaStreamCreateWithFlags((cudaStream_t *)&caller_stream, cudaStreamNonBlocking) == cudaSuccess, "stream");
    }
#endif
    CHECK_OK(fdx_ctx_set_stream(ctx, caller_stream));
    CHECK(fdx_ctx_get_stream(ctx) == caller_stream, "get returns the set stream");
    run_all();
    if (ON_CUDA) test_speed();
    CHECK_OK(fdx_ctx_set_stream(ctx, NULL));
    fdx_ctx_ops(ctx)->stream_destroy(caller_stream);
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish(WRAP_TEST_NAME);
}
