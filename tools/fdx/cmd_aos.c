/* fdx aos: the seed's loop over the points of ARRAY[Z][Y][X][5] (component
   fastest) that computes one component from two others, with no loop over
   the components: timed with autotfm (the runtime swaps the two fastest
   axes, transform included) and without. */
#include "cmd_loops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *CMD = "aos";


typedef struct aos {
    fdx_array *a;
    fdx_loop *loop;
    const double *init;
    int iters;
} aos;

static fdx_status reset(void *arg)
{
    aos *v = arg;
    fdx_layout id;
    FDX_TRY(fdx_layout_identity(4, &id));
    FDX_TRY(fdx_array_set_layout(v->a, &id));
    return fdx_array_put(v->a, v->init);
}

static fdx_status run(void *arg)
{
    aos *v = arg;
    return fdx_loop_run_repeated(v->loop, v->iters, NULL); /* NULL stream: waits */
}

static fdx_status make(fdx_ctx *ctx, const int64_t *shape, const double *init, int iters, int autotfm, aos *v)
{
    memset(v, 0, sizeof *v);
    v->init = init;
    v->iters = iters;
    int axes[3] = {1, 2, 3};
    FDX_TRY(fdx_array_create(ctx, FDX_FLOAT64, 4, shape, FDX_ON_DEVICE, &v->a));
    FDX_TRY(fdx_loop_create(ctx, "i,j,k", &v->loop));
    FDX_TRY(fdx_loop_name(v->loop, "aos"));
    FDX_TRY(fdx_loop_on(v->loop, v->a, axes));
    FDX_TRY(fdx_loop_array(v->loop, "A", v->a, FDX_READ_WRITE));
    FDX_TRY(fdx_loop_set_autotfm(v->loop, autotfm));
    return fdx_loop_body(v->loop, "A(3,i,j,k) = A(1,i,j,k) * A(4,i,j,k) + 0.5 * A(1,i,j,k);");
}

int cmd_aos(int argc, char **argv)
{
    const char *size_s = NULL, *steps_s = "100", *reps_s = "5", *json = NULL, *gpus_s = NULL;
    const cli_flag flags[] = {
        {"size", "NXxNYxNZ", "grid points per axis (3D only); each point holds 5 doubles [256x256x256]", &size_s},
        {"steps", "N", "loop executions per timed run [100]", &steps_s},
        {"reps", "N", "timed repetitions, median reported [5]", &reps_s},
        {"gpus", "K", "distributed over K units a process (GPUs, or CPU units with --backend cpu) and every rank under mpirun", &gpus_s},
        {"json", NULL, "print one JSON record instead of the table", &json},
        {NULL, NULL, NULL, NULL},
    };
    fdx_options *opts = NULL;
    int rc = cli_start(argc, argv, CMD, "[--size NXxNYxNZ] [--steps N] [--reps N] [--gpus K] [--json]", flags, &opts);
    fdx_ctx *ctx = NULL;
    aos on = {0}, off = {0};
    double *init = NULL, *got_on = NULL, *got_off = NULL;
    if (rc >= 0) goto done;
    int rank = 3;
    int64_t g[3] = {256, 256, 256};
    long iters, reps;
    fdx_status st;
    if ((size_s && (st = cli_parse_shape(size_s, 3, 3, 1, &rank, g)) != FDX_OK) ||
        (st = cli_parse_int("--steps", steps_s, 1, 100000, &iters)) != FDX_OK ||
        (st = cli_parse_int("--reps", reps_s, 1, 64, &reps)) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    int64_t shape[4] = {5, g[0], g[1], g[2]};
    if ((st = fdx_shape_check(4, shape, 1, 8)) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    long gpus = 0;
    if (gpus_s && (st = cli_parse_int("--gpus", gpus_s, 1, 16, &gpus)) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    if (!gpus && cli_under_mpirun()) {
        rc = cli_usage_error(CMD, "started by mpirun with several processes: give --gpus K to distribute the run");
        goto done;
    }
    size_t cnt = (size_t)(5 * g[0] * g[1] * g[2]);
    /* the initial field, two results, and a run's two arrays and scratch */
    const char *what;
    double need = 6.0 * (double)cnt * 8, avail = fdx_host_memory_available(&what);
    if (need > avail) {
        rc = cli_usage_error(CMD, "--size %s needs %.2f GiB of host memory, more than %s (%.2f GiB)", size_s,
                             need / (1 << 30), what, avail / (1 << 30));
        goto done;
    }
    init = malloc(cnt * 8);
    if (!init) {
        st = fdx_fail(FDX_ERR_NOMEM, "out of host memory for %zu doubles", cnt);
        goto fail;
    }
    uint64_t s = 88172645463325252ULL;
    for (size_t q = 0; q < cnt; q++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        init[q] = (double)(s >> 11) / 9007199254740992.0;
    }
    if (gpus) {
        rc = cli_aos_dist(CMD, opts, g, init, (int)iters, (int)reps, (int)gpus, json != NULL);
        goto done;
    }
    if ((st = fdx_ctx_create(opts, &ctx)) != FDX_OK) goto fail;
    /* two arrays (on, off) plus a transform's scratch copy */
    if (3 * cnt * 8 > fdx_ctx_memory(ctx) / 10 * 9) {
        rc = cli_usage_error(CMD, "--size %s needs %.2f GiB, more than %s has", size_s, 3.0 * cnt * 8 / (1 << 30), fdx_ctx_device_name(ctx));
        goto done;
    }
    got_on = malloc(cnt * 8);
    got_off = malloc(cnt * 8);
    if (!got_on || !got_off) {
        st = fdx_fail(FDX_ERR_NOMEM, "out of host memory for %zu doubles", cnt);
        goto fail;
    }
    fdx_time_stats t_on, t_off;
    FDX_TRY_GOTO(st, make(ctx, shape, init, (int)iters, 1, &on), fail);
    FDX_TRY_GOTO(st, make(ctx, shape, init, (int)iters, 0, &off), fail);
    FDX_TRY_GOTO(st, cli_time_case(reset, run, &on, 1, (int)reps, &t_on), fail);
    FDX_TRY_GOTO(st, fdx_array_get(on.a, got_on), fail);
    fdx_layout lay;
    FDX_TRY_GOTO(st, fdx_array_layout(on.a, &lay), fail);
    FDX_TRY_GOTO(st, cli_time_case(reset, run, &off, 1, (int)reps, &t_off), fail);
    FDX_TRY_GOTO(st, fdx_array_get(off.a, got_off), fail);
    double err = 0;
    for (size_t q = 0; q < cnt; q++) {
        double want = q % 5 == 3 ? init[q - 2] * init[q + 1] + 0.5 * init[q - 2] : init[q];
        err = fmax(err, fmax(fabs(got_on[q] - want), fabs(got_off[q] - want)));
    }
    int verified = err <= 1e-15;
    double bytes = 3.0 * (double)cnt / 5.0 * 8.0 * (double)iters; /* 2 reads + 1 write per point */
    const char *backend = fdx_backend_kind_name(fdx_ctx_backend(ctx));
    char lay_s[64];
    snprintf(lay_s, sizeof lay_s, "%d,%d,%d,%d %s", lay.perm[0], lay.perm[1], lay.perm[2], lay.perm[3], fdx_diag_name(lay.diag));
    if (json) {
        fdx_json j;
        fdx_json_init(&j);
        if ((st = cli_loop_record(&j, "aos", ctx, 4, shape, &t_on, &t_off, bytes)) != FDX_OK) {
            fdx_json_free(&j);
            goto fail;
        }
        fdx_json_int(&j, "iters", iters);
        fdx_json_str(&j, "layout_autotfm", lay_s);
        fdx_json_bool(&j, "verified", verified);
        fdx_json_num(&j, "max_abs_error", err);
        st = fdx_json_finish(&j, stdout);
        if (st != FDX_OK) goto fail;
    } else {
        printf("fdx aos: (%lld,%lld,%lld,5) double, %ld iterations on %s (%s)\n", (long long)g[0], (long long)g[1],
               (long long)g[2], iters, backend, fdx_ctx_device_name(ctx));
        printf("  autotfm on   %10.3f ms median (min %.3f, %d reps; layout %s; transform included)\n", t_on.median_ms,
               t_on.min_ms, t_on.reps, lay_s);
        printf("  autotfm off  %10.3f ms median (min %.3f)  speedup %.2fx\n", t_off.median_ms, t_off.min_ms,
               t_off.median_ms / t_on.median_ms);
        printf("  verified     %s (max abs error %.3g)\n", verified ? "yes" : "NO", err);
    }
    rc = verified ? CLI_OK : cli_verify_failed(CMD, "result failed verification (max abs error %.3g)", err);
    goto done;
fail:
    rc = cli_fail(CMD, st);
done:
    fdx_loop_destroy(&on.loop);
    fdx_array_destroy(&on.a);
    fdx_loop_destroy(&off.loop);
    fdx_array_destroy(&off.a);
    free(init);
    free(got_on);
    free(got_off);
    fdx_ctx_destroy(&ctx);
    fdx_options_destroy(&opts);
    return rc;
}
