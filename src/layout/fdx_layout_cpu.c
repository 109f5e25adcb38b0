/* fdx_layout_cpu: the transforms on the CPU: OpenMP over cache-sized tiles,
   words moved as opaque bytes (one body for every word size: each call site
   passes a constant size, so memcpy becomes a single load and store). */
#include "layout/fdx_layout_index.h"
#include "layout/fdx_layout_plan.h"

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

/* One TA x TB tile of R-word units: reads run along A (contiguous in src),
   writes along K (contiguous in dst); the tile fits in L1 so both sides hit.
   Strides are copied to locals: stores through char pointers may alias the
   plan, which would make the compiler reload it on every word. */
INLINE void move_tile(char *restrict dst, const char *restrict src, const fdx_perm_plan *p, int64_t a0, int64_t b0,
                      int64_t ta, int64_t tb, const size_t w)
{
    const int64_t sA = p->sA, sK = p->sK, dA = p->dA, dK = p->dK, R = p->R;
    if (R == 1) {
        for (int64_t a = a0; a < a0 + ta; a++)
            for (int64_t b = b0; b < b0 + tb; b++)
                memcpy(dst + (size_t)(a * dA + b * dK) * w, src + (size_t)(a * sA + b * sK) * w, w);
        return;
    }
    for (int64_t a = a0; a < a0 + ta; a++)
        for (int64_t b = b0; b < b0 + tb; b++)
            memcpy(dst + (size_t)(a * dA + b * dK) * w, src + (size_t)(a * sA + b * sK) * w, (size_t)R * w);
}

static void copy_tiled(char *dst, const char *src, const fdx_perm_plan *p)
{
    const int64_t ta = p->R >= CPU_TILE ? 1 : CPU_TILE / p->R, tb = CPU_TILE;
    const int64_t tiles_a = (p->nA + ta - 1) / ta, tiles_k = (p->nK + tb - 1) / tb;
    const int64_t tasks = tiles_a * tiles_k * (p->count / (p->R * p->nA * p->nK));
    const size_t w = (size_t)p->word;
#pragma omp parallel for schedule(static)
    for (int64_t t = 0; t < tasks; t++) {
        int64_t ia = t % tiles_a, ik = t / tiles_a % tiles_k, so, dof;
        batch_offsets(p, t / tiles_a / tiles_k, &so, &dof);
        int64_t a0 = ia * ta, b0 = ik * tb;
        int64_t na = p->nA - a0 < ta ? p->nA - a0 : ta, nk = p->nK - b0 < tb ? p->nK - b0 : tb;
#define TILE(W) move_tile(dst + (size_t)dof * w, src + (size_t)so * w, p, a0, b0, na, nk, W)
        BY_WORD(p->word, TILE);
#undef TILE
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

/* Diagonal arrangement: tiles of CPU_TILE lines by CPU_TILE points along x
   (parallelograms of the plain plane), so the plain rows a tile touches stay
   in cache while the diagonal side is written (or read) contiguously. */
INLINE void diag_tile(char *dg, char *pl, const fdx_diag_plan *p, int64_t x0, int64_t d0, const size_t w)
{
    const int64_t rx = p->rx, ry = p->ry, dend = d0 + CPU_TILE < rx + ry - 1 ? d0 + CPU_TILE : rx + ry - 1;
    for (int64_t d = d0; d < dend; d++) {
        int64_t xlo = d - (ry - 1) > x0 ? d - (ry - 1) : x0;
        int64_t xhi = x0 + CPU_TILE < rx ? x0 + CPU_TILE : rx;
        if (xhi > d + 1) xhi = d + 1;
        if (xlo >= xhi) continue;
        int64_t q = fdx_diag_index(xlo, d - xlo, rx, ry);
        for (int64_t x = xlo; x < xhi; x++, q++) {
            int64_t y = d - x, yp = p->diag == FDX_DIAG_MAIN ? ry - 1 - y : y;
            char *a = pl + (size_t)(x + rx * yp) * w, *b = dg + (size_t)q * w;
            if (p->undiag) memcpy(a, b, w);
            else memcpy(b, a, w);
        }
    }
}

fdx_status fdx_layout_cpu_diag(void *dst, const void *src, const fdx_diag_plan *p)
{
    const int64_t tx = (p->rx + CPU_TILE - 1) / CPU_TILE, td = (p->rx + p->ry - 1 + CPU_TILE - 1) / CPU_TILE;
    const size_t w = (size_t)p->word, plane = (size_t)(p->rx * p->ry) * w;
    char *dg = p->undiag ? (char *)src : dst, *pl = p->undiag ? dst : (char *)src;
#pragma omp parallel for collapse(3) schedule(static)
    for (int64_t z = 0; z < p->planes; z++)
        for (int64_t id = 0; id < td; id++)
            for (int64_t ix = 0; ix < tx; ix++) {
#define DTILE(W) diag_tile(dg + (size_t)z * plane, pl + (size_t)z * plane, p, ix * CPU_TILE, id * CPU_TILE, W)
                BY_WORD(p->word, DTILE);
#undef DTILE
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
