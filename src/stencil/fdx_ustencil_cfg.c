/* fdx_ustencil_cfg: a user stencil kernel's configurations (default, the
   tuner's candidates, fit, text), its parameter block and CUDA launch
   geometry. */
#include "stencil/fdx_ustencil_impl.h"

#include <stdio.h>
#include <string.h>

/* The tile march's shared memory: pf + 1 stages of the block's tile
   (tx vec + 2 rx by ty rows + 2 ry values) for each field read in a plane. */
size_t fdx_us_tile_bytes(const fdx_us_spec *ks, const fdx_us_cfg *cfg)
{
    const int rows = cfg->rows > 1 ? cfg->rows : 1;
    const size_t w = (size_t)cfg->tx * cfg->vec + 2 * ks->rx, h = ks->rank == 3 ? (size_t)cfg->ty * rows + 2 * ks->ry : 1;
    return (size_t)(ks->ninputs + ks->ncoefs) * (size_t)(cfg->pf + 1) * w * h * (ks->is_double ? 8 : 4);
}

int fdx_us_cfg_fits(const fdx_us_spec *ks, const fdx_us_cfg *cfg, const int64_t n3[3])
{
    if (cfg->variant < FDX_US_POINT || cfg->variant > FDX_US_TILE) return 0;
    if (cfg->tx < 1 || cfg->ty < 1 || cfg->tx * cfg->ty > 1024 || (ks->rank < 3 && cfg->ty != 1)) return 0;
    if (cfg->minb < 0 || cfg->minb * cfg->tx * cfg->ty > 2048) return 0;
    if (cfg->variant == FDX_US_POINT) return n3[2] - 2 * ks->rm <= 65535;
    int vec_ok = cfg->vec == 1 || cfg->vec == 2 || (cfg->vec == 4 && !ks->is_double);
    int vload_ok = !cfg->vload || (cfg->vec > 1 && ks->ncomp == 1 && n3[0] % cfg->vec == 0 && 2 * ks->rx % cfg->vec == 0);
    /* the tile: one component, no lane shift at the row's end (its tile
       columns are the block's), in-plane offsets in 32 bits, pf planes in
       flight, no vector loads or register pipeline (the tile is both) */
    if (cfg->variant == FDX_US_TILE &&
        (ks->ncomp != 1 || (n3[0] - 2 * ks->rx) % cfg->vec || n3[0] * n3[1] >= 0x7fffffffLL || cfg->pf < 1 ||
         cfg->pf > 4 || cfg->vload || cfg->pipe || fdx_us_tile_bytes(ks, cfg) > FDX_US_MAX_SMEM))
        return 0;
    return fdx_us_march_ok(ks) && vec_ok && vload_ok && n3[0] - 2 * ks->rx >= cfg->vec && cfg->chunk >= 1 &&
           cfg->unroll >= 1 && cfg->unroll <= 8 && cfg->pf >= 0 && cfg->pf <= 16 && cfg->rows >= 0 && cfg->rows <= 4 &&
           (cfg->rows <= 1 || ks->rank == 3) && (cfg->pipe == 0 || cfg->pipe == 1);
}

/* Planes a block of the march: about 64, fewer for short grids. */
static int march_chunk(const fdx_us_spec *ks, const int64_t n3[3], int want)
{
    int64_t planes = n3[2] - 2 * ks->rm;
    return planes < want ? (int)(planes > 0 ? planes : 1) : want;
}

void fdx_us_default_cfg(const fdx_us_spec *ks, int cuda, const int64_t n3[3], fdx_us_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->variant = FDX_US_POINT;
    cfg->tx = ks->rank == 3 ? 32 : 128, cfg->ty = ks->rank == 3 ? 8 : 1;
    cfg->vec = 1, cfg->unroll = 1, cfg->chunk = 1;
    if (!cuda) return;
    fdx_us_cfg m = {FDX_US_MARCH, cfg->tx, cfg->ty, ks->is_double ? 2 : 4, 2, march_chunk(ks, n3, 64), 1, 2, 1};
    if (ks->ncomp > 1) m.vec = 1, m.vload = 0;
    if (fdx_us_cfg_fits(ks, &m, n3)) *cfg = m;
    else if (m.vload = 0, fdx_us_cfg_fits(ks, &m, n3)) *cfg = m;
    else if (m.vec = 1, fdx_us_cfg_fits(ks, &m, n3)) *cfg = m;
}

int fdx_us_candidates(const fdx_us_spec *ks, const int64_t n3[3], int stage, const fdx_us_cfg *base,
                      fdx_us_cfg *cfgs, int max)
{
    static const int blocks3[][2] = {{32, 8}, {64, 4}, {32, 4}, {128, 2}, {16, 16}},
                     blocks2[][2] = {{128, 1}, {256, 1}, {64, 1}};
    static const int vecs[] = {1, 2, 4}, unrolls[] = {1, 2, 4}, pfs[] = {0, 2, 4};
    /* Short chunks too: the star's 512^3 winner marches 2 planes a block
       (more blocks in flight, the z halo from L2), and the box's and div's
       winners took the shortest chunk offered (16) or no march at all. */
    static const int chunks[] = {2, 4, 8, 16, 32, 64, 128}, nchunks = sizeof chunks / sizeof *chunks;
    const int nrows = ks->rank == 3 ? 2 : 1;
    const int (*blocks)[2] = ks->rank == 3 ? blocks3 : blocks2;
    int nb = ks->rank == 3 ? 5 : 3, n = 0;
    for (int b = 0; b < nb && stage == 0; b++) {
        fdx_us_cfg p = {FDX_US_POINT, blocks[b][0], blocks[b][1], 1, 1, 1, 0, 0, 1};
        if (n < max && fdx_us_cfg_fits(ks, &p, n3)) cfgs[n++] = p;
        for (int v = 0; v < 3; v++)
            for (int vl = 0; vl <= (vecs[v] > 1); vl++)
                for (int rows = 1; rows <= nrows; rows++) {
                    fdx_us_cfg m = *base;
                    m.variant = FDX_US_MARCH, m.tx = blocks[b][0], m.ty = blocks[b][1], m.vec = vecs[v], m.vload = vl;
                    m.rows = rows;
                    if (n < max && fdx_us_cfg_fits(ks, &m, n3)) cfgs[n++] = m;
                    m.pipe = 1;
                    if (vecs[v] > 1 && n < max && fdx_us_cfg_fits(ks, &m, n3)) cfgs[n++] = m;
                }
    }
    /* stage 0: the shared-memory tile of each block shape, lanes, rows, 1
       or 2 planes in flight (the march's L1 misses made the box and div
       L2-bound: L2 throughput 92% / 99%, ncu session 8) */
    for (int b = 0; b < nb && stage == 0; b++)
        for (int v = 0; v < 2; v++)
            for (int rows = 1; rows <= nrows; rows++)
                for (int d = 1; d <= 2; d++) {
                    fdx_us_cfg t = {FDX_US_TILE, blocks[b][0], blocks[b][1], vecs[v], 1, base->chunk, 0, d, rows, 0, 0};
                    if (n < max && fdx_us_cfg_fits(ks, &t, n3)) cfgs[n++] = t;
                }
    /* stage 0 also tries the winner's shapes with the pipelined step (the
       march's loads in flight while it computes); stage 1 the group knobs
       (for the tile pf is its planes in flight and pipe does not fit) */
    for (int u = 0; u < 3 && stage == 1 && base->variant != FDX_US_POINT; u++)
        for (int f = 0; f < 3; f++)
            for (int c = 0; c < nchunks; c++)
                for (int pp = 0; pp < 2; pp++) {
                    fdx_us_cfg m = *base;
                    m.unroll = unrolls[u], m.pf = base->variant == FDX_US_TILE ? f + 1 : pfs[f], m.chunk = march_chunk(ks, n3, chunks[c]), m.pipe = pp;
                    if (n < max && fdx_us_cfg_fits(ks, &m, n3)) cfgs[n++] = m;
                }
    /* stage 2: the winner with its registers capped (__launch_bounds__) for
       more resident warps: the box's march won at 112 registers, 2 blocks
       of 256 a multiprocessor, issue-latency bound (ncu, session 8) */
    static const int resident[] = {768, 1024, 1536};
    for (int i = 0; i < 3 && stage == 2; i++) {
        fdx_us_cfg m = *base;
        m.minb = resident[i] / (base->tx * base->ty);
        if (m.minb < 2 || (n && cfgs[n - 1].minb == m.minb)) continue;
        if (n < max && fdx_us_cfg_fits(ks, &m, n3)) cfgs[n++] = m;
    }
    return n;
}

void fdx_us_cfg_text(const fdx_us_cfg *cfg, int cuda, char *buf, size_t n)
{
    if (!cuda) snprintf(buf, n, "cpu");
    else if (cfg->variant == FDX_US_POINT) snprintf(buf, n, "point %dx%d", cfg->tx, cfg->ty);
    else if (cfg->variant == FDX_US_TILE)
        snprintf(buf, n, "tile %dx%d vec%d chunk %d unroll %d ahead%d rows%d", cfg->tx, cfg->ty, cfg->vec, cfg->chunk,
                 cfg->unroll, cfg->pf, cfg->rows > 1 ? cfg->rows : 1);
    else
        snprintf(buf, n, "march %dx%d vec%d chunk %d unroll %d%s pf%d rows%d%s", cfg->tx, cfg->ty, cfg->vec, cfg->chunk,
                 cfg->unroll, cfg->vload ? " vload" : "", cfg->pf, cfg->rows > 1 ? cfg->rows : 1, cfg->pipe ? " pipe" : "");
    size_t len = strlen(buf);
    if (cuda && cfg->minb && len < n) snprintf(buf + len, n - len, " minb%d", cfg->minb);
}

/* Mirrors struct fdx_up: long long n[3], chunk, then real w[nterms]. */
void fdx_us_params_build(const fdx_us_spec *ks, const fdx_us_cfg *cfg, const int64_t n3[3], const double *w,
                         fdx_us_params *p)
{
    memset(p, 0, sizeof *p);
    size_t at = 0;
    for (int i = 0; i < 3; i++, at += 8) memcpy(p->bytes + at, &(long long){n3[i]}, 8);
    memcpy(p->bytes + at, &(long long){cfg->chunk}, 8), at += 8;
    for (int i = 0; i < ks->nterms; i++) {
        if (ks->is_double) {
            memcpy(p->bytes + at, &w[i], 8), at += 8;
        } else {
            float f = (float)w[i];
            memcpy(p->bytes + at, &f, 4), at += 4;
        }
    }
    p->size = (at + 7) & ~(size_t)7;
}

fdx_status fdx_us_launch_dims(const fdx_us_spec *ks, const fdx_us_cfg *cfg, const int64_t n3[3],
                              fdx_launch_dims *dims)
{
    int64_t ix = n3[0] - 2 * ks->rx, iy = n3[1] - 2 * ks->ry, im = n3[2] - 2 * ks->rm;
    int march = cfg->variant != FDX_US_POINT; /* the march and the tile */
    int64_t per = march ? (int64_t)cfg->tx * cfg->vec : cfg->tx;
    int64_t pery = march && cfg->rows > 1 ? (int64_t)cfg->ty * cfg->rows : cfg->ty;
    int64_t g[3] = {(ix + per - 1) / per, (iy + pery - 1) / pery,
                    march ? (im + cfg->chunk - 1) / cfg->chunk : im};
    FDX_CHECK(ix > 0 && iy > 0 && im > 0, FDX_ERR_INVALID, "no interior points in %lldx%lldx%lld",
              (long long)n3[0], (long long)n3[1], (long long)n3[2]);
    FDX_CHECK(g[0] <= 0x7fffffff && g[1] <= 65535 && g[2] <= 65535, FDX_ERR_UNSUPPORTED,
              "grid %lldx%lldx%lld of blocks exceeds the CUDA limits", (long long)g[0], (long long)g[1],
              (long long)g[2]);
    *dims = (fdx_launch_dims){{(unsigned)g[0], (unsigned)g[1], (unsigned)g[2]}, {(unsigned)cfg->tx, (unsigned)cfg->ty, 1},
                              cfg->variant == FDX_US_TILE ? fdx_us_tile_bytes(ks, cfg) : 0};
    return FDX_OK;
}
