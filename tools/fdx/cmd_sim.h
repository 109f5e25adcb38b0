/* cmd_sim: the command-line driver shared by fdx heat, wave and poisson. */
#ifndef FDX_CMD_SIM_H
#define FDX_CMD_SIM_H

#include "fdx/solvers.h"

/* Flags are the config keys (fdx_sim_config_key) plus --config FILE and
   --json; returns the exit status (130 after an interrupt). */
int cmd_sim_main(fdx_sim_kind kind, int argc, char **argv);

#endif
