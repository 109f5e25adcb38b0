/* Run-time compilation: the CPU path compiles, caches and runs a kernel and
   reports compiler errors with the compiler's message; NVRTC compiles CUDA C
   for sm_90 without a GPU (when the build has CUDA). */
#include "backends/fdx_backend.h"
#include "fdx_test.h"

#include <string.h>
#include <time.h>

#ifdef FDX_HAVE_CUDA
#include "backends/cuda/fdx_cuda.h"
#endif

static const char *cpu_src =
    "void scale(void **args) {\n"
    "  double *x = *(double **)args[0]; long n = *(long *)args[1]; double a = *(double *)args[2];\n"
    "  #pragma omp parallel for\n"
    "  for (long i = 0; i < n; i++) x[i] *= a;\n"
    "}\n";

int main(void)
{
    fdx_ctx *ctx = fdx_test_ctx("cpu");
    if (!ctx) return fdx_test_skip("test_jit", "no CPU context");
    const fdx_backend *be = fdx_ctx_ops(ctx);
    /* A source unique to this run, so the first load must compile. */
    char src[1024];
    snprintf(src, sizeof src, "/* run %ld */\n%s", (long)time(NULL) ^ (long)clock(), cpu_src);
    fdx_kernel *k = NULL;
    CHECK_OK(be->jit_load(fdx_ctx_device(ctx), src, "scale", "test kernel", &k));
    double x[5] = {1, 2, 3, 4, 5}, *xp = x, a = 3;
    long n = 5;
    void *args[] = {&xp, &n, &a};
    fdx_launch_dims dims = {{1, 1, 1}, {1, 1, 1}, 0};
    if (k) CHECK_OK(be->launch(k, &dims, args, NULL));
    CHECK(x[0] == 3 && x[4] == 15, "kernel ran: %g %g", x[0], x[4]);
    be->kernel_release(k);
    /* Second load: from the cache. */
    k = NULL;
    CHECK_OK(be->jit_load(fdx_ctx_device(ctx), src, "scale", "test kernel", &k));
    be->kernel_release(k);

    k = NULL;
    CHECK_FAILS(be->jit_load(fdx_ctx_device(ctx), "void broken(void **a) { return 1 +; }", "broken", "bad kernel", &k),
                FDX_ERR_COMPILE);
    CHECK(strstr(fdx_last_error(), "bad kernel") && strstr(fdx_last_error(), "error"),
          "compiler message passed on: %s", fdx_last_error());
    CHECK(k == NULL, "no kernel on failure");
    CHECK_FAILS(be->jit_load(fdx_ctx_device(ctx), cpu_src, "nosuch", "test kernel", &k), FDX_ERR_COMPILE);

#ifdef FDX_HAVE_CUDA
    void *cubin = NULL;
    size_t size = 0;
    const char *cu = "extern \"C\" __global__ void axpy(double *y, const double *x, double a, long long n) {\n"
                     "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
                     "  if (i < n) y[i] += a * x[i];\n}\n";
    CHECK_OK(fdx_nvrtc_compile(cu, 90, "axpy", &cubin, &size));
    CHECK(cubin && size > 100, "cubin of %zu bytes", size);
    free(cubin);
    CHECK_FAILS(fdx_nvrtc_compile("__global__ void f() { undefined_thing(); }", 90, "bad cuda", &cubin, &size),
                FDX_ERR_COMPILE);
    CHECK(strstr(fdx_last_error(), "undefined_thing") != NULL, "NVRTC log passed on: %s", fdx_last_error());
#endif
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_jit");
}
