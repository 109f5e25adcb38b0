/* fdx_layout_cpu: the transforms on the CPU: OpenMP over cache-sized tiles,
   words moved as opaque bytes (one body for every word size: each call site
   passes a constant size, so memcpy becomes a single load and store). */
#include "core/fdx_knob.h"
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
    const int nt = HAVE_NT && (w == 4 || w == 8) && p->R == 1 && (size_t)tb * w >= 64 && !fdx_knob(FDX_KNOB_LAYOUT_NO_NT);
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

/* A run of `bytes` to dst: with nt, the whole 64-byte lines inside it
   around the caches (16-byte movntdq), the partial lines at its ends plain
   (a neighbouring run writes their other part). */
INLINE void put_run(char *restrict d, const char *restrict s, size_t bytes, int nt)
{
#if HAVE_NT
    if (nt && bytes >= 128) {
        size_t head = (size_t)(-(uintptr_t)d & 63), body = (bytes - head) & ~(size_t)63;
        memcpy(d, s, head);
        for (size_t o = head; o < head + body; o += 16)
            _mm_stream_si128((__m128i *)(void *)(d + o), _mm_loadu_si128((const __m128i *)(const void *)(s + o)));
        memcpy(d + head + body, s + head + body, bytes - head - body);
        return;
    }
#endif
    (void)nt;
    memcpy(d, s, bytes);
}

/* Diagonal arrangement: tiles of L lines d (d0 <= d < d0 + L) by H rows y
   (y0 <= y < y0 + H) of the plane, holding the points x = d - y inside it.
   In a tile, row y holds a run of consecutive x (line j at x = d0 + j - y)
   and line d a run of consecutive x too (x = d - y, descending as y
   ascends), so the tile goes through a buffer b[j][i], i = y0 + H - 1 - y
   (i ascends with x): each plain row segment is read (or written) as one
   run across the buffer (two rows at a time for 8-byte words, 2 x 2 blocks
   transposed in registers), and each line segment written (or read) as one
   run along it.  Diagonalize writes the lines (runs of up to H words, H
   long), undiagonalize the rows (runs of up to L words, L long); the read
   runs are short and far apart, so they are prefetched PF rows or lines
   ahead.  Plain rows 4 KiB apart share cache sets, so walking the plane
   along a line directly thrashed L1 (round 1: 0.20 of copy). */
enum { DPAD = 8, PF = 12 };

/* Asks for the lines of a run that is read a few rows later: the runs are
   short and far apart, so the hardware prefetchers do not see them coming. */
INLINE void prefetch_run(const char *s, size_t bytes)
{
    for (size_t o = 0; o < bytes + 63; o += 64) __builtin_prefetch(s + o);
}

/* One tile's geometry: lines d0 + j (0 <= j < nl), rows [y0, y1), points
   x in [xlo, xhi) (diagonalizing the whole row, 0..rx: a sheared tile;
   undiagonalizing a band L wide: a rectangle of the plain plane).
   Row y's segment is j in [jlo, jhi), its first word at row(y) + jlo (in
   words, from the plane), its buffer column col(y). */
typedef struct dtile {
    int64_t rx, ry, d0, y0, y1, nl, P, H, xlo, xhi;
    int main_;
} dtile;

INLINE int64_t dt_row(const dtile *t, int64_t y) { return t->d0 - y + t->rx * (t->main_ ? t->ry - 1 - y : y); }
INLINE int64_t dt_col(const dtile *t, int64_t y) { return t->y0 + t->H - 1 - y; }
INLINE void dt_range(const dtile *t, int64_t y, int64_t *jlo, int64_t *jhi)
{
    *jlo = y - t->d0 + t->xlo > 0 ? y - t->d0 + t->xlo : 0;
    *jhi = y - t->d0 + t->xhi < t->nl ? y - t->d0 + t->xhi : t->nl;
}

/* Row y's words j in [a, b) to (in = 1) or from the buffer. */
INLINE void row_words(const dtile *t, char *pl, char *buf, int64_t y, int64_t a, int64_t b, int in, const size_t w)
{
    char *r = pl + (size_t)(dt_row(t, y) + a) * w, *q = buf + (size_t)(a * t->P + dt_col(t, y)) * w;
    const size_t step = (size_t)t->P * w;
    if (in)
        for (int64_t j = a; j < b; j++, q += step, r += w) memcpy(q, r, w);
    else
        for (int64_t j = a; j < b; j++, q += step, r += w) memcpy(r, q, w);
}

#if defined(__x86_64__) && defined(__SSE2__)
/* Rows y and y + 1, words j in [a, b) (b - a even), 8-byte words: 2 x 2
   blocks transposed in registers, so the buffer moves 16 bytes at a time.
   Row y + 1's buffer column is row y's minus one: (y + 1, j), (y, j) are
   one 16-byte pair of buffer row j. */
INLINE void row_pairs8(const dtile *t, char *pl, char *buf, int64_t y, int64_t a, int64_t b, int in)
{
    double *r0 = (double *)(void *)pl + dt_row(t, y), *r1 = (double *)(void *)pl + dt_row(t, y + 1);
    double *q = (double *)(void *)buf + dt_col(t, y + 1);
    const int64_t P = t->P;
    for (int64_t j = a; j < b; j += 2) {
        double *q0 = q + j * P, *q1 = q0 + P;
        if (in) {
            __m128d u = _mm_loadu_pd(r0 + j), v = _mm_loadu_pd(r1 + j);
            _mm_storeu_pd(q0, _mm_unpacklo_pd(v, u));
            _mm_storeu_pd(q1, _mm_unpackhi_pd(v, u));
        } else {
            __m128d u = _mm_loadu_pd(q0), v = _mm_loadu_pd(q1);
            _mm_storeu_pd(r0 + j, _mm_unpackhi_pd(u, v));
            _mm_storeu_pd(r1 + j, _mm_unpacklo_pd(u, v));
        }
    }
}
#define HAVE_PAIRS8 1
#else
#define HAVE_PAIRS8 0
#endif

/* Rows [ya, yb) of a tile (ya - y0 even) to (in = 1) or from the buffer,
   two at a time where the words are 8 bytes and both rows cover a common
   range.  Reading rows, the rows PF ahead are fetched early. */
INLINE void tile_rows(const dtile *t, char *pl, char *buf, int in, const size_t w, int64_t ya, int64_t yb)
{
    for (int64_t y = ya; y < yb; y += 2) {
        const int two = y + 1 < yb;
        int64_t a0, b0, a1 = 0, b1 = 0;
        dt_range(t, y, &a0, &b0);
        if (two) dt_range(t, y + 1, &a1, &b1);
        if (in)
            for (int64_t k = 0; k < 2; k++) {
                int64_t yp = y + PF + k, pa, pb; /* in this tile or the next one down */
                if (yp >= t->ry) break;
                dt_range(t, yp, &pa, &pb);
                if (pa < pb) prefetch_run(pl + (size_t)(dt_row(t, yp) + pa) * w, (size_t)(pb - pa) * w);
            }
        int64_t ca = two && a1 > a0 ? a1 : a0, cb = two && b1 < b0 ? b1 : b0;
        if (!two || !HAVE_PAIRS8 || w != 8 || cb - ca < 2) ca = cb = a0; /* no common range: one row at a time */
        cb = ca + (cb - ca) / 2 * 2;
        if (a0 < b0) {
            row_words(t, pl, buf, y, a0, ca > a0 ? (ca < b0 ? ca : b0) : a0, in, w);
            row_words(t, pl, buf, y, cb > a0 ? cb : a0, b0, in, w);
        }
        if (two && a1 < b1) {
            row_words(t, pl, buf, y + 1, a1, ca > a1 ? (ca < b1 ? ca : b1) : a1, in, w);
            row_words(t, pl, buf, y + 1, cb > a1 ? cb : a1, b1, in, w);
        }
#if HAVE_PAIRS8
        if (cb > ca) row_pairs8(t, pl, buf, y, ca, cb, in);
#endif
    }
}

/* Lines [ja, jb) of a tile (y in [d - rx + 1, d], x = d - y) to (in = 1)
   or from the buffer, each segment one run; reading, the line PF ahead is
   fetched early. */
INLINE void tile_lines(const dtile *t, char *dg, char *buf, int in, const size_t w, int64_t ja, int64_t jb, int nt)
{
    const int64_t rx = t->rx, ry = t->ry, xlo = t->xlo, xhi = t->xhi;
    for (int64_t j = ja; j < jb; j++) { /* line d's points in the tile: x = d - y in [xlo, xhi) */
        const int64_t d = t->d0 + j, ya = d - xhi + 1 > t->y0 ? d - xhi + 1 : t->y0;
        const int64_t yb = d - xlo < t->y1 - 1 ? d - xlo : t->y1 - 1;
        if (in && j + PF < t->nl) {
            const int64_t e = d + PF, ea = e - xhi + 1 > t->y0 ? e - xhi + 1 : t->y0;
            const int64_t eb = e - xlo < t->y1 - 1 ? e - xlo : t->y1 - 1;
            if (ea <= eb) prefetch_run(dg + (size_t)fdx_diag_index(e - eb, eb, rx, ry) * w, (size_t)(eb - ea + 1) * w);
        }
        if (ya > yb) continue;
        char *q = dg + (size_t)fdx_diag_index(d - yb, yb, rx, ry) * w, *b = buf + (size_t)(j * t->P + dt_col(t, yb)) * w;
        const size_t n = (size_t)(yb - ya + 1) * w;
        if (in) memcpy(b, q, n);
        else put_run(q, b, n, nt);
    }
}

/* Undiagonalizing a rectangle, row y's segment from its buffer column
   (stride P words) to the plain row: whole 64-byte lines by movnti, so the
   written lines are never read first (the read for ownership that plain
   stores pay: a third of the traffic); the partial lines at the ends by
   plain stores.  Every row of a rectangle starts at the same x, so with
   line-aligned rows (Rx * w a multiple of 64; L is 1 KiB of words) no row
   has a partial line. */
INLINE void row_out_nt(const dtile *t, char *pl, const char *buf, int64_t y, const size_t w)
{
    int64_t a, b;
    dt_range(t, y, &a, &b);
    char *r = pl + (size_t)(dt_row(t, y) + a) * w;
    const char *q = buf + (size_t)(a * t->P + dt_col(t, y)) * w;
    const size_t step = (size_t)t->P * w;
    const int64_t n = b - a;
    int64_t head = n, body = 0; /* words before the first whole line, words in whole lines */
    if ((uintptr_t)r % w == 0 && n * (int64_t)w >= 128) {
        head = (int64_t)((-(uintptr_t)r & 63) / w);
        body = (n - head) * (int64_t)w / 64 * 64 / (int64_t)w;
    }
    int64_t i = 0;
    for (; i < head; i++, q += step) memcpy(r + (size_t)i * w, q, w);
    for (; i < head + body; i++, q += step) nt_store(r + (size_t)i * w, q, w);
    for (; i < n; i++, q += step) memcpy(r + (size_t)i * w, q, w);
}

/* One tile: its read side into the buffer, then its write side out of it.
   Diagonalize reads rows and writes lines, undiagonalize the other way
   round (rectangles: rows out by row_out_nt where it applies). */
INLINE void diag_tile(char *restrict dg, char *restrict pl, char *restrict buf, const dtile *t, int undiag,
                      int rect, const size_t w, int nt)
{
    if (undiag) {
        tile_lines(t, dg, buf, 1, w, 0, t->nl, nt);
        if (rect && nt && (w == 4 || w == 8))
            for (int64_t y = t->y0; y < t->y1; y++) row_out_nt(t, pl, buf, y, w);
        else
            tile_rows(t, pl, buf, 0, w, t->y0, t->y1);
    } else {
        tile_rows(t, pl, buf, 1, w, t->y0, t->y1);
        tile_lines(t, dg, buf, 0, w, 0, t->nl, nt);
    }
}

/* Tile k of row band o: sheared (lines [k L, k L + L) x rows [o H, o H + H))
   or, rect, the rectangle x in [k L, k L + L) x the same rows, whose lines
   are d0 = k L + o H onwards. */
INLINE dtile dt_make(const fdx_diag_plan *p, int64_t o, int64_t k, int64_t L, int64_t H, int rect)
{
    const int64_t rx = p->rx, ry = p->ry, y0 = o * H, y1 = y0 + H < ry ? y0 + H : ry;
    dtile t = {rx, ry, k * L, y0, y1, 0, H + DPAD, H, 0, rx, p->diag == FDX_DIAG_MAIN};
    if (rect) {
        t.xlo = k * L, t.xhi = t.xlo + L < rx ? t.xlo + L : rx;
        t.d0 = t.xlo + y0, t.nl = t.xhi - t.xlo + y1 - y0 - 1;
    } else {
        t.nl = t.d0 + L < rx + ry - 1 ? L : rx + ry - 1 - t.d0;
    }
    return t;
}

fdx_status fdx_layout_cpu_diag(void *dst, const void *src, const fdx_diag_plan *p)
{
    /* The written side's runs are long (H words along lines, L along rows:
       1 KiB), the read side's 64 words; a thread's buffer, L x (H + DPAD)
       words, about 70 KiB, stays in L2.  Measured on a 2-core AMD EPYC
       (one thread, 2026-11-22): 64 x 128 tiles 0.50 of copy diagonalizing,
       32 x 256 0.46, 32 x 128 0.42; reading the next tile while writing
       one (two buffers) or fetching it ahead did not help.  Undiagonalize
       takes rectangles L wide (its buffer L + H - 1 lines, the touched part
       as large): sheared tiles start each row's run on another x, so its
       lines are split between two tiles and written by plain stores; the
       rectangle's rows go out by movnti (FDX_LAYOUT_UNDIAG_SHEARED=1: the
       sheared tiles, for measurements). */
    const size_t w = (size_t)p->word, plane = (size_t)(p->rx * p->ry) * w;
    const int64_t lng = (int64_t)(1024 / w) > 64 ? (int64_t)(1024 / w) : 64, shrt = 64;
    const int64_t L = p->undiag ? lng : shrt, H = p->undiag ? shrt : lng;
    const int rect = p->undiag && !fdx_knob(FDX_KNOB_LAYOUT_UNDIAG_SHEARED);
    const int64_t td = rect ? (p->rx + L - 1) / L : (p->rx + p->ry - 1 + L - 1) / L, ty = (p->ry + H - 1) / H;
    const int64_t outer = p->undiag ? ty : td, inner = p->undiag ? td : ty;
    const int nt = HAVE_NT && !fdx_knob(FDX_KNOB_LAYOUT_NO_NT);
    char *dg = p->undiag ? (char *)src : dst, *pl = p->undiag ? dst : (char *)src;
    /* aligned_alloc wants a size that is a multiple of the alignment (glibc
       does not check; sanitizers and other C libraries return NULL). */
    const size_t bytes = ((size_t)((L + (rect ? H - 1 : 0)) * (H + DPAD)) * w + 63) & ~(size_t)63;
    fdx_status st = FDX_OK;
#pragma omp parallel
    {
        char *buf = aligned_alloc(64, bytes);
        if (!buf) {
#pragma omp atomic write
            st = FDX_ERR_NOMEM;
        }
        /* tiles along the written runs follow each other (their partial end lines stay cached) */
#pragma omp for collapse(2) schedule(static)
        for (int64_t z = 0; z < p->planes; z++)
            for (int64_t o = 0; o < outer; o++)
                for (int64_t k = 0; k < inner && buf; k++) {
                    const dtile t = dt_make(p, p->undiag ? o : k, p->undiag ? k : o, L, H, rect);
#define TILE(W) diag_tile(dg + (size_t)z * plane, pl + (size_t)z * plane, buf, &t, p->undiag, rect, W, nt)
                    BY_WORD(p->word, TILE);
#undef TILE
                }
        if (nt) nt_fence();
        free(buf);
    }
    return st == FDX_OK ? FDX_OK
                        : fdx_fail(st, "no memory for the diagonal transform's tile buffers (%zu bytes a thread)", bytes);
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
