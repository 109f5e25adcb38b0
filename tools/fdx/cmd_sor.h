/* cmd_sor: what fdx sor's plain path (cmd_sor.c) and its distributed path
   (cmd_sor_dist.c) share: the problem, the loop body, the one-unit variant. */
#ifndef FDX_CMD_SOR_H
#define FDX_CMD_SOR_H

#include "cmd_loops.h"

typedef struct sor {
    int64_t n;
    double *u0; /* boundary = u*, interior 0 */
} sor;

/* One lexicographic SOR sweep of -Lu = -12 at the point (i,j,k), in place;
   ch is the change's magnitude (a max reduction). */
#define SOR_BODY                                                                  \
    "double gs = (U(i-1,j,k) + U(i+1,j,k) + U(i,j-1,k) + U(i,j+1,k)\n"            \
    "           + U(i,j,k-1) + U(i,j,k+1) - h2lap) / 6.0;\n"                      \
    "double d = w * (gs - U(i,j,k));\n"                                            \
    "U(i,j,k) += d;\n"                                                             \
    "ch = fabs(d);\n"

typedef struct sor_variant {
    fdx_ctx *ctx;
    fdx_array *u;
    fdx_loop *loop;
    const sor *p;
    int sweeps;
    double change;
} sor_variant;

fdx_status sor_variant_make(fdx_ctx *ctx, const sor *p, int sweeps, double omega, int autotfm, sor_variant *v);
void sor_variant_free(sor_variant *v);
/* cli_time_case steps: the initial field back (plain layout), the sweeps. */
fdx_status sor_reset(void *arg);
fdx_status sor_run(void *arg);

/* fdx sor --gpus K (cmd_sor_dist.c); returns the exit status. */
int cli_sor_dist(const char *cmd, fdx_options *opts, const sor *p, int sweeps, int reps, double omega, int gpus, int json);

#endif
