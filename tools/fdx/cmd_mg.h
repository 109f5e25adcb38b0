/* cmd_mg: fdx mg (the multigrid Poisson solver on a manufactured solution)
   and its residual plot. */
#ifndef FDX_CMD_MG_H
#define FDX_CMD_MG_H

#include "cli.h"

/* The relative residual after each cycle as a PNG at path (atomic). */
fdx_status cmd_mg_plot(const char *path, const double *hist, int n, const char *title);

#endif
