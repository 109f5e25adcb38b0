/* cli: flag parsing shared by all subcommands. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every error of the tool is one line: messages quote what the user typed,
   so control characters (a newline in an argument) are shown as '?' and a
   message that quotes a 10,000-character argument is cut short. */
void cli_error_line(const char *cmd, const char *msg, const char *hint)
{
    char line[CLI_MAX_MESSAGE + 4];
    size_t n = 0;
    for (const char *p = msg; *p && n < CLI_MAX_MESSAGE; p++, n++)
        line[n] = (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p;
    if (msg[n]) memcpy(line + n, "...", 3), n += 3;
    line[n] = '\0';
    fprintf(stderr, "fdx%s%s: error: %s%s\n", cmd ? " " : "", cmd ? cmd : "", line, hint ? hint : "");
    fflush(stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[CLI_MAX_MESSAGE + 2]; /* one more than is shown: a cut is marked "..." */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char hint[64];
    snprintf(hint, sizeof hint, " (see 'fdx %s --help')", cmd ? cmd : "");
    cli_error_line(cmd, msg, cmd ? hint : " (see 'fdx --help')");
    return CLI_USAGE;
}

int cli_verify_failed(const char *cmd, const char *fmt, ...)
{
    char msg[CLI_MAX_MESSAGE + 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cli_error_line(cmd, msg, "");
    return CLI_VERIFY_FAILED;
}

int cli_fail(const char *cmd, fdx_status st)
{
    const char *msg = fdx_last_error();
    cli_error_line(cmd, msg[0] ? msg : fdx_strerror(st), NULL);
    return st == FDX_ERR_INVALID ? CLI_USAGE : st == FDX_ERR_VERIFY ? CLI_VERIFY_FAILED : CLI_RUNTIME;
}

const char *cli_clip(const char *s, char *buf, size_t cap)
{
    size_t n = strlen(s);
    if (n < cap) return s;
    char tail[32];
    int t = snprintf(tail, sizeof tail, "...(%zu characters)", n);
    size_t keep = cap > (size_t)t + 8 ? cap - 1 - (size_t)t : 0;
    memcpy(buf, s, keep);
    snprintf(buf + keep, cap - keep, "%s", tail);
    return buf;
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

/* A flag given twice is refused: the later value silently winning hides a
   mistake in a script.  `seen` holds the names given so far. */
static int seen_before(const char **seen, int n, const char *name)
{
    for (int k = 0; k < n; k++)
        if (strcmp(seen[k], name) == 0) return 1;
    return 0;
}

/* Flags renamed so that one name means one thing in every command (issue
   18): the old name is refused with the new one, not kept as an alias, so a
   script learns the name once.  Named only where the command has the new flag. */
static const char *renamed_to(const char *name, const cli_flag *flags)
{
    static const char *const renamed[][2] = {
        {"sweeps", "steps"}, {"iters", "steps"}, {"iterations", "steps"}, {"max-cycles", "steps"}, {"shape", "size"}};
    for (size_t r = 0; r < sizeof renamed / sizeof renamed[0]; r++) {
        if (strcmp(name, renamed[r][0]) != 0) continue;
        for (const cli_flag *f = flags; f && f->name; f++)
            if (strcmp(f->name, renamed[r][1]) == 0) return renamed[r][1];
    }
    return NULL;
}

int cli_parse(int argc, char **argv, const char *cmd, const char *usage, const cli_flag *flags,
              fdx_options *opts)
{
    const char *seen[CLI_MAX_FLAGS_GIVEN];
    char names[CLI_MAX_FLAGS_GIVEN][64];
    int nseen = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_help(cmd, usage, flags);
            return CLI_OK;
        }
        char clip[80];
        if (strncmp(arg, "--", 2) != 0 || !arg[2])
            return cli_usage_error(cmd, "unexpected argument '%s'", cli_clip(arg, clip, sizeof clip));
        char name[64];
        const char *eq = strchr(arg + 2, '=');
        size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        if (len >= sizeof name) return cli_usage_error(cmd, "unknown flag '%s'", cli_clip(arg, clip, sizeof clip));
        memcpy(name, arg + 2, len);
        name[len] = '\0';
        if (seen_before(seen, nseen, name)) return cli_usage_error(cmd, "flag '--%s' is given twice", name);
        if (nseen == CLI_MAX_FLAGS_GIVEN) return cli_usage_error(cmd, "more than %d flags", CLI_MAX_FLAGS_GIVEN);
        memcpy(names[nseen], name, len + 1);
        seen[nseen] = names[nseen];
        nseen++;

        const cli_flag *f = flags;
        while (f && f->name && strcmp(f->name, name) != 0) f++;
        int known = f && f->name;
        if (!known && !is_global(name)) {
            const char *now = renamed_to(name, flags);
            if (now) return cli_usage_error(cmd, "flag '--%s' is now called '--%s'", name, now);
            return cli_usage_error(cmd, "unknown flag '--%s'", name);
        }
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

int cli_start(int argc, char **argv, const char *cmd, const char *usage, const cli_flag *flags, fdx_options **opts)
{
    *opts = NULL;
    if (fdx_options_create(opts) != FDX_OK) return cli_usage_error(cmd, "%s", fdx_last_error());
    return cli_parse(argc, argv, cmd, usage, flags, *opts);
}

int cli_knob_is(const char *env, const char *value)
{
    for (int i = 0; i < fdx_knob_count(); i++) {
        const char *name, *v;
        fdx_knob_describe(i, &name, NULL, &v);
        if (strcmp(name, env) == 0) return v && strcmp(v, value) == 0;
    }
    return 0;
}

fdx_status cli_parse_int(const char *flag, const char *s, long lo, long hi, long *out)
{
    char *end = NULL, clip[48];
    errno = 0;
    /* strtol would take leading blanks and a '+': a value is digits only. */
    long v = (*s == '-' && s[1] >= '0' && s[1] <= '9') || (*s >= '0' && *s <= '9') ? strtol(s, &end, 10) : 0;
    if (!end || *end || errno == ERANGE)
        return fdx_fail(FDX_ERR_INVALID, "%s: '%s' is not an integer", flag, cli_clip(s, clip, sizeof clip));
    if (v < lo || v > hi)
        return fdx_fail(FDX_ERR_INVALID, "%s: %ld is out of range %ld..%ld", flag, v, lo, hi);
    *out = v;
    return FDX_OK;
}

fdx_status cli_parse_real(const char *flag, const char *s, double lo, double hi, double *out)
{
    char *end = NULL, clip[48];
    errno = 0;
    /* strtod would take leading blanks, hex, inf and nan: a value is a plain decimal. */
    double v = (*s == '-' || *s == '.' || (*s >= '0' && *s <= '9')) && !strpbrk(s, "xXnNiI") ? strtod(s, &end) : 0;
    if (!end || *end || errno == ERANGE || !isfinite(v))
        return fdx_fail(FDX_ERR_INVALID, "%s: '%s' is not a number", flag, cli_clip(s, clip, sizeof clip));
    if (!(v > lo && v < hi))
        return fdx_fail(FDX_ERR_INVALID, "%s: %s is outside (%g, %g)", flag, s, lo, hi);
    *out = v;
    return FDX_OK;
}

fdx_status cli_parse_choice(const char *flag, const char *s, const char *const *names, int n, int *index)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) return *index = i, FDX_OK;
    char list[256] = "", clip[48];
    size_t len = 0;
    for (int i = 0; i < n && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
    return fdx_fail(FDX_ERR_INVALID, "%s '%s' is not %s", flag, cli_clip(s, clip, sizeof clip), list);
}

fdx_status cli_parse_shape(const char *s, int min_rank, int max_rank, int64_t min_extent, int *rank,
                           int64_t *shape)
{
    return cli_parse_shape_flag("--size", s, min_rank, max_rank, min_extent, rank, shape);
}

/* How a size of min..max extents is written, for the messages. */
static const char *shape_syntax(int min_rank, int max_rank)
{
    if (min_rank == max_rank)
        return min_rank == 1 ? "N" : min_rank == 2 ? "NXxNY" : min_rank == 3 ? "NXxNYxNZ" : "N0xN1x...";
    if (min_rank == 2 && max_rank == 3) return "NXxNY or NXxNYxNZ";
    if (min_rank == 1 && max_rank == 3) return "NX, NXxNY or NXxNYxNZ";
    return "N0xN1x...";
}

fdx_status cli_parse_shape_flag(const char *flag, const char *text, int min_rank, int max_rank, int64_t min_extent,
                                int *rank, int64_t *shape)
{
    char clip[64];
    const char *s = cli_clip(text, clip, sizeof clip), *p = text;
    int r = 0;
    int64_t cells = 1;
    while (*p) {
        if (r == max_rank)
            return fdx_fail(FDX_ERR_INVALID, "%s '%s' has more than %d extents (write %s)", flag, s, max_rank,
                            shape_syntax(min_rank, max_rank));
        char *end = NULL;
        errno = 0;
        if (*p < '0' || *p > '9')
            return fdx_fail(FDX_ERR_INVALID, "%s '%s': extent %d is not a positive integer", flag, s, r);
        long long v = strtoll(p, &end, 10);
        if (errno == ERANGE || v > (long long)1 << 40)
            return fdx_fail(FDX_ERR_INVALID, "%s '%s': extent %d is too large", flag, s, r);
        if (v < min_extent)
            return fdx_fail(FDX_ERR_INVALID, "%s '%s': extent %d is %lld, the minimum is %lld", flag, s, r, v,
                            (long long)min_extent);
        /* The product must stay a 64-bit byte count even at 16-byte elements. */
        if (r > 0 && (uint64_t)v > ((uint64_t)INT64_MAX / 16) / (uint64_t)cells)
            return fdx_fail(FDX_ERR_INVALID, "%s '%s': the product of the extents overflows 64-bit sizes", flag, s);
        cells *= v;
        shape[r++] = v;
        p = end;
        if (*p == 'x' || *p == 'X') {
            p++;
            if (!*p) return fdx_fail(FDX_ERR_INVALID, "%s '%s' ends with 'x'", flag, s);
        } else if (*p) {
            return fdx_fail(FDX_ERR_INVALID, "%s '%s': unexpected '%c' (write %s)", flag, s, *p,
                            shape_syntax(min_rank, max_rank));
        }
    }
    if (r < min_rank)
        return fdx_fail(FDX_ERR_INVALID, "%s '%s' needs at least %d extents (write %s)", flag, s, min_rank,
                        shape_syntax(min_rank, max_rank));
    *rank = r;
    return FDX_OK;
}

int cli_under_mpirun(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]) && atoi(getenv(vars[i])) > 1) return 1;
    return 0;
}
