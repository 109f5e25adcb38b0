/* fdx_options: the one table of tunables.  Each has a CLI flag (--name), an
   environment variable (FDX_NAME) and a default; --help and the environment
   lookup are both generated from this table. */
#include "fdx_error.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef fdx_status (*option_check)(const char *name, const char *value);

static fdx_status check_backend(const char *name, const char *v)
{
    (void)name;
    fdx_backend_kind k;
    return fdx_backend_kind_parse(v, &k);
}

static fdx_status check_log(const char *name, const char *v)
{
    (void)name;
    fdx_log_level l;
    return fdx_log_level_parse(v, &l);
}

static fdx_status check_nonneg_int(const char *name, const char *v)
{
    char *end = NULL;
    long x = strtol(v, &end, 10);
    if (!*v || *end || x < 0 || x > 1000000)
        return fdx_fail(FDX_ERR_INVALID, "option %s: '%s' is not a non-negative integer", name, v);
    return FDX_OK;
}

/* More threads than this only oversubscribes: 4 per core, at most 4096. */
static long max_threads(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    return cores > 1024 ? 4096 : 4 * cores;
}

static fdx_status check_threads(const char *name, const char *v)
{
    FDX_TRY(check_nonneg_int(name, v));
    long x = strtol(v, NULL, 10), most = max_threads();
    if (x > most)
        return fdx_fail(FDX_ERR_INVALID, "option %s: %ld is more than 4 per CPU core (at most %ld here; 0 means "
                                         "OpenMP's default)", name, x, most);
    return FDX_OK;
}

static fdx_status check_onoff(const char *name, const char *v)
{
    static const char *ok[] = {"on", "off", "1", "0", "force"};
    for (int i = 0; i < 5; i++)
        if (strcmp(v, ok[i]) == 0) return FDX_OK;
    return fdx_fail(FDX_ERR_INVALID, "option %s: '%s' is not on, off, force, 1 or 0", name, v);
}

static fdx_status check_budget(const char *name, const char *v)
{
    char *end = NULL;
    long x = strtol(v, &end, 10);
    if (strcmp(v, "all") == 0 || (*v && !*end && x >= 1 && x <= 1000)) return FDX_OK;
    return fdx_fail(FDX_ERR_INVALID, "option %s: '%s' is not a count 1..1000 or all", name, v);
}

static fdx_status check_any(const char *name, const char *v)
{
    if (!*v) return fdx_fail(FDX_ERR_INVALID, "option %s: empty value", name);
    return FDX_OK;
}

static const struct option_def {
    const char *name, *env, *def, *help;
    option_check check;
} table[] = {
    {"backend", "FDX_BACKEND", "auto", "compute backend: auto, cpu or cuda", check_backend},
    {"device", "FDX_DEVICE", "0", "CUDA device number", check_nonneg_int},
    {"log", "FDX_LOG", "warn", "log level: debug, info, warn, error or off", check_log},
    {"cache-dir", "FDX_CACHE_DIR", "~/.cache/fdx", "compiled-kernel and tuning cache (yours, not group/other-writable)", check_any},
    {"threads", "FDX_THREADS", "0", "CPU threads (0: OpenMP's default; at most 4 per core)", check_threads},
    {"tune", "FDX_TUNE", "on", "kernel autotuning: on (use cache), off, force (re-tune)", check_onoff},
    {"tune-budget", "FDX_TUNE_BUDGET", "8",
     "kernel configurations tuning measures per run (later runs refine; the choice is kept): N, or all", check_budget},
    {"autotfm", "FDX_AUTOTFM", "on", "automatic array reorganization before loops: on or off", check_onoff},
};
#define NOPTIONS ((int)(sizeof table / sizeof table[0]))

struct fdx_options {
    char *value[NOPTIONS];
};

int fdx_options_count(void) { return NOPTIONS; }

void fdx_options_describe(int i, const char **name, const char **env, const char **def,
                          const char **help)
{
    int ok = i >= 0 && i < NOPTIONS;
    if (name) *name = ok ? table[i].name : NULL;
    if (env) *env = ok ? table[i].env : NULL;
    if (def) *def = ok ? table[i].def : NULL;
    if (help) *help = ok ? table[i].help : NULL;
}

static int find(const char *name)
{
    for (int i = 0; name && i < NOPTIONS; i++)
        if (strcmp(name, table[i].name) == 0) return i;
    return -1;
}

static fdx_status set_value(fdx_options *o, int i, const char *value)
{
    FDX_TRY(table[i].check(table[i].name, value));
    char *copy = strdup(value);
    FDX_CHECK(copy, FDX_ERR_NOMEM, "out of memory storing option %s", table[i].name);
    free(o->value[i]);
    o->value[i] = copy;
    return FDX_OK;
}

fdx_status fdx_options_create(fdx_options **out)
{
    FDX_CHECK(out, FDX_ERR_INVALID, "fdx_options_create: out is NULL");
    *out = NULL;
    fdx_options *o = calloc(1, sizeof *o);
    FDX_CHECK(o, FDX_ERR_NOMEM, "out of memory creating options");
    for (int i = 0; i < NOPTIONS; i++) {
        const char *env = getenv(table[i].env);
        fdx_status st = FDX_OK;
        if (env && *env) {
            st = set_value(o, i, env);
            if (st != FDX_OK) {
                char msg[512];
                snprintf(msg, sizeof msg, "%s", fdx_last_error());
                fdx_options_destroy(&o);
                return fdx_fail(st, "environment %s: %s", table[i].env, msg);
            }
        } else if ((st = set_value(o, i, table[i].def)) != FDX_OK) {
            fdx_options_destroy(&o);
            return st;
        }
    }
    *out = o;
    return FDX_OK;
}

void fdx_options_destroy(fdx_options **opts)
{
    if (!opts || !*opts) return;
    for (int i = 0; i < NOPTIONS; i++) free((*opts)->value[i]);
    free(*opts);
    *opts = NULL;
}

fdx_status fdx_options_set(fdx_options *opts, const char *name, const char *value)
{
    FDX_CHECK(opts && value, FDX_ERR_INVALID, "fdx_options_set: NULL argument");
    int i = find(name);
    FDX_CHECK(i >= 0, FDX_ERR_INVALID, "unknown option '%s'", name ? name : "(null)");
    return set_value(opts, i, value);
}

const char *fdx_options_get(const fdx_options *opts, const char *name)
{
    int i = find(name);
    if (i < 0) return NULL;
    return opts ? opts->value[i] : table[i].def;
}
