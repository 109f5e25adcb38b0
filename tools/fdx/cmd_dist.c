/* fdx dist: `fdx wave` / `fdx heat --gpus K` with a timing harness.  The
   flags become the simulation's configuration (wave: the layered model;
   heat: a Gaussian between fixed walls), which runs through the same path
   as the simulation commands (fdx_sim_run_dist_timed: the same steps, the
   same checksums); then batches of 48 steps are timed (CUDA graphs where
   they can run) and, with several units in one process, the same run on
   one unit gives the scaling efficiency and must leave the same field. */
#include "cli.h"
#include "fdx/internal/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *CMD = "dist";
#define BATCH 48 /* two CUDA graphs of 24 steps */

typedef struct dist_args {
    int wave, dims, overlap, graph;
    long order, steps, gpus, reps;
    int64_t n[3];
    const char *precision;
} dist_args;

/* The simulation's configuration of a dist run on `gpus` units a process. */
static fdx_status make_config(const dist_args *a, long gpus, fdx_sim_config **out)
{
    char size[96], num[32];
    int k = snprintf(size, sizeof size, "%lld", (long long)a->n[0]);
    for (int d = 1; d < a->dims; d++) k += snprintf(size + k, sizeof size - (size_t)k, "x%lld", (long long)a->n[d]);
    FDX_TRY(fdx_sim_config_create(a->wave ? FDX_SIM_WAVE : FDX_SIM_HEAT, out));
    fdx_sim_config *c = *out;
    fdx_status st = fdx_sim_config_set(c, "size", size);
    snprintf(num, sizeof num, "%ld", a->steps);
    if (st == FDX_OK) st = fdx_sim_config_set(c, "steps", num);
    snprintf(num, sizeof num, "%ld", a->order);
    if (st == FDX_OK) st = fdx_sim_config_set(c, "order", num);
    if (st == FDX_OK) st = fdx_sim_config_set(c, "precision", a->precision);
    if (st == FDX_OK && a->wave) st = fdx_sim_config_set(c, "model", "layered");
    if (st == FDX_OK && !a->wave) st = fdx_sim_config_set(c, "init", "gaussian");
    if (st == FDX_OK && !a->wave) st = fdx_sim_config_set(c, "boundary", "fixed");
    snprintf(num, sizeof num, "%ld", gpus);
    if (st == FDX_OK) st = fdx_sim_config_set(c, "gpus", num);
    if (st == FDX_OK) st = fdx_sim_config_set(c, "overlap", a->overlap ? "on" : "off");
    if (st != FDX_OK) fdx_sim_config_destroy(out);
    return st;
}

/* The same run as a command line: `fdx wave|heat --key value ...`. */
static void same_command(const dist_args *a, const fdx_sim_config *c, char *out, size_t cap)
{
    char *text = fdx_sim_config_text(c);
    size_t k = (size_t)snprintf(out, cap, "fdx %s", a->wave ? "wave" : "heat");
    for (char *line = text ? strtok(text, "\n") : NULL; line && k < cap; line = strtok(NULL, "\n")) {
        char key[64], value[128];
        if (sscanf(line, "%63s = \"%127[^\"]\"", key, value) == 2 || sscanf(line, "%63s = %127s", key, value) == 2)
            k += (size_t)snprintf(out + k, cap - k, " --%s %s", key, value);
    }
    free(text);
}

/* One run through the simulation on `gpus` units a process: its result,
   timing and (when asked) final field. */
static fdx_status run_once(const dist_args *a, const fdx_options *opts, long gpus, fdx_sim_result *res,
                           fdx_sim_timing *t, double **field, char *same, size_t cap)
{
    fdx_options *host_opts = NULL;
    fdx_sim_config *cfg = NULL;
    fdx_ctx *host = NULL;
    fdx_sim *sim = NULL;
    /* The simulation keeps the global fields on the host; the units come
       from the user's options (as fdx wave --gpus). */
    fdx_status st = fdx_options_create(&host_opts);
    if (st == FDX_OK) st = fdx_options_set(host_opts, "backend", "cpu");
    if (st == FDX_OK) st = make_config(a, gpus, &cfg);
    if (st == FDX_OK && same) same_command(a, cfg, same, cap);
    if (st == FDX_OK) st = fdx_ctx_create(host_opts, &host);
    if (st == FDX_OK) st = fdx_sim_create(host, cfg, &sim);
    if (st == FDX_OK) st = fdx_sim_run_dist_timed(sim, opts, (int)gpus, a->overlap, NULL, res, t);
    if (st == FDX_OK && field) {
        size_t cells = (size_t)a->n[0] * (size_t)a->n[1] * (size_t)a->n[2];
        *field = malloc(cells * sizeof(double));
        st = *field ? fdx_sim_get_field(sim, *field) : fdx_fail(FDX_ERR_NOMEM, "out of host memory for the field");
    }
    fdx_sim_destroy(&sim);
    fdx_ctx_destroy(&host);
    fdx_sim_config_destroy(&cfg);
    fdx_options_destroy(&host_opts);
    return st;
}

typedef struct report {
    const fdx_sim_result *res;
    const fdx_sim_timing *t, *t1; /* t1: one unit (NULL: no baseline) */
    const char *backend, *device, *same;
    double copy_gbps, err;
    int verified;
} report;

static fdx_status print_json(const dist_args *a, const report *r)
{
    const fdx_sim_timing *t = r->t;
    int cuda = strcmp(r->backend, "cuda") == 0;
    double eff = fdx_effective_gbps(t->fetch_bytes, t->write_bytes, t->median_ms);
    double cells = (double)a->n[0] * (double)a->n[1] * (double)a->n[2];
    fdx_json j;
    fdx_json_init(&j);
    fdx_json_record_head(&j, a->wave ? "dist_wave" : "dist_heat", r->backend, r->device, a->precision, a->dims, a->n);
    fdx_json_int(&j, "order", a->order);
    fdx_json_int(&j, "steps", a->steps);
    fdx_json_int(&j, "units", r->res->units);
    fdx_json_int(&j, "ranks", r->res->procs);
    fdx_json_int(&j, "units_per_rank", t->local_units);
    fdx_json_int(&j, "gpus", cuda ? r->res->units : 0);
    fdx_json_bool(&j, "overlap", a->overlap);
    fdx_json_bool(&j, "graph", t->graph_used);
    fdx_json_int(&j, "batch", BATCH);
    fdx_json_str(&j, "transport", t->transport);
    fdx_json_str(&j, "same_as", r->same);
    fdx_time_stats ts = {t->median_ms, t->min_ms, t->max_ms, t->mean_ms, t->reps};
    fdx_json_time_ms(&j, &ts);
    /* Not fdx_json_traffic: the ratio is to the copy of every unit. */
    fdx_json_begin(&j, "bytes");
    fdx_json_num(&j, "fetch", t->fetch_bytes);
    fdx_json_num(&j, "write", t->write_bytes);
    fdx_json_end(&j);
    fdx_json_num(&j, "effective_gbps", eff);
    fdx_json_num(&j, "copy_gbps", r->copy_gbps);
    fdx_json_num(&j, "ratio_to_copy", eff / r->copy_gbps / r->res->units);
    fdx_json_num(&j, "gcells_per_s", cells / (t->median_ms * 1e6));
    if (r->t1) {
        double e1 = fdx_effective_gbps(t->fetch_bytes, t->write_bytes, r->t1->median_ms);
        fdx_json_num(&j, "time_1unit_ms", r->t1->median_ms);
        fdx_json_num(&j, "ratio_to_copy_1unit", e1 / r->copy_gbps);
        fdx_json_num(&j, "scaling_efficiency", r->t1->median_ms / (r->res->units * t->median_ms));
    }
    fdx_json_begin(&j, "checksum");
    fdx_json_num(&j, "sum", r->res->diag.sum);
    fdx_json_num(&j, "l2", r->res->diag.l2);
    char hex[24];
    snprintf(hex, sizeof hex, "%016" PRIx64, t->digest);
    fdx_json_str(&j, "digest", hex);
    snprintf(hex, sizeof hex, "%016" PRIx64, t->digest_timed);
    fdx_json_str(&j, "digest_after_timing", hex);
    fdx_json_end(&j);
    fdx_json_bool(&j, "verified", r->verified);
    fdx_json_num(&j, "max_abs_error", r->err);
    return fdx_json_finish(&j, stdout);
}

static void print_table(const dist_args *a, const report *r)
{
    const fdx_sim_timing *t = r->t;
    const fdx_sim_result *res = r->res;
    double cells = (double)a->n[0] * (double)a->n[1] * (double)a->n[2];
    printf("fdx dist %s: %dD order %ld %s, %lld", a->wave ? "wave" : "heat", a->dims, a->order, a->precision,
           (long long)a->n[0]);
    for (int d = 1; d < a->dims; d++) printf("x%lld", (long long)a->n[d]);
    printf(", %ld steps on %d units (%d ranks x %d) of %s, overlap %s, transport %s\n", a->steps, res->units,
           res->procs, t->local_units, r->device, a->overlap ? "on" : "off", t->transport);
    printf("  same run as    %s\n", r->same);
    /* The line fdx wave / heat print, and the digest. */
    printf("  checksum      sum %.17g, L2 %.17g\n", res->diag.sum, res->diag.l2);
    printf("  digest         %016" PRIx64 " (after the timed steps %016" PRIx64 ")\n", t->digest, t->digest_timed);
    printf("  step time      %.4f ms median (min %.4f, max %.4f, %d batches of %d%s)\n", t->median_ms, t->min_ms,
           t->max_ms, t->reps, BATCH, t->graph_used ? ", CUDA graphs" : "");
    printf("  throughput     %.3f Gcells/s, %.1f GB/s effective, copy %.1f GB/s per unit\n",
           cells / (t->median_ms * 1e6), fdx_effective_gbps(t->fetch_bytes, t->write_bytes, t->median_ms),
           r->copy_gbps);
    if (r->t1) {
        printf("  one unit       %.4f ms per step; scaling efficiency %.3f\n", r->t1->median_ms,
               r->t1->median_ms / (res->units * t->median_ms));
        printf("  same as 1 unit %s (max abs difference %.3g)\n", r->verified ? "yes" : "NO", r->err);
    }
}

static double max_diff(const double *a, const double *b, size_t n)
{
    double e = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(a[i] - b[i]);
        if (!(d <= e)) e = isnan(d) ? INFINITY : d;
    }
    return e;
}

static fdx_status on_off(const char *flag, const char *v, int *out)
{
    if (strcmp(v, "on") && strcmp(v, "off")) return fdx_fail(FDX_ERR_INVALID, "--%s must be on or off, not '%s'", flag, v);
    *out = strcmp(v, "on") == 0;
    return FDX_OK;
}

/* The flags into a (rc < 0: valid; else the exit status of a usage error). */
static int parse_args(const char *which, const char *dims_s, const char *order_s, const char *size, const char *steps_s,
                      const char *gpus_s, const char *reps_s, const char *precision, dist_args *a)
{
    long dims = 0;
    fdx_dtype type;
    if (!which || (strcmp(which, "wave") && strcmp(which, "heat")))
        return cli_usage_error(CMD, "the first argument must be 'wave' or 'heat', not '%s'", which ? which : "(none)");
    a->wave = strcmp(which, "wave") == 0;
    a->precision = precision ? precision : "float";
    fdx_status st = FDX_OK;
    if ((dims_s && (st = cli_parse_int("--dims", dims_s, 2, 3, &dims)) != FDX_OK) ||
        (st = cli_parse_int("--order", order_s ? order_s : a->wave ? "8" : "2", 2, FDX_STENCIL_MAX_ORDER, &a->order)) !=
            FDX_OK ||
        (a->order % 2 && (st = fdx_fail(FDX_ERR_INVALID, "--order must be even, not %ld", a->order))) ||
        (st = cli_parse_int("--steps", steps_s, 1, 100000000, &a->steps)) != FDX_OK ||
        (st = cli_parse_int("--gpus", gpus_s, 1, 16, &a->gpus)) != FDX_OK ||
        (st = cli_parse_int("--reps", reps_s, 1, 100000, &a->reps)) != FDX_OK ||
        (st = fdx_dtype_parse(a->precision, &type)) != FDX_OK ||
        (type != FDX_FLOAT32 && type != FDX_FLOAT64 &&
         (st = fdx_fail(FDX_ERR_INVALID, "--precision must be float or double, not '%s'", precision))))
        return cli_usage_error(CMD, "%s", fdx_last_error());
    a->precision = fdx_dtype_name(type);
    a->dims = dims ? (int)dims : 2;
    a->n[0] = a->n[1] = a->dims == 2 ? 1024 : 256, a->n[2] = a->dims == 3 ? 256 : 1;
    if (size && ((st = cli_parse_shape(size, dims ? (int)dims : 2, dims ? (int)dims : 3, a->order + 1, &a->dims,
                                       a->n)) != FDX_OK ||
                 (st = fdx_shape_check(a->dims, a->n, a->order + 1, fdx_dtype_size(type))) != FDX_OK))
        return cli_usage_error(CMD, "%s", fdx_last_error());
    if (a->dims == 2) a->n[2] = 1;
    return -1;
}

int cmd_dist(int argc, char **argv)
{
    const char *which = NULL;
    if (argc >= 2 && strncmp(argv[1], "--", 2) != 0) which = argv[1], argc--, argv++;
    const char *dims_s = NULL, *order_s = NULL, *size = NULL, *steps_s = "100", *gpus_s = "1", *overlap_s = "on";
    const char *graph_s = NULL, *json = NULL, *precision = NULL, *reps_s = "20", *baseline_s = "on";
    const cli_flag flags[] = {
        {"dims", "2|3", "dimensions (default: the number of extents in --size, else 2)", &dims_s},
        {"order", "N", "accuracy order in space, even 2..12 [wave 8, heat 2]", &order_s},
        {"size", "NXxNY[xNZ]", "grid points [2D 1024x1024, 3D 256x256x256]", &size},
        {"steps", "N", "time steps of the run, before the checksum [100]", &steps_s},
        {"gpus", "K", "units per process: GPUs, or CPU units with --backend cpu [1]", &gpus_s},
        {"overlap", "on|off", "exchange shadows while the interior is computed [on]", &overlap_s},
        {"precision", "P", "float or double [float, as fdx heat and fdx wave]", &precision},
        {"reps", "N", "timed batches of 48 steps after the run, median reported [20]", &reps_s},
        {"graph", "on|off", "replay batches of 24 steps as CUDA graphs (CUDA, one process) [on]", &graph_s},
        {"baseline", "on|off", "also run on one unit for the scaling efficiency and the check [on]", &baseline_s},
        {"json", NULL, "print one JSON record instead of the table", &json},
        {NULL, NULL, NULL, NULL},
    };
    fdx_options *opts = NULL;
    int rc = cli_start(argc, argv, CMD,
                       "wave|heat [--dims 2|3] [--order N] [--size ...] [--steps N] [--gpus K] [--overlap on|off] [--json]",
                       flags, &opts);
    fdx_ctx *ctx = NULL;
    double *field = NULL, *field1 = NULL;
    dist_args a = {0};
    int baseline = 0;
    if (rc >= 0 || (rc = parse_args(which, dims_s, order_s, size, steps_s, gpus_s, reps_s, precision, &a)) >= 0)
        goto done;
    fdx_status st = FDX_OK;
    if ((st = on_off("overlap", overlap_s, &a.overlap)) != FDX_OK ||
        (st = on_off("graph", graph_s ? graph_s : "on", &a.graph)) != FDX_OK ||
        (st = on_off("baseline", baseline_s, &baseline)) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    /* The units' kind of device: the copy bandwidth and the record's names. */
    if ((st = fdx_ctx_create(opts, &ctx)) != FDX_OK) goto fail;
    if (graph_s && fdx_ctx_backend(ctx) != FDX_BACKEND_CUDA) {
        rc = cli_usage_error(CMD, "--graph applies to the CUDA backend only (this run is on %s)",
                             fdx_backend_kind_name(fdx_ctx_backend(ctx)));
        goto done;
    }
    fdx_time_stats tc;
    double copy_gbps = 0;
    if ((st = fdx_copy_bandwidth(ctx, 256u << 20, 20, &tc, &copy_gbps)) != FDX_OK) goto fail;
    fdx_sim_result res, res1;
    fdx_sim_timing t = {.reps = (int)a.reps, .batch = BATCH, .graph = a.graph}, t1 = t;
    char same[1024] = "";
    if ((st = run_once(&a, opts, a.gpus, &res, &t, baseline ? &field : NULL, same, sizeof same)) != FDX_OK) goto fail;
    size_t k = strlen(same); /* the units' backend: a global option, not a key of the config */
    snprintf(same + k, sizeof same - k, " --backend %s", fdx_backend_kind_name(fdx_ctx_backend(ctx)));
    if (t.note[0] && res.proc == 0) fprintf(stderr, "fdx dist: note: no CUDA graph (%s)\n", t.note);
    int verified = isfinite(res.diag.sum) && isfinite(res.diag.l2);
    double err = 0;
    baseline = baseline && res.units > 1 && res.procs == 1;
    if (baseline) {
        /* The same run on one unit, in this process: its time per step and
           its field, which must be bit-identical. */
        if ((st = run_once(&a, opts, 1, &res1, &t1, &field1, NULL, 0)) != FDX_OK) goto fail;
        err = max_diff(field, field1, (size_t)a.n[0] * (size_t)a.n[1] * (size_t)a.n[2]);
        verified = verified && t1.digest == t.digest && err == 0 && t1.digest_timed == t.digest_timed;
    }
    report r = {&res, &t, baseline ? &t1 : NULL, fdx_backend_kind_name(fdx_ctx_backend(ctx)), fdx_ctx_device_name(ctx),
                same, copy_gbps, err, verified};
    if (res.proc == 0) {
        if (json && (st = print_json(&a, &r)) != FDX_OK) goto fail;
        if (!json) print_table(&a, &r);
        if (!verified) /* one error line, from rank 0 */
            cli_verify_failed(CMD, "the result on %d units differs from one unit (max abs difference %.3g)", res.units,
                              err);
    }
    rc = verified ? CLI_OK : CLI_VERIFY_FAILED;
    goto done;
fail:
    rc = cli_fail(CMD, st);
done:
    free(field);
    free(field1);
    fdx_ctx_destroy(&ctx);
    fdx_options_destroy(&opts);
    fdx_dist_finalize();
    return rc;
}
