/* fdx heat: the heat solver from the command line (see cmd_sim.c). */
#include "cli.h"
#include "cmd_sim.h"

int cmd_heat(int argc, char **argv) { return cmd_sim_main(FDX_SIM_HEAT, argc, argv); }
