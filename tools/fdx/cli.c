/* cli: flag parsing shared by all subcommands. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fdx %s: error: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see 'fdx %s --help')\n", cmd);
    va_end(ap);
    return CLI_USAGE;
}

int cli_fail(const char *cmd, fdx_status st)
{
    const char *msg = fdx_last_error();
    fprintf(stderr, "fdx %s: error: %s\n", cmd, msg[0] ? msg : fdx_strerror(st));
    return st == FDX_ERR_INVALID ? CLI_USAGE : st == FDX_ERR_VERIFY ? CLI_VERIFY_FAILED : CLI_RUNTIME;
}

static void print_help(const char *cmd, const char *usage, const cli_flag *flags)
{
    printf("usage: fdx %s %s\n\n", cmd, usage);
    for (const cli_flag *f = flags; f && f->name; f++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", f->name, f->metavar ? " " : "", f->metavar ? f->metavar : "");
        printf("  %-26s %s\n", left, f->help);
    }
    printf("\nglobal options (flag, environment variable, default):\n");
    for (int i = 0; i < fdx_options_count(); i++) {
        const char *name, *env, *def, *help;
        fdx_options_describe(i, &name, &env, &def, &help);
        char left[64];
        snprintf(left, sizeof left, "--%s V", name);
        printf("  %-26s %s [%s, default %s]\n", left, help, env, def);
    }
    printf("  %-26s this text\n", "--help");
}

static int is_global(const char *name)
{
    for (int i = 0; i < fdx_options_count(); i++) {
        const char *n, *env, *def, *help;
        fdx_options_describe(i, &n, &env, &def, &help);
        if (strcmp(n, name) == 0) return 1;
    }
    return 0;
}

int cli_parse(int argc, char **argv, const char *cmd, const char *usage, const cli_flag *flags,
              fdx_options *opts)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_help(cmd, usage, flags);
            return CLI_OK;
        }
        if (strncmp(arg, "--", 2) != 0 || !arg[2])
            return cli_usage_error(cmd, "unexpected argument '%s'", arg);
        char name[64];
        const char *eq = strchr(arg + 2, '=');
        size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        if (len >= sizeof name) return cli_usage_error(cmd, "unknown flag '%s'", arg);
        memcpy(name, arg + 2, len);
        name[len] = '\0';

        const cli_flag *f = flags;
        while (f && f->name && strcmp(f->name, name) != 0) f++;
        int known = f && f->name;
        if (!known && !is_global(name)) return cli_usage_error(cmd, "unknown flag '--%s'", name);
        const char *value = eq ? eq + 1 : NULL;
        if (known && !f->metavar) {
            if (value) return cli_usage_error(cmd, "flag '--%s' takes no value", name);
            *f->value = "1";
            continue;
        }
        if (!value) {
            if (i + 1 >= argc) return cli_usage_error(cmd, "flag '--%s' needs a value", name);
            value = argv[++i];
        }
        if (known) {
            *f->value = value;
        } else if (fdx_options_set(opts, name, value) != FDX_OK) {
            return cli_usage_error(cmd, "%s", fdx_last_error());
        }
    }
    return -1;
}

fdx_status cli_parse_int(const char *flag, const char *s, long lo, long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno == ERANGE)
        return fdx_fail(FDX_ERR_INVALID, "%s: '%s' is not an integer", flag, s);
    if (v < lo || v > hi)
        return fdx_fail(FDX_ERR_INVALID, "%s: %ld is out of range %ld..%ld", flag, v, lo, hi);
    *out = v;
    return FDX_OK;
}

fdx_status cli_parse_shape(const char *s, int min_rank, int max_rank, int64_t min_extent, int *rank,
                           int64_t *shape)
{
    int r = 0;
    const char *p = s;
    while (*p) {
        if (r == max_rank)
            return fdx_fail(FDX_ERR_INVALID, "--size '%s' has more than %d extents", s, max_rank);
        char *end = NULL;
        errno = 0;
        if (*p < '0' || *p > '9')
            return fdx_fail(FDX_ERR_INVALID, "--size '%s': extent %d is not a positive integer", s, r);
        long long v = strtoll(p, &end, 10);
        if (errno == ERANGE || v > (long long)1 << 40)
            return fdx_fail(FDX_ERR_INVALID, "--size '%s': extent %d is too large", s, r);
        if (v < min_extent)
            return fdx_fail(FDX_ERR_INVALID, "--size '%s': extent %d is %lld, the minimum is %lld", s, r, v,
                            (long long)min_extent);
        shape[r++] = v;
        p = end;
        if (*p == 'x' || *p == 'X') {
            p++;
            if (!*p) return fdx_fail(FDX_ERR_INVALID, "--size '%s' ends with 'x'", s);
        } else if (*p) {
            return fdx_fail(FDX_ERR_INVALID, "--size '%s': unexpected '%c' (write NXxNYxNZ)", s, *p);
        }
    }
    if (r < min_rank)
        return fdx_fail(FDX_ERR_INVALID, "--size '%s' needs at least %d extents (write NXxNY or NXxNYxNZ)", s,
                        min_rank);
    *rank = r;
    return FDX_OK;
}
