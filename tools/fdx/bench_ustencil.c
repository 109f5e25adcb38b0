/* fdx bench ustencil: user stencils (issue 17 item 3) against the copy
   bandwidth: the 27-point 3x3x3 box and div(k grad u) with face-averaged k
   (reads u and k), in both precisions, at 512^3 and a shape that is no
   block or vector multiple.  Inputs are random, the output is poisoned with
   NaN, and every point of a sample of planes (the frame planes, the planes
   around chunk boundaries, every 7th) is checked against a plain loop.  One
   table row or JSON record ("op": "box27" or "div_k_grad", "ratio_to_copy",
   "shape", "precision", "verified") per case. */
#include "cmd_stencil.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct ucase {
    const char *name;
    int div; /* 0: box 3x3x3, 1: div(k grad u) */
    int64_t shape[3];
    fdx_dtype dtype;
    int reps;
} ucase;

#define F32 FDX_FLOAT32
#define F64 FDX_FLOAT64

static const ucase gpu_cases[] = {
    {"box27_f64_512", 0, {512, 512, 512}, F64, 20},      {"div_f64_512", 1, {512, 512, 512}, F64, 20},
    {"box27_f32_512", 0, {512, 512, 512}, F32, 20},      {"div_f32_512", 1, {512, 512, 512}, F32, 20},
    {"box27_f64_509x257x255", 0, {509, 257, 255}, F64, 20}, {"div_f64_509x257x255", 1, {509, 257, 255}, F64, 20},
    {"box27_f32_509x257x255", 0, {509, 257, 255}, F32, 20}, {"div_f32_509x257x255", 1, {509, 257, 255}, F32, 20},
};
static const ucase cpu_cases[] = {
    {"box27_f64_256", 0, {256, 256, 256}, F64, 10},
    {"div_f64_256", 1, {256, 256, 256}, F64, 10},
};
static const ucase quick_cases[] = {
    {"box27_f64_quick", 0, {40, 33, 29}, F64, 3},
    {"div_f32_quick", 1, {37, 30, 26}, F32, 3},
};

static double at(const void *p, int dbl, int64_t q) { return dbl ? ((const double *)p)[q] : ((const float *)p)[q]; }

typedef struct urun {
    fdx_ustencil *s;
    fdx_array *out, *u, *k;
} urun;

static fdx_status apply_once(void *arg, void *stream)
{
    urun *r = arg;
    return fdx_ustencil_apply(r->s, r->out, &r->u, r->k ? &r->k : NULL, stream);
}

typedef struct ucheck {
    double max_err;
    int64_t bad, checked;
} ucheck;

/* The box's weights (x fastest) and div's spacing. */
static void box_weights(double *w)
{
    for (int i = 0; i < 27; i++) w[i] = (i == 13 ? -2.0 : 0.5) / (1 + (i % 3 != 1) + (i / 3 % 3 != 1) + (i / 9 != 1));
}

/* Every point of the sampled planes: interior ones against the formula,
   frame ones still NaN. */
static void verify(const ucase *c, const double *h, fdx_array *out, fdx_array *u, fdx_array *k, ucheck *res)
{
    const int64_t nx = c->shape[0], ny = c->shape[1], nz = c->shape[2], st[3] = {1, nx, nx * ny};
    const int dbl = c->dtype == F64;
    const void *po = fdx_array_host(out), *pu = fdx_array_host(u), *pk = k ? fdx_array_host(k) : NULL;
    const double eps = dbl ? DBL_EPSILON : FLT_EPSILON;
    double w[27];
    box_weights(w);
    double max_err = 0;
    int64_t bad = 0, checked = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(max : max_err) reduction(+ : bad, checked)
    for (int64_t z = 0; z < nz; z++) {
        if (z % 7 && z > 2 && z < nz - 3 && (z - 1) % 32 > 1 && (z - 1) % 32 < 31) continue;
        for (int64_t y = 0; y < ny; y++)
            for (int64_t x = 0; x < nx; x++) {
                const int64_t q = x + nx * (y + ny * z);
                double v = at(po, dbl, q);
                if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) {
                    bad += !isnan(v);
                    continue;
                }
                double ref = 0, mag = 0;
                if (!c->div) {
                    for (int i = 0; i < 27; i++) {
                        double t = w[i] * at(pu, dbl, q + (i % 3 - 1) + (i / 3 % 3 - 1) * st[1] + (i / 9 - 1) * st[2]);
                        ref += t, mag += fabs(t);
                    }
                } else {
                    for (int a = 0; a < 3; a++) {
                        double up = at(pu, dbl, q + st[a]), u0 = at(pu, dbl, q), um = at(pu, dbl, q - st[a]);
                        double kp = 0.5 * (at(pk, dbl, q) + at(pk, dbl, q + st[a]));
                        double km = 0.5 * (at(pk, dbl, q - st[a]) + at(pk, dbl, q));
                        ref += (kp * (up - u0) - km * (u0 - um)) / (h[a] * h[a]);
                        mag += (fabs(kp) + fabs(km)) * (fabs(up) + 2 * fabs(u0) + fabs(um)) / (h[a] * h[a]);
                    }
                }
                double err = fabs(v - ref), tol = 128 * eps * mag + 1e-300;
                checked++;
                if (!(err <= tol)) bad++;
                else if (err > max_err) max_err = err;
            }
    }
    res->max_err = max_err, res->bad = bad, res->checked = checked;
}

static fdx_status print_record(fdx_ctx *ctx, const ucase *c, const char *config, const fdx_time_stats *t,
                               double fetch, double write, double copy_gbps, double same_gbps, const ucheck *chk)
{
    fdx_json j;
    fdx_json_init(&j);
    fdx_json_record_head(&j, c->name, fdx_backend_kind_name(fdx_ctx_backend(ctx)), fdx_ctx_device_name(ctx),
                         fdx_dtype_name(c->dtype), 3, c->shape);
    fdx_json_str(&j, "op", c->div ? "div_k_grad" : "box27");
    fdx_json_int(&j, "points", c->div ? 7 : 27);
    fdx_json_int(&j, "arrays_read", c->div ? 2 : 1);
    fdx_json_str(&j, "config", config);
    fdx_json_str(&j, "tune", fdx_options_get(fdx_ctx_options(ctx), "tune"));
    stencil_json_rates(&j, t, fetch, write, copy_gbps, same_gbps);
    fdx_json_num(&j, "gpoints_per_s",
                 (double)(c->shape[0] * c->shape[1] * c->shape[2]) / (t->median_ms * 1e-3) / 1e9);
    fdx_json_bool(&j, "verified", chk->bad == 0 && chk->checked > 0);
    fdx_json_num(&j, "max_abs_error", chk->max_err);
    fdx_json_int(&j, "points_checked", chk->checked);
    fdx_status st = fdx_json_finish(&j, stdout);
    fflush(stdout);
    return st;
}

static int run_case(fdx_ctx *ctx, const char *cmd, const ucase *c, int json, double copy_gbps)
{
    urun r = {0};
    fdx_ustencil_desc *d = NULL;
    fdx_status st;
    int rc = CLI_OK;
    double h[3], w[27];
    for (int a = 0; a < 3; a++) h[a] = 1.0 / (double)(c->shape[a] - 1);
    box_weights(w);
    FDX_TRY_GOTO(st, fdx_ustencil_desc_create(3, 1, 1, c->div, &d), fail);
    if (c->div) FDX_TRY_GOTO(st, fdx_ustencil_desc_add_div_k_grad(d, 0, 0, 0, h, 1.0), fail);
    else FDX_TRY_GOTO(st, fdx_ustencil_desc_add_box(d, 0, 0, 1, w), fail);
    FDX_TRY_GOTO(st, fdx_ustencil_create(ctx, d, c->dtype, &r.s), fail);
    double fetch, write, same_gbps;
    fdx_ustencil_traffic(r.s, c->shape, &fetch, &write);
    size_t same = ((size_t)((fetch + write) / 2) + 255) & ~(size_t)255;
    FDX_TRY_GOTO(st, fdx_copy_bandwidth(ctx, same, 20, NULL, &same_gbps), fail);
    unsigned places = FDX_ON_HOST | FDX_ON_DEVICE;
    FDX_TRY_GOTO(st, fdx_array_create(ctx, c->dtype, 3, c->shape, places, &r.u), fail);
    FDX_TRY_GOTO(st, fdx_array_create(ctx, c->dtype, 3, c->shape, places, &r.out), fail);
    stencil_fill_random(r.u, 1);
    FDX_TRY_GOTO(st, fdx_array_to_device(r.u), fail);
    if (c->div) {
        /* k in [0.5, 1.5): a positive conductivity. */
        FDX_TRY_GOTO(st, fdx_array_create(ctx, c->dtype, 3, c->shape, places, &r.k), fail);
        stencil_fill_random(r.k, 2);
        int64_t n = fdx_array_count(r.k);
        void *p = fdx_array_host(r.k);
        for (int64_t i = 0; i < n; i++)
            if (c->dtype == F64) ((double *)p)[i] = 1 + 0.5 * ((double *)p)[i];
            else ((float *)p)[i] = 1 + 0.5f * ((float *)p)[i];
        FDX_TRY_GOTO(st, fdx_array_to_device(r.k), fail);
    }
    FDX_TRY_GOTO(st, fdx_array_fill_host(r.out, NAN), fail);
    FDX_TRY_GOTO(st, fdx_array_to_device(r.out), fail);
    if (fdx_ctx_backend(ctx) == FDX_BACKEND_CUDA) FDX_TRY_GOTO(st, fdx_array_fill_device_bytes(r.out, 0xFF), fail);
    /* The first apply tunes (when asked) and is verified on the poisoned output. */
    FDX_TRY_GOTO(st, apply_once(&r, NULL), fail);
    FDX_TRY_GOTO(st, fdx_array_to_host(r.out), fail);
    ucheck chk;
    verify(c, h, r.out, r.u, r.k, &chk);
    int verified = chk.bad == 0 && chk.checked > 0;
    fdx_time_stats t;
    FDX_TRY_GOTO(st, fdx_time_run(ctx, apply_once, &r, 3, c->reps, &t), fail);
    const char *config = fdx_ustencil_config(r.s, c->shape);
    if (json) {
        FDX_TRY_GOTO(st, print_record(ctx, c, config, &t, fetch, write, copy_gbps, same_gbps, &chk), fail);
    } else {
        double eff = fdx_effective_gbps(fetch, write, t.median_ms);
        printf("%-24s %-4s %-6s %-12s %-40s %9.4f %9.1f %9.1f %6.3f %6.3f %s\n", c->name,
               fdx_backend_kind_name(fdx_ctx_backend(ctx)), fdx_dtype_name(c->dtype), c->div ? "div_k_grad" : "box27",
               config, t.median_ms, eff, copy_gbps, eff / copy_gbps, eff / same_gbps, verified ? "yes" : "NO");
        fflush(stdout);
    }
    if (!verified)
        rc = cli_verify_failed(cmd, "case %s failed verification: %lld of %lld points wrong", c->name,
                               (long long)chk.bad, (long long)chk.checked);
    goto done;
fail:
    rc = cli_fail(cmd, st);
done:
    fdx_array_destroy(&r.u);
    fdx_array_destroy(&r.k);
    fdx_array_destroy(&r.out);
    fdx_ustencil_destroy(&r.s);
    fdx_ustencil_desc_destroy(&d);
    return rc;
}

static int run(fdx_ctx *ctx, const char *cmd, const void *which, int json, int reps, double copy_gbps)
{
    ucase c = *(const ucase *)which;
    if (reps) c.reps = reps;
    return run_case(ctx, cmd, &c, json, copy_gbps);
}

static void header(void)
{
    printf("%-24s %-4s %-6s %-12s %-40s %9s %9s %9s %6s %6s %s\n", "case", "back", "prec", "op", "config", "time_ms",
           "eff_GB/s", "copy_GB/s", "ratio", "r_same", "verified");
}

int bench_ustencil(int argc, char **argv)
{
#define N(t) (sizeof t / sizeof *t)
    static const bench_suite suite = {.cmd = "bench ustencil",
                                      .reps_help = "timed repetitions per case [20 on the GPU, 10 on the CPU]",
                                      .gpu = gpu_cases, .cpu = cpu_cases, .quick = quick_cases,
                                      .ngpu = N(gpu_cases), .ncpu = N(cpu_cases), .nquick = N(quick_cases),
                                      .elem = sizeof(ucase), .run = run, .header = header};
#undef N
    return bench_suite_main(&suite, argc, argv);
}
