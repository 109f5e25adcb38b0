/* fdx_layout_cpu: the transforms on the CPU: OpenMP over cache-sized tiles,
   words moved as opaque bytes (one body for every word size: each call site
   passes a constant size, so memcpy becomes a single load and store). */
#include "layout/fdx_layout_index.h"
#include "layout/fdx_layout_plan.h"

#include <stdlib.h>
#include <string.h>

#define INLINE static inline __attribute__((always_inline))

/* Runs BODY(w) with w a compile-time constant equal to the word size. */
#define BY_WORD(word, BODY)                                                                          \
    do {                                                                                             \
        switch (word) {                                                                              \
        case 1: BODY(1); break;                                                                      \
        case 2: BODY(2); break;                                                                      \
        case 4: BODY(4); break;                                                                      \
        case 8: BODY(8); break;                                                                      \
        default: BODY(16); break;                                                                    \
        }                                                                                            \
    } while (0)

enum { CPU_TILE = 32, COPY_CHUNK = 1 << 20 };

/* Offsets in src and dst of batch index `i` (mixed radix over the batch axes). */
INLINE void batch_offsets(const fdx_perm_plan *p, int64_t i, int64_t *so, int64_t *dof)
{
    int64_t s = 0, d = 0;
    for (int b = 0; b < p->nb; b++) {
        int64_t c = i % p->bn[b];
        i /= p->bn[b];
        s += c * p->bs[b];
        d += c * p->bd[b];
    }
    *so = s;
    *dof = d;
}

static void copy_flat(char *dst, const char *src, size_t bytes)
{
    int64_t chunks = (int64_t)((bytes + COPY_CHUNK - 1) / COPY_CHUNK);
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < chunks; c++) {
        size_t o = (size_t)c * COPY_CHUNK, n = bytes - o < COPY_CHUNK ? bytes - o : COPY_CHUNK;
        memcpy(dst + o, src + o, n);
    }
}

/* The fastest axis stays: one memcpy per row of nA words. */
static void copy_rows(char *dst, const char *src, const fdx_perm_plan *p)
{
    const size_t w = (size_t)p->word, row = (size_t)p->nA * w;
    int64_t rows = p->count / p->nA;
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; r++) {
        int64_t k = r % p->nK, so, dof;
        batch_offsets(p, r / p->nK, &so, &dof);
        memcpy(dst + (size_t)(dof + k * p->dK) * w, src + (size_t)(so + k * p->sK) * w, row);
    }
}

/* Stores of whole dst rows bypass the caches where the CPU can (x86-64
   movnti): the row is written in full, so reading it first (the
   write-allocate a plain store costs) is a third of the traffic wasted.
   nt_fence() orders them before the transform returns. */
#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#define HAVE_NT 1
INLINE void nt_store(char *d, const char *s, const size_t w)
{
    if (w == 8) {
        long long v;
        memcpy(&v, s, 8);
        _mm_stream_si64((long long *)(void *)d, v);
    } else if (w == 4) {
        int v;
        memcpy(&v, s, 4);
        _mm_stream_si32((int *)(void *)d, v);
    } else {
        memcpy(d, s, w);
    }
}
static void nt_fence(void) { _mm_sfence(); }
#else
#define HAVE_NT 0
INLINE void nt_store(char *d, const char *s, const size_t w) { memcpy(d, s, w); }
static void nt_fence(void) {}
#endif

/* Tile buffer: fits the L1 data cache with room for the rows in flight. */
enum { CPU_TILE_BYTES = 32 << 10 };

/* One tile of ta x tb units of R words: the tb src rows (ta units each,
   contiguous) are copied into a dense buffer, then each of the ta dst rows
   (tb units, contiguous) is gathered from it.  Only the buffer is walked
   with a stride; global memory sees whole rows, read and written once, so
   rows megabytes apart (which share cache sets and TLB entries) never
   compete.  Strides are copied to locals: stores through char pointers may
   alias the plan, which would make the compiler reload it on every word. */
INLINE void move_tile(char *restrict dst, const char *restrict src, char *restrict buf, const fdx_perm_plan *p,
                      int64_t a0, int64_t b0, int64_t ta, int64_t tb, const size_t w, int nt)
{
    const int64_t sA = p->sA, sK = p->sK, dA = p->dA, dK = p->dK;
    const size_t u = (size_t)p->R * w;
    /* src rows packed closely (AoS records): gathered straight from src, in
       chunks of CPU_TILE rows so the chunk stays in L1 across the ta dst
       rows (a 32 KiB span did not on a 32 KiB L1) */
    const int direct = (size_t)(sK * tb) * w <= CPU_TILE_BYTES;
    const size_t row = direct ? (size_t)sK * w : (size_t)ta * u, step = direct ? (size_t)sA * w : u;
    const char *base = direct ? src + (size_t)(a0 * sA + b0 * sK) * w : buf;
    const int64_t chunk = direct ? CPU_TILE : tb;
    if (!direct)
        for (int64_t b = 0; b < tb; b++) memcpy(buf + (size_t)b * row, src + (size_t)(a0 * sA + (b0 + b) * sK) * w, row);
    for (int64_t c0 = 0; c0 < tb; c0 += chunk) {
        const int64_t c1 = c0 + chunk < tb ? c0 + chunk : tb;
        for (int64_t a = 0; a < ta; a++) {
            char *d = dst + (size_t)((a0 + a) * dA + b0 * dK) * w;
            const char *s = base + (size_t)a * step;
            if (u == w && nt)
                for (int64_t b = c0; b < c1; b++) nt_store(d + (size_t)b * w, s + (size_t)b * row, w);
            else if (u == w)
                for (int64_t b = c0; b < c1; b++) memcpy(d + (size_t)b * w, s + (size_t)b * row, w);
            else
                for (int64_t b = c0; b < c1; b++) memcpy(d + (size_t)b * u, s + (size_t)b * row, u);
        }
    }
}

static int64_t round8(int64_t x) { return x >= 16 ? x - x % 8 : x; }

static void copy_tiled(char *dst, const char *src, const fdx_perm_plan *p)
{
    /* square-ish tiles of the buffer's size, a short side taken whole and the other grown to fill */
    const size_t w = (size_t)p->word, u = (size_t)p->R * w;
    const int64_t units = (int64_t)(CPU_TILE_BYTES / u) > 1 ? (int64_t)(CPU_TILE_BYTES / u) : 1;
    int64_t side = 1;
    while ((side * 2) * (side * 2) <= units) side *= 2;
    int64_t ta = p->nA < side ? p->nA : side, tb = p->nK < units / ta ? p->nK : round8(units / ta);
    if (tb < 1) tb = 1;
    if (ta < p->nA) ta = p->nA < units / tb ? p->nA : round8(units / tb);
    const int64_t tiles_a = (p->nA + ta - 1) / ta, tiles_k = (p->nK + tb - 1) / tb;
    const int64_t tasks = tiles_a * tiles_k * (p->count / (p->R * p->nA * p->nK));
    /* whole dst rows of at least a cache line go around the cache */
    const int nt = HAVE_NT && (w == 4 || w == 8) && p->R == 1 && (size_t)tb * w >= 64 && !getenv("FDX_LAYOUT_NO_NT");
#pragma omp parallel
    {
        _Alignas(64) char buf[CPU_TILE_BYTES]; /* ta * tb * u <= CPU_TILE_BYTES */
#pragma omp for schedule(static)
        for (int64_t t = 0; t < tasks; t++) {
            int64_t ia = t % tiles_a, ik = t / tiles_a % tiles_k, so, dof;
            batch_offsets(p, t / tiles_a / tiles_k, &so, &dof);
            int64_t a0 = ia * ta, b0 = ik * tb;
            int64_t na = p->nA - a0 < ta ? p->nA - a0 : ta, nk = p->nK - b0 < tb ? p->nK - b0 : tb;
#define TILE(W) move_tile(dst + (size_t)dof * w, src + (size_t)so * w, buf, p, a0, b0, na, nk, W, nt)
            BY_WORD(p->word, TILE);
#undef TILE
        }
        if (nt) nt_fence();
    }
}

INLINE void swap_words(char *a, char *b, const size_t w)
{
    unsigned char t[16];
    memcpy(t, a, w);
    memcpy(a, b, w);
    memcpy(b, t, w);
}

/* In place: for each pair of tiles (i <= j) of each square slice, swap
   element (x, y) with (y, x); the diagonal tile swaps its own halves. */
static void square_inplace(char *buf, const fdx_perm_plan *p)
{
    const int64_t n = p->nA, tiles = (n + CPU_TILE - 1) / CPU_TILE, slices = p->count / (n * n);
    const size_t w = (size_t)p->word;
#pragma omp parallel for collapse(3) schedule(dynamic, 4)
    for (int64_t s = 0; s < slices; s++)
        for (int64_t ti = 0; ti < tiles; ti++)
            for (int64_t tj = 0; tj < tiles; tj++) {
                if (tj < ti) continue;
                char *base = buf + (size_t)(s * n * n) * w;
                int64_t y1 = (tj + 1) * CPU_TILE < n ? (tj + 1) * CPU_TILE : n;
                int64_t x1 = (ti + 1) * CPU_TILE < n ? (ti + 1) * CPU_TILE : n;
                for (int64_t y = tj * CPU_TILE; y < y1; y++)
                    for (int64_t x = ti * CPU_TILE; x < (ti == tj ? y : x1); x++) {
#define SWAP(W) swap_words(base + (size_t)(x + n * y) * w, base + (size_t)(y + n * x) * w, W)
                        BY_WORD(p->word, SWAP);
#undef SWAP
                    }
            }
}

fdx_status fdx_layout_cpu_perm(void *dst, const void *src, const fdx_perm_plan *p)
{
    switch (p->kind) {
    case FDX_PLAN_COPY:
        if (dst != src) copy_flat(dst, src, (size_t)p->count * (size_t)p->word);
        break;
    case FDX_PLAN_ROWS: copy_rows(dst, src, p); break;
    case FDX_PLAN_TILED: copy_tiled(dst, src, p); break;
    case FDX_PLAN_SQUARE: square_inplace(dst, p); break;
    }
    return FDX_OK;
}

/* Diagonal arrangement: tiles of DTD lines by DTX points along x
   (parallelograms of the plain plane), staged through a dense buffer of
   the plain rows they cross (row y - y0, column x - x0): the plain side
   moves whole row segments, the diagonal side whole line segments, and
   only the L1-resident buffer is walked along the diagonal.  Plain rows
   4 KiB apart share cache sets; walking them directly thrashed L1. */
enum { DTX = 32, DTD = 64, DROWS = DTX + DTD - 1 };

INLINE void diag_tile(char *restrict dg, char *restrict pl, char *restrict buf, const fdx_diag_plan *p, int64_t x0,
                      int64_t d0, const size_t w)
{
    const int64_t rx = p->rx, ry = p->ry, dend = d0 + DTD < rx + ry - 1 ? d0 + DTD : rx + ry - 1;
    const int64_t x1 = x0 + DTX < rx ? x0 + DTX : rx;
    const int64_t y0 = d0 - (x1 - 1) > 0 ? d0 - (x1 - 1) : 0, y1 = dend - x0 < ry ? dend - x0 : ry;
    const int main_ = p->diag == FDX_DIAG_MAIN, undiag = p->undiag;
    if (y0 >= y1) return;
    /* the x range of row y inside the tile: x0 <= x < x1 and d0 <= x + y < dend */
#define ROW_RANGE(y, lo, hi)                                                                                   \
    int64_t lo = d0 - (y) > x0 ? d0 - (y) : x0, hi = dend - (y) < x1 ? dend - (y) : x1
    if (!undiag)
        for (int64_t y = y0; y < y1; y++) {
            ROW_RANGE(y, lo, hi);
            int64_t yp = main_ ? ry - 1 - y : y;
            if (lo < hi) memcpy(buf + (size_t)((y - y0) * DTX + lo - x0) * w, pl + (size_t)(lo + rx * yp) * w, (size_t)(hi - lo) * w);
        }
    for (int64_t d = d0; d < dend; d++) {
        int64_t xlo = d - (ry - 1) > x0 ? d - (ry - 1) : x0, xhi = x1 < d + 1 ? x1 : d + 1;
        if (xlo >= xhi) continue;
        char *q = dg + (size_t)fdx_diag_index(xlo, d - xlo, rx, ry) * w;
        char *b = buf + (size_t)((d - xlo - y0) * DTX + xlo - x0) * w;
        const size_t step = (size_t)(DTX - 1) * w; /* x + 1, y - 1 */
        if (undiag)
            for (int64_t x = xlo; x < xhi; x++, q += w, b -= step) memcpy(b, q, w);
        else
            for (int64_t x = xlo; x < xhi; x++, q += w, b -= step) memcpy(q, b, w);
    }
    if (undiag)
        for (int64_t y = y0; y < y1; y++) {
            ROW_RANGE(y, lo, hi);
            int64_t yp = main_ ? ry - 1 - y : y;
            if (lo < hi) memcpy(pl + (size_t)(lo + rx * yp) * w, buf + (size_t)((y - y0) * DTX + lo - x0) * w, (size_t)(hi - lo) * w);
        }
#undef ROW_RANGE
}

/* Undiagonalize: the same parallelograms (CPU_TILE lines by CPU_TILE
   points) moved directly, each line read as a run and written across the
   plain rows.  On the H100 host (16-core Xeon, 2026-11-22) this measured
   0.29 of copy against 0.22 for the buffered tile read backwards and
   written by rows (FDX_LAYOUT_UNDIAG_STAGED=1); both are far from the
   diagonalize direction, see docs/notes/layout.md. */
INLINE void undiag_direct(const char *restrict dg, char *restrict pl, const fdx_diag_plan *p, int64_t x0, int64_t d0,
                          const size_t w)
{
    const int64_t rx = p->rx, ry = p->ry, dend = d0 + CPU_TILE < rx + ry - 1 ? d0 + CPU_TILE : rx + ry - 1;
    for (int64_t d = d0; d < dend; d++) {
        int64_t xlo = d - (ry - 1) > x0 ? d - (ry - 1) : x0, xhi = x0 + CPU_TILE < rx ? x0 + CPU_TILE : rx;
        if (xhi > d + 1) xhi = d + 1;
        if (xlo >= xhi) continue;
        const char *q = dg + (size_t)fdx_diag_index(xlo, d - xlo, rx, ry) * w;
        for (int64_t x = xlo; x < xhi; x++, q += w) {
            int64_t y = d - x, yp = p->diag == FDX_DIAG_MAIN ? ry - 1 - y : y;
            memcpy(pl + (size_t)(x + rx * yp) * w, q, w);
        }
    }
}

fdx_status fdx_layout_cpu_diag(void *dst, const void *src, const fdx_diag_plan *p)
{
    const int direct = p->undiag && !getenv("FDX_LAYOUT_UNDIAG_STAGED"); /* staged: measurement only */
    const int64_t sx = direct ? CPU_TILE : DTX, sd = direct ? CPU_TILE : DTD;
    const int64_t tx = (p->rx + sx - 1) / sx, td = (p->rx + p->ry - 1 + sd - 1) / sd;
    const size_t w = (size_t)p->word, plane = (size_t)(p->rx * p->ry) * w;
    char *dg = p->undiag ? (char *)src : dst, *pl = p->undiag ? dst : (char *)src;
#pragma omp parallel
    {
        _Alignas(64) char buf[DROWS * DTX * 16];
#pragma omp for collapse(3) schedule(static)
        for (int64_t z = 0; z < p->planes; z++)
            for (int64_t id = 0; id < td; id++)
                for (int64_t ix = 0; ix < tx; ix++) {
#define STAGED(W) diag_tile(dg + (size_t)z * plane, pl + (size_t)z * plane, buf, p, ix * DTX, id * DTD, W)
#define DIRECT(W) undiag_direct(dg + (size_t)z * plane, pl + (size_t)z * plane, p, ix * CPU_TILE, id * CPU_TILE, W)
                    if (direct) BY_WORD(p->word, DIRECT);
                    else BY_WORD(p->word, STAGED);
#undef STAGED
#undef DIRECT
                }
    }
    return FDX_OK;
}

fdx_status fdx_layout_cpu_box(void *array, void *plain, const fdx_box_plan *p)
{
    const fdx_index_map *m = &p->map;
    const size_t w = (size_t)p->word;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < p->count; i++) {
        int64_t rest = i, off = 0, idx[FDX_MAX_RANK];
        for (int a = 0; a < m->rank; a++) {
            idx[a] = p->lo[a] + rest % p->box[a];
            rest /= p->box[a];
            off += idx[a] * m->stride[a];
        }
        if (m->diag != FDX_DIAG_NONE)
            off += fdx_diag_index(idx[m->ax], m->diag == FDX_DIAG_MAIN ? m->ry - 1 - idx[m->ay] : idx[m->ay], m->rx, m->ry);
        char *a = (char *)array + (size_t)off * w, *b = (char *)plain + (size_t)i * w;
        if (p->put) memcpy(a, b, w);
        else memcpy(b, a, w);
    }
    return FDX_OK;
}
