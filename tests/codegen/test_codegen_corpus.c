/* The generator's identity corpus: every stencil kernel the CUDA tests
   compile (tests/stencil_corpus.h), every candidate the tuner's search
   visits on the GPU benchmark cases (fake trials on an H100-like device,
   three different timing orders, so the search walks different paths), the
   CPU kernel of every spec, and the loop generator's corpus (loop_corpus.h:
   CUDA and C of every loop strategy and the NPB LU loops; `DIR loops` writes
   that part alone).  Run without arguments (ctest) it checks
   that each generates; with a directory it also writes each source there
   (NNNN.cu / NNNN.c, plus NNNN.cfg naming the spec and configuration), which
   tools/codegen-digest compiles and digests, so a change of the generator
   can be shown to leave the machine code identical. */
#include "fake_device.h"
#include "fdx_test.h"
#include "stencil/fdx_stencil_tune.h"
#include "stencil_corpus.h"
#include "loop_corpus.h"

#ifdef FDX_HAVE_CUDA
#include "backends/cuda/fdx_cuda.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct corpus {
    const char *dir; /* NULL: generate only */
    int count;
    unsigned long long seen[8192]; /* hashes of the sources written */
    int nseen;
} corpus;

static corpus C;

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f) return;
    fputs(text, f);
    CHECK(fclose(f) == 0, "cannot write %s", path);
}

/* With NVRTC, the cubin for sm_90 as the engine compiles it (same options). */
static void write_cubin(const char *path, const char *src)
{
#ifdef FDX_HAVE_CUDA
    static int nvrtc = -1;
    int major, minor;
    if (nvrtc < 0) nvrtc = fdx_nvrtc_version(&major, &minor) == FDX_OK;
    if (!nvrtc) return;
    void *cubin = NULL;
    size_t size = 0;
    fdx_status st = fdx_nvrtc_compile(src, 90, path, &cubin, &size);
    CHECK(st == FDX_OK, "%s: %s", path, fdx_last_error());
    FILE *f = st == FDX_OK ? fopen(path, "wb") : NULL;
    if (f) {
        CHECK(fwrite(cubin, 1, size, f) == size, "cannot write %s", path);
        CHECK(fclose(f) == 0, "cannot write %s", path);
    }
    free(cubin);
#else
    (void)path, (void)src;
#endif
}

/* One generated source: each distinct text once (the stencil's chunk and by
   are run-time parameters), written with its label and, for CUDA, its cubin. */
static void emit_source(char *src, int cuda, const char *entry, const char *label)
{
    if (!src) return;
    unsigned long long h = 14695981039346656037ull;
    for (const char *c = src; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    for (int i = 0; i < C.nseen; i++)
        if (C.seen[i] == h) {
            free(src);
            return;
        }
    if (C.nseen < 8192) C.seen[C.nseen++] = h;
    CHECK(strstr(src, entry) != NULL, "%s: no entry point %s in the generated source", label, entry);
    if (C.dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%04d.%s", C.dir, C.count, cuda ? "cu" : "c");
        write_text(path, src);
        snprintf(path, sizeof path, "%s/%04d.cfg", C.dir, C.count);
        write_text(path, label);
        if (cuda) {
            snprintf(path, sizeof path, "%s/%04d.cubin", C.dir, C.count);
            write_cubin(path, src);
        }
    }
    C.count++;
    free(src);
}

static void emit(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg, int cuda)
{
    char *src = NULL, spec[32], text[128], line[256];
    CHECK_OK(fdx_stencil_generate(ks, cfg, cuda, &src));
    fdx_stencil_kspec_text(ks, spec, sizeof spec);
    fdx_stencil_cfg_text(cfg, cuda, text, sizeof text);
    snprintf(line, sizeof line, "%s %s\n", spec, text);
    emit_source(src, cuda, FDX_STENCIL_ENTRY, line);
}

static void each_cuda(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg, void *arg)
{
    (void)arg;
    emit(ks, cfg, 1);
}

typedef struct trial_arg {
    int order;
    fdx_stencil_kspec ks;
} trial_arg;

/* A deterministic fake time per configuration: `order` picks one of three
   orderings, so the coordinate search takes different paths. */
static fdx_status fake_trial(void *arg, const fdx_stencil_cfg *cfg, double *ms)
{
    const trial_arg *t = arg;
    emit(&t->ks, cfg, 1);
    unsigned h = 2166136261u ^ (unsigned)t->order;
    const unsigned char *p = (const unsigned char *)cfg;
    for (size_t i = 0; i < sizeof *cfg; i++) h = (h ^ p[i]) * 16777619u;
    *ms = 1.0 + (h % 1000) / 1000.0;
    return FDX_OK;
}

int main(int argc, char **argv)
{
    C.dir = argc > 1 ? argv[1] : NULL;
    /* `test_codegen_corpus DIR loops`: the loop generator's corpus alone */
    if (argc > 2 && strcmp(argv[2], "loops") == 0) {
        loop_corpus(emit_source);
        printf("corpus: %d loop kernels (CUDA and CPU)\n", C.count);
        return fdx_test_finish("test_codegen_corpus");
    }
    stencil_corpus_nvrtc(each_cuda, NULL);
    int nvrtc = C.count;
    /* The tuner's candidates on the GPU benchmark cases (tools/fdx/bench_stencil.c). */
    fdx_device_info dev = fake_h100("corpus H100");
    static const struct {
        int rank, order, update, coef, dbl;
        int64_t n3[3];
    } cases[] = {
        {3, 2, FDX_UPDATE_APPLY, 0, 1, {512, 512, 512}},   {3, 2, FDX_UPDATE_APPLY, 0, 1, {1024, 1024, 1024}},
        {3, 2, FDX_UPDATE_APPLY, 0, 0, {1024, 1024, 1024}}, {3, 2, FDX_UPDATE_APPLY, 0, 1, {1000, 600, 300}},
        {3, 2, FDX_UPDATE_APPLY, 0, 0, {513, 257, 255}},    {3, 2, FDX_UPDATE_APPLY, 0, 0, {512, 256, 256}},
        {3, 8, FDX_UPDATE_APPLY, 0, 1, {512, 512, 512}},    {2, 8, FDX_UPDATE_WAVE, 0, 0, {16384, 16384, 1}},
        {2, 8, FDX_UPDATE_WAVE, 0, 0, {12000, 9000, 1}},    {3, 4, FDX_UPDATE_HEAT, 1, 0, {512, 512, 512}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int order = 0; order < 3; order++) {
            trial_arg arg = {order, {cases[i].dbl, cases[i].rank, cases[i].order / 2, cases[i].update, cases[i].coef, 0, 0}};
            int64_t n3[3];
            fdx_stencil_shape3(cases[i].rank, cases[i].n3, n3);
            fdx_stencil_cfg best;
            CHECK_OK(fdx_stencil_tune(&arg.ks, &dev, 1, n3, fake_trial, &arg, &best));
        }
    int tuner = C.count - nvrtc;
    /* The CPU kernel of every spec (it depends on the spec only). */
    fdx_stencil_cfg cpu = {.variant = FDX_SV_SMEM, .tx = 1, .ty = 1, .vec = 1, .chunk = 4, .by = 4, .pd = 1};
    for (int dbl = 0; dbl < 2; dbl++)
        for (int rank = 1; rank <= 3; rank++)
            for (int r = 1; r <= FDX_STENCIL_MAX_RADIUS; r++)
                for (int upd = 0; upd < 3; upd++)
                    for (int flags = 0; flags < 8; flags++) {
                        int sponge = flags & 4;
                        if (sponge && (upd != FDX_UPDATE_WAVE || rank < 2)) continue;
                        fdx_stencil_kspec ks = {dbl, rank, r, upd, flags & 1, (flags >> 1) & 1, sponge ? 1 : 0};
                        emit(&ks, &cpu, 0);
                    }
    int stencils = C.count;
    loop_corpus(emit_source);
    printf("corpus: %d loop kernels (CUDA and CPU)\n", C.count - stencils);
    printf("corpus: %d CUDA kernels of the tests, %d more tuner candidates, %d CPU kernels\n", nvrtc, tuner,
           stencils - nvrtc - tuner);
    return fdx_test_finish("test_codegen_corpus");
}
