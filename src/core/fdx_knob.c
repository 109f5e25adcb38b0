/* fdx_knob: lookup of the expert environment variables (fdx_knobs.def). */
#include "fdx_knob.h"
#include "fdx/core.h"
#include "fdx_log.h"

#include <errno.h>
#include <stdint.h>

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *env, *help;
} table[FDX_KNOB_COUNT] = {
#define FDX_KNOB(name, help) {"FDX_" #name, help},
#include "fdx_knobs.def"
#undef FDX_KNOB
};

static int valid(fdx_knob_id k) { return (int)k >= 0 && k < FDX_KNOB_COUNT; }

const char *fdx_knob_env(fdx_knob_id k) { return valid(k) ? table[k].env : NULL; }
const char *fdx_knob_help(fdx_knob_id k) { return valid(k) ? table[k].help : NULL; }

const char *fdx_knob(fdx_knob_id k)
{
    const char *v = valid(k) ? getenv(table[k].env) : NULL;
    return v && *v ? v : NULL;
}

int fdx_knob_is(fdx_knob_id k, const char *value)
{
    const char *v = fdx_knob(k);
    return v && value && strcmp(v, value) == 0;
}

long long fdx_knob_int(fdx_knob_id k, long long lo, long long hi, long long def)
{
    const char *v = fdx_knob(k);
    if (!v) return def;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || end == v || *end || n < lo || n > hi) {
        static int warned[FDX_KNOB_COUNT]; /* once a knob: it is read per call */
        if (!warned[k]++)
            fdx_log(FDX_LOG_WARN, "%s=%s is not an integer in %lld..%lld: ignored", table[k].env, v, lo,
                    hi);
        return def;
    }
    return n;
}

int fdx_knob_count(void) { return FDX_KNOB_COUNT; }

void fdx_knob_describe(int i, const char **env, const char **help, const char **value)
{
    fdx_knob_id k = (fdx_knob_id)i;
    if (env) *env = fdx_knob_env(k);
    if (help) *help = fdx_knob_help(k);
    if (value) *value = fdx_knob(k);
}
