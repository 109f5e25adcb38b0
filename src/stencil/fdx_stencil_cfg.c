/* fdx_stencil_cfg: the configuration's texts, parser, key and checks, all
   from the one table fdx_stencil_cfg.def. */
#include "stencil/fdx_stencil_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
#define FDX_STENCIL_CFG_FIELD(name, def, lo, hi, kernel, shown, text) FIELD_##name,
#include "stencil/fdx_stencil_cfg.def"
#undef FDX_STENCIL_CFG_FIELD
    NFIELDS
};

/* The table as data: where each field lives and its properties. */
typedef struct field {
    const char *name;
    size_t offset;
    int def, lo, hi, kernel;
} field;

static const field fields[NFIELDS] = {
#define FDX_STENCIL_CFG_FIELD(name, def, lo, hi, kernel, shown, text) \
    {#name, offsetof(fdx_stencil_cfg, name), def, lo, hi, kernel},
#include "stencil/fdx_stencil_cfg.def"
#undef FDX_STENCIL_CFG_FIELD
};

static int *at(fdx_stencil_cfg *c, int i) { return (int *)((char *)c + fields[i].offset); }
static int get(const fdx_stencil_cfg *c, int i) { return *(const int *)((const char *)c + fields[i].offset); }

/* Appends to buf[n] at *len, never past its end. */
static void append(char *buf, size_t n, size_t *len, const char *fmt, int v)
{
    if (*len >= n) return;
    int k = snprintf(buf + *len, n - *len, fmt, v);
    if (k > 0) *len += (size_t)k;
}

void fdx_stencil_cfg_text(const fdx_stencil_cfg *c, int cuda, char *buf, size_t n)
{
    static const char *name[] = {"smem", "direct", "unroll", "async", "plane"};
    if (!cuda) {
        snprintf(buf, n, "cpu rows %d chunk %d", c->by, c->chunk);
        return;
    }
    snprintf(buf, n, "%s", c->variant >= 0 && c->variant <= FDX_SV_PLANE ? name[c->variant] : "?");
    size_t len = strlen(buf);
#define FDX_STENCIL_CFG_FIELD(name, def, lo, hi, kernel, shown, text) \
    if (shown) append(buf, n, &len, text, c->name);
#include "stencil/fdx_stencil_cfg.def"
#undef FDX_STENCIL_CFG_FIELD
}

void fdx_stencil_cfg_format(const fdx_stencil_cfg *c, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < NFIELDS; i++) append(buf, n, &len, i ? " %d" : "%d", get(c, i));
}

int fdx_stencil_cfg_valid(const fdx_stencil_cfg *c)
{
    for (int i = 0; i < NFIELDS; i++)
        if (get(c, i) < fields[i].lo || get(c, i) > fields[i].hi) return 0;
    /* What the ranges cannot say. */
    int pdmax = c->variant == FDX_SV_UNROLL ? FDX_STENCIL_MAX_UNROLL
                : c->variant == FDX_SV_ASYNC || c->variant == FDX_SV_PLANE ? FDX_STENCIL_MAX_ASYNC_AHEAD
                                             : 2;
    return c->vec != 3 && c->tx * c->ty <= 1024 && c->pd <= pdmax && (!c->zs || c->variant == FDX_SV_ASYNC) &&
           (!c->zh || (c->variant == FDX_SV_ASYNC && !c->zs)) &&
           (!c->ys || (c->variant == FDX_SV_ASYNC && !c->zs && !c->zh)) &&
           (!c->b2 || (c->variant == FDX_SV_ASYNC && c->pd >= 2)) && (!c->uz || c->variant == FDX_SV_ASYNC);
}

int fdx_stencil_cfg_parse(const char *text, fdx_stencil_cfg *cfg)
{
    fdx_stencil_cfg c;
    memset(&c, 0, sizeof c);
    int got = 0;
    for (const char *p = text; got < NFIELDS; got++) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < -0x7fffffffL || v > 0x7fffffffL) break;
        *at(&c, got) = (int)v;
        p = end;
    }
    /* The fields from zs on may be missing (files from before they existed). */
    if (got < FIELD_zs) return 0;
    for (int i = got; i < NFIELDS; i++) *at(&c, i) = fields[i].def;
    if (!fdx_stencil_cfg_valid(&c)) return 0;
    *cfg = c;
    return 1;
}

void fdx_stencil_cfg_key(const fdx_stencil_cfg *cfg, int cuda, char *buf, size_t n)
{
    fdx_stencil_cfg c = *cfg;
    /* An unrolled kernel with one group per block (chunk == pd) has no loop,
       so nothing to pipeline; ry 0 and 1 are one row a thread. */
    int single = cuda && c.variant == FDX_SV_UNROLL && c.chunk == c.pd;
    if (single) c.pipe = 0;
    c.ry = fdx_stencil_rows(&c);
    size_t len = 0;
    buf[0] = '\0';
    if (!cuda) { /* the CPU kernel depends on the spec only */
        snprintf(buf, n, "cpu");
        return;
    }
    append(buf, n, &len, "s%d", single);
    for (int i = 0; i < NFIELDS; i++)
        if (fields[i].kernel) append(buf, n, &len, ".%d", get(&c, i));
}
