/* fdx sor: successive over-relaxation for the 3D Dirichlet problem, in place
   in lexicographic order (an ACROSS loop run as hyperplanes), with the
   max-norm change as a reduction; timed with and without autotfm (the
   diagonalization), optionally against the CPU backend. */
#include "cmd_loops.h"
#include "cmd_sor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *CMD = "sor";

/* u* = x^2 + 2y^2 + 3z^2 + xy: second differences are exact, so the discrete
   solution of -Lu = -12 with u = u* on the boundary is u* itself. */
static double exact(double x, double y, double z) { return x * x + 2 * y * y + 3 * z * z + x * y; }

fdx_status cli_time_case(cli_step reset, cli_step run, void *arg, int warmup, int reps, fdx_time_stats *out)
{
    double t[64];
    if (reps > 64) reps = 64;
    for (int r = 0; r < warmup + reps; r++) {
        FDX_TRY(reset(arg));
        double t0 = 1e3 * fdx_now_s();
        FDX_TRY(run(arg));
        if (r >= warmup) t[r - warmup] = 1e3 * fdx_now_s() - t0;
    }
    for (int a = 1; a < reps; a++)
        for (int b = a; b > 0 && t[b] < t[b - 1]; b--) {
            double x = t[b];
            t[b] = t[b - 1];
            t[b - 1] = x;
        }
    out->reps = reps;
    out->min_ms = t[0];
    out->max_ms = t[reps - 1];
    out->median_ms = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    out->mean_ms = 0;
    for (int r = 0; r < reps; r++) out->mean_ms += t[r] / reps;
    return FDX_OK;
}

fdx_status cli_loop_record(fdx_json *j, const char *case_name, fdx_ctx *ctx, int rank, const int64_t *shape,
                           const fdx_time_stats *on, const fdx_time_stats *off, double bytes)
{
    fdx_time_stats tc;
    double copy_gbps = 0, eff = bytes / (on->median_ms * 1e6);
    FDX_TRY(fdx_copy_bandwidth(ctx, (size_t)256 << 20, 20, &tc, &copy_gbps));
    fdx_json_record_head(j, case_name, fdx_backend_kind_name(fdx_ctx_backend(ctx)),
                         fdx_ctx_device_name(ctx), "double", rank, shape);
    fdx_json_time_ms(j, on);
    fdx_json_num(j, "time_autotfm_ms", on->median_ms);
    fdx_json_num(j, "time_no_autotfm_ms", off->median_ms);
    fdx_json_num(j, "speedup_autotfm", off->median_ms / on->median_ms);
    fdx_json_num(j, "effective_gbps", eff);
    fdx_json_num(j, "effective_gbps_no_autotfm", bytes / (off->median_ms * 1e6));
    fdx_json_num(j, "copy_gbps", copy_gbps);
    fdx_json_num(j, "ratio_to_copy", eff / copy_gbps);
    return FDX_OK;
}

fdx_status sor_reset(void *arg)
{
    sor_variant *v = arg;
    fdx_layout id;
    FDX_TRY(fdx_layout_identity(3, &id));
    FDX_TRY(fdx_array_set_layout(v->u, &id));
    return fdx_array_put(v->u, v->p->u0);
}

fdx_status sor_run(void *arg)
{
    sor_variant *v = arg;
    FDX_TRY(fdx_loop_run_repeated(v->loop, v->sweeps, NULL));
    return fdx_loop_result(v->loop, "ch", &v->change, NULL);
}

fdx_status sor_variant_make(fdx_ctx *ctx, const sor *p, int sweeps, double omega, int autotfm, sor_variant *v)
{
    memset(v, 0, sizeof *v);
    v->ctx = ctx;
    v->p = p;
    v->sweeps = sweeps;
    int64_t shape[3] = {p->n, p->n, p->n}, lo[3] = {1, 1, 1}, hi[3] = {p->n - 1, p->n - 1, p->n - 1};
    int width[3] = {1, 1, 1};
    double h = 1.0 / (double)(p->n - 1);
    FDX_TRY(fdx_array_create(ctx, FDX_FLOAT64, 3, shape, FDX_ON_DEVICE, &v->u));
    FDX_TRY(fdx_loop_create(ctx, "i,j,k", &v->loop));
    FDX_TRY(fdx_loop_name(v->loop, "sor"));
    FDX_TRY(fdx_loop_range(v->loop, lo, hi));
    FDX_TRY(fdx_loop_array(v->loop, "U", v->u, FDX_READ_WRITE));
    FDX_TRY(fdx_loop_scalar(v->loop, "w", omega));
    FDX_TRY(fdx_loop_scalar(v->loop, "h2lap", 12.0 * h * h)); /* h^2 * Laplacian of u* */
    FDX_TRY(fdx_loop_reduction(v->loop, "ch", FDX_REDUCE_MAX));
    FDX_TRY(fdx_loop_across(v->loop, width));
    FDX_TRY(fdx_loop_set_autotfm(v->loop, autotfm));
    return fdx_loop_body(v->loop, SOR_BODY);
}

void sor_variant_free(sor_variant *v)
{
    fdx_loop_destroy(&v->loop);
    fdx_array_destroy(&v->u);
}

/* Max |u - u*| over the grid and max |u - other| (when other != NULL). */
static double error_of(const sor *p, const double *u, const double *other, double *diff)
{
    int64_t n = p->n;
    double h = 1.0 / (double)(n - 1), e = 0, d = 0;
    for (int64_t k = 0; k < n; k++)
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) {
                int64_t q = i + n * (j + n * k);
                e = fmax(e, fabs(u[q] - exact(i * h, j * h, k * h)));
                if (other) d = fmax(d, fabs(u[q] - other[q]));
            }
    if (diff) *diff = d;
    return e;
}

int cmd_sor(int argc, char **argv)
{
    const char *size_s = "128x128x128", *steps_s = "100", *omega_s = NULL, *reps_s = "5", *json = NULL, *cpu = NULL, *gpus_s = NULL;
    const cli_flag flags[] = {
        {"size", "NxNxN", "grid points per axis, boundary included; a cube: the kernel has one spacing h [128x128x128]", &size_s},
        {"steps", "N", "SOR sweeps per timed run [100]", &steps_s},
        {"omega", "W", "relaxation factor in (0,2) [2/(1+sin(pi h))]", &omega_s},
        {"reps", "N", "timed repetitions, median reported [5]", &reps_s},
        {"compare-cpu", NULL, "also time the CPU backend in this process", &cpu},
        {"gpus", "K", "distributed ACROSS over K units a process (GPUs, or CPU units with --backend cpu) and every rank under mpirun, checked bit for bit against one unit", &gpus_s},
        {"json", NULL, "print one JSON record instead of the table", &json},
        {NULL, NULL, NULL, NULL},
    };
    fdx_options *opts = NULL;
    int rc = cli_start(argc, argv, CMD, "[--size NxNxN] [--steps N] [--omega W] [--reps N] [--compare-cpu | --gpus K] [--json]", flags, &opts);
    fdx_ctx *ctx = NULL, *cctx = NULL;
    sor_variant on = {0}, off = {0}, vc = {0};
    sor p = {0};
    double *res_on = NULL, *res_off = NULL, *res_cpu = NULL;
    if (rc >= 0) goto done;
    long n, sweeps, reps;
    fdx_status st;
    double omega = 0;
    int rank = 3;
    int64_t g[3] = {0, 0, 0};
    if ((st = cli_parse_shape(size_s, 3, 3, 5, &rank, g)) != FDX_OK ||
        ((g[1] != g[0] || g[2] != g[0] || g[0] > 2048) &&
         (st = fdx_fail(FDX_ERR_INVALID, "--size %lldx%lldx%lld: sor solves on a cube of at most 2048 points an axis (write NxNxN)",
                        (long long)g[0], (long long)g[1], (long long)g[2])) != FDX_OK) ||
        (st = cli_parse_int("--steps", steps_s, 1, 100000, &sweeps)) != FDX_OK ||
        (st = cli_parse_int("--reps", reps_s, 1, 64, &reps)) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    n = (long)g[0];
    double h = 1.0 / (double)(n - 1);
    omega = 2.0 / (1.0 + sin(M_PI * h));
    if (omega_s && cli_parse_real("--omega", omega_s, 0, 2, &omega) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    long gpus = 0;
    if (gpus_s && ((st = cli_parse_int("--gpus", gpus_s, 1, 16, &gpus)) != FDX_OK)) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    if (gpus && cpu) {
        rc = cli_usage_error(CMD, "--gpus and --compare-cpu do not go together");
        goto done;
    }
    if (!gpus && cli_under_mpirun()) {
        rc = cli_usage_error(CMD, "started by mpirun with several processes: give --gpus K to distribute the run");
        goto done;
    }
    p.n = n;
    size_t cnt = (size_t)n * (size_t)n * (size_t)n;
    p.u0 = malloc(cnt * sizeof(double));
    if (!gpus) {
        res_on = malloc(cnt * sizeof(double));
        res_off = malloc(cnt * sizeof(double));
    }
    if (!p.u0 || (!gpus && (!res_on || !res_off))) {
        st = fdx_fail(FDX_ERR_NOMEM, "out of host memory for a %ld^3 grid", n);
        goto fail;
    }
    for (int64_t k = 0; k < n; k++)
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) {
                int edge = i == 0 || j == 0 || k == 0 || i == n - 1 || j == n - 1 || k == n - 1;
                p.u0[i + n * (j + n * k)] = edge ? exact(i * h, j * h, k * h) : 0.0;
            }
    if (gpus) {
        rc = cli_sor_dist(CMD, opts, &p, (int)sweeps, (int)reps, omega, (int)gpus, json != NULL);
        goto done;
    }
    if ((st = fdx_ctx_create(opts, &ctx)) != FDX_OK) goto fail;
    if (cpu && fdx_ctx_backend(ctx) == FDX_BACKEND_CPU) { /* a flag with no effect is an error (issue 18) */
        rc = cli_usage_error(CMD, "--compare-cpu has no effect: this run is on the CPU backend already");
        goto done;
    }
    fdx_time_stats t_on, t_off, t_cpu = {0};
    FDX_TRY_GOTO(st, sor_variant_make(ctx, &p, (int)sweeps, omega, 1, &on), fail);
    FDX_TRY_GOTO(st, sor_variant_make(ctx, &p, (int)sweeps, omega, 0, &off), fail);
    FDX_TRY_GOTO(st, cli_time_case(sor_reset, sor_run, &on, 1, (int)reps, &t_on), fail);
    FDX_TRY_GOTO(st, fdx_array_get(on.u, res_on), fail);
    FDX_TRY_GOTO(st, cli_time_case(sor_reset, sor_run, &off, 1, (int)reps, &t_off), fail);
    FDX_TRY_GOTO(st, fdx_array_get(off.u, res_off), fail);
    double diff_off, diff_cpu = 0, err = error_of(&p, res_on, res_off, &diff_off);
    if (cpu) {
        fdx_options *co = NULL;
        FDX_TRY_GOTO(st, fdx_options_create(&co), fail);
        st = fdx_options_set(co, "backend", "cpu");
        if (st == FDX_OK) st = fdx_ctx_create(co, &cctx);
        fdx_options_destroy(&co);
        if (st != FDX_OK) goto fail;
        res_cpu = malloc(cnt * sizeof(double));
        if (!res_cpu) {
            st = fdx_fail(FDX_ERR_NOMEM, "out of host memory");
            goto fail;
        }
        FDX_TRY_GOTO(st, sor_variant_make(cctx, &p, (int)sweeps, omega, 1, &vc), fail);
        FDX_TRY_GOTO(st, cli_time_case(sor_reset, sor_run, &vc, 1, reps > 3 ? 3 : (int)reps, &t_cpu), fail);
        FDX_TRY_GOTO(st, fdx_array_get(vc.u, res_cpu), fail);
        error_of(&p, res_on, res_cpu, &diff_cpu);
    }
    /* |u| <= 7: the variants agree to rounding (CPU code may contract to FMA) */
    int verified = diff_off <= 7e-12 && diff_cpu <= 7e-10 && fabs(on.change - off.change) <= 1e-12 * fabs(on.change) + 1e-300;
    const char *backend = fdx_backend_kind_name(fdx_ctx_backend(ctx));
    if (json) {
        fdx_json j;
        fdx_json_init(&j);
        int64_t shape[3] = {n, n, n};
        /* bytes: each sweep reads and writes the grid once at best */
        double bytes = 2.0 * (double)cnt * 8.0 * (double)sweeps;
        if ((st = cli_loop_record(&j, "sor", ctx, 3, shape, &t_on, &t_off, bytes)) != FDX_OK) {
            fdx_json_free(&j);
            goto fail;
        }
        fdx_json_int(&j, "sweeps", sweeps);
        fdx_json_num(&j, "omega", omega);
        if (cpu) {
            fdx_json_num(&j, "time_cpu_ms", t_cpu.median_ms);
            fdx_json_str(&j, "cpu_device", fdx_ctx_device_name(cctx));
            fdx_json_num(&j, "speedup_vs_cpu", t_cpu.median_ms / t_on.median_ms);
            fdx_json_num(&j, "max_diff_cpu", diff_cpu);
        }
        fdx_json_num(&j, "last_change", on.change);
        fdx_json_num(&j, "max_error_vs_exact", err);
        fdx_json_num(&j, "max_diff_no_autotfm", diff_off);
        fdx_json_bool(&j, "verified", verified);
        fdx_json_num(&j, "max_abs_error", fmax(diff_off, diff_cpu));
        st = fdx_json_finish(&j, stdout);
        if (st != FDX_OK) goto fail;
    } else {
        printf("fdx sor: %ld^3 double, %ld sweeps, omega %.6f on %s (%s)\n", n, sweeps, omega, backend,
               fdx_ctx_device_name(ctx));
        printf("  autotfm on   %10.3f ms median (min %.3f, %d reps)\n", t_on.median_ms, t_on.min_ms, t_on.reps);
        printf("  autotfm off  %10.3f ms median (min %.3f)  speedup %.2fx\n", t_off.median_ms, t_off.min_ms,
               t_off.median_ms / t_on.median_ms);
        if (cpu)
            printf("  cpu backend  %10.3f ms median (%s)  GPU speedup %.2fx, max diff %.3g\n", t_cpu.median_ms,
                   fdx_ctx_device_name(cctx), t_cpu.median_ms / t_on.median_ms, diff_cpu);
        printf("  last change  %.3g, max error vs exact solution %.3g, on/off max diff %.3g\n", on.change, err, diff_off);
    }
    rc = verified ? CLI_OK
                  : cli_verify_failed(CMD, "results differ between variants (%.3g without autotfm, %.3g CPU)", diff_off,
                                      diff_cpu);
    goto done;
fail:
    rc = cli_fail(CMD, st);
done:
    sor_variant_free(&on);
    sor_variant_free(&off);
    sor_variant_free(&vc);
    free(p.u0);
    free(res_on);
    free(res_off);
    free(res_cpu);
    fdx_ctx_destroy(&cctx);
    fdx_ctx_destroy(&ctx);
    fdx_options_destroy(&opts);
    return rc;
}
