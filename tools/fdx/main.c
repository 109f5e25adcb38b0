/* fdx: the command-line tool.  One subcommand per file (cmd_*.c), listed once
   in commands.def. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const cli_command commands[] = {
#define CLI_COMMAND(name, fn, summary) {name, summary, fn},
#include "commands.def"
#undef CLI_COMMAND
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void print_help(void)
{
    printf("fdx %s: finite-difference stencils on CPUs and GPUs\n\n", FDX_VERSION_STRING);
    printf("usage: fdx COMMAND [flags]     (fdx COMMAND --help for its flags)\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++) printf("  %-12s %s\n", commands[i].name, commands[i].summary);
    printf("\nglobal options, accepted by every command (flag, environment variable, default):\n");
    for (int i = 0; i < fdx_options_count(); i++) {
        const char *name, *env, *def, *help;
        fdx_options_describe(i, &name, &env, &def, &help);
        printf("  --%-12s %-14s %-14s %s\n", name, env, def, help);
    }
    printf("\nexpert environment variables (switches for measurements: they change speed, not results):\n");
    for (int i = 0; i < fdx_knob_count(); i++) {
        const char *env, *help, *value;
        fdx_knob_describe(i, &env, &help, &value);
        printf("  %-26s %s%s%s\n", env, help, value ? "; set to " : "", value ? value : "");
    }
    printf("\nexit status: 0 success, 1 result failed verification, 2 usage error (nothing run),\n"
           "             3 run-time failure (device, compiler, I/O), 130 interrupted (SIGINT;\n"
           "             simulations write a checkpoint first)\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_error_line(NULL, "no command given", " (see 'fdx --help')");
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        print_help();
        return CLI_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("fdx %s\n", FDX_VERSION_STRING);
        return CLI_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(cmd, commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
    char clip[80], msg[128];
    snprintf(msg, sizeof msg, "unknown command '%s'", cli_clip(cmd, clip, sizeof clip));
    cli_error_line(NULL, msg, " (see 'fdx --help')");
    return CLI_USAGE;
}
