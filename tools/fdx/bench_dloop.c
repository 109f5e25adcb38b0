/* fdx bench dloop: what the distributed loop layer costs (issue 14's 3%
   target).  The same 2D heat step, u' = u + a (5-point Laplacian of u) at
   interior points, run two ways on the same distribution: the hand-written
   distributed stencil path (fdx_dstencil_run, the path of fdx dist, CUDA
   graphs where it can) and two distributed loops (fdx_dloop: u -> v, then
   v -> u, shadows renewed by the runtime).  Times per step, their ratio, and
   the largest difference between the two results (the loop body and the
   generated stencil add the same terms in different orders, so they agree
   to rounding, not bit for bit). */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double ALPHA = 0.2;
#define BODY "V(i,j) = U(i,j) + a * (U(i-1,j) + U(i+1,j) + U(i,j-1) + U(i,j+1) - 4 * U(i,j));"

static double bump(const int64_t *g, void *arg)
{
    const int64_t *n = arg;
    double x = (double)g[0] / (double)n[0] - 0.5, y = (double)g[1] / (double)n[1] - 0.5;
    return exp(-40 * (x * x + y * y)) + 0.25 * sin(7 * x) * cos(5 * y);
}

typedef struct bench {
    fdx_dist *d;
    fdx_darray *a[2], *b[2]; /* a: the stencil path's ring, b: the loops' pair */
    fdx_dstencil *s;
    fdx_dloop *step[2];
    fdx_loop *plain[2]; /* one unit: the same body as a plain loop on the unit's arrays */
} bench;

static void bench_free(bench *x)
{
    for (int i = 0; i < 2; i++) {
        fdx_loop_destroy(&x->plain[i]);
        fdx_dloop_destroy(&x->step[i]);
        fdx_darray_destroy(&x->a[i]);
        fdx_darray_destroy(&x->b[i]);
    }
    fdx_dstencil_destroy(&x->s);
    fdx_dist_destroy(&x->d);
}

static fdx_status bench_setup(bench *x, const fdx_options *opts, const int64_t *n, int units)
{
    fdx_dist_desc dd = {0};
    dd.rank = 2;
    dd.shape[0] = n[0];
    dd.shape[1] = n[1];
    dd.shadow[1] = 1; /* split along the slowest axis, as fdx dist does */
    dd.units_per_proc = units;
    FDX_TRY(fdx_dist_create(opts, &dd, &x->d));
    int64_t nn[2] = {n[0], n[1]};
    for (int i = 0; i < 2; i++) {
        FDX_TRY(fdx_darray_create(x->d, FDX_FLOAT64, &x->a[i]));
        FDX_TRY(fdx_darray_create(x->d, FDX_FLOAT64, &x->b[i]));
        FDX_TRY(fdx_darray_fill(x->a[i], bump, nn));
        FDX_TRY(fdx_darray_fill(x->b[i], bump, nn));
    }
    fdx_stencil_desc sd;
    fdx_stencil_desc_laplacian(&sd, 2, 2, NULL);
    sd.update = FDX_UPDATE_HEAT;
    sd.alpha = ALPHA;
    FDX_TRY(fdx_dstencil_create(x->d, &sd, FDX_FLOAT64, &x->s));
    const int64_t lo[2] = {1, 1}, hi[2] = {n[0] - 1, n[1] - 1};
    for (int i = 0; i < 2; i++) {
        fdx_dloop *l = NULL;
        FDX_TRY(fdx_dloop_create(x->d, "i,j", &l));
        x->step[i] = l;
        FDX_TRY(fdx_dloop_range(l, lo, hi));
        FDX_TRY(fdx_dloop_array(l, "U", x->b[i], FDX_READ));
        FDX_TRY(fdx_dloop_array(l, "V", x->b[1 - i], FDX_WRITE));
        FDX_TRY(fdx_dloop_scalar(l, "a", ALPHA));
        FDX_TRY(fdx_dloop_body(l, BODY));
    }
    if (units > 1) return FDX_OK;
    /* One unit holds the whole grid (no shadows): local indices are global. */
    for (int i = 0; i < 2; i++) {
        fdx_loop *l = NULL;
        FDX_TRY(fdx_loop_create(fdx_dist_ctx(x->d, 0), "i,j", &l));
        x->plain[i] = l;
        FDX_TRY(fdx_loop_range(l, lo, hi));
        FDX_TRY(fdx_loop_array(l, "U", fdx_darray_local(x->b[i], 0), FDX_READ));
        FDX_TRY(fdx_loop_array(l, "V", fdx_darray_local(x->b[1 - i], 0), FDX_WRITE));
        FDX_TRY(fdx_loop_scalar(l, "a", ALPHA));
        FDX_TRY(fdx_loop_body(l, BODY));
    }
    return FDX_OK;
}

/* Seconds for `steps` steps of either path (steps even: the loops' pair and
   the stencil's ring both end where they started). */
static fdx_status time_stencil(bench *x, int64_t steps, double *sec)
{
    double t0 = fdx_now_s();
    FDX_TRY(fdx_dstencil_run(x->s, x->a, 2, NULL, steps, 1, 1));
    FDX_TRY(fdx_dist_sync(x->d));
    *sec = fdx_now_s() - t0;
    return FDX_OK;
}

static fdx_status time_loops(bench *x, int64_t steps, double *sec)
{
    double t0 = fdx_now_s();
    for (int64_t k = 0; k < steps; k++) FDX_TRY(fdx_dloop_run(x->step[k & 1]));
    FDX_TRY(fdx_dist_sync(x->d));
    *sec = fdx_now_s() - t0;
    return FDX_OK;
}

/* The plain loops (one unit): what the loop generator's kernel costs
   without the distribution layer; they leave the pair where it was. */
static fdx_status time_plain(bench *x, int64_t steps, double *sec)
{
    double t0 = fdx_now_s();
    for (int64_t k = 0; k < steps; k++) FDX_TRY(fdx_loop_run(x->plain[k & 1], fdx_dist_stream(x->d, 0)));
    FDX_TRY(fdx_dist_sync(x->d));
    *sec = fdx_now_s() - t0;
    return FDX_OK;
}

static fdx_status max_difference(bench *x, const int64_t *n, double *diff)
{
    size_t cells = (size_t)n[0] * (size_t)n[1];
    double *p = malloc(cells * sizeof *p), *q = malloc(cells * sizeof *q);
    fdx_status st = p && q ? FDX_OK : fdx_fail(FDX_ERR_NOMEM, "bench dloop: no host memory for two %lldx%lld fields",
                                               (long long)n[0], (long long)n[1]);
    /* the stencil ring's newest field is a[0] after an even number of steps */
    if (st == FDX_OK) st = fdx_darray_gather(x->a[0], p, 1);
    if (st == FDX_OK) st = fdx_darray_gather(x->b[0], q, 1);
    double m = 0;
    for (size_t c = 0; st == FDX_OK && c < cells; c++) {
        double e = fabs(p[c] - q[c]);
        if (!(e <= m)) m = e; /* NaN wins */
    }
    *diff = m;
    free(p);
    free(q);
    return st;
}

int bench_dloop(int argc, char **argv)
{
    static const char *CMD = "bench dloop";
    const char *size_s = NULL, *steps_s = NULL, *gpus_s = NULL, *json = NULL;
    const cli_flag flags[] = {
        {"size", "NXxNY", "global grid [16384x16384]", &size_s},
        {"steps", "N", "timed steps per path, even [100]", &steps_s},
        {"gpus", "K", "units: GPUs, or CPU units on the CPU backend [1]", &gpus_s},
        {"json", NULL, "one JSON record instead of the table", &json},
        {NULL, NULL, NULL, NULL},
    };
    fdx_options *opts = NULL;
    int rc = cli_start(argc, argv, CMD, "[--size NXxNY] [--steps N] [--gpus K] [--json]", flags, &opts);
    bench x = {0};
    if (rc >= 0) goto done;
    int rank = 2;
    int64_t n[3] = {16384, 16384, 1};
    long steps = 100, units = 1;
    fdx_status st = FDX_OK;
    if ((size_s && (st = cli_parse_shape(size_s, 2, 2, 3, &rank, n)) != FDX_OK) ||
        (steps_s && (st = cli_parse_int("--steps", steps_s, 2, 1000000, &steps)) != FDX_OK) ||
        (gpus_s && (st = cli_parse_int("--gpus", gpus_s, 1, 64, &units)) != FDX_OK)) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    if (steps % 2) {
        rc = cli_usage_error(CMD, "--steps %ld: give an even count (both paths alternate two fields)", steps);
        goto done;
    }
    if ((st = bench_setup(&x, opts, n, (int)units)) != FDX_OK) goto fail;
    /* Warm-up (compiles, tunes, captures graphs), then the timed steps; the
       result compared after the same number of steps on both paths. */
    double ts, tl, diff;
    if ((st = time_stencil(&x, 2, &ts)) != FDX_OK || (st = time_loops(&x, 2, &tl)) != FDX_OK) goto fail;
    if ((st = time_stencil(&x, steps, &ts)) != FDX_OK || (st = time_loops(&x, steps, &tl)) != FDX_OK) goto fail;
    if ((st = max_difference(&x, n, &diff)) != FDX_OK) goto fail;
    double tp = 0;
    if (x.plain[0] && ((st = time_plain(&x, 2, &tp)) != FDX_OK || (st = time_plain(&x, steps, &tp)) != FDX_OK))
        goto fail;
    /* Both start from fields of size about 1 and take steps + 2 heat steps
       that each add a few roundings: 1e-12 is far above that, far below any
       missing shadow or misplaced index. */
    int ok = diff <= 1e-12;
    double ms_s = 1e3 * ts / (double)steps, ms_l = 1e3 * tl / (double)steps;
    const char *backend = fdx_backend_kind_name(fdx_ctx_backend(fdx_dist_ctx(x.d, 0)));
    char plain[40] = "null";
    if (x.plain[0]) snprintf(plain, sizeof plain, "%.17g", 1e3 * tp / (double)steps);
    if (json)
        printf("{\"case\": \"dloop_overhead\", \"shape\": [%lld, %lld], \"precision\": \"double\", \"backend\": \"%s\", "
               "\"units\": %ld, \"steps\": %ld, \"dstencil_ms\": %.17g, \"dloop_ms\": %.17g, \"overhead\": %.17g, "
               "\"plain_loop_ms\": %s, \"max_diff\": %.17g, \"verified\": %s}\n",
               (long long)n[0], (long long)n[1], backend, units, steps, ms_s, ms_l, ms_l / ms_s - 1, plain, diff,
               ok ? "true" : "false");
    else
        printf("heat step %lldx%lld double, %ld unit(s) on %s: dstencil %.4f ms, dloop %.4f ms a step "
               "(overhead %+.1f%%; plain loop %.4f ms), max difference %.3g: %s\n",
               (long long)n[0], (long long)n[1], units, backend, ms_s, ms_l, 100 * (ms_l / ms_s - 1),
               x.plain[0] ? 1e3 * tp / (double)steps : (double)NAN, diff, ok ? "verified" : "FAILED");
    rc = ok ? CLI_OK : CLI_VERIFY_FAILED;
    goto done;
fail:
    rc = cli_fail(CMD, st);
done:
    bench_free(&x);
    fdx_options_destroy(&opts);
    return rc;
}
