/* fdx_bc_parse: the command-line syntax of boundary conditions
   ("x=periodic,y=dirichlet:0,z+=neumann:1.5", include/fdx/boundary.h) and
   its text form, so every command that takes --boundary reads it alike. */
#include "stencil/fdx_bc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Faces an item names: bits axis * 2 + side. */
static int face_mask(const char *name, size_t len, int rank, unsigned *mask)
{
    if (len == 3 && strncmp(name, "all", 3) == 0) {
        *mask = (1u << (2 * rank)) - 1;
        return 1;
    }
    if (len < 1 || len > 2) return 0;
    const char *axes = "xyz", *p = strchr(axes, name[0]);
    if (!p || name[0] == '\0' || p - axes >= rank) return 0;
    int a = (int)(p - axes);
    if (len == 1) *mask = 3u << (2 * a);
    else if (name[1] == '-') *mask = 1u << (2 * a);
    else if (name[1] == '+') *mask = 2u << (2 * a);
    else return 0;
    return 1;
}

/* KIND[:NUMBER] into a face. */
static fdx_status parse_kind(const char *item, const char *kind, size_t len, fdx_bc_face *f)
{
    static const char *names[] = {"none", "dirichlet", "neumann", "periodic"};
    const char *colon = memchr(kind, ':', len);
    size_t klen = colon ? (size_t)(colon - kind) : len;
    int k = -1;
    for (int i = 0; i < 4; i++)
        if (strlen(names[i]) == klen && strncmp(kind, names[i], klen) == 0) k = i;
    FDX_CHECK(k >= 0, FDX_ERR_INVALID,
              "boundary item '%s': kind must be periodic, dirichlet[:VALUE], neumann[:FLUX] or none", item);
    memset(f, 0, sizeof *f);
    f->kind = (fdx_bc_kind)k;
    if (!colon) return FDX_OK;
    FDX_CHECK(k == FDX_FACE_DIRICHLET || k == FDX_FACE_NEUMANN, FDX_ERR_INVALID,
              "boundary item '%s': only dirichlet and neumann take a value", item);
    char num[64];
    size_t nlen = len - klen - 1;
    FDX_CHECK(nlen > 0 && nlen < sizeof num, FDX_ERR_INVALID, "boundary item '%s': the value after ':' is missing",
              item);
    memcpy(num, colon + 1, nlen);
    num[nlen] = '\0';
    char *end;
    double v = strtod(num, &end);
    FDX_CHECK(*end == '\0' && isfinite(v), FDX_ERR_INVALID, "boundary item '%s': '%s' is not a finite number", item,
              num);
    f->value = v;
    return FDX_OK;
}

fdx_status fdx_bc_parse(const char *text, int rank, fdx_bc_desc *bc)
{
    FDX_CHECK(text && bc, FDX_ERR_INVALID, "fdx_bc_parse: NULL argument");
    FDX_CHECK(rank >= 1 && rank <= 3, FDX_ERR_INVALID, "boundary conditions for rank %d: 1, 2 or 3", rank);
    memset(bc, 0, sizeof *bc);
    const char *s = text;
    while (*s) {
        size_t len = strcspn(s, ",");
        char item[128];
        snprintf(item, sizeof item, "%.*s", (int)(len < 120 ? len : 120), s);
        const char *eq = memchr(s, '=', len);
        unsigned mask = 0;
        FDX_CHECK(eq && face_mask(s, (size_t)(eq - s), rank, &mask), FDX_ERR_INVALID,
                  "boundary item '%s': expected FACE=KIND with FACE all, %s", item,
                  rank == 1 ? "x, x- or x+" : rank == 2 ? "x, y, x-, x+, y- or y+" : "x, y, z or one face such as x-, z+");
        fdx_bc_face f;
        FDX_TRY(parse_kind(item, eq + 1, len - (size_t)(eq + 1 - s), &f));
        for (int i = 0; i < 2 * rank; i++)
            if (mask >> i & 1) bc->face[i / 2][i % 2] = f;
        s += len;
        if (*s == ',') s++;
    }
    return fdx_bc_check_desc(bc, rank);
}

void fdx_bc_text(const fdx_bc_desc *bc, int rank, char *buf, size_t n)
{
    static const char *names[] = {"none", "dirichlet", "neumann", "periodic"};
    size_t used = 0;
    if (n) buf[0] = '\0';
    for (int i = 0; i < 2 * rank && used < n; i++) {
        const fdx_bc_face *f = &bc->face[i / 2][i % 2];
        int k = f->kind >= FDX_FACE_NONE && f->kind <= FDX_FACE_PERIODIC ? (int)f->kind : 0;
        int w;
        if (f->values) w = snprintf(buf + used, n - used, "%s%c%c=%s:array", i ? "," : "", "xyz"[i / 2], i % 2 ? '+' : '-', names[k]);
        else if (k == FDX_FACE_DIRICHLET || k == FDX_FACE_NEUMANN)
            w = snprintf(buf + used, n - used, "%s%c%c=%s:%.17g", i ? "," : "", "xyz"[i / 2], i % 2 ? '+' : '-', names[k], f->value);
        else w = snprintf(buf + used, n - used, "%s%c%c=%s", i ? "," : "", "xyz"[i / 2], i % 2 ? '+' : '-', names[k]);
        if (w < 0) break;
        used += (size_t)w;
    }
}
