/* fdx dist: the acoustic wave (variable velocity, Ricker pulse) and heat
   equations on a grid split over units (GPUs of this process, CPU units,
   MPI ranks under mpirun), with the shadow exchange overlapped or not; prints
   checksums of the final field and, with several units in one process,
   the time of one unit measured in the same run and the scaling efficiency. */
#include "cli.h"
#include "fdx/internal/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *CMD = "dist";

typedef struct model {
    int wave;            /* 1: wave, 0: heat */
    int dims, order;
    int64_t n[3];
    fdx_dtype type;
    double h, dt, vmax;  /* wave: spacing (m), time step (s), fastest velocity */
} model;

/* Layered medium: 1500 m/s at the top to 3000 m/s at the bottom of the
   slowest axis, with a jump at two thirds. */
static double velocity(const model *m, const int64_t *g)
{
    int s = m->dims - 1;
    double z = (double)g[s] / (double)(m->n[s] - 1);
    return z < 2.0 / 3.0 ? 1500.0 + 750.0 * z : 2500.0 + 1500.0 * (z - 2.0 / 3.0);
}

static double coef_init(const int64_t *g, void *arg)
{
    double v = velocity(arg, g);
    return v * v;
}

/* A Ricker wavelet in space, (1 - 2q) exp(-q) with q = (r / (6 h))^2 around
   the grid's centre: the initial pulse, at rest (u_prev = u). */
static double ricker_init(const int64_t *g, void *arg)
{
    const model *m = arg;
    double q = 0;
    for (int a = 0; a < m->dims; a++) {
        double x = (double)g[a] - 0.5 * (double)(m->n[a] - 1);
        q += x * x;
    }
    q /= 36.0;
    return (1.0 - 2.0 * q) * exp(-q);
}

/* A Gaussian hot spot (sigma one eighth of the smallest extent). */
static double heat_init(const int64_t *g, void *arg)
{
    const model *m = arg;
    double q = 0, sig = 1e300;
    for (int a = 0; a < m->dims; a++) sig = fmin(sig, (double)m->n[a] / 8.0);
    for (int a = 0; a < m->dims; a++) {
        double x = (double)g[a] - 0.5 * (double)(m->n[a] - 1);
        q += x * x;
    }
    return exp(-q / (2 * sig * sig));
}

typedef struct sim {
    fdx_dist *d;
    fdx_dstencil *s;
    fdx_darray *b[3], *coef; /* wave: b[0] prev, b[1] current, b[2] next; heat: b[0], b[1] */
    int overlap, batch, graph;
} sim;

static void sim_free(sim *s)
{
    fdx_dstencil_destroy(&s->s);
    for (int k = 0; k < 3; k++) fdx_darray_destroy(&s->b[k]);
    fdx_darray_destroy(&s->coef);
    fdx_dist_destroy(&s->d);
}

static fdx_status sim_setup(sim *s, const model *m, const fdx_options *opts, int units_per_proc, int overlap)
{
    memset(s, 0, sizeof *s);
    s->overlap = overlap;
    fdx_dist_desc dd = {0};
    dd.rank = m->dims;
    dd.units_per_proc = units_per_proc;
    for (int a = 0; a < m->dims; a++) dd.shape[a] = m->n[a];
    dd.shadow[m->dims - 1] = m->order / 2; /* split along the slowest axis, as the seed */
    FDX_TRY(fdx_dist_create(opts, &dd, &s->d));
    /* Every unit holds its slab of each array (plus shadows): refuse a grid
       that cannot fit before anything is allocated. */
    int arrays = m->wave ? 4 : 2, units = fdx_dist_units(s->d);
    double cells = 1;
    for (int a = 0; a < m->dims; a++) cells *= (double)m->n[a];
    double slab = cells / (double)m->n[m->dims - 1] * (double)(m->n[m->dims - 1] / units + 1 + m->order);
    double need = arrays * slab * (double)fdx_dtype_size(m->type);
    double have = (double)fdx_ctx_memory(fdx_dist_ctx(s->d, 0));
    if (need > 0.9 * have) {
        fdx_status st = fdx_fail(FDX_ERR_INVALID, "--size needs %.2f GiB a unit for %d arrays, more than the %.2f GiB of %s",
                                 need / (1 << 30), arrays, have / (1 << 30), fdx_ctx_device_name(fdx_dist_ctx(s->d, 0)));
        fdx_dist_destroy(&s->d);
        return st;
    }
    fdx_stencil_desc sd;
    double h[3] = {m->h, m->h, m->h};
    fdx_stencil_desc_laplacian(&sd, m->dims, m->order, h);
    if (m->wave) {
        sd.update = FDX_UPDATE_WAVE, sd.coef = 1, sd.alpha = m->dt * m->dt;
    } else {
        /* Explicit heat step, stable: alpha times the sum of the weights'
           magnitudes over the axes stays below one. */
        double w[FDX_STENCIL_MAX_ORDER + 1], sum = 0;
        FDX_TRY(fdx_fd_weights(2, m->order, w));
        for (int i = 0; i <= m->order; i++) sum += fabs(w[i]);
        sd.update = FDX_UPDATE_HEAT, sd.alpha = 0.9 / (m->dims * sum);
    }
    FDX_TRY(fdx_dstencil_create(s->d, &sd, m->type, &s->s));
    int nb = m->wave ? 3 : 2;
    for (int k = 0; k < nb; k++) {
        FDX_TRY(fdx_darray_create(s->d, m->type, &s->b[k]));
        FDX_TRY(fdx_darray_fill(s->b[k], m->wave ? ricker_init : heat_init, (void *)m));
    }
    if (m->wave) {
        FDX_TRY(fdx_darray_create(s->d, m->type, &s->coef));
        FDX_TRY(fdx_darray_fill(s->coef, coef_init, (void *)m));
    }
    return FDX_OK;
}

/* Steps on the ring b (fdx_dstencil_run's order: wave b[0] prev, b[1]
   current, b[2] written; heat b[0] current, b[1] written). */
static fdx_status sim_steps(sim *s, long n)
{
    return fdx_dstencil_run(s->s, s->b, s->coef ? 3 : 2, s->coef, n, s->overlap, s->graph);
}

static fdx_darray *sim_field(sim *s) { return s->coef ? s->b[1] : s->b[0]; }

/* A batch of steps, then every unit synchronized: timed as one piece so
   the events bracket the work of all units. */
static fdx_status timed_batch(void *arg, void *stream)
{
    (void)stream;
    sim *s = arg;
    FDX_TRY(sim_steps(s, s->batch));
    return fdx_dist_sync(s->d);
}

/* Runs `steps` steps, takes the checksum (and the field when asked), then
   times batches of steps (which move the field on). */
static fdx_status sim_run(sim *s, long steps, long reps, fdx_dist_checksum *cs, void *field, fdx_time_stats *t)
{
    FDX_TRY(sim_steps(s, steps));
    FDX_TRY(fdx_darray_checksum(sim_field(s), cs));
    if (field) FDX_TRY(fdx_darray_gather(sim_field(s), field, 0));
    /* Two CUDA graphs of 24 steps when graphs are on. */
    s->batch = 48;
    FDX_TRY(fdx_time_run(fdx_dist_ctx(s->d, 0), timed_batch, s, 1, (int)reps, t));
    t->median_ms /= s->batch, t->min_ms /= s->batch, t->max_ms /= s->batch, t->mean_ms /= s->batch;
    return FDX_OK;
}

/* What the report needs from a run whose distribution is gone. */
typedef struct report {
    int units, procs, local_units, overlap, graph;
    char backend[16], device[300], transport[32];
} report;

static void print_json(const model *m, const report *r, const fdx_time_stats *t, const fdx_dist_checksum *cs,
                       double fetch, double write, double copy_gbps, const fdx_time_stats *t1, int verified,
                       double err, long steps)
{
    int cuda = strcmp(r->backend, "cuda") == 0;
    double eff = fdx_effective_gbps(fetch, write, t->median_ms);
    double cells = 1;
    for (int a = 0; a < m->dims; a++) cells *= (double)m->n[a];
    fdx_json j;
    fdx_json_init(&j);
    fdx_json_record_head(&j, m->wave ? "dist_wave" : "dist_heat", r->backend,
                         r->device, fdx_dtype_name(m->type), m->dims, m->n);
    fdx_json_int(&j, "order", m->order);
    fdx_json_int(&j, "steps", steps);
    fdx_json_int(&j, "units", r->units);
    fdx_json_int(&j, "ranks", r->procs);
    fdx_json_int(&j, "units_per_rank", r->local_units);
    fdx_json_int(&j, "gpus", cuda ? r->units : 0);
    fdx_json_bool(&j, "overlap", r->overlap);
    fdx_json_bool(&j, "graph", r->graph);
    fdx_json_int(&j, "batch", 48);
    fdx_json_str(&j, "transport", r->transport);
    fdx_json_begin(&j, "time_ms");
    fdx_json_num(&j, "median", t->median_ms);
    fdx_json_num(&j, "min", t->min_ms);
    fdx_json_num(&j, "max", t->max_ms);
    fdx_json_int(&j, "reps", t->reps);
    fdx_json_end(&j);
    fdx_json_begin(&j, "bytes");
    fdx_json_num(&j, "fetch", fetch);
    fdx_json_num(&j, "write", write);
    fdx_json_end(&j);
    fdx_json_num(&j, "effective_gbps", eff);
    fdx_json_num(&j, "copy_gbps", copy_gbps);
    fdx_json_num(&j, "ratio_to_copy", eff / copy_gbps / r->units);
    fdx_json_num(&j, "gcells_per_s", cells / (t->median_ms * 1e6));
    if (t1) {
        double e1 = fdx_effective_gbps(fetch, write, t1->median_ms);
        fdx_json_num(&j, "time_1unit_ms", t1->median_ms);
        fdx_json_num(&j, "ratio_to_copy_1unit", e1 / copy_gbps);
        fdx_json_num(&j, "scaling_efficiency", t1->median_ms / (r->units * t->median_ms));
    }
    fdx_json_begin(&j, "checksum");
    fdx_json_num(&j, "sum", cs->sum);
    fdx_json_num(&j, "l2", cs->l2);
    char hex[24];
    snprintf(hex, sizeof hex, "%016" PRIx64, cs->digest);
    fdx_json_str(&j, "digest", hex);
    fdx_json_end(&j);
    fdx_json_bool(&j, "verified", verified);
    fdx_json_num(&j, "max_abs_error", err);
    fdx_json_end(&j);
    fdx_json_print(&j, stdout);
    fdx_json_free(&j);
}

static double max_diff(const void *a, const void *b, size_t n, fdx_dtype t)
{
    double e = 0;
    for (size_t i = 0; i < n; i++) {
        double x = t == FDX_FLOAT64 ? ((const double *)a)[i] : ((const float *)a)[i];
        double y = t == FDX_FLOAT64 ? ((const double *)b)[i] : ((const float *)b)[i];
        double d = fabs(x - y);
        if (!(d <= e)) e = isnan(d) ? INFINITY : d;
    }
    return e;
}

int cmd_dist(int argc, char **argv)
{
    const char *which = NULL;
    if (argc >= 2 && strncmp(argv[1], "--", 2) != 0) which = argv[1], argc--, argv++;
    const char *dims_s = NULL, *order_s = NULL, *size = NULL, *steps_s = "100", *gpus_s = "1", *overlap_s = "on", *graph_s = NULL;
    const char *json = NULL, *precision = NULL, *reps_s = "20", *baseline_s = "on";
    const cli_flag flags[] = {
        {"dims", "2|3", "dimensions (default: the number of extents in --size, else 2)", &dims_s},
        {"order", "N", "accuracy order in space, even 2..12 [wave 8, heat 2]", &order_s},
        {"size", "NXxNY[xNZ]", "grid points [2D 1024x1024, 3D 256x256x256]", &size},
        {"steps", "N", "time steps before the checksum [100]", &steps_s},
        {"gpus", "K", "units per process: GPUs, or CPU units with --backend cpu [1]", &gpus_s},
        {"overlap", "on|off", "exchange shadows while the interior is computed [on]", &overlap_s},
        {"precision", "P", "float or double [float, as fdx heat and fdx wave]", &precision},
        {"reps", "N", "timed batches of 48 steps, median reported [20]", &reps_s},
        {"graph", "on|off", "replay batches of 24 steps as CUDA graphs (CUDA, one process) [on]", &graph_s},
        {"baseline", "on|off", "also run on one unit for the scaling efficiency and the check [on]", &baseline_s},
        {"json", NULL, "print one JSON record instead of the table", &json},
        {NULL, NULL, NULL, NULL},
    };
    fdx_options *opts = NULL;
    if (fdx_options_create(&opts) != FDX_OK) return cli_usage_error(CMD, "%s", fdx_last_error());
    int rc = cli_parse(argc, argv, CMD,
                       "wave|heat [--dims 2|3] [--order N] [--size ...] [--steps N] [--gpus K] [--overlap on|off] [--json]",
                       flags, opts);
    sim s = {0}, s1 = {0};
    void *field = NULL, *field1 = NULL;
    if (rc >= 0) goto done;
    model m = {0};
    long dims = 0, order, steps, gpus, reps;
    fdx_status st = FDX_OK;
    if (!which || (strcmp(which, "wave") && strcmp(which, "heat"))) {
        rc = cli_usage_error(CMD, "the first argument must be 'wave' or 'heat', not '%s'", which ? which : "(none)");
        goto done;
    }
    m.wave = strcmp(which, "wave") == 0;
    if ((dims_s && (st = cli_parse_int("--dims", dims_s, 2, 3, &dims)) != FDX_OK) ||
        (st = cli_parse_int("--order", order_s ? order_s : m.wave ? "8" : "2", 2, FDX_STENCIL_MAX_ORDER, &order)) != FDX_OK ||
        (order % 2 && (st = fdx_fail(FDX_ERR_INVALID, "--order must be even, not %ld", order))) ||
        (st = cli_parse_int("--steps", steps_s, 0, 100000000, &steps)) != FDX_OK ||
        (st = cli_parse_int("--gpus", gpus_s, 1, 16, &gpus)) != FDX_OK ||
        (st = cli_parse_int("--reps", reps_s, 1, 100000, &reps)) != FDX_OK ||
        (st = fdx_dtype_parse(precision ? precision : "float", &m.type)) != FDX_OK ||
        (m.type != FDX_FLOAT32 && m.type != FDX_FLOAT64 &&
         (st = fdx_fail(FDX_ERR_INVALID, "--precision must be float or double, not '%s'", precision))) ||
        (strcmp(overlap_s, "on") && strcmp(overlap_s, "off") &&
         (st = fdx_fail(FDX_ERR_INVALID, "--overlap must be on or off, not '%s'", overlap_s))) ||
        (graph_s && strcmp(graph_s, "on") && strcmp(graph_s, "off") &&
         (st = fdx_fail(FDX_ERR_INVALID, "--graph must be on or off, not '%s'", graph_s))) ||
        (strcmp(baseline_s, "on") && strcmp(baseline_s, "off") &&
         (st = fdx_fail(FDX_ERR_INVALID, "--baseline must be on or off, not '%s'", baseline_s)))) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    m.order = (int)order;
    int got_rank = dims ? (int)dims : 2;
    m.n[0] = m.n[1] = got_rank == 2 ? 1024 : 256, m.n[2] = got_rank == 3 ? 256 : 1;
    if (size && ((st = cli_parse_shape(size, dims ? (int)dims : 2, dims ? (int)dims : 3, order + 1, &got_rank, m.n)) !=
                     FDX_OK ||
                 (st = fdx_shape_check(got_rank, m.n, order + 1, fdx_dtype_size(m.type))) != FDX_OK)) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    m.dims = got_rank;
    m.h = 10.0, m.vmax = 3000.0;
    m.dt = 0.4 * m.h / (m.vmax * sqrt((double)m.dims));

    fdx_dist_checksum cs = {0}, cs1 = {0};
    fdx_time_stats t = {0}, t1 = {0}, tc;
    double copy_gbps = 0, fetch = 0, write = 0, err = 0;
    if ((st = sim_setup(&s, &m, opts, (int)gpus, strcmp(overlap_s, "on") == 0)) != FDX_OK) goto fail;
    s.graph = !graph_s || strcmp(graph_s, "on") == 0;
    if (graph_s && fdx_ctx_backend(fdx_dist_ctx(s.d, 0)) != FDX_BACKEND_CUDA) {
        rc = cli_usage_error(CMD, "--graph applies to the CUDA backend only (this run is on %s)",
                             fdx_backend_kind_name(fdx_ctx_backend(fdx_dist_ctx(s.d, 0))));
        goto done;
    }
    fdx_ctx *ctx0 = fdx_dist_ctx(s.d, 0);
    /* Whole-grid traffic of one step, from a stencil like the units' own. */
    {
        fdx_stencil_desc sd;
        double h[3] = {m.h, m.h, m.h};
        fdx_stencil_desc_laplacian(&sd, m.dims, m.order, h);
        if (m.wave) sd.update = FDX_UPDATE_WAVE, sd.coef = 1;
        else sd.update = FDX_UPDATE_HEAT;
        fdx_stencil *probe = NULL;
        if ((st = fdx_stencil_create(ctx0, &sd, m.type, &probe)) != FDX_OK) goto fail;
        fdx_stencil_traffic(probe, m.n, &fetch, &write);
        fdx_stencil_destroy(&probe);
    }
    report rep = {fdx_dist_units(s.d), fdx_dist_procs(s.d), fdx_dist_local_units(s.d), s.overlap, 0, "", "", ""};
    int units = rep.units, procs = rep.procs, proc = fdx_dist_proc(s.d);
    snprintf(rep.backend, sizeof rep.backend, "%s", fdx_backend_kind_name(fdx_ctx_backend(ctx0)));
    snprintf(rep.device, sizeof rep.device, "%s", fdx_ctx_device_name(ctx0));
    snprintf(rep.transport, sizeof rep.transport, "%s", fdx_dist_transport(s.d));
    size_t cells = 1;
    for (int a = 0; a < m.dims; a++) cells *= (size_t)m.n[a];
    int baseline = strcmp(baseline_s, "on") == 0 && units > 1 && procs == 1;
    if (baseline) {
        field = malloc(cells * fdx_dtype_size(m.type));
        field1 = malloc(cells * fdx_dtype_size(m.type));
        if (!field || !field1) {
            st = fdx_fail(FDX_ERR_NOMEM, "out of host memory for two copies of the field");
            goto fail;
        }
    }
    if ((st = fdx_copy_bandwidth(ctx0, 256u << 20, 20, &tc, &copy_gbps)) != FDX_OK) goto fail;
    if ((st = sim_run(&s, steps, reps, &cs, field, &t)) != FDX_OK) goto fail;
    rep.graph = fdx_dstencil_graph_used(s.s);
    if (s.graph && !rep.graph && fdx_ctx_backend(ctx0) == FDX_BACKEND_CUDA && procs == 1 && proc == 0)
        fprintf(stderr, "fdx dist: note: no CUDA graph (%s)\n", fdx_last_error());
    sim_free(&s);
    int verified = isfinite(cs.sum) && isfinite(cs.l2);
    if (baseline) {
        /* The same run on one unit, in this process: its time per step and
           its field, which must be bit-identical. */
        if ((st = sim_setup(&s1, &m, opts, 1, 0)) != FDX_OK) goto fail;
        s1.graph = s.graph;
        if ((st = sim_run(&s1, steps, reps, &cs1, field1, &t1)) != FDX_OK) goto fail;
        sim_free(&s1);
        err = max_diff(field, field1, cells, m.type);
        verified = verified && cs1.digest == cs.digest && err == 0;
    }
    if (proc == 0) {
        if (json) {
            print_json(&m, &rep, &t, &cs, fetch, write, copy_gbps, baseline ? &t1 : NULL, verified, err, steps);
        } else {
            printf("fdx dist %s: %dD order %d %s, %lld", which, m.dims, m.order, fdx_dtype_name(m.type), (long long)m.n[0]);
            for (int a = 1; a < m.dims; a++) printf("x%lld", (long long)m.n[a]);
            printf(", %ld steps on %d units (%d ranks x %d) of %s, overlap %s, transport %s\n", steps, units, procs,
                   rep.local_units, rep.device, overlap_s, rep.transport);
            printf("  checksum       sum %.12g  l2 %.12g  digest %016" PRIx64 "\n", cs.sum, cs.l2, cs.digest);
            printf("  step time      %.4f ms median (min %.4f, max %.4f, %d batches of 48%s)\n", t.median_ms, t.min_ms,
                   t.max_ms, t.reps, rep.graph ? ", CUDA graphs" : "");
            printf("  throughput     %.3f Gcells/s, %.1f GB/s effective, copy %.1f GB/s per unit\n",
                   (double)cells / (t.median_ms * 1e6), fdx_effective_gbps(fetch, write, t.median_ms), copy_gbps);
            if (baseline) {
                printf("  one unit       %.4f ms per step; scaling efficiency %.3f\n", t1.median_ms,
                       t1.median_ms / (units * t.median_ms));
                printf("  same as 1 unit %s (max abs difference %.3g)\n", verified ? "yes" : "NO", err);
            }
        }
    }
    if (!verified) {
        if (proc == 0)
            fprintf(stderr, "fdx dist: error: the result on %d units differs from one unit (max abs difference %.3g)\n",
                    units, err);
        rc = CLI_VERIFY_FAILED;
    } else {
        rc = CLI_OK;
    }
    goto done;
fail:
    rc = cli_fail(CMD, st);
done:
    free(field);
    free(field1);
    sim_free(&s);
    sim_free(&s1);
    fdx_options_destroy(&opts);
    fdx_dist_finalize();
    return rc;
}
