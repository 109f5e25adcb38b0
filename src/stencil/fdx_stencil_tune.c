/* fdx_stencil_tune: picks a configuration by measuring a few candidates on
   the caller's arrays; the result is cached per device, spec and shape class. */
#include "stencil/fdx_stencil_tune.h"
#include "core/fdx_cache.h"
#include "core/fdx_knob.h"
#include "core/fdx_log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int max_vec(const fdx_stencil_kspec *ks, int64_t nx)
{
    int widest = ks->is_double ? 2 : 4;
    for (int v = widest; v > 1; v /= 2)
        if (nx % v == 0) return v;
    return 1;
}

/* The asynchronous march on rows not aligned to its vector (cfg->win: the
   tile copied value by value, the lanes reading whole vectors from it), for
   rank 3, radius >= 3, rows narrower than the widest vector allows: at vec
   `v`, tiles of 64x8 points (32x8 threads at vec 2, 16x8 at 4) or 64x16
   (16x16 threads at vec 4).  FDX_STENCIL_WIN=0 leaves it out (A/B). */
static int async_win_wanted(const fdx_stencil_kspec *ks, const fdx_device_info *dev, int64_t nx)
{
    const char *k = fdx_knob(FDX_KNOB_STENCIL_WIN);
    return ks->rank == 3 && ks->radius >= 3 && dev->cc_major >= 8 && max_vec(ks, nx) < (ks->is_double ? 2 : 4) &&
           !(k && strcmp(k, "0") == 0);
}

static fdx_stencil_cfg async_win(fdx_stencil_cfg c, int v, int tall)
{
    c.variant = FDX_SV_ASYNC, c.vec = v, c.win = 1, c.pd = 2;
    c.tx = 64 / v, c.ty = tall ? 16 : 8;
    c.zfast = c.pipe = c.xv = c.band = c.ry = c.zs = c.minb = 0;
    return c;
}

/* The plane tile (FDX_SV_PLANE, rank 3, radius >= 3, cp.async): 32x16
   threads at vec 1 (every width is aligned to it), `rows` rows a thread,
   two planes ahead, capped at `minb` blocks a multiprocessor.  ptxas (sm_90,
   order 12, two ahead): f32 one row 40 registers (three blocks of 512), two
   rows 64 (two blocks; 32x32 points, 0.75 halo values a point through L2
   against the async march's 2.25 at 32x16 points); f64 one row 64 at two
   blocks, two rows 124.  Rank 2 (one row a block, the marching axis y):
   256 and 128 threads at vec 1, uncapped.  Two ahead, not one: with 32-48 warps a
   multiprocessor, one row load a warp in flight is about half the bytes
   in flight HBM needs (the async march: one ahead 1.08-1.15 ms, two
   0.85-0.95 on the 25-point, round 6). */
static int plane_wanted(const fdx_stencil_kspec *ks, const fdx_device_info *dev)
{
    /* Off unless FDX_STENCIL_PLANE=1: on the H100 (session 8, forced tiles)
       it lost everywhere: order 12 f32 400^3 0.34-0.48 of a same-size copy
       against the async march's 0.55, the 25-point f64 512^3 0.55-0.66
       against 0.86, 2D order 12 0.49-0.52 against the unrolled column's
       0.66; in first runs it was never the fastest candidate. */
    const char *k = fdx_knob(FDX_KNOB_STENCIL_PLANE);
    return k && strcmp(k, "1") == 0 && ks->rank >= 2 && ks->radius >= 3 && dev->cc_major >= 8;
}

/* The asynchronous march with the column's upper half from the stages
   (cfg->zh: planes k + 1 .. k + r are resident in the ring anyway; only
   k - r .. k stay in registers), rank 3, radius >= 3, sm_80; FDX_STENCIL_ZH=0
   leaves it out (A/B).  H100 (session 9, first runs of the 14 worst suite
   cases and the targets): zh's taller tiles (64x16 points) were picked on
   order 12 f32 400^3 (0.558 -> 0.633: 16x16 threads vec 4, two blocks a
   multiprocessor where the carried column fits one, 0.539) and on odd
   widths rs1-087 (0.550 -> 0.612), rs1-006, rs1-032; zh on the 64x8 tiles
   (registers not binding) lost everywhere (extra shared loads: 25-point
   0.841 against 0.862, order 12 vec 2 0.501 against 0.553), so first runs
   take zh only on 64x16 tiles; 64x32 points (one block) 0.42.  ptxas
   (sm_90, nvcc 13, pd 2): f32 order 12 16x8 threads vec 4 lb3 142 -> 114
   registers, 16x16 vec 4 (64x16 points) 95; f64 order 8 32x8 vec 2 lb3 80
   with 260 bytes of spill loads -> 80 without, two rows lb2 (64x16
   points) 128 with spills -> 112 without.  The same sums in the same
   order: bit-identical to the carried column. */
static int zh_wanted(const fdx_stencil_kspec *ks, const fdx_device_info *dev)
{
    return fdx_knob_int(FDX_KNOB_STENCIL_ZH, 0, 1, 1) == 1 && ks->rank == 3 && ks->radius >= 3 && dev->cc_major >= 8;
}

/* zh's own tile, taller than the model's 64x8 points for less halo a
   point (2.75 -> 2.0 values through L2 at order 12), which its registers
   now allow: 64x16 points at the vector `v` (f32 vec 4: 16x16 threads;
   vec 2: two rows a thread, capped at two blocks; vec 1 32x16 points), on
   unaligned rows (win) as `c` has them. */
static fdx_stencil_cfg zh_tall(fdx_stencil_cfg c, int v)
{
    c.variant = FDX_SV_ASYNC, c.vec = v, c.pd = 2, c.zh = 1, c.zs = 0;
    c.tx = 64 / v > 32 ? 32 : 64 / v;
    c.ry = v == 4 ? 0 : 2, c.ty = v == 4 ? 16 : 8, c.minb = v == 4 ? 0 : 2;
    if (v == 1) c.tx = 32, c.ty = 8, c.ry = 2; /* 32x16 points */
    c.zfast = c.pipe = c.xv = c.band = 0;
    return c;
}

/* The carried column on 16x16-thread tiles with the plane loop unrolled
   (uz: the column's 2r + 1 names rotate, so ptxas keeps it without
   spilling: f32 vec 4 (64x16 points) 99 / 125 registers at radius 5 / 6,
   f64 vec 2 (32x16 points) 110 / 126: two blocks of 256 a multiprocessor),
   rank 3 radius >= 5 on aligned rows, not the wave update (its unrolled
   kernels grow: see uz_wanted).  H100, forced, same runs: order 12 f32
   400^3 0.736 three planes ahead, 0.712 two, against zh's pick 0.636 and
   zh's best 0.661 (s12c: zh reads 26 shared vectors a plane for 4 points,
   the column's upper half from the stages; ncu: L1 81% busy, top stall
   short scoreboard; the carried column reads 17, L1 69%, its stalls
   spread over barrier, short and long scoreboard); order 10 f32 heat
   512x384x320 0.655 three ahead, 0.640 two, zh 0.622; order 10 f64 heat
   512^3 0.696 two ahead, 0.661 three, against the async 32x8 vec 2 lb3
   tile's 0.529 (368 bytes spilled) and the unrolled column's 0.470 (s12k).
   Lower radii lose: order 8 f32 512^3 0.725 against zh's 0.765, order 6
   f32 700x500x400 0.740 against the unrolled column's 0.80 (s12c, s12k);
   on unaligned rows (win, s12d's first runs of 7 odd-width suite cases)
   it tied zh's two-row vec 2 tile at best and lost by up to 70%.
   FDX_STENCIL_CU=0 leaves it out (A/B). */
static int cu_wanted(const fdx_stencil_kspec *ks, const fdx_device_info *dev, int64_t nx)
{
    return fdx_knob_int(FDX_KNOB_STENCIL_CU, 0, 1, 1) == 1 && ks->rank == 3 && ks->radius >= 5 &&
           ks->update != FDX_UPDATE_WAVE && dev->cc_major >= 8 && max_vec(ks, nx) == (ks->is_double ? 2 : 4);
}

/* Session 13: first runs of rank-3 radius-2 stencils (heat / laplacian
   order 4) also time the asynchronous march (64x8 points at the widest
   vector, win on odd widths, unrolled, two planes ahead): their first
   batch had only unrolled / plain marches (rs1-013, f64 455x1545x1250:
   0.642 at vec 1, 0.715 at 456 wide).  Only with FDX_STENCIL_R2A=1 until
   measured. */
static int r2_async_wanted(const fdx_stencil_kspec *ks, const fdx_device_info *dev)
{
    return fdx_knob_int(FDX_KNOB_STENCIL_R2A, 0, 1, 0) == 1 && ks->rank == 3 && ks->radius == 2 && dev->cc_major >= 8;
}

/* The tile, `pd` planes ahead (0: the measured best, three for floats, two for doubles). */
static fdx_stencil_cfg cu_tile(fdx_stencil_cfg c, const fdx_stencil_kspec *ks, int pd)
{
    c.variant = FDX_SV_ASYNC, c.vec = ks->is_double ? 2 : 4, c.tx = 16, c.ty = 16, c.uz = 1;
    c.pd = pd ? pd : ks->is_double ? 2 : 3;
    c.zfast = c.pipe = c.win = c.xv = c.band = c.minb = c.ry = c.zs = c.zh = c.ys = c.b2 = 0;
    return c;
}

/* The carried column with shared y rows (cfg->ys, two rows a thread: the
   rows' y neighbours are ry + 2r tile-row loads a plane, not ry * 2r), rank
   3, radius >= 3, sm_80, only with FDX_STENCIL_YS=1 until measured.  Why:
   at order 12 f32 the asynchronous march is bound by shared-memory data
   (zh's 64x16-point pick reads 23 16-byte vectors for 4 points from the
   stages, ~92 bytes a point, plus the copies into them and the stores
   through L1: about 0.9 of the multiprocessor's 128 bytes a clock at 0.64
   of copy).  ys at order 12 f32: vec 4 two rows 48 bytes a point (ptxas
   219 registers, two blocks of 128 threads), vec 2 two rows 56 (122, lb2:
   two blocks of 256).  The same sums in the same order: bit-identical to
   the rows without ys. */
static int ys_wanted(const fdx_stencil_kspec *ks, const fdx_device_info *dev)
{
    return fdx_knob_int(FDX_KNOB_STENCIL_YS, 0, 1, 0) == 1 && ks->rank == 3 && ks->radius >= 3 && dev->cc_major >= 8;
}

/* ys's tile: 64x16 points at the vector `v` from two rows a thread (vec 4:
   16x8 threads, uncapped: two blocks of 128 by registers; vec 2: 32x8 lb2;
   vec 1: 32x16 points lb2), on unaligned rows (win) as `c` has them. */
static fdx_stencil_cfg ys_tile(fdx_stencil_cfg c, int v)
{
    c.variant = FDX_SV_ASYNC, c.vec = v, c.pd = 2, c.ys = 1, c.zh = c.zs = 0;
    c.tx = v == 4 ? 16 : 32, c.ty = 8, c.ry = 2, c.minb = v == 4 ? 0 : 2;
    c.zfast = c.pipe = c.xv = c.band = 0;
    return c;
}

/* The asynchronous march in rank 2 (session 10): one row of tx threads a
   block marching in y, the row with its x halo copied into the ring by
   cp.async, x neighbours as whole vectors from it (f32 order 12 at vec 4:
   5 shared loads for 4 points; ptxas 89-96 registers).  For the 2D high
   orders on odd widths (s9c: 0.65-0.73, the unrolled column at vec 1
   reading 2r x neighbours a point through L1).  On by default since the
   H100 measured it (session 10: 8191^2 order 12 0.66 -> 0.78, the suite's
   2D worst cases 0.66-0.72 -> 0.79-0.83); FDX_STENCIL_ASYNC2=0 leaves it out. */
static int async2_wanted(const fdx_stencil_kspec *ks, const fdx_device_info *dev)
{
    return fdx_knob_int(FDX_KNOB_STENCIL_ASYNC2, 0, 1, 1) == 1 && ks->rank == 2 && ks->radius >= 3 &&
           dev->cc_major >= 8;
}

/* A rank-2 row of tx threads at the widest vector, win where nx is no
   multiple of it, capped at 512 threads a multiprocessor (128 registers:
   the wave model then counts the blocks that are resident; its small
   stages alone would allow 11 of 128 threads). */
static fdx_stencil_cfg async_row(fdx_stencil_cfg c, const fdx_stencil_kspec *ks, int64_t nx, int tx)
{
    int v = ks->is_double ? 2 : 4;
    c.variant = FDX_SV_ASYNC, c.tx = tx, c.ty = 1, c.vec = v, c.win = nx % v != 0, c.pd = 2;
    c.zfast = c.pipe = c.xv = c.band = c.ry = c.zs = c.zh = c.ys = 0;
    c.minb = 512 / tx;
    return c;
}

static fdx_stencil_cfg plane_tile(fdx_stencil_cfg c, int tx, int ty, int vec, int rows, int minb)
{
    c.variant = FDX_SV_PLANE, c.tx = tx, c.ty = ty, c.vec = vec, c.ry = rows > 1 ? rows : 0, c.pd = 2, c.minb = minb;
    c.zfast = c.pipe = c.win = c.xv = c.band = c.zs = 0;
    return c;
}

/* Chunk so that the grid has about four waves of blocks: enough to balance
   the multiprocessors, few enough that each block marches a long column (the
   2r planes a block reads above and below its chunk are extra traffic). */
static int default_chunk(const fdx_stencil_kspec *ks, const fdx_device_info *dev, int cuda, const int64_t n3[3],
                         const fdx_stencil_cfg *c)
{
    int rm = ks->rank >= 2 ? ks->radius : 0;
    int64_t planes = n3[2] - 2 * rm, target, per_plane;
    if (cuda) {
        int per_sm = 2048 / (c->tx * c->ty);
        target = 4LL * (dev->sm_count > 0 ? dev->sm_count : 1) * (per_sm > 0 ? per_sm : 1);
        per_plane = ceil_div(n3[0], (int64_t)c->tx * c->vec) * ceil_div(n3[1], (int64_t)c->ty * fdx_stencil_rows(c));
    } else {
        int ry = ks->rank == 3 ? ks->radius : 0;
        target = 2LL * (dev->sm_count > 0 ? dev->sm_count : 1);
        per_plane = ceil_div(n3[1] - 2 * ry > 0 ? n3[1] - 2 * ry : 1, c->by);
    }
    int64_t splits = ceil_div(target, per_plane > 0 ? per_plane : 1);
    int64_t chunk = ceil_div(planes, splits > 0 ? splits : 1);
    if (cuda && chunk < 8) chunk = planes < 8 ? planes : 8;
    if (chunk < 1) chunk = 1;
    return chunk > 1 << 30 ? 1 << 30 : (int)chunk;
}

void fdx_stencil_default_cfg(const fdx_stencil_kspec *ks, const fdx_device_info *dev, int cuda, const int64_t n3[3],
                             fdx_stencil_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->variant = FDX_SV_SMEM;
    c->vec = cuda ? max_vec(ks, n3[0]) : 1;
    if (ks->rank == 3) {
        c->tx = 32, c->ty = 8;
    } else {
        c->tx = 128, c->ty = 1;
    }
    c->by = ks->rank == 3 ? 16 : 1;
    c->pd = 1;
    c->chunk = default_chunk(ks, dev, cuda, n3, c);
    /* On the H100 one unrolled group of 4 planes per block beat the smem
       march (this default before) in every benchmark case, by 5-25%. */
    if (cuda && ks->rank >= 2) c->variant = FDX_SV_UNROLL, c->pd = c->chunk = 4;
}

static int single_group(const fdx_stencil_cfg *c) { return c->variant == FDX_SV_UNROLL && c->chunk == c->pd; }

typedef struct search {
    const fdx_stencil_kspec *ks;
    const int64_t *n3;
    int cuda;
    fdx_stencil_cfg best, march; /* march: the best that is not a single unrolled group */
    double best_ms, march_ms;
    fdx_stencil_cfg unrolled; /* the best unrolled column */
    double unrolled_ms;
    fdx_stencil_cfg tried[128];
    int ntried;
    /* The search is replayed from the journal (every time measured so far):
       a configuration not in it is wanted, not timed, and counts as not
       runnable for this pass.  Wanted ones are collected only within the
       stage where the first was met (later stages' candidates depend on its
       time), at most `maxwant` of them. */
    const fdx_stencil_journal *j;
    fdx_stencil_cfg *want;
    int nwant, maxwant, unknown, stage, want_stage;
    int tm; /* FDX_STENCIL_TM=1 on sm_90: asynchronous candidates with tm (normalize) */
} search;

static void search_init(search *s, const fdx_stencil_kspec *ks, const fdx_device_info *dev, const int64_t *n3,
                        int cuda, const fdx_stencil_journal *j, fdx_stencil_cfg *want, int maxwant)
{
    memset(s, 0, sizeof *s);
    s->ks = ks, s->n3 = n3, s->cuda = cuda, s->j = j, s->want = want, s->maxwant = maxwant;
    s->tm = cuda && dev->cc_major >= 9 && fdx_knob_int(FDX_KNOB_STENCIL_TM, 0, 1, 0) == 1;
    s->best_ms = s->march_ms = s->unrolled_ms = INFINITY;
}

/* FDX_STENCIL_UZ=1 (session 11, until measured): the asynchronous march's
   plane loop unrolled (uz) wherever it fits, but not with ys (the rows' two
   columns unrolled by 2r + 1 spill) nor for the wave update (the H100, same
   run: f32 o8 and f64 o10 wave on unaligned rows 0.64 -> 0.43, 0.59 -> 0.43;
   laplacian / heat on unaligned rows gained 2-4%). */
static int uz_wanted(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *c)
{
    return c->variant == FDX_SV_ASYNC && !c->ys && ks->update != FDX_UPDATE_WAVE &&
           fdx_knob_int(FDX_KNOB_STENCIL_UZ, 0, 1, 0) == 1;
}

/* One spelling per kernel, so the journal finds what it has measured. */
static int normalize(const search *s, fdx_stencil_cfg *c)
{
    if (single_group(c)) c->pipe = 0; /* nothing follows a single group */
    if (s->cuda && uz_wanted(s->ks, c)) {
        c->uz = 1;
        if (!fdx_stencil_cfg_fits(s->ks, c, s->n3)) c->uz = 0;
    }
    if (s->tm && c->variant == FDX_SV_ASYNC && s->ks->rank == 3) { /* tm: the rows by tensor copies where they fit */
        c->tm = 1;
        if (!fdx_stencil_cfg_fits(s->ks, c, s->n3)) c->tm = 0;
    }
    return !s->cuda || fdx_stencil_cfg_fits(s->ks, c, s->n3);
}

/* Where `c` is in the journal, or -1. */
static int journal_find(const fdx_stencil_journal *j, const fdx_stencil_cfg *c)
{
    for (int i = 0; i < j->n; i++)
        if (memcmp(c, &j->cfg[i], sizeof *c) == 0) return i;
    return -1;
}

/* A new stage: its candidates may depend on the times before it. */
static void next_stage(search *s) { s->stage++; }

/* The time of `c` (INFINITY when it does not fit, was tried before in this
   pass, could not run or is not measured yet). */
static double try_cfg(search *s, fdx_stencil_cfg c)
{
    if (!normalize(s, &c)) return INFINITY;
    for (int i = 0; i < s->ntried; i++)
        if (memcmp(&c, &s->tried[i], sizeof c) == 0) return INFINITY;
    if (s->ntried < 128) s->tried[s->ntried++] = c;
    int at = journal_find(s->j, &c);
    if (at < 0) {
        if (!s->unknown) s->unknown = 1, s->want_stage = s->stage;
        if (s->stage == s->want_stage && s->nwant < s->maxwant) s->want[s->nwant++] = c;
        return INFINITY;
    }
    double ms = s->j->ms[at];
    if (ms < s->best_ms) s->best = c, s->best_ms = ms;
    if (ms < s->march_ms && !single_group(&c)) s->march = c, s->march_ms = ms;
    if (ms < s->unrolled_ms && c.variant == FDX_SV_UNROLL) s->unrolled = c, s->unrolled_ms = ms;
    return ms;
}

/* Planes per block around `base` (run-time only: compiles nothing), then,
   for a march of unrolled groups, the group's length at the best chunk. */
static void chunk_stage(search *s, fdx_stencil_cfg base, int planes)
{
    static const double factor[] = {0.25, 0.5, 2, 4};
    for (int i = 0; i < 5; i++) {
        fdx_stencil_cfg c = base;
        double ch = i < 4 ? base.chunk * factor[i] : planes;
        c.chunk = ch < 1 ? 1 : ch > planes ? planes : (int)ch;
        try_cfg(s, c);
    }
    next_stage(s);
    for (int pd = 2; s->cuda && s->march.variant == FDX_SV_UNROLL && pd <= FDX_STENCIL_MAX_UNROLL; pd *= 2) {
        fdx_stencil_cfg c = s->march;
        c.pd = pd;
        try_cfg(s, c);
    }
}

/* Block shapes (threads) around `base`; the chunk follows the shape, except
   a single unrolled group's.  (Round 4 also tried 16x16 and 16x32 on the
   25-point's unrolled column, for fewer y-halo rows per row computed: 6%
   and 17% slower than 32x4 on the H100, so not searched.) */
static void shape_stage(search *s, const fdx_device_info *dev, fdx_stencil_cfg base)
{
    static const int shapes3[][2] = {{32, 4}, {64, 4}, {32, 8}, {64, 8}, {32, 16}, {128, 2}};
    static const int shapes2[][2] = {{64, 1}, {128, 1}, {256, 1}, {512, 1}};
    int rank3 = s->ks->rank == 3, nshapes = rank3 ? 6 : 4;
    for (int i = 0; i < nshapes; i++) {
        fdx_stencil_cfg c = base;
        c.tx = rank3 ? shapes3[i][0] : shapes2[i][0];
        c.ty = rank3 ? shapes3[i][1] : shapes2[i][1];
        if (!single_group(&c)) c.chunk = default_chunk(s->ks, dev, s->cuda, s->n3, &c);
        try_cfg(s, c);
    }
}

/* An unrolled column of pd-plane groups with `vec` lanes: one group per
   block, or a march of groups through the shape's default chunk (pipelined
   or not); x neighbours as vectors where that saves loads (radius >= 2). */
static fdx_stencil_cfg unrolled(const search *s, const fdx_device_info *dev, fdx_stencil_cfg c, int vec, int pd,
                                int march, int pipe, int win)
{
    c.variant = FDX_SV_UNROLL, c.vec = vec, c.pd = pd, c.win = win, c.zfast = 0;
    c.pipe = march && pipe;
    c.xv = vec > 1 && !win && s->ks->radius >= 2;
    c.chunk = march ? default_chunk(s->ks, dev, 1, s->n3, &c) : pd;
    return c;
}

/* Blocks of an asynchronous march a multiprocessor holds, as far as the
   host can tell without the kernel's register count: threads, shared memory
   (a multiprocessor has about the opt-in per-block limit plus 1 KB, which
   each block also reserves) and the register cap it promises. */
static int async_resident(const fdx_stencil_kspec *ks, const fdx_device_info *dev, const fdx_stencil_cfg *c)
{
    fdx_stencil_async_geom a;
    fdx_stencil_async_geom_of(ks, c, &a);
    int n = 2048 / (c->tx * c->ty);
    size_t per_sm = dev->smem_per_block_optin + 1024;
    int by_smem = (int)(per_sm / (a.bytes + 1024));
    if (by_smem < n) n = by_smem;
    if (c->minb > 0 && c->minb < n) n = c->minb;
    if (n > 32) n = 32;
    return n > 0 ? n : 1;
}

/* Chunks by waves: the run ends with its last wave of resident blocks, so a
   block count just under a whole number of waves wastes least; longer
   chunks re-read fewer of the 2r halo planes each chunk reads past its
   ends.  Model: cost ~ ceil(W) / W * (chunk + 2r) / chunk, W the waves
   (blocks of a partial last chunk counted by their share).  The `n`
   cheapest chunks of at least 8 planes that differ from `skip` go to out.
   H100, 25-point 512^3 at 3 x 132 resident blocks of 64x8 points: chunk
   112 (5.8 waves) 0.826 ms, 126 (5.2 waves) 0.879, 63 (10.3) 0.848; round
   7, one run: 168 (3.9 waves, the model's first) 0.818, 112 0.831, 84 0.842. */
static int wave_chunks(const search *s, const fdx_device_info *dev, const fdx_stencil_cfg *c, int planes,
                       int skip, int *out, int n)
{
    int64_t gx = ceil_div(s->n3[0], (int64_t)c->tx * c->vec);
    int64_t gy = ceil_div(s->n3[1], (int64_t)c->ty * fdx_stencil_rows(c));
    double resident = (double)async_resident(s->ks, dev, c) * (dev->sm_count > 0 ? dev->sm_count : 1);
    double cost[4];
    int got = 0;
    n = n < 4 ? n : 4;
    for (int nz = 1; nz <= planes; nz++) {
        int ch = (int)ceil_div(planes, nz);
        if (ch < 8 || ch == skip || ceil_div(planes, ch) != nz) continue;
        double w = (double)(gx * gy) * planes / ch / resident;
        double k = ceil(w) / w * (ch + 2.0 * s->ks->radius) / ch;
        if (got == n && k >= cost[n - 1]) continue;
        int at = got < n ? got++ : n - 1; /* insertion into the n cheapest, cheapest first */
        for (; at > 0 && cost[at - 1] > k; at--) cost[at] = cost[at - 1], out[at] = out[at - 1];
        cost[at] = k, out[at] = ch;
    }
    return got;
}

/* The asynchronous march (each plane read once, into shared memory, pd
   planes in flight without registers): tiles of 64x8, 64x16, 32x16, 32x8 and
   128x8 points at the widest vectors and 32x8 at vec 1 (fewer registers), two
   planes ahead; round 7, taller tiles without more threads (two rows a
   thread: 64x16 points from 32x8 threads, 32x16 at vec 1; three at vec 1,
   32x12 points from 32x4 threads: 94 registers, 5 blocks); then on the best
   of them one and three planes ahead, half and twice its planes per block
   and the two chunks the wave model prefers, and register caps for 2 and 3
   blocks a multiprocessor.  H100, 25-point 512^3 f64, round 6: one plane
   ahead 1.08-1.15 ms, two 0.85-0.95, three 0.87 (32x8 threads vec 2; the
   unrolled column 0.916); chunk 63 0.848, 126 0.879.  Round 7: chunk 168
   (the wave model's first) 0.818 against 112's 0.831; two rows a thread
   lose: 64x16 points 0.988 ms (146 registers, one block a multiprocessor),
   capped at two blocks (128 registers) 1.04-1.17, 32x16 at vec 1 0.893 (72
   registers, three blocks; one row at vec 1 0.949).  Round 8: the column
   from the stages (cfg->zs) is not searched: 2r more stages of shared memory
   halve the blocks a multiprocessor holds, and it lost at every tile (64x8
   points 0.940 ms at chunk 168, 64x16 1.006, 32x16 at vec 1 1.144). */
static void tile_refine(search *s, const fdx_device_info *dev, fdx_stencil_cfg best, double best_ms, int planes);

static void async_stage(search *s, const fdx_device_info *dev, const fdx_stencil_cfg d, int planes)
{
    /* points in x (at the widest vectors, or vec 1) and y, rows a thread */
    static const int tiles[][4] = {{64, 8, 0, 1},  {64, 16, 0, 1}, {32, 16, 0, 1}, {32, 8, 0, 1},
                                   {128, 8, 0, 1}, {32, 8, 1, 1},  {64, 16, 0, 2}, {32, 16, 1, 2},
                                   {32, 12, 1, 3}};
    const int ntiles = (int)(sizeof tiles / sizeof *tiles);
    int vmax = max_vec(s->ks, s->n3[0]);
    fdx_stencil_cfg best = d;
    double best_ms = INFINITY;
    for (int i = 0; i < ntiles; i++) {
        fdx_stencil_cfg c = d;
        c.variant = FDX_SV_ASYNC, c.vec = tiles[i][2] ? 1 : vmax, c.pd = 2;
        c.ry = tiles[i][3] > 1 ? tiles[i][3] : 0;
        c.tx = tiles[i][0] / c.vec, c.ty = tiles[i][1] / tiles[i][3];
        c.zfast = c.pipe = c.win = c.xv = c.band = c.minb = 0;
        c.chunk = default_chunk(s->ks, dev, 1, s->n3, &c);
        double ms = try_cfg(s, c);
        if (ms < best_ms) best = c, best_ms = ms;
    }
    /* Rows not aligned to the widest vector: the tile copied value by
       value, the lanes at the wider vectors (64x8 and 64x16 points). */
    for (int v = s->ks->is_double ? 2 : 4; v > vmax && async_win_wanted(s->ks, dev, s->n3[0]); v /= 2)
        for (int tall = 0; tall < 2; tall++) {
            fdx_stencil_cfg c = async_win(d, v, tall);
            c.chunk = default_chunk(s->ks, dev, 1, s->n3, &c);
            double ms = try_cfg(s, c);
            if (ms < best_ms) best = c, best_ms = ms;
        }
    /* zh: the best tile so far with the column's upper half from the
       stages, and zh's taller tile at the best's vector.  (64x32 points,
       one block a multiprocessor by shared memory, lost on the H100: 0.42
       of a same-size copy at order 12 400^3 against 0.62 at 64x16.) */
    if (zh_wanted(s->ks, dev) && best_ms < INFINITY) {
        fdx_stencil_cfg h[2] = {best, zh_tall(best, best.vec)};
        h[0].zh = 1;
        for (int i = 0; i < 2; i++) {
            h[i].chunk = i ? default_chunk(s->ks, dev, 1, s->n3, &h[i]) : h[i].chunk;
            double ms = try_cfg(s, h[i]);
            if (ms < best_ms) best = h[i], best_ms = ms;
        }
    }
    /* ys: the best's rows sharing their y rows where it has several and
       carries its column, and ys's tile at the best's vector. */
    if (ys_wanted(s->ks, dev) && best_ms < INFINITY) {
        fdx_stencil_cfg y[2] = {best, ys_tile(best, best.vec)};
        y[0].ys = 1;
        y[1].chunk = default_chunk(s->ks, dev, 1, s->n3, &y[1]);
        for (int i = 0; i < 2; i++) {
            double ms = try_cfg(s, y[i]);
            if (ms < best_ms) best = y[i], best_ms = ms;
        }
    }
    /* cu: the carried 64x16-point tile unrolled, two and three planes ahead. */
    for (int pd = 2; pd <= 3 && cu_wanted(s->ks, dev, s->n3[0]); pd++) {
        fdx_stencil_cfg c = cu_tile(d, s->ks, pd);
        c.chunk = default_chunk(s->ks, dev, 1, s->n3, &c);
        double ms = try_cfg(s, c);
        if (ms < best_ms) best = c, best_ms = ms;
    }
    next_stage(s);
    tile_refine(s, dev, best, best_ms, planes);
}

/* On the best tile of a march through shared memory (async or plane): the
   other planes ahead, half and twice its planes per block and the two
   chunks the wave model prefers, register caps for 2 and 3 blocks a
   multiprocessor. */
static void tile_refine(search *s, const fdx_device_info *dev, fdx_stencil_cfg best, double best_ms, int planes)
{
    if (best_ms == INFINITY) return;
    const fdx_stencil_cfg base = best;
    for (int pd = 1; pd <= FDX_STENCIL_MAX_ASYNC_AHEAD; pd++) {
        if (pd == base.pd || (base.variant == FDX_SV_ASYNC && pd == 2)) continue; /* async: 1 and 3, as before */
        fdx_stencil_cfg c = base;
        c.pd = pd;
        double ms = try_cfg(s, c);
        if (ms < best_ms) best = c, best_ms = ms;
    }
    /* Chunks: a block reads 2r planes beyond its own, fewer blocks wait
       longer, and the last wave of blocks may be nearly empty. */
    next_stage(s);
    static const double factor[] = {0.5, 2};
    const fdx_stencil_cfg paced = best;
    int chunks[4] = {0}, nch = 2;
    for (int i = 0; i < 2; i++) {
        double ch = paced.chunk * factor[i];
        chunks[i] = ch < 1 ? 1 : ch > planes ? planes : (int)ch;
    }
    nch += wave_chunks(s, dev, &paced, planes, paced.chunk, chunks + 2, 2);
    for (int i = 0; i < nch; i++) {
        fdx_stencil_cfg c = paced;
        c.chunk = chunks[i];
        double ms = try_cfg(s, c);
        if (ms < best_ms) best = c, best_ms = ms;
    }
    next_stage(s);
    for (int b = 2; b <= 3; b++) {
        fdx_stencil_cfg c = best;
        c.minb = b;
        try_cfg(s, c);
    }
}

/* The plane tile: the model's two tiles (plane_tile), 64x8 threads with
   two rows (64x16 points), 64x16 threads (1024, one row), 32x8 threads at
   vec 1 and at the widest vector with one and two rows, uncapped (rank 2:
   64 to 512 threads at vec 1, 128 at the widest vector); then the best
   refined (tile_refine). */
static void plane_stage(search *s, const fdx_device_info *dev, const fdx_stencil_cfg d, int planes)
{
    /* threads x, y, vec (0: the widest), rows, cap */
    static const int tiles3[][5] = {{32, 16, 1, 2, 2}, {32, 16, 1, 1, 3}, {32, 16, 1, 1, 2}, {64, 8, 1, 2, 0},
                                    {64, 16, 1, 1, 0}, {32, 8, 1, 1, 0},  {32, 8, 0, 1, 0},  {32, 8, 0, 2, 0}};
    static const int tiles2[][5] = {{256, 1, 1, 1, 0}, {128, 1, 1, 1, 0}, {64, 1, 1, 1, 0},
                                    {512, 1, 1, 1, 0}, {128, 1, 0, 1, 0}};
    const int rank3 = s->ks->rank == 3, ntiles = rank3 ? 8 : 5;
    int vmax = max_vec(s->ks, s->n3[0]);
    fdx_stencil_cfg best = d;
    double best_ms = INFINITY;
    for (int i = 0; i < ntiles; i++) {
        const int *t = rank3 ? tiles3[i] : tiles2[i];
        fdx_stencil_cfg c = plane_tile(d, t[0], t[1], t[2] ? 1 : vmax, t[3], t[4]);
        int ch[1];
        c.chunk = wave_chunks(s, dev, &c, planes, -1, ch, 1) ? ch[0] : default_chunk(s->ks, dev, 1, s->n3, &c);
        double ms = try_cfg(s, c);
        if (ms < best_ms) best = c, best_ms = ms;
    }
    next_stage(s);
    tile_refine(s, dev, best, best_ms, planes);
}

/* The coordinate search (today's exhaustive one), replayed against the
   journal; s->best is its choice when every candidate it met was measured. */
static void search_run(search *s, const fdx_device_info *dev)
{
    const fdx_stencil_kspec *ks = s->ks;
    const int64_t *n3 = s->n3;
    int cuda = s->cuda;
    fdx_stencil_cfg d;
    fdx_stencil_default_cfg(ks, dev, cuda, n3, &d);
    s->best = d; /* the base of the stages while times are missing */
    try_cfg(s, d);
    int rm = ks->rank >= 2 ? ks->radius : 0;
    int planes = (int)(n3[2] - 2 * rm > 1 << 30 ? 1 << 30 : n3[2] - 2 * rm);
    if (cuda) {
        /* Stage 1: strategy x vector width x planes in flight.  The plain
           marches (one plane in flight; two lost everywhere on the H100) take
           the default chunk of their shape. */
        int vmax = max_vec(ks, n3[0]), widest = ks->is_double ? 2 : 4;
        for (int variant = 0; variant < 2; variant++)
            for (int v = vmax; v >= 1; v /= 2) {
                fdx_stencil_cfg c = d;
                c.variant = variant, c.vec = v, c.pd = 1, c.xv = 0;
                c.chunk = default_chunk(ks, dev, cuda, n3, &c);
                try_cfg(s, c);
            }
        /* Unrolled groups, widest vectors and half that, one group per block
           (short columns, many blocks); marches of groups (each plane read
           once), plain and pipelined, at the widest vectors.  The z-fast
           block order lost by 10-30% everywhere on the H100 and is not
           searched. */
        static const int singles[] = {2, 4, 8}, marches[][2] = {{4, 0}, {8, 0}, {2, 1}, {4, 1}, {8, 1}};
        for (int i = 0; ks->rank >= 2 && i < 3; i++)
            for (int v = vmax; v >= 1 && v * 2 >= vmax; v /= 2)
                try_cfg(s, unrolled(s, dev, d, v, singles[i], 0, 0, 0));
        for (int i = 0; ks->rank >= 2 && i < 5; i++)
            try_cfg(s, unrolled(s, dev, d, vmax, marches[i][0], 1, marches[i][1], 0));
        /* Narrower lanes hold fewer registers (the 25-point march: 64 at
           vec 1 against 150 at vec 2). */
        if (ks->rank >= 2 && vmax > 1) try_cfg(s, unrolled(s, dev, d, vmax / 2, 4, 1, 1, 0));
        /* Rows not aligned to the widest vector (rank 3): vectors cut from
           two aligned loads, one group per block and a pipelined march. */
        for (int v = widest; ks->rank == 3 && v > vmax; v /= 2) {
            for (int i = 0; i < 3; i++) try_cfg(s, unrolled(s, dev, d, v, singles[i], 0, 0, 1));
            try_cfg(s, unrolled(s, dev, d, v, 4, 1, 1, 1));
        }
        /* Stage 2: block shape (threads) of the best. */
        next_stage(s);
        shape_stage(s, dev, s->best);
    } else {
        next_stage(s);
        fdx_stencil_cfg base = s->best;
        static const int rows[] = {2, 4, 8, 32, 64, 128};
        for (int i = 0; ks->rank == 3 && i < 6; i++) {
            fdx_stencil_cfg c = base;
            c.by = rows[i];
            c.chunk = default_chunk(ks, dev, cuda, n3, &c);
            try_cfg(s, c);
        }
    }
    /* Stage 3: for a single unrolled group, the group's length; then the
       planes per block of the best march, also when a single group leads:
       at 1024^3 f64 a march with a tuned chunk (round 1: direct pd 2, 0.848
       of copy) beat the best single group (0.831) on the H100. */
    next_stage(s);
    if (cuda && single_group(&s->best)) {
        fdx_stencil_cfg base = s->best;
        for (int pd = 1; pd <= FDX_STENCIL_MAX_UNROLL; pd *= 2) {
            fdx_stencil_cfg c = base;
            c.pd = c.chunk = pd;
            try_cfg(s, c);
        }
    }
    next_stage(s);
    if (ks->rank >= 2 && s->march_ms < INFINITY) chunk_stage(s, s->march, planes);
    next_stage(s);
    /* Stage 4: on the best unrolled column (the best overall or not),
       blocks in bands of 4, 16 or 64 block rows: at 1024^3 f64 a z-layer of
       blocks outgrows what is resident, and the halo planes it shares with
       the next layer left L2 before that layer ran (bands: 0.827 -> 0.911
       of copy on the H100; elsewhere they lost).  Then, for a banded single
       group, its length again. */
    if (cuda && s->unrolled_ms < INFINITY && !s->unrolled.zfast) {
        /* Stage 2 shaped only the best; where that is not unrolled (the
           25-point: a shared-memory march), shape the best unrolled column
           here before its bands (25-point: 32x8 1.025 -> 32x4 0.974 ms,
           then band 64 0.906 on the H100). */
        if (s->best.variant != FDX_SV_UNROLL) shape_stage(s, dev, s->unrolled);
        next_stage(s);
        fdx_stencil_cfg base = s->unrolled;
        int64_t gy = (n3[1] + base.ty - 1) / base.ty;
        static const int bands[] = {4, 16, 32, 64, 128};
        for (int i = 0; i < 5; i++) {
            fdx_stencil_cfg c = base;
            c.band = bands[i];
            if (c.band < gy) try_cfg(s, c);
        }
        /* A banded column's shape and group length again: the best shape
           was found without bands (round 5: 1024^3 f64 took bands of 16 at
           64x4 from a search that never banded 32x8). */
        next_stage(s);
        if (s->unrolled.band) shape_stage(s, dev, s->unrolled);
        next_stage(s);
        if (s->unrolled.band && single_group(&s->unrolled)) {
            base = s->unrolled;
            for (int pd = 1; pd <= 8; pd *= 2) {
                fdx_stencil_cfg c = base;
                c.pd = c.chunk = pd;
                try_cfg(s, c);
            }
        }
    }
    /* Stage 5 (rank 3): several rows a thread on the best unrolled column,
       at its vector width (2 and 4 rows; its group length and half) and at
       vec 1 (fewer registers a row), its bands as they are and shortened
       to the same rows.  The rows share their y-neighbour loads and their
       blocks' y halo.  H100, round 5 (first run): 1024^3 f64 6.33 -> 6.18
       ms with two rows; the 25-point lost (204 registers, 2 blocks of 128
       a multiprocessor: 0.90 -> 1.10 ms).  Then the best of them, when
       within 10% of the best, shaped, banded and register-capped. */
    next_stage(s);
    if (cuda && ks->rank == 3 && s->unrolled_ms < INFINITY && !s->unrolled.zfast) {
        const fdx_stencil_cfg base = s->unrolled;
        static const int cand[][3] = {{0, 2, 0}, {0, 2, 1}, {0, 4, 1}, {1, 2, 0}, {1, 4, 0}, {1, 4, 1}};
        fdx_stencil_cfg rows = base;
        double rows_ms = INFINITY;
        for (int i = 0; i < 6; i++)
            for (int b = 0; b < 2; b++) {
                fdx_stencil_cfg c = base;
                if (cand[i][0]) c.vec = 1, c.xv = 0;
                c.ry = cand[i][1];
                if (cand[i][2]) c.pd = c.pd > 1 ? c.pd / 2 : 1;
                if (single_group(&base)) c.chunk = c.pd;
                else c.chunk = default_chunk(ks, dev, 1, n3, &c);
                if (b) c.band = c.band / c.ry;
                if (b && c.band < 1) continue;
                double ms = try_cfg(s, c);
                if (ms < rows_ms) rows = c, rows_ms = ms;
            }
        next_stage(s);
        if (rows_ms < 1.1 * s->best_ms) {
            shape_stage(s, dev, rows);
            next_stage(s);
            /* Bands half and twice as high, on the rows' column and on its
               shaped best when that leads (1024^3 f64, second run: 64x4
               band16 6.17, 32x8 band16 6.07, 64x4 band32 6.05 ms). */
            fdx_stencil_cfg around[2] = {rows, s->best};
            for (int k = 0; k < 1 + (s->best.ry > 1); k++)
                for (int f = 0; f < 2 && around[k].band; f++) {
                    fdx_stencil_cfg c = around[k];
                    c.band = f ? c.band * 2 : c.band / 2;
                    if (c.band >= 1) try_cfg(s, c);
                }
            fdx_stencil_cfg c = rows;
            c.minb = 384 / (c.tx * c.ty);
            if (c.minb * c.tx * c.ty == 384) try_cfg(s, c);
        }
    }
    /* Stage 6 (rank 3, cp.async needs sm_80): the asynchronous march; in
       rank 2 with FDX_STENCIL_ASYNC2=1 its rows of 64..256 threads. */
    next_stage(s);
    if (cuda && ks->rank == 3 && dev->cc_major >= 8) async_stage(s, dev, d, planes);
    if (cuda && async2_wanted(ks, dev)) {
        fdx_stencil_cfg best = d;
        double best_ms = INFINITY;
        for (int tx = 64; tx <= 256; tx *= 2) {
            fdx_stencil_cfg c = async_row(d, ks, s->n3[0], tx);
            c.chunk = default_chunk(ks, dev, 1, s->n3, &c);
            double ms = try_cfg(s, c);
            if (ms < best_ms) best = c, best_ms = ms;
        }
        tile_refine(s, dev, best, best_ms, planes);
    }
    /* Stage 7 (rank 2-3, radius >= 3, sm_80): the plane tile. */
    next_stage(s);
    if (cuda && plane_wanted(ks, dev)) plane_stage(s, dev, d, planes);
    /* Then x neighbours the other way, and a register cap (__launch_bounds__)
       for 512, 768 and 1024 resident threads per multiprocessor: more
       threads, fewer registers each. */
    next_stage(s);
    if (cuda) {
        fdx_stencil_cfg base = s->best, c = base;
        c.xv = !c.xv;
        try_cfg(s, c);
        next_stage(s);
        static const int resident[] = {512, 768, 1024};
        base = s->best;
        for (int i = 0; i < 3; i++) {
            c = base;
            c.minb = resident[i] / (c.tx * c.ty);
            if (c.minb * c.tx * c.ty == resident[i] && c.minb != base.minb) try_cfg(s, c);
        }
    }
}

/* The model's first candidates (a first run measures only these, in one
   batch): the default, then by the H100 rounds' winners (docs/notes/
   stencil.md, rounds 5-8) for the stencil's family, with chunks from the
   occupancy and wave models above (default_chunk, wave_chunks):
   7-point (radius 1) one unrolled group of 2 planes at the widest vectors
   (32x8, 64x4); the 25-point (rank 3, radius >= 3, cp.async) the
   asynchronous march of 64x8 points two planes ahead at the wave model's
   chunk (capped at 3 blocks, as round 7 picked), then its unrolled column
   32x4 pd4 xv; radius 2 (heat order 4) a 2-plane group 32x4 with x
   vectors; rank 2 one group of 4 planes 128x1 with and without x vectors.
   Then, for every family, the pipelined march of 4-plane groups and the
   other group lengths.  The CPU's rows a task go from the default towards
   the rows whose planes fit in a core's share of the cache. */
static int model_candidates(search *s, const fdx_device_info *dev, fdx_stencil_cfg *out, int max)
{
    const fdx_stencil_kspec *ks = s->ks;
    const int64_t *n3 = s->n3;
    fdx_stencil_cfg d, c[32];
    int n = 0, got = 0;
    fdx_stencil_default_cfg(ks, dev, s->cuda, n3, &d);
    c[n++] = d;
    if (!s->cuda) {
        static const int rows[] = {4, 32, 2, 64, 8, 128};
        for (int i = 0; ks->rank == 3 && i < 6; i++) {
            c[n] = d, c[n].by = rows[i];
            c[n].chunk = default_chunk(ks, dev, 0, n3, &c[n]);
            n++;
        }
    } else if (ks->rank >= 2) {
        int vmax = max_vec(ks, n3[0]), planes = (int)(n3[2] - 2 * ks->radius);
        fdx_stencil_cfg g2 = unrolled(s, dev, d, vmax, 2, 0, 0, 0), g4 = unrolled(s, dev, d, vmax, 4, 0, 0, 0);
        if (plane_wanted(ks, dev)) {
            /* The plane tile, the model's tiles (plane_tile), chunks by waves. */
            for (int i = 0; i < 2; i++) {
                fdx_stencil_cfg w = ks->rank == 2    ? plane_tile(d, 256 >> i, 1, 1, 1, 0)
                                    : ks->is_double ? plane_tile(d, 32, 16, 1, 1 + i, i ? 0 : 2)
                                                    : plane_tile(d, 32, 16, 1, 2 - i, i ? 3 : 2);
                int ch[1];
                w.chunk = wave_chunks(s, dev, &w, planes, -1, ch, 1) ? ch[0] : default_chunk(ks, dev, 1, n3, &w);
                c[n++] = w;
            }
        }
        for (int i = 0; async2_wanted(ks, dev) && i < 2; i++) {
            /* rank 2: rows of 128 and 256 threads, chunks by waves */
            fdx_stencil_cfg w = async_row(d, ks, n3[0], 128 << i);
            int ch[1];
            w.chunk = wave_chunks(s, dev, &w, planes, -1, ch, 1) ? ch[0] : default_chunk(ks, dev, 1, n3, &w);
            c[n++] = w;
        }
        if (async_win_wanted(ks, dev, n3[0])) {
            /* Odd widths (issue 22's worst cases, float orders 8-12 at vec 1:
               0.45-0.50 of a same-size copy): whole-vector lanes from the tile,
               vec 2 first (ptxas, f32 order 12 wave: 78 registers at 32x8
               threads, three blocks a multiprocessor; vec 4 at 16x16: 181,
               one block). */
            for (int v = 2; v <= (ks->is_double ? 2 : 4); v *= 2) {
                if (v <= vmax) continue;
                fdx_stencil_cfg w = async_win(d, v, v == 4);
                int ch[1];
                w.chunk = wave_chunks(s, dev, &w, planes, -1, ch, 1) ? ch[0] : default_chunk(ks, dev, 1, n3, &w);
                c[n++] = w;
                if (zh_wanted(ks, dev)) {
                    /* zh on the 64x16-point tiles: the vec 4 tile itself, at
                       vec 2 zh's taller tile (two rows a thread). */
                    if (v == 4) c[n] = w, c[n++].zh = 1;
                    if (v == 2) {
                        c[n] = zh_tall(w, 2);
                        c[n].chunk = wave_chunks(s, dev, &c[n], planes, -1, ch, 1) ? ch[0]
                                                                                  : default_chunk(ks, dev, 1, n3, &c[n]);
                        n++;
                    }
                }
                if (ys_wanted(ks, dev) && v == 2) { /* vec 4 two rows: its copies of one value overflow the slots */
                    c[n] = ys_tile(w, 2);
                    c[n].chunk = wave_chunks(s, dev, &c[n], planes, -1, ch, 1) ? ch[0]
                                                                              : default_chunk(ks, dev, 1, n3, &c[n]);
                    n++;
                }
                /* The plain marches at vec 1 in the same run: on the H100
                   (session 7's A/B of the ten worst cases) they beat win on
                   five of them by 0.02-0.07 and lost on three by
                   0.05-0.10, so neither may be left to a later run. */
                if (v == 2)
                    for (int variant = FDX_SV_DIRECT; variant >= FDX_SV_SMEM; variant--) {
                        c[n] = d, c[n].variant = variant, c[n].vec = 1, c[n].pd = 1, c[n].xv = 0;
                        c[n].chunk = default_chunk(ks, dev, 1, n3, &c[n]);
                        n++;
                    }
            }
        }
        if (ks->rank == 3 && ks->radius >= 3 && dev->cc_major >= 8) {
            fdx_stencil_cfg a = d;
            a.variant = FDX_SV_ASYNC, a.vec = vmax, a.pd = 2, a.tx = 64 / vmax, a.ty = 8;
            a.zfast = a.pipe = a.win = a.xv = a.band = a.ry = a.zs = 0;
            a.minb = 3;
            int ch[2];
            a.chunk = wave_chunks(s, dev, &a, planes, -1, ch, 1) ? ch[0] : default_chunk(ks, dev, 1, n3, &a);
            c[n++] = a;
            if (zh_wanted(ks, dev) && !async_win_wanted(ks, dev, n3[0])) {
                /* zh's taller tile (on unaligned rows the win tiles' above). */
                c[n] = zh_tall(a, vmax);
                c[n].chunk = wave_chunks(s, dev, &c[n], planes, -1, ch, 1) ? ch[0] : default_chunk(ks, dev, 1, n3, &c[n]);
                n++;
            }
            if (cu_wanted(ks, dev, n3[0])) {
                /* the carried column on 16x16-thread tiles, unrolled */
                c[n] = cu_tile(a, ks, 0);
                c[n].chunk = wave_chunks(s, dev, &c[n], planes, -1, ch, 1) ? ch[0] : default_chunk(ks, dev, 1, n3, &c[n]);
                n++;
            }
            if (ys_wanted(ks, dev) && !async_win_wanted(ks, dev, n3[0])) {
                /* ys's tile (on unaligned rows the win tile's above); at vec
                   4 also at vec 2 (half the registers, 56 bytes a point). */
                for (int v = vmax; v >= (vmax == 4 ? 2 : vmax); v /= 2) {
                    c[n] = ys_tile(a, v);
                    c[n].chunk = wave_chunks(s, dev, &c[n], planes, -1, ch, 1) ? ch[0]
                                                                              : default_chunk(ks, dev, 1, n3, &c[n]);
                    n++;
                }
            }
            c[n] = g4, c[n].tx = 32, c[n].ty = 4, c[n].xv = vmax > 1, n++;
        } else if (ks->rank == 3 && ks->radius == 2) {
            c[n] = g2, c[n].tx = 32, c[n].ty = 4, c[n].xv = vmax > 1, n++;
            if (r2_async_wanted(ks, dev)) {
                /* the asynchronous march, 64x8 points at the widest vector
                   (odd widths: win), unrolled, two planes ahead */
                const int widest = ks->is_double ? 2 : 4;
                fdx_stencil_cfg a = d;
                a.variant = FDX_SV_ASYNC, a.vec = widest, a.win = vmax < widest, a.pd = 2, a.uz = 1;
                a.tx = 64 / widest, a.ty = 8;
                a.zfast = a.pipe = a.xv = a.band = a.ry = a.zs = a.zh = a.ys = a.b2 = a.minb = 0;
                int ch[1];
                a.chunk = wave_chunks(s, dev, &a, planes, -1, ch, 1) ? ch[0] : default_chunk(ks, dev, 1, n3, &a);
                c[n++] = a;
            }
        } else if (ks->rank == 3) {
            c[n] = g2, c[n].tx = 32, c[n].ty = 8, n++;
            c[n] = g2, c[n].tx = 64, c[n].ty = 4, n++;
        } else {
            c[n] = g4, c[n].tx = 128, c[n].xv = 0, n++;
            c[n] = g4, c[n].tx = 128, c[n].xv = vmax > 1, n++;
        }
        c[n++] = unrolled(s, dev, d, vmax, 4, 1, 1, 0);
        /* With the cu tile in the batch it takes the 2-plane group's place
           (no aligned radius 5-6 case of s12d's first runs picked that; the
           8-plane group, which the budget would drop instead, was picked on
           rs1-010, f64 order 10 570x1042x583). */
        if (!(ks->rank == 3 && cu_wanted(ks, dev, n3[0]))) c[n++] = g2;
        c[n++] = g4;
        c[n++] = unrolled(s, dev, d, vmax, 8, 0, 0, 0);
    }
    for (int i = 0; i < n && got < max; i++) {
        if (!normalize(s, &c[i])) continue;
        int seen = 0;
        for (int k = 0; k < got && !seen; k++) seen = memcmp(&out[k], &c[i], sizeof c[i]) == 0;
        if (!seen) out[got++] = c[i];
    }
    return got;
}

/* Times a batch (compiled ahead, in parallel, where the tuner can) and
   journals each time; a configuration that cannot run is journaled as
   INFINITY, so it is not tried again. */
typedef struct run_state {
    int warmed, measured;
    fdx_status first_failure; /* and its message: the error when nothing runs */
    char why[512];
} run_state;

static void measure(const fdx_stencil_tuner *t, int cuda, fdx_stencil_journal *j, const fdx_stencil_cfg *cfg, int n,
                    run_state *r)
{
    if (t->prepare && n > 1) t->prepare(t->arg, cfg, n);
    for (int i = 0; i < n && j->n < FDX_STENCIL_JOURNAL_MAX; i++) {
        double ms = INFINITY;
        char text[96];
        fdx_stencil_cfg_text(&cfg[i], cuda, text, sizeof text);
        /* The run's first trial pays for first touches, thread start-up
           and clocks ramping: it runs once more before it counts. */
        if (!r->warmed && t->trial(t->arg, &cfg[i], &ms) != FDX_OK) fdx_clear_error();
        r->warmed = 1;
        fdx_status st = t->trial(t->arg, &cfg[i], &ms);
        if (st != FDX_OK) {
            FDX_DEBUG("tuning: %s cannot run: %s", text, fdx_last_error());
            if (r->first_failure == FDX_OK)
                r->first_failure = st, snprintf(r->why, sizeof r->why, "%s: %s", text, fdx_last_error());
            fdx_clear_error();
            ms = INFINITY;
        } else {
            FDX_INFO("tuning: %-32s %.4f ms", text, ms);
        }
        j->cfg[j->n] = cfg[i];
        j->ms[j->n++] = ms;
        r->measured++;
    }
}

fdx_status fdx_stencil_tune_step(const fdx_stencil_kspec *ks, const fdx_device_info *dev, int cuda,
                                 const int64_t n3[3], const fdx_stencil_tuner *t, fdx_stencil_journal *j,
                                 fdx_stencil_cfg *best, int *measured)
{
    int budget = t->budget > 0 ? t->budget : FDX_STENCIL_JOURNAL_MAX;
    run_state r = {0, 0, FDX_OK, ""};
    *measured = 0;
    if (j->complete) {
        *best = j->best;
        return FDX_OK;
    }
    fdx_stencil_cfg want[FDX_STENCIL_JOURNAL_MAX];
    if (j->n == 0 && t->budget > 0) {
        search m;
        search_init(&m, ks, dev, n3, cuda, j, NULL, 0);
        int n = model_candidates(&m, dev, want, budget);
        measure(t, cuda, j, want, n, &r);
    }
    for (;;) {
        search s;
        int room = FDX_STENCIL_JOURNAL_MAX - j->n;
        search_init(&s, ks, dev, n3, cuda, j, want, budget - r.measured < room ? budget - r.measured : room);
        search_run(&s, dev);
        *measured = r.measured;
        if (!s.unknown) {
            if (s.best_ms == INFINITY)
                return fdx_fail(r.first_failure != FDX_OK ? r.first_failure : FDX_ERR_INTERNAL,
                                "tuning: no configuration of the stencil could run (%s)",
                                r.why[0] ? r.why : "all failed in earlier runs; --tune force retries");
            j->complete = 1;
            j->best = *best = s.best;
            return FDX_OK;
        }
        if (s.nwant == 0) break; /* this run's budget is spent (or the journal is full) */
        measure(t, cuda, j, want, s.nwant, &r);
    }
    /* Partial: the fastest measured so far, else the default. */
    double best_ms = INFINITY;
    fdx_stencil_default_cfg(ks, dev, cuda, n3, best);
    for (int i = 0; i < j->n; i++)
        if (j->ms[i] < best_ms) *best = j->cfg[i], best_ms = j->ms[i];
    *measured = r.measured;
    return FDX_OK;
}

fdx_status fdx_stencil_tune(const fdx_stencil_kspec *ks, const fdx_device_info *dev, int cuda, const int64_t n3[3],
                            fdx_stencil_trial_fn trial, void *arg, fdx_stencil_cfg *best)
{
    fdx_stencil_journal *j = calloc(1, sizeof *j);
    FDX_CHECK(j, FDX_ERR_NOMEM, "out of memory for the tuning journal");
    fdx_stencil_tuner t = {trial, NULL, arg, 0};
    int measured;
    fdx_status st = fdx_stencil_tune_step(ks, dev, cuda, n3, &t, j, best, &measured);
    free(j);
    return st;
}

static int log2_bucket(int64_t n)
{
    int b = 0;
    while (n > 1) n >>= 1, b++;
    return b;
}

void fdx_stencil_tune_key(const char *backend, const fdx_device_info *dev, const fdx_stencil_kspec *ks,
                          const int64_t n3[3], char key[33])
{
    char spec[32];
    fdx_stencil_kspec_text(ks, spec, sizeof spec);
    fdx_hash h;
    fdx_hash_init(&h);
    fdx_hash_add_str(&h, "stencil-tune-v12"); /* v6: the asynchronous march; v7: its taller tiles, chunks by waves;
                                                v8: on rows not aligned to its vector; v9: the plain marches in a
                                                first run on unaligned rows (the plane tile only with
                                                FDX_STENCIL_PLANE=1); v10: zh's 64x16-point tiles; v11: the
                                                asynchronous march in rank 2; v12: the carried column unrolled
                                                on 64x16-point tiles (FDX_STENCIL_CU) */
    fdx_hash_add_str(&h, backend);
    fdx_hash_add_str(&h, dev->name);
    fdx_hash_add(&h, &dev->sm_count, sizeof dev->sm_count);
    fdx_hash_add_str(&h, spec);
    int cls[4] = {log2_bucket(n3[0]), log2_bucket(n3[1]), log2_bucket(n3[2]), max_vec(ks, n3[0])};
    fdx_hash_add(&h, cls, sizeof cls);
    fdx_hash_hex(&h, key);
}
