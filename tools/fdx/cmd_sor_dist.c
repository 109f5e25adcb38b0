/* fdx sor --gpus K: the same SOR as a distributed ACROSS loop over K units
   per process (GPUs, or CPU units on the CPU backend) and every MPI rank
   under mpirun, split along z; each rank also runs the one-unit loop of the
   plain path and the run verifies only when the gathered field is bit for
   bit that one (max_diff 0).  The record carries gpus, ranks, shape,
   time_ms, the checksum (sum and the decomposition-independent digest) and
   the one-unit time, so --gpus 1 measures the distributed layer's overhead
   over the plain path. */
#include "cmd_loops.h"
#include "cmd_sor.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dsor {
    const sor *p;
    fdx_dist *d;
    fdx_darray *u;
    fdx_dloop *loop;
    int sweeps;
    double change;
} dsor;

static double boundary_or_zero(const int64_t *g, void *arg)
{
    const sor *p = arg;
    int64_t n = p->n;
    return p->u0[g[0] + n * (g[1] + n * g[2])];
}

static fdx_status dreset(void *arg)
{
    dsor *v = arg;
    return fdx_darray_fill(v->u, boundary_or_zero, (void *)v->p);
}

static fdx_status drun(void *arg)
{
    dsor *v = arg;
    FDX_TRY(fdx_dloop_run_repeated(v->loop, v->sweeps));
    FDX_TRY(fdx_dloop_result(v->loop, "ch", &v->change));
    return fdx_dist_sync(v->d);
}

static fdx_status dsor_make(fdx_dist *d, const sor *p, int sweeps, double omega, dsor *v)
{
    memset(v, 0, sizeof *v);
    v->p = p;
    v->d = d;
    v->sweeps = sweeps;
    int64_t lo[3] = {1, 1, 1}, hi[3] = {p->n - 1, p->n - 1, p->n - 1};
    int one[3] = {1, 1, 1};
    double h = 1.0 / (double)(p->n - 1);
    FDX_TRY(fdx_darray_create(d, FDX_FLOAT64, &v->u));
    FDX_TRY(fdx_dloop_create(d, "i,j,k", &v->loop));
    FDX_TRY(fdx_dloop_range(v->loop, lo, hi));
    FDX_TRY(fdx_dloop_array(v->loop, "U", v->u, FDX_READ_WRITE));
    FDX_TRY(fdx_dloop_scalar(v->loop, "w", omega));
    FDX_TRY(fdx_dloop_scalar(v->loop, "h2lap", 12.0 * h * h));
    FDX_TRY(fdx_dloop_reduction(v->loop, "ch", FDX_REDUCE_MAX));
    FDX_TRY(fdx_dloop_across(v->loop, one, one));
    return fdx_dloop_body(v->loop, SOR_BODY);
}

int cli_sor_dist(const char *cmd, fdx_options *opts, const sor *p, int sweeps, int reps, double omega, int gpus,
                 int json)
{
    fdx_dist_desc dd = {0};
    dd.rank = 3;
    dd.shape[0] = dd.shape[1] = dd.shape[2] = p->n;
    dd.shadow[0] = dd.shadow[1] = dd.shadow[2] = 1;
    dd.units_per_proc = gpus;
    fdx_dist *d = NULL;
    dsor v = {0};
    sor_variant one = {0};
    double *field = NULL, *ref = NULL;
    int rc;
    fdx_status st = fdx_dist_create(opts, &dd, &d);
    if (st != FDX_OK) {
        /* a grid the units cannot split is the user's choice of --gpus */
        rc = st == FDX_ERR_INVALID ? cli_usage_error(cmd, "--gpus %d: %s", gpus, fdx_last_error()) : cli_fail(cmd, st);
        goto done;
    }
    size_t cnt = (size_t)p->n * (size_t)p->n * (size_t)p->n;
    field = malloc(cnt * sizeof(double));
    ref = malloc(cnt * sizeof(double));
    if (!field || !ref) {
        st = fdx_fail(FDX_ERR_NOMEM, "out of host memory for a %lld^3 grid", (long long)p->n);
        goto fail;
    }
    fdx_time_stats t, t1;
    FDX_TRY_GOTO(st, dsor_make(d, p, sweeps, omega, &v), fail);
    FDX_TRY_GOTO(st, cli_time_case(dreset, drun, &v, 1, reps, &t), fail);
    FDX_TRY_GOTO(st, fdx_darray_gather(v.u, field, 1), fail);
    fdx_dist_checksum cs;
    FDX_TRY_GOTO(st, fdx_darray_checksum(v.u, &cs), fail);
    /* one unit, the plain path (autotfm as configured), on unit 0's device */
    FDX_TRY_GOTO(st, sor_variant_make(fdx_dist_ctx(d, 0), p, sweeps, omega, 1, &one), fail);
    FDX_TRY_GOTO(st, cli_time_case(sor_reset, sor_run, &one, 1, reps, &t1), fail);
    FDX_TRY_GOTO(st, fdx_array_get(one.u, ref), fail);
    double diff = 0;
    for (size_t q = 0; q < cnt; q++) {
        double e = fabs(field[q] - ref[q]);
        if (!(e <= diff)) diff = isnan(e) ? INFINITY : e;
    }
    int verified = diff == 0 && v.change == one.change;
    fdx_ctx *ctx = fdx_dist_ctx(d, 0);
    int units = fdx_dist_units(d), procs = fdx_dist_procs(d), cuda = fdx_ctx_backend(ctx) == FDX_BACKEND_CUDA;
    if (fdx_dist_proc(d) == 0) {
        if (json) {
            fdx_json j;
            fdx_json_init(&j);
            int64_t shape[3] = {p->n, p->n, p->n};
            fdx_json_record_head(&j, "sor_dist", fdx_backend_kind_name(fdx_ctx_backend(ctx)), fdx_ctx_device_name(ctx),
                                 "double", 3, shape);
            fdx_json_time_ms(&j, &t);
            fdx_json_int(&j, "sweeps", sweeps);
            fdx_json_num(&j, "omega", omega);
            fdx_json_int(&j, "gpus", cuda ? units : 0);
            fdx_json_int(&j, "units", units);
            fdx_json_int(&j, "ranks", procs);
            fdx_json_int(&j, "units_per_rank", gpus);
            /* units share GPUs when there are fewer (unit i on device i mod count) */
            int ndev = cuda ? fdx_cuda_device_count() : 0;
            fdx_json_int(&j, "devices_per_rank", cuda ? (gpus < ndev ? gpus : ndev) : 0);
            fdx_json_int(&j, "portions", fdx_dloop_portions(v.loop));
            fdx_json_str(&j, "transport", fdx_dist_transport(d));
            fdx_json_num(&j, "time_one_unit_ms", t1.median_ms);
            fdx_json_num(&j, "speedup_vs_one_unit", t1.median_ms / t.median_ms);
            fdx_json_num(&j, "scaling_efficiency", t1.median_ms / (units * t.median_ms));
            fdx_json_begin(&j, "checksum");
            fdx_json_num(&j, "sum", cs.sum);
            fdx_json_num(&j, "l2", cs.l2);
            char hex[24];
            snprintf(hex, sizeof hex, "%016" PRIx64, cs.digest);
            fdx_json_str(&j, "digest", hex);
            fdx_json_end(&j);
            fdx_json_num(&j, "last_change", v.change);
            fdx_json_num(&j, "max_diff_one_unit", diff);
            fdx_json_num(&j, "max_abs_error", diff);
            fdx_json_bool(&j, "verified", verified);
            st = fdx_json_finish(&j, stdout);
            if (st != FDX_OK) goto fail;
        } else {
            printf("fdx sor: %lld^3 double, %d sweeps, omega %.6f, distributed ACROSS on %d units (%d ranks x %d) of %s\n",
                   (long long)p->n, sweeps, omega, units, procs, gpus, fdx_ctx_device_name(ctx));
            printf("  distributed  %10.3f ms median (min %.3f, %d reps), %d portions a block\n", t.median_ms, t.min_ms,
                   t.reps, fdx_dloop_portions(v.loop));
            printf("  one unit     %10.3f ms median (plain path)  speedup %.2fx\n", t1.median_ms,
                   t1.median_ms / t.median_ms);
            printf("  checksum     sum %.17g digest %016" PRIx64 ", max diff vs one unit %.3g\n", cs.sum, cs.digest,
                   diff);
        }
    }
    rc = verified ? CLI_OK : CLI_VERIFY_FAILED;
    if (!verified && fdx_dist_proc(d) == 0) /* one line, from rank 0 */
        cli_verify_failed(cmd, "the distributed result differs from one unit's (max diff %.3g)", diff);
    goto done;
fail:
    rc = cli_fail(cmd, st);
done:
    sor_variant_free(&one);
    fdx_dloop_destroy(&v.loop);
    fdx_darray_destroy(&v.u);
    fdx_dist_destroy(&d);
    fdx_dist_finalize();
    free(field);
    free(ref);
    return rc;
}
