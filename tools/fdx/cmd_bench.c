/* fdx bench SUITE: runs a named benchmark suite (benches.def lists them);
   each case prints a table row, or with --json one JSON record per line. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#define BENCH_SUITE(name, fn, summary) int fn(int argc, char **argv);
#include "benches.def"
#undef BENCH_SUITE

static const struct {
    const char *name, *summary;
    int (*run)(int, char **);
} suites[] = {
#define BENCH_SUITE(name, fn, summary) {name, summary, fn},
#include "benches.def"
#undef BENCH_SUITE
    {NULL, NULL, NULL},
};

int cmd_bench(int argc, char **argv)
{
    if (argc < 2) return cli_usage_error("bench", "no suite given");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        printf("usage: fdx bench SUITE [flags]   (fdx bench SUITE --help for its flags)\n\nsuites:\n");
        for (int i = 0; suites[i].name; i++) printf("  %-12s %s\n", suites[i].name, suites[i].summary);
        return CLI_OK;
    }
    for (int i = 0; suites[i].name; i++)
        if (strcmp(argv[1], suites[i].name) == 0) return suites[i].run(argc - 1, argv + 1);
    char clip[64];
    return cli_usage_error("bench", "unknown suite '%s'", cli_clip(argv[1], clip, sizeof clip));
}
