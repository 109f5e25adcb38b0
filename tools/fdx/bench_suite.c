/* bench_suite: what the stencil benchmark suites share: the command line
   (--json, --quick, --cases, --reps, --list; --suite, --seed, --count for a
   suite with a random generator), the case selection, the copy bandwidth
   probe and the loop over the cases. */
#include "cmd_stencil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bench_selected(const char *list, const char *name)
{
    if (!list) return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0) return 1;
        p += len + (e != NULL);
    }
    return 0;
}

/* Case i of a table (its first member is the name). */
static const void *case_at(const bench_suite *s, const void *tab, size_t i)
{
    return (const char *)tab + i * s->elem;
}

static const char *case_name(const bench_suite *s, const void *tab, size_t i)
{
    return *(const char *const *)case_at(s, tab, i);
}

int bench_suite_main(const bench_suite *s, int argc, char **argv)
{
    const char *CMD = s->cmd;
    const char *json = NULL, *quick = NULL, *cases = NULL, *reps_s = NULL, *list = NULL, *suite = "named",
               *seed_s = NULL, *count_s = NULL;
    char suite_help[256];
    snprintf(suite_help, sizeof suite_help, "named: the named cases; random: %s [named]",
             s->random_help ? s->random_help : "");
    cli_flag flags[] = {
        {"json", NULL, "one JSON record per case (JSON Lines) instead of the table", &json},
        {"quick", NULL, "small shapes of the same kinds (seconds, for tests)", &quick},
        {"cases", "A,B", "only these cases (see --list)", &cases},
        {"reps", "N", s->reps_help, &reps_s},
        {"list", NULL, "list the cases of this backend and exit", &list},
        {"suite", "S", suite_help, &suite},
        {"seed", "N", "seed of the random suite [1]", &seed_s},
        {"count", "N", "cases of the random suite", &count_s},
        {NULL, NULL, NULL, NULL},
    };
    if (!s->random) flags[5] = flags[8]; /* no random suite: no --suite, --seed, --count */
    fdx_options *opts = NULL;
    int rc = cli_start(argc, argv, CMD,
                       s->random ? "[--json] [--quick] [--cases A,B] [--reps N] [--list] [--suite named|random] "
                                   "[--seed N] [--count N]"
                                 : "[--json] [--quick] [--cases A,B] [--reps N] [--list]",
                       flags, &opts);
    fdx_ctx *ctx = NULL;
    void *generated = NULL;
    if (rc >= 0) goto done;
    long reps = 0, seed = 1, count = s->default_count;
    fdx_status st;
    if (reps_s && (st = cli_parse_int("--reps", reps_s, 1, 100000, &reps)) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    static const char *const suites[] = {"named", "random"};
    int space; /* the random suite */
    if ((st = cli_parse_choice("--suite", suite, suites, 2, &space)) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    if (!space && (seed_s || count_s)) {
        rc = cli_usage_error(CMD, "--%s sets the random suite: it has no effect without --suite random",
                             seed_s ? "seed" : "count");
        goto done;
    }
    if (space && quick) {
        rc = cli_usage_error(CMD, "--quick picks small named cases: it has no effect with --suite random");
        goto done;
    }
    if ((seed_s && (st = cli_parse_int("--seed", seed_s, 0, 1L << 30, &seed)) != FDX_OK) ||
        (count_s && (st = cli_parse_int("--count", count_s, 1, s->max_random, &count)) != FDX_OK)) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    if (space) {
        generated = calloc((size_t)count, s->elem);
        if (!generated) {
            rc = cli_fail(CMD, fdx_fail(FDX_ERR_NOMEM, "no memory for %ld cases", count));
            goto done;
        }
        s->random(generated, count, seed);
    }
    if (list && (cases || reps_s || json)) {
        rc = cli_usage_error(CMD, "--list prints the case names only: --%s has no effect with it",
                             cases ? "cases" : reps_s ? "reps" : "json");
        goto done;
    }
    if ((st = fdx_ctx_create(opts, &ctx)) != FDX_OK) {
        rc = cli_fail(CMD, st);
        goto done;
    }
    int cuda = fdx_ctx_backend(ctx) == FDX_BACKEND_CUDA, q = quick != NULL;
    const void *tab = space ? generated : q ? s->quick : cuda ? s->gpu : s->cpu;
    size_t ncases = space ? (size_t)count : q ? s->nquick : cuda ? s->ngpu : s->ncpu;
    if (list) {
        for (size_t i = 0; i < ncases; i++) {
            printf("%s", case_name(s, tab, i));
            if (space && s->describe) s->describe(case_at(s, tab, i));
            printf("\n");
        }
        rc = CLI_OK;
        goto done;
    }
    int any = 0;
    for (size_t i = 0; i < ncases; i++) any |= bench_selected(cases, case_name(s, tab, i));
    if (!any) {
        rc = cli_usage_error(CMD, "--cases '%s' names no case of the %s backend (see --list)", cases,
                             fdx_backend_kind_name(fdx_ctx_backend(ctx)));
        goto done;
    }
    double copy_gbps;
    if ((st = stencil_copy_gbps(ctx, q ? 0 : (double)(1u << 30), &copy_gbps)) != FDX_OK) {
        rc = cli_fail(CMD, st);
        goto done;
    }
    if (!json) s->header();
    rc = CLI_OK;
    for (size_t i = 0; i < ncases; i++) {
        if (!bench_selected(cases, case_name(s, tab, i))) continue;
        int r = s->run(ctx, CMD, case_at(s, tab, i), json != NULL, (int)reps, copy_gbps);
        if (r != CLI_OK && rc == CLI_OK) rc = r;
    }
done:
    free(generated);
    fdx_ctx_destroy(&ctx);
    fdx_options_destroy(&opts);
    return rc;
}
