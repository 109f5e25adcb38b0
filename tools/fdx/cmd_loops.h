/* cmd_loops: what fdx sor and fdx aos share: timing a case with an untimed
   reset before each repetition, and the head of their records. */
#ifndef FDX_CMD_LOOPS_H
#define FDX_CMD_LOOPS_H

#include "cli.h"
#include "fdx/internal/json.h"

typedef fdx_status (*cli_step)(void *arg);

/* Before each of warmup + reps repetitions `reset` (untimed), then `run`
   timed by the wall clock with the device idle at both ends (run must
   wait for its work); median of reps (at most 64). */
fdx_status cli_time_case(cli_step reset, cli_step run, void *arg, int warmup, int reps, fdx_time_stats *out);

/* Begins a record: the schema's fields for the autotfm time `on`, the
   time without it, speedup_autotfm, effective bandwidth for `bytes` and the
   copy bandwidth measured now.  The caller adds fields and ends it. */
fdx_status cli_loop_record(fdx_json *j, const char *case_name, fdx_ctx *ctx, int rank, const int64_t *shape,
                           const fdx_time_stats *on, const fdx_time_stats *off, double bytes);

/* fdx aos --gpus K (cmd_aos_dist.c): the AOS loop distributed; returns the
   exit status. */
int cli_aos_dist(const char *cmd, fdx_options *opts, const int64_t *g, const double *init, int iters, int reps, int gpus,
                 int json);

#endif
