/* fdx laplacian: the seed's 7-point (3D) or 5-point (2D) Laplacian on a
   quadratic whose discrete Laplacian is exact; verifies, times and reports
   effective bandwidth against the device copy bandwidth. */
#include "cli.h"
#include "fdx/internal/json.h"
#include "fdx/loop.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *CMD = "laplacian";

typedef struct run {
    fdx_array *in, *out;
    double h[3];
} run;

static fdx_status apply_once(void *arg, void *stream)
{
    run *r = arg;
    return fdx_laplacian_apply(r->out, r->in, r->h, stream);
}

/* The input and the check run where the arrays live, as loops compiled at
   run time like the stencil (cached after the first run): nothing is
   allocated, filled, copied or scanned on the host.  On the H100 the host
   input, the host copies (2 GiB each way at 512^3 f64) and the host check
   were most of a warm run's 1.5 s. */
static fdx_status run_loop(fdx_ctx *ctx, int rank, const char *name, fdx_array *a, fdx_access access,
                           const char *body, const double *scalars, const char *const *scalar_names, int nscalars,
                           int check, double *err, int64_t *unwritten, int64_t *clobbered)
{
    fdx_loop *l = NULL;
    fdx_status st;
    FDX_TRY_GOTO(st, fdx_loop_create(ctx, rank == 3 ? "i,j,k" : "i,j", &l), done);
    FDX_TRY_GOTO(st, fdx_loop_name(l, name), done);
    FDX_TRY_GOTO(st, fdx_loop_set_autotfm(l, 0), done);
    FDX_TRY_GOTO(st, fdx_loop_array(l, "U", a, access), done);
    FDX_TRY_GOTO(st, fdx_loop_on(l, a, NULL), done);
    for (int i = 0; i < nscalars; i++) FDX_TRY_GOTO(st, fdx_loop_scalar(l, scalar_names[i], scalars[i]), done);
    if (check) {
        FDX_TRY_GOTO(st, fdx_loop_reduction(l, "err", FDX_REDUCE_MAX), done);
        FDX_TRY_GOTO(st, fdx_loop_reduction_typed(l, "unwritten", FDX_REDUCE_SUM, FDX_INT64), done);
        FDX_TRY_GOTO(st, fdx_loop_reduction_typed(l, "clobbered", FDX_REDUCE_SUM, FDX_INT64), done);
    }
    FDX_TRY_GOTO(st, fdx_loop_body(l, body), done);
    FDX_TRY_GOTO(st, fdx_loop_run(l, NULL), done);
    if (check) {
        FDX_TRY_GOTO(st, fdx_loop_result(l, "err", err, NULL), done);
        FDX_TRY_GOTO(st, fdx_loop_result_int(l, "unwritten", unwritten, NULL), done);
        FDX_TRY_GOTO(st, fdx_loop_result_int(l, "clobbered", clobbered, NULL), done);
    }
done:
    fdx_loop_destroy(&l);
    return st;
}

/* u = x^2 + 2y^2 + 3z^2 + xy + yz on [0,1]^d: second differences of a
   quadratic are exact, so L u = 2 + 4 (+ 6) up to rounding. */
static fdx_status fill_input(fdx_ctx *ctx, fdx_array *a, const double *h, int rank)
{
    static const char *const names[] = {"h0", "h1", "h2"};
    const char *body = rank == 3 ? "double x = i * h0, y = j * h1, z = k * h2;\n"
                                   "U(i,j,k) = x * x + 2 * y * y + 3 * z * z + x * y + y * z;\n"
                                 : "double x = i * h0, y = j * h1;\n"
                                   "U(i,j) = x * x + 2 * y * y + x * y;\n";
    return run_loop(ctx, rank, "laplacian_input", a, FDX_WRITE, body, h, names, rank, 0, NULL, NULL, NULL);
}

/* Max |f - exact| over interior points; boundary points must still hold the
   NaN poison (nothing may write them). */
static fdx_status check_output(fdx_ctx *ctx, fdx_array *a, const int64_t *n, int rank, double *err,
                               int64_t *unwritten, int64_t *clobbered)
{
    static const char *const names[] = {"exact", "m0", "m1", "m2"};
    double v[4] = {rank == 3 ? 12.0 : 6.0, (double)(n[0] - 1), (double)(n[1] - 1), rank == 3 ? (double)(n[2] - 1) : 0};
    const char *body = rank == 3 ? "double v = U(i,j,k);\n"
                                   "if (i > 0 && i < m0 && j > 0 && j < m1 && k > 0 && k < m2) {\n"
                                   "    if (isnan(v)) unwritten = 1; else err = fabs(v - exact);\n"
                                   "} else if (!isnan(v)) clobbered = 1;\n"
                                 : "double v = U(i,j);\n"
                                   "if (i > 0 && i < m0 && j > 0 && j < m1) {\n"
                                   "    if (isnan(v)) unwritten = 1; else err = fabs(v - exact);\n"
                                   "} else if (!isnan(v)) clobbered = 1;\n";
    *err = 0;
    FDX_TRY(run_loop(ctx, rank, "laplacian_check", a, FDX_READ, body, v, names, rank + 1, 1, err, unwritten,
                     clobbered));
    if (!(*err >= 0)) *err = 0; /* no interior point with a value: the max of nothing */
    return FDX_OK;
}

int cmd_laplacian(int argc, char **argv)
{
    const char *size = NULL, *precision = "double", *reps_s = "20", *json = NULL;
    const cli_flag flags[] = {
        {"size", "NXxNY[xNZ]", "grid points per axis, 2D or 3D [256x256x256]", &size},
        {"precision", "P", "float or double [double]", &precision},
        {"reps", "N", "timed repetitions, median reported [20]", &reps_s},
        {"json", NULL, "print one JSON record instead of the table", &json},
        {NULL, NULL, NULL, NULL},
    };
    fdx_options *opts = NULL;
    int rc = cli_start(argc, argv, CMD, "[--size NXxNY[xNZ]] [--precision float|double] [--reps N] [--json]",
                       flags, &opts);
    fdx_ctx *ctx = NULL;
    run r = {0};
    if (rc >= 0) goto done;

    int rank = 3;
    int64_t n[3] = {256, 256, 256};
    fdx_dtype dt;
    long reps;
    fdx_status st;
    if ((size && (st = cli_parse_shape(size, 2, 3, 3, &rank, n)) != FDX_OK) ||
        (st = fdx_dtype_parse(precision, &dt)) != FDX_OK || (dt != FDX_FLOAT32 && dt != FDX_FLOAT64 &&
                                                             (st = fdx_fail(FDX_ERR_INVALID, "--precision must be float or double, not '%s'", precision))) ||
        (st = cli_parse_int("--reps", reps_s, 1, 100000, &reps)) != FDX_OK ||
        (st = fdx_shape_check(rank, n, 3, fdx_dtype_size(dt))) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    if ((st = fdx_ctx_create(opts, &ctx)) != FDX_OK) {
        rc = cli_fail(CMD, st);
        goto done;
    }
    /* Two arrays on the device, none on the host. */
    size_t elem = fdx_dtype_size(dt), bytes = elem;
    for (int d = 0; d < rank; d++) bytes *= (size_t)n[d];
    size_t have = fdx_ctx_memory(ctx);
    if (bytes > SIZE_MAX / 4 || 2 * bytes > have * 9 / 10) {
        rc = cli_usage_error(CMD, "--size %s needs %.2f GiB for two arrays, more than the %.2f GiB of %s", size ? size : "256x256x256",
                             2.0 * (double)bytes / (1 << 30), (double)have / (1 << 30), fdx_ctx_device_name(ctx));
        goto done;
    }
    for (int d = 0; d < rank; d++) r.h[d] = 1.0 / (double)(n[d] - 1);

    /* The CPU backend's device memory is host memory (one buffer). */
    unsigned places = fdx_ctx_backend(ctx) == FDX_BACKEND_CPU ? FDX_ON_HOST | FDX_ON_DEVICE : FDX_ON_DEVICE;
    FDX_TRY_GOTO(st, fdx_array_create(ctx, dt, rank, n, places, &r.in), fail);
    FDX_TRY_GOTO(st, fdx_array_create(ctx, dt, rank, n, places, &r.out), fail);
    FDX_TRY_GOTO(st, fill_input(ctx, r.in, r.h, rank), fail);
    FDX_TRY_GOTO(st, fdx_array_fill_device_bytes(r.out, 0xff), fail); /* all ones: NaN in float and double */

    /* Verify one run on poisoned output, then time. */
    FDX_TRY_GOTO(st, apply_once(&r, NULL), fail);
    int64_t unwritten, clobbered;
    double err;
    FDX_TRY_GOTO(st, check_output(ctx, r.out, n, rank, &err, &unwritten, &clobbered), fail);
    double eps = dt == FDX_FLOAT64 ? DBL_EPSILON : FLT_EPSILON, scale = 0;
    for (int d = 0; d < rank; d++) scale += 4.0 / (r.h[d] * r.h[d]);
    double tol = 8.0 * eps * 10.0 * scale; /* |u| <= 8 on the unit cube */
    int verified = unwritten == 0 && clobbered == 0 && err <= tol;

    fdx_time_stats t, tc;
    double copy_gbps, fetch, write;
    FDX_TRY_GOTO(st, fdx_time_run(ctx, apply_once, &r, 3, (int)reps, &t), fail);
    size_t probe = bytes < (256u << 20) ? (256u << 20) : bytes > (1u << 30) ? (1u << 30) : bytes;
    FDX_TRY_GOTO(st, fdx_copy_bandwidth(ctx, probe, 20, &tc, &copy_gbps), fail);
    fdx_star_traffic(rank, n, 1, elem, &fetch, &write);
    double eff = fdx_effective_gbps(fetch, write, t.median_ms);
    const char *backend = fdx_backend_kind_name(fdx_ctx_backend(ctx));

    if (json) {
        fdx_json j;
        fdx_json_init(&j);
        fdx_json_record_head(&j, "laplacian", backend, fdx_ctx_device_name(ctx), fdx_dtype_name(dt), rank, n);
        fdx_json_int(&j, "order", 2);
        fdx_json_time_ms(&j, &t);
        fdx_json_traffic(&j, "bytes", fetch, write, eff, copy_gbps);
        fdx_json_bool(&j, "verified", verified);
        fdx_json_num(&j, "max_abs_error", err);
        fdx_json_num(&j, "tolerance", tol);
        st = fdx_json_finish(&j, stdout);
        if (st != FDX_OK) goto fail;
    } else {
        char shape[96];
        if (rank == 3) snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)n[0], (long long)n[1], (long long)n[2]);
        else snprintf(shape, sizeof shape, "%lldx%lld", (long long)n[0], (long long)n[1]);
        printf("fdx laplacian: %s %s on %s (%s)\n", shape, fdx_dtype_name(dt), backend, fdx_ctx_device_name(ctx));
        printf("  verified       %s (max abs error %.3g, tolerance %.3g", verified ? "yes" : "NO", err, tol);
        if (unwritten || clobbered)
            printf("; %lld interior points unwritten, %lld boundary points written", (long long)unwritten,
                   (long long)clobbered);
        printf(")\n");
        printf("  kernel time    %.4f ms median (min %.4f, max %.4f, %d reps)\n", t.median_ms, t.min_ms, t.max_ms,
               t.reps);
        printf("  traffic        fetch %.4g GB, write %.4g GB (seed's theoretical sizes)\n", fetch / 1e9, write / 1e9);
        printf("  effective      %.1f GB/s\n", eff);
        printf("  copy           %.1f GB/s (%s)\n", copy_gbps,
               fdx_ctx_backend(ctx) == FDX_BACKEND_CUDA ? "cudaMemcpy device to device" : "parallel memcpy");
        printf("  ratio to copy  %.3f\n", eff / copy_gbps);
    }
    rc = verified ? CLI_OK
                  : cli_verify_failed(CMD, "result failed verification (max abs error %.3g > tolerance %.3g, %lld unwritten, "
                                           "%lld clobbered)", err, tol, (long long)unwritten, (long long)clobbered);
    goto done;
fail:
    rc = cli_fail(CMD, st);
done:
    fdx_array_destroy(&r.in);
    fdx_array_destroy(&r.out);
    fdx_ctx_destroy(&ctx);
    fdx_options_destroy(&opts);
    return rc;
}
