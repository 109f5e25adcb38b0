/* fdx bench stencil: the stencil engine's benchmark cases (issue 3): the
   7-point Laplacian in both precisions, shapes that are no block multiple,
   the 25-point 8th-order operator and the 2D 8th-order wave step on the GPU;
   the Laplacian, the 8th-order operator and the wave step on the CPU.  One
   table row or JSON record per case, the copy bandwidth measured once in
   this process. */
#include "cmd_stencil.h"

#include <stdio.h>
#include <string.h>

#define F32 FDX_FLOAT32
#define F64 FDX_FLOAT64
#define APPLY FDX_UPDATE_APPLY
#define WAVE FDX_UPDATE_WAVE

static const stencil_case gpu_cases[] = {
    {"lap7_f64_512", 3, {512, 512, 512}, 2, APPLY, 0, F64, 20},
    {"lap7_f64_1024", 3, {1024, 1024, 1024}, 2, APPLY, 0, F64, 20},
    {"lap7_f32_1024", 3, {1024, 1024, 1024}, 2, APPLY, 0, F32, 20},
    {"lap7_f64_1000x600x300", 3, {1000, 600, 300}, 2, APPLY, 0, F64, 20},
    {"lap7_f32_513x257x255", 3, {513, 257, 255}, 2, APPLY, 0, F32, 20},
    /* Its aligned twin: the same size with rows of whole vectors, to tell
       the cost of odd widths from that of a small problem. */
    {"lap7_f32_512x256x256", 3, {512, 256, 256}, 2, APPLY, 0, F32, 20},
    {"star25_f64_512", 3, {512, 512, 512}, 8, APPLY, 0, F64, 20},
    {"wave2d_o8_f32_16384", 2, {16384, 16384}, 8, WAVE, 0, F32, 20},
    {"wave2d_o8_f32_12000x9000", 2, {12000, 9000}, 8, WAVE, 0, F32, 20},
    {"heat_o4_coef_f32_512", 3, {512, 512, 512}, 4, FDX_UPDATE_HEAT, 1, F32, 20},
};

static const stencil_case cpu_cases[] = {
    {"lap7_f64_512", 3, {512, 512, 512}, 2, APPLY, 0, F64, 20},
    {"lap7_f32_1000x600x300", 3, {1000, 600, 300}, 2, APPLY, 0, F32, 20},
    {"star25_f64_256", 3, {256, 256, 256}, 8, APPLY, 0, F64, 20},
    {"wave2d_o8_f32_8192", 2, {8192, 8192}, 8, WAVE, 0, F32, 20},
};

/* --quick: small shapes of the same kinds, for tests on any machine. */
static const stencil_case quick_cases[] = {
    {"lap7_f64_quick", 3, {66, 35, 40}, 2, APPLY, 0, F64, 3},
    {"star25_f32_quick", 3, {41, 30, 27}, 8, APPLY, 0, F32, 3},
    {"wave2d_o8_f32_quick", 2, {301, 77}, 8, WAVE, 0, F32, 3},
    {"heat_o4_coef_f64_quick", 1, {5001}, 4, FDX_UPDATE_HEAT, 1, F64, 3},
};

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
    return stencil_case_run(ctx, cmd, &c, json, copy_gbps);
}

int bench_stencil(int argc, char **argv)
{
#define N(t) (sizeof t / sizeof *t)
    static const bench_suite suite = {"bench stencil", "timed repetitions per case [20]", gpu_cases, cpu_cases,
                                      quick_cases, N(gpu_cases), N(cpu_cases), N(quick_cases), sizeof(stencil_case),
                                      run, stencil_table_header};
#undef N
    return bench_suite_main(&suite, argc, argv);
}
