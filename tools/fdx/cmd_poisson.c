/* fdx poisson: the poisson solver from the command line (see cmd_sim.c). */
#include "cli.h"
#include "cmd_sim.h"

int cmd_poisson(int argc, char **argv) { return cmd_sim_main(FDX_SIM_POISSON, argc, argv); }
