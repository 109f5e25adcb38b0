/* fdx_knob: lookup of the expert environment variables (fdx_knobs.def). */
#include "fdx_knob.h"
#include "fdx/core.h"
#include "fdx_log.h"

#include <errno.h>
#include <stdint.h>

#include <stdio.h>
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

/* Warns once a knob (it is read per call) that its value is bad. */
static void warn_bad(fdx_knob_id k, const char *v, const char *what, long long lo, long long hi)
{
    static int warned[FDX_KNOB_COUNT];
    if (!warned[k]++)
        fdx_log(FDX_LOG_WARN, "%s=%s%s%s is not an integer in %lld..%lld: ignored", table[k].env, v, what ? ": " : "",
                what ? what : "", lo, hi);
}

/* The integer in text[0..len) within lo..hi; def (after a warning) when it is not one. */
static long long parse_int(fdx_knob_id k, const char *v, const char *text, size_t len, const char *what,
                           long long lo, long long hi, long long def)
{
    char buf[32], *end;
    if (len == 0 || len >= sizeof buf) {
        warn_bad(k, v, what, lo, hi);
        return def;
    }
    memcpy(buf, text, len);
    buf[len] = 0;
    errno = 0;
    long long n = strtoll(buf, &end, 10);
    if (errno || end == buf || *end || n < lo || n > hi) {
        warn_bad(k, v, what, lo, hi);
        return def;
    }
    return n;
}

long long fdx_knob_int(fdx_knob_id k, long long lo, long long hi, long long def)
{
    const char *v = fdx_knob(k);
    return v ? parse_int(k, v, v, strlen(v), NULL, lo, hi, def) : def;
}

long long fdx_knob_int_field(fdx_knob_id k, int field, long long lo, long long hi, long long def)
{
    const char *v = fdx_knob(k), *p = v;
    for (int f = 0; p && f < field; f++) {
        p = strchr(p, ':');
        if (p) p++;
    }
    if (!p) return def; /* unset, or fewer fields */
    const char *end = strchr(p, ':');
    char what[32];
    snprintf(what, sizeof what, "field %d", field + 1);
    return parse_int(k, v, p, end ? (size_t)(end - p) : strlen(p), what, lo, hi, def);
}

extern char **environ;

int fdx_knob_snapshot(const char *prefix, char *buf, size_t n)
{
    const size_t plen = strlen(prefix);
    size_t at = 0;
    memset(buf, 0, n);
    for (char **e = environ; e && *e; e++) {
        if ((*e)[0] != prefix[0] || strncmp(*e, prefix, plen) != 0) continue; /* most fail on the first byte */
        const size_t len = strlen(*e);
        if (at + len + 1 > n) return 0;
        memcpy(buf + at, *e, len);
        buf[at + len] = '\n';
        at += len + 1;
    }
    return 1;
}

int fdx_knob_count(void) { return FDX_KNOB_COUNT; }

void fdx_knob_describe(int i, const char **env, const char **help, const char **value)
{
    fdx_knob_id k = (fdx_knob_id)i;
    if (env) *env = fdx_knob_env(k);
    if (help) *help = fdx_knob_help(k);
    if (value) *value = fdx_knob(k);
}
