/* fdx bench stencil: the stencil engine's benchmark cases (issue 3): the
   7-point Laplacian in both precisions, shapes that are no block multiple,
   the 25-point 8th-order operator and the 2D 8th-order wave step on the GPU;
   the Laplacian, the 8th-order operator and the wave step on the CPU.  One
   table row or JSON record per case, the copy bandwidth measured once in
   this process. */
#include "cmd_stencil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define F32 FDX_FLOAT32
#define F64 FDX_FLOAT64
#define APPLY FDX_UPDATE_APPLY
#define WAVE FDX_UPDATE_WAVE
/* One named case: name, rank, {extents}, order, update, coefficient array, element type, repetitions. */
#define CASE(nm, rk, ext, ord, upd, cf, ty, rp)                                                            \
    { .name = nm, .rank = rk, .shape = ext, .order = ord, .update = upd, .coef = cf, .dtype = ty, .reps = rp }
#define EXT(...) {__VA_ARGS__}

static const stencil_case gpu_cases[] = {
    CASE("lap7_f64_512", 3, EXT(512, 512, 512), 2, APPLY, 0, F64, 20),
    CASE("lap7_f64_1024", 3, EXT(1024, 1024, 1024), 2, APPLY, 0, F64, 20),
    CASE("lap7_f32_1024", 3, EXT(1024, 1024, 1024), 2, APPLY, 0, F32, 20),
    CASE("lap7_f64_1000x600x300", 3, EXT(1000, 600, 300), 2, APPLY, 0, F64, 20),
    CASE("lap7_f32_513x257x255", 3, EXT(513, 257, 255), 2, APPLY, 0, F32, 20),
    /* Its aligned twin: the same size with rows of whole vectors, to tell
       the cost of odd widths from that of a small problem. */
    CASE("lap7_f32_512x256x256", 3, EXT(512, 256, 256), 2, APPLY, 0, F32, 20),
    CASE("star25_f64_512", 3, EXT(512, 512, 512), 8, APPLY, 0, F64, 20),
    CASE("wave2d_o8_f32_16384", 2, EXT(16384, 16384), 8, WAVE, 0, F32, 20),
    CASE("wave2d_o8_f32_12000x9000", 2, EXT(12000, 9000), 8, WAVE, 0, F32, 20),
    CASE("heat_o4_coef_f32_512", 3, EXT(512, 512, 512), 4, FDX_UPDATE_HEAT, 1, F32, 20),
};

static const stencil_case cpu_cases[] = {
    CASE("lap7_f64_512", 3, EXT(512, 512, 512), 2, APPLY, 0, F64, 20),
    CASE("lap7_f32_1000x600x300", 3, EXT(1000, 600, 300), 2, APPLY, 0, F32, 20),
    CASE("star25_f64_256", 3, EXT(256, 256, 256), 8, APPLY, 0, F64, 20),
    CASE("wave2d_o8_f32_8192", 2, EXT(8192, 8192), 8, WAVE, 0, F32, 20),
};

/* --quick: small shapes of the same kinds, for tests on any machine. */
static const stencil_case quick_cases[] = {
    CASE("lap7_f64_quick", 3, EXT(66, 35, 40), 2, APPLY, 0, F64, 3),
    CASE("star25_f32_quick", 3, EXT(41, 30, 27), 8, APPLY, 0, F32, 3),
    CASE("wave2d_o8_f32_quick", 2, EXT(301, 77), 8, WAVE, 0, F32, 3),
    CASE("heat_o4_coef_f64_quick", 1, EXT(5001), 4, FDX_UPDATE_HEAT, 1, F64, 3),
};

/* The random-stencil suite (issue 22): 2D and 3D, orders 2-12, Laplacian,
   heat (half with a coefficient array) and wave, float and double, points
   log-uniform from 32^3 to 1024^3 (2D the same counts), extents drawn
   around the cube root (square root) and mostly odd. */
enum { MAX_RANDOM = 1000 };

static uint64_t next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static double uniform(uint64_t *s) { return (double)(next(s) >> 11) * (1.0 / 9007199254740992.0); }

static void random_case(stencil_case *c, int i, long seed, uint64_t *s)
{
    static char names[MAX_RANDOM][24];
    static const fdx_stencil_update ops[] = {APPLY, FDX_UPDATE_HEAT, WAVE};
    memset(c, 0, sizeof *c);
    c->rank = 2 + (int)(next(s) % 2);
    c->order = 2 * (1 + (int)(next(s) % 6));
    c->update = ops[next(s) % 3];
    c->coef = c->update == FDX_UPDATE_HEAT && next(s) % 2;
    c->dtype = next(s) % 2 ? F64 : F32;
    const double points = pow(32.0, 3) * pow(32768.0, uniform(s)); /* 32^3 .. 1024^3 */
    double prod = 1, drawn[3];
    for (int d = 0; d < c->rank; d++) prod *= drawn[d] = pow(4.0, uniform(s) - 0.5); /* aspect 1/2 .. 2 */
    const double side = pow(points / prod, 1.0 / c->rank);
    for (int d = 0; d < c->rank; d++) {
        int64_t e = (int64_t)(side * drawn[d]);
        if (next(s) % 4) e |= 1; /* three in four odd */
        c->shape[d] = e < 2 * c->order + 3 ? 2 * c->order + 3 : e;
    }
    c->reps = 20;
    snprintf(names[i], sizeof names[i], "rs%ld-%03d", seed, i);
    c->name = names[i];
    c->suite = "random-stencil";
    c->seed = seed;
}

static void random_suite(void *out, long count, long seed)
{
    uint64_t s = 0x9E3779B97F4A7C15ULL ^ (uint64_t)seed;
    for (long i = 0; i < count; i++) random_case((stencil_case *)out + i, (int)i, seed, &s);
}

static void describe(const void *which)
{
    const stencil_case *c = which;
    printf("  %s order %d %s%s", fdx_dtype_name(c->dtype), c->order, stencil_op_name(c->update), c->coef ? "+coef" : "");
    for (int d = 0; d < c->rank; d++) printf("%s%lld", d ? "x" : "  ", (long long)c->shape[d]);
}

static int run(fdx_ctx *ctx, const char *cmd, const void *which, int json, int reps, double copy_gbps)
{
    stencil_case c = *(const stencil_case *)which;
    if (reps) c.reps = reps;
    double have = (double)fdx_ctx_memory(ctx);
    if (stencil_case_bytes(&c) > 0.85 * have) {
        fprintf(stderr, "fdx %s: skipping %s: needs %.1f GiB, the device has %.1f GiB\n", cmd, c.name,
                stencil_case_bytes(&c) / (1 << 30), have / (1 << 30));
        return CLI_OK;
    }
    return stencil_case_run(ctx, cmd, &c, NULL, json, copy_gbps);
}

int bench_stencil(int argc, char **argv)
{
#define N(t) (sizeof t / sizeof *t)
    static const bench_suite suite = {.cmd = "bench stencil", .reps_help = "timed repetitions per case [20]",
                                      .gpu = gpu_cases, .cpu = cpu_cases, .quick = quick_cases,
                                      .ngpu = N(gpu_cases), .ncpu = N(cpu_cases), .nquick = N(quick_cases),
                                      .elem = sizeof(stencil_case), .run = run, .header = stencil_table_header,
                                      .random = random_suite, .max_random = MAX_RANDOM, .default_count = 100,
                                      .describe = describe,
                                      .random_help = "the space: 2D/3D, orders 2-12, laplacian/heat/wave, "
                                                     "float/double, 32^3-1024^3 points, odd extents"};
#undef N
    return bench_suite_main(&suite, argc, argv);
}
