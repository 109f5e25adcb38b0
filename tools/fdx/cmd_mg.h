/* cmd_mg: fdx mg (the multigrid Poisson solver on a manufactured solution)
   and its residual plot. */
#ifndef FDX_CMD_MG_H
#define FDX_CMD_MG_H

#include "cli.h"

/* fdx mg, and fdx poisson's default method: flags argv[1..], messages as
   "fdx CMD: ...". */
int cmd_mg_main(const char *cmd, int argc, char **argv);

/* The grid of fdx mg: one spacing h for every axis, the box len_a = span_a
   h long, one boundary kind for every axis. */
typedef struct cmd_mg_grid {
    int rank;
    int64_t n[3];
    fdx_solver_bc bc;
    double h, len[3];
} cmd_mg_grid;

/* h and len for g->rank, g->n and g->bc. */
void cmd_mg_grid_init(cmd_mg_grid *g);
/* The position of point i on an axis, and the manufactured solution's
   factor phi(s) on [0, 1] (sin(pi s), cos(pi s), sin + cos(2 pi s)). */
double cmd_mg_pos(const cmd_mg_grid *g, int64_t i);
double cmd_mg_phi(fdx_solver_bc bc, double s);

/* --coef: none, smooth (k = 1 + 0.5 prod sin(2 pi s_a + c_a)), jump[:R]
   (k = 1 | R across a face near x = 1/2; R 1e3 by default; Dirichlet), or
   an HDF5 file (its first dataset, the grid's shape). */
typedef enum cmd_mg_coef_kind { MG_COEF_NONE = 0, MG_COEF_SMOOTH, MG_COEF_JUMP, MG_COEF_FILE } cmd_mg_coef_kind;
typedef struct cmd_mg_coef {
    cmd_mg_coef_kind kind;
    double ratio;     /* jump */
    const char *path; /* file */
} cmd_mg_coef;

fdx_status cmd_mg_coef_parse(const char *s, cmd_mg_coef *out);
const char *cmd_mg_coef_name(const cmd_mg_coef *c);
/* k, f (exact: -div(k grad u*) of the analytic u* for smooth and jump; the
   discrete operator applied to u* for a file, so u* is then the exact
   discrete solution), u* and the initial guess (u* on Dirichlet points,
   0 inside), each of the grid's point count. */
fdx_status cmd_mg_coef_manufacture(const cmd_mg_grid *g, const cmd_mg_coef *c, double *k, double *f, double *u,
                                   double *exact);
/* The order check: the same problem solved to 1e-12 on the grid of
   (n + 1) / 2 points per axis (Dirichlet) or n / 2 (others) on ctx;
   returns its max error and spacing. */
fdx_status cmd_mg_coef_coarse_error(fdx_ctx *ctx, const cmd_mg_grid *fine, const cmd_mg_coef *c, double *err,
                                    double *h);
/* Max |u - u*| (means removed when no axis is Dirichlet). */
double cmd_mg_max_error(const cmd_mg_grid *g, const double *u, const double *exact, int64_t count);

/* The relative residual after each cycle as a PNG at path (atomic). */
fdx_status cmd_mg_plot(const char *path, const double *hist, int n, const char *title);

/* --gpus K: the grid over K units a process (every rank under mpirun),
   split on grid[] (NULL: the slowest axis), and the solve's arrays. */
typedef struct cmd_mg_dist {
    fdx_dist *d;
    fdx_darray *f, *u;
} cmd_mg_dist;
fdx_status cmd_mg_dist_create(const fdx_options *opts, int rank, const int64_t *n, const int *grid, int units,
                              cmd_mg_dist *out);
/* f (unless NULL) and u from the global host arrays of shape n. */
fdx_status cmd_mg_dist_load(cmd_mg_dist *m, const int64_t *n, const double *f, const double *u);
/* The solution into the global host array, on every rank. */
fdx_status cmd_mg_dist_result(cmd_mg_dist *m, double *u);
/* Releases all and leaves MPI when fdx joined it. */
void cmd_mg_dist_free(cmd_mg_dist *m);

#endif
