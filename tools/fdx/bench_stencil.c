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

/* Whether `name` is in the comma-separated list (NULL: every case). */
static int selected(const char *list, const char *name)
{
    if (!list) return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0) return 1;
        p += len + (e != NULL);
    }
    return 0;
}

int bench_stencil(int argc, char **argv)
{
    static const char *CMD = "bench stencil";
    const char *json = NULL, *quick = NULL, *cases = NULL, *reps_s = NULL, *list = NULL;
    const cli_flag flags[] = {
        {"json", NULL, "one JSON record per case (JSON Lines) instead of the table", &json},
        {"quick", NULL, "small shapes of the same kinds (seconds, for tests)", &quick},
        {"cases", "A,B", "only these cases (see --list)", &cases},
        {"reps", "N", "timed repetitions per case [20]", &reps_s},
        {"list", NULL, "list the cases of this backend and exit", &list},
        {NULL, NULL, NULL, NULL},
    };
    fdx_options *opts = NULL;
    if (fdx_options_create(&opts) != FDX_OK) return cli_usage_error(CMD, "%s", fdx_last_error());
    int rc = cli_parse(argc, argv, CMD, "[--json] [--quick] [--cases A,B] [--reps N] [--list]", flags, opts);
    fdx_ctx *ctx = NULL;
    if (rc >= 0) goto done;
    long reps = 0;
    fdx_status st;
    if (reps_s && (st = cli_parse_int("--reps", reps_s, 1, 100000, &reps)) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    if (list && (cases || reps_s || json)) {
        rc = cli_usage_error(CMD, "--list prints the case names only: --%s has no effect with it",
                             cases ? "cases" : reps_s ? "reps" : "json");
        goto done;
    }
    if ((st = fdx_ctx_create(opts, &ctx)) != FDX_OK) {
        rc = cli_fail(CMD, st);
        goto done;
    }
    int cuda = fdx_ctx_backend(ctx) == FDX_BACKEND_CUDA;
    const stencil_case *tab = quick ? quick_cases : cuda ? gpu_cases : cpu_cases;
    size_t ncases = quick ? sizeof quick_cases / sizeof *quick_cases
                          : cuda ? sizeof gpu_cases / sizeof *gpu_cases : sizeof cpu_cases / sizeof *cpu_cases;
    if (list) {
        for (size_t i = 0; i < ncases; i++) printf("%s\n", tab[i].name);
        rc = CLI_OK;
        goto done;
    }
    int any = 0;
    for (size_t i = 0; i < ncases; i++) any |= selected(cases, tab[i].name);
    if (!any) {
        rc = cli_usage_error(CMD, "--cases '%s' names no case of the %s backend (see --list)", cases,
                             fdx_backend_kind_name(fdx_ctx_backend(ctx)));
        goto done;
    }
    double copy_gbps;
    if ((st = stencil_copy_gbps(ctx, quick ? 0 : (double)(1u << 30), &copy_gbps)) != FDX_OK) {
        rc = cli_fail(CMD, st);
        goto done;
    }
    if (!json) stencil_table_header();
    rc = CLI_OK;
    double have = (double)fdx_ctx_memory(ctx);
    for (size_t i = 0; i < ncases; i++) {
        if (!selected(cases, tab[i].name)) continue;
        stencil_case c = tab[i];
        if (reps) c.reps = (int)reps;
        if (stencil_case_bytes(&c) > 0.85 * have) {
            fprintf(stderr, "fdx %s: skipping %s: needs %.1f GiB, the device has %.1f GiB\n", CMD, c.name,
                    stencil_case_bytes(&c) / (1 << 30), have / (1 << 30));
            continue;
        }
        int r = stencil_case_run(ctx, CMD, &c, NULL, json != NULL, copy_gbps);
        if (r != CLI_OK && rc == CLI_OK) rc = r;
    }
done:
    fdx_ctx_destroy(&ctx);
    fdx_options_destroy(&opts);
    return rc;
}
