/* The loop generator's CUDA kernels run on the CPU, no GPU needed: the
   generated CUDA source is compiled as C++ with a small shim (blockIdx and
   friends are globals, every thread of every block is called in turn) and
   launched step by step with the runtime's own launch shape
   (fdx_loop_launch_shape), then compared with the CPU backend's run of the
   same loop on random inputs, outputs poisoned with NaN (points outside
   the range must stay NaN).  Calling the threads one after another is a
   valid schedule for kernels without barriers: the points of a launch are
   independent.  Every kernel strategy: the grid kernel with 1, 2, 4, 8 and 16
   points a thread and with launches smaller than the chunk counts (the
   kernel strides), the flat kernel, hyperplanes flat and as lines with
   several block sizes, the diagonal walk a thread a point and a warp a
   diagonal; ranks 1 to 4, odd extents,
   permuted and diagonal layouts, shifted arrays, descending order.
   Kernels with reductions use barriers and run only on a GPU
   (test_loop_gpu, test_loop_order_gpu). */
#include "loop_test.h"

#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

static uint64_t seed = 4242;
static char dir[] = "/tmp/fdx-loop-emu-XXXXXX";
static int nlib;

/* The shim: CUDA's built-ins for a sequential C++ build of a kernel. */
static const char *SHIM = "#include <math.h>\n#include <stdlib.h>\n"
                          "#define __CUDACC_RTC__ 1\n#define __global__\n#define __device__\n"
                          "#define __forceinline__ inline\n#define __launch_bounds__(...)\n"
                          "#define __restrict__ __restrict\n"
                          "struct fdx_emu_dim { unsigned x, y, z; };\n"
                          "static fdx_emu_dim threadIdx, blockIdx, blockDim, gridDim;\n";

typedef void (*emu_fn)(void **args, const unsigned *grid, const unsigned *block);

/* Compiles the loop's CUDA source with the shim and a wrapper that runs
   one launch: every block, every thread. */
static emu_fn emu_build(fdx_loop *l, void **handle)
{
    char *src = NULL;
    CHECK_OK(fdx_loop_source(l, FDX_BACKEND_CUDA, &src));
    if (!src) return NULL;
    char path[128], so[128], cmd[512];
    snprintf(path, sizeof path, "%s/k%d.cpp", dir, nlib);
    snprintf(so, sizeof so, "%s/k%d.so", dir, nlib++);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f) {
        free(src);
        return NULL;
    }
    fprintf(f, "%s%s\n", SHIM, src);
    free(src);
    /* the wrapper: arrays, scalars, ints, T, s0, partials (as run_cuda) */
    fprintf(f, "extern \"C\" void fdx_emu(void **a, const unsigned *g, const unsigned *b)\n{\n");
    fprintf(f, "    gridDim = {g[0], g[1], g[2]};\n    blockDim = {b[0], b[1], 1};\n");
    fprintf(f, "    for (unsigned z = 0; z < g[2]; z++) for (unsigned y = 0; y < g[1]; y++) for (unsigned x = 0; x < g[0]; x++)\n");
    fprintf(f, "    for (unsigned ty = 0; ty < b[1]; ty++) for (unsigned tx = 0; tx < b[0]; tx++) {\n");
    fprintf(f, "        blockIdx = {x, y, z};\n        threadIdx = {tx, ty, 0};\n        fdx_loop_kernel(");
    int n = 0;
    for (int q = 0; q < l->nargs; q++, n++)
        fprintf(f, "(%s *)a[%d], ", l->arg[q].array->dtype == FDX_FLOAT32 ? "float" : "double", n);
    fprintf(f, "*(fdx_scalars *)a[%d], *(fdx_ints *)a[%d], *(long long *)a[%d], *(long long *)a[%d], "
               "(double *)0, (long long *)0);\n    }\n}\n",
            n, n + 1, n + 2, n + 3);
    CHECK(fclose(f) == 0, "cannot write %s", path);
    const char *cxx = getenv("CXX");
    snprintf(cmd, sizeof cmd, "%s -std=c++17 -O1 -w -shared -fPIC -o %s %s", cxx && *cxx ? cxx : "c++", so, path);
    int rc = system(cmd);
    CHECK(rc == 0, "%s failed (%d)", cmd, rc);
    if (rc) return NULL;
    *handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    CHECK(*handle != NULL, "dlopen %s: %s", so, dlerror());
    return *handle ? (emu_fn)(uintptr_t)dlsym(*handle, "fdx_emu") : NULL;
}

/* One emulated fdx_loop_run_repeated(l, times): the steps of the geometry,
   each a launch of the runtime's shape on a `sms`-SM device; shrink > 1
   divides the grid kernel's dimensions (the kernel must stride). */
static void emu_run(fdx_loop *l, int times, int sms, int shrink)
{
    loop_geom g;
    CHECK_OK(fdx_loop_geometry(l, FDX_BACKEND_CUDA, &g));
    void *handle = NULL;
    emu_fn fn = emu_build(l, &handle);
    if (!fn) return;
    void *args[FDX_LOOP_MAX_ARGS + 4];
    int n = 0;
    for (int a = 0; a < l->nargs; a++) args[n++] = l->arg[a].array->device;
    double sc[64] = {0};
    memcpy(sc, l->scalar, sizeof l->scalar);
    long long ri[LOOP_RI_COUNT] = {0}, T = 0, s0 = 0;
    for (int d = 0; d < l->rank; d++) ri[d] = l->lo[d];
    for (int a = 0; a < l->nargs; a++)
        for (int x = 0; x < l->arg[a].array->rank; x++) ri[LOOP_RI_ORIGIN + a * FDX_MAX_RANK + x] = l->arg[a].origin[x];
    args[n++] = sc;
    args[n++] = ri;
    args[n++] = &T;
    args[n++] = &s0;
    unsigned dim[3], block[2];
    fdx_loop_launch_shape(l, &g, sms, dim, block);
    if (g.grid)
        for (int q = 0; q < 3; q++) dim[q] = dim[q] / (unsigned)shrink > 0 ? dim[q] / (unsigned)shrink : 1;
    long long steps = g.tmax + g.dist * (times - 1);
    for (T = 0; T <= steps; T++) {
        long long slo = T > g.tmax ? (T - g.tmax + g.dist - 1) / g.dist : 0, shi = T / g.dist;
        if (shi > times - 1) shi = times - 1;
        if (slo > shi) continue;
        s0 = slo;
        unsigned grid[3] = {dim[0], g.grid ? dim[1] : (unsigned)(shi - slo + 1), dim[2]};
        fn(args, grid, block);
    }
    dlclose(handle);
}

/* The loop's output array `out` after the CPU backend's run and after the
   emulated CUDA run, from the same input `in` (= init) and a poisoned
   output (unless out is in: an ACROSS loop in place). */
static void compare(fdx_loop *l, fdx_array *in, const double *init, fdx_array *out, size_t cnt, int times, int shrink,
                    const char *what)
{
    double *poison = malloc(cnt * 8), *ref = malloc(cnt * 8), *got = malloc(cnt * 8);
    for (size_t q = 0; q < cnt; q++) poison[q] = NAN;
    CHECK_OK(fdx_array_put(in, init));
    if (out != in) CHECK_OK(fdx_array_put(out, poison));
    CHECK_OK(fdx_loop_run_repeated(l, times, NULL));
    CHECK_OK(fdx_array_get(out, ref));
    CHECK_OK(fdx_array_put(in, init));
    if (out != in) CHECK_OK(fdx_array_put(out, poison));
    emu_run(l, times, 2, shrink);
    CHECK_OK(fdx_array_get(out, got));
    size_t written = 0;
    for (size_t q = 0; q < cnt; q++) written += !isnan(ref[q]);
    CHECK(written > 0, "%s: the reference wrote nothing", what);
    CHECK(same_or_poisoned(got, ref, cnt), "%s: the emulated CUDA kernel differs from the CPU run", what);
    free(poison);
    free(ref);
    free(got);
}

static fdx_array *random_array(int rank, const int64_t *n, double **init)
{
    size_t cnt = 1;
    for (int d = 0; d < rank; d++) cnt *= (size_t)n[d];
    *init = malloc(cnt * 8);
    for (size_t q = 0; q < cnt; q++) (*init)[q] = fdx_test_rand(&seed);
    return make(rank, n, *init);
}

/* A parallel star stencil of rank r (neighbours +-1 on each axis) from A
   into B, under the knobs of the case; A permuted or diagonal by `lay`. */
static void stencil_case(int rank, const int64_t *n, int lay, int down, const char *kernel, const char *ppt, int shrink)
{
    static const char *ix[4] = {"i", "j", "k", "l"};
    size_t cnt = 1;
    for (int d = 0; d < rank; d++) cnt *= (size_t)n[d];
    double *a = NULL;
    fdx_array *A = random_array(rank, n, &a);
    fdx_array *B = make(rank, n, NULL);
    if (lay) {
        fdx_layout L;
        int perm[4] = {rank - 1, 0, 1, 2};
        if (lay == 1) CHECK_OK(fdx_layout_make(rank, perm, FDX_DIAG_NONE, &L));
        else CHECK_OK(fdx_layout_make(rank, NULL, lay == 2 ? FDX_DIAG_ANTI : FDX_DIAG_MAIN, &L));
        CHECK_OK(fdx_array_set_layout(A, &L));
        if (lay >= 2) CHECK_OK(fdx_array_set_layout(B, &L));
    }
    fdx_loop *l = NULL;
    const char *names = rank == 1 ? "i" : rank == 2 ? "i,j" : rank == 3 ? "i,j,k" : "i,j,k,l";
    CHECK_OK(fdx_loop_create(ctx, names, &l));
    CHECK_OK(fdx_loop_set_autotfm(l, 0));
    int64_t lo[4], hi[4];
    for (int d = 0; d < rank; d++) lo[d] = 1, hi[d] = n[d] - 1;
    CHECK_OK(fdx_loop_range(l, lo, hi));
    CHECK_OK(fdx_loop_array(l, "A", A, FDX_READ));
    CHECK_OK(fdx_loop_array(l, "B", B, FDX_WRITE));
    if (down) CHECK_OK(fdx_loop_order(l, (int[]){-1, 1, -1, 1}));
    CHECK_OK(fdx_loop_scalar(l, "w", 0.3));
    char body[1024], acc[64];
    size_t m = 0;
    m += (size_t)snprintf(body + m, sizeof body - m, "double v = A(%s) * (1 + i)", names);
    for (int d = 0; d < rank; d++)
        for (int s = -1; s <= 1; s += 2) {
            size_t k = (size_t)snprintf(acc, sizeof acc, "A(");
            for (int e = 0; e < rank; e++)
                k += (size_t)snprintf(acc + k, sizeof acc - k, "%s%s%s", e ? "," : "", ix[e], e == d ? (s < 0 ? "-1" : "+1") : "");
            snprintf(acc + k, sizeof acc - k, ")");
            m += (size_t)snprintf(body + m, sizeof body - m, " + w * %d * %s", d + 2 * (s > 0) + 1, acc);
        }
    m += (size_t)snprintf(body + m, sizeof body - m, ";\nB(%s) = v + %s;", names, rank > 1 ? "0.001 * j" : "0");
    CHECK_OK(fdx_loop_body(l, body));
    if (kernel) setenv("FDX_LOOP_KERNEL", kernel, 1);
    if (ppt) setenv("FDX_LOOP_PPT", ppt, 1);
    char what[160];
    snprintf(what, sizeof what, "rank %d layout %d down %d kernel %s ppt %s shrink %d", rank, lay, down, kernel ? kernel : "default", ppt ? ppt : "default", shrink);
    loop_geom g;
    CHECK_OK(fdx_loop_geometry(l, FDX_BACKEND_CUDA, &g));
    CHECK(g.grid == (lay < 2 && !(kernel && strcmp(kernel, "flat") == 0)), "%s: grid kernel %d", what, g.grid);
    CHECK(lay < 2 || g.diag2 >= 0, "%s: no diagonal walk on diagonal arrays", what);
    CHECK(lay < 2 || g.lines == (getenv("FDX_LOOP_DIAG") != NULL), "%s: diagonal walk by lines %d", what, g.lines);
    compare(l, A, a, B, cnt, 1, shrink, what);
    nvrtc_check(l);
    unsetenv("FDX_LOOP_KERNEL");
    unsetenv("FDX_LOOP_PPT");
    fdx_loop_destroy(&l);
    fdx_array_destroy(&A);
    fdx_array_destroy(&B);
    free(a);
}

static void test_parallel(void)
{
    static const int64_t n1[1] = {301}, n2[2] = {37, 23}, n3[3] = {13, 11, 9}, n4[4] = {7, 6, 5, 4},
                         wide[2] = {300, 41}, tall[2] = {5, 70};
    static const char *ppts[] = {"1", "2", "4", "8", "16"};
    for (int p = 0; p < 5; p++)
        for (int shrink = 1; shrink <= 3; shrink += 2) {
            stencil_case(2, n2, 0, 0, "grid", ppts[p], shrink);
            stencil_case(3, n3, 1, p & 1, "grid", ppts[p], shrink);
        }
    stencil_case(1, n1, 0, 0, NULL, NULL, 1);
    stencil_case(1, n1, 0, 1, NULL, NULL, 5);
    stencil_case(4, n4, 0, 0, NULL, "4", 1);
    stencil_case(4, n4, 1, 1, NULL, "2", 3);
    stencil_case(2, wide, 0, 0, NULL, NULL, 1);
    stencil_case(2, tall, 0, 1, NULL, "8", 2);
    stencil_case(3, n3, 0, 0, "flat", NULL, 1);
    stencil_case(2, n2, 0, 0, "flat", NULL, 1);
    /* the diagonal walk (arrays on a diagonal of axes 0, 1): a thread a
       point, and a warp per diagonal */
    for (int lines = 0; lines < 2; lines++) {
        if (lines) setenv("FDX_LOOP_DIAG", "lines", 1);
        stencil_case(2, n2, 2, 0, NULL, NULL, 1);
        stencil_case(3, n3, 2, 0, NULL, NULL, 1);
        stencil_case(2, wide, 2, 0, NULL, NULL, 1);
        stencil_case(3, n3, 3, 1, NULL, NULL, 1);
        unsetenv("FDX_LOOP_DIAG");
    }
}

/* ALIGN shift: B(i,j) is element (i-1, j-1) of a smaller array. */
static void test_shifted(void)
{
    const int64_t n[2] = {29, 17}, nb[2] = {27, 15};
    size_t cntb = 27 * 15;
    double *a = NULL;
    fdx_array *A = random_array(2, n, &a);
    fdx_array *B = make(2, nb, NULL);
    fdx_loop *l = NULL;
    CHECK_OK(fdx_loop_create(ctx, "i,j", &l));
    CHECK_OK(fdx_loop_range(l, (int64_t[]){1, 1}, (int64_t[]){28, 16}));
    CHECK_OK(fdx_loop_array(l, "A", A, FDX_READ));
    CHECK_OK(fdx_loop_array(l, "B", B, FDX_WRITE));
    CHECK_OK(fdx_loop_array_origin(l, "B", (int64_t[]){1, 1}));
    CHECK_OK(fdx_loop_body(l, "B(i,j) = A(i-1,j) - 2 * A(i,j+1) + 0.5 * j;"));
    for (int p = 1; p <= 4; p *= 2) {
        char v[4];
        snprintf(v, sizeof v, "%d", p);
        setenv("FDX_LOOP_PPT", v, 1);
        compare(l, A, a, B, cntb, 1, p, "shifted array");
    }
    unsetenv("FDX_LOOP_PPT");
    fdx_loop_destroy(&l);
    fdx_array_destroy(&A);
    fdx_array_destroy(&B);
    free(a);
}

/* SOR as an ACROSS loop, 3 pipelined sweeps: hyperplanes as lines and flat
   (a thread a point) with several block sizes, plain and anti-diagonal. */
static void test_across(void)
{
    static const char *blocks[] = {"32", "64", "256"};
    /* lines longer than a warp on the second shape */
    for (int shape = 0; shape < 2; shape++)
    for (int lay = 0; lay < 2; lay++)
        for (int lines = 0; lines < 2; lines++)
            for (int b = 0; b < 3; b++) {
                const int64_t n[3] = {shape ? 45 : 13, shape ? 40 : 11, shape ? 4 : 9};
                size_t cnt = (size_t)(n[0] * n[1] * n[2]);
                double *a = NULL;
                fdx_array *A = random_array(3, n, &a);
                if (lay) {
                    fdx_layout L;
                    CHECK_OK(fdx_layout_make(3, NULL, FDX_DIAG_ANTI, &L));
                    CHECK_OK(fdx_array_set_layout(A, &L));
                }
                fdx_loop *l = NULL;
                CHECK_OK(fdx_loop_create(ctx, "i,j,k", &l));
                CHECK_OK(fdx_loop_set_autotfm(l, 0));
                CHECK_OK(fdx_loop_range(l, (int64_t[]){1, 1, 1}, (int64_t[]){n[0] - 1, n[1] - 1, n[2] - 1}));
                CHECK_OK(fdx_loop_array(l, "A", A, FDX_READ_WRITE));
                CHECK_OK(fdx_loop_across(l, (int[]){1, 1, 1}));
                CHECK_OK(fdx_loop_body(l, "A(i,j,k) = 0.25 * (A(i-1,j,k) + A(i+1,j,k) + A(i,j-1,k) + A(i,j+1,k)) "
                                          "+ 0.1 * (A(i,j,k-1) - A(i,j,k+1)) + 0.01 * A(i,j,k);"));
                if (!lines) setenv("FDX_LOOP_LINES", "0", 1);
                setenv("FDX_LOOP_BLOCK", blocks[b], 1);
                char what[96];
                snprintf(what, sizeof what, "SOR %lldx%lldx%lld layout %d %s block %s", (long long)n[0], (long long)n[1],
                         (long long)n[2], lay, lines ? "lines" : "flat", blocks[b]);
                loop_geom g;
                CHECK_OK(fdx_loop_geometry(l, FDX_BACKEND_CUDA, &g));
                CHECK(g.lines == lines && g.block == atoi(blocks[b]), "%s: geometry lines %d block %d", what, g.lines,
                      g.block);
                compare(l, A, a, A, cnt, 3, 1, what);
                unsetenv("FDX_LOOP_LINES");
                unsetenv("FDX_LOOP_BLOCK");
                fdx_loop_destroy(&l);
                fdx_array_destroy(&A);
                free(a);
            }
}

int main(void)
{
    (void)max_rel;
    ctx = fdx_test_ctx("cpu");
    if (!ctx) return fdx_test_skip("test_loop_emu", "no CPU context");
    if (system("c++ --version >/dev/null 2>&1") != 0) return fdx_test_skip("test_loop_emu", "no C++ compiler");
    if (!mkdtemp(dir)) return fdx_test_skip("test_loop_emu", "no temporary directory");
    test_parallel();
    test_shifted();
    test_across();
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_loop_emu");
}
