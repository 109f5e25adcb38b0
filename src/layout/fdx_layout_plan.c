/* fdx_layout_plan: the transform planner: merges axes that stay together,
   widens the moved word over kept rows, picks the kernel kind and tile. */
#include "core/fdx_knob.h"
#include "core/fdx_log.h"
#include "layout/fdx_layout_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

fdx_fastdiv fdx_fastdiv_make(uint32_t d)
{
    fdx_fastdiv f = {d, 0, 0};
    while (f.shift < 32 && ((uint64_t)1 << f.shift) < d) f.shift++;
    /* mul = floor(2^32 (2^shift - d) / d) + 1 fits in 32 bits for d >= 1. */
    f.mul = (uint32_t)((((uint64_t)1 << 32) * (((uint64_t)1 << f.shift) - d)) / d + 1);
    return f;
}

/* Words per tile: 2048 keeps 8 words per thread of a 256-thread block in
   flight and the padded buffer under 48 KB for 16-byte words. */
enum { TILE_WORDS = 2048, SRC_RUN_WORDS = 32, SHORT_ROW_BYTES = 128, WHOLE_AXIS_WORDS = 128 };
/* The largest tile FDX_LAYOUT_TILE may ask for (the CUDA tile kernel's limit). */
enum { MAX_TILE_WORDS = 4096 };

/* FDX_LAYOUT_KERNEL (measurements only): packed = packed tiles for every
   TILED plan, 2d = 2D tiles for every TILED plan. */
static int kernel_is(const char *name)
{
    return fdx_knob_is(FDX_KNOB_LAYOUT_KERNEL, name);
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Largest power of two <= 16 dividing both x and align. */
static int widest_word(uint64_t x, uint64_t align)
{
    int w = 16;
    while (w > 1 && (x % (uint64_t)w || align % (uint64_t)w)) w /= 2;
    return w;
}

/* Drops extent-1 axes and merges runs of src axes that are consecutive in
   both src and dst: afterwards no dst neighbours p, p+1 have s[p+1] = s[p]+1. */
static void merge_axes(int rank, const int64_t *shape, const int *perm, int *mrank, int64_t *n, int *s)
{
    int keep[FDX_MAX_RANK], newid[FDX_MAX_RANK], k = 0;
    for (int a = 0; a < rank; a++) newid[a] = shape[a] > 1 ? k++ : -1, keep[a] = shape[a] > 1;
    /* dst order over kept axes, in new src numbering */
    int dst[FDX_MAX_RANK], nd = 0;
    for (int p = 0; p < rank; p++)
        if (keep[perm[p]]) dst[nd++] = newid[perm[p]];
    int64_t ext[FDX_MAX_RANK];
    for (int a = 0, j = 0; a < rank; a++)
        if (keep[a]) ext[j++] = shape[a];
    /* group heads: a dst position starts a group unless it continues the previous src axis */
    int head[FDX_MAX_RANK]; /* for each src axis: 1 if it starts a group */
    for (int a = 0; a < nd; a++) head[a] = 1;
    for (int p = 1; p < nd; p++)
        if (dst[p] == dst[p - 1] + 1) head[dst[p]] = 0;
    int gid[FDX_MAX_RANK], g = 0;
    for (int a = 0; a < nd; a++) {
        if (head[a]) n[g++] = 1;
        gid[a] = g - 1;
        n[g - 1] *= ext[a];
    }
    int m = 0;
    for (int p = 0; p < nd; p++)
        if (head[dst[p]]) s[m++] = gid[dst[p]];
    *mrank = g;
}

static void strides(const fdx_perm_plan *p, int64_t *ss, int64_t *ds)
{
    int64_t acc = 1;
    for (int a = 0; a < p->rank; a++) ss[a] = acc, acc *= p->n[a];
    acc = 1;
    for (int q = 0; q < p->rank; q++) ds[p->s[q]] = acc, acc *= p->n[p->s[q]];
}

/* Words per TILED tile: TILE_WORDS, half that for arrays under
   SMALL_ARRAY_BYTES (more, smaller blocks where the whole array is one
   wave of tiles: H100, session 11, s11c, same calls, 8- and 16-byte words
   under 8 MiB, 1024 against 2048 words: median +3.4% for 16-byte (12 wins
   and 1 loss beyond 3% in 22 case-rounds), +1.9% for 8-byte (7 and 2 in
   17); larger arrays within noise either way), or FDX_LAYOUT_TILE_WORDS
   (measurements only; up to MAX_TILE_WORDS for words of 4 bytes or more,
   the kernel's cp.async path). */
enum { SMALL_ARRAY_BYTES = 8 << 20, SMALL_SKEW_BYTES = 64 << 20 };
static int64_t tile_words(const fdx_perm_plan *p)
{
    const int64_t def = p->count * p->word < SMALL_ARRAY_BYTES ? TILE_WORDS / 2 : TILE_WORDS;
    const int64_t v = fdx_knob_int(FDX_KNOB_LAYOUT_TILE_WORDS, 64, MAX_TILE_WORDS, def);
    return v <= (p->word >= 4 ? MAX_TILE_WORDS : TILE_WORDS) ? v : def;
}

/* The extent of tiles of at most t along an axis of n: equal tiles when
   there are at most 4, else t rounded down to 32 when above 32. */
static int64_t cut_even(int64_t n, int64_t t)
{
    if (t >= n || t < 1) return t;
    int64_t chunks = (n + t - 1) / t;
    if (chunks <= 4) return (n + chunks - 1) / chunks;
    return t > 32 ? t - t % 32 : t;
}

/* Tile extents: src runs of SRC_RUN_WORDS words, then as much of the dst
   axis as fills TILE_WORDS (the longer runs go to the writes: H100,
   2026-11-22, 32 x 64 tiles of 8-byte words measured 0.83-0.89 of copy on
   the odd-extent 2D transposes of the random suite where 64 x 32 measured
   0.72-0.79, and the same within 1% on the named ones); a short axis (AoS
   records of 5) is taken whole and the other grows to match. */
static void choose_tile(fdx_perm_plan *p)
{
    if (p->kind == FDX_PLAN_ROWS) {
        p->TA = (int)min64(p->nA, TILE_WORDS);
        p->TB = (int)min64(p->nK, TILE_WORDS / p->TA);
        return;
    }
    if (p->kind == FDX_PLAN_SQUARE) {
        p->TA = p->TB = 32;
        return;
    }
    const int64_t minrow = (SRC_RUN_WORDS + p->R - 1) / p->R, tw = tile_words(p);
    int64_t ta, tb;
    if (p->R * p->nK <= WHOLE_AXIS_WORDS) { /* whole dst rows: each tile writes one contiguous run */
        tb = p->nK;
        ta = min64(p->nA, tw / (p->R * tb));
    } else if (p->R * p->nA <= WHOLE_AXIS_WORDS / 2) { /* whole src rows, still >= 32-word writes */
        ta = p->nA;
        tb = min64(p->nK, tw / (p->R * ta));
    } else {
        ta = min64(p->nA, minrow);
        tb = min64(p->nK, tw / (p->R * ta));
    }
    /* an axis cut into a few tiles: equal ones (509 = 255 + 254, not
       384 + 125, which leaves two thirds of the second tile's threads idle);
       long partial rows otherwise end on 32-word boundaries: whole sectors */
    tb = cut_even(p->nK, tb);
    ta = cut_even(p->nA, ta);
    if (ta < 1) ta = 1;
    if (tb < 1) tb = 1;
    /* Small 8-byte 2D transposes whose dst rows start off the sectors
       (choose_skew skews them): 64 x 32 tiles, src runs of 512 bytes.  H100,
       same call each, against 32 x 64 (32 x 32 under 8 MiB): s11c (without
       walked tiles) rt1-050 5737 x 347 -4%, rt1-058 1018 x 1733 -4.5%, rt1-156
       4751 x 449 -3%; s12l (walked) rt1-026 3821 x 226 -5%, rt1-050 -9%,
       rt1-156 -4%, rt1-058 +1% (times, better of two rounds); aligned dst
       rows lost (rt1-187 +5% in s11c, +2.5% in s12l), so not those.  The
       suite's larger skewed ones (rt1-063, -089: 160-330 MiB) were not
       measured with it.  FDX_LAYOUT_TILE=32x64 (32x32 under 8 MiB) is the
       A/B. */
    if (p->word == 8 && p->R == 1 && p->dA % (32 / p->word) != 0 && p->nA >= 64 && p->nK > 32 &&
        p->count * p->word < SMALL_SKEW_BYTES && !fdx_knob_is(FDX_KNOB_LAYOUT_SKEW, "0"))
        ta = 64, tb = 32;
    /* FDX_LAYOUT_TILE=TAxTB overrides the choice for tiling experiments. */
    const char *env = fdx_knob(FDX_KNOB_LAYOUT_TILE);
    long ea, eb;
    char end;
    if (env && sscanf(env, "%ldx%ld%c", &ea, &eb, &end) == 2 && ea >= 1 && eb >= 1 && p->R * ea * eb <= MAX_TILE_WORDS) {
        ta = min64(p->nA, ea);
        tb = min64(p->nK, eb);
    } else if (env) {
        static int warned;
        if (!warned++)
            fdx_log(FDX_LOG_WARN, "FDX_LAYOUT_TILE=%s is not TAxTB with TA, TB >= 1 and at most %d words: ignored", env,
                    (int)MAX_TILE_WORDS);
    }
    p->TA = (int)ta;
    p->TB = (int)tb;
}

/* Contiguous run, in words, of a tile with extents te along src (dst = 0)
   or dst (dst = 1) order: the fastest axes taken whole, times the first one
   that is not; *frontier is that axis (-1: the tile holds every axis whole). */
static int64_t tile_run(const fdx_perm_plan *p, const int64_t *te, int dst, int *frontier)
{
    int64_t run = 1;
    *frontier = -1;
    for (int q = 0; q < p->rank; q++) {
        int a = dst ? p->s[q] : q;
        run *= te[a];
        if (te[a] < p->n[a]) {
            *frontier = a;
            break;
        }
    }
    return run;
}

/* Packed tile: doubles the frontier axis of the side whose run is shorter
   (dst on ties: partial-sector writes cost more than partial reads) while
   the tile stays within tile_words, then lets the cut axes fill the rest,
   in equal chunks when there are few, else ending on 32- (or 8-) word
   multiples.  A short fastest axis (runs of 5 or 7 words) is thus
   extended by the next axes of its side.  tw: the tile's words.  Returns 0
   when more than two axes would be cut (the kernel checks two). */
static int choose_packed(fdx_perm_plan *p, int64_t tw)
{
    int64_t words = 1;
    for (int a = 0; a < p->rank; a++) p->te[a] = 1;
    for (;;) {
        int fs, fd, grown = 0;
        int64_t rs = tile_run(p, p->te, 0, &fs), rd = tile_run(p, p->te, 1, &fd);
        const int order[2] = {rs < rd ? fs : fd, rs < rd ? fd : fs};
        for (int i = 0; i < 2 && !grown; i++) {
            int a = order[i];
            if (a < 0) continue;
            int64_t t = min64(p->n[a], p->te[a] * 2);
            if (words / p->te[a] * t <= tw) words = words / p->te[a] * t, p->te[a] = t, grown = 1;
        }
        if (!grown) break;
    }
    int nc = 0;
    p->cut[0] = p->cut[1] = -1;
    for (int a = 0; a < p->rank; a++) {
        if (p->te[a] <= 1 || p->te[a] >= p->n[a]) continue;
        int64_t rest = words / p->te[a], t = min64(p->n[a], tw / rest), chunks = (p->n[a] + t - 1) / t;
        if (chunks <= 4) t = (p->n[a] + chunks - 1) / chunks; /* few chunks: equal ones (13 = 7 + 6, not 12 + 1) */
        else t -= t >= 64 ? t % 32 : t >= 16 ? t % 8 : 0;
        if (t > p->te[a]) words = rest * t, p->te[a] = t;
        if (nc < 2) p->cut[nc] = a;
        nc++; /* only the two frontiers grow partly: never more than 2 */
    }
    return nc <= 2;
}

/* The 2D tile (R, TA, TB) as a tile over the merged axes: the unit axis
   whole, TA along A, TB along K; A and K are the cut axes. */
static void tile_2d(fdx_perm_plan *p, int A, int K)
{
    for (int a = 0; a < p->rank; a++) p->te[a] = 1;
    if (p->R > 1) p->te[0] = p->R;
    p->te[A] = p->TA;
    p->te[K] = p->TB;
    p->cut[0] = p->TA < p->nA ? A : -1;
    p->cut[1] = p->TB < p->nK ? K : -1;
    p->packed = 0;
}

/* Which tile the CUDA tile kernel moves.  H100, 2026-11-22 (round 2): the
   2D tile wins except where it writes runs shorter than a 128-byte line
   (random-03: 7-word runs, 0.46 -> 0.71 with the packed tile).  Session 7:
   also where the 2D tile holds under SMALL_TILE_WORDS because the axis
   after the fastest is short, kept rows included (random suite, H100,
   2026-11-23: rt1-090, 3 x 8 words a tile, 0.088; rt1-072, kept rows of 8
   words with K = 4, 0.357; rt1-136 0.316, rt1-071 0.256: tiles of 24-64
   words, thousands of blocks moving a few hundred bytes each; not yet
   measured with packed tiles).  FDX_LAYOUT_KERNEL=small2d keeps the 2D
   tile there (the A/B). */
enum { SMALL_TILE_WORDS = 256 };
static void choose_kernel_tile(fdx_perm_plan *p, int A, int K)
{
    const int rows = p->kind == FDX_PLAN_ROWS;
    int short_writes = !rows && p->R * p->TB * p->word < 128,
        small = p->R * p->TA * p->TB < SMALL_TILE_WORDS && !kernel_is("small2d");
    if ((!rows && kernel_is("packed")) || ((short_writes || small) && !kernel_is("2d"))) {
        fdx_perm_plan q = *p;
        if (choose_packed(&q, tile_words(&q))) {
            *p = q;
            p->packed = 1;
            return;
        }
    }
    tile_2d(p, A, K);
}

/* The word kernel's path on CUDA: walked tiles (each thread's slots
   stepped by adds; Walk in fdx_layout_cuda.cu) on 2D tiles, and the
   register path instead of cp.async for 16-byte words in 2D tiles of
   arrays from REGS_MIN_BYTES.  H100, session 12 (s12d), the suite's 55
   word-kernel 2D cases, same call, two rounds, time of the better round:
   walked tiles faster by > 3% on 9 (rt1-187 8-byte 761 x 2048 -16%,
   rt1-069 -15%, rt1-099 -13%, rt1-096, -173, -030 -9 to -11%), slower on 3
   (rt1-026 +6%, rt1-043 +4%, rt1-114 noisy), the large ones within 0.5%;
   the register path for 16-byte words faster on 14 of the 15 arrays of 16
   MiB up (rt1-186 -7%, rt1-133, -022, -109, -138 -5%, rt1-001 -2%: LibreTT
   won those by 1-5% in s11i), slower on rt1-113 (+2%) and on the small ones
   (rt1-011 +6%, rt1-043 +4%), and slower for 8-byte words (rt1-050, -058,
   -156 +11%, rt1-019 +15%).  The full suite (s12h, same call) confirmed the
   register rule (20 cases, median -2.7%, at most +1.8%); a walker over any
   number of tile axes (coordinate arrays and per-axis carry tables) ran
   2-4x slower than the division it replaced on the same 2D tiles and is
   gone.  FDX_LAYOUT_TILE_WALK=0 and FDX_LAYOUT_ASYNC (0 the register path,
   1 cp.async for every word size of 4 bytes up) are the A/Bs. */
enum { REGS_MIN_BYTES = 16 << 20 };
static void choose_word_path(fdx_perm_plan *p)
{
    const int word = !p->vec && !p->subword && (p->kind == FDX_PLAN_TILED || p->kind == FDX_PLAN_ROWS);
    const int two_d = word && !p->packed && p->R == 1;
    p->walk = word ? (int)fdx_knob_int(FDX_KNOB_LAYOUT_TILE_WALK, 0, 1, 1) : 0;
    const char *a = fdx_knob(FDX_KNOB_LAYOUT_ASYNC);
    p->regs = a && !strcmp(a, "0") ? 1
              : a && !strcmp(a, "1") ? 0
                                     : two_d && p->word == 16 && p->count * p->word >= REGS_MIN_BYTES &&
                                           (int64_t)p->TA * p->TB <= TILE_WORDS;
}

/* Sector-skewed rows for the 2D tile (CUDA, cp.async words of 4, 8, 16
   bytes) when the dst rows start off the 32-byte sectors: dst stride of A
   not a multiple of the sector's words, K cut into tiles of whole sectors,
   one word per unit.  Aligned transposes keep the plain tile.  H100 f64
   (2026-11-22): the random suite's off-sector 2D transposes 0.82-0.89 ->
   0.92-0.935 of copy.  FDX_LAYOUT_SKEW=0 turns it off (measurements only). */
static void choose_skew(fdx_perm_plan *p)
{
    const int sw = 32 / p->word;
    p->skew = 0;
    if (fdx_knob_is(FDX_KNOB_LAYOUT_SKEW, "0") || p->kind != FDX_PLAN_TILED || p->packed || p->R != 1 || p->word < 4)
        return;
    if (p->TB < p->nK && p->TB % sw == 0 && p->dA % sw != 0) p->skew = sw;
}

/* Sub-word tiles (CUDA; elements narrower than the access word, the fastest
   axis moved with R = 1, or kept rows): the tile kernel moves one element
   per access and pays its index math per element, so small elements were
   instruction-bound (H100, 2026-11-23, random suite, ratio to a same-size
   copy: 1-byte median 0.157, 2-byte 0.275, 4-byte 0.585 where 8-byte
   elements reach 0.82 and the large 8-byte 2D transposes 0.93-0.95).  The
   sub-word kernel reads and writes aligned words of AW bytes on both sides
   and exchanges the elements through a buffer.  Session 5 took 1- and
   2-byte elements with 4-byte words (1-byte median 0.383, 2-byte 0.481);
   session 7 widens the word to 8 bytes and takes 4-byte elements too (not
   yet measured: the A/B is FDX_LAYOUT_SUBWORD=4, the session-5 path, and
   =8 / =16 for every element narrower than that, 8-byte ones included;
   =0 is the word kernel everywhere).
   Tile: dst runs of 32 words (one warp-wide store a tile row; 128 bytes
   for AW = 4, as session 5) and src runs as long where the tile stays
   within SUBWORD_TILE_BYTES, the other side growing when one is short (A
   = 45: 45 x 352 bytes); arrays under SUBWORD_FILL_TILES such tiles get
   tiles down to SUBWORD_SMALL_TILE_BYTES.  Fastest axes under
   SUBWORD_2D_RUN_BYTES, or short kept rows (R > 1), take a packed tile
   over several axes (choose_packed with the same budget).  Runs under SUBWORD_MIN_RUN_BYTES on either side
   (4 x 157 bytes, 16 x 4) and tiles under SUBWORD_MIN_TILE_BYTES (both axes
   short: 9 x 7) stay on the word kernel's packed tiles: they need tiles
   over several axes.  Kept rows (ROWS plans) whose bytes leave the word
   narrower than AW (odd rows: rt1-111, 5387-byte rows, 0.158) take it too:
   row pieces of SUBWORD_ROW_BYTES, as many rows as fill the tile. */
enum {
    SUBWORD_RUN_WORDS = 32,
    SUBWORD_ROW_BYTES = 2048,
    SUBWORD_TILE_BYTES = 16384,
    SUBWORD_MIN_RUN_BYTES = 8,
    SUBWORD_MIN_TILE_BYTES = 1024,
    SUBWORD_2D_RUN_BYTES = 64,
    SUBWORD_SMALL_TILE_BYTES = 4096,
    SUBWORD_FILL_TILES = 4 * 132 /* tiles that keep an H100's 132 SMs busy (several a SM) */
};

/* The access word for `word`-byte elements: FDX_LAYOUT_SUBWORD=4|8|16 asks
   for that width wherever the element is narrower (=4: session 5's path,
   1- and 2-byte elements only), =0 for none; by default 8 bytes for
   elements of 1, 2 and 4 bytes. */
/* The access word for elements narrower than it: by default 16 bytes for
   words of 1, 2 and 4 bytes and none for wider ones (the H100's random
   suite, same call: 16-byte words raised the 1/2/4-byte medians from
   0.27/0.37/0.55 with 8-byte words to 0.30/0.46/0.64 and cost 8-byte
   elements 0.88 -> 0.70; bench/results/2026-11-24_*transform-space-s7b*).
   FDX_LAYOUT_SUBWORD=0|4|8|16 forces one for every narrower word. */
static int subword_bytes(int word)
{
    const int def = word <= 4 ? 16 : 0, aw = (int)fdx_knob_int(FDX_KNOB_LAYOUT_SUBWORD, 0, 16, def);
    if (aw != 0 && aw != 4 && aw != 8 && aw != 16) {
        static int warned;
        if (!warned++) fdx_log(FDX_LOG_WARN, "FDX_LAYOUT_SUBWORD=%d is not 0, 4, 8 or 16: ignored", aw);
        return def && word < def ? def : 0;
    }
    return word < aw ? aw : 0;
}

/* The sub-word kernel's gather path (16-byte words only): whole 16-byte
   slots into the buffer on the read side, aligned pieces at dst run ends
   (session 9; not yet measured: FDX_LAYOUT_GATHER=0 is the A/B, the
   element-by-element path of sessions 5-8). */
/* FDX_LAYOUT_GATHER=2: the write side through the offset table
   (gather_tab_fill in fdx_layout_cuda.cu, session 10); =3: the table and
   buffer rows of an odd number of 4-byte words instead of the XOR swizzle
   (no address math a byte for the swizzle); =4, the default: 1, 2 or 3 by
   the table's size and the two layouts' bank conflicts
   (fdx_layout_cuda_gather_layout; H100, session 10, same call, the 16
   gather cases: rt1-004 0.29 -> 0.59, rt1-149 0.30 -> 0.61, rt1-049 0.30
   -> 0.53, rt1-171 0.35 -> 0.60, rt1-100 0.58 -> 0.63, rt1-088 0.40 ->
   0.44, rt1-092 0.37 -> 0.41); =5: the table with rows of an odd number
   of 16-byte slots, read side one 16-byte store a slot (ncu, rt1-149 with
   =3: shared-memory bound, the read side's 4-byte stores 4-way in
   conflict; not yet measured). */
static int gather_path(int aw)
{
    return aw == 16 ? (int)fdx_knob_int(FDX_KNOB_LAYOUT_GATHER, 0, 5, 4) : 0;
}

static void take_gather(fdx_perm_plan *p, int aw)
{
    p->gather = gather_path(aw);
    if (p->gather == 4) p->gather = fdx_layout_cuda_gather_layout(p);
}

static int choose_subword(fdx_perm_plan *p, int A, int K)
{
    const int rows = p->kind == FDX_PLAN_ROWS, aw = subword_bytes(p->word);
    if (!aw || (!rows && p->kind != FDX_PLAN_TILED)) return 0;
    /* small arrays: smaller tiles, so that every SM gets a few (a 1 MiB
       array is 64 tiles of 16 KB); not with AW = 4, session 5's path */
    int64_t tile_bytes = SUBWORD_TILE_BYTES;
    while (aw != 4 && tile_bytes > SUBWORD_SMALL_TILE_BYTES && p->count * p->word / tile_bytes < SUBWORD_FILL_TILES)
        tile_bytes /= 2;
    const int64_t budget = tile_bytes / p->word;
    /* short fastest axes (or short kept rows, R > 1): a packed tile grown
       over the next axes of each side, so both runs are long (session 7;
       not with AW = 4, session 5's path) */
    if (p->R > 1 || p->nA * p->word < SUBWORD_2D_RUN_BYTES || (!rows && p->nK * p->word < SUBWORD_2D_RUN_BYTES)) {
        if (aw == 4) goto two_d;
        fdx_perm_plan q = *p;
        int fs, fd;
        if (!choose_packed(&q, budget) || tile_run(&q, q.te, 0, &fs) * q.word < SUBWORD_MIN_RUN_BYTES ||
            tile_run(&q, q.te, 1, &fd) * q.word < SUBWORD_MIN_RUN_BYTES)
            return 0;
        *p = q;
        p->packed = 1;
        p->skew = 0;
        p->subword = aw;
        take_gather(p, aw);
        return 1;
    }
two_d:
    if (p->R != 1) return 0;
    if (p->nA * p->word < SUBWORD_MIN_RUN_BYTES || (!rows && p->nK * p->word < SUBWORD_MIN_RUN_BYTES)) return 0;
    int64_t run_d = SUBWORD_RUN_WORDS * aw / p->word, run_s = run_d * run_d <= budget ? run_d : budget / run_d;
    if (run_s * p->word < SUBWORD_2D_RUN_BYTES && aw != 4) /* a small tile: runs of 64 bytes, if need be both */
        run_s = min64(SUBWORD_2D_RUN_BYTES / p->word, budget), run_d = budget / run_s;
    int64_t ta = min64(p->nA, run_s), tb = min64(p->nK, run_d);
    if (rows) ta = min64(p->nA, SUBWORD_ROW_BYTES / p->word), tb = min64(p->nK, budget / ta);
    else if (ta < run_s) tb = min64(p->nK, budget / ta);
    else if (tb < run_d) ta = min64(p->nA, budget / tb);
    if (ta * tb * p->word < SUBWORD_MIN_TILE_BYTES) return 0;
    p->TA = (int)cut_even(p->nA, ta);
    p->TB = (int)cut_even(p->nK, tb);
    tile_2d(p, A, K);
    p->skew = 0;
    p->subword = aw;
    take_gather(p, aw);
    return 1;
}

/* Vector tiles (CUDA, fdx_layout_cuda_vec.cuh): for 1-, 2- and 4-byte
   words with the fastest axis moved, every thread reads 16-byte words
   along src's contiguous side and writes 16-byte words along dst's, the
   elements rearranged in registers (byte permutes) and in a swizzled
   buffer of 16 KB (128 bytes of A by 128 elements of K).  The sub-word kernel moved its elements one
   at a time through the buffer: ~45 instructions a byte, 0.17-0.30 of a
   same-size copy for 1-byte elements (H100, session 8 profiles: rt1-155
   issue-bound with 2-way bank conflicts both ways and 7 of 32 bytes a
   stored sector).  The tile's two sides are flat indices over several
   merged axes: A = the first vga src axes (contiguous in src), K = the
   first vgk dst axes (contiguous in dst), disjoint; the rest are batch
   axes.  Rows need not be aligned (prime extents): the kernel realigns
   with funnel shifts and stores a row's partial end words in aligned
   pieces.  Choice of (vga, vgk): the sides' tile fill (extent over the
   128-byte tiles it takes) plus a bonus for rows on 16-byte multiples,
   fewer axes on ties; both sides at least VEC_MIN_SIDE_BYTES, else the
   sub-word or word kernel (H100, session 8, same call against session 7's
   plans: sides of 32-48 bytes won on rt1-055 0.40 -> 0.47, rt1-065 0.28 ->
   0.59, rt1-131 0.39 -> 0.60 and lost on rt1-081 0.71 -> 0.66, rt1-181 0.50
   -> 0.39; 16-byte sides lost: rt1-147 0.33 -> 0.20, rt1-171 0.26 -> 0.24).
   Block order: A tiles first (consecutive blocks read neighbouring src
   segments) measured 0.86 where K's dst rows are on 16 bytes and 0.58-0.68
   where not (s8a: 37 cases): a row segment off 16 bytes leaves partial
   sectors at both ends, completed by the neighbouring K tile, tiles_a
   blocks later (1519 for rt1-141): evicted half-written, a read-modify-write
   each.  So K tiles go first where dst rows are off 16 bytes (K's bytes or
   the buffers' alignment): the two halves of a sector are written by
   neighbouring blocks (not yet measured).
   A K side (dst-contiguous) under VEC_MIN_K_BYTES leaves most of the
   tile's 128 K rows empty: those plans take the sub-word gather tiles
   (H100, session 10, same call, the vector tile against the gather tiles:
   rt1-181, K = 44 bytes, 0.37 -> 0.61; rt1-065, K = 48 bytes, 0.57 ->
   0.66; short A sides showed no such rule: rt1-081, A = 44 bytes, won
   0.67 -> 0.79 and rt1-131, A = 45 bytes, lost 0.57 -> 0.37).
   FDX_LAYOUT_VEC=N[:MIN[:ROWMIN[:ORDER[:KMIN]]]]: the widest element it takes (0
   off, 1, 2, 4; default 4), the shortest side in bytes (default
   VEC_MIN_SIDE_BYTES), the shortest kept row the row copy takes (default
   VEC_MIN_ROW_BYTES; see choose_vec_rows), the block order (a: A tiles
   first, k: K tiles first, empty: by the rule above), the shortest K side
   in bytes (default VEC_MIN_K_BYTES; 32 = session 10's plans). */
enum { VEC_TILE_BYTES = 128, VEC_MIN_SIDE_BYTES = 32, VEC_MIN_ROW_BYTES = 128, VEC_MIN_K_BYTES = 64, VEC_AFIRST_TILES = 4 };
static int vec_knob(int *min_side, int *min_row, char *order, int *min_k)
{
    const char *e = fdx_knob(FDX_KNOB_LAYOUT_VEC), *c1 = e ? strchr(e, ':') : NULL, *c2 = c1 ? strchr(c1 + 1, ':') : NULL,
               *c3 = c2 ? strchr(c2 + 1, ':') : NULL;
    *min_side = (int)fdx_knob_int_field(FDX_KNOB_LAYOUT_VEC, 1, 1, 1 << 20, VEC_MIN_SIDE_BYTES);
    *min_row = (int)fdx_knob_int_field(FDX_KNOB_LAYOUT_VEC, 2, 1, 1 << 30, VEC_MIN_ROW_BYTES);
    *min_k = (int)fdx_knob_int_field(FDX_KNOB_LAYOUT_VEC, 4, 1, 1 << 20, VEC_MIN_K_BYTES);
    const size_t olen = c3 ? strcspn(c3 + 1, ":") : 0;
    *order = olen == 1 && (c3[1] == 'a' || c3[1] == 'k') ? c3[1] : 0;
    if (olen && !*order) {
        static int warned;
        if (!warned++) fdx_log(FDX_LOG_WARN, "FDX_LAYOUT_VEC=%s: field 4 is not a or k: ignored", e);
    }
    return (int)fdx_knob_int_field(FDX_KNOB_LAYOUT_VEC, 0, 0, 16, 4);
}

static double vec_fill(int64_t bytes, int64_t tile)
{
    int64_t tiles = (bytes + tile - 1) / tile;
    return (double)bytes / (double)(tiles * tile) + (bytes % 16 == 0 ? 0.25 : 0.0);
}

static int vec_take(fdx_perm_plan *p, int vga, int vgk);

/* Kept rows whose bytes leave the word under 16 bytes (odd rows, or src
   and dst at different residues mod 16), rows of VEC_MIN_ROW_BYTES or more,
   as a batched row copy with 16-byte accesses (vec_rows_kernel).  H100,
   session 8, same call: rt1-111 (5387-byte rows) 0.35 -> 0.96, rt1-079
   (7498) 0.55 -> 0.95, rt1-068 (4856) 0.90 -> 0.93, rt1-028 (1112) 1.08 ->
   1.19; rows of 168-524 bytes lost (0.59-0.68 -> 0.09-0.32) when each row
   took a whole block (256 threads for 11-33 words).  Rows share blocks
   since; with that, rows of 128 bytes up won against the word and gather
   tiles in two calls (s8b, s9c: FDX_LAYOUT_VEC=4:32:128 on rt1-016, 344
   bytes, 0.67/0.72 -> 0.87; rt1-039, 168, 0.68 -> 0.74/0.75; rt1-056,
   212, 0.65/0.62 -> 0.77/0.76; rt1-064, 524, 0.59 -> 0.65), so the
   shortest row is 128 bytes since session 11 (those four are the suite's
   only plans it changes); FDX_LAYOUT_VEC=4:32:1024 is the rule before. */
static int choose_vec_rows(fdx_perm_plan *p)
{
    int min_side, min_row, min_k;
    char order;
    const int max_word = vec_knob(&min_side, &min_row, &order, &min_k);
    if (p->kind != FDX_PLAN_ROWS || p->word >= 16 || max_word <= 0) return 0;
    int64_t len = p->n[0] * p->word, rows = p->count / p->n[0];
    if (len < min_row) return 0;
    if (rows >= ((int64_t)1 << 31) || rows * ((len / 16 + 2 + 255) / 256) >= ((int64_t)1 << 31)) return 0; /* kernel limits */
    /* FDX_LAYOUT_VEC_ROWS=W (session 13): W dst words a thread over the
       rows' words numbered flat (vec_rows_flat in fdx_layout_cuda_vec.cuh:
       no idle threads in a row's power of two, W words in flight a
       thread); 0, the default: session 8's layout.  H100, s13c, same call,
       two rounds: rt1-064 (524-byte rows, 34 words on 64 threads) 0.647
       with W = 1, 4 and 8 alike, rt1-039 0.75 -> 0.71 / 0.77 / 0.73,
       rt1-016 (344) 1.01 -> 1.02 / 0.92 / 0.77, rt1-111 / -079 -3% with
       W = 8: not adopted. */
    int w = (int)fdx_knob_int(FDX_KNOB_LAYOUT_VEC_ROWS, 0, 8, 0);
    if (w != 0 && w != 1 && w != 2 && w != 4 && w != 8) {
        static int warned;
        if (!warned++) fdx_log(FDX_LOG_WARN, "FDX_LAYOUT_VEC_ROWS=%d is not 0, 1, 2, 4 or 8: ignored", w);
        w = 0;
    }
    if (w && rows * (len / 16 + 2) + 256 * w >= ((int64_t)1 << 31)) w = 0; /* flat word numbers in 31 bits */
    vec_take(p, 1, 1);
    p->vrows = w;
    /* Rows in dst order (FDX_LAYOUT_VEC_ROWS_DST=1, the default since
       session 13; 0: src order).  rt1-064 (524-byte rows, dst neighbours
       394 x 29 x 16 rows apart in src order) stayed at 0.65 of a copy with
       every flat layout (s13c: W = 1, 4, 8), so idle threads and bytes in
       flight were not its limit: its dst rows meet inside 32-byte sectors
       that blocks far apart in time complete.  H100, s13d, same call, two
       rounds: rt1-064 0.65 -> 0.78, rt1-039 0.75 -> 0.86-0.87, rt1-079 /
       -111 +2-3%, rt1-016 (13 MiB) 1.18 -> 1.08 in one round, even in the
       other. */
    p->vrdst = (int)fdx_knob_int(FDX_KNOB_LAYOUT_VEC_ROWS_DST, 0, 1, 1);
    return 1;
}

/* FDX_LAYOUT_VEC_FILL >= 1 (session 13; the default is 3, 0 = session 9's
   score): the sides scored by the tiles they really take.  A skewed tile row holds K [k0 - s,
   k0 + 128 - s), so a K side of nk elements off 16 bytes takes
   ceil((nk + P - 1) / 128) tiles, P = 16 / word: rt1-122 (1-byte 409 x
   4751 x 254, reversed) scored A = 409 x 4751 by K = 254 as the best pair
   (0.99 of its K tiles filled) while its skewed K takes three tiles for
   254 elements (0.66), against A = 409 (0.80) by K = 254 x 4751 (1.0).
   FILL >= 2 also scores tiles of two A groups (M = 2: 64 bytes of A by 256
   K elements; VecTile) for A sides under 64 bytes.  H100, s13c, same call,
   two rounds, against session 9's score: rt1-131 (A = 45 bytes) 0.58 ->
   0.73, rt1-081 (44) 0.65 -> 0.84, rt1-055 (32) 0.49 -> 0.64; an A side of
   exactly 64 bytes (rt1-199, against A = 192 bytes in two tiles) lost
   0.81 -> 0.76, hence under 64.  rt1-122 regrouped but K tiles first
   (FILL=1) 0.58 -> 0.56: its gain (0.68) needs A tiles first (below).
   tk_elems: K elements a tile (128 M). */
static double vec_fill_k(int64_t nk, int word, int64_t tk_elems, int skewed)
{
    const int64_t pad = skewed ? 16 / word - 1 : 0, tiles = (nk + pad + tk_elems - 1) / tk_elems;
    return (double)nk / (double)(tiles * tk_elems) + ((nk * word) % 16 == 0 ? 0.25 : 0.0);
}

static int choose_vec(fdx_perm_plan *p, size_t align)
{
    int min_side, min_row, min_k;
    char order;
    const int max_word = vec_knob(&min_side, &min_row, &order, &min_k);
    if (p->kind != FDX_PLAN_TILED || p->R != 1 || p->word > 4 || p->word > max_word || p->s[0] == 0) return 0;
    const int fill = (int)fdx_knob_int(FDX_KNOB_LAYOUT_VEC_FILL, 0, 3, 3),
              skew_on = (int)fdx_knob_int(FDX_KNOB_LAYOUT_VEC_SKEW, 0, 1, 1);
    double best = -1;
    int bga = 0, bgk = 0, bm = 1;
    for (int ga = 1; ga < p->rank; ga++)
        for (int gk = 1; gk < p->rank; gk++)
            for (int m = 1; m <= (fill >= 2 ? 2 : 1); m++) {
                int64_t na = 1, nk = 1, clash = 0;
                for (int a = 0; a < ga; a++) na *= p->n[a];
                for (int q = 0; q < gk; q++) nk *= p->n[p->s[q]], clash |= p->s[q] < ga;
                if (clash || na >= ((int64_t)1 << 31) || nk >= ((int64_t)1 << 31)) continue;
                if (na * p->word < min_side || nk * p->word < min_side || nk * p->word < min_k) continue;
                if (m > 1 && na * p->word >= VEC_TILE_BYTES / m) continue; /* two groups: A sides under 64 bytes */
                const int64_t ta = VEC_TILE_BYTES / p->word / m, tk = VEC_TILE_BYTES * m; /* elements */
                if ((na + ta - 1) / ta * ((nk + tk - 1) / tk) * (p->count / na / nk) >= ((int64_t)1 << 31)) continue;
                const int skewed = skew_on && ((nk * p->word) % 16 != 0 || align < 16);
                double score = fill ? vec_fill(na * p->word, VEC_TILE_BYTES / m) + vec_fill_k(nk, p->word, tk, skewed)
                                    : vec_fill(na * p->word, VEC_TILE_BYTES) + vec_fill(nk * p->word, tk * p->word);
                score -= 0.001 * (ga + gk) + 0.01 * (m - 1); /* ties: fewer axes, one group */
                if (score > best) best = score, bga = ga, bgk = gk, bm = m;
            }
    if (best < 0) return 0;
    int64_t nk = 1, na = 1;
    for (int q = 0; q < bgk; q++) nk *= p->n[p->s[q]];
    for (int a = 0; a < bga; a++) na *= p->n[a];
    const int off16 = (nk * p->word) % 16 != 0 || align < 16; /* dst rows (may) start off 16 bytes */
    /* FDX_LAYOUT_VEC_FILL=3: A tiles first where the A side takes at most
       VEC_AFIRST_TILES tiles: a K tile's neighbour (the other half of its
       boundary sectors) is then at most 4 blocks later too, and the A
       tiles of one src row run back to back (their shared sectors in L2).
       H100, s13c, same call against K first: rt1-177 (A = 308 bytes, 3
       tiles) 0.64 -> 0.73, rt1-122 (regrouped: A = 409 bytes, 4 tiles)
       0.58 -> 0.68; with 8 tiles rt1-002 (1024 bytes) lost 0.90 -> 0.86. */
    const int64_t tiles_a = (na * p->word + VEC_TILE_BYTES / bm - 1) / (VEC_TILE_BYTES / bm);
    p->vkfast = order ? order == 'k' : off16 && !(fill >= 3 && tiles_a <= VEC_AFIRST_TILES);
    /* skewed rows (fdx_layout_cuda_vec.cuh, VEC_PRE) where dst rows are off
       16 bytes (H100, session 9, same call, ratio to a same-size copy:
       rt1-008 0.61 -> 0.82, rt1-141 0.59 -> 0.81, rt1-177 0.51 -> 0.64,
       rt1-052 0.59 -> 0.69, rt1-122 0.49 -> 0.57; the other worst cases
       within noise); FDX_LAYOUT_VEC_SKEW=0: the plain tile (the A/B) */
    const int skew = off16 && skew_on;
    vec_take(p, bga, bgk);
    p->vskew = skew;
    p->vgroups = bm;
    return 1;
}

/* The interleave kernel (CUDA, fdx_layout_cuda_ilv.cuh): dst's fastest
   axis K short (K elements of at most ILV_MAX_BYTES = 8 bytes in all),
   src's contiguous axis next in dst: dst[k + K i] = src_k[i].  The gather
   tiles moved such plans at 0.52-0.65 of a same-size copy (H100, s13a:
   rt1-049 1-byte K = 3 315 MiB 0.52, rt1-149 0.65; session 10's ncu of
   rt1-149: shared-memory bound); the interleave has no buffer.
   H100, s13c, same call, two rounds: rt1-049 (1-byte, K = 3, rows of
   75151 bytes, 315 MiB) 0.52 -> 0.78; rt1-149 (K = 3, rows of 32768, 48
   MiB) 0.65 -> 0.66.  The default since; FDX_LAYOUT_ILV=0 the A/B (and
   FDX_LAYOUT_VEC=0 turns it off with the vector tiles). */
static int choose_ilv(fdx_perm_plan *p)
{
    int min_side, min_row, min_k;
    char order;
    if (!fdx_knob_int(FDX_KNOB_LAYOUT_ILV, 0, 1, 1) || vec_knob(&min_side, &min_row, &order, &min_k) < p->word) return 0;
    if (p->kind != FDX_PLAN_TILED || p->R != 1 || p->rank < 2 || p->s[1] != 0 || p->s[0] == 0) return 0;
    const int64_t K = p->n[p->s[0]];
    if (p->word > 4 || K < 2 || K * p->word > 8 || p->n[0] >= ((int64_t)1 << 31)) return 0;
    const int64_t cpl = (K * p->n[0] * p->word + 15 + 16 * K - 1) / (16 * K), lines = p->count / (K * p->n[0]);
    if (cpl * lines + 256 >= ((int64_t)1 << 31)) return 0;
    vec_take(p, 1, 1);
    p->vilv = (int)K;
    return 1;
}

/* The narrow-K register transpose (CUDA, fdx_layout_cuda_nk.cuh): dst's
   fastest axis K one 4- or 8-byte word (4 or 8 x 1-byte, 2 or 4 x 2-byte
   elements), dst's next axis B not src's axis 0 (else the interleave),
   both buffers aligned to the word (rt1-065: 1-byte K = 8, 0.64 on the
   gather tiles in s13a).
   rt1-171 (1-byte, K = 4, B = 172 at src stride 16, A = 16, 671 MiB) took
   the gather tiles at 0.59 of a same-size copy; with the narrow-K
   transpose 0.79-0.80 (H100, s13d, same call, two rounds; the suite's
   only plan with a 4-byte K word).  FDX_LAYOUT_NK=1 (the default): 4-byte
   words; 2: also 8-byte words (rt1-065, -066, -158; not measured); 0:
   the vector or gather tiles. */
static int choose_nk(fdx_perm_plan *p, size_t align)
{
    int min_side, min_row, min_k;
    char order;
    const int nk = (int)fdx_knob_int(FDX_KNOB_LAYOUT_NK, 0, 2, 1);
    if (!nk || vec_knob(&min_side, &min_row, &order, &min_k) < p->word) return 0;
    if (p->kind != FDX_PLAN_TILED || p->R != 1 || p->rank < 3 || p->s[0] == 0 || p->s[1] == 0 || align < 4) return 0;
    const int64_t K = p->n[p->s[0]];
    if (p->word > 2 || (K * p->word != 4 && (nk < 2 || K * p->word != 8)) || align < (size_t)(K * p->word) ||
        p->n[0] >= ((int64_t)1 << 31))
        return 0;
    const int64_t chunks = (p->n[0] * p->word + 15) / 16, lines = p->count / (K * p->n[0] * p->n[p->s[1]]);
    if (lines * chunks * p->n[p->s[1]] + 256 >= ((int64_t)1 << 31)) return 0;
    vec_take(p, 1, 1);
    p->vnk = (int)K;
    return 1;
}

/* The unit gather (CUDA, fdx_layout_cuda_ug.cuh): short kept rows
   (units of R elements, R word <= 8 bytes) moved as units: a thread reads
   16 units of one src row as 16-byte words and stores each unit's
   elements at their dst places; consecutive threads take consecutive K.
   rt1-088 (2-byte units of 3, 916 MiB) took the gather tiles at 0.43 of a
   same-size copy (H100, s13a), instruction-bound (s13c ncu: issue slots
   75%, DRAM 39%).  Default since session 13's s13f A/B (same call, two
   rounds, against the gather tiles): rt1-088 0.44 -> 0.58, rt1-004 0.59 ->
   0.66 of a same-size copy; FDX_LAYOUT_UG=0 the gather tiles. */
static int choose_ug(fdx_perm_plan *p)
{
    int min_side, min_row, min_k;
    char order;
    if (!fdx_knob_int(FDX_KNOB_LAYOUT_UG, 0, 1, 1) || vec_knob(&min_side, &min_row, &order, &min_k) < p->word) return 0;
    if (p->kind != FDX_PLAN_TILED || p->R <= 1 || p->rank < 3 || p->s[0] != 0 || p->s[1] <= 1 || p->word > 4) return 0;
    if (p->R * p->word > 8 || p->n[1] >= ((int64_t)1 << 31)) return 0;
    const int64_t total = p->count / (p->R * p->n[1]) * ((p->n[1] + 15) / 16);
    if (total + 256 >= ((int64_t)1 << 31)) return 0;
    vec_take(p, 1, 1);
    p->vug = (int)p->R;
    return 1;
}

static int vec_take(fdx_perm_plan *p, int vga, int vgk)
{
    p->vec = 1;
    p->vskew = 0;
    p->vgroups = 1;
    p->vrows = 0;
    p->vilv = 0;
    p->vnk = 0;
    p->vrdst = 0;
    p->vug = 0;
    p->vga = vga;
    p->vgk = vgk;
    p->subword = 0;
    p->packed = 0;
    p->skew = 0;
    return 1;
}

/* Direct transposes (plan->direct; fdx_layout_cuda_direct.cuh): each warp
   load instruction reads the src words of 32 dst words, lane l taking dst
   word (g + l) * P + j.  direct_lines estimates what such an instruction
   costs the SM: the distinct 128-byte src lines it touches (each is one L1
   pass), averaged over the instructions of DIRECT_SAMPLE_WARPS warps spread
   over the array (src taken 128-byte aligned). */
enum { DIRECT_SAMPLE_WARPS = 16 };
static double direct_lines(const fdx_perm_plan *p, int P)
{
    int64_t lines = 0, instr = 0, m[FDX_MAX_RANK], st[FDX_MAX_RANK];
    const int64_t groups = p->count / P;
    for (int q = 0; q < p->rank; q++) m[q] = p->n[p->s[q]], st[q] = p->ss[p->s[q]];
    for (int w = 0; w < DIRECT_SAMPLE_WARPS; w++) {
        const int64_t g0 = groups / 32 * w / DIRECT_SAMPLE_WARPS * 32;
        for (int j = 0; j < P; j++) {
            /* lane 0's dst coordinates by division, the next lanes' P words on by carries (host time: the
               planner runs this for most small arrays; divisions for every lane took ~5 us a plan) */
            int64_t c[FDX_MAX_RANK], i = g0 * P + j, off = 0, set[64]; /* the distinct lines: a hash set */
            if (i >= p->count) continue;
            for (int q = 0; q < p->rank; q++) c[q] = i % m[q], off += c[q] * st[q], i /= m[q];
            int ns = 0;
            for (int k = 0; k < 64; k++) set[k] = -1;
            for (int l = 0; l < 32 && (g0 + l) * P + j < p->count; l++) {
                const int64_t line = off * p->word / 128;
                int k = (int)(((uint64_t)line * 0x9E3779B97F4A7C15ull) >> 58);
                while (set[k] >= 0 && set[k] != line) k = (k + 1) & 63;
                if (set[k] < 0) set[k] = line, ns++;
                for (int step = 0; step < P; step++) /* P words on, carrying into the slower axes */
                    for (int q = 0; q < p->rank; q++) {
                        off += st[q];
                        if (++c[q] < m[q]) break;
                        off -= c[q] * st[q], c[q] = 0;
                    }
            }
            lines += ns, instr++;
        }
    }
    return instr ? (double)lines / (double)instr : 0.0;
}

/* The stepped kernel's axis: the dst position of src axis 0 (0: src axis 0
   stays first, no stepped kernel). */
static int direct_step_axis(const fdx_perm_plan *p)
{
    int q = 1;
    while (q < p->rank && p->s[q] != 0) q++;
    return q < p->rank ? q : 0;
}

/* The same count for the plain stepped kernel (one word a store, no warp
   tiles): lane j of a warp takes thread j's dst coordinates, axis q (the
   stepped one) in steps of 4; load k reads index 4 c_q + k of it. */
static double direct_step_lines(const fdx_perm_plan *p, int q)
{
    int64_t lines = 0, instr = 0, m[FDX_MAX_RANK], st[FDX_MAX_RANK], e[FDX_MAX_RANK], T = 1;
    for (int a = 0; a < p->rank; a++) {
        m[a] = p->n[p->s[a]], st[a] = p->ss[p->s[a]];
        e[a] = a == q ? (m[a] + 3) / 4 : m[a];
        T *= e[a];
    }
    for (int w = 0; w < DIRECT_SAMPLE_WARPS; w++) {
        const int64_t j0 = T / 32 * w / DIRECT_SAMPLE_WARPS * 32;
        for (int k = 0; k < 4; k++) {
            int64_t c[FDX_MAX_RANK], j = j0, set[64];
            int ns = 0;
            for (int a = 0; a < p->rank; a++) c[a] = j % e[a], j /= e[a];
            for (int x = 0; x < 64; x++) set[x] = -1;
            for (int l = 0; l < 32 && j0 + l < T; l++) {
                if (c[q] * 4 + k < m[q]) {
                    int64_t off = k * st[q];
                    for (int a = 0; a < p->rank; a++) off += c[a] * (a == q ? 4 : 1) * st[a];
                    const int64_t line = off * p->word / 128;
                    int h = (int)(((uint64_t)line * 0x9E3779B97F4A7C15ull) >> 58);
                    while (set[h] >= 0 && set[h] != line) h = (h + 1) & 63;
                    if (set[h] < 0) set[h] = line, ns++;
                }
                for (int a = 0; a < p->rank; a++) /* the next thread */
                    if (++c[a] < e[a]) break;
                    else c[a] = 0;
            }
            lines += ns, instr += ns > 0;
        }
    }
    return instr ? (double)lines / (double)instr : 0.0;
}

/* FDX_LAYOUT_DIRECT=MODE[:P[:LINES[:MIB[:LB]]]]: the direct kernels
   (fdx_layout_cuda_direct.cuh).  MODE 0 off; 1 the flat kernel on every plan
   it takes; 3 the stepped kernel on every plan whose src axis 0 moves (and
   whose dst axis 0 splits into groups of P; LB > 0: warp tiles with LB lanes
   along the stepped axis); 2 (the default) the rule below; 4 the rule's flat
   part alone.  P the dst words a store moves (1, 2, 4; default 1).
   The rule (H100, s13b / s13c, same calls, times of the better of two
   rounds against the default plans; 48 cases under 54 MiB):
   - arrays under MIB MiB (default DIRECT_MAX_MIB): nothing above was tried;
   - the flat kernel where warp loads touch at most LINES 128-byte src
     lines on average (direct_lines; default DIRECT_MAX_LINES): every such
     case won or tied (rt1-120 19.1 -> 9.8 us, rt1-168 15.4 -> 9.8, rt1-033
     42.6 -> 24.5, rt1-081 34.4 -> 29.3, rt1-105 36.3 -> 27.5, rt1-007 47.4
     -> 34.1, rt1-056 56.9 -> 45.5) except on 1-byte words from 27 MiB
     (rt1-004 48.6 -> 63.9, rt1-149 63.0 -> 77.1: a word per load and store)
     and 16-byte words at 42.8 MiB (rt1-172 37.7 -> 41.9), hence 1-2 byte
     words under DIRECT_NARROW_MIB, 16-byte under DIRECT_WIDE_MIB.  Above
     16 lines it lost (rt1-187 12.0 -> 19.2; rt1-110, 1-byte 2D of 3.9 MiB,
     10.7 -> 37.0; rt1-070, -055, -067, -127, -140, -010 2-5x slower);
   - the stepped kernel for 8-byte words above LINES (where src axis 0
     moves): in 8 x 4 warp tiles (LB = 4) where dst axis 0 has 8 words or
     more (s13c: rt1-187 13.2 -> 11.8, rt1-058 17.1 -> 14.9, rt1-050 19.0
     -> 17.3, rt1-026 13.3 -> 11.5: the small 8-byte 2D transposes where
     LibreTT led), plain (LB = 0) where it is shorter (rt1-174, 3 words:
     43.5 -> 34.2, where the 8 x 4 tiles took 60.4).  The 8 x 4 tiles only
     under DIRECT_TILE_MIB (s13d, every case under 64 MiB, rule against
     FDX_LAYOUT_DIRECT=0: they won to 16.3 MiB, rt1-187 +6%, -058 +8%, -069
     +11%, -156 +2%, and lost from 24 MiB: rt1-099 24 MiB -4%, -114 and
     -150 -1%, -083 -6%, -031 -19%, rt1-030 54 MiB -35%); plain ones won at
     any size measured (rt1-174 25.8 MiB +25%, rt1-091 +27%).  The stepped kernel
     lost on most 1-, 2- and 4-byte cases above 16 lines (rt1-110, -127,
     -070, -055, -067, -140, -010), all of them 32 lines for it too
     (direct_step_lines); it won or tied wherever its own count was at most
     16 lines (rt1-147 1-byte 51 MiB, 5 lines: 136 -> 80; rt1-081 11: 36 ->
     25; rt1-033 16: 45 -> 26; rt1-007 3: 48 -> 35; rt1-173 17: 12.7 ->
     11.3; rt1-149 1-byte 48 MiB, 3: 63.8 -> 64.1), so the plain stepped
     kernel also takes the other plans the flat part leaves where its count
     is at most LINES (in the suite: rt1-147, rt1-149). */
enum { DIRECT_MAX_MIB = 64, DIRECT_MAX_LINES = 16, DIRECT_NARROW_MIB = 16, DIRECT_WIDE_MIB = 32, DIRECT_TILE_E0 = 8,
       DIRECT_TILE_MIB = 20 };
static void choose_direct(fdx_perm_plan *p, size_t align)
{
    const int mode = (int)fdx_knob_int_field(FDX_KNOB_LAYOUT_DIRECT, 0, 0, 4, 2);
    const int P = (int)fdx_knob_int_field(FDX_KNOB_LAYOUT_DIRECT, 1, 1, 4, 1);
    int lb = (int)fdx_knob_int_field(FDX_KNOB_LAYOUT_DIRECT, 4, 0, 32, 0);
    if (mode == 0 || (P & (P - 1)) != 0 || (lb & (lb - 1)) != 0 || (p->kind != FDX_PLAN_TILED && p->kind != FDX_PLAN_ROWS))
        return;
    if (p->count >= ((int64_t)1 << 31) || P * p->word > 16 || align % (size_t)(P * p->word) != 0) return;
    int step = mode == 3;
    if (mode == 2 || mode == 4) {
        const int max_lines = (int)fdx_knob_int_field(FDX_KNOB_LAYOUT_DIRECT, 2, 1, 32, DIRECT_MAX_LINES);
        const int64_t max_mib = fdx_knob_int_field(FDX_KNOB_LAYOUT_DIRECT, 3, 1, 1 << 20, DIRECT_MAX_MIB);
        const int64_t bytes = p->count * p->word;
        if (bytes >= (max_mib << 20)) return;
        const int sized = !(p->word <= 2 && bytes >= ((int64_t)DIRECT_NARROW_MIB << 20)) &&
                          !(p->word == 16 && bytes >= ((int64_t)DIRECT_WIDE_MIB << 20));
        if (!sized || direct_lines(p, P) > max_lines) {
            const int q = direct_step_axis(p);
            if (mode != 2 || !q || P != 1) return;
            step = 1;
            if (sized && p->word == 8 && p->n[p->s[0]] < DIRECT_TILE_E0) lb = 0;
            else if (sized && p->word == 8 && bytes < ((int64_t)DIRECT_TILE_MIB << 20)) lb = 4;
            else if (direct_step_lines(p, q) <= max_lines) lb = 0;
            else return;
        }
    }
    if (step) { /* src axis 0 moves, dst axis 0 splits into groups of P */
        const int q = direct_step_axis(p);
        if (!q || p->n[p->s[0]] % P != 0) return;
        p->dstep = q;
        p->dlanes = lb;
    }
    p->direct = P;
}

int fdx_perm_plan_square(fdx_perm_plan *p)
{
    int square = p->rank >= 2 && p->s[0] == 1 && p->s[1] == 0 && p->n[0] == p->n[1] &&
                 (p->rank == 2 || (p->rank == 3 && p->s[2] == 2));
    if (square) p->kind = FDX_PLAN_SQUARE;
    return square;
}

fdx_status fdx_perm_plan_make(size_t elem, int rank, const int64_t *shape, const int *perm, size_t align,
                              int in_place, fdx_perm_plan *p)
{
    memset(p, 0, sizeof *p);
    int64_t count = 1;
    for (int a = 0; a < rank; a++) count *= shape[a];
    merge_axes(rank, shape, perm, &p->rank, p->n, p->s);
    p->word = (int)elem;
    /* Widen the word over kept rows: the bytes of a kept fastest axis move
       together, so move them 16 at a time where sizes and alignment allow. */
    if (p->rank >= 1 && p->s[0] == 0) {
        uint64_t row = (uint64_t)p->n[0] * elem;
        int w = widest_word(row, align);
        if (w > (int)elem) {
            p->word = w;
            p->n[0] = (int64_t)(row / (uint64_t)w);
            if (p->n[0] == 1 && p->rank > 1) { /* the row is one word: drop the axis */
                for (int a = 0; a + 1 < p->rank; a++) p->n[a] = p->n[a + 1];
                for (int q = 0; q + 1 < p->rank; q++) p->s[q] = p->s[q + 1] - 1;
                p->rank--;
            }
        }
    }
    p->count = count * (int64_t)elem / p->word;
    if (p->rank <= 1) {
        p->kind = FDX_PLAN_COPY;
        return FDX_OK;
    }
    int64_t *ss = p->ss, *ds = p->ds;
    strides(p, ss, ds);
    int A, K;
    if (p->s[0] == 0) {
        p->R = 1;
        A = 0;
        K = 1;
        p->kind = FDX_PLAN_ROWS;
        if (p->n[0] * p->word < SHORT_ROW_BYTES) { /* short rows: tile them as units */
            p->kind = FDX_PLAN_TILED;
            p->R = p->n[0];
            A = 1;
            K = p->s[1];
        }
    } else {
        p->kind = FDX_PLAN_TILED;
        p->R = 1;
        A = 0;
        K = p->s[0];
    }
    if (in_place)
        FDX_CHECK(fdx_perm_plan_square(p), FDX_ERR_INVALID,
                  "in-place permutation needs a batch of square 2D transposes (swap of two equal extents, "
                  "nothing else moving); use distinct buffers");
    p->nA = p->n[A];
    p->nK = p->n[K];
    p->sA = ss[A];
    p->sK = ss[K];
    p->dA = ds[A];
    p->dK = ds[K];
    for (int a = 0; a < p->rank; a++) {
        if (a == A || a == K || (p->R > 1 && a == 0)) continue;
        p->bn[p->nb] = p->n[a];
        p->bs[p->nb] = ss[a];
        p->bd[p->nb] = ds[a];
        p->nb++;
    }
    choose_tile(p);
    if (p->kind == FDX_PLAN_TILED && !choose_ug(p) && !choose_ilv(p) && !choose_nk(p, align) && !choose_vec(p, align) && !choose_subword(p, A, K)) {
        choose_kernel_tile(p, A, K);
        choose_skew(p);
    }
    if (p->kind == FDX_PLAN_ROWS && !choose_vec_rows(p) && !choose_subword(p, A, K))
        choose_kernel_tile(p, A, K); /* kept rows: the tile kernel too */
    choose_word_path(p);
    choose_direct(p, align);
    int64_t blocks = (p->nA + p->TA - 1) / p->TA * ((p->nK + p->TB - 1) / p->TB);
    for (int b = 0; b < p->nb; b++) blocks *= p->bn[b];
    FDX_CHECK(blocks < ((int64_t)1 << 31), FDX_ERR_UNSUPPORTED, "permutation needs %lld tiles, more than 2^31",
              (long long)blocks);
    return FDX_OK;
}

void fdx_index_map_make(const fdx_layout *l, const int64_t *shape, fdx_index_map *m)
{
    memset(m, 0, sizeof *m);
    m->rank = l->rank;
    m->diag = l->diag;
    int64_t acc = 1;
    int p0 = 0;
    if (l->diag != FDX_DIAG_NONE) {
        m->ax = l->perm[0];
        m->ay = l->perm[1];
        m->rx = shape[m->ax];
        m->ry = shape[m->ay];
        acc = m->rx * m->ry;
        p0 = 2;
    }
    for (int p = p0; p < l->rank; p++) {
        m->stride[l->perm[p]] = acc;
        acc *= shape[l->perm[p]];
    }
}
