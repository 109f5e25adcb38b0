/* fdx aos --gpus K: the seed's AOS loop on a distributed array with a
   component axis ((5, X, Y, Z) split along Z over K units a process and
   every rank under mpirun), checked point by point against the loop's
   formula; the record carries gpus, ranks, shape, time_ms and the
   checksum. */
#include "cmd_loops.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct daos {
    fdx_dist *d;
    fdx_darray *a;
    fdx_dloop *loop;
    const double *init;
    const int64_t *g;
    int iters;
} daos;

static double from_init(const int64_t *gi, void *arg)
{
    const daos *v = arg;
    return v->init[gi[3] + 5 * (gi[0] + v->g[0] * (gi[1] + v->g[1] * gi[2]))];
}

static fdx_status dreset(void *arg)
{
    daos *v = arg;
    return fdx_darray_fill(v->a, from_init, v);
}

static fdx_status drun(void *arg)
{
    daos *v = arg;
    FDX_TRY(fdx_dloop_run_repeated(v->loop, v->iters));
    return fdx_dist_sync(v->d);
}

int cli_aos_dist(const char *cmd, fdx_options *opts, const int64_t *g, const double *init, int iters, int reps, int gpus,
                 int json)
{
    fdx_dist_desc dd = {0};
    dd.rank = 3;
    for (int a = 0; a < 3; a++) dd.shape[a] = g[a];
    dd.units_per_proc = gpus;
    daos v = {0};
    v.init = init, v.g = g, v.iters = iters;
    double *got = NULL;
    int rc;
    fdx_status st = fdx_dist_create(opts, &dd, &v.d);
    if (st != FDX_OK) {
        rc = st == FDX_ERR_INVALID ? cli_usage_error(cmd, "--gpus %d: %s", gpus, fdx_last_error()) : cli_fail(cmd, st);
        goto done;
    }
    size_t cnt = (size_t)(5 * g[0] * g[1] * g[2]);
    got = malloc(cnt * sizeof(double));
    if (!got) {
        st = fdx_fail(FDX_ERR_NOMEM, "out of host memory for %zu doubles", cnt);
        goto fail;
    }
    fdx_darray_desc ad = {0};
    ad.type = FDX_FLOAT64, ad.ncomp = 5;
    FDX_TRY_GOTO(st, fdx_darray_create_desc(v.d, &ad, &v.a), fail);
    FDX_TRY_GOTO(st, fdx_dloop_create(v.d, "i,j,k", &v.loop), fail);
    FDX_TRY_GOTO(st, fdx_dloop_array(v.loop, "A", v.a, FDX_READ_WRITE), fail);
    FDX_TRY_GOTO(st, fdx_dloop_body(v.loop, "A(3,i,j,k) = A(1,i,j,k) * A(4,i,j,k) + 0.5 * A(1,i,j,k);"), fail);
    fdx_time_stats t;
    FDX_TRY_GOTO(st, cli_time_case(dreset, drun, &v, 1, reps, &t), fail);
    FDX_TRY_GOTO(st, fdx_darray_gather(v.a, got, 1), fail);
    fdx_dist_checksum cs;
    FDX_TRY_GOTO(st, fdx_darray_checksum(v.a, &cs), fail);
    double err = 0;
    for (size_t q = 0; q < cnt; q++) {
        double want = q % 5 == 3 ? init[q - 2] * init[q + 1] + 0.5 * init[q - 2] : init[q];
        double e = fabs(got[q] - want);
        if (!(e <= err)) err = isnan(e) ? INFINITY : e;
    }
    int verified = err <= 1e-15; /* as fdx aos: the generated C may contract to FMA */
    fdx_ctx *ctx = fdx_dist_ctx(v.d, 0);
    int units = fdx_dist_units(v.d), cuda = fdx_ctx_backend(ctx) == FDX_BACKEND_CUDA;
    if (fdx_dist_proc(v.d) == 0) {
        if (json) {
            fdx_json j;
            fdx_json_init(&j);
            int64_t shape[4] = {5, g[0], g[1], g[2]};
            fdx_json_record_head(&j, "aos_dist", fdx_backend_kind_name(fdx_ctx_backend(ctx)), fdx_ctx_device_name(ctx),
                                 "double", 4, shape);
            fdx_json_time_ms(&j, &t);
            fdx_json_int(&j, "iters", iters);
            fdx_json_int(&j, "gpus", cuda ? units : 0);
            fdx_json_int(&j, "units", units);
            fdx_json_int(&j, "ranks", fdx_dist_procs(v.d));
            fdx_json_begin(&j, "checksum");
            fdx_json_num(&j, "sum", cs.sum);
            char hex[24];
            snprintf(hex, sizeof hex, "%016" PRIx64, cs.digest);
            fdx_json_str(&j, "digest", hex);
            fdx_json_end(&j);
            fdx_json_bool(&j, "verified", verified);
            fdx_json_num(&j, "max_abs_error", err);
            st = fdx_json_finish(&j, stdout);
            if (st != FDX_OK) goto fail;
        } else {
            printf("fdx aos: (5,%lld,%lld,%lld) double, %d iterations, distributed on %d units (%d ranks) of %s\n",
                   (long long)g[0], (long long)g[1], (long long)g[2], iters, units, fdx_dist_procs(v.d),
                   fdx_ctx_device_name(ctx));
            printf("  distributed  %10.3f ms median (min %.3f, %d reps)\n", t.median_ms, t.min_ms, t.reps);
            printf("  verified     %s (max abs error %.3g), digest %016" PRIx64 "\n", verified ? "yes" : "NO", err,
                   cs.digest);
        }
    }
    rc = verified ? CLI_OK : CLI_VERIFY_FAILED;
    if (!verified && fdx_dist_proc(v.d) == 0) /* one line, from rank 0 */
        cli_verify_failed(cmd, "result failed verification (max abs error %.3g)", err);
    goto done;
fail:
    rc = cli_fail(cmd, st);
done:
    fdx_dloop_destroy(&v.loop);
    fdx_darray_destroy(&v.a);
    fdx_dist_destroy(&v.d);
    fdx_dist_finalize();
    free(got);
    return rc;
}
