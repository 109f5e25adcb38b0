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

static void random_stencil(stencil_case *c, char *name, size_t cap, int i, long seed, uint64_t *s)
{
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
    snprintf(name, cap, "rs%ld-%03d", seed, i);
    c->name = name;
    c->suite = "random-stencil";
    c->seed = seed;
}

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
    const char *json = NULL, *quick = NULL, *cases = NULL, *reps_s = NULL, *list = NULL, *suite = "named",
               *seed_s = NULL, *count_s = NULL;
    const cli_flag flags[] = {
        {"suite", "S", "named: the issue-3 cases; random: the space (2D/3D, orders 2-12, laplacian/heat/wave, "
                       "float/double, 32^3-1024^3 points, odd extents) [named]", &suite},
        {"seed", "N", "seed of the random suite [1]", &seed_s},
        {"count", "N", "cases of the random suite [100]", &count_s},
        {"json", NULL, "one JSON record per case (JSON Lines) instead of the table", &json},
        {"quick", NULL, "small shapes of the same kinds (seconds, for tests)", &quick},
        {"cases", "A,B", "only these cases (see --list)", &cases},
        {"reps", "N", "timed repetitions per case [20]", &reps_s},
        {"list", NULL, "list the cases of this backend and exit", &list},
        {NULL, NULL, NULL, NULL},
    };
    fdx_options *opts = NULL;
    if (fdx_options_create(&opts) != FDX_OK) return cli_usage_error(CMD, "%s", fdx_last_error());
    int rc = cli_parse(argc, argv, CMD, "[--suite named|random] [--seed N] [--count N] [--json] [--quick] [--cases A,B] [--reps N] [--list]", flags, opts);
    fdx_ctx *ctx = NULL;
    if (rc >= 0) goto done;
    long reps = 0;
    fdx_status st;
    if (reps_s && (st = cli_parse_int("--reps", reps_s, 1, 100000, &reps)) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    const int space = strcmp(suite, "random") == 0;
    long seed = 1, count = 100;
    if (!space && strcmp(suite, "named") != 0) {
        char clip[64];
        rc = cli_usage_error(CMD, "--suite '%s' is not named or random", cli_clip(suite, clip, sizeof clip));
        goto done;
    }
    if (!space && (seed_s || count_s)) {
        rc = cli_usage_error(CMD, "--%s sets the random suite: it has no effect without --suite random",
                             seed_s ? "seed" : "count");
        goto done;
    }
    if (space && quick) {
        rc = cli_usage_error(CMD, "--quick picks small named cases: it has no effect with --suite random");
        goto done;
    }
    if ((seed_s && (st = cli_parse_int("--seed", seed_s, 0, 1L << 30, &seed)) != FDX_OK) ||
        (count_s && (st = cli_parse_int("--count", count_s, 1, MAX_RANDOM, &count)) != FDX_OK)) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    static stencil_case random_cases[MAX_RANDOM];
    static char random_names[MAX_RANDOM][24];
    if (space) {
        uint64_t s = 0x9E3779B97F4A7C15ULL ^ (uint64_t)seed;
        for (long i = 0; i < count; i++)
            random_stencil(&random_cases[i], random_names[i], sizeof random_names[i], (int)i, seed, &s);
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
    const stencil_case *tab = space ? random_cases : quick ? quick_cases : cuda ? gpu_cases : cpu_cases;
    size_t ncases = space ? (size_t)count
                    : quick ? sizeof quick_cases / sizeof *quick_cases
                    : cuda ? sizeof gpu_cases / sizeof *gpu_cases : sizeof cpu_cases / sizeof *cpu_cases;
    if (list) {
        for (size_t i = 0; i < ncases; i++) {
            printf("%s", tab[i].name);
            if (space) {
                printf("  %s order %d %s%s", fdx_dtype_name(tab[i].dtype), tab[i].order, stencil_op_name(tab[i].update),
                       tab[i].coef ? "+coef" : "");
                for (int d = 0; d < tab[i].rank; d++) printf("%s%lld", d ? "x" : "  ", (long long)tab[i].shape[d]);
            }
            printf("\n");
        }
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
        int r = stencil_case_run(ctx, CMD, &c, json != NULL, copy_gbps);
        if (r != CLI_OK && rc == CLI_OK) rc = r;
    }
done:
    fdx_ctx_destroy(&ctx);
    fdx_options_destroy(&opts);
    return rc;
}
