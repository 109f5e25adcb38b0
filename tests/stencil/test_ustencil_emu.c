/* The generated CUDA kernels of user stencils, run on the CPU (cuda_emu.h):
   the march (every lane count, unroll, chunks that leave a partial last
   block, small blocks, widths whose last thread shifts its lanes, vector
   loads) and the point kernel, on every case of ustencil_ref.h in both
   precisions, against the reference on random inputs with random weights
   and a NaN-poisoned output.  The march and the point kernel use no shared
   memory or barriers, so running the grid one thread at a time is an order
   a GPU may choose; the tile march (FDX_US_TILE: cp.async copies into
   shared stages, a barrier a plane) runs its blocks' threads as fibers
   between barriers, its copies done at issue, its shared bytes NaN at
   first (cuda_emu.h).  The kernel reads its parameters and arrays from a file and
   writes the output to another; the comparison is the C reference's.
   Skipped without a C++ compiler. */
#include "cuda_emu.h"
#include "stencil/fdx_stencil_impl.h"
#include "stencil/fdx_ustencil_impl.h"
#include "ustencil_ref.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads the parameters and arrays, runs the grid, writes array 0 (out). */
static const char driver[] =
    "int main(int argc, char **argv)\n{\n"
    "    FILE *f = fopen(argv[1], \"rb\");\n"
    "    if (!f) return 2;\n"
    "    static_assert(sizeof(fdx_up) == PSIZE, \"parameter block\");\n"
    "    fdx_up p;\n"
    "    if (fread(&p, PSIZE, 1, f) != 1) return 2;\n"
    "    const long long len[NARR] = {LENS};\n"
    "    real *a[NARR];\n"
    "    for (int i = 0; i < NARR; i++) {\n"
    "        void *m = nullptr;\n"
    "        if (posix_memalign(&m, 64, (size_t)len[i] * sizeof(real))) return 2;\n"
    "        a[i] = (real *)m;\n"
    "        if (fread(a[i], sizeof(real), (size_t)len[i], f) != (size_t)len[i]) return 2;\n"
    "    }\n"
    "    fclose(f);\n"
    "    const unsigned g[3] = {GX, GY, GZ};\n"
    "    cuda_emu_grid(g, TX, TY, SHMEM, SHMEM > 0, [&] { fdx_ustencil_kernel(CALL, p); });\n"
    "    f = fopen(argv[2], \"wb\");\n"
    "    if (!f || fwrite(a[0], sizeof(real), (size_t)len[0], f) != (size_t)len[0]) return 2;\n"
    "    fclose(f);\n"
    "    for (int i = 0; i < NARR; i++) free(a[i]);\n"
    "    return 0;\n"
    "}\n";

static int runs;

static void put(FILE *f, const double *v, int64_t n, int is_double)
{
    for (int64_t i = 0; i < n; i++) {
        if (is_double) {
            fwrite(&v[i], 8, 1, f);
        } else {
            float x = (float)v[i];
            fwrite(&x, 4, 1, f);
        }
    }
}

/* Runs one configuration of a case; returns 0 when it was run. */
static int run_cfg(const us_case *c, int is_double, const fdx_us_cfg *cfg, uint64_t seed)
{
    static fdx_us_spec ks;
    static double w[FDX_USTENCIL_MAX_TERMS];
    fdx_ustencil_desc *d = us_desc(c);
    if (!d) return 1;
    fdx_status st = fdx_us_spec_build(d, is_double, &ks, w);
    fdx_ustencil_desc_destroy(&d);
    CHECK(st == FDX_OK, "%s: %s", c->name, fdx_last_error());
    if (st != FDX_OK) return 1;
    int64_t n3[3];
    fdx_stencil_shape3(c->rank, c->grid, n3);
    if (!fdx_us_cfg_fits(&ks, cfg, n3)) return 1;
    char text[96], what[200];
    fdx_us_cfg_text(cfg, 1, text, sizeof text);
    snprintf(what, sizeof what, "emu %s %s", is_double ? "double" : "float", text);
    fdx_launch_dims dims;
    fdx_us_params p;
    char *kernel = NULL;
    CHECK_OK(fdx_us_launch_dims(&ks, cfg, n3, &dims));
    fdx_us_params_build(&ks, cfg, n3, w, &p);
    CHECK_OK(fdx_us_generate(&ks, cfg, 1, &kernel));
    if (!kernel) return 1;
    const int nc = c->ncomp, narr = 1 + c->ninputs + c->ncoefs;
    const int64_t n = us_points(c);
    double *f[1 + FDX_USTENCIL_MAX_INPUTS + FDX_USTENCIL_MAX_COEFS] = {0};
    int64_t len[1 + FDX_USTENCIL_MAX_INPUTS + FDX_USTENCIL_MAX_COEFS];
    double *ref = malloc((size_t)(n * nc) * sizeof *ref), *mag = malloc((size_t)(n * nc) * sizeof *mag);
    for (int i = 0; i < narr; i++) {
        len[i] = i <= c->ninputs ? n * nc : n;
        f[i] = i ? us_field(len[i], is_double, &seed, c->build == US_DIV && i > c->ninputs) : malloc((size_t)len[i] * 8);
        for (int64_t e = 0; e < len[i] && !i && f[i]; e++) f[i][e] = NAN;
    }
    char src[300], exe[300], log[300], in[300], outp[300];
    snprintf(src, sizeof src, "%s/u%d.cpp", cuda_emu_dir, runs);
    snprintf(exe, sizeof exe, "%s/u%d", cuda_emu_dir, runs);
    snprintf(log, sizeof log, "%s/u%d.log", cuda_emu_dir, runs);
    snprintf(in, sizeof in, "%s/u%d.in", cuda_emu_dir, runs);
    snprintf(outp, sizeof outp, "%s/u%d.out", cuda_emu_dir, runs);
    runs++;
    FILE *fs = fopen(src, "w"), *fi = fopen(in, "wb");
    CHECK(fs && fi, "cannot write %s / %s", src, in);
    if (fs && fi) {
        fdx_sb ks_ = FDX_SB_INIT;
        if (dims.shmem) cuda_emu_async_kernel(&ks_, kernel);
        else fdx_sb_puts(&ks_, kernel);
        fprintf(fs, "%s%s\n#define PSIZE %zu\n#define NARR %d\n#define SHMEM %zuu\n#define LENS ", cuda_emu_shim,
                fdx_sb_str(&ks_), p.size, narr, (size_t)dims.shmem);
        fdx_sb_free(&ks_);
        for (int i = 0; i < narr; i++) fprintf(fs, "%s%lldLL", i ? ", " : "", (long long)len[i]);
        fprintf(fs, "\n#define CALL ");
        for (int i = 0; i < narr; i++) fprintf(fs, "%sa[%d]", i ? ", " : "", i);
        fprintf(fs, "\n#define GX %uu\n#define GY %uu\n#define GZ %uu\n#define TX %uu\n#define TY %uu\n%s", dims.grid[0],
                dims.grid[1], dims.grid[2], dims.block[0], dims.block[1], driver);
        fwrite(p.bytes, 1, p.size, fi);
        for (int i = 0; i < narr; i++) put(fi, f[i], len[i], is_double);
    }
    if (fs) fclose(fs);
    if (fi) fclose(fi);
    free(kernel);
    int code = -1;
    CHECK_OK(cuda_emu_compile(src, exe, log, "-ffp-contract=off", "-O1", &code));
    CHECK(code == 0, "%s %s: the C++ compiler failed (exit %d), see %s", what, c->name, code, log);
    if (code == 0) {
        char *argv[] = {exe, in, outp, NULL};
        CHECK_OK(fdx_run_program(argv, log, &code));
        void *text_log = NULL, *data = NULL;
        size_t nl = 0, nd = 0;
        if (fdx_read_file(log, &text_log, &nl) != FDX_OK) fdx_clear_error();
        CHECK(code == 0, "%s %s: the kernel run failed (exit %d): %s", what, c->name, code,
              text_log ? (char *)text_log : "");
        free(text_log);
        if (code == 0 && fdx_read_file(outp, &data, &nd) == FDX_OK) {
            double *got = malloc((size_t)(n * nc) * sizeof *got);
            for (int64_t e = 0; got && e < n * nc; e++)
                got[e] = is_double ? ((double *)data)[e] : ((float *)data)[e];
            us_reference(c, f + 1, f + 1 + c->ninputs, ref, mag);
            if (got && us_compare(c, got, ref, mag, is_double ? 2.2e-16 : 1.2e-7, what) == 0)
                unlink(src), unlink(exe), unlink(log);
            free(got);
        }
        free(data);
    }
    unlink(in), unlink(outp);
    for (int i = 0; i < narr; i++) free(f[i]);
    free(ref), free(mag);
    return 0;
}

int main(void)
{
    if (!cuda_emu_start("test-uemu")) return fdx_test_skip("test_ustencil_emu", "no working C++ compiler (c++)");
    printf("test_ustencil_emu: compiling with c++ %s\n", cuda_emu_sanitize[0] ? cuda_emu_sanitize : "(no sanitizer)");
    static us_case cases[32];
    static us_case u;
    int n = us_cases(cases, 32, 1);
    /* {variant, tx, ty, vec, unroll, chunk, vload, pf, rows, pipe, minb}: vec 0 = the widest. */
    static const fdx_us_cfg cfgs[] = {
        {FDX_US_MARCH, 4, 2, 0, 1, 3, 0, 0, 1}, {FDX_US_MARCH, 8, 1, 1, 2, 100, 0, 2, 2},
        {FDX_US_MARCH, 3, 3, 2, 2, 4, 0, 0, 3}, {FDX_US_MARCH, 4, 2, 0, 2, 5, 1, 4, 1},
        {FDX_US_MARCH, 2, 4, 2, 1, 2, 1, 0, 2}, {FDX_US_POINT, 8, 2, 1, 1, 1, 0, 0, 1},
        {FDX_US_MARCH, 4, 1, 0, 1, 7, 1, 0, 4},
        /* pipelined steps: vector loads, scalar loads with rows, partial chunks */
        {FDX_US_MARCH, 4, 2, 0, 2, 5, 1, 2, 2, 1}, {FDX_US_MARCH, 3, 2, 1, 1, 3, 0, 0, 3, 1},
        /* chunks shorter than the unroll (the tuner's chunks 2 and 4) */
        {FDX_US_MARCH, 4, 2, 0, 4, 2, 1, 2, 2, 1}, {FDX_US_MARCH, 4, 2, 0, 4, 3, 0, 4, 1, 0},
        /* register caps (__launch_bounds__, the tuner's stage 2): the
           source the GPU runs, the bounds a no-op here */
        {FDX_US_MARCH, 4, 2, 0, 2, 5, 1, 2, 2, 1, 4}, {FDX_US_POINT, 8, 2, 1, 1, 1, 0, 0, 1, 0, 6},
        /* the shared-memory tile: planes in flight 1-4 (pf), partial
           chunks and blocks, rows, odd block shapes, a chunk of the grid */
        {FDX_US_TILE, 4, 2, 0, 1, 3, 0, 2, 1}, {FDX_US_TILE, 8, 1, 1, 2, 5, 0, 1, 2},
        {FDX_US_TILE, 3, 3, 2, 1, 4, 0, 3, 3}, {FDX_US_TILE, 4, 2, 0, 2, 100, 0, 4, 2},
    };
    const int ncfgs = sizeof cfgs / sizeof *cfgs;
    int ran = 0, by_cfg[32] = {0};
    for (int i = 0; i < n; i++)
        for (int k = 0; k < ncfgs; k++) {
            if ((i + k) % 2) continue; /* half the pairs, rotating */
            int is_double = (i + k / 2) % 2;
            fdx_us_cfg c = cfgs[k];
            if (!c.vec) c.vec = is_double ? 2 : 4;
            if (cases[i].rank < 3) c.tx *= c.ty, c.ty = 1, c.rows = 1;
            /* Vector loads need 2 rx and nx multiples of vec: the case's
               width is rounded up to one. */
            u = cases[i];
            if (c.vload && 2 * us_radius(&u) % c.vec) c.vec = 2;
            if (c.vload && u.grid[0] % c.vec) u.grid[0] += c.vec - u.grid[0] % c.vec;
            /* the tile: rows of whole lanes (no shifted last thread) */
            const int rx = us_radius(&u);
            if (c.variant == FDX_US_TILE && (u.grid[0] - 2 * rx) % c.vec) u.grid[0] += c.vec - (u.grid[0] - 2 * rx) % c.vec;
            if (run_cfg(&u, is_double, &c, 1000 + 10 * i + k) == 0) ran++, by_cfg[k]++;
        }
    for (int k = 0; k < ncfgs; k++) CHECK(by_cfg[k] >= 3, "configuration %d ran %d times", k, by_cfg[k]);
    rmdir(cuda_emu_dir);
    printf("test_ustencil_emu: %d kernels run\n", ran);
    return fdx_test_finish("test_ustencil_emu");
}
