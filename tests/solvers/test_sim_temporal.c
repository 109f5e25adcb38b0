/* test_sim_temporal: the wave simulation's temporal blocking (fdx wave
   --temporal) against the same run with temporal = off, bit for bit (the
   field, and through the energy the previous field), on odd shapes, ranks
   2 and 3, orders 2-8, both precisions:
   - a fresh run whose Ricker source ends inside the run (one step a pass
     while it is on, then passes; the last step of a pass may carry it);
   - fields set by fdx_sim_set_field (random interior, equal frames, no
     source): passes from the first step, the frames compared first;
   - frames that differ: one step a pass (depth 1), the same result;
   - auto on a small grid, and with the default layer and receivers;
   - the combinations that cannot apply are refused for an explicit depth.
   The spare arrays' interiors are poisoned (NaN) so that a pass that left a
   point unwritten would show. */
#include "fdx_test.h"
#include "sim_make.h"
#include "solvers/fdx_sim_impl.h"

#include <string.h>

#ifndef SIM_TEMPORAL_BACKEND
#define SIM_TEMPORAL_BACKEND "cpu"
#define SIM_TEMPORAL_NAME "test_sim_temporal"
#endif

static fdx_ctx *ctx;

static size_t count_of(const fdx_sim *s) { return (size_t)s->count; }

static int on_frame(const fdx_sim *s, size_t q)
{
    int64_t x = (int64_t)q % s->n[0], y = (int64_t)q / s->n[0] % s->n[1], z = (int64_t)q / (s->n[0] * s->n[1]);
    int r = s->r;
    return x < r || x >= s->n[0] - r || y < r || y >= s->n[1] - r || (s->rank == 3 && (z < r || z >= s->n[2] - r));
}

/* next's interior becomes NaN, its frame stays (what the stencil never writes). */
static void poison_next(fdx_sim *s)
{
    size_t n = count_of(s), es = fdx_dtype_size(s->type);
    unsigned char *raw = malloc(n * es);
    if (!raw) return;
    CHECK_OK(fdx_sim_download_raw(s, s->next, raw));
    for (size_t q = 0; q < n; q++) {
        if (on_frame(s, q)) continue;
        if (es == 8) ((double *)(void *)raw)[q] = NAN;
        else ((float *)(void *)raw)[q] = NAN;
    }
    CHECK_OK(fdx_sim_upload_raw(s, s->next, raw));
    free(raw);
}

/* Random fields with a random frame shared by cur and prev (prev's frame
   shifted by `differ` where it should differ). */
static void set_random(fdx_sim *s, uint64_t seed, double differ)
{
    size_t n = count_of(s);
    double *c = malloc(n * sizeof *c), *p = malloc(n * sizeof *p);
    for (size_t q = 0; q < n; q++) {
        c[q] = fdx_test_rand(&seed) - 0.5;
        p[q] = on_frame(s, q) ? c[q] + differ : c[q] + 0.01 * (fdx_test_rand(&seed) - 0.5);
    }
    CHECK_OK(fdx_sim_set_field(s, c, p));
    free(c);
    free(p);
}

static const char *energy_of(const char *summary)
{
    const char *e = strstr(summary, "\"energy\":");
    return e ? e : "";
}

/* The run with `temporal` equals the run with off; want: the depth the
   summary must name. */
static void wave_case(const char *size, int order, const char *prec, const char *steps, const char *temporal,
                      const char *amplitude, int set, double differ, int want)
{
    char ord[8], label[160];
    snprintf(ord, sizeof ord, "%d", order);
    snprintf(label, sizeof label, "%s order %d %s %s steps temporal %s amplitude %s set %d differ %g", size, order,
             prec, steps, temporal, amplitude, set, differ);
    const char *kv[2][19] = {{"size", size, "order", ord, "precision", prec, "steps", steps, "absorb", "none",
                              "receivers", "none", "amplitude", amplitude, "temporal", "off", NULL},
                             {"size", size, "order", ord, "precision", prec, "steps", steps, "absorb", "none",
                              "receivers", "none", "amplitude", amplitude, "temporal", temporal, NULL}};
    fdx_sim *s[2] = {NULL, NULL};
    fdx_sim_result res[2];
    double *u[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        s[i] = sim_make(ctx, FDX_SIM_WAVE, kv[i]);
        if (!s[i]) goto done;
        if (set) set_random(s[i], 17, differ);
        poison_next(s[i]);
        CHECK_OK(fdx_sim_run(s[i], NULL, &res[i]));
        u[i] = malloc(count_of(s[i]) * sizeof(double));
        CHECK_OK(fdx_sim_get_field(s[i], u[i]));
    }
    size_t n = count_of(s[0]), bad = 0;
    for (size_t q = 0; q < n; q++) bad += memcmp(&u[0][q], &u[1][q], sizeof(double)) != 0;
    CHECK(bad == 0, "%s: %zu of %zu points differ from temporal off", label, bad, n);
    /* The energy reads prev too (printed with 17 digits). */
    const char *e0 = energy_of(res[0].summary), *e1 = energy_of(res[1].summary);
    CHECK(*e0 && strncmp(e0, e1, 40) == 0, "%s: energy %.40s vs off %.40s", label, e1, e0);
    char w[32];
    snprintf(w, sizeof w, "\"temporal\": %d,", want);
    CHECK(strstr(res[1].summary, w), "%s: want %s in %s", label, w, res[1].summary);
    CHECK(strstr(res[0].summary, "\"temporal\": 1,"), "%s: off says %s", label, res[0].summary);
    /* The field moved (a test of a resting field could not fail). */
    double m = 0;
    for (size_t q = 0; q < n; q++) m = fabs(u[1][q]) > m ? fabs(u[1][q]) : m;
    CHECK(m > 0 && isfinite(m), "%s: max |u| %g", label, m);
done:
    for (int i = 0; i < 2; i++) {
        free(u[i]);
        fdx_sim_destroy(&s[i]);
    }
}

static void refused(const char *const *kv, const char *why) { sim_refused(ctx, FDX_SIM_WAVE, kv, why, "temporal"); }

static void refusals(void)
{
    const char *layer[] = {"size", "40x36", "receivers", "none", "temporal", "3", NULL};
    refused(layer, "temporal 3 with the default sponge");
    const char *pml[] = {"size", "60x56", "receivers", "none", "absorb", "pml", "temporal", "2", NULL};
    refused(pml, "temporal 2 with the PML");
    const char *rec[] = {"size", "40x36", "absorb", "none", "temporal", "3", NULL};
    refused(rec, "temporal 3 with receivers");
    const char *bc[] = {"size", "40x36", "absorb", "none", "receivers", "none", "boundary", "all=periodic", "temporal", "2", NULL};
    refused(bc, "temporal 2 with conditions");
    const char *gp[] = {"size", "40x36", "absorb", "none", "receivers", "none", "gpus", "2", "temporal", "2", NULL};
    refused(gp, "temporal 2 with gpus");
    /* A bad receivers value is still one. */
    fdx_sim_config *c = NULL;
    CHECK_OK(fdx_sim_config_create(FDX_SIM_WAVE, &c));
    if (c) CHECK(fdx_sim_config_set(c, "receivers", "nothing") == FDX_ERR_INVALID, "receivers = nothing accepted");
    fdx_sim_config_destroy(&c);
}

/* Auto with the default sponge and receivers: one step a pass, the same run. */
static void auto_with_layer(void)
{
    const char *a[] = {"size", "45x39", "steps", "60", "temporal", "auto", NULL};
    const char *b[] = {"size", "45x39", "steps", "60", "temporal", "off", NULL};
    fdx_sim *sa = sim_make(ctx, FDX_SIM_WAVE, a), *sb = sim_make(ctx, FDX_SIM_WAVE, b);
    fdx_sim_result ra, rb;
    if (sa && sb) {
        CHECK_OK(fdx_sim_run(sa, NULL, &ra));
        CHECK_OK(fdx_sim_run(sb, NULL, &rb));
        const char *ca = strstr(ra.summary, "\"checksum\""), *cb = strstr(rb.summary, "\"checksum\"");
        CHECK(ca && cb && strcmp(ca, cb) == 0, "auto with a sponge: %s vs %s", ra.summary, rb.summary);
        CHECK(strstr(ra.summary, "\"temporal\": 1,"), "auto with a sponge: %s", ra.summary);
    }
    fdx_sim_destroy(&sa);
    fdx_sim_destroy(&sb);
}

int main(void)
{
    ctx = fdx_test_ctx(SIM_TEMPORAL_BACKEND);
    if (!ctx) return fdx_test_skip(SIM_TEMPORAL_NAME, "no " SIM_TEMPORAL_BACKEND " context");
    /* The source (Ricker, default f0) ends near step 390-420 here. */
    wave_case("53x47", 4, "float", "520", "3", "1", 0, 0, 3);
    wave_case("19x17x23", 2, "double", "560", "4", "1", 0, 0, 4);
    /* Set fields, no source: passes from the first step. */
    wave_case("37x29", 8, "double", "41", "2", "0", 1, 0, 2);
    wave_case("37x31", 2, "float", "50", "5", "0", 1, 0, 5);
    wave_case("17x15x19", 6, "float", "47", "3", "0", 1, 0, 3);
    wave_case("21x19x18", 8, "double", "40", "2", "0", 1, 0, 2);
    /* Frames that differ: one step a pass. */
    wave_case("37x29", 4, "double", "30", "3", "0", 1, 0.25, 1);
    /* Auto below the tuner's size: one step a pass through the stepper. */
    wave_case("33x31", 4, "float", "40", "auto", "0", 1, 0, 1);
    auto_with_layer();
    refusals();
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish(SIM_TEMPORAL_NAME);
}
