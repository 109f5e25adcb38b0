/* fdx_temporal_cfg: what a temporally blocked configuration needs (fits,
   launch geometry, scratch), the candidates the tuner times, and its text. */
#include "stencil/fdx_temporal.h"

#include "core/fdx_knob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

int fdx_temporal_supports(const fdx_stencil_kspec *ks, const char **why)
{
    const char *w = ks->update == FDX_UPDATE_APPLY ? "only time steps (heat / Jacobi, wave) are blocked"
                    : ks->coef && ks->update == FDX_UPDATE_HEAT ? "heat with a coefficient array is not blocked"
                    : ks->sponge                  ? "a sponge is not blocked"
                    : ks->rank < 2                ? "rank 1 is not blocked (no marching axis)"
                                                  : NULL;
    if (why) *why = w;
    return w == NULL;
}

static size_t elem(const fdx_stencil_kspec *ks) { return ks->is_double ? 8 : 4; }

/* How many CPUs share cpu0's L2 (its hyperthreads), from sysfs; 1 where it
   cannot tell. */
static int l2_sharing(void)
{
    for (int i = 0; i < 8; i++) {
        char path[96], line[256];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f) break;
        int level = 0;
        int ok = fscanf(f, "%d", &level) == 1;
        fclose(f);
        if (!ok || level != 2) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
        if (!(f = fopen(path, "r"))) return 1;
        ok = fgets(line, sizeof line, f) != NULL;
        fclose(f);
        if (!ok) return 1;
        /* "0-1", "0,8", "0-1,16-17": count the CPUs */
        int n = 0;
        const char *p = line;
        while (*p >= '0' && *p <= '9') {
            char *end;
            long lo = strtol(p, &end, 10), hi = lo;
            if (*end == '-') hi = strtol(end + 1, &end, 10);
            n += hi >= lo ? (int)(hi - lo + 1) : 1;
            p = *end == ',' ? end + 1 : end;
        }
        return n > 0 ? n : 1;
    }
    return 1;
}

int64_t fdx_temporal_cpu_budget(int threads)
{
    long long cache = fdx_knob_int(FDX_KNOB_TEMPORAL_CPU_CACHE, 16 << 10, INT64_MAX, 0);
    if (cache) return cache;
    int64_t l2 = 1 << 20;
#ifdef _SC_LEVEL2_CACHE_SIZE
    long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (v >= 256 << 10 && v <= 16 << 20) l2 = v;
#endif
    /* More threads than L2s (hyperthreads: 16 threads on 8 cores): the
       threads on one core share its L2 (at most as many as it has
       hyperthreads: more threads than CPUs take turns, they do not add). */
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int sharing = l2_sharing();
    int64_t caches = online > 0 ? online / sharing : threads;
    if (caches < 1) caches = 1;
    int64_t per = threads > caches ? (threads + caches - 1) / caches : 1;
    if (per > sharing) per = sharing;
    return l2 / per;
}

/* Two sets of k planes of the tile with an r pad (an even number of
   values: 8-byte aligned after them), then with `nb` two 64-bit mbarriers a
   warp. */
static size_t smem_bytes(const fdx_stencil_kspec *ks, const fdx_temporal_cfg *c)
{
    int ry = ks->rank == 3 ? ks->radius : 0;
    return 2 * (size_t)c->k * (size_t)(fdx_temporal_tile_y(c, ks->rank) + 2 * ry) *
               (size_t)(fdx_temporal_tile_x(c, ks->rank) + 2 * ks->radius) * elem(ks) +
           (c->nb ? 16 * (size_t)(c->tx * c->ty / 32) : 0);
}

/* Blocks along x, y and the marching axis. */
static void grid_of(const fdx_stencil_kspec *ks, const fdx_temporal_cfg *c, const int64_t n3[3], int64_t g[3])
{
    int kr = c->k * ks->radius;
    g[0] = ceil_div(n3[0], fdx_temporal_tile_x(c, ks->rank) - 2 * kr);
    g[1] = ks->rank == 3 ? ceil_div(n3[1], fdx_temporal_tile_y(c, ks->rank) - 2 * kr) : 1;
    g[2] = ceil_div(n3[2] - 2 * ks->radius, c->chunk);
}

int fdx_temporal_fits(const fdx_stencil_kspec *ks, const fdx_temporal_cfg *c, int cuda, const int64_t n3[3])
{
    if (!fdx_temporal_supports(ks, NULL) || c->k < 1 || c->k > FDX_TEMPORAL_MAX_K || c->chunk < 1) return 0;
    int kr = c->k * ks->radius, r = ks->radius, ry = ks->rank == 3 ? r : 0;
    if (n3[0] <= 2 * r || n3[1] <= 2 * ry || n3[2] <= 2 * r) return 0;
    /* skew: rank 3 heat, slabs of at least 2r rows (a slab's rows of level
       t - 1 then cover what the slab above reads below its own). */
    if (!cuda && c->skew)
        return ks->rank == 3 && ks->update == FDX_UPDATE_HEAT && !c->direct && c->by >= 2 * r && c->bx >= 1;
    if (c->nt || c->v512) return 0; /* (streaming stores, vector width: the skewed slabs only) */
    /* nb: whole warps a row of threads (a warp's neighbours are the warps
       beside it and the warp rows above and below); in rank 2 a thread's
       points adjacent (points tx apart read the last warp's cells from
       the first warp) */
    if (c->i32 && (!cuda || n3[0] * n3[1] * n3[2] >= 0x7fffffffLL)) return 0;
    /* lc: CUDA; ll: heat, the rotated loop (its copies name the slot the
       load goes to), one plane in flight */
    if ((c->lc || c->ll) && !cuda) return 0;
    if (c->ll && (ks->update != FDX_UPDATE_HEAT || c->un != 2 * r + 1 || c->pd > 1)) return 0;
    /* fw: rank 3 (a warp is 32 tx of one thread row), the fast body's
       planes (fp) */
    if (c->fw && (!cuda || ks->rank != 3 || !c->fp || c->tx % 32 != 0)) return 0;
    if (c->nb && (!cuda || c->tx % 32 != 0 || (ks->rank == 2 && fdx_temporal_points(c) > 1 && !c->ax))) return 0;
    /* nr: rank 3, two of the 16 named barriers a group of rows of whole
       warps, the groups a group's points read distinct round the block */
    if (c->nr && (!cuda || ks->rank != 3 || c->tx % 32 != 0 || c->ty < 1 || c->ty % fdx_temporal_nr_group(c) != 0 || c->nb ||
                  c->ty / fdx_temporal_nr_group(c) < 2 * fdx_temporal_nr_reach(c, r) + 1))
        return 0;
    if (!cuda) return c->bx >= 1 && c->by >= 1 && (ks->rank == 3 || c->by == 1);
    int w = fdx_temporal_tile_x(c, ks->rank), h = fdx_temporal_tile_y(c, ks->rank);
    /* un: 0 / 1 the plain plane loop, 2r + 1 the rotated one (the body
       written out 2r + 1 times, register names rotating; session 8).  The
       session-7 `#pragma unroll` loop (any other un) gave wrong points on
       the H100 (test_temporal_gpu, rank 2 order 2 q3 pd2 u3, 2026-11-24
       03:18; the emulation, which ignores the pragma, agreed with single
       steps): refused. */
    if (c->nq < 0 || c->nq > FDX_TEMPORAL_MAX_POINTS || c->pd < 0 || c->pd > FDX_TEMPORAL_MAX_PD || c->un < 0 ||
        (c->un > 1 && c->un != 2 * r + 1) || (c->ax && ks->rank == 3))
        return 0;
    if (c->tx < 1 || c->ty < 1 || w <= 2 * kr || c->tx * c->ty > 1024 || (ks->rank == 3 ? h <= 2 * kr : c->ty != 1))
        return 0;
    /* 32-bit plane indices in the kernel. */
    if (n3[2] > 0x7fffff00LL) return 0;
    if (smem_bytes(ks, c) > FDX_TEMPORAL_MAX_SMEM) return 0;
    int64_t g[3];
    grid_of(ks, c, n3, g);
    return g[0] <= 0x7fffffff && g[1] <= 65535 && g[2] <= 65535;
}

fdx_status fdx_temporal_launch_dims(const fdx_stencil_kspec *ks, const fdx_temporal_cfg *c, const int64_t n3[3],
                                    fdx_launch_dims *d)
{
    FDX_CHECK(fdx_temporal_fits(ks, c, 1, n3), FDX_ERR_INTERNAL,
              "temporal configuration k%d %dx%d chunk %d does not fit %lldx%lldx%lld", c->k, c->tx, c->ty, c->chunk,
              (long long)n3[0], (long long)n3[1], (long long)n3[2]);
    int64_t g[3];
    grid_of(ks, c, n3, g);
    memset(d, 0, sizeof *d);
    d->grid[0] = (unsigned)g[0], d->grid[1] = (unsigned)g[1], d->grid[2] = (unsigned)g[2];
    d->block[0] = (unsigned)c->tx, d->block[1] = (unsigned)c->ty, d->block[2] = 1;
    d->shmem = smem_bytes(ks, c);
    return FDX_OK;
}

int fdx_temporal_skew_slack(void)
{
    return (int)fdx_knob_int(FDX_KNOB_TEMPORAL_CPU_SLACK, 1, 64, FDX_TEMPORAL_SKEW_SLACK);
}

/* FDX_TEMPORAL_CPU_DYN's N (0: fixed slabs). */
int fdx_temporal_cpu_dyn(void) { return (int)fdx_knob_int(FDX_KNOB_TEMPORAL_CPU_DYN, 0, 1000, 0); }

int fdx_temporal_cpu_code(void)
{
    const long long pf = fdx_knob_int(FDX_KNOB_TEMPORAL_CPU_PREFETCH, 0, 2, 0);
    const int dyn = fdx_temporal_cpu_dyn();
    return (dyn << 16) | (fdx_temporal_skew_slack() << 8) | (dyn ? FDX_TEMPORAL_CODE_DYN : 0) |
           (fdx_knob_int(FDX_KNOB_TEMPORAL_CPU_ALIGN, 0, 1, 1) ? FDX_TEMPORAL_CODE_ALIGN : 0) |
           (pf == 1 ? FDX_TEMPORAL_CODE_PREFETCH : 0) | (pf == 2 ? FDX_TEMPORAL_CODE_SPREAD : 0) |
           (fdx_knob_int(FDX_KNOB_TEMPORAL_CPU_STREAM, 0, 1, 0) ? FDX_TEMPORAL_CODE_OSPREAD : 0) |
           (fdx_knob_int(FDX_KNOB_TEMPORAL_CPU_STATS, 0, 1, 0) ? FDX_TEMPORAL_CODE_STATS : 0) |
           (!dyn && fdx_knob_int(FDX_KNOB_TEMPORAL_CPU_BALANCE, 0, 1, 1) ? FDX_TEMPORAL_CODE_BALANCE : 0) |
           (fdx_knob_int(FDX_KNOB_TEMPORAL_CPU_ROWS2, 0, 1, 0) ? FDX_TEMPORAL_CODE_ROWS2 : 0);
}

int64_t fdx_temporal_skew_row(const fdx_stencil_kspec *ks, const fdx_temporal_cfg *c, const int64_t n3[3])
{
    int64_t line = 64 / (int64_t)elem(ks), rows = n3[0] - 2 * ks->radius;
    int64_t bw = c->bx < rows ? c->bx : rows;
    return ceil_div(bw + 2LL * c->k * ks->radius, line) * line + line;
}

/* skew: a slab's rings (levels 1 .. k - 1, 2r + 1 planes each, of by + (k
   - 1) r rows: the last slab also holds the rows above its own that the
   levels still have), its edge rings (2r + 1 + slack planes of 2r rows,
   the rows the slab above reads) and two row buffers (the last level's
   rows before their streaming stores), with spread streaming
   (FDX_TEMPORAL_CODE_OSPREAD, nt) a plane buffer of by + k r rows before
   them, a multiple of 16 values. */
static int64_t skew_per_slab(const fdx_stencil_kspec *ks, const fdx_temporal_cfg *c, const int64_t n3[3])
{
    int r = ks->radius;
    int64_t by = c->by < n3[1] - 2 * r ? c->by : n3[1] - 2 * r;
    /* balanced slabs: up to 1.5 by rows (fdx_temporal_emit_skew's bym) */
    if (fdx_temporal_cpu_code() & FDX_TEMPORAL_CODE_BALANCE) by += by / 2;
    int64_t v = ((int64_t)(c->k - 1) * ((2 * r + 1) * (by + (int64_t)(c->k - 1) * r) +
                                        (2 * r + 1 + fdx_temporal_skew_slack()) * 2 * r) + 2 +
                 (c->nt && (fdx_temporal_cpu_code() & FDX_TEMPORAL_CODE_OSPREAD) ? by + (int64_t)c->k * r : 0)) *
                fdx_temporal_skew_row(ks, c, n3);
    return ceil_div(v, 16) * 16;
}

int64_t fdx_temporal_scratch_values(const fdx_stencil_kspec *ks, const fdx_temporal_cfg *c, const int64_t n3[3],
                                    int threads)
{
    if (!c->skew) return fdx_temporal_scratch_per_thread(ks, c, n3) * (threads > 0 ? threads : 1);
    int r = ks->radius;
    int64_t slabs = ceil_div(n3[1] - 2 * r, c->by > 0 ? c->by : 1);
    /* then a progress counter a slab, 128 bytes apart, and (dynamic
       slabs, fdx_temporal_emit_skew) a claim a slab and the home ranges'
       threads + 1 bounds, each on 128 bytes of its own */
    return slabs * skew_per_slab(ks, c, n3) + (2 * slabs + (threads > 0 ? threads : 1) + 1) * 128 / (int64_t)elem(ks);
}

int64_t fdx_temporal_scratch_per_thread(const fdx_stencil_kspec *ks, const fdx_temporal_cfg *c, const int64_t n3[3])
{
    if (c->skew) return skew_per_slab(ks, c, n3);
    int kr = c->k * ks->radius, r = ks->radius;
    int64_t bx = c->bx < n3[0] - 2 * r ? c->bx : n3[0] - 2 * r;
    int64_t ew = bx + 2 * kr, eh = ks->rank == 3 ? (c->by < n3[1] - 2 * r ? c->by : n3[1] - 2 * r) + 2 * kr : 1;
    int64_t rings = c->k - (c->direct != 0);
    return (rings > 0 ? rings : 1) * (2 * r + 1) * ew * eh;
}

/* CUDA: blocks of this configuration a multiprocessor holds, as far as the
   host can tell before compiling: threads (2048), shared memory (the
   opt-in limit plus 1 KB a multiprocessor, 1 KB reserved a block) and
   registers (65536), taking the counts ptxas gives on sm_90: several points
   a thread about 64 (float) or 120 (double), one point 32 or 56. */
static int resident_blocks(const fdx_stencil_kspec *ks, const fdx_device_info *dev, const fdx_temporal_cfg *c)
{
    int64_t threads = (int64_t)c->tx * c->ty;
    int64_t per_sm = (dev->smem_per_block_optin > 0 ? (int64_t)dev->smem_per_block_optin : 227 * 1024) + 1024;
    int64_t regs = fdx_temporal_points(c) > 1 ? (ks->is_double ? 120 : 64) : (ks->is_double ? 56 : 32);
    int64_t n = 2048 / threads, by_smem = per_sm / ((int64_t)smem_bytes(ks, c) + 1024), by_regs = 65536 / (threads * regs);
    if (by_smem < n) n = by_smem;
    if (by_regs < n) n = by_regs;
    return n < 1 ? 1 : (int)n;
}

/* CUDA rank 3: the planes a block that make whole waves.  Blocks of one
   configuration take about the same time, so a pass takes (waves of
   `slots` blocks, the last one counting whole) x (chunk + 2 k r planes):
   the split of the marching axis with the least of that.  (512^3 float,
   k4 64x8 q4, 220 tiles on 264 slots: chunk 85, 5 full waves, 465
   plane-times, against the 1024/2048-thread rule's chunk 170: 2.5 waves
   taking 3, 534.) */
static int balanced_chunk(const fdx_stencil_kspec *ks, const fdx_temporal_cfg *c, const int64_t n3[3], int64_t tiles,
                          int64_t slots)
{
    int64_t planes = n3[2] - 2 * ks->radius, halo = 2LL * c->k * ks->radius, best = planes, best_cost = -1;
    if (planes < 1) return 1;
    for (int64_t s = 1; s <= 64 && s <= planes; s++) {
        int64_t ch = ceil_div(planes, s);
        if (s > 1 && ch < halo) break; /* more recomputed than own planes */
        int64_t cost = ceil_div(tiles * ceil_div(planes, ch), slots) * (ch + halo);
        if (best_cost < 0 || cost < best_cost) best_cost = cost, best = ch;
    }
    return best > 1 << 30 ? 1 << 30 : (int)best;
}

/* Planes per block or task: enough blocks (tasks) for `target`, each long
   against the 2 k r planes it reads beyond its own (at least 8 k r). */
static int chunk_for(const fdx_stencil_kspec *ks, const fdx_temporal_cfg *c, const int64_t n3[3], int64_t tiles,
                     int64_t target)
{
    int64_t planes = n3[2] - 2 * ks->radius, splits = ceil_div(target, tiles > 0 ? tiles : 1);
    int64_t ch = ceil_div(planes, splits > 0 ? splits : 1), least = 8LL * c->k * ks->radius;
    if (ch < least) ch = least;
    if (ch > planes) ch = planes;
    return ch < 1 ? 1 : ch > 1 << 30 ? 1 << 30 : (int)ch;
}

int fdx_temporal_chunk(const fdx_stencil_kspec *ks, const fdx_device_info *dev, int cuda, const int64_t n3[3],
                       const fdx_temporal_cfg *c)
{
    int64_t sms = dev->sm_count > 0 ? dev->sm_count : 1;
    int kr = c->k * ks->radius, rank3 = ks->rank == 3;
    if (!cuda) {
        /* Tasks run in whole rounds of the threads (static schedule), each
           about as long as its planes plus the 2 k r it recomputes: the
           split with the least rounds x planes (session 8; was: the least
           split giving 2 tasks a thread, e.g. 512^3 k4 on 16 threads, 40
           full-row tiles: 3 rounds of 518 planes, now 5 of 263). */
        int64_t bx = c->bx > 0 ? c->bx : 1, by = c->by > 0 ? c->by : 1;
        return balanced_chunk(ks, c, n3,
                              ceil_div(n3[0] - 2 * ks->radius, bx) * (rank3 ? ceil_div(n3[1] - 2 * ks->radius, by) : 1),
                              sms);
    }
    int w = fdx_temporal_tile_x(c, ks->rank), h = fdx_temporal_tile_y(c, ks->rank);
    if (w <= 2 * kr || (rank3 && h <= 2 * kr) || c->tx * c->ty < 1) return 1;
    int64_t tiles = ceil_div(n3[0], w - 2 * kr) * (rank3 ? ceil_div(n3[1], h - 2 * kr) : 1);
    if (rank3) return balanced_chunk(ks, c, n3, tiles, sms * resident_blocks(ks, dev, c));
    /* Rank 2 (rank 3 returned above) has few tiles (16384 wide: 16-70):
       about four waves of two resident 1024-thread blocks a multiprocessor
       (its 256-thread, chunk 265 tile measured 2.80, the 3.03 best). */
    int threads = c->tx * c->ty > 1024 ? 1024 : c->tx * c->ty;
    return chunk_for(ks, c, n3, tiles, 8 * sms * (1024 / threads));
}

/* "k4 32x8 q4 pd2 chunk 64": any of the words, in any order; the rest of
   the configuration stays as `c` had it. */
fdx_status fdx_temporal_cfg_parse(const char *text, fdx_temporal_cfg *c)
{
    memset(c, 0, sizeof *c);
    const char *p = text;
    int cpu = 0;
    while (*p) {
        while (*p == ' ' || *p == ',') p++;
        if (!*p) break;
        int a = 0, b = 0, used = 0;
        if (sscanf(p, "chunk %d%n", &a, &used) == 1 && a > 0) c->chunk = a;
        else if (sscanf(p, "pd%d%n", &a, &used) == 1 && a >= 1 && a <= FDX_TEMPORAL_MAX_PD) c->pd = a;
        else if (sscanf(p, "q%d%n", &a, &used) == 1 && a >= 1 && a <= FDX_TEMPORAL_MAX_POINTS) c->nq = a;
        else if (sscanf(p, "u%d%n", &a, &used) == 1 && a >= 1 && a <= FDX_TEMPORAL_MAX_UNROLL) c->un = a;
        else if (sscanf(p, "k%d%n", &a, &used) == 1 && a >= 1 && a <= FDX_TEMPORAL_MAX_K) c->k = a;
        else if (sscanf(p, "%dx%d%n", &a, &b, &used) == 2 && a >= 1 && b >= 1) c->tx = a, c->ty = b;
        else if (strncmp(p, "temporal", 8) == 0) used = 8;
        else if (strncmp(p, "cpu", 3) == 0) used = 3, cpu = 1;
        else if (strncmp(p, "direct", 6) == 0) used = 6, c->direct = 1;
        else if (strncmp(p, "skew", 4) == 0) used = 4, c->skew = 1;
        else if (strncmp(p, "nt", 2) == 0) used = 2, c->nt = 1;
        else if (strncmp(p, "v512", 4) == 0) used = 4, c->v512 = 1;
        else if (strncmp(p, "fp", 2) == 0) used = 2, c->fp = 1;
        else if (strncmp(p, "ax", 2) == 0) used = 2, c->ax = 1;
        else if (strncmp(p, "nb", 2) == 0) used = 2, c->nb = 1;
        else if (strncmp(p, "nr", 2) == 0) used = 2, c->nr = 1;
        else if (strncmp(p, "i32", 3) == 0) used = 3, c->i32 = 1;
        else if (strncmp(p, "lc", 2) == 0) used = 2, c->lc = 1;
        else if (strncmp(p, "ll", 2) == 0) used = 2, c->ll = 1;
        else if (strncmp(p, "fw", 2) == 0) used = 2, c->fw = 1;
        else used = 0;
        FDX_CHECK(used > 0, FDX_ERR_INVALID,
                  "temporal configuration '%s': cannot read '%s' (words: kN, TXxTY, qN 1..%d, pdN 1..%d, uN 1..%d, fp, fw, ax, nb, nr, i32, lc, ll, chunk N; "
                  "CPU: cpu BXxBY, direct, skew, nt, v512)",
                  text, p, FDX_TEMPORAL_MAX_POINTS, FDX_TEMPORAL_MAX_PD, FDX_TEMPORAL_MAX_UNROLL);
        p += used;
    }
    FDX_CHECK(c->tx > 0, FDX_ERR_INVALID, "temporal configuration '%s' names no %s", text,
              cpu ? "tile BXxBY" : "threads TXxTY");
    /* CPU ("cpu 510x34"): the tile's interior points; CUDA: threads a block. */
    if (cpu) c->bx = c->tx, c->by = c->ty, c->tx = c->ty = 0;
    else FDX_CHECK(c->tx * c->ty <= 1024, FDX_ERR_INVALID, "temporal configuration '%s': %dx%d threads (at most 1024)",
                   text, c->tx, c->ty);
    return FDX_OK;
}

static int add(const fdx_stencil_kspec *ks, const fdx_device_info *dev, int cuda, const int64_t n3[3],
               fdx_temporal_cfg c, fdx_temporal_cfg *out, int n, int max)
{
    if (n >= max || !fdx_temporal_fits(ks, &c, cuda, n3)) return n;
    for (int i = 0; i < n; i++) /* the CPU's half budget may give the same tile */
        if (memcmp(&out[i], &c, sizeof c) == 0) return n;
    /* The device's opt-in limit, where it is known. */
    if (cuda && dev->smem_per_block_optin > 0 && smem_bytes(ks, &c) > dev->smem_per_block_optin) return n;
    out[n] = c;
    return n + 1;
}

int fdx_temporal_candidates(const fdx_stencil_kspec *ks, const fdx_device_info *dev, int cuda, const int64_t n3[3],
                            int depth, fdx_temporal_cfg *out, int max)
{
    int n = 0, r = ks->radius, rank3 = ks->rank == 3;
    int64_t sms = dev->sm_count > 0 ? dev->sm_count : 1;
    static const int all[] = {8, 6, 4, 3, 2};
    const int *depths = all, nd = depth > 0 ? 1 : 5;
    if (depth > 0) depths = &depth;
    if (cuda) {
        /* Tiles of threads with their halo: first several points a thread
           (rows in rank 3: their y neighbours from registers, fewer shared
           loads; rank 2: more points and planes in flight a thread), then
           one point a thread.  With depth <= 0 (auto) a depth is a candidate
           while the tile keeps at least half its width and, in rank 3, a
           quarter of its rows as points of its own, and only the first
           `auto_tiles` tiles are timed (rank 3: four). */
        /* H100, 2026-11-24 (per-step ratio to copy): 3D float k4 64x8 q4
           1.85, 32x8 q4 pd2 1.57, 32x32 1.34; double k3 32x8 q4 pd2 1.85,
           32x32 1.79; 2D float k8 256 q4 pd2 2.53 against 256 one point
           2.80 (previous session): rank 2 keeps one point a thread first. */
        /* Session 7: 64x16 q4, a 64x64 tile (float k4: 77% own points
           against 64x8 q4's 66%; 63 registers, 139 KB of shared planes: one
           block of 32 warps a multiprocessor, as many warps as two 64x8 q4
           blocks), and 32x16 q4 (a 32x64 tile, double's 16 warps in one
           block) where auto times them; 128x8 q4 (a 128x32 tile) for A/B.
           Double keeps off the 1024-thread several-point tiles (over 100
           registers a thread: they would spill at 64). */
        /* Session 11 (H100, s11b, verified): the 1024-thread tiles lead.
           Float k4 64x16 q3 (a 64x48 tile, 73% own points; 54 registers;
           130 tiles at 512^3: one wave of whole-column blocks, chunk 510)
           1.942 against 64x8 q4 1.862 in the same run; double k3 64x16 q2
           fp (a 64x32 tile, 56 registers) 2.132 (s11e; with neighbour
           barriers 2.096-2.110) against 32x16 q4 fp 2.022.  64x16 q4 (1.78
           in session 7) and 128x8 q4 (1.55) moved to the end. */
        static const fdx_temporal_cfg tiles3[] = {{0, 64, 16, 0, 0, 0, 3, 1}, {0, 64, 16, 0, 0, 0, 2, 1},
                                                  {0, 64, 8, 0, 0, 0, 4, 1},  {0, 32, 16, 0, 0, 0, 4, 1},
                                                  {0, 32, 8, 0, 0, 0, 4, 2},  {0, 32, 32, 0, 0, 0, 1, 1},
                                                  {0, 32, 8, 0, 0, 0, 8, 1},  {0, 64, 16, 0, 0, 0, 1, 1},
                                                  {0, 32, 16, 0, 0, 0, 1, 1}, {0, 64, 16, 0, 0, 0, 4, 1},
                                                  {0, 128, 8, 0, 0, 0, 4, 1}};
        static const fdx_temporal_cfg tiles2[] = {{0, 256, 1, 0, 0, 0, 1, 1}, {0, 256, 1, 0, 0, 0, 1, 2},
                                                  {0, 1024, 1, 0, 0, 0, 1, 1}, {0, 256, 1, 0, 0, 0, 4, 2},
                                                  {0, 512, 1, 0, 0, 0, 1, 1}, {0, 128, 1, 0, 0, 0, 8, 1}};
        /* FDX_TEMPORAL_AX=1 (rank 2): first two points a thread adjacent
           along x (ax; x neighbours from registers: the order-8 wave's 8
           shared loads a point and level become ~3, at twice the registers). */
        static const fdx_temporal_cfg tiles2ax[] = {{0, 128, 1, 0, 0, 0, 2, 1, 0, 0, 1}, {0, 256, 1, 0, 0, 0, 1, 1},
                                                    {0, 256, 1, 0, 0, 0, 1, 2},           {0, 1024, 1, 0, 0, 0, 1, 1}};
        const int ax = !rank3 && fdx_knob_is(FDX_KNOB_TEMPORAL_AX, "1");
        const fdx_temporal_cfg *tiles = rank3 ? tiles3 : ax ? tiles2ax : tiles2;
        const int ntiles = rank3 ? 11 : ax ? 4 : 6, auto_tiles = rank3 ? 4 : ax ? 4 : 3;
        /* late 1: the 1024-thread tiles of several points a thread (64
           registers) where ptxas (sm_90) spills, after every other tile
           (an asked depth takes them only where nothing else fits, e.g.
           float order 8 at depth 4: 64x16 q4).  Register columns q k (2r +
           1) (ptxas, 64x16): float spills past 48 (q3 k6 r1 4 bytes, q4
           k6 220; q3 k5, q2 k8, q2 k4 r2, q2 k3 r3 fit), and with three
           points at radius 3 (q3 k2: 16 bytes), any at radius 4; double
           past 18 (q2 k4 r1 fp: 8 bytes) or at radius 2 (q2 k2 fp: 20);
           double with more than two points is not tried (over 100). */
        for (int late = 0; late < 2; late++)
        for (int d = 0; d < nd; d++)
            for (int i = 0; i < ntiles; i++) {
                fdx_temporal_cfg c = tiles[i];
                c.k = depths[d];
                int kr = c.k * r, w = fdx_temporal_tile_x(&c, ks->rank), h = fdx_temporal_tile_y(&c, ks->rank);
                if (w <= 2 * kr || (rank3 && h <= 2 * kr) || (depth <= 0 && i >= auto_tiles)) continue;
                if (ks->is_double && c.tx * c.ty >= 1024 && c.nq > 2) continue;
                const int cols = c.nq * c.k * (2 * r + 1);
                const int spills = c.tx * c.ty >= 1024 && c.nq > 1 &&
                                   (ks->is_double ? r > 1 || cols > 18 : cols > 48 || (c.nq > 2 && r > 2) || r > 3);
                if (spills != late) continue;
                if (depth <= 0 && (w - 2 * kr < w / 2 || (rank3 && h - 2 * kr < h / 4))) continue;
                /* H100 session 8 (temporal-s8a, verified): the inner blocks'
                   fast body lifts double k3 32x16 q4 from 1.958 to 2.024; in
                   float (64x8 q4: 1.804 -> 1.340, a spill) it loses. */
                if (rank3 && ks->is_double) c.fp = 1;
                /* Session 11 (s11e, verified): float k4 64x16 q3 with the
                   rotated loop and the fast body 2.126 (u3 2.040, fp 2.037,
                   plain 1.93): at 1024 threads both fit the 64 registers
                   (59; they lost on 64x8 q4 only by passing 64).  Radius 1
                   and depths up to 4 only (measured; radius 2 u5 fp and k5
                   u3 fp spill). */
                if (rank3 && !ks->is_double && r == 1 && c.k <= 4 && c.tx * c.ty >= 1024 && c.nq == 3) {
                    c.un = 3, c.fp = 1;
                    /* Session 11 (s11m, verified, same run): 32-bit element
                       offsets lift it to 2.372 (2.130-2.152 without; ncu
                       had the integer pipe busiest); double unchanged
                       (2.121 / 2.122), so float only, where the array's
                       points fit an int (fdx_temporal_fits' bound). */
                    c.i32 = n3[0] * n3[1] * n3[2] < 0x7fffffffLL;
                    /* Session 12 (s12f, verified, same run): the fast body
                       on every block, a warp at a time (fw: the edge blocks,
                       which one wave of tiles waits for, stop running the
                       full body) 0.1471 ms a step against 0.1533 / 0.1530
                       (2.468 against 2.373 / 2.398); clamped and late loads
                       (lc ll) lost, 0.1723 alone and 0.1539 / 0.1557 with fw.
                       s12j: three planes in flight with clamped loads (pd3
                       lc fw) 0.1435 (2.528) against fw's 0.1475 / 0.1458
                       (pd1 lc fw 0.1517 twice, pd2 lc fw 0.1828 / 0.1814,
                       pd2 fw 0.1489); s12m: pd3 lc fw 0.1426 / 0.1427
                       (2.548 twice), auto with it 0.1418 (2.559), pd1 fw
                       0.1475, pd3 fw 0.1498, pd1 lc fw 0.1519, pd4 lc fw
                       (64 registers) 0.1768. */
                    c.fw = 1, c.lc = 1, c.pd = 3;
                }
                c.chunk = fdx_temporal_chunk(ks, dev, cuda, n3, &c);
                n = add(ks, dev, cuda, n3, c, out, n, max);
                /* FDX_TEMPORAL_ROTATE=1: each tile also with the rotated
                   plane loop (not by default until the H100 has verified
                   and timed it: more registers, no column moves). */
                if (fdx_knob_is(FDX_KNOB_TEMPORAL_ROTATE, "1")) {
                    c.un = 2 * r + 1;
                    n = add(ks, dev, cuda, n3, c, out, n, max);
                    c.un = 0;
                }
                /* FDX_TEMPORAL_INNER=1: also with the inner blocks' fast
                   body (and rotated, where both are asked for). */
                if (fdx_knob_is(FDX_KNOB_TEMPORAL_INNER, "1")) {
                    c.fp = 1;
                    n = add(ks, dev, cuda, n3, c, out, n, max);
                    if (fdx_knob_is(FDX_KNOB_TEMPORAL_ROTATE, "1")) c.un = 2 * r + 1, n = add(ks, dev, cuda, n3, c, out, n, max);
                }
            }
        return n;
    }
    /* CPU: each thread's rings (k levels of 2r + 1 planes of the tile and
       its halo) within its share of an L2 (fdx_temporal_cpu_budget), and
       (auto only) within half of it: the tuner decides between more halo
       and more cache misses; full rows in rank 3 where that leaves enough
       rows, else tiles 256 or 128 wide. */
    /* Skewed slabs first (rank 3 heat; fdx_temporal_gen_skew.c): a slab a
       thread, no rows recomputed, so every depth (8 .. 2 in auto).  On this
       2-core EPYC (one thread, 512x34x512 double: a 16-core host thread's
       share of 512^3) k4 took 8.6-8.9 ms a step against 11.6-14.0 (full-row
       direct tile) and 12.9-17.1 (the 16-core host's session-8 pick). */
    /* Streaming stores first (an asked depth takes the first) where the
       grid outgrows the last-level cache: the output goes to memory anyway,
       without its read for ownership (16-core host, 512^3 double, tuning
       in session 9: k4 17.5 against 19.3 ms a step, k8 19.4 / 24.3, k3
       20.9 / 23.9); plain stores first where it may stay cached. */
    const int64_t grid = n3[0] * n3[1] * n3[2] * (int64_t)elem(ks);
    const int nt_first = grid > (dev->l2_bytes > 0 ? (int64_t)dev->l2_bytes : (int64_t)32 << 20);
    /* Dynamic slabs (FDX_TEMPORAL_CPU_DYN): FDX_TEMPORAL_DYN_SLABS slabs a
       thread, so a range can give one away. */
    const int64_t spt = fdx_temporal_cpu_dyn() > 0 ? FDX_TEMPORAL_DYN_SLABS : 1;
    if (rank3 && ks->update == FDX_UPDATE_HEAT)
        for (int d = 0; d < nd; d++) {
            int64_t rows = n3[1] - 2 * r, by = ceil_div(rows, sms * spt), cols = n3[0] - 2 * r;
            if (by < 2 * r) by = 2 * r;
            fdx_temporal_cfg c = {depths[d], 0, 0, (int)(n3[2] - 2 * r), (int)cols, (int)by, 0, 0};
            c.skew = 1;
            c.nt = nt_first;
            n = add(ks, dev, cuda, n3, c, out, n, max);
            if (depth > 0) continue;
            /* and with the other stores (auto only) */
            c.nt = !nt_first;
            n = add(ks, dev, cuda, n3, c, out, n, max);
            /* Where the hot rings ((k - 1) levels x (2r + 1) planes of a
               slab) take more than half a thread's cache budget: x blocks
               (the threads take them one after the other) of about equal
               width that fit it, each recomputing (k - t) r columns a
               side at level t; while that stays under a quarter of the
               block (auto only; session 9). */
            double col = (double)(c.k - 1) * (2 * r + 1) * (double)(by * spt) * (double)elem(ks);
            int64_t fit = (int64_t)(fdx_temporal_cpu_budget((int)sms) / 2 / col) - 2LL * c.k * r;
            if (c.k > 1 && fit < cols && fit >= 8LL * c.k * r) {
                int64_t nb = ceil_div(cols, fit);
                c.bx = (int)ceil_div(cols, nb);
                c.nt = nt_first;
                n = add(ks, dev, cuda, n3, c, out, n, max);
                c.nt = !nt_first;
                n = add(ks, dev, cuda, n3, c, out, n, max);
            }
        }
    const double full = (double)fdx_temporal_cpu_budget((int)sms);
    for (int d = depth > 0 ? 0 : 2; d < nd; d++)
        for (int half = 0; half < (depth > 0 || !rank3 ? 1 : 2); half++) {
            int k = depths[d], kr = k * r;
            double budget = half ? full / 2 : full;
            if (rank3) {
                static const int64_t widths[] = {0, 256, 128};
                for (int i = 0; i < 3; i++) {
                    int64_t bx = widths[i] ? widths[i] : n3[0] - 2 * r;
                    if (widths[i] && widths[i] >= n3[0] - 2 * r) continue;
                    double row = (double)k * (2 * r + 1) * (double)(bx + 2 * kr) * (double)elem(ks);
                    int64_t by = (int64_t)(budget / row) - 2 * kr;
                    if (by < 2 * kr && (depth <= 0 || by < 1)) continue; /* the halo would outweigh the tile */
                    if (by > n3[1] - 2 * r) by = n3[1] - 2 * r;
                    fdx_temporal_cfg c = {k, 0, 0, 1, (int)bx, (int)by, 0, 0};
                    c.chunk = fdx_temporal_chunk(ks, dev, cuda, n3, &c);
                    n = add(ks, dev, cuda, n3, c, out, n, max);
                    /* `direct` (level 1 reads the input in place): lost
                       5-20% on the 2-core EPYC at 256^3, won 5% on the
                       16-core host (session 8, 1.052 against 1.003 of
                       copy): the full-budget full-row tiles in auto also
                       with it (session 9). */
                    if (depth <= 0 && !half && i == 0) {
                        c.direct = 1;
                        n = add(ks, dev, cuda, n3, c, out, n, max);
                    }
                }
            } else {
                static const int64_t widths[] = {4096, 1024};
                for (int i = 0; i < 2; i++) {
                    int64_t bx = widths[i] < n3[0] - 2 * r ? widths[i] : n3[0] - 2 * r;
                    fdx_temporal_cfg c = {k, 0, 0, 1, (int)bx, 1, 0, 0};
                    c.chunk = fdx_temporal_chunk(ks, dev, cuda, n3, &c);
                    n = add(ks, dev, cuda, n3, c, out, n, max);
                }
            }
        }
    /* An asked-for depth always has a CPU tile: 128 wide, 8 rows. */
    if (n == 0 && depth > 0) {
        fdx_temporal_cfg c = {depth, 0, 0, 1, (int)(n3[0] - 2 * r < 128 ? n3[0] - 2 * r : 128),
                              rank3 ? (int)(n3[1] - 2 * r < 8 ? n3[1] - 2 * r : 8) : 1, 0, 0};
        c.chunk = fdx_temporal_chunk(ks, dev, cuda, n3, &c);
        n = add(ks, dev, cuda, n3, c, out, n, max);
    }
    return n;
}

void fdx_temporal_cfg_text(const fdx_temporal_cfg *c, int cuda, char *buf, size_t n)
{
    if (cuda)
        snprintf(buf, n, "temporal k%d %dx%d q%d pd%d%s%.0d%s%s%s%s%s%s%s%s chunk %d", c->k, c->tx, c->ty, fdx_temporal_points(c),
                 c->pd > 1 ? c->pd : 1, c->un > 1 ? " u" : "", c->un > 1 ? c->un : 0, c->fp ? " fp" : "",
                 c->ax ? " ax" : "", c->nb ? " nb" : "", c->nr ? " nr" : "", c->i32 ? " i32" : "", c->lc ? " lc" : "",
                 c->ll ? " ll" : "", c->fw ? " fw" : "", c->chunk);
    else snprintf(buf, n, "temporal k%d cpu %dx%d%s%s%s%s chunk %d", c->k, c->bx, c->by, c->direct ? " direct" : "",
                  c->skew ? " skew" : "", c->nt ? " nt" : "", c->v512 ? " v512" : "", c->chunk);
}
