/* test_sim_bc: the heat and wave simulations' boundary key and heat's
   temporal blocking, against library references:
   - heat with conditions equals a loop of fdx_stencil_apply with
     fdx_stencil_set_boundary on the same problem, bit for bit;
   - a periodic heat and wave run commutes with a translation of the
     initial field by whole points (periodic in both axes), bit for bit;
   - a Dirichlet face pulls the field to its value (steady state);
   - fdx_sim_run with temporal = K equals temporal = off, bit for bit, and
     reports the depth; the combinations that cannot apply are refused. */
#include "fdx_test.h"
#include "sim_make.h"

#include <string.h>

#ifndef SIM_BC_BACKEND
#define SIM_BC_BACKEND "cpu"
#define SIM_BC_NAME "test_sim_bc"
#endif

static fdx_ctx *ctx;

/* fdx_sim_create must refuse the config with FDX_ERR_INVALID. */
static void refused(fdx_sim_kind kind, const char *const *kv, const char *why) { sim_refused(ctx, kind, kv, why, NULL); }

/* 1 when the unknowns (r from every face) of a and b are equal, b being a
   shifted by (dx, dy) with period n - 2r. */
static int same_unknowns(const double *a, const double *b, const int64_t *n, int r, int64_t dx, int64_t dy)
{
    int64_t px = n[0] - 2 * r, py = n[1] - 2 * r;
    for (int64_t j = 0; j < py; j++)
        for (int64_t i = 0; i < px; i++) {
            int64_t ia = (r + i) + n[0] * (r + j);
            int64_t ib = (r + (i + dx) % px) + n[0] * (r + (j + dy) % py);
            if (memcmp(&a[ia], &b[ib], sizeof(double)) != 0) return 0;
        }
    return 1;
}

/* Heat with conditions == the stencil engine's own loop with the same
   conditions (the simulation adds nothing of its own between steps). */
static void heat_equals_stencil_loop(const char *spec, int order)
{
    char ord[8];
    snprintf(ord, sizeof ord, "%d", order);
    const char *kv[] = {"size", "37x29", "precision", "double", "order", ord, "init", "random", "boundary", spec, NULL};
    fdx_sim *s = sim_make(ctx, FDX_SIM_HEAT, kv);
    if (!s) return;
    const int64_t n[2] = {37, 29};
    size_t count = 37 * 29;
    double *u0 = malloc(count * sizeof *u0), *us = malloc(count * sizeof *us);
    CHECK_OK(fdx_sim_get_field(s, u0));
    for (int i = 0; i < 25; i++) CHECK_OK(fdx_sim_step(s));
    CHECK_OK(fdx_sim_get_field(s, us));

    fdx_stencil_desc d;
    double h = 1.0 / 36, hh[3] = {h, h, h};
    fdx_stencil_desc_laplacian(&d, 2, order, hh);
    d.update = FDX_UPDATE_HEAT;
    d.alpha = fdx_sim_dt(s); /* kappa = 1 */
    fdx_bc_desc bc;
    CHECK_OK(fdx_bc_parse(spec, 2, &bc));
    fdx_stencil *st = NULL;
    fdx_array *a = NULL, *b = NULL;
    CHECK_OK(fdx_stencil_create(ctx, &d, FDX_FLOAT64, &st));
    CHECK_OK(fdx_stencil_set_boundary(st, &bc));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 2, n, FDX_ON_HOST | FDX_ON_DEVICE, &a));
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 2, n, FDX_ON_HOST | FDX_ON_DEVICE, &b));
    if (st && a && b) {
        memcpy(fdx_array_host(a), u0, count * sizeof *u0);
        memcpy(fdx_array_host(b), u0, count * sizeof *u0);
        CHECK_OK(fdx_array_to_device(a));
        CHECK_OK(fdx_array_to_device(b));
        for (int i = 0; i < 25; i++) {
            CHECK_OK(fdx_stencil_apply(st, b, a, NULL, NULL, NULL));
            fdx_array *t = a;
            a = b;
            b = t;
        }
        CHECK_OK(fdx_array_to_host(a));
        CHECK(same_unknowns(fdx_array_host(a), us, n, order / 2, 0, 0), "heat --boundary %s order %d differs from the stencil loop",
              spec, order);
        CHECK(!same_unknowns(u0, us, n, order / 2, 0, 0), "heat %s: the field did not change", spec);
    }
    fdx_array_destroy(&a);
    fdx_array_destroy(&b);
    fdx_stencil_destroy(&st);
    free(u0);
    free(us);
    fdx_sim_destroy(&s);
}

/* A periodic run of a shifted initial field is the shifted run. */
static void periodic_translation(fdx_sim_kind kind)
{
    const char *heat[] = {"size", "41x30", "precision", "double", "order", "4", "init", "random", "boundary", "all=periodic", NULL};
    const char *wave[] = {"size", "41x30", "precision", "double", "order", "4", "boundary", "all=periodic", "amplitude", "0", NULL};
    const char *const *kv = kind == FDX_SIM_HEAT ? heat : wave;
    fdx_sim *a = sim_make(ctx, kind, kv), *b = sim_make(ctx, kind, kv);
    if (!a || !b) {
        fdx_sim_destroy(&a);
        fdx_sim_destroy(&b);
        return;
    }
    const int64_t n[2] = {41, 30};
    int r = 2;
    size_t count = 41 * 30;
    double *u0 = malloc(count * sizeof *u0), *u1 = malloc(count * sizeof *u1), *ua = malloc(count * sizeof *ua),
           *ub = malloc(count * sizeof *ub);
    /* A random field (the wave starts from it at rest: u_prev = u). */
    srand(7);
    for (size_t i = 0; i < count; i++) u0[i] = (double)rand() / RAND_MAX - 0.5;
    int64_t dx = 11, dy = 5, px = n[0] - 2 * r, py = n[1] - 2 * r;
    memcpy(u1, u0, count * sizeof *u0);
    for (int64_t j = 0; j < py; j++)
        for (int64_t i = 0; i < px; i++)
            u1[(r + (i + dx) % px) + n[0] * (r + (j + dy) % py)] = u0[(r + i) + n[0] * (r + j)];
    CHECK_OK(fdx_sim_set_field(a, u0, u0));
    CHECK_OK(fdx_sim_set_field(b, u1, u1));
    for (int i = 0; i < 30; i++) {
        CHECK_OK(fdx_sim_step(a));
        CHECK_OK(fdx_sim_step(b));
    }
    CHECK_OK(fdx_sim_get_field(a, ua));
    CHECK_OK(fdx_sim_get_field(b, ub));
    CHECK(same_unknowns(ua, ub, n, r, dx, dy), "%s: the periodic run of a shifted field is not the shifted run",
          fdx_sim_kind_name(kind));
    CHECK(!same_unknowns(u0, ua, n, r, 0, 0), "%s: the field did not change", fdx_sim_kind_name(kind));
    free(u0);
    free(u1);
    free(ua);
    free(ub);
    fdx_sim_destroy(&a);
    fdx_sim_destroy(&b);
}

/* Dirichlet g on every face: the heat's steady state is g. */
static void dirichlet_steady(void)
{
    const char *kv[] = {"size", "20x18", "precision", "double", "init", "random", "boundary", "all=dirichlet:-2", NULL};
    fdx_sim *s = sim_make(ctx, FDX_SIM_HEAT, kv);
    if (!s) return;
    for (int i = 0; i < 3000; i++) CHECK_OK(fdx_sim_step(s));
    double u[20 * 18];
    CHECK_OK(fdx_sim_get_field(s, u));
    double worst = 0;
    for (int j = 1; j < 17; j++)
        for (int i = 1; i < 19; i++) worst = fmax(worst, fabs(u[i + 20 * j] + 2));
    CHECK(worst < 1e-6, "Dirichlet -2: the unknowns are %g from it after 3000 steps", worst);
    fdx_sim_destroy(&s);
}

static void heat_temporal_bit_identical(int k, int rank)
{
    char depth[8];
    snprintf(depth, sizeof depth, "%d", k);
    const char *size = rank == 3 ? "19x17x23" : "53x47";
    const char *off[] = {"size", size, "order", "4", "init", "random", "boundary", "fixed", "steps", "200", "temporal", "off", NULL};
    const char *blk[] = {"size", size, "order", "4", "init", "random", "boundary", "fixed", "steps", "200", "temporal", depth, NULL};
    fdx_sim *a = sim_make(ctx, FDX_SIM_HEAT, off), *b = sim_make(ctx, FDX_SIM_HEAT, blk);
    if (a && b) {
        fdx_sim_result ra, rb;
        CHECK_OK(fdx_sim_run(a, NULL, &ra));
        CHECK_OK(fdx_sim_run(b, NULL, &rb));
        const int64_t *n = fdx_sim_shape(a);
        size_t count = (size_t)(n[0] * n[1] * (rank == 3 ? n[2] : 1));
        double *da = malloc(count * sizeof *da), *db = malloc(count * sizeof *db);
        CHECK_OK(fdx_sim_get_field(a, da));
        CHECK_OK(fdx_sim_get_field(b, db));
        CHECK(memcmp(da, db, count * sizeof(double)) == 0, "temporal %d (rank %d) differs from off", k, rank);
        char want[32];
        snprintf(want, sizeof want, "\"temporal\": %d,", k);
        CHECK(strstr(rb.summary, want), "temporal %d: the summary says %s", k, rb.summary);
        CHECK(strstr(ra.summary, "\"temporal\": 1,"), "temporal off: the summary says %s", ra.summary);
        free(da);
        free(db);
    }
    fdx_sim_destroy(&a);
    fdx_sim_destroy(&b);
}

/* A distributed run (2 and 3 units) equals the one-array run, unknowns bit
   for bit, frame included (both fill it from the unknowns). */
static void dist_equals_one_array(fdx_sim_kind kind, const char *spec)
{
    const char *kv[] = {"size", "40x36", "precision", "double", "order", "4", "boundary", spec, "steps", "30",
                        kind == FDX_SIM_HEAT ? "init" : NULL, "random", NULL};
    fdx_sim *a = sim_make(ctx, kind, kv);
    fdx_sim_result r;
    double *ua = malloc(40 * 36 * sizeof *ua), *ub = malloc(40 * 36 * sizeof *ub);
    const int64_t n[2] = {40, 36};
    if (a) CHECK_OK(fdx_sim_run(a, NULL, &r));
    if (a) CHECK_OK(fdx_sim_get_field(a, ua));
    fdx_options *opts = NULL;
    CHECK_OK(fdx_options_create(&opts));
    CHECK_OK(fdx_options_set(opts, "backend", SIM_BC_BACKEND));
    fdx_ctx *host = fdx_test_ctx("cpu");
    for (int units = 2; a && host && units <= 3; units++) {
        fdx_ctx *keep = ctx;
        ctx = host; /* the distributed run's simulation keeps the global fields on the host */
        fdx_sim *b = sim_make(ctx, kind, kv);
        ctx = keep;
        if (!b) continue;
        CHECK_OK(fdx_sim_run_dist(b, opts, units, 0, NULL, &r));
        CHECK_OK(fdx_sim_get_field(b, ub));
        CHECK(same_unknowns(ua, ub, n, 2, 0, 0), "%s %s: %d units differ from one array in the unknowns",
              fdx_sim_kind_name(kind), spec, units);
        /* The frame's ghosts too (the corners, which a star stencil never
           reads, are the initial values on one array and the exchange's on
           units with periodic axes). */
        int ghosts_same = 1;
        for (int j = 0; j < 36; j++)
            for (int i = 0; i < 40; i++) {
                int corner = (i < 2 || i >= 38) && (j < 2 || j >= 34);
                if (!corner && memcmp(&ua[i + 40 * j], &ub[i + 40 * j], sizeof(double)) != 0) ghosts_same = 0;
            }
        CHECK(ghosts_same, "%s %s: %d units differ from one array in the frame", fdx_sim_kind_name(kind), spec, units);
        fdx_sim_destroy(&b);
    }
    fdx_ctx_destroy(&host);
    fdx_options_destroy(&opts);
    free(ua);
    free(ub);
    fdx_sim_destroy(&a);
}

static void refusals(void)
{
    const char *ins[] = {"temporal", "4", NULL};
    refused(FDX_SIM_HEAT, ins, "temporal 4 with the insulated mirror");
    const char *bc[] = {"boundary", "all=periodic", "temporal", "2", NULL};
    refused(FDX_SIM_HEAT, bc, "temporal 2 with conditions");
    const char *gp[] = {"boundary", "fixed", "temporal", "2", "gpus", "2", NULL};
    refused(FDX_SIM_HEAT, gp, "temporal 2 with gpus");
    const char *sp[] = {"boundary", "x=periodic", "sponge", "5", NULL};
    refused(FDX_SIM_WAVE, sp, "a sponge against a periodic axis");
    const char *z[] = {"boundary", "z=dirichlet", NULL};
    refused(FDX_SIM_HEAT, z, "a z face in 2D");
    const char *small[] = {"size", "40x5", "order", "4", "boundary", "all=neumann", NULL};
    refused(FDX_SIM_HEAT, small, "an axis shorter than 3r");
    const char *wins[] = {"boundary", "insulated", NULL};
    refused(FDX_SIM_WAVE, wins, "the wave with heat's mirror");
    /* auto is off where blocking cannot apply (the default: insulated). */
    const char *dflt[] = {"size", "30x30", "steps", "20", NULL};
    fdx_sim *s = sim_make(ctx, FDX_SIM_HEAT, dflt);
    fdx_sim_result r;
    if (s) CHECK_OK(fdx_sim_run(s, NULL, &r));
    if (s) CHECK(strstr(r.summary, "\"temporal\": 1,") && strstr(r.summary, "\"boundary\": \"insulated\""), "%s", r.summary);
    fdx_sim_destroy(&s);
}

int main(void)
{
    ctx = fdx_test_ctx(SIM_BC_BACKEND);
    if (!ctx) return fdx_test_skip(SIM_BC_NAME, "no " SIM_BC_BACKEND " context");
    heat_equals_stencil_loop("all=periodic", 4);
    heat_equals_stencil_loop("x=periodic,y-=dirichlet:0.25,y+=neumann:-1", 2);
    heat_equals_stencil_loop("x-=dirichlet:1,x+=neumann:0.5,y=periodic", 6);
    periodic_translation(FDX_SIM_HEAT);
    periodic_translation(FDX_SIM_WAVE);
    dirichlet_steady();
    heat_temporal_bit_identical(2, 2);
    heat_temporal_bit_identical(4, 2);
    heat_temporal_bit_identical(3, 3);
    dist_equals_one_array(FDX_SIM_HEAT, "all=dirichlet:0.5");
    dist_equals_one_array(FDX_SIM_HEAT, "all=periodic");
    dist_equals_one_array(FDX_SIM_HEAT, "x=periodic,y=neumann");
    dist_equals_one_array(FDX_SIM_HEAT, "y=periodic,x=neumann");
    dist_equals_one_array(FDX_SIM_WAVE, "all=periodic");
    dist_equals_one_array(FDX_SIM_WAVE, "x=periodic,y-=dirichlet:0.5,y+=neumann:1");
    dist_equals_one_array(FDX_SIM_WAVE, "x-=neumann,x+=dirichlet,y=periodic");
    refusals();
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish(SIM_BC_NAME);
}
