/* fdx lu: the NAS Parallel Benchmarks' LU on the fdx loop runtime
   (lu_loops.c), run as NPB runs it: setbv/setiv, erhs, one SSOR iteration to
   touch everything (here: also compiles every kernel), setbv/setiv again,
   the timed SSOR iterations, then error and pintgr; verified against NPB's
   reference norms within 1e-8 relative; NPB's report or one JSON record. */
#include "cli.h"
#include "fdx/internal/ctx.h"
#include "fdx/internal/json.h"
#include "lu.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *CMD = "lu";

typedef struct lu_result {
    double xcr[5], xce[5], xci, seconds, section[LU_NSECTIONS];
    char layouts[5][48];      /* u, rsd, frct, rho_i, qs after the run */
    fdx_loop_moves moves, timed_moves; /* the run's layout moves, those of the timed SSOR */
} lu_result;

static void layout_text(fdx_array *a, char *buf, size_t cap)
{
    fdx_layout l;
    if (fdx_array_layout(a, &l) != FDX_OK) {
        snprintf(buf, cap, "?");
        return;
    }
    int n = snprintf(buf, cap, "(");
    for (int q = 0; q < l.rank && n > 0 && (size_t)n < cap; q++) n += snprintf(buf + n, cap - (size_t)n, "%s%d", q ? "," : "", l.perm[q]);
    if (n > 0 && (size_t)n < cap) snprintf(buf + n, cap - (size_t)n, ")%s%s", l.diag ? " " : "", l.diag ? fdx_diag_name(l.diag) : "");
}

/* One benchmark run, NPB's main program; timers 0: no waits but for the
   norms (lu.timers). */
static fdx_status run(fdx_ctx *ctx, const lu_class *c, int itmax, int autotfm, int timers, lu_result *r)
{
    lu *p = NULL;
    fdx_status st;
    FDX_TRY(lu_create(ctx, c->n, c->n, c->n, c->dt, 1.2, autotfm, &p));
    p->timers = timers;
    FDX_TRY_GOTO(st, lu_benchmark(p, itmax, r->xcr, r->xce, &r->xci, &r->seconds), done);
    memcpy(r->section, p->section, sizeof r->section);
    lu_move_stats(p, &r->moves);
    r->timed_moves = p->timed_moves;
    fdx_array *arrs[5] = {p->u, p->rsd, p->frct, p->rho_i, p->qs};
    for (int a = 0; a < 5; a++) layout_text(arrs[a], r->layouts[a], sizeof r->layouts[a]);
done:
    lu_destroy(&p);
    return st;
}

/* The same on distributed loops: `units` per process, MPI ranks when
   started by mpirun.  *proc: this process's rank (only rank 0 reports). */
static fdx_status run_dist(const fdx_options *opts, const lu_class *c, int itmax, int units, lu_result *r, int *proc,
                           int *total)
{
    lu_dist *p = NULL;
    FDX_TRY(lu_dist_create(opts, units, c->n, c->n, c->n, c->dt, 1.2, &p));
    fdx_status st = lu_dist_benchmark(p, itmax, r->xcr, r->xce, &r->xci, &r->seconds, r->section);
    /* the layouts of this process's first block */
    for (int a = 0; a < 5; a++) layout_text(fdx_darray_local(lu_dist_array(p, a), 0), r->layouts[a], sizeof r->layouts[a]);
    lu_dist_move_stats(p, &r->moves);
    *proc = lu_dist_proc(p);
    *total = lu_dist_units(p);
    lu_dist_destroy(&p);
    return st;
}

/* NPB's verify: every value within 1e-8 relative of the reference. */
static int verify(const lu_class *c, const lu_result *r, int print)
{
    const double eps = 1.0e-8;
    int ok = 1;
    const char *what[3] = {"residual norms (xcr)", "error norms (xce)", "surface integral (xci)"};
    for (int g = 0; g < 3; g++) {
        int n = g < 2 ? 5 : 1;
        const double *got = g == 0 ? r->xcr : g == 1 ? r->xce : &r->xci;
        const double *ref = g == 0 ? c->xcr : g == 1 ? c->xce : &c->xci;
        if (print) printf(" Comparison of %s\n", what[g]);
        for (int m = 0; m < n; m++) {
            double dif = fabs((got[m] - ref[m]) / ref[m]);
            int good = dif <= eps; /* NaN fails */
            ok &= good;
            if (print) printf("  %2d %20.13E %20.13E %20.13E%s\n", m + 1, got[m], ref[m], dif, good ? "" : "  FAILURE");
        }
    }
    return ok;
}

int cmd_lu(int argc, char **argv)
{
    const char *class_s = "S", *json = NULL, *gpus_s = "1", *compare = NULL, *iters_s = NULL, *scope_s = "all";
    const char *timers_s = "on";
    const cli_flag flags[] = {
        {"class", "S|W|A|B|C", "NPB problem class [S]", &class_s},
        {"gpus", "K", "GPUs per process (CPU units with --backend cpu); K > 1 or mpirun: the grid split along z, "
                      "distributed loops [1]", &gpus_s},
        {"steps", "N", "SSOR iterations instead of the class's (verification then fails, as in NPB)", &iters_s},
        {"autotfm-scope", "all|sweeps|diagonal",
         "loops that may reorganize arrays: all; only blts and buts; or those, with prim, rhs and add walking "
         "the anti-diagonals the sweeps' layout stores together [all]",
         &scope_s},
        {"compare-autotfm", NULL, "also run with autotfm off and report speedup_autotfm", &compare},
        {"timers", "on|off", "NPB's section timers: wait for the device after every routine; off: queue the loops "
                             "on a stream, wait only for the norms (one unit) [on]", &timers_s},
        {"json", NULL, "print one JSON record instead of NPB's report", &json},
        {NULL, NULL, NULL, NULL},
    };
    fdx_options *opts = NULL;
    int rc = cli_start(argc, argv, CMD, "[--class S|W|A|B|C] [--backend cpu|cuda] [--autotfm on|off] [--gpus K] [--autotfm-scope all|sweeps|diagonal] [--compare-autotfm] [--timers on|off] [--steps N] [--json]",
                       flags, &opts);
    fdx_ctx *ctx = NULL;
    void *stream = NULL; /* --timers off on CUDA */
    if (rc >= 0) goto done;
    const lu_class *c = strlen(class_s) == 1 ? lu_class_find((char)toupper((unsigned char)class_s[0])) : NULL;
    if (!c) {
        rc = cli_usage_error(CMD, "--class %s is not one of S, W, A, B, C", class_s);
        goto done;
    }
    static const char *const scopes[] = {"all", "sweeps", "diagonal"}, *const on_off[] = {"off", "on"};
    int scope_i, timers;
    if (cli_parse_choice("--autotfm-scope", scope_s, scopes, 3, &scope_i) != FDX_OK ||
        cli_parse_choice("--timers", timers_s, on_off, 2, &timers) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    int scope = scope_i == 1 ? LU_AUTOTFM_SWEEPS : scope_i == 2 ? LU_AUTOTFM_DIAGONAL : -1;
    long gpus, itmax = c->itmax;
    if (cli_parse_int("--gpus", gpus_s, 1, 1024, &gpus) != FDX_OK ||
        (iters_s && cli_parse_int("--steps", iters_s, 1, 100000, &itmax) != FDX_OK)) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    /* A flag with no effect is an error (issue 18): without autotfm there is
       nothing to scope, and the run to compare with is the run itself. */
    const char *autotfm = fdx_options_get(opts, "autotfm");
    if (autotfm && strcmp(autotfm, "off") == 0 && (strcmp(scope_s, "all") != 0 || compare)) {
        rc = cli_usage_error(CMD, "--%s has no effect with --autotfm off", compare ? "compare-autotfm" : "autotfm-scope");
        goto done;
    }
    char autotfm_on[16]; /* the run's setting (the comparison changes opts) */
    snprintf(autotfm_on, sizeof autotfm_on, "%s", autotfm ? autotfm : "on");
    int dist = gpus > 1 || getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK");
    if (dist && !timers) {
        rc = cli_usage_error(CMD, "--timers off: distributed runs (--gpus K > 1, mpirun) time every routine");
        goto done;
    }
    if (dist && scope > 0) {
        rc = cli_usage_error(CMD, "--autotfm-scope %s: distributed runs (--gpus K > 1, mpirun) plan every loop (all)", scope_s);
        goto done;
    }
    if (gpus > c->n - 2) {
        rc = cli_usage_error(CMD, "--gpus %ld: class %c has only %d interior planes to split", gpus, c->name, c->n - 2);
        goto done;
    }
    /* The sweeps' bodies are long (Jacobians and a 5x5 solve per point): on
       a GPU one thread per point of a hyperplane beats the runtime's default
       of one warp per line of it (a class C plane has <= 160 lines, i.e.
       20 blocks).  The runtime's switch; a value set by the user wins. */
    setenv("FDX_LOOP_LINES", "0", 0);
    fdx_status st;
    if ((st = fdx_ctx_create(opts, &ctx)) != FDX_OK) goto fail;
    if (!timers && fdx_ctx_backend(ctx) == FDX_BACKEND_CUDA) {
        /* loops on a context stream return once queued */
        if ((st = fdx_ctx_stream_create(ctx, &stream)) != FDX_OK || (st = fdx_ctx_set_stream(ctx, stream)) != FDX_OK)
            goto fail;
    }
    lu_result on, off;
    memset(&on, 0, sizeof on);
    memset(&off, 0, sizeof off);
    int proc = 0, units = 1;
    if (dist) {
        if ((st = run_dist(opts, c, (int)itmax, (int)gpus, &on, &proc, &units)) != FDX_OK) goto fail;
        /* every process runs the comparison (the loops are collective) */
        if (compare && ((st = fdx_options_set(opts, "autotfm", "off")) != FDX_OK ||
                        (st = run_dist(opts, c, (int)itmax, (int)gpus, &off, &proc, &units)) != FDX_OK))
            goto fail;
    } else if ((st = run(ctx, c, (int)itmax, scope, timers, &on)) != FDX_OK) {
        goto fail;
    }
    if (proc != 0) { /* rank 0 reports and verifies for the job */
        rc = CLI_OK;
        goto done;
    }
    if (compare && !dist && (st = run(ctx, c, (int)itmax, 0, timers, &off)) != FDX_OK) goto fail;
    /* NPB verifies only the class's own iteration count */
    int verified = verify(c, &on, !json) && itmax == c->itmax;
    if (compare) verified &= verify(c, &off, 0);
    double mops = lu_mops(c->n, (int)itmax, on.seconds);
    const char *backend = fdx_backend_kind_name(fdx_ctx_backend(ctx));
    if (json) {
        fdx_json j;
        fdx_json_init(&j);
        int64_t shape[3] = {c->n, c->n, c->n};
        fdx_json_record_head(&j, "lu", backend, fdx_ctx_device_name(ctx), "double", 3, shape);
        char cls[2] = {c->name, 0};
        fdx_json_str(&j, "class", cls);
        fdx_json_int(&j, "gpus", fdx_ctx_backend(ctx) == FDX_BACKEND_CUDA ? units : 0);
        fdx_json_int(&j, "units", units);
        fdx_json_int(&j, "iterations", itmax);
        fdx_json_num(&j, "time_s", on.seconds);
        fdx_json_num(&j, "mops", mops);
        fdx_json_str(&j, "autotfm", autotfm_on);
        fdx_json_str(&j, "autotfm_scope", scope_s);
        fdx_json_str(&j, "hyperplanes", cli_knob_is("FDX_LOOP_LINES", "0") ? "thread per point" : "warp per line");
        if (compare) {
            fdx_json_num(&j, "time_no_autotfm_s", off.seconds);
            fdx_json_num(&j, "speedup_autotfm", off.seconds / on.seconds);
        }
        fdx_json_bool(&j, "timers", timers);
        if (timers) {
            fdx_json_begin(&j, "sections_s");
            const char *sn[LU_NSECTIONS] = {"rhs", "blts", "buts", "add", "l2norm"};
            for (int q = 0; q < LU_NSECTIONS; q++) fdx_json_num(&j, sn[q], on.section[q]);
            fdx_json_end(&j);
        }
        {
            /* autotfm's moves: transforms (data moved), relabels (nothing
               moved), bytes read + written; whole run and timed SSOR (one
               unit), this process's blocks (distributed) */
            const fdx_loop_moves *mv[2] = {&on.moves, &on.timed_moves};
            const char *mn[2] = {"layout_moves", "layout_moves_timed"};
            for (int q = 0; q < (dist ? 1 : 2); q++) {
                fdx_json_begin(&j, mn[q]);
                fdx_json_int(&j, "transforms", mv[q]->transforms);
                fdx_json_int(&j, "relabels", mv[q]->relabels);
                fdx_json_num(&j, "bytes", (double)mv[q]->bytes);
                fdx_json_end(&j);
            }
        }
        fdx_json_begin(&j, "layouts");
        const char *an[5] = {"u", "rsd", "frct", "rho_i", "qs"};
        for (int a = 0; a < 5; a++) fdx_json_str(&j, an[a], on.layouts[a]);
        fdx_json_end(&j);
        fdx_json_bool(&j, "verified", verified);
        st = fdx_json_finish(&j, stdout);
        if (st != FDX_OK) goto fail;
    } else {
        printf("\n LU Benchmark Completed.\n");
        printf(" Class           = %24c\n", c->name);
        printf(" Size            = %14dx%4dx%4d\n", c->n, c->n, c->n);
        printf(" Iterations      = %24ld\n", itmax);
        printf(" Time in seconds = %24.2f\n", on.seconds);
        printf(" Mop/s total     = %24.2f\n", mops);
        printf(" Operation type  = %24s\n", "floating point");
        printf(" Backend         = %24s\n", backend);
        printf(" Device          = %s\n", fdx_ctx_device_name(ctx));
        printf(" Layouts         = u %s, rsd %s, rho_i %s\n", on.layouts[0], on.layouts[1], on.layouts[3]);
        if (timers)
            printf(" Sections (s)    = rhs %.3f, blts %.3f, buts %.3f, add %.3f, l2norm %.3f\n", on.section[LU_T_RHS],
                   on.section[LU_T_BLTS], on.section[LU_T_BUTS], on.section[LU_T_ADD], on.section[LU_T_L2NORM]);
        if (compare)
            printf(" autotfm off     = %24.2f s (speedup %.2fx)\n", off.seconds, off.seconds / on.seconds);
        printf(" Verification    = %24s\n", verified ? "SUCCESSFUL" : "UNSUCCESSFUL");
    }
    rc = verified ? CLI_OK : cli_verify_failed(CMD, "VERIFICATION UNSUCCESSFUL for class %c", c->name);
    goto done;
fail:
    rc = cli_fail(CMD, st);
done:
    if (stream) {
        fdx_ctx_set_stream(ctx, NULL);
        fdx_ctx_stream_destroy(ctx, stream);
    }
    fdx_ctx_destroy(&ctx);
    fdx_options_destroy(&opts);
    fdx_dist_finalize();
    return rc;
}
