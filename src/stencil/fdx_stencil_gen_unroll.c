/* fdx_stencil_gen_unroll: the unrolled column (FDX_SV_UNROLL) as fdx_cg IR.

   Each thread marches its (x, y) column through the block's chunk of
   planes in groups of U = pd planes (a constant here).  At the start of a
   group every load of it (U column planes, u_prev, coef) is issued before
   the first point is computed: U independent vector loads in flight per
   thread, where the plain march has one or two.  The 2 rm planes the next
   group shares stay in registers, so a chunk of many groups reads each
   plane once.  With cfg->pipe a march issues the next group's loads before
   computing the current one (U more registers per lane), so a thread's
   loads stay in flight while it computes.  In-plane neighbours come through
   L1 like the direct strategy (with g->xv the x neighbours beyond the
   thread's lanes as aligned vectors: one load per vec values).  No shared
   memory and no barriers, so threads outside the grid leave at once.
   In-plane offsets are 32-bit; only the per-thread base pointer is 64-bit.
   With cfg->ry > 1 (rank 3) a thread computes ry consecutive rows, each
   with its own column: the rows' centres are each other's y neighbours, so
   a plane costs ry + 2r row loads for ry points instead of ry (2r + 1) (the
   25-point kernel is bound by those loads through L1, not by DRAM).

   Names: c<lane>_<t> (c<row>_<lane>_<t> with several rows a thread) holds
   plane t of the column (plane kg - rm + t); pl<t> points at this thread's
   first lane in that plane of its first row; y<m|p><d>_<j> are the rows d
   below / above in plane j, x<m|p><i>_<j> the x vectors beside the lanes. */
#include "stencil/fdx_stencil_gen.h"

#include "stencil/fdx_bc.h"

#include <stdio.h>

/* "<pre>" with one row a thread, "<pre><i>_" with several (c1_0_3: row 1,
   lane 0, plane 3). */
static const char *rowpre(const gen *g, const char *pre, int i)
{
    return g->nr > 1 ? fdx_cg_fmt(g->cg, "%s%d_", pre, i) : pre;
}

/* The in-plane offset of the row d rows after the thread's first (d may be
   negative): with several rows a thread, rows past the array's last are
   clamped to it (oy<d>, declared per thread), so the rows of a partial last
   block stay inside the array; their results are not stored. */
static const char *rowoff(const gen *g, int d)
{
    return d > 0 && g->nr > 1 ? fdx_cg_fmt(g->cg, "oy%d", d) : fdx_cg_fmt(g->cg, "(%d) * sy", d);
}

void fdx_stencil_unroll_neighbour(fdx_sb *b, const gen *g, int a, int off, int v)
{
    const char *comp = fdx_stencil_comp;
    int t = g->plane + g->rm, d = v + off, m = d < 0 ? -((-d + g->vec - 1) / g->vec) : d / g->vec;
    int dy = g->row + off; /* the y neighbour's row, relative to the thread's first */
    const char *c = rowpre(g, "c", g->row);
    if (a == 2) fdx_sb_printf(b, "%s%d_%d", c, v, t + off);
    else if (a == 0 && d >= 0 && d < g->vec) fdx_sb_printf(b, "%s%d_%d", c, d, t);
    else if (a == 0 && g->xv)
        fdx_sb_printf(b, "x%s%c%d_%d.%c", rowpre(g, "", g->row), m < 0 ? 'm' : 'p', m < 0 ? -m : m, g->plane,
                      comp[d - m * g->vec]);
    else if (a == 0 && g->row) fdx_sb_puts(b, fdx_cg_ld(g->cg, FDX_CG_LDG, fdx_cg_fmt(g->cg, "pl%d + oy%d + %d", t, g->row, d)));
    else if (a == 0) fdx_sb_puts(b, fdx_cg_ld(g->cg, FDX_CG_LDG, fdx_cg_fmt(g->cg, "pl%d + %d", t, d)));
    else if (dy >= 0 && dy < g->nr) fdx_sb_printf(b, "%s%d_%d", rowpre(g, "c", dy), v, t); /* another row's centre */
    else if (g->vec > 1) fdx_sb_printf(b, "y%c%d_%d.%c", dy < 0 ? 'm' : 'p', dy < 0 ? -dy : dy, g->plane, comp[v]);
    else if (g->nr > 1) fdx_sb_printf(b, "y%c%d_%d", dy < 0 ? 'm' : 'p', dy < 0 ? -dy : dy, g->plane);
    else fdx_sb_puts(b, fdx_cg_ld(g->cg, FDX_CG_LDG, fdx_cg_fmt(g->cg, "pl%d + %d * sy", t, off)));
}

/* Loads of one group of the unrolled column, the group starting at plane
   `kg` (an expression): for each of the thread's rows, its U new column
   planes kg + rm .. kg + rm + U - 1 into <col><lane>_<first + j>, clamped to
   the block's last plane kl; u_prev and coef at its own planes, clamped to
   k1 - 1, into pu/pc<lane>_<j> (with `next`: pun/pcn).  Clamped loads repeat
   a valid plane, so every load is unconditional and the compiler may issue
   them all at once. */
static void emit_group_loads(fdx_cg_node *at, const gen *g, const char *kg, const char *col, int first, int next)
{
    const int U = g->cfg->pd, wave = g->ks->update == FDX_UPDATE_WAVE, coef = g->ks->coef;
    for (int i = 0; i < g->nr; i++) {
        /* Row i's base: the first row's plus its in-plane offset. */
        const char *rb = i ? fdx_cg_fmt(g->cg, "base + %s", rowoff(g, i)) : "base";
        for (int j = 0; j < U; j++)
            fdx_stencil_vload(at, g, rowpre(g, col, i), fdx_cg_fmt(g->cg, "_%d", first + j), "u",
                              fdx_cg_fmt(g->cg, "%s + ((%s) + %d < kl ? (%s) + %d : kl) * sm", rb, kg, g->rm + j, kg,
                                         g->rm + j),
                              FDX_CG_LDG);
        const char *pw[2] = {wave ? (next ? "pun" : "pu") : NULL, coef ? (next ? "pcn" : "pc") : NULL};
        const char *src[2] = {"up", "cf"};
        for (int w = 0; w < 2; w++)
            for (int j = 0; pw[w] && j < U; j++)
                fdx_stencil_vload(at, g, rowpre(g, pw[w], i), fdx_cg_fmt(g->cg, "_%d", j), src[w],
                                  fdx_cg_fmt(g->cg, "%s + ((%s) + %d < k1 ? (%s) + %d : k1 - 1) * sm", rb, kg, j, kg, j),
                                  FDX_CG_STREAM);
    }
}

/* The block's position: bx, by, bz from the launch order (zfast: chunks
   fastest; bands: rows of blocks in bands, each through its chunks). */
static void emit_block_order(fdx_cg_node *k, const gen *g)
{
    const fdx_stencil_cfg *c = g->cfg;
    if (fdx_stencil_split(g->ks, c) && g->ks->fpart == 2) {
        /* the inner box of a split grid: its blocks from bb[3..5] */
        fdx_cg_stmt(k, "const int bx = p.bb[3] + (int)blockIdx.x, by = p.bb[4] + (int)blockIdx.y, "
                       "bz = p.bb[5] + (int)blockIdx.z");
    } else if (fdx_stencil_split(g->ks, c)) {
        /* the shell of a split grid, block t of a one-dimensional launch:
           first the whole planes of chunks outside the inner box's chunks
           [lz, lz + IZ), then in those the rows of blocks outside its rows,
           then in those the blocks outside its columns */
        fdx_cg_stmt(k, "const unsigned BX = p.bb[0], BY = p.bb[1], BZ = p.bb[2], lx = p.bb[3], ly = p.bb[4], "
                       "lz = p.bb[5]");
        fdx_cg_stmt(k, "const unsigned IX = p.bb[6] - lx, IY = p.bb[7] - ly, IZ = p.bb[8] - lz, t = blockIdx.x");
        fdx_cg_stmt(k, "const unsigned n1 = BX * BY * (BZ - IZ), n12 = n1 + BX * (BY - IY) * IZ");
        fdx_cg_stmt(k, "const unsigned wz = t < n1 ? BX * BY : t < n12 ? BX * (BY - IY) : (BX - IX) * IY");
        fdx_cg_stmt(k, "const unsigned wy = t < n12 ? BX : BX - IX, s = t < n1 ? t : t < n12 ? t - n1 : t - n12");
        fdx_cg_stmt(k, "const unsigned pz = s / wz, py = (s - pz * wz) / wy, px = s - pz * wz - py * wy");
        fdx_cg_stmt(k, "const int bz = (int)(t < n1 ? (pz < lz ? pz : pz + IZ) : lz + pz)");
        fdx_cg_stmt(k, "const int by = (int)(t < n1 ? py : t < n12 ? (py < ly ? py : py + IY) : ly + py)");
        fdx_cg_stmt(k, "const int bx = (int)(t < n12 ? px : (px < lx ? px : px + IX))");
    } else if (c->zfast) {
        fdx_cg_stmt(k, "const int bx = blockIdx.y, by = blockIdx.z, bz = blockIdx.x");
    } else if (c->band) {
        /* Blocks after x in launch order: L; band of B block rows, the last
           one h <= B high, walked row-fastest then chunk. */
        const int B = c->band;
        fdx_cg_stmt(k, "const unsigned gy = gridDim.y, gz = gridDim.z, L = blockIdx.y + gy * blockIdx.z");
        fdx_cg_stmt(k, "const unsigned band = L / (%du * gz)", B);
        fdx_cg_stmt(k, "const unsigned h = gy - band * %du < %du ? gy - band * %du : %du, rem = L - band * %du * gz", B,
                    B, B, B, B);
        fdx_cg_stmt(k, "const int bx = blockIdx.x, by = (int)(band * %du + rem %% h), bz = (int)(rem / h)", B);
    } else {
        fdx_cg_stmt(k, "const int bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z");
    }
}

/* Every lane's point of plane j, row i, and its stores. */
static void emit_row_points(fdx_cg_node *in, gen *g, int j, int i)
{
    for (int v = 0; v < g->vec; v++) {
        const char *centre = fdx_cg_fmt(g->cg, "%s%d_%d", rowpre(g, "c", i), v, j + g->rm);
        const char *prev = fdx_cg_fmt(g->cg, "%s%d_%d", rowpre(g, "pu", i), v, j);
        const char *cfv = fdx_cg_fmt(g->cg, "%s%d_%d", rowpre(g, "pc", i), v, j);
        const char *damp = NULL;
        if (g->ks->sponge) {
            fdx_stencil_emit_damp(in, v, i ? fdx_cg_fmt(g->cg, "y + %d", i) : "y", fdx_cg_fmt(g->cg, "kg + %d", j), prev);
            prev = fdx_cg_fmt(g->cg, "g%d", v);
            damp = fdx_cg_fmt(g->cg, "f%d", v);
        }
        fdx_stencil_emit_point(in, g, fdx_stencil_cuda_neighbour, "p.", v, centre, prev, cfv, damp,
                               fdx_cg_fmt(g->cg, "r%d", v));
    }
    fdx_stencil_emit_store(in, g,
                           i ? fdx_cg_fmt(g->cg, "out + base + oy%d + (kg + %d) * sm", i, j)
                             : fdx_cg_fmt(g->cg, "out + base + (kg + %d) * sm", j));
}

/* The block-uniform flags of the faces folded without stores: edge, the
   block's columns or rows reach within r of a folded x or y face (kernel
   start); bnd, that or the group's planes reach within r of a folded
   marching face (each group). */
static void emit_edge(fdx_cg_node *k, const gen *g)
{
    const fdx_stencil_cfg *c = g->cfg;
    const int r = g->r, w = c->tx * g->vec, rows = c->ty * g->nr, rk = g->ks->rank;
    fdx_sb e = FDX_SB_INIT;
    fdx_sb_puts(&e, "false");
    if (g->fold & 3u) {
        const char *x0 = fdx_cg_fmt(g->cg, "(%d + bx * %d)", g->win ? r : 0, w);
        fdx_sb_printf(&e, " || %s < %d || %s + %d > nx - %d", x0, 2 * r, x0, w, 2 * r);
    }
    if (rk == 3 && (g->fold & 0xcu)) {
        const char *y0 = g->nr == 1 ? fdx_cg_fmt(g->cg, "(by * %d)", rows) : fdx_cg_fmt(g->cg, "(%d + by * %d)", g->ry, rows);
        fdx_sb_printf(&e, " || %s < %d || %s + %d > ny - %d", y0, 2 * r, y0, rows, 2 * r);
    }
    fdx_cg_stmt(k, "const bool edge = %s", fdx_cg_text(g->cg, &e));
}

static void emit_bnd(fdx_cg_node *body, const gen *g)
{
    const unsigned mf = 3u << 2 * (g->ks->rank - 1);
    if (g->fold & mf)
        fdx_cg_stmt(body, "const bool bnd = edge || kg < %d || kg + %d > nm - %d", 2 * g->r, g->cfg->pd, 2 * g->r);
    else
        fdx_cg_stmt(body, "const bool bnd = edge");
}

/* FDX_BC_FOLD=4: the folded faces (g->fix) applied to the group's
   registers before its points, so the point code is the plain kernel's
   and needs no more registers (a select per neighbour keeps the ghost and
   the loaded value live together: 46-60 registers against 40 at the
   512^3 pin).  Every register that holds a ghost a written point reads
   gets the pass's value for it, computed from its mirror (a register of
   the same column or row: always loaded) or, periodic, loaded from its
   image; values no written point reads may be anything.  Marching faces:
   register t holds plane kg - rm + t, so the block-uniform distance of kg
   to the face says which registers are ghosts (bottom: kg == E < 2r puts
   layer k in t = 2r-1-k-E, its mirror in 2r+k-E; top: nm - kg == D puts
   layer k in t = D + k, its mirror in D-1-k).  x faces (aligned lanes,
   vec >= 2r: a written lane's x neighbours beyond its thread's lanes are
   never ghosts): the first (last) thread of a row holds the ghosts in
   its lanes, lane v's mirror is lane 2r-1-v (2(vec-r)-1-v at the last),
   only in the group's computed planes.  The fix-ups are idempotent, so the
   registers a group hands to the next may carry them.

   Where (ks->fixat, FDX_BC_FIXAT, A/B): a fix-up reads loaded values, so
   placed ahead of later loads it may make the warp wait for the column
   before it issues them (the first H100 run, the fix-ups at the group's
   start: 1.13x at the 512^3 pin, 40 registers), while later placements
   change ptxas's registers (46 / 44 at the pin, Dirichlet).  0: every
   fix-up at the group's start (after its column loads); 1: just before
   the points of each row and plane (the marching faces' before plane 0's,
   the x faces' of plane j before plane j's), after that plane's row
   loads; 2: the marching faces' at the start, the x faces' before each
   plane's points; 3: as 0, each fix-up's body opened by an empty volatile
   asm, so that NVVM keeps it a branch instead of a select every thread
   computes (a select waits for the loaded values; a branch not taken does
   not).  z: emit the marching faces' (every register of row i's column);
   x0..x1: the planes whose x fix-ups to emit. */
static fdx_cg_node *fixup_if(fdx_cg_node *body, const gen *g, const char *cond)
{
    fdx_cg_node *at = fdx_cg_if(body, "%s", cond);
    if (g->ks->fixat == 3) fdx_cg_stmt(at, "asm volatile(\"\")");
    return at;
}

static void emit_fixups(fdx_cg_node *body, const gen *g, int i, int z, int x0, int x1)
{
    const int r = g->r, U = g->cfg->pd, T = U + 2 * g->rm, vec = g->vec;
    const int mf = 2 * (g->ks->rank - 1); /* the marching axis's first face */
    (void)U;
    {
        const char *c = rowpre(g, "c", i);
        const char *rb = i ? fdx_cg_fmt(g->cg, "base + %s", rowoff(g, i)) : "base";
        for (int s = 0; s < 2 && z; s++) {
            const int f = mf + s;
            if (!(g->fix >> f & 1)) continue;
            const int per = g->ks->fbc[f] == FDX_BCC_PERIODIC;
            /* bottom: E = kg in [r, 2r); top: D = nm - kg in [r + 1, U + 2r) */
            for (int e = s ? r + 1 : r; e < (s ? U + 2 * r : 2 * r); e++) {
                fdx_cg_node *at = fixup_if(body, g, fdx_cg_fmt(g->cg, s ? "nm - kg == %d" : "kg == %d", e));
                for (int k = 0; k < r; k++) {
                    const int t = s ? e + k : 2 * r - 1 - k - e, tm = s ? e - 1 - k : 2 * r + k - e;
                    if (t < 0 || t >= T) continue;
                    if (per) {
                        fdx_stencil_vload(at, g, c, fdx_cg_fmt(g->cg, "_%d", t), "u",
                                          fdx_cg_fmt(g->cg, "%s + (kg + %d %c (nm - %d)) * sm", rb, t - g->rm,
                                                     s ? '-' : '+', 2 * r),
                                          FDX_CG_LDG);
                        continue;
                    }
                    for (int v = 0; v < vec; v++)
                        fdx_cg_stmt(at, "%s%d_%d = %s", c, v, t,
                                    fdx_stencil_ghost_of(g, f, k, fdx_cg_fmt(g->cg, "%s%d_%d", c, v, tm)));
                }
            }
        }
        for (int s = 0; s < 2; s++) {
            if (!(g->fix >> s & 1)) continue;
            const int per = g->ks->fbc[s] == FDX_BCC_PERIODIC;
            if (x0 >= x1) continue;
            fdx_cg_node *at = fixup_if(body, g, s ? fdx_cg_fmt(g->cg, "x == nx - %d", vec) : "x == 0");
            for (int j = x0; j < x1; j++) {
                const int t = j + g->rm;
                const char *pl = i ? fdx_cg_fmt(g->cg, "pl%d + %s", t, rowoff(g, i)) : fdx_cg_fmt(g->cg, "pl%d", t);
                for (int k = 0; k < r; k++) {
                    /* layer k: lane r-1-k (bottom) / vec-r+k (top); mirror lane r+k / vec-r-1-k */
                    const int v = s ? vec - r + k : r - 1 - k, vm = s ? vec - r - 1 - k : r + k;
                    const char *val =
                        per ? fdx_cg_ld(g->cg, FDX_CG_LDG,
                                        fdx_cg_fmt(g->cg, "%s + %d %c (nx - %d)", pl, v, s ? '-' : '+', 2 * r))
                            : fdx_stencil_ghost_of(g, s, k, fdx_cg_fmt(g->cg, "%s%d_%d", c, vm, t));
                    fdx_cg_stmt(at, "%s%d_%d = %s", c, v, t, val);
                }
            }
        }
    }
}

/* Plane j of the group, row i: the x vectors, then (when the plane and the
   row are written) every lane's point and its stores. */
static void emit_group_row(fdx_cg_node *body, gen *g, int j, int i)
{
    const int mx = (g->r + g->vec - 1) / g->vec; /* x vectors per side */
    g->row = i;
    const char *rp = rowpre(g, "", i);
    const char *pl = i ? fdx_cg_fmt(g->cg, "pl%d + oy%d", j + g->rm, i) : fdx_cg_fmt(g->cg, "pl%d", j + g->rm);
    for (int m = -mx; m <= mx && g->xv; m++)
        if (m)
            fdx_cg_stmt(body, "const realv x%s%c%d_%d = %s", rp, m < 0 ? 'm' : 'p', m < 0 ? -m : m, j,
                        fdx_cg_ld(g->cg, FDX_CG_LDG, fdx_cg_fmt(g->cg, "(const realv *)(%s) + (%d)", pl, m)));
    fdx_cg_node *in = g->nr == 1 ? fdx_cg_if(body, "%d < nk", j) : fdx_cg_if(body, "%d < nk && y + %d < ny - %d", j, i, g->ry);
    if (g->fix && g->ks->fixat == 1) emit_fixups(in, g, i, j == 0, j, j + 1);
    if (g->fix && g->ks->fixat == 2) emit_fixups(in, g, i, 0, j, j + 1);
    if (!g->fold || g->ks->fstore) {
        emit_row_points(in, g, j, i);
    } else {
        /* Faces folded without stores: the blocks and groups that touch a
           face (bnd, uniform) take the code that computes the ghosts, all
           others the plain code. */
        const unsigned fold = g->fold;
        fdx_cg_node *edge = fdx_cg_if(in, "bnd");
        emit_row_points(edge, g, j, i);
        g->fold = 0;
        emit_row_points(fdx_cg_else(edge), g, j, i);
        g->fold = fold;
    }
    g->row = 0;
}

void fdx_stencil_emit_unroll(fdx_cg_node *at, gen *g)
{
    const fdx_stencil_cfg *c = g->cfg;
    const int U = c->pd, R = 2 * g->rm, T = U + R, wave = g->ks->update == FDX_UPDATE_WAVE, coef = g->ks->coef;
    /* One group per block (chunk == pd, part of the kernel's key) needs no
       loop: straight-line code kept ~12 registers fewer at pd 8, and 11%
       faster at 1024^3 on the H100, than the same group inside the loop. */
    const int single = c->chunk == U, pipe = c->pipe && !single;
    fdx_cg_node *k = fdx_stencil_emit_kernel(at, g);
    fdx_cg_stmt(k, "const int nx = (int)p.n[0], ny = (int)p.n[1], sy = nx");
    fdx_cg_stmt(k, "const long long nm = p.n[2], sm = p.n[0] * p.n[1]");
    emit_block_order(k, g);
    /* Unaligned rows gain nothing from an aligned x origin: the blocks
       start at the first interior point and cover only interior points
       (513 wide at 128 points a block: 4 blocks, not a fifth for one
       column, whose warps would wait as long as full ones). */
    const char *x = fdx_cg_fmt(g->cg, "const int x = %d + bx * %d + (int)threadIdx.x * %d", g->win ? g->r : 0,
                               c->tx * g->vec, g->vec);
    if (g->nr == 1) {
        fdx_cg_stmt(k, "%s, y = by * %d + (int)threadIdx.y", x, c->ty);
        fdx_cg_stmt(fdx_cg_if(k, "x >= nx - %d || y < %d || y >= ny - %d", g->win ? g->r : 0, g->ry, g->ry), "return");
    } else {
        /* Several rows a thread: the rows start at the first interior one
           (a block covers ty * nr rows; the grid covers ny - 2r). */
        fdx_cg_stmt(k, "%s, y = %d + (by * %d + (int)threadIdx.y) * %d", x, g->ry, c->ty, g->nr);
        fdx_cg_stmt(fdx_cg_if(k, "x >= nx - %d || y >= ny - %d", g->win ? g->r : 0, g->ry), "return");
        for (int d = 1; d < g->nr + g->ry; d++)
            fdx_cg_stmt(k, "const int oy%d = (y + %d < ny ? %d : ny - 1 - y) * sy", d, d, d);
    }
    fdx_cg_stmt(k, "const long long k0 = %d + (long long)bz * p.chunk", g->rm);
    fdx_cg_stmt(k, "const long long k1 = k0 + p.chunk < nm - %d ? k0 + p.chunk : nm - %d", g->rm, g->rm);
    fdx_cg_line(k, "const long long kl = k1 + %d; /* the last plane the block reads */", g->rm - 1);
    fdx_cg_stmt(k, "const long long base = x + (long long)y * sy");
    fdx_cg_stmt(k, "(void)up, (void)cf, (void)sy, (void)kl");
    const int nostore = g->fold && !g->ks->fstore;
    if (nostore) emit_edge(k, g);
    /* c<lane>_<t>: plane kg - rm + t of the column, t < T (per row). */
    for (int i = 0; i < g->nr; i++) {
        fdx_stencil_emit_lane_array(k, g, rowpre(g, "c", i), T);
        if (wave) fdx_stencil_emit_lane_array(k, g, rowpre(g, "pu", i), U);
        if (coef) fdx_stencil_emit_lane_array(k, g, rowpre(g, "pc", i), U);
        if (pipe) {
            fdx_stencil_emit_lane_array(k, g, rowpre(g, "n", i), U);
            if (wave) fdx_stencil_emit_lane_array(k, g, rowpre(g, "pun", i), U);
            if (coef) fdx_stencil_emit_lane_array(k, g, rowpre(g, "pcn", i), U);
        }
    }
    /* The 2 rm planes below the first group (they exist: k0 >= rm). */
    for (int i = 0; i < g->nr; i++)
        for (int t = 0; t < R; t++)
            fdx_stencil_vload(k, g, rowpre(g, "c", i), fdx_cg_fmt(g->cg, "_%d", t), "u",
                              fdx_cg_fmt(g->cg, "base%s%s + (k0 - %d) * sm", i ? " + " : "", i ? rowoff(g, i) : "",
                                         g->rm - t),
                              FDX_CG_LDG);
    if (pipe) emit_group_loads(k, g, "k0", "c", R, 0);
    fdx_cg_node *body;
    if (single) {
        body = fdx_cg_scope(k);
        fdx_cg_stmt(body, "const long long kg = k0");
    } else {
        body = fdx_cg_for(k, FDX_CG_LOOP_NOUNROLL, "long long kg = k0; kg < k1; kg += %d", U);
    }
    fdx_cg_line(body, "const int nk = k1 - kg < %d ? (int)(k1 - kg) : %d; /* planes to write */", U, U);
    if (nostore) emit_bnd(body, g);
    if (!pipe) emit_group_loads(body, g, "kg", "c", R, 0);
    /* The next group's loads; a block-uniform branch (the last group has
       none). */
    if (pipe) emit_group_loads(fdx_cg_if(body, "kg + %d < k1", U), g, fdx_cg_fmt(g->cg, "kg + %d", U), "n", 0, 1);
    /* pl<t>: this thread's first lane in the group's plane t, for the
       in-plane neighbours; planes past the last written one (only in a
       partial last group, whose results are dropped) are clamped to it, so
       even windows stay inside the array. */
    for (int j = 0; j < U; j++)
        fdx_cg_stmt(body, "const real *pl%d = u + base + (kg + %d < k1 ? kg + %d : k1 - 1) * sm", j + g->rm, j, j);
    for (int i = 0; i < g->nr && g->fix && g->ks->fixat != 1; i++)
        emit_fixups(body, g, i, 1, 0, g->ks->fixat == 2 ? 0 : U);
    for (int j = 0; j < U; j++) {
        g->plane = j;
        /* y neighbours as whole vectors (aligned: vec divides nx, or cut
           from two aligned ones); with several rows, only the 2r rows
           around the thread's rows (the rows between are its centres), as
           named scalars at vec 1 too. */
        for (int oy = -g->ry; oy < g->nr + g->ry && (g->vec > 1 || g->nr > 1); oy++) {
            if (oy >= 0 && oy < g->nr) continue;
            const char *name = fdx_cg_fmt(g->cg, "y%c%d_%d", oy < 0 ? 'm' : 'p', oy < 0 ? -oy : oy, j);
            const char *at_row = fdx_cg_fmt(g->cg, "pl%d + %s", j + g->rm, rowoff(g, oy));
            if (g->vec == 1)
                fdx_cg_stmt(body, "const real %s = %s", name, fdx_cg_ld(g->cg, FDX_CG_LDG, at_row));
            else if (g->win)
                fdx_cg_stmt(body, "const realv %s = fdx_win_ldg(%s)", name, at_row);
            else
                fdx_cg_stmt(body, "const realv %s = %s", name,
                            fdx_cg_ld(g->cg, FDX_CG_LDG, fdx_cg_fmt(g->cg, "(const realv *)(%s)", at_row)));
        }
        for (int i = 0; i < g->nr; i++) emit_group_row(body, g, j, i);
    }
    /* The next group's lower planes: registers, no memory traffic (only the
       last group can be partial, and nothing follows it); with pipe its new
       planes too. */
    for (int i = 0; i < g->nr && !single; i++)
        for (int v = 0; v < g->vec; v++) {
            const char *cp = rowpre(g, "c", i), *np = rowpre(g, "n", i), *up = rowpre(g, "pu", i);
            const char *unp = rowpre(g, "pun", i), *fp = rowpre(g, "pc", i), *fnp = rowpre(g, "pcn", i);
            fdx_sb s = FDX_SB_INIT;
            for (int t = 0; t < R; t++) fdx_sb_printf(&s, " %s%d_%d = %s%d_%d;", cp, v, t, cp, v, t + U);
            for (int j = 0; pipe && j < U; j++) {
                fdx_sb_printf(&s, " %s%d_%d = %s%d_%d;", cp, v, R + j, np, v, j);
                if (wave) fdx_sb_printf(&s, " %s%d_%d = %s%d_%d;", up, v, j, unp, v, j);
                if (coef) fdx_sb_printf(&s, " %s%d_%d = %s%d_%d;", fp, v, j, fnp, v, j);
            }
            if (s.len) fdx_cg_line(body, "%s", fdx_cg_text(g->cg, &s) + 1);
            else fdx_sb_free(&s);
        }
}
