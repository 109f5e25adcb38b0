/* test_pml: the wave's perfectly matched layer on the CPU.
   (a) The library's step (stencil + fdx_pml_step) against the plain-loop
       reference of pml_check.h, 2D and 3D, orders 2/4/8, float and double.
   (b) Physics: a Ricker pulse in a small domain with the PML, and with the
       sponge of the same width, against a domain large enough that nothing
       comes back in time; the reflected amplitude in the small domain's
       interior must be far below the sponge's.
   (c) Refusals of the layer and of the absorb key.
   (d) The fused pass equals the former two passes (FDX_PML_TWOPASS=1) bit
       for bit on the reference cases' odd shapes.
   (e) Distributed: wave runs with absorb = pml on 2 and 3 CPU units, with
       and without overlap, equal the one-array run bit for bit (2D, 3D,
       float, double); units too thin for the layer are refused. */
#include "pml_check.h"

#include <string.h>

static fdx_ctx *ctx;

static void library_vs_reference(void)
{
    /* Both index variants: 32-bit (what these small grids take), then 64-bit. */
    for (int i = 0; i < 2 * PC_NCASES; i++) {
        if (i == PC_NCASES) setenv("FDX_PML_INDEX64", "1", 1);
        const pc_case *pc = &PC_CASES[i % PC_NCASES];
        double e = pc_run(ctx, "cpu", pc, FDX_FLOAT64, 12, 0x9e3779b97f4a7c15ULL + i, NULL);
        CHECK(e < 1e-11, "double case %d: library and reference differ by %.3g of max |u|", i, e);
        e = pc_run(ctx, "cpu", pc, FDX_FLOAT32, 12, 0x1234567ULL + i, NULL);
        CHECK(e < 5e-5, "float case %d: library and reference differ by %.3g of max |u|", i, e);
    }
    unsetenv("FDX_PML_INDEX64");
}

/* Largest |small - big| over the small domain's interior (inside the layer)
   relative to the largest |big| there, sampled every 5 steps. */
static double reflection(const char *absorb, const char *order, int n, int width, int steps)
{
    int big = 3 * n - 2; /* the same spacing: length (big - 1) / (n - 1) */
    char sz[32], bsz[32], len[32], w[16], nsteps[16];
    snprintf(sz, sizeof sz, "%dx%d", n, n);
    snprintf(bsz, sizeof bsz, "%dx%d", big, big);
    snprintf(len, sizeof len, "%d", (big - 1) / (n - 1));
    snprintf(w, sizeof w, "%d", width);
    snprintf(nsteps, sizeof nsteps, "%d", steps);
    const char *ks[] = {"size", sz, "order", order, "precision", "double", "steps", nsteps, "absorb", absorb,
                        "sponge", w, "progress", "off", NULL};
    const char *kb[] = {"size", bsz, "length", len, "order", order, "precision", "double", "steps", nsteps,
                        "absorb", "none", "progress", "off", NULL};
    fdx_sim *a = pc_sim(ctx, ks), *b = pc_sim(ctx, kb);
    double worst = INFINITY;
    if (a && b) {
        CHECK(fabs(fdx_sim_dt(a) - fdx_sim_dt(b)) <= 1e-15 * fdx_sim_dt(a), "dt differs: %.17g vs %.17g",
              fdx_sim_dt(a), fdx_sim_dt(b));
        double *ua = malloc(sizeof(double) * (size_t)n * (size_t)n),
               *ub = malloc(sizeof(double) * (size_t)big * (size_t)big);
        double diff = 0, peak = 0;
        int off = (big - n) / 2;
        for (int s = 1; s <= steps; s++) {
            CHECK_OK(fdx_sim_step(a));
            CHECK_OK(fdx_sim_step(b));
            if (s % 5) continue;
            CHECK_OK(fdx_sim_get_field(a, ua));
            CHECK_OK(fdx_sim_get_field(b, ub));
            for (int j = width; j < n - width; j++)
                for (int i = width; i < n - width; i++) {
                    double x = ua[i + (size_t)n * j], y = ub[i + off + (size_t)big * (j + off)];
                    if (fabs(x - y) > diff) diff = fabs(x - y);
                    if (fabs(y) > peak) peak = fabs(y);
                }
        }
        worst = diff / peak;
        free(ua);
        free(ub);
    }
    fdx_sim_destroy(&a);
    fdx_sim_destroy(&b);
    printf("reflection, %s, order %s, %dx%d, %d cells, %d steps: max |u - u_ref| / max |u_ref| = %.3g\n", absorb,
           order, n, n, width, steps, worst);
    return worst;
}

static void physics(void)
{
    /* 121^2, source in the centre: the pulse crosses the 40 interior cells to
       the layer and comes back within 700 steps (dt = 0.3 h); in the 361^2
       reference the first echo needs about 280 cells of travel. */
    double p8 = reflection("pml", "8", 121, 20, 700), s8 = reflection("sponge", "8", 121, 20, 700);
    CHECK(p8 < 0.01 * s8 && p8 < 1e-4, "order 8, 20 cells: PML reflects %.3g, the sponge %.3g", p8, s8);
    double p4 = reflection("pml", "4", 121, 12, 700), s4 = reflection("sponge", "4", 121, 12, 700);
    CHECK(p4 < 0.01 * s4 && p4 < 1e-4, "order 4, 12 cells: PML reflects %.3g, the sponge %.3g", p4, s4);
}

static void refusals(void)
{
    fdx_pml *p = NULL;
    fdx_pml_desc ok = {2, {40, 40, 1}, 2, 8, 0.01, 0.003, 1, 1e-5, FDX_PML_POWER, 10};
    fdx_pml_desc d = ok;
    d.width = 3; /* r + 1: one damped cell */
    CHECK_FAILS(fdx_pml_create(ctx, FDX_FLOAT64, &d, &p), FDX_ERR_INVALID);
    d = ok, d.width = 20; /* 2 x 20 = 40 points: nothing left */
    CHECK_FAILS(fdx_pml_create(ctx, FDX_FLOAT64, &d, &p), FDX_ERR_INVALID);
    d = ok, d.r0 = 1;
    CHECK_FAILS(fdx_pml_create(ctx, FDX_FLOAT64, &d, &p), FDX_ERR_INVALID);
    d = ok, d.dt = NAN;
    CHECK_FAILS(fdx_pml_create(ctx, FDX_FLOAT64, &d, &p), FDX_ERR_INVALID);
    d = ok, d.rank = 1;
    CHECK_FAILS(fdx_pml_create(ctx, FDX_FLOAT64, &d, &p), FDX_ERR_INVALID);
    CHECK(p == NULL, "a refused PML was returned");
    CHECK_OK(fdx_pml_create(ctx, FDX_FLOAT32, &ok, &p));
    /* The state is the layer's: 2 fields x 2 axes x 2 slabs of m = 6 cells x
       40 points; the memory check counts the fused pass's second psi too. */
    CHECK(fdx_pml_state_count(p) == 2 * 2 * 2 * 6 * 40 && fdx_pml_elements(2, ok.n, 2, 8) == 3 * 2 * 2 * 6 * 40,
          "PML memory: %lld elements, the estimate %g", (long long)fdx_pml_state_count(p),
          fdx_pml_elements(2, ok.n, 2, 8));
    fdx_array *wrong = NULL;
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 2, (int64_t[]){40, 40}, FDX_ON_DEVICE, &wrong));
    CHECK_FAILS(fdx_pml_step(p, wrong, wrong, wrong, NULL), FDX_ERR_INVALID); /* double arrays, float layer */
    fdx_array_destroy(&wrong);
    fdx_pml_destroy(&p);

    /* The absorb key: each refused at fdx_sim_create with one message. */
    const char *bad[][10] = {
        {"absorb", "pml", "boundary", "all=dirichlet:0", NULL},
        {"absorb", "pml", "gpus", "2", "checkpoint-every", "5", "output", "pml-unwritten", NULL}, /* units keep no checkpoint */
        {"absorb", "pml", "sponge", "0", NULL},
        {"absorb", "pml", "sponge", "5", "order", "8", NULL}, /* r + 1 cells */
        {"absorb", "none", "sponge", "10", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fdx_sim_config *c = NULL;
        fdx_sim *s = NULL;
        CHECK_OK(fdx_sim_config_create(FDX_SIM_WAVE, &c));
        CHECK_OK(fdx_sim_config_set(c, "size", "64x64"));
        for (int k = 0; bad[i][k]; k += 2) CHECK_OK(fdx_sim_config_set(c, bad[i][k], bad[i][k + 1]));
        CHECK_FAILS(fdx_sim_create(ctx, c, &s), FDX_ERR_INVALID);
        CHECK(s == NULL, "refused run %zu was created", i);
        fdx_sim_destroy(&s);
        fdx_sim_config_destroy(&c);
    }
    fdx_sim_config *c = NULL;
    CHECK_OK(fdx_sim_config_create(FDX_SIM_WAVE, &c));
    CHECK_FAILS(fdx_sim_config_set(c, "absorb", "perfect"), FDX_ERR_INVALID);
    fdx_sim_config_destroy(&c);
}

/* One array, then units (overlap off and on): the final fields bit for bit. */
static void dist_case(const char *size, const char *order, const char *width, const char *precision, int max_units,
                      const char *source)
{
    const char *kv[] = {"size", size, "order", order, "sponge", width, "precision", precision, "absorb", "pml",
                        "steps", "30", "progress", "off", source ? "source" : NULL, source, NULL};
    fdx_sim *a = pc_sim(ctx, kv);
    fdx_sim_result res;
    if (a) CHECK_OK(fdx_sim_run(a, NULL, &res));
    int64_t cnt = 1;
    for (int d = 0; a && d < fdx_sim_rank(a); d++) cnt *= fdx_sim_shape(a)[d];
    double *ua = malloc((size_t)cnt * sizeof(double)), *ub = malloc((size_t)cnt * sizeof(double));
    if (a) CHECK_OK(fdx_sim_get_field(a, ua));
    fdx_options *opts = NULL;
    CHECK_OK(fdx_options_create(&opts));
    CHECK_OK(fdx_options_set(opts, "backend", "cpu"));
    for (int units = 2; a && units <= max_units; units++)
        for (int overlap = 0; overlap < 2; overlap++) {
            fdx_sim *b = pc_sim(ctx, kv);
            if (!b) continue;
            CHECK_OK(fdx_sim_run_dist(b, opts, units, overlap, NULL, &res));
            CHECK_OK(fdx_sim_get_field(b, ub));
            double mx = 0;
            for (int64_t q = 0; q < cnt; q++) mx = fabs(ua[q]) > mx ? fabs(ua[q]) : mx;
            CHECK(mx > 0 && memcmp(ua, ub, (size_t)cnt * sizeof(double)) == 0,
                  "%s order %s %s, %d units, overlap %d: differs from one array (max |u| %g)", size, order, precision,
                  units, overlap, mx);
            fdx_sim_destroy(&b);
        }
    fdx_options_destroy(&opts);
    free(ua);
    free(ub);
    fdx_sim_destroy(&a);
}

/* all: every case (else two: the second form of the step, ASan's time). */
static void distributed_cases(int all)
{
    dist_case("50x75", "8", "10", "double", 3, NULL);
    if (all) dist_case("46x53", "4", "8", "float", 2, "20,5"); /* the source in the layer of axis 1 */
    dist_case("30x26x57", "4", "7", "double", 3, "5,13,52");
    if (all) dist_case("27x31x40", "8", "10", "float", 2, NULL);
}

/* Both forms of the step (the CPU's default is the two passes; CUDA's,
   which units on GPUs run, the fused pass), then a refusal. */
static void distributed(void)
{
    for (int fused = 0; fused < 2; fused++) {
        setenv("FDX_PML_TWOPASS", fused ? "0" : "1", 1);
        distributed_cases(fused);
    }
    unsetenv("FDX_PML_TWOPASS");
    /* 3 units of 40 points: 13 a face unit, fewer than the 17 a 10-cell layer at order 8 needs. */
    const char *kv[] = {"size", "50x40", "order", "8", "sponge", "10", "absorb", "pml", "steps", "4", "progress",
                        "off", NULL};
    fdx_sim *b = pc_sim(ctx, kv);
    fdx_options *opts = NULL;
    CHECK_OK(fdx_options_create(&opts));
    CHECK_OK(fdx_options_set(opts, "backend", "cpu"));
    fdx_sim_result res;
    if (b) CHECK_FAILS(fdx_sim_run_dist(b, opts, 3, 0, NULL, &res), FDX_ERR_INVALID);
    fdx_sim_destroy(&b);
    fdx_options_destroy(&opts);
}

int main(void)
{
    ctx = fdx_test_ctx("cpu");
    if (!ctx) return fdx_test_skip("test_pml", "no CPU context");
    library_vs_reference();
    pc_fused_vs_twopass(ctx, "cpu", 0xabcdefULL, 0);
    pc_fused_vs_twopass(ctx, "cpu, CUDA's thread decode", 0xabcdefULL, 1);
    distributed();
    refusals();
    physics();
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_pml");
}
