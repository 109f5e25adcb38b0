/* The kernel IR and its printers (src/codegen): one tree printed for C runs
   on the CPU JIT and gives the reference result on random inputs with a
   poisoned output (a parallel loop nest, conditions with else, a helper,
   loads and stores of several lanes, a reduction through a scalar); the
   CUDA printing of the same constructs spells them as CUDA does and, where
   NVRTC is present, compiles; C refuses what only CUDA has (shared memory,
   cp.async); the indentation follows the nesting; the loop generator's
   conventions (arguments by address, work-sharing loops) run on the CPU. */
#include "backends/fdx_backend.h"
#include "codegen/fdx_cg.h"
#include "fdx_test.h"
#ifdef FDX_HAVE_CUDA
#include "backends/cuda/fdx_cuda.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* out[j * n + i] = 2 a + b for even i, a - b for odd i (helper), over an
   n x m grid; sum[0] = the sum of a over the grid (a reduction in a scalar
   written once). */
static fdx_cg *build(fdx_cg_target t, int lanes)
{
    fdx_cg *cg = fdx_cg_create(t);
    fdx_cg_node *top = fdx_cg_root(cg);
    fdx_cg_comment(top, "test kernel");
    fdx_cg_line(top, "typedef double real;");
    if (t == FDX_CG_CUDA) fdx_cg_line(top, "typedef double2 realv;");
    fdx_cg_node *h = fdx_cg_helper(top, "real", "mix", "real a, real b, int odd");
    fdx_cg_node *odd = fdx_cg_if(h, "odd");
    fdx_cg_stmt(odd, "return a - b");
    fdx_cg_stmt(fdx_cg_else(odd), "return 2 * a + b");
    const fdx_cg_param params[] = {
        {"real", "out", 1}, {"const real", "a", 1}, {"const real", "b", 1}, {"real", "sum", 1}, {"const long long", "n", 0},
    };
    fdx_cg_node *k = fdx_cg_kernel(top, "cg_test", params, 5, t == FDX_CG_CUDA ? 128 : 0, 0);
    fdx_cg_stmt(k, "const long long m = 3");
    fdx_cg_node *loop = fdx_cg_for(fdx_cg_for(k, FDX_CG_LOOP_PARALLEL, "long long j = 0; j < m; j++"), FDX_CG_LOOP,
                                   "long long i = 0; i < n; i += %d", lanes);
    fdx_cg_stmt(loop, "real a0 = 0, a1 = 0, b0 = 0, b1 = 0, r0, r1");
    fdx_cg_stmt(loop, "(void)a1, (void)b1, (void)r1");
    fdx_cg_load(loop, (fdx_cg_lanes){"a", "", lanes, 0}, "realv", "a", "j * n + i", FDX_CG_LDG, 0);
    fdx_cg_load(loop, (fdx_cg_lanes){"b", "", lanes, 0}, "realv", "b", "j * n + i", FDX_CG_STREAM, 0);
    for (int v = 0; v < lanes; v++) fdx_cg_stmt(loop, "r%d = mix(a%d, b%d, (int)((i + %d) & 1))", v, v, v, v);
    fdx_cg_store(loop, (fdx_cg_lanes){"r", "", lanes, 0}, "realv", "out + j * n + i", FDX_CG_STREAM);
    fdx_cg_stmt(k, "real s = 0");
    fdx_cg_stmt(fdx_cg_for(k, FDX_CG_LOOP_SIMD, "long long q = 0; q < m * n; q++"), "s += %s",
                fdx_cg_ld(cg, FDX_CG_LDG, "a + q"));
    fdx_cg_stmt(k, "sum[0] = s");
    return cg;
}

static char *print(fdx_cg *cg)
{
    fdx_sb out = FDX_SB_INIT;
    char *text = NULL;
    CHECK_OK(fdx_cg_print(cg, &out));
    CHECK_OK(fdx_sb_take(&out, "test", &text));
    return text;
}

/* The C text compiled by the CPU backend's JIT; NULL (reported) when it
   does not compile.  Frees the text. */
static fdx_kernel *jit(char *src, const char *entry)
{
    const fdx_backend *be = fdx_backend_cpu();
    fdx_device_info dev;
    CHECK_OK(be->device_info(0, &dev));
    fdx_kernel *k = NULL;
    fdx_status st = be->jit_load(&dev, src, entry, "codegen test kernel", &k);
    CHECK(st == FDX_OK, "C kernel does not compile: %s\n%s", fdx_last_error(), src);
    free(src);
    return st == FDX_OK ? k : NULL;
}

static void test_c_runs(void)
{
    fdx_cg *cg = build(FDX_CG_C, 2);
    char *src = print(cg);
    fdx_cg_destroy(cg);
    if (!src) return;
    CHECK(strstr(src, "#pragma omp parallel for collapse(2) schedule(static)\n    for (long long j = 0; j < m; j++)\n"
                      "    for (long long i = 0;") != NULL,
          "perfect nest under collapse(2):\n%s", src);
    CHECK(strstr(src, "static inline real mix(real a, real b, int odd)") != NULL, "C helper:\n%s", src);
    CHECK(strstr(src, "            return a - b;\n        } else {\n") == NULL &&
              strstr(src, "    if (odd) {\n        return a - b;\n    } else {\n        return 2 * a + b;\n    }\n") != NULL,
          "indentation of if / else:\n%s", src);
    const fdx_backend *be = fdx_backend_cpu();
    fdx_kernel *k = jit(src, "cg_test");
    if (!k) return;
    enum { N = 10, M = 3 };
    double a[N * M], b[N * M], out[N * M], sum = NAN, want = 0;
    unsigned long long s = 0x1234567;
    for (int i = 0; i < N * M; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        a[i] = (double)(s % 1000) / 7, b[i] = (double)(s % 777) / 3, out[i] = NAN, want += a[i];
    }
    double *po = out, *pa = a, *pb = b, *ps = &sum;
    long long n = N;
    void *args[] = {po, pa, pb, ps, &n}; /* pointers themselves, values by address */
    CHECK_OK(be->launch(k, NULL, args, NULL));
    int bad = 0;
    for (int j = 0; j < M; j++)
        for (int i = 0; i < N; i++) {
            double w = i % 2 ? a[j * N + i] - b[j * N + i] : 2 * a[j * N + i] + b[j * N + i];
            bad += !(out[j * N + i] == w);
        }
    be->kernel_release(k);
    CHECK(bad == 0, "%d of %d results wrong", bad, N * M);
    CHECK(fabs(sum - want) <= 1e-12 * fabs(want), "reduction %.17g, want %.17g", sum, want);
}

/* The loop generator's conventions: a kernel taking every argument by its
   address (fdx_cg_kernel_by_address) and loops shared inside a parallel
   region (FDX_CG_LOOP_WORKSHARE: omp for, nowait, collapse over a perfect
   nest); run on the CPU JIT against the reference, output poisoned. */
static void test_c_by_address(void)
{
    fdx_cg *cg = fdx_cg_create(FDX_CG_C);
    fdx_cg_node *top = fdx_cg_root(cg);
    const fdx_cg_param params[] = {{"double", "out", 1}, {"const double", "a", 1}, {"const long long", "n", 0}};
    fdx_cg_node *k = fdx_cg_kernel_by_address(top, "cg_addr", "fdx_args", params, 3, 0);
    fdx_cg_line(k, "#pragma omp parallel");
    fdx_cg_node *par = fdx_cg_scope(k);
    fdx_cg_node *j = fdx_cg_for(par, FDX_CG_LOOP_WORKSHARE, "long long j = 0; j < 3; j++");
    fdx_cg_stmt(fdx_cg_for(j, FDX_CG_LOOP, "long long i = 0; i < n; i++"), "out[j * n + i] = 3 * a[j * n + i] + j");
    fdx_cg_barrier(par, NULL);
    char *src = print(cg);
    fdx_cg_destroy(cg);
    if (!src) return;
    CHECK(strstr(src, "void cg_addr(void **fdx_args)") && strstr(src, "double *restrict out = *(double **)fdx_args[0];") &&
              strstr(src, "const long long n = *(const long long *)fdx_args[2];"),
          "arguments by address:\n%s", src);
    CHECK(strstr(src, "#pragma omp for collapse(2) schedule(static) nowait\n") != NULL, "work-sharing nest:\n%s", src);
    const fdx_backend *be = fdx_backend_cpu();
    fdx_kernel *kern = jit(src, "cg_addr");
    if (!kern) return;
    enum { N = 37 };
    double a[3 * N], out[3 * N];
    for (int q = 0; q < 3 * N; q++) a[q] = (q * 7919 % 1000) / 13.0, out[q] = NAN;
    double *po = out, *pa = a;
    long long n = N;
    void *args[] = {&po, &pa, &n};
    CHECK_OK(be->launch(kern, NULL, args, NULL));
    be->kernel_release(kern);
    int bad = 0;
    for (int q = 0; q < 3 * N; q++) bad += !(out[q] == 3 * a[q] + q / N);
    CHECK(bad == 0, "%d of %d results wrong", bad, 3 * N);
}

static void test_cuda_text(void)
{
    fdx_cg *cg = build(FDX_CG_CUDA, 2);
    fdx_cg_node *k = fdx_cg_kernel(fdx_cg_root(cg), "cg_async", NULL, 0, 64, 2);
    fdx_cg_shared(k, "unsigned char", "smem_", NULL);
    fdx_cg_stmt(k, "const unsigned sb = (unsigned)__cvta_generic_to_shared(smem_)");
    fdx_cg_stmt(k, "__shared__ double src_[64]");
    fdx_cg_async_copy(k, "threadIdx.x < 32", "sb + threadIdx.x * 16u", "src_ + 2 * threadIdx.x", 16);
    fdx_cg_async_commit(k);
    fdx_cg_async_wait(k, 0, "landed");
    fdx_cg_barrier(k, "visible to the block");
    fdx_cg_async_wait(k, -1, NULL);
    char *src = print(cg);
    fdx_cg_destroy(cg);
    if (!src) return;
    static const char *want[] = {
        "__device__ __forceinline__ real mix(real a, real b, int odd)",
        "extern \"C\" __global__ void __launch_bounds__(128) cg_test(real *__restrict__ out,",
        "const realv t_ = __ldg((const realv *)(a + j * n + i));",
        "const realv t_ = __ldcs((const realv *)(b + j * n + i));",
        "__stcs((realv *)(out + j * n + i), o_);",
        "s += __ldg(a + q);",
        "extern \"C\" __global__ void __launch_bounds__(64, 2) cg_async()",
        "extern __shared__ __align__(16) unsigned char smem_[];",
        "if (threadIdx.x < 32) asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" :: \"r\"(sb + threadIdx.x * "
        "16u), \"l\"(src_ + 2 * threadIdx.x) : \"memory\");",
        "asm volatile(\"cp.async.wait_group 0;\" ::: \"memory\"); /* landed */",
        "__syncthreads(); /* visible to the block */",
        "asm volatile(\"cp.async.wait_all;\" ::: \"memory\");",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        CHECK(strstr(src, want[i]) != NULL, "CUDA text lacks: %s\n%s", want[i], src);
    CHECK(strstr(src, "#pragma omp") == NULL, "OpenMP pragma in CUDA text");
#ifdef FDX_HAVE_CUDA
    int major, minor;
    if (fdx_nvrtc_version(&major, &minor) == FDX_OK) {
        void *cubin = NULL;
        size_t size = 0;
        fdx_status st = fdx_nvrtc_compile(src, 90, "codegen_test.cu", &cubin, &size);
        CHECK(st == FDX_OK && size > 0, "NVRTC: %s\n%s", fdx_last_error(), src);
        free(cubin);
    } else {
        fdx_clear_error();
    }
#endif
    free(src);
}

static void test_c_refuses_cuda_only(void)
{
    fdx_cg *cg = fdx_cg_create(FDX_CG_C);
    fdx_cg_node *k = fdx_cg_kernel(fdx_cg_root(cg), "k", NULL, 0, 0, 0);
    fdx_cg_shared(k, "float", "tile", "[8][8]");
    fdx_sb out = FDX_SB_INIT;
    CHECK_FAILS(fdx_cg_print(cg, &out), FDX_ERR_UNSUPPORTED);
    CHECK(strstr(fdx_last_error(), "shared memory") != NULL, "message names the construct: %s", fdx_last_error());
    fdx_sb_free(&out);
    fdx_cg_destroy(cg);
}

int main(void)
{
    test_c_runs();
    test_c_by_address();
    test_cuda_text();
    test_c_refuses_cuda_only();
    return fdx_test_finish("test_codegen");
}
