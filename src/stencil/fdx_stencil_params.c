/* fdx_stencil_params: the parameter block in the kernel's precision, the
   CUDA launch geometry, and the texts that name specs and configurations. */
#include "stencil/fdx_bc.h"
#include "stencil/fdx_stencil_impl.h"

#include <stdio.h>
#include <string.h>

void fdx_stencil_shape3(int rank, const int64_t *shape, int64_t n3[3])
{
    n3[0] = shape[0];
    n3[1] = rank == 3 ? shape[1] : 1;
    n3[2] = rank == 3 ? shape[2] : rank == 2 ? shape[1] : 1;
}

static void put_real(unsigned char *at, int is_double, double v)
{
    if (is_double) {
        memcpy(at, &v, sizeof v);
    } else {
        float f = (float)v;
        memcpy(at, &f, sizeof f);
    }
}

/* Mirrors struct fdx_p of the generated code: long long n[3], chunk, by, sw,
   then real c0, ws[3r], wa[3r] (and damp[FDX_STENCIL_MAX_SPONGE] with a
   sponge); the struct is padded to 8 bytes. */
void fdx_stencil_params_build(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg, const int64_t n3[3],
                              double c0, const double *ws, const double *wa, int sw, const double *damp,
                              fdx_stencil_params *p)
{
    memset(p, 0, sizeof *p);
    size_t e = ks->is_double ? 8 : 4, nw = 3 * (size_t)ks->radius, at = 0;
    for (int i = 0; i < 3; i++, at += 8) memcpy(p->bytes + at, &(long long){n3[i]}, 8);
    memcpy(p->bytes + at, &(long long){cfg->chunk}, 8), at += 8;
    memcpy(p->bytes + at, &(long long){cfg->by}, 8), at += 8;
    memcpy(p->bytes + at, &(long long){ks->sponge ? sw : 0}, 8), at += 8;
    put_real(p->bytes + at, ks->is_double, c0), at += e;
    for (size_t i = 0; i < nw; i++, at += e) put_real(p->bytes + at, ks->is_double, ws[i]);
    for (size_t i = 0; i < nw; i++, at += e) put_real(p->bytes + at, ks->is_double, wa[i]);
    for (int i = 0; ks->sponge && i < FDX_STENCIL_MAX_SPONGE; i++, at += e)
        put_real(p->bytes + at, ks->is_double, i < sw ? damp[i] : 1.0);
    if (ks->fpart) { /* int bb[9]: the split's geometry (4-byte aligned here) */
        int bb[9];
        fdx_stencil_split_box(ks, cfg, n3, bb);
        memcpy(p->bytes + at, bb, sizeof bb), at += sizeof bb;
    }
    p->size = (at + 7) & ~(size_t)7;
    p->tm_at = 0;
    if (cfg->tm) { /* unsigned long long tm_[16], 64-byte aligned: the launch writes u's tensor map there */
        p->tm_at = (at + 63) & ~(size_t)63;
        p->size = p->tm_at + 128;
    }
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Blocks along each grid dimension; 1 when they are within CUDA's limits.
   zfast: the chunk index is the grid's fastest dimension. */
static int grid3(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg, const int64_t n3[3], int64_t g[3])
{
    int rm = ks->rank >= 2 ? ks->radius : 0;
    /* The unrolled column's windows (unaligned rows) cover the interior
       points of x only; the asynchronous march's tiles start at x = 0 with
       or without them. */
    int inner = cfg->win && cfg->variant == FDX_SV_UNROLL;
    int64_t gx = ceil_div(n3[0] - (inner ? 2 * ks->radius : 0), (int64_t)cfg->tx * cfg->vec);
    /* Several rows a thread of the unrolled column start at the first
       interior row; the asynchronous march's tiles at row 0. */
    int nr = fdx_stencil_rows(cfg);
    int64_t gy = nr > 1 && cfg->variant == FDX_SV_UNROLL ? ceil_div(n3[1] - 2 * ks->radius, (int64_t)cfg->ty * nr)
                                                         : ceil_div(n3[1], (int64_t)cfg->ty * nr);
    int64_t gz = ceil_div(n3[2] - 2 * rm, cfg->chunk);
    g[0] = gx, g[1] = gy, g[2] = gz;
    if (cfg->zfast) g[0] = gz, g[1] = gx, g[2] = gy;
    return g[0] <= 0x7fffffff && g[1] <= 65535 && g[2] <= 65535;
}

void fdx_stencil_async_geom_of(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg, fdx_stencil_async_geom *a)
{
    int r = ks->radius, v = cfg->vec > 0 ? cfg->vec : 1, tw = cfg->tx * v, nt = cfg->tx * cfg->ty;
    int yr = ks->rank == 3 ? r : 0; /* y halo rows (the plane tile also runs rank 2: a row and its x halo) */
    a->rx = (r + v - 1) / v * v;
    a->width = tw + 2 * a->rx;
    /* Rows of a width that is no multiple of the 128 bytes a shared-memory
       wavefront spans (tiles 80 points wide: 20 threads at vec 4) start
       their warps' accesses mid-row, so a quarter warp may hold the end of
       one row and the start of the next: padded so that the next row
       starts in the bank where this one's tile ends, their accesses fall
       in distinct banks (at 96 floats a row, rows 80 wide were read 2-way
       conflicting). */
    const int es = ks->is_double ? 8 : 4, rowb = tw * es;
    if (cfg->tm) {
        /* a tensor copy a plane: the box's rows of 16-byte multiples from rx
           values before the tile (rx rounded up to 16 bytes), dense */
        a->rx = (r + 16 / es - 1) / (16 / es) * (16 / es);
        a->width = tw + 2 * a->rx;
    } else if (ks->rank == 3 && rowb % 128) {
        a->width += (((rowb - a->width * es) % 128 + 128) % 128) / es;
    }
    a->height = cfg->ty * fdx_stencil_rows(cfg) + 2 * yr;
    int plane = cfg->variant == FDX_SV_PLANE;
    a->stages = plane ? 1 + cfg->pd : r + 1 + cfg->pd + (cfg->zs ? r : 0) + (cfg->b2 ? 1 : 0);
    a->period = 0;
    if (cfg->uz && !plane) {
        /* The unrolled loop's period: the stages where the column's registers
           fit in that many names (zh, zs), else the carried column's 2r + 1
           (the stages not padded to it: a stage more costs blocks a
           multiprocessor); even with b2 (the barrier's planes at fixed steps:
           with the stages' period, one stage more). */
        int col = cfg->zs ? 0 : cfg->zh ? r + 1 : 2 * r + 1;
        a->period = a->stages < col ? col : a->stages;
        if (cfg->b2 && a->period % 2) {
            if (a->period == a->stages) a->stages++;
            a->period++;
        }
    }
    a->cw = cfg->win && !cfg->tm ? 1 : v;
    a->hx = cfg->win && !cfg->tm ? r : a->rx;
    a->slots = (a->height - 2 * yr) * (((plane ? 0 : tw) + 2 * a->hx) / a->cw) + 2 * yr * (tw / a->cw);
    a->per_thread = (a->slots + nt - 1) / nt;
    if (cfg->tm) a->slots = 1, a->per_thread = 0; /* a tensor copy a plane, thread 0's */
    a->stage_elems = (size_t)a->height * a->width;
    a->bytes = (size_t)a->stages * a->stage_elems * (ks->is_double ? 8 : 4);
    if (cfg->tm) { /* stages at 128-byte boundaries from the first (the tensor copies'), the mbarriers after them */
        a->stage_elems = (a->stage_elems * es + 127) / 128 * 128 / es;
        a->bytes = (size_t)a->stages * a->stage_elems * es + 128 + 8 * (size_t)a->stages;
    }
}

int fdx_stencil_split(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg)
{
    return ks->fpart && !ks->fstore && cfg->variant == FDX_SV_UNROLL && fdx_stencil_fold_faces(ks, cfg, 1);
}

/* The blocks [*lo, *hi) along one axis whose span [off + b w, off + b w +
   w) keeps 2r from both ends of [0, n) (the kernel's edge test), of g. */
static void inner_range(int64_t off, int64_t w, int64_t n, int r, int64_t g, int *lo, int *hi)
{
    int64_t l = 2 * r - off > 0 ? ceil_div(2 * r - off, w) : 0, top = n - 2 * r - off - w;
    int64_t h = top >= 0 ? top / w + 1 : 0;
    if (h > g) h = g;
    if (h < l) h = l;
    *lo = (int)l, *hi = (int)h;
}

int64_t fdx_stencil_split_box(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg, const int64_t n3[3], int bb[9])
{
    fdx_stencil_cfg c = *cfg;
    c.zfast = 0;
    int64_t g[3];
    grid3(ks, &c, n3, g);
    const unsigned m = fdx_stencil_fold_faces(ks, cfg, 1);
    const int r = ks->radius, nr = fdx_stencil_rows(cfg), rm = ks->rank >= 2 ? r : 0;
    for (int a = 0; a < 3; a++) bb[a] = (int)g[a], bb[3 + a] = 0, bb[6 + a] = (int)g[a];
    if (m & 3u) inner_range(cfg->win ? r : 0, (int64_t)cfg->tx * cfg->vec, n3[0], r, g[0], &bb[3], &bb[6]);
    if (ks->rank == 3 && (m & 0xcu))
        inner_range(nr > 1 ? r : 0, (int64_t)cfg->ty * nr, n3[1], r, g[1], &bb[4], &bb[7]);
    if (m & 3u << 2 * (ks->rank - 1)) {
        /* chunk b's groups start at rm + b chunk, the last ends at most
           ceil(chunk / pd) pd planes later (fewer in a partial last chunk:
           those count as shell, which is always right) */
        const int64_t span = (cfg->chunk + cfg->pd - 1) / cfg->pd * cfg->pd;
        inner_range(rm, cfg->chunk, n3[2] - (span - cfg->chunk), r, g[2], &bb[5], &bb[8]);
    }
    return g[0] * g[1] * g[2] - (int64_t)(bb[6] - bb[3]) * (bb[7] - bb[4]) * (bb[8] - bb[5]);
}

fdx_status fdx_stencil_launch_dims(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg, const int64_t n3[3],
                                   fdx_launch_dims *d)
{
    int64_t g[3];
    FDX_CHECK(grid3(ks, cfg, n3, g), FDX_ERR_UNSUPPORTED,
              "shape %lldx%lldx%lld needs a grid of %lldx%lldx%lld blocks, over CUDA's limits",
              (long long)n3[0], (long long)n3[1], (long long)n3[2], (long long)g[0], (long long)g[1], (long long)g[2]);
    if (fdx_stencil_split(ks, cfg)) {
        /* the shell: one dimension; the inner box: its extents (either may
           be empty: no launch) */
        int bb[9];
        int64_t shell = fdx_stencil_split_box(ks, cfg, n3, bb);
        FDX_CHECK(g[0] * g[1] * g[2] <= 0x7fffffff, FDX_ERR_UNSUPPORTED, "%lld blocks: too many for the split grid",
                  (long long)(g[0] * g[1] * g[2]));
        if (ks->fpart == 1) g[0] = shell, g[1] = g[2] = 1;
        else g[0] = bb[6] - bb[3], g[1] = bb[7] - bb[4], g[2] = bb[8] - bb[5];
        if (!g[0] || !g[1] || !g[2]) g[0] = g[1] = g[2] = 0;
        FDX_CHECK(g[1] <= 65535 && g[2] <= 65535, FDX_ERR_UNSUPPORTED,
                  "an inner box of %lldx%lldx%lld blocks: over CUDA's limits", (long long)g[0], (long long)g[1],
                  (long long)g[2]);
    }
    memset(d, 0, sizeof *d);
    d->grid[0] = (unsigned)g[0], d->grid[1] = (unsigned)g[1], d->grid[2] = (unsigned)g[2];
    d->block[0] = (unsigned)cfg->tx, d->block[1] = (unsigned)cfg->ty, d->block[2] = 1;
    if (cfg->variant == FDX_SV_ASYNC || cfg->variant == FDX_SV_PLANE) {
        fdx_stencil_async_geom a;
        fdx_stencil_async_geom_of(ks, cfg, &a);
        d->shmem = a.bytes;
    }
    return FDX_OK;
}

int fdx_stencil_cfg_fits(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg, const int64_t n3[3])
{
    if (n3[0] % cfg->vec && !cfg->win) return 0;
    if (cfg->vec == 4 && ks->is_double) return 0;
    if (ks->rank < 3 && cfg->ty != 1) return 0;
    if (cfg->variant == FDX_SV_SMEM && (cfg->tx < ks->radius || (ks->rank == 3 && cfg->ty < ks->radius))) return 0;
    /* The unrolled group needs a marching axis and a register budget; only
       it can reorder its blocks. */
    if (cfg->variant == FDX_SV_UNROLL && (ks->rank < 2 || cfg->pd < 1 || cfg->pd > FDX_STENCIL_MAX_UNROLL)) return 0;
    if (cfg->variant == FDX_SV_ASYNC || cfg->variant == FDX_SV_PLANE) {
        /* The asynchronous march and the plane tile (rank 2 or 3; the
           plane tile's rows aligned to its vector): their stages within the
           shared memory they may ask for, a bounded number of copies a
           thread.  In rank 2 a block is one row marching in y. */
        fdx_stencil_async_geom a;
        if (cfg->pd < 1 || cfg->pd > FDX_STENCIL_MAX_ASYNC_AHEAD) return 0;
        if (ks->rank < 2 || (cfg->variant == FDX_SV_PLANE && (cfg->win || cfg->zs))) return 0;
        fdx_stencil_async_geom_of(ks, cfg, &a);
        if (a.bytes > FDX_STENCIL_MAX_ASYNC_SMEM || a.per_thread > FDX_STENCIL_MAX_ASYNC_SLOTS) return 0;
    } else if (cfg->variant != FDX_SV_UNROLL && (cfg->pd < 1 || cfg->pd > 2)) {
        return 0;
    }
    if ((cfg->zfast || cfg->pipe || cfg->band) && cfg->variant != FDX_SV_UNROLL) return 0;
    if (cfg->band < 0 || (cfg->band && cfg->zfast)) return 0;
    /* Windows: each thread's two aligned loads reach up to 2 vec - 1 values
       past its first lane; the rows of the last plane it reads end at least
       radius rows before the array does (rank 3; in rank 2 the plane is a
       row: the radius rows after the last it reads).  The asynchronous march
       reads its column's first planes and u_prev / coef through windows and
       copies its tile value by value. */
    if (cfg->win && ((cfg->variant != FDX_SV_UNROLL && cfg->variant != FDX_SV_ASYNC) ||
                     (cfg->variant == FDX_SV_UNROLL ? ks->rank != 3 : ks->rank < 2) || cfg->vec < 2 ||
                     n3[0] * ks->radius < 2 * cfg->vec - 1))
        return 0;
    /* Settings that would not change the kernel are refused, so the tuner
       never times one kernel twice. */
    if (cfg->xv && (cfg->variant != FDX_SV_UNROLL || cfg->vec < 2 || cfg->win)) return 0;
    /* Several rows a thread: the unrolled column, not with windows, whose
       loads reach past a row's end (a partial block's rows clamp to the
       array's last row, whose window in the last plane would leave the
       array); or the asynchronous march (its rows read the tile). */
    if (cfg->ry < 0 || cfg->ry > 4 || (cfg->ry > 1 && ks->rank < 3) ||
        (cfg->ry > 1 && cfg->variant != FDX_SV_ASYNC && cfg->variant != FDX_SV_PLANE &&
         (cfg->variant != FDX_SV_UNROLL || ks->rank != 3 || cfg->win)))
        return 0;
    if (cfg->minb < 0 || cfg->minb * cfg->tx * cfg->ty > 2048) return 0;
    if (cfg->zs && (cfg->zs != 1 || cfg->variant != FDX_SV_ASYNC)) return 0;
    if (cfg->zh && (cfg->zh != 1 || cfg->variant != FDX_SV_ASYNC || cfg->zs)) return 0;
    if (cfg->ys && (cfg->ys != 1 || cfg->variant != FDX_SV_ASYNC || cfg->zs || cfg->zh || fdx_stencil_rows(cfg) < 2))
        return 0;
    if (cfg->b2 && (cfg->b2 != 1 || cfg->variant != FDX_SV_ASYNC || cfg->pd < 2)) return 0;
    /* tm: the asynchronous march in rank 3 on sm_90 (the tuner offers it
       there only), one mbarrier phase a plane (no b2), a box of at most 256
       values a side, 32-bit coordinates, and rows of 16-byte multiples (the
       tensor map's row stride must be).
       (The H100, s13c: boxes from other elements never completed their
       mbarrier phase or faulted, cudaErrorIllegalInstruction, on every odd
       width tried; aligned rows ran and verified.) */
    if (cfg->tm && (cfg->tm != 1 || cfg->variant != FDX_SV_ASYNC || ks->rank != 3 || cfg->b2 ||
                    n3[0] % (ks->is_double ? 2 : 4) ||
                    n3[0] * n3[1] * (n3[2] + 1) >= (int64_t)1 << 31))
        return 0;
    if (cfg->tm) { /* the box's sides at most 256 values */
        fdx_stencil_async_geom a;
        fdx_stencil_async_geom_of(ks, cfg, &a);
        if (a.width > 256 || a.height > 256) return 0;
    }
    /* uz: its copies' in-plane offsets are 32-bit */
    if (cfg->uz && (cfg->uz != 1 || cfg->variant != FDX_SV_ASYNC || n3[0] * n3[1] >= (int64_t)1 << 31)) return 0;
    int64_t g[3];
    return cfg->chunk >= 1 && grid3(ks, cfg, n3, g);
}

void fdx_stencil_kspec_text(const fdx_stencil_kspec *ks, char *buf, size_t n)
{
    int len = snprintf(buf, n, "%c%dr%du%dc%da%ds%d", ks->is_double ? 'd' : 'f', ks->rank, ks->radius, ks->update,
                       ks->coef, ks->d1, ks->sponge);
    int any = 0;
    for (int f = 0; f < 6; f++) any |= ks->fbc[f] != 0;
    if (!any) return; /* the keys of stencils without folded faces stay as they were */
    /* Folded faces: their codes, the form and a 48-bit FNV-1a digest of
       their values (the values are baked into the source). */
    unsigned long long h = 1469598103934665603ULL;
    const unsigned char *b = (const unsigned char *)ks->fval;
    for (size_t i = 0; i < sizeof ks->fval; i++) h = (h ^ b[i]) * 1099511628211ULL;
    if (len > 0 && (size_t)len < n)
        len += snprintf(buf + len, n - (size_t)len, "%c%d%d%d%d%d%d%012llx", "xfsiu"[ks->fstore ? 0 : ks->ffix ? 4 : 1 + ks->fpart],
                        ks->fbc[0], ks->fbc[1], ks->fbc[2], ks->fbc[3], ks->fbc[4], ks->fbc[5], h & 0xffffffffffffULL);
    if (ks->ffix && ks->fixmask && len > 0 && (size_t)len < n)
        len += snprintf(buf + len, n - (size_t)len, "m%02x", ks->fixmask);
    if (ks->ffix && ks->fixat && len > 0 && (size_t)len < n) snprintf(buf + len, n - (size_t)len, "a%d", ks->fixat);
}

unsigned fdx_stencil_fold_faces(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg, int cuda)
{
    unsigned m = 0;
    for (int f = 0; f < 6 && cuda; f++) {
        if (!ks->fbc[f]) continue;
        if (ks->ffix) { /* the register fix-ups: marching faces; x faces with whole-vector lanes of >= 2r */
            const int march = f / 2 == ks->rank - 1, x = f < 2 && !cfg->win && cfg->vec >= 2 * ks->radius;
            if (cfg->variant == FDX_SV_UNROLL && (march || x) && (!ks->fixmask || ks->fixmask >> f & 1)) m |= 1u << f;
            continue;
        }
        if (ks->fstore ? f < 2 && cfg->variant != FDX_SV_ASYNC && cfg->variant != FDX_SV_PLANE
                       : cfg->variant == FDX_SV_UNROLL)
            m |= 1u << f;
    }
    return m;
}

/* The faces the pass must still fill: every face the kernel does not fold
   (folding both x faces must not skip the y/z faces; on rank 1 the pass
   finds no y/z ghosts and launches nothing). */
unsigned fdx_stencil_pass_faces(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg, int cuda)
{
    return 0x3fu & ~fdx_stencil_fold_faces(ks, cfg, cuda);
}
