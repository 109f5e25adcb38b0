/* fdx_knob: lookup of the expert environment variables (fdx_knobs.def). */
#include "fdx_knob.h"
#include "fdx/core.h"

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

int fdx_knob_count(void) { return FDX_KNOB_COUNT; }

void fdx_knob_describe(int i, const char **env, const char **help, const char **value)
{
    fdx_knob_id k = (fdx_knob_id)i;
    if (env) *env = fdx_knob_env(k);
    if (help) *help = fdx_knob_help(k);
    if (value) *value = fdx_knob(k);
}
