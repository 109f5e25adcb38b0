/* fdx poisson: -lap u = f on the manufactured problem, solved by multigrid
   (the default, --method mg: fdx mg's driver, cmd_mg.c) or iterated by
   Jacobi sweeps as a simulation with pictures, fields and checkpoints
   (--method jacobi: cmd_sim.c).  A flag only the other method takes is a
   usage error naming that method, never ignored. */
#include "cli.h"
#include "cmd_mg.h"
#include "cmd_sim.h"

#include <stdio.h>
#include <string.h>

static const char *CMD = "poisson";

/* Flags of one method only.  The multigrid ones are fdx mg's beyond the
   shared --size, --steps, --tol, --order and --json; the Jacobi ones are
   the simulation's config keys (read from the library) beyond those. */
static const char *const MG_ONLY[] = {"cycle", "smoother", "pre", "post", "solver", "bc", "coarse", "coef", "plot", "gpus", "grid", NULL};
static const char *const SHARED[] = {"size", "steps", "tol", "order", "json", NULL};

static int in_list(const char *const *list, const char *name)
{
    for (; *list; list++)
        if (strcmp(*list, name) == 0) return 1;
    return 0;
}

static int jacobi_only(const char *name)
{
    if (strcmp(name, "config") == 0) return 1;
    if (in_list(SHARED, name)) return 0;
    const char *key, *metavar, *def, *help;
    for (int i = 0; fdx_sim_config_key(FDX_SIM_POISSON, i, &key, &metavar, &def, &help); i++)
        if (strcmp(key, name) == 0) return 1;
    return 0;
}

/* The flag name of argv[i] ("--name" or "--name=value") into name, or 0
   when argv[i] is no flag. */
static int flag_name(const char *arg, char *name, size_t cap)
{
    if (strncmp(arg, "--", 2) != 0 || !arg[2]) return 0;
    const char *eq = strchr(arg + 2, '=');
    size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
    if (len >= cap) return 0;
    memcpy(name, arg + 2, len);
    name[len] = '\0';
    return 1;
}

/* Switches take no value; every other flag given without '=' takes the
   next argument, which is then skipped (a value is never a flag). */
static int takes_next(const char *arg, const char *name)
{
    return !strchr(arg, '=') && strcmp(name, "json") != 0 && strcmp(name, "overwrite") != 0 &&
           strcmp(name, "help") != 0;
}

static void print_method_help(void)
{
    printf("\nmethod:\n  %-26s %s\n", "--method mg|jacobi",
           "mg: solve by geometric multigrid (as fdx mg: full multigrid, then V-cycles) to --tol, exit 1 if not reached within --steps cycles; "
           "jacobi: Jacobi sweeps as a simulation with --output pictures, fields and checkpoints "
           "('fdx poisson --method jacobi --help') [mg]");
}

int cmd_poisson(int argc, char **argv)
{
    enum { MAX_ARGS = 4 * CLI_MAX_FLAGS_GIVEN + 2 };
    if (argc > MAX_ARGS) return cli_usage_error(CMD, "more than %d arguments", MAX_ARGS - 1);
    char *rest[MAX_ARGS + 1];
    int nrest = 0, help = 0, jacobi = 0;
    const char *method = NULL;
    rest[nrest++] = argv[0];
    /* --method first, out of the arguments passed on. */
    for (int i = 1; i < argc; i++) {
        char name[64];
        if (!flag_name(argv[i], name, sizeof name)) {
            help |= strcmp(argv[i], "-h") == 0;
            rest[nrest++] = argv[i];
            continue;
        }
        if (strcmp(name, "method") != 0) {
            help |= strcmp(name, "help") == 0;
            rest[nrest++] = argv[i];
            if (takes_next(argv[i], name) && i + 1 < argc) rest[nrest++] = argv[++i];
            continue;
        }
        if (method) return cli_usage_error(CMD, "flag '--method' is given twice");
        const char *eq = strchr(argv[i], '=');
        if (!eq && i + 1 >= argc) return cli_usage_error(CMD, "flag '--method' needs a value");
        method = eq ? eq + 1 : argv[++i];
        if (strcmp(method, "jacobi") == 0) jacobi = 1;
        else if (strcmp(method, "mg") != 0) {
            char clip[48];
            return cli_usage_error(CMD, "--method '%s': the method is mg or jacobi", cli_clip(method, clip, sizeof clip));
        }
    }
    rest[nrest] = NULL;
    /* Then a flag of the other method, named with it. */
    for (int i = 1; !help && i < nrest; i++) {
        char name[64];
        if (!flag_name(rest[i], name, sizeof name)) continue;
        if (jacobi && in_list(MG_ONLY, name))
            return cli_usage_error(CMD, "--%s is a flag of --method mg (the default); --method jacobi does not take it",
                                   name);
        if (!jacobi && jacobi_only(name))
            return cli_usage_error(CMD,
                                   "--%s is a flag of --method jacobi: the multigrid solve (the default) writes no "
                                   "pictures, fields or checkpoints (its results: the table, --json, --plot)",
                                   name);
        if (takes_next(rest[i], name)) i++;
    }
    int rc = jacobi ? cmd_sim_main(FDX_SIM_POISSON, nrest, rest) : cmd_mg_main(CMD, nrest, rest);
    if (help && rc == CLI_OK) print_method_help();
    return rc;
}
