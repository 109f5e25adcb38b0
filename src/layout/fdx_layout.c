/* fdx_layout: the layout descriptor (axis permutation + diagonal state), its
   checks, its index function and the index function as emitted source. */
#include "layout/fdx_layout_emit.h"
#include "layout/fdx_layout_index.h"
#include "layout/fdx_layout_plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

fdx_status fdx_layout_identity(int rank, fdx_layout *out)
{
    return fdx_layout_make(rank, NULL, FDX_DIAG_NONE, out);
}

fdx_status fdx_layout_check(const fdx_layout *l, int rank)
{
    FDX_CHECK(l, FDX_ERR_INVALID, "layout is NULL");
    FDX_CHECK(l->rank >= 1 && l->rank <= FDX_MAX_RANK, FDX_ERR_INVALID, "layout rank %d out of range 1..%d", l->rank,
              FDX_MAX_RANK);
    FDX_CHECK(l->rank == rank, FDX_ERR_INVALID, "layout has rank %d but the array has rank %d", l->rank, rank);
    int seen[FDX_MAX_RANK] = {0};
    for (int p = 0; p < l->rank; p++) {
        int a = l->perm[p];
        FDX_CHECK(a >= 0 && a < l->rank, FDX_ERR_INVALID, "axis %d at position %d is out of range 0..%d", a, p,
                  l->rank - 1);
        FDX_CHECK(!seen[a], FDX_ERR_INVALID, "axis %d appears twice in the permutation", a);
        seen[a] = 1;
    }
    FDX_CHECK(l->diag == FDX_DIAG_NONE || l->diag == FDX_DIAG_MAIN || l->diag == FDX_DIAG_ANTI, FDX_ERR_INVALID,
              "diagonal state %d is not none, main or anti", (int)l->diag);
    FDX_CHECK(l->diag == FDX_DIAG_NONE || l->rank >= 2, FDX_ERR_INVALID,
              "a diagonal layout needs rank >= 2, this one has rank %d", l->rank);
    return FDX_OK;
}

fdx_status fdx_layout_make(int rank, const int *perm, fdx_diag diag, fdx_layout *out)
{
    FDX_CHECK(out, FDX_ERR_INVALID, "fdx_layout_make: out is NULL");
    fdx_layout l;
    memset(&l, 0, sizeof l);
    l.rank = rank;
    l.diag = diag;
    for (int p = 0; p < rank && p < FDX_MAX_RANK; p++) l.perm[p] = perm ? perm[p] : p;
    FDX_TRY(fdx_layout_check(&l, rank));
    *out = l;
    return FDX_OK;
}

int fdx_layout_is_identity(const fdx_layout *l)
{
    for (int p = 0; p < l->rank; p++)
        if (l->perm[p] != p) return 0;
    return l->diag == FDX_DIAG_NONE;
}

static const char *const diag_names[] = {"none", "main", "anti"};

const char *fdx_diag_name(fdx_diag d) { return d >= FDX_DIAG_NONE && d <= FDX_DIAG_ANTI ? diag_names[d] : "?"; }

fdx_status fdx_diag_parse(const char *s, fdx_diag *out)
{
    FDX_CHECK(s && out, FDX_ERR_INVALID, "fdx_diag_parse: NULL argument");
    for (int d = 0; d < 3; d++)
        if (strcmp(s, diag_names[d]) == 0) return *out = (fdx_diag)d, FDX_OK;
    return fdx_fail(FDX_ERR_INVALID, "diagonal '%s' is not none, main or anti", s);
}

fdx_status fdx_perm_parse(const char *s, int *rank, int *perm)
{
    FDX_CHECK(s && rank && perm, FDX_ERR_INVALID, "fdx_perm_parse: NULL argument");
    int r = 0;
    const char *p = s;
    for (;;) {
        FDX_CHECK(r < FDX_MAX_RANK, FDX_ERR_INVALID, "permutation '%s' has more than %d axes", s, FDX_MAX_RANK);
        char *end = NULL;
        errno = 0;
        FDX_CHECK(*p >= '0' && *p <= '9', FDX_ERR_INVALID, "permutation '%s': entry %d is not an axis number", s, r);
        long v = strtol(p, &end, 10);
        FDX_CHECK(errno == 0 && v < 1000, FDX_ERR_INVALID, "permutation '%s': axis %d is out of range", s, r);
        perm[r++] = (int)v;
        p = end;
        if (!*p) break;
        FDX_CHECK(*p == ',' && p[1], FDX_ERR_INVALID, "permutation '%s': expected ',' between axes", s);
        p++;
    }
    *rank = r;
    return FDX_OK;
}

int64_t fdx_layout_offset(const fdx_layout *l, const int64_t *shape, const int64_t *idx)
{
    fdx_index_map m;
    fdx_index_map_make(l, shape, &m);
    int64_t off = 0;
    for (int a = 0; a < m.rank; a++) off += idx[a] * m.stride[a];
    if (m.diag != FDX_DIAG_NONE)
        off += fdx_diag_index(idx[m.ax], m.diag == FDX_DIAG_MAIN ? m.ry - 1 - idx[m.ay] : idx[m.ay], m.rx, m.ry);
    return off;
}

/* The helper text is the same macro the library compiles, stringified, so
   generated kernels and the library cannot disagree.  The qualifier is the
   token FDX_LAYOUT_EMIT_QUAL, which no header defines: it must reach the text
   unexpanded (the library's own qualifier would expand to "static inline",
   which NVRTC rejects in device code) and be chosen where the text compiles. */
static const char helpers_text[] =
    "#ifndef FDX_LAYOUT_HELPERS\n#define FDX_LAYOUT_HELPERS\n"
    "#if defined(__CUDACC_RTC__)\n#define FDX_LAYOUT_EMIT_QUAL static __device__ __forceinline__\n"
    "#elif defined(__CUDACC__)\n#define FDX_LAYOUT_EMIT_QUAL static __host__ __device__ __forceinline__\n"
    "#else\n#define FDX_LAYOUT_EMIT_QUAL static inline\n#endif\n" FDX_LAYOUT_STR(
        FDX_DIAG_INDEX_DEFINE(FDX_LAYOUT_EMIT_QUAL)) "\n"
    "#endif\n";

const char *fdx_layout_emit_helpers(void) { return helpers_text; }

fdx_status fdx_layout_emit_index_sb(const fdx_layout *l, const int64_t *shape, const char *const *names,
                                    fdx_sb *b)
{
    FDX_CHECK(l && shape && names && b, FDX_ERR_INVALID, "fdx_layout_emit_index: NULL argument");
    FDX_TRY(fdx_layout_check(l, l->rank));
    FDX_TRY(fdx_shape_check(l->rank, shape, 1, 1));
    for (int a = 0; a < l->rank; a++)
        FDX_CHECK(names[a] && names[a][0], FDX_ERR_INVALID, "index name of axis %d is empty", a);
    fdx_index_map m;
    fdx_index_map_make(l, shape, &m);
    fdx_sb_puts(b, "(");
    int terms = 0;
    if (m.diag != FDX_DIAG_NONE) {
        if (m.diag == FDX_DIAG_MAIN)
            fdx_sb_printf(b, "fdx_diag_index((long long)(%s), %lldLL - (long long)(%s), %lldLL, %lldLL)", names[m.ax],
                          (long long)(m.ry - 1), names[m.ay], (long long)m.rx, (long long)m.ry);
        else
            fdx_sb_printf(b, "fdx_diag_index((long long)(%s), (long long)(%s), %lldLL, %lldLL)", names[m.ax],
                          names[m.ay], (long long)m.rx, (long long)m.ry);
        terms++;
    }
    /* stored order, fastest first, so the expression reads like the layout */
    for (int p = m.diag != FDX_DIAG_NONE ? 2 : 0; p < l->rank; p++) {
        int a = l->perm[p];
        if (shape[a] == 1) continue; /* index 0 on an axis of extent 1 */
        fdx_sb_printf(b, "%s(long long)(%s) * %lldLL", terms ? " + " : "", names[a], (long long)m.stride[a]);
        terms++;
    }
    if (!terms) fdx_sb_puts(b, "0LL");
    fdx_sb_puts(b, ")");
    return fdx_sb_status(b, "an index expression");
}

fdx_status fdx_layout_emit_index(const fdx_layout *l, const int64_t *shape, const char *const *names, char *buf,
                                 size_t cap)
{
    FDX_CHECK(buf && cap > 0, FDX_ERR_INVALID, "fdx_layout_emit_index: NULL argument");
    fdx_sb b = FDX_SB_INIT;
    fdx_status st = fdx_layout_emit_index_sb(l, shape, names, &b);
    if (st == FDX_OK && b.len >= cap)
        st = fdx_fail(FDX_ERR_INVALID, "index expression needs %zu bytes, buffer has %zu", b.len + 1, cap);
    if (st == FDX_OK) memcpy(buf, fdx_sb_str(&b), b.len + 1);
    fdx_sb_free(&b);
    return st;
}
