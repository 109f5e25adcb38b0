/* The loop generator's CUDA kernels run on the CPU, no GPU needed: the
   generated CUDA source is compiled as C++ after tests/cuda_emu.h's shim
   (under AddressSanitizer where the compiler has it: a kernel reading or
   writing outside an array aborts) and launched step by step with the
   runtime's own launch shape (fdx_loop_launch_shape) in a small program
   that reads the arrays from files and writes them back; the result is
   compared with the CPU backend's run of the same loop on random inputs,
   outputs poisoned with NaN (points outside the range must stay NaN).
   Calling the threads one after another is a valid schedule for kernels
   without barriers: the points of a launch are independent.  Every kernel
   strategy: the grid kernel with 1, 2, 4, 8 and 16 points a thread and
   with launches smaller than the chunk counts (the kernel strides), the
   flat kernel, hyperplanes flat and as lines with several block sizes,
   the diagonal walk a thread a point and a warp a diagonal; ranks 1 to 4,
   odd extents, permuted and diagonal layouts, shifted arrays, descending
   order.  Kernels with reductions run on a GPU (test_loop_gpu,
   test_loop_order_gpu). */
#include "loop_test.h"
#include "cuda_emu.h"

#include <string.h>
#include <unistd.h>

static uint64_t seed = 4242;

/* One emulated fdx_loop_run_repeated(l, times): the steps of the geometry,
   each a launch of the runtime's shape on a `sms`-SM device; shrink > 1
   divides the grid kernel's dimensions (the kernel must stride).  The
   arrays go to the program and come back through files. */
static void emu_run(fdx_loop *l, int times, int sms, int shrink, const char *what)
{
    loop_geom g;
    CHECK_OK(fdx_loop_geometry(l, FDX_BACKEND_CUDA, &g));
    char *src = NULL;
    CHECK_OK(fdx_loop_source(l, FDX_BACKEND_CUDA, &src));
    if (!src) return;
    unsigned dim[3], block[2];
    fdx_loop_launch_shape(l, &g, sms, dim, block);
    if (g.grid)
        for (int q = 0; q < 3; q++) dim[q] = dim[q] / (unsigned)shrink > 0 ? dim[q] / (unsigned)shrink : 1;
    fdx_sb p = FDX_SB_INIT;
    /* the cooperative kernel's grid barrier: one block here, whose
       barrier passes at once */
    if (g.coop)
        fdx_sb_puts(&p, "static unsigned atomicAdd(unsigned *p, unsigned v) { unsigned o = *p; *p += v; return o; }\n"
                        "static unsigned long long atomicAdd(unsigned long long *p, unsigned long long v)\n"
                        "{ unsigned long long o = *p; *p += v; return o; }\n"
                        "static void __threadfence() {}\n");
    fdx_sb_printf(&p, "%s\n", src);
    free(src);
    /* Files by name in $FDX_EMU_DIR (cuda_emu_start): the text names no
       pid, so FDX_EMU_CACHE finds the program again. */
    fdx_sb_puts(&p, "static void fdx_io(const char *name, unsigned char *d, size_t n, bool out)\n"
                    "{ const char *dir = getenv(\"FDX_EMU_DIR\");\n"
                    "  char path[600];\n"
                    "  snprintf(path, sizeof path, \"%s/%s\", dir ? dir : \"(FDX_EMU_DIR unset)\", name);\n"
                    "  FILE *f = fopen(path, out ? \"wb\" : \"rb\");\n"
                    "  if (!f || (out ? fwrite(d, 1, n, f) : fread(d, 1, n, f)) != n) { fprintf(stderr, \"%s\\n\", path); exit(1); }\n"
                    "  fclose(f); }\n"
                    "int main()\n{\n");
    char path[FDX_LOOP_MAX_ARGS][300];
    for (int a = 0; a < l->nargs; a++) {
        size_t bytes = fdx_array_bytes(l->arg[a].array);
        snprintf(path[a], sizeof path[a], "%s/a%d.bin", cuda_emu_dir, a);
        FILE *f = fopen(path[a], "wb");
        CHECK(f && fwrite(l->arg[a].array->device, 1, bytes, f) == bytes, "cannot write %s", path[a]);
        if (f) fclose(f);
        /* exactly the array's bytes: AddressSanitizer sees any access beyond */
        fdx_sb_printf(&p, "  std::vector<unsigned char> a%d(%zu);\n  fdx_io(\"a%d.bin\", a%d.data(), %zu, false);\n", a,
                      bytes, a, a, bytes);
    }
    fdx_sb_puts(&p, "  double sc[] = {");
    for (int q = 0; q < LOOP_MAX_SCALARS; q++) fdx_sb_printf(&p, "%s%.17g", q ? ", " : "", l->scalar[q]);
    fdx_sb_puts(&p, "};\n  long long ri[] = {");
    long long ri[LOOP_RI_COUNT] = {0};
    for (int d = 0; d < l->rank; d++) ri[d] = l->lo[d];
    for (int a = 0; a < l->nargs; a++)
        for (int x = 0; x < l->arg[a].array->rank; x++) ri[LOOP_RI_ORIGIN + a * FDX_MAX_RANK + x] = l->arg[a].origin[x];
    for (int q = 0; q < LOOP_RI_COUNT; q++) fdx_sb_printf(&p, "%s%lld", q ? ", " : "", ri[q]);
    fdx_sb_printf(&p, "};\n  const long long tmax = %lld, dist = %lld, times = %d, steps = tmax + dist * (times - 1);\n",
                  (long long)g.tmax, (long long)g.dist, times);
    if (g.coop) {
        /* FDX_LOOP_COOP=1: ranges of 5 steps, each one launch of one block
           (blocks run one after another here, so a grid barrier between
           several would wait forever) that walks every block of each
           step's launch shape (dim[0] x the sweeps in flight) in turn */
        fdx_sb_printf(&p, "  alignas(8) unsigned bar[4] = {0, 0, 0, 0};\n  const long long smax = times - 1;\n  const unsigned vgx = %uu;\n"
                          "  for (long long T0 = 0; T0 <= steps; T0 += 5) {\n"
                          "    const long long T1 = T0 + 5 < steps + 1 ? T0 + 5 : steps + 1;\n"
                          "    const unsigned gr[3] = {1u, 1u, 1u};\n"
                          "    cuda_emu_grid(gr, %u, %u, 0, true, [&] { fdx_loop_kernel(",
                      dim[0], block[0], block[1]);
        for (int a = 0; a < l->nargs; a++)
            fdx_sb_printf(&p, "(%s *)a%d.data(), ", l->arg[a].array->dtype == FDX_FLOAT32 ? "float" : "double", a);
        fdx_sb_puts(&p, "*(fdx_scalars *)sc, *(fdx_ints *)ri, T0, T1, smax, vgx, bar, (double *)0, (long long *)0); });\n"
                        "    if (bar[2] || bar[3]) { fprintf(stderr, \"work counter not reset\\n\"); return 1; }\n  }\n");
    }
    char gy[32] = "(unsigned)(shi - slo + 1)"; /* the sweeps in flight, except for the grid kernel */
    if (g.grid) snprintf(gy, sizeof gy, "%uu", dim[1]);
    if (!g.coop) fdx_sb_printf(&p, "  for (long long T = 0; T <= steps; T++) {\n"
                      "    long long slo = T > tmax ? (T - tmax + dist - 1) / dist : 0, shi = T / dist;\n"
                      "    if (shi > times - 1) shi = times - 1;\n    if (slo > shi) continue;\n    const long long s0 = slo;\n"
                      "    const unsigned gr[3] = {%uu, %s, %uu};\n"
                      "    cuda_emu_grid(gr, %u, %u, 0, false, [&] { fdx_loop_kernel(",
                  dim[0], gy, dim[2], block[0], block[1]);
    for (int a = 0; a < l->nargs && !g.coop; a++)
        fdx_sb_printf(&p, "(%s *)a%d.data(), ", l->arg[a].array->dtype == FDX_FLOAT32 ? "float" : "double", a);
    if (!g.coop) fdx_sb_puts(&p, "*(fdx_scalars *)sc, *(fdx_ints *)ri, T, s0, (double *)0, (long long *)0); });\n  }\n");
    for (int a = 0; a < l->nargs; a++)
        if (l->arg[a].access & FDX_WRITE)
            fdx_sb_printf(&p, "  fdx_io(\"a%d.bin\", a%d.data(), a%d.size(), true);\n", a, a, a);
    fdx_sb_puts(&p, "  return 0;\n}\n");
    char *prog = NULL;
    CHECK_OK(fdx_sb_take(&p, "emulation program", &prog));
    if (prog) cuda_emu_run(prog, "-O1", "-O1", what);
    free(prog);
    for (int a = 0; a < l->nargs; a++) {
        size_t bytes = fdx_array_bytes(l->arg[a].array);
        FILE *f = fopen(path[a], "rb");
        CHECK(f && fread(l->arg[a].array->device, 1, bytes, f) == bytes, "cannot read %s", path[a]);
        if (f) fclose(f);
        unlink(path[a]);
    }
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
    emu_run(l, times, 2, shrink, what);
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
        char v[16];
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
    /* lines longer than a warp on the second shape; the cooperative
       kernel on it with blocks of 64 (FDX_LOOP_COOP=1: blocks from the
       work counter; 2: round robin, plain layout) */
    for (int coop = 0; coop < 3; coop++)
    for (int shape = coop > 0; shape < 2; shape++)
    for (int lay = 0; lay < (coop == 2 ? 1 : 2); lay++)
        for (int lines = 0; lines < 2; lines++)
            for (int b = coop > 0; b < (coop ? 2 : 3); b++) {
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
                if (coop) setenv("FDX_LOOP_COOP", coop == 2 ? "2" : "1", 1);
                char what[96];
                snprintf(what, sizeof what, "SOR %lldx%lldx%lld layout %d %s block %s%s", (long long)n[0], (long long)n[1],
                         (long long)n[2], lay, lines ? "lines" : "flat", blocks[b],
                         coop == 2 ? " cooperative round robin" : coop ? " cooperative" : "");
                loop_geom g;
                CHECK_OK(fdx_loop_geometry(l, FDX_BACKEND_CUDA, &g));
                CHECK(g.lines == lines && g.block == atoi(blocks[b]) && g.coop == coop, "%s: geometry lines %d block %d coop %d",
                      what, g.lines, g.block, g.coop);
                compare(l, A, a, A, cnt, 3, 1, what);
                unsetenv("FDX_LOOP_LINES");
                unsetenv("FDX_LOOP_BLOCK");
                unsetenv("FDX_LOOP_COOP");
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
    if (!cuda_emu_start("test-loop-emu")) return fdx_test_skip("test_loop_emu", "no working C++ compiler");
    test_parallel();
    test_shifted();
    test_across();
    rmdir(cuda_emu_dir);
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_loop_emu");
}
