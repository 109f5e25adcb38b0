/* cmd_sim: fdx heat / wave / poisson: flags or a config file with the same
   keys, the run with progress, and a summary (table or JSON). */
#include "cli.h"
#include "cmd_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FLAGS 48

/* The run's config: a checkpoint's (with --restart), then the config
   file, then the flags, each overriding the one before. */
static fdx_status config_from_flags(fdx_sim_kind kind, const cli_flag *flags, const char *const *values, int first_key,
                                    int nf, const char *config, fdx_sim_config **out)
{
    fdx_sim_config *cfg = NULL;
    fdx_status st = fdx_sim_config_create(kind, &cfg);
    int restart_flag = -1;
    for (int i = first_key; i < nf; i++)
        if (strcmp(flags[i].name, "restart") == 0) restart_flag = i;
    if (st == FDX_OK && restart_flag >= 0 && values[restart_flag])
        st = fdx_sim_config_from_checkpoint(cfg, values[restart_flag]);
    if (st == FDX_OK && config) st = fdx_sim_config_load(cfg, config);
    for (int i = first_key; st == FDX_OK && i < nf; i++) {
        if (!values[i]) continue;
        int is_switch = !flags[i].metavar;
        if (!values[i][0] && (strcmp(flags[i].name, "output") == 0 || strcmp(flags[i].name, "restart") == 0)) {
            st = fdx_fail(FDX_ERR_INVALID, "--%s: the directory name is empty", flags[i].name);
            break;
        }
        /* An empty value is never meaningful on the command line (the default
           is the flag left out): refused, not silently the default. */
        if (!values[i][0] && !is_switch) {
            st = fdx_fail(FDX_ERR_INVALID, "--%s: the value is empty", flags[i].name);
            break;
        }
        st = fdx_sim_config_set(cfg, flags[i].name, is_switch ? "yes" : values[i]);
        if (st != FDX_OK) {
            char why[600];
            snprintf(why, sizeof why, "%s", fdx_last_error());
            st = fdx_fail(st, "--%s", why);
        }
    }
    if (st != FDX_OK) fdx_sim_config_destroy(&cfg);
    *out = cfg;
    return st;
}

/* Units a process (0: the one-array path).  One of several processes
   started by mpirun: heat and wave run distributed over the ranks (a unit
   each), never once per process into one directory; Poisson refuses. */
static fdx_status units_per_process(fdx_sim_kind kind, fdx_sim_config *cfg, int *gpus)
{
    *gpus = kind == FDX_SIM_POISSON ? 0 : atoi(fdx_sim_config_get(cfg, "gpus"));
    if (*gpus > 0 || !cli_under_mpirun()) return FDX_OK;
    FDX_CHECK(kind != FDX_SIM_POISSON, FDX_ERR_INVALID,
              "started by mpirun with several processes: fdx poisson runs in one process");
    *gpus = 1;
    return fdx_sim_config_set(cfg, "gpus", "1");
}

/* The summary table of a run. */
static void print_table(const char *cmd, fdx_sim_kind kind, const fdx_sim_config *cfg, const fdx_sim *sim,
                        const fdx_ctx *ctx, int gpus, const fdx_sim_result *res)
{
    const char *out = fdx_sim_config_get(cfg, "output");
    const int64_t *n = fdx_sim_shape(sim);
    char shape[64];
    if (fdx_sim_rank(sim) == 3)
        snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)n[0], (long long)n[1], (long long)n[2]);
    else snprintf(shape, sizeof shape, "%lldx%lld", (long long)n[0], (long long)n[1]);
    printf("fdx %s: %lld steps on %s %s (%s, %s)\n", cmd, (long long)res->steps, shape,
           fdx_sim_config_get(cfg, "precision"), fdx_backend_kind_name(fdx_ctx_backend(ctx)), fdx_ctx_device_name(ctx));
    if (gpus > 0)
        printf("  units         %d (%d ranks), overlap %s\n", res->units, res->procs, fdx_sim_config_get(cfg, "overlap"));
    printf("  time          %.3f s, %.4g ms a step, %.1f Mcells/s, %.1f GB/s effective\n", res->wall_s, 1e3 * res->step_s,
           res->mcells_per_s, res->effective_gbps);
    printf("  output wait   %.3f s\n", res->output_wait_s);
    printf("  diagnostics   integral %.6g, max |u| %.6g", res->diag.integral, res->diag.max_abs);
    if (kind == FDX_SIM_WAVE) printf(", energy %.6g", res->diag.energy);
    if (kind == FDX_SIM_POISSON) printf(", last relative change %.3g", res->diag.change);
    printf("\n");
    printf("  checksum      sum %.17g, L2 %.17g\n", res->diag.sum, res->diag.l2);
    if (out[0])
        printf("  output        %s (summary.json%s)\n", out,
               atoll(fdx_sim_config_get(cfg, "snapshot-every")) > 0 ? ", animation.gif, frames/" : "");
}

int cmd_sim_main(fdx_sim_kind kind, int argc, char **argv)
{
    const char *cmd = fdx_sim_kind_name(kind);
    cli_flag flags[MAX_FLAGS + 1];
    const char *values[MAX_FLAGS] = {0};
    char helps[MAX_FLAGS][160];
    int nf = 0;
    const char *config = NULL, *json = NULL;
    flags[nf++] = (cli_flag){"config", "FILE", "read key = value lines (the keys below) first", &config};
    flags[nf++] = (cli_flag){"json", NULL, "print the JSON summary instead of the table", &json};
    int first_key = nf;
    const char *name, *metavar, *def, *help;
    for (int i = 0; nf < MAX_FLAGS && fdx_sim_config_key(kind, i, &name, &metavar, &def, &help); i++) {
        /* --overwrite is a switch; config files say overwrite = yes. */
        int is_switch = strcmp(name, "overwrite") == 0;
        if (is_switch) def = "";
        snprintf(helps[nf], sizeof helps[nf], "%s%s%s%s", help, def[0] ? " [" : "", def, def[0] ? "]" : "");
        flags[nf] = (cli_flag){name, is_switch ? NULL : metavar, helps[nf], &values[nf]};
        nf++;
    }
    flags[nf] = (cli_flag){NULL, NULL, NULL, NULL};

    /* First: an interrupt before the run writes anything (config, device
       start, the first kernel compile) ends at once with 130. */
    fdx_sim_install_signals();
    fdx_options *opts = NULL, *host_opts = NULL;
    fdx_sim_config *cfg = NULL;
    fdx_ctx *ctx = NULL;
    fdx_sim *sim = NULL;
    int rc = cli_start(argc, argv, cmd, "[--config FILE] [--KEY VALUE ...] [--json]", flags, &opts);
    if (rc >= 0) goto done;
    fdx_status st = config_from_flags(kind, flags, values, first_key, nf, config, &cfg);
    if (st != FDX_OK) {
        rc = cli_fail(cmd, st);
        goto done;
    }
    /* Distributed (--gpus K): the simulation object keeps the global fields
       on the host; the units come from the user's options. */
    int gpus = 0;
    st = units_per_process(kind, cfg, &gpus);
    if (st == FDX_OK && gpus > 0 && (st = fdx_options_create(&host_opts)) == FDX_OK)
        st = fdx_options_set(host_opts, "backend", "cpu");
    if (st != FDX_OK || (st = fdx_ctx_create(gpus > 0 ? host_opts : opts, &ctx)) != FDX_OK ||
        (st = fdx_sim_create(ctx, cfg, &sim)) != FDX_OK) {
        rc = cli_fail(cmd, st);
        goto done;
    }
    fdx_sim_result res;
    if (gpus > 0)
        st = fdx_sim_run_dist(sim, opts, gpus, strcmp(fdx_sim_config_get(cfg, "overlap"), "on") == 0,
                              json ? NULL : stderr, &res);
    else st = fdx_sim_run(sim, json ? NULL : stderr, &res);
    if (st != FDX_OK) {
        rc = cli_fail(cmd, st);
        goto done;
    }
    if (res.interrupted && res.steps_this_run == 0 && res.wall_s == 0) {
        fprintf(stderr, "fdx %s: interrupted before the run began; nothing was written\n", cmd);
        rc = 130;
        goto done;
    }
    if (res.proc != 0) {
        rc = res.interrupted ? 130 : CLI_OK; /* rank 0 reports */
        goto done;
    }
    const char *out = fdx_sim_config_get(cfg, "output");
    if (json) printf("%s\n", res.summary);
    else print_table(cmd, kind, cfg, sim, ctx, gpus, &res);
    rc = CLI_OK;
    if (res.interrupted) {
        fprintf(stderr, "fdx %s: interrupted at step %lld; %s\n", cmd, (long long)res.steps,
                out[0] ? "checkpoint written: resume with --restart DIR" : "no --output, so no checkpoint");
        rc = 130;
    }
done:
    fdx_sim_destroy(&sim);
    fdx_ctx_destroy(&ctx);
    fdx_sim_config_destroy(&cfg);
    fdx_options_destroy(&opts);
    fdx_options_destroy(&host_opts);
    fdx_dist_finalize();
    return rc;
}
