/* fdx bench dhalo: deep halos (issue 20 item 4).  The 2D acoustic wave
   (8th order by default, a velocity-squared coefficient array, a pulse at
   rest) on K units split along the slowest axis with shadows of k r,
   exchanged once every k steps (fdx_dstencil_set_temporal), against the
   same blocked kernels on one unit (the parallel efficiency t1 / (K tK))
   and against K units one step a pass (today's path, CUDA graphs where it
   can).  The three runs take the same steps from the same fields and must
   agree bit for bit (u and u_prev). */
#include "cli.h"
#include "fdx/internal/clock.h"
#include "fdx/internal/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dh {
    fdx_dist *d;
    fdx_dstencil *s;
    fdx_darray *b[3], *cf;
} dh;

static void dh_free(dh *x)
{
    for (int i = 0; i < 3; i++) fdx_darray_destroy(&x->b[i]);
    fdx_darray_destroy(&x->cf);
    fdx_dstencil_destroy(&x->s);
    fdx_dist_destroy(&x->d);
}

/* A Ricker pulse at the centre; every field of the ring starts the same (at
   rest), so all share the frame, as deep halos ask. */
static double pulse(const int64_t *g, void *arg)
{
    const int64_t *n = arg;
    double x = (double)g[0] - 0.5 * (double)(n[0] - 1), y = (double)g[1] - 0.5 * (double)(n[1] - 1);
    double q = (x * x + y * y) / 36.0;
    return (1.0 - 2.0 * q) * exp(-q);
}

/* c^2 dt^2 / h^2 scaled into the stable range: 0.05 .. 0.1 across the rows. */
static double coef(const int64_t *g, void *arg)
{
    const int64_t *n = arg;
    return 0.05 + 0.05 * (double)g[1] / (double)(n[1] - 1);
}

static fdx_status dh_setup(dh *x, const fdx_options *opts, const int64_t *n, int order, fdx_dtype type, int units,
                           int k)
{
    fdx_dist_desc dd = {0};
    dd.rank = 2;
    dd.shape[0] = n[0], dd.shape[1] = n[1];
    dd.shadow[1] = units > 1 ? (k > 1 ? k : 1) * order / 2 : 0; /* split along the slowest axis */
    dd.units_per_proc = units;
    FDX_TRY(fdx_dist_create(opts, &dd, &x->d));
    int64_t nn[2] = {n[0], n[1]};
    for (int i = 0; i < 3; i++) {
        FDX_TRY(fdx_darray_create(x->d, type, &x->b[i]));
        FDX_TRY(fdx_darray_fill(x->b[i], pulse, nn));
    }
    FDX_TRY(fdx_darray_create(x->d, type, &x->cf));
    FDX_TRY(fdx_darray_fill(x->cf, coef, nn));
    fdx_stencil_desc sd;
    fdx_stencil_desc_laplacian(&sd, 2, order, NULL);
    sd.update = FDX_UPDATE_WAVE;
    sd.coef = 1;
    FDX_TRY(fdx_dstencil_create(x->d, &sd, type, &x->s));
    return fdx_dstencil_set_temporal(x->s, k);
}

/* Milliseconds a step over `steps` steps (after `warm` untimed ones). */
static fdx_status dh_time(dh *x, int64_t warm, int64_t steps, double *ms)
{
    FDX_TRY(fdx_dstencil_run(x->s, x->b, 3, x->cf, warm, 0, 1));
    FDX_TRY(fdx_dist_sync(x->d));
    double t0 = fdx_now_s();
    FDX_TRY(fdx_dstencil_run(x->s, x->b, 3, x->cf, steps, 0, 1));
    FDX_TRY(fdx_dist_sync(x->d));
    *ms = 1e3 * (fdx_now_s() - t0) / (double)steps;
    return FDX_OK;
}

/* u then u_prev, gathered. */
static fdx_status dh_gather(dh *x, void *out, size_t bytes)
{
    FDX_TRY(fdx_darray_gather(x->b[1], out, 1));
    return fdx_darray_gather(x->b[0], (char *)out + bytes, 1);
}

int bench_dhalo(int argc, char **argv)
{
    static const char *CMD = "bench dhalo";
    const char *size_s = NULL, *steps_s = NULL, *gpus_s = NULL, *k_s = NULL, *order_s = NULL, *prec = NULL,
               *json = NULL;
    const cli_flag flags[] = {
        {"size", "NXxNY", "global grid [4096x4096]", &size_s},
        {"order", "N", "accuracy order in space, even 2..8 [8]", &order_s},
        {"precision", "P", "float or double [float]", &prec},
        {"steps", "N", "timed steps, rounded up to whole passes [240]", &steps_s},
        {"gpus", "K", "units: GPUs, or CPU units on the CPU backend [2]", &gpus_s},
        {"temporal", "K", "steps a pass and exchange, 2..8 [4]", &k_s},
        {"json", NULL, "one JSON record instead of the table", &json},
        {NULL, NULL, NULL, NULL},
    };
    fdx_options *opts = NULL;
    int rc = cli_start(argc, argv, CMD,
                       "[--size NXxNY] [--order N] [--precision P] [--steps N] [--gpus K] [--temporal K] [--json]",
                       flags, &opts);
    dh one = {0}, many = {0}, off = {0};
    void *r1 = NULL, *rk = NULL, *ro = NULL;
    if (rc >= 0) goto done;
    int rank = 2;
    int64_t n[3] = {4096, 4096, 1};
    long steps = 240, units = 2, k = 4, order = 8;
    fdx_dtype type = FDX_FLOAT32;
    fdx_status st = FDX_OK;
    if ((size_s && (st = cli_parse_shape(size_s, 2, 2, 16, &rank, n)) != FDX_OK) ||
        (steps_s && (st = cli_parse_int("--steps", steps_s, 1, 1000000, &steps)) != FDX_OK) ||
        (gpus_s && (st = cli_parse_int("--gpus", gpus_s, 1, 64, &units)) != FDX_OK) ||
        (k_s && (st = cli_parse_int("--temporal", k_s, 2, 8, &k)) != FDX_OK) ||
        (order_s && (st = cli_parse_int("--order", order_s, 2, 8, &order)) != FDX_OK)) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    if (order % 2) {
        rc = cli_usage_error(CMD, "--order %ld is odd (2, 4, 6 or 8)", order);
        goto done;
    }
    if (prec && strcmp(prec, "float") && strcmp(prec, "double")) {
        rc = cli_usage_error(CMD, "--precision '%s' is not float or double", prec);
        goto done;
    }
    if (prec && !strcmp(prec, "double")) type = FDX_FLOAT64;
    /* Untimed first: 27 steps (kernels compile; one step a pass captures its
       CUDA graph of 24 steps and ends where the ring started, 27 = 0 mod 3).
       The timed steps are whole passes. */
    const int64_t warm = 27;
    steps = (steps + k - 1) / k * k;
    double t1, tk, toff;
    if ((st = dh_setup(&one, opts, n, (int)order, type, 1, (int)k)) != FDX_OK ||
        (st = dh_time(&one, warm, steps, &t1)) != FDX_OK)
        goto fail;
    if ((st = dh_setup(&many, opts, n, (int)order, type, (int)units, (int)k)) != FDX_OK ||
        (st = dh_time(&many, warm, steps, &tk)) != FDX_OK)
        goto fail;
    if ((st = dh_setup(&off, opts, n, (int)order, type, (int)units, 0)) != FDX_OK ||
        (st = dh_time(&off, warm, steps, &toff)) != FDX_OK)
        goto fail;
    size_t bytes = (size_t)(n[0] * n[1]) * fdx_dtype_size(type);
    r1 = malloc(2 * bytes), rk = malloc(2 * bytes), ro = malloc(2 * bytes);
    if (!r1 || !rk || !ro) {
        st = fdx_fail(FDX_ERR_NOMEM, "bench dhalo: no host memory for the fields");
        goto fail;
    }
    if ((st = dh_gather(&one, r1, bytes)) != FDX_OK || (st = dh_gather(&many, rk, bytes)) != FDX_OK ||
        (st = dh_gather(&off, ro, bytes)) != FDX_OK)
        goto fail;
    int ok = memcmp(r1, rk, 2 * bytes) == 0 && memcmp(r1, ro, 2 * bytes) == 0 && memcmp(r1, (char *)r1 + bytes, bytes) != 0;
    double eff = t1 / ((double)units * tk), eff_off = t1 / ((double)units * toff);
    fdx_ctx *ctx0 = fdx_dist_ctx(many.d, 0);
    const char *backend = fdx_backend_kind_name(fdx_ctx_backend(ctx0));
    if (json) {
        fdx_json j;
        fdx_json_init(&j);
        fdx_json_record_head(&j, "dhalo_wave2d", backend, fdx_ctx_device_name(ctx0), fdx_dtype_name(type), 2, n);
        fdx_json_int(&j, "order", order);
        fdx_json_int(&j, "units", units);
        fdx_json_int(&j, "temporal", k);
        fdx_json_int(&j, "steps", steps);
        fdx_json_num(&j, "ms_per_step_one_unit", t1);
        fdx_json_num(&j, "ms_per_step", tk);
        fdx_json_num(&j, "ms_per_step_one_step_a_pass", toff);
        fdx_json_num(&j, "efficiency", eff);
        fdx_json_num(&j, "efficiency_one_step_a_pass", eff_off);
        fdx_json_bool(&j, "verified", ok);
        fdx_json_str(&j, "verified_against", "one unit and one step a pass, u and u_prev bit for bit");
        if ((st = fdx_json_finish(&j, stdout)) != FDX_OK) goto fail;
    } else {
        printf("wave %lldx%lld order %ld %s on %ld unit(s) (%s), deep halos k %ld: %.4f ms a step (one unit %.4f, "
               "efficiency %.3f); one step a pass %.4f ms (efficiency %.3f); bit-identical: %s\n",
               (long long)n[0], (long long)n[1], order, fdx_dtype_name(type), units, backend, k, tk, t1, eff, toff,
               eff_off, ok ? "yes" : "NO");
    }
    rc = ok ? CLI_OK : cli_verify_failed(CMD, "the deep-halo run differs from one unit / one step a pass");
    goto done;
fail:
    rc = cli_fail(CMD, st);
done:
    free(r1), free(rk), free(ro);
    dh_free(&one), dh_free(&many), dh_free(&off);
    fdx_options_destroy(&opts);
    return rc;
}
