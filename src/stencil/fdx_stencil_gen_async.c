/* fdx_stencil_gen_async: the asynchronous march (FDX_SV_ASYNC) as fdx_cg IR.

   Every plane of the block's tile is read once, by cp.async, into a ring of
   stages in shared memory; planes k .. k + r stay resident (plane k's tile
   gives the in-plane neighbours, plane k + r the column's newest value) and
   pd more are in flight without holding registers.  The column of 2r + 1
   values stays in registers as in the other marches.  One barrier a plane:
   after waiting for plane k + r's copies, it makes them visible, and since
   every thread has then left plane k - 1, that plane's stage (the one the
   next copies overwrite: stages = r + 1 + pd) is free.  With cfg->ry rows a
   thread (consecutive rows, each with its own column) the tile is ry times
   taller for the same threads: its y halo is shared by more points.  With
   cfg->zs the column is not carried: planes k - r .. k + r stay resident
   (r more stages, the march's planes counted from k0 - lo, lo = r) and the
   2r + 1 values are shared-memory loads at the point's tile position in
   those stages, so registers no longer grow with the rows a thread.  With
   cfg->zh only the column's lower half and centre (planes k - r .. k) are
   carried, r + 1 registers a lane; the upper half (k + 1 .. k + r) is read
   from the stages that hold it anyway (zq<o>, at offsets zp<o>_ from T),
   so no stage is added, and each point's sum is the same expression of the
   same values: results equal the carried column's bit for bit.  With
   several rows a thread zh also reads the tile rows the thread's rows share
   (their centres and y neighbours, Y<j>) once a plane: ry + 2r loads, not
   ry (2r + 1); with cfg->ys the carried column's rows share them the same
   way (ry + 2r loads, not ry * 2r).

   Names: go<j> / so<j> a thread's copy slots (global offset, stage
   offset), T_ / Tn_ the thread's first lane in plane k's / k + r's stage, T
   / Tn the same for one of its rows, q<lane>_<t> the column, x<m|p><i> and
   y<m|p><o> the neighbours read from the tile as whole vectors. */
#include "stencil/fdx_stencil_gen.h"

#include <stdio.h>

/* zh (or ys with the column carried) with several rows a thread: the rows'
   y neighbours (and with zh their centres) are the same tile rows, read once
   a plane for all of them (Y<j>: the row j - r of the thread's first, ry + 2r
   of them) instead of 2r + 1 (ys: 2r) a row.  With ys the rows' own centre
   rows are loaded too, though their columns hold them: a row's neighbour may
   be another row's centre, whose column register is shifted to the next
   plane once that row is done. */
static int shared_rows(const gen *g) { return (g->zh || g->ys) && g->nr > 1 && g->ry; }

void fdx_stencil_async_neighbour(fdx_sb *b, const gen *g, int a, int off, int v)
{
    const char *comp = fdx_stencil_comp;
    int d = v + off, m = d < 0 ? -((-d + g->vec - 1) / g->vec) : d / g->vec;
    if (a == 2 && g->zh && off > 0 && g->vec == 1) fdx_sb_printf(b, "zq%d", off); /* zh: from plane k + off's stage */
    else if (a == 2 && g->zh && off > 0) fdx_sb_printf(b, "zq%d.%c", off, comp[v]);
    else if (a == 2) fdx_sb_puts(b, fdx_stencil_col(g, v, g->rm + off));
    else if (a == 0 && d >= 0 && d < g->vec) fdx_sb_puts(b, fdx_stencil_col(g, d, g->rm)); /* a lane of this thread */
    else if (a == 0 && g->vec == 1) fdx_sb_printf(b, "T[%d]", d);
    else if (a == 0) fdx_sb_printf(b, "x%c%d.%c", m < 0 ? 'm' : 'p', m < 0 ? -m : m, comp[d - m * g->vec]);
    else if (g->vec == 1 && !shared_rows(g)) fdx_sb_printf(b, "T[%d]", off * g->aw);
    else if (g->vec == 1) fdx_sb_printf(b, "Y%d", g->row + g->ry + off); /* zh rows: loaded once a plane */
    else fdx_sb_printf(b, "y%c%d.%c", off < 0 ? 'm' : 'p', off < 0 ? -off : off, comp[v]);
}

/* Copies a plane of the block's tile (src: its first value's address)
   into a stage (`stage`, an expression); in an unrolled loop the copies
   go to sd<j> (sbase + so<j>, set once) plus the stage's offset, from the
   32-bit in-plane offsets gi<j>.  Each thread its slots (go<j> < 0: outside the
   array, never copied; only points whose whole star lies inside are
   stored, so those cells are never used). */
void fdx_stencil_async_issue(fdx_cg_node *at, const gen *g, const fdx_stencil_async_geom *a, const char *src,
                             const char *stage, int unrolled)
{
    const int bytes = a->cw * (g->ks->is_double ? 8 : 4);
    const size_t sb = a->stage_elems * (g->ks->is_double ? 8 : 4);
    fdx_cg_stmt(at, "const real *up_ = %s", src);
    if (!unrolled) fdx_cg_stmt(at, "const unsigned st_ = sbase + (unsigned)(%s) * %zuu", stage, sb);
    for (int j = 0; j < a->per_thread; j++)
        fdx_cg_async_copy(at, fdx_cg_fmt(g->cg, unrolled ? "gi%d >= 0" : "go%d >= 0", j),
                          unrolled ? fdx_cg_fmt(g->cg, "sd%d + (unsigned)(%s) * %zuu", j, stage, sb)
                                   : fdx_cg_fmt(g->cg, "st_ + so%d", j),
                          fdx_cg_fmt(g->cg, unrolled ? "up_ + gi%d" : "up_ + go%d", j), bytes);
}

/* tm: the helpers.  A stage's mbarrier (one arrival: thread 0's, with the
   plane's bytes expected) completes when the plane's tensor copy has
   landed; a wait that never ends (a byte count that does not match) traps
   after 2^24 tries rather than hang.  Under tests/cuda_emu.h (FDX_CUDA_EMU)
   the copy is a plain one at issue, values outside the array zero as the
   tensor map fills them, and the bytes a phase expects are checked against
   those copied at the wait. */
void fdx_stencil_emit_tm_helpers(fdx_cg_node *at, const gen *g)
{
    fdx_stencil_async_geom a;
    fdx_stencil_async_geom_of(g->ks, g->cfg, &a);
    const int es = g->ks->is_double ? 8 : 4;
    const char *const gpu[] = {
        "#ifndef FDX_CUDA_EMU",
        "static __device__ __forceinline__ void fdx_tm_init(unsigned b)",
        "{ asm volatile(\"mbarrier.init.shared::cta.b64 [%0], 1;\" :: \"r\"(b) : \"memory\"); }",
        "static __device__ __forceinline__ void fdx_tm_fence_init()",
        "{ asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\"); }",
        "static __device__ __forceinline__ void fdx_tm_expect(unsigned b, unsigned bytes)",
        "{ asm volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\" :: \"r\"(b), \"r\"(bytes) : \"memory\"); }",
        "/* the map's box (the tile's plane with its halo) from element (x, y, z) into dst (128-byte aligned) */",
        "static __device__ __forceinline__ void fdx_tm_box(unsigned dst, const void *map, const real *u, long long nx,",
        "                                                  long long ny, long long nz, int x, int y, int z, unsigned b)",
        "{ (void)u, (void)nx, (void)ny, (void)nz;",
        "  asm volatile(\"cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\"",
        "               :: \"r\"(dst), \"l\"((unsigned long long)map), \"r\"(x), \"r\"(y), \"r\"(z), \"r\"(b) : \"memory\"); }",
        "static __device__ __forceinline__ void fdx_tm_wait(unsigned b, unsigned parity)",
        "{ for (unsigned tries = 0;; tries++) { unsigned ok;",
        "    asm volatile(\"{\\n.reg .pred P1;\\nmbarrier.try_wait.parity.shared::cta.b64 P1, [%1], %2;\\nselp.u32 %0, 1, 0, P1;\\n}\"",
        "                 : \"=r\"(ok) : \"r\"(b), \"r\"(parity) : \"memory\");",
        "    if (ok) return;",
        "    if (tries == (1u << 24)) __trap(); } }",
        "#else",
        "static long long fdx_tm_pending[64];",
        "static void fdx_tm_init(unsigned b) { fdx_nb_init(b, 1); fdx_tm_pending[b / 8 % 64] = 0; }",
        "static void fdx_tm_fence_init() {}",
        "static void fdx_tm_expect(unsigned b, unsigned bytes) { fdx_tm_pending[b / 8 % 64] += bytes; fdx_nb_arrive(b); }",
        "/* until every expected byte is copied (none: a deadlock, as on the GPU) */",
        "static void fdx_tm_wait(unsigned b, unsigned parity)",
        "{ while (fdx_tm_pending[b / 8 % 64]) {",
        "    if (!fdx_cur) { fprintf(stderr, \"tensor copy wait in a run without barriers\\n\"); abort(); }",
        "    fdx_cur->state = 3; swapcontext(&fdx_cur->ctx, &fdx_sched); }",
        "  fdx_nb_wait(b, parity); }",
        "#endif",
    };
    for (size_t i = 0; i < sizeof gpu / sizeof *gpu; i++) fdx_cg_line(at, "%s", gpu[i]);
    fdx_cg_line(at, "#ifdef FDX_CUDA_EMU");
    fdx_cg_line(at, "static void fdx_tm_box(unsigned dst, const void *map, const real *u, long long nx, long long ny, long long nz,");
    fdx_cg_line(at, "                       int x, int y, int z, unsigned b)");
    fdx_cg_line(at, "{ (void)map; if (dst %% 128) { fprintf(stderr, \"tensor copy to a misaligned stage\\n\"); abort(); }");
    fdx_cg_line(at, "  real *d = (real *)(fdx_dynamic_smem + dst);");
    fdx_cg_line(at, "  for (int j = 0; j < %d; j++) for (int i = 0; i < %d; i++) {", a.height, a.width);
    fdx_cg_line(at, "    const long long gx = (long long)x + i, gy = (long long)y + j;");
    fdx_cg_line(at, "    d[j * %d + i] = gx >= 0 && gx < nx && gy >= 0 && gy < ny && z >= 0 && z < nz ? u[gx + nx * (gy + ny * z)] : (real)0; }", a.width);
    fdx_cg_line(at, "  fdx_tm_pending[b / 8 %% 64] -= %d; }", a.width * a.height * es);
    fdx_cg_line(at, "#endif");
}

/* tm: plane `plane` (an expression) into stage `stage`: thread 0 arrives on
   the stage's mbarrier expecting the plane's bytes and copies the tile's
   plane with its halo, one 3D box of the array's tensor map from (x0 - rx,
   y0 - r): rows, x halo and y halo rows past the array are zeros, read only
   by points whose star leaves the array, which are not stored. */
static void tm_issue(fdx_cg_node *at, const gen *g, const fdx_stencil_async_geom *a, const char *plane,
                     const char *stage)
{
    const int es = g->ks->is_double ? 8 : 4;
    const size_t sb = a->stage_elems * es;
    fdx_cg_node *w = fdx_cg_if(at, "tid == 0");
    fdx_cg_stmt(w, "const unsigned tb_ = tmb_ + (unsigned)(%s) * 8u", stage);
    fdx_cg_stmt(w, "fdx_tm_expect(tb_, %uu)", (unsigned)(a->height * a->width * es));
    fdx_cg_stmt(w, "fdx_tm_box(sbase + (unsigned)(%s) * %zuu, p.tm_, u, nx, ny, nm, (int)(x0 - %d), (int)(y0 - %d), (int)(%s), tb_)",
                stage, sb, a->rx, g->ry, plane);
}

/* The copy slots of a thread: slot i < rows * gw is a centre row's copy (x
   halo included; the plane tile's: its x halo only, hx values on either
   side), the rest the r rows above and below, centre part only.  A copy
   moves cw values (a->cw: the vector, or one where rows are not aligned to
   it), hx the x halo copied. */
void fdx_stencil_async_slots(fdx_cg_node *k, const gen *g, const fdx_stencil_async_geom *a)
{
    const int r = g->ry, V = a->cw, tw = g->cfg->tx * g->vec, plane = g->cfg->variant == FDX_SV_PLANE;
    const int gw = ((plane ? 0 : tw) + 2 * a->hx) / V;
    const int nt = g->cfg->tx * g->cfg->ty, rows = g->cfg->ty * g->nr, tx = tw / V;
    for (int j = 0; j < a->per_thread; j++) {
        fdx_cg_stmt(k, "long long go%d = -1", j);
        fdx_cg_stmt(k, "unsigned so%d = 0", j);
        fdx_cg_node *s = fdx_cg_scope(k);
        fdx_cg_stmt(s, "const int i_ = tid + %d", j * nt);
        fdx_cg_node *in = fdx_cg_if(s, "i_ < %d", a->slots);
        fdx_cg_stmt(in, "int row_, xo_");
        fdx_cg_node *centre = fdx_cg_if(in, "i_ < %d", rows * gw);
        fdx_cg_stmt(centre, "row_ = %d + i_ / %d, xo_ = (i_ %% %d) * %d - %d", r, gw, gw, V, a->hx);
        if (plane) fdx_cg_stmt(centre, "xo_ += xo_ >= 0 ? %d : 0", tw); /* the right halo */
        fdx_cg_node *halo = fdx_cg_else(centre);
        fdx_cg_stmt(halo, "const int h_ = (i_ - %d) / %d", rows * gw, tx);
        fdx_cg_stmt(halo, "row_ = h_ < %d ? h_ : %d + h_", r, rows);
        fdx_cg_stmt(halo, "xo_ = ((i_ - %d) %% %d) * %d", rows * gw, tx, V);
        fdx_cg_stmt(in, "const long long gx_ = x0 + xo_, gy_ = y0 + row_ - %d", r);
        fdx_cg_stmt(in, "so%d = (unsigned)((row_ * %d + xo_ + %d) * sizeof(real))", j, a->width, a->rx);
        fdx_cg_stmt(fdx_cg_if(in, "gx_ >= 0 && gx_ < nx && gy_ >= 0 && gy_ < ny"), "go%d = gx_ + gy_ * sy", j);
    }
}

/* Several rows a thread (cfg->ry): the scope of the thread's row i (of
   g->nr).  The row's own names (its point y, base, col, rowin, its tile
   pointers T / Tn, and with several rows its column c<i>_<lane>_<t> and
   u_prev / coef registers bound by reference to the names q<lane>_<t>, pu,
   pc... that the shared point code uses) shadow the thread's, so one body
   serves every row; references to locals cost no registers of their own.
   With one row the names are the thread's. */
fdx_cg_node *fdx_stencil_async_row_open(fdx_cg_node *at, const gen *g, const fdx_stencil_async_geom *a, int i,
                                       int tiles)
{
    const int r = g->ry, wave = g->ks->update == FDX_UPDATE_WAVE, coef = g->ks->coef;
    fdx_cg_node *s = fdx_cg_scope(at);
    fdx_cg_comment(s, "row %d", i);
    fdx_cg_stmt(s, "const long long y = y_ + %d, base = base_ + %d * sy", i, i);
    fdx_cg_stmt(s, "const bool col = xin_ && y < ny, rowin = col && y >= %d && y < ny - %d", r, r);
    fdx_cg_stmt(s, "(void)rowin");
    if (tiles && (g->zs || g->zh || g->cfg->variant == FDX_SV_PLANE)) {
        fdx_cg_stmt(s, "const real *T = T_ + %d", i * a->width);
    } else if (tiles) {
        fdx_cg_stmt(s, "const real *T = T_ + %d, *Tn = Tn_ + %d", i * a->width, i * a->width);
        fdx_cg_stmt(s, "(void)T");
    }
    if (g->nr == 1) return s;
    for (int v = 0; v < g->vec; v++) {
        if (!g->zs) {
            fdx_sb d = FDX_SB_INIT;
            fdx_sb_puts(&d, "real");
            for (int t = 0; t < fdx_stencil_async_column_len(g); t++)
                fdx_sb_printf(&d, "%s &q%d_%d = c%d_%d_%d", t ? "," : "", v, t, i, v, t);
            fdx_cg_stmt(s, "%s", fdx_cg_text(g->cg, &d));
        }
        if (wave) fdx_cg_stmt(s, "real &pu%d = pu%d_%d, &pun%d = pun%d_%d", v, i, v, v, i, v);
        if (coef) fdx_cg_stmt(s, "real &pc%d = pc%d_%d, &pcn%d = pcn%d_%d", v, i, v, v, i, v);
    }
    return s;
}

/* Plane k of a row: the column's newest value from its stage (or, with zs,
   the whole column from the stages; the plane tile has it already), u_prev
   / coef, the x and y vectors, the points, the stores, the column's shift. */
void fdx_stencil_async_row_plane(fdx_cg_node *rs, const gen *g, const fdx_stencil_async_geom *a)
{
    const int r = g->r, V = g->vec, wave = g->ks->update == FDX_UPDATE_WAVE, coef = g->ks->coef, zs = g->zs;
    const char *comp = fdx_stencil_comp;
    /* The column's newest register: plane k + r (Tn), or with zh plane k
       itself, the centre (T). */
    if (shared_rows(g) && g->zh) {
        fdx_sb d = FDX_SB_INIT;
        for (int v = 0; v < V; v++)
            fdx_sb_printf(&d, "%s%s = Y%d%s%c;", v ? " " : "", fdx_stencil_col(g, v, r), g->row + g->ry, V > 1 ? "." : "",
                          V > 1 ? comp[v] : ' ');
        fdx_cg_line(rs, "%s", fdx_cg_text(g->cg, &d));
    } else if (!zs && g->cfg->variant != FDX_SV_PLANE) {
        fdx_cg_load(rs, (fdx_cg_lanes){"q", fdx_cg_fmt(g->cg, "_%d", fdx_stencil_col_slot(g, g->zh ? r : 2 * r)), V, 0}, "realv",
                    g->zh ? "T" : "Tn", "0", FDX_CG_PLAIN, 0);
    }
    for (int v = 0; v < V; v++) {
        if (wave) fdx_cg_stmt(rs, "pu%d = pun%d", v, v);
        if (coef) fdx_cg_stmt(rs, "pc%d = pcn%d", v, v);
    }
    if (wave || coef) {
        /* unrolled: the row's offset of plane k + 1 kept (Q<row>_), no product a plane */
        const char *at = g->zu ? fdx_cg_fmt(g->cg, "Q%d_", g->row) : "base + (k + 1) * sm";
        fdx_cg_node *next = fdx_cg_if(rs, "col && k + 1 < k1");
        if (wave) fdx_stencil_vload(next, g, "pun", "", "up", at, FDX_CG_STREAM);
        if (coef) fdx_stencil_vload(next, g, "pcn", "", "cf", at, FDX_CG_STREAM);
    }
    fdx_cg_node *rowin = fdx_cg_if(rs, "rowin");
    fdx_cg_stmt(rowin, "const long long q = base + k * sm");
    for (int o = 1; o <= r && g->zh; o++) /* the column's upper half from the stages */
        fdx_cg_stmt(rowin, V == 1 ? "const real zq%d = T[zp%d_]" : "const realv zq%d = *(const realv *)(T + zp%d_)", o, o);
    for (int t = 0; t <= 2 * r && zs; t++) { /* the column from the stages */
        const char *at = t == r ? "T" : fdx_cg_fmt(g->cg, "(T + z%c%d_)", t < r ? 'm' : 'p', t < r ? r - t : t - r);
        if (V == 1) {
            fdx_cg_stmt(rowin, "const real q0_%d = *%s", t, at);
            continue;
        }
        fdx_cg_stmt(rowin, "const realv z%d_ = *(const realv *)%s", t, at);
        fdx_sb d = FDX_SB_INIT;
        fdx_sb_puts(&d, "const real");
        for (int v = 0; v < V; v++) fdx_sb_printf(&d, "%s q%d_%d = z%d_.%c", v ? "," : "", v, t, t, comp[v]);
        fdx_cg_stmt(rowin, "%s", fdx_cg_text(g->cg, &d));
    }
    if (V > 1) {
        /* Whole vectors from the tile: the x neighbours beyond the thread's
           lanes, then the y neighbours. */
        int mlo = -((r + V - 1) / V), mhi = (V - 1 + r) / V;
        for (int m = mlo; m <= mhi; m++)
            if (m)
                fdx_cg_stmt(rowin, "const realv x%c%d = *(const realv *)(T + %d)", m < 0 ? 'm' : 'p', m < 0 ? -m : m,
                            m * V);
        for (int o = 1; o <= g->ry && shared_rows(g); o++)
            fdx_cg_stmt(rowin, "const realv &ym%d = Y%d, &yp%d = Y%d", o, g->row + g->ry - o, o, g->row + g->ry + o);
        for (int o = 1; o <= g->ry && !shared_rows(g); o++)
            fdx_cg_stmt(rowin, "const realv ym%d = *(const realv *)(T - %d), yp%d = *(const realv *)(T + %d)", o,
                        o * a->width, o, o * a->width);
    }
    fdx_stencil_emit_points_store_shift(rs, rowin, g, "k");
}

fdx_cg_node *fdx_stencil_async_head(fdx_cg_node *at, gen *g, const fdx_stencil_async_geom *a)
{
    const fdx_stencil_cfg *c = g->cfg;
    const int r = g->r, V = g->vec, nr = g->nr, rows = c->ty * nr;
    g->aw = a->width;
    fdx_cg_node *k = fdx_stencil_emit_kernel(at, g);
    fdx_cg_shared(k, "unsigned char", "fdx_smem_", NULL);
    if (g->tm) { /* the stages from the first 128-byte boundary (the tensor copies' rows), the mbarriers after them */
        fdx_cg_stmt(k, "const unsigned sraw_ = (unsigned)__cvta_generic_to_shared(fdx_smem_), sbase = (sraw_ + 127u) & ~127u");
        fdx_cg_stmt(k, "const real *tile = (const real *)(fdx_smem_ + (sbase - sraw_))");
        fdx_cg_stmt(k, "const unsigned tmb_ = sbase + %zuu", (size_t)a->stages * a->stage_elems * (g->ks->is_double ? 8 : 4));
    } else {
        fdx_cg_stmt(k, "%sreal *tile = (%sreal *)fdx_smem_", c->variant == FDX_SV_PLANE ? "" : "const ",
                    c->variant == FDX_SV_PLANE ? "" : "const ");
        fdx_cg_stmt(k, "const unsigned sbase = (unsigned)__cvta_generic_to_shared(fdx_smem_)");
    }
    fdx_cg_stmt(k, "const long long nx = p.n[0], ny = p.n[1], nm = p.n[2], sy = nx, sm = nx * ny");
    fdx_cg_stmt(k, "const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * %d + tx", c->tx);
    fdx_cg_stmt(k, "const long long x0 = (long long)blockIdx.x * %d, y0 = (long long)blockIdx.y * %d", c->tx * V, rows);
    fdx_cg_stmt(k, "const long long x = x0 + tx * %d, y_ = y0 + ty * %d", V, nr);
    fdx_cg_stmt(k, "const long long k0 = %d + (long long)blockIdx.z * p.chunk", r);
    fdx_cg_stmt(k, "const long long k1 = k0 + p.chunk < nm - %d ? k0 + p.chunk : nm - %d", r, r);
    fdx_cg_stmt(k, "const bool xin_ = x < nx");
    fdx_cg_stmt(k, "const long long base_ = x + y_ * sy");
    fdx_cg_stmt(k, "(void)up, (void)cf");
    fdx_stencil_async_slots(k, g, a);
    if (g->tm) {
        fdx_cg_node *t0 = fdx_cg_if(k, "tid == 0");
        fdx_cg_stmt(fdx_cg_for(t0, FDX_CG_LOOP, "int s_ = 0; s_ < %d; s_++", a->stages), "fdx_tm_init(tmb_ + 8u * s_)");
        fdx_cg_stmt(t0, "fdx_tm_fence_init()");
        fdx_cg_barrier(k, "the stages' mbarriers are set");
    }
    return k;
}

/* The column's registers in a march over the tile: 2r + 1 planes (none with
   zs, the lower half and the centre with zh), and for the plane tile pd
   more, the newest planes in flight. */
int fdx_stencil_async_column_len(const gen *g)
{
    if (g->zs) return 0;
    if (g->zu) return g->zu; /* unrolled: a name for each step of the period (each lives as long as its plane) */
    if (g->zh) return g->r + 1;
    return 2 * g->r + 1 + (g->cfg->variant == FDX_SV_PLANE ? g->cfg->pd : 0);
}

/* Each row's column (q<lane>_<t>, with several rows c<row>_<lane>_<t>)
   and u_prev / coef registers; the column's first 2r planes (zh: r; the
   plane tile's: and the pd after plane k0 + r, those before k1 + r)
   straight from global memory. */
void fdx_stencil_async_columns(fdx_cg_node *k, const gen *g, const fdx_stencil_async_geom *a)
{
    const int r = g->r, wave = g->ks->update == FDX_UPDATE_WAVE, coef = g->ks->coef, nr = g->nr;
    const int len = fdx_stencil_async_column_len(g);
    for (int i = 0; i < nr; i++) {
        if (len) fdx_stencil_emit_lane_array(k, g, nr > 1 ? fdx_cg_fmt(g->cg, "c%d_", i) : "q", len);
        const char *names[4] = {wave ? "pu" : NULL, wave ? "pun" : NULL, coef ? "pc" : NULL, coef ? "pcn" : NULL};
        for (int n = 0; n < 4; n++)
            if (names[n]) fdx_stencil_emit_lanes(k, g, nr == 1 ? names[n] : fdx_cg_fmt(g->cg, "%s%d_", names[n], i));
    }
    for (int i = 0; i < nr; i++) {
        fdx_cg_node *col = fdx_cg_if(fdx_stencil_async_row_open(k, g, a, i, 0), "col");
        for (int t = 0; t < (g->zh ? 1 : 2) * r && len; t++)
            fdx_stencil_vload(col, g, "q", fdx_cg_fmt(g->cg, "_%d", t), "u",
                              fdx_cg_fmt(g->cg, "base + (k0 - %d) * sm", r - t), FDX_CG_LDG);
        for (int t = 2 * r + 1; t < len && g->cfg->variant == FDX_SV_PLANE; t++)
            fdx_stencil_vload(fdx_cg_if(col, "%d < k1 - k0", t - 2 * r - 1), g, "q", fdx_cg_fmt(g->cg, "_%d", t), "u",
                              fdx_cg_fmt(g->cg, "base + (k0 + %d) * sm", t - r - 1), FDX_CG_LDG);
        if (wave) fdx_stencil_vload(col, g, "pun", "", "up", "base + k0 * sm", FDX_CG_STREAM);
        if (coef) fdx_stencil_vload(col, g, "pcn", "", "cf", "base + k0 * sm", FDX_CG_STREAM);
    }
}

/* One plane of the march into `m`: the wait and the barrier, the copies of
   plane k + r + pd, plane k's stage pointers, every row's points.  At step
   j of a loop unrolled by its period g->zu (j >= 0) the column's names are
   rotated by j and every stage index is a constant, or where the period is
   not the stage count (the carried column) the round's base b_ (plane
   k0 + t's stage at the round's first step) plus a constant, wrapped once;
   j < 0: the rolled loop (indices from t = k - k0). */
static void emit_plane(fdx_cg_node *m, gen *g, const fdx_stencil_async_geom *a, int j)
{
    const fdx_stencil_cfg *c = g->cfg;
    const int r = g->r, V = g->vec, nr = g->nr, P = c->pd, S = a->stages, lo = g->zs ? r : 0;
    const int fixed = j >= 0 && a->period == S; /* the stage indices are constants */
    /* Stage of plane k + o: (t + lo + o) mod S. */
    const char *stage_of[2 * FDX_STENCIL_MAX_RADIUS + FDX_STENCIL_MAX_ASYNC_AHEAD + 2];
    for (int o = 0; o <= r + P; o++) {
        const int d = (j + o) % S; /* from b_ = (t + lo) mod S at the round's first step */
        stage_of[o] = fixed    ? fdx_cg_fmt(g->cg, "%d", (j + lo + o) % S)
                      : j >= 0 ? fdx_cg_fmt(g->cg, "(b_ + %d < %d ? b_ + %d : b_ - %d)", d, S, d, S - d)
                               : fdx_cg_fmt(g->cg, "(t + %d) %% %d", lo + o, S);
    }
    g->zj = j >= 0 ? j : 0;
    if (j < 0) fdx_cg_stmt(m, "const int t = (int)(k - k0)");
    else fdx_cg_stmt(m, "const long long k = k0 + t; (void)k");
    if (c->b2) { /* every second plane: planes up to k + 1 + r, and k - 1's and k - 2's stages free */
        fdx_cg_node *even = j >= 0 ? (j % 2 ? NULL : m) : fdx_cg_if(m, "(t & 1) == 0");
        if (even) {
            fdx_cg_async_wait(even, P - 2, "planes k + r and k + 1 + r have landed");
            fdx_cg_barrier(even, fdx_cg_fmt(g->cg, "... for every thread; planes k - %d and k - %d's stages are free",
                                            lo + 2, lo + 1));
        }
    } else if (g->tm) { /* plane k + r is plane k0 - lo + t + lo + r: its stage's use (t + lo + r) / S */
        fdx_cg_stmt(m, "fdx_tm_wait(tmb_ + 8u * (unsigned)(%s), (unsigned)((t + %d) / %d) & 1u)", stage_of[r], lo + r, S);
        fdx_cg_barrier(m, fdx_cg_fmt(g->cg, "... for every thread; plane k - %d's stage is free", lo + 1));
    } else {
        fdx_cg_async_wait(m, P - 1, "plane k + r has landed");
        fdx_cg_barrier(m, fdx_cg_fmt(g->cg, "... for every thread; plane k - %d's stage is free", lo + 1));
    }
    if (g->tm)
        tm_issue(fdx_cg_if(m, j < 0 ? "k + %d < k1 + %d" : "t + %d < nt_ + %d", r + P, r), g, a,
                 fdx_cg_fmt(g->cg, "k + %d", r + P), stage_of[r + P]);
    else if (j < 0)
        fdx_stencil_async_issue(fdx_cg_if(m, "k + %d < k1 + %d", r + P, r), g, a,
                                fdx_cg_fmt(g->cg, "u + (k + %d) * sm", r + P), stage_of[r + P], 0);
    else /* 32-bit plane counts, the source plane's pointer kept */
        fdx_stencil_async_issue(fdx_cg_if(m, "t + %d < nt_ + %d", r + P, r), g, a, "gu_", stage_of[r + P], 1);
    if (!g->tm) fdx_cg_async_commit(m);
    if (j >= 0 && !g->tm) { /* advanced a plane, opaquely: ptxas would otherwise hoist every step's addresses into registers */
        fdx_cg_stmt(m, "gu_ += sm");
        fdx_cg_stmt(m, "asm volatile(\"\" : \"+l\"(gu_))");
    }
    if (fixed) {
        fdx_cg_stmt(m, "const real *T_ = tile + %zu + tc /* plane k's stage */", (size_t)((j + lo) % S) * a->stage_elems);
    } else if (j >= 0) {
        fdx_cg_stmt(m, "const real *T_ = tile + %s * %zu + tc /* plane k's stage */", stage_of[0], a->stage_elems);
    } else {
        fdx_cg_line(m, "const int sc_ = %s; /* plane k's stage */", stage_of[0]);
        fdx_cg_stmt(m, "const real *T_ = tile + sc_ * %zu + tc", a->stage_elems);
    }
    /* The stages of planes k - o (zs) and k + o (zs, zh) as offsets from T_,
       or plane k + r's pointer (the column's newest value). */
    for (int o = 1; o <= r && (g->zs || g->zh); o++) {
        if (fixed) { /* (zh and zs always: their period is the stage count) */
            const int sc = (j + lo) % S;
            if (g->zs)
                fdx_cg_stmt(m, "const int zm%d_ = %lld", o, (long long)((sc - o + S) % S - sc) * (long long)a->stage_elems);
            fdx_cg_stmt(m, "const int zp%d_ = %lld", o, (long long)((sc + o) % S - sc) * (long long)a->stage_elems);
        } else if (g->zs) {
            fdx_cg_stmt(m, "const int zm%d_ = (sc_ >= %d ? -%d : %d) * %zu, zp%d_ = (sc_ + %d < %d ? %d : %d) * %zu", o,
                        o, o, S - o, a->stage_elems, o, o, S, o, o - S, a->stage_elems);
        } else {
            fdx_cg_stmt(m, "const int zp%d_ = (sc_ + %d < %d ? %d : %d) * %zu", o, o, S, o, o - S, a->stage_elems);
        }
    }
    if (!g->zs && !g->zh)
        fdx_cg_stmt(m, "const real *Tn_ = tile + (%s) * %zu + tc", stage_of[r], a->stage_elems);
    for (int i = 0; i < nr + 2 * g->ry && shared_rows(g); i++)
        fdx_cg_stmt(m, "const %s Y%d = *(const %s *)(T_ + %d)", V > 1 ? "realv" : "real", i, V > 1 ? "realv" : "real",
                    (i - g->ry) * a->width);
    for (int i = 0; i < nr; i++) {
        g->row = i; /* shared_rows: the row's Y names */
        g->store = j >= 0 ? fdx_cg_fmt(g->cg, "O%d_", i) : NULL; /* unrolled: the row's output pointer */
        fdx_stencil_async_row_plane(fdx_stencil_async_row_open(m, g, a, i, 1), g, a);
        if (j >= 0) fdx_cg_stmt(m, "O%d_ += sm; asm volatile(\"\" : \"+l\"(O%d_))", i, i);
        if (j >= 0 && (g->ks->update == FDX_UPDATE_WAVE || g->ks->coef))
            fdx_cg_stmt(m, "Q%d_ += sm; asm volatile(\"\" : \"+l\"(Q%d_))", i, i);
    }
    g->row = 0;
    g->store = NULL;
}

void fdx_stencil_emit_async(fdx_cg_node *at, gen *g)
{
    const fdx_stencil_cfg *c = g->cfg;
    const int r = g->r, V = g->vec, nr = g->nr;
    const int zs = g->zs, lo = zs ? r : 0;
    fdx_stencil_async_geom a;
    fdx_stencil_async_geom_of(g->ks, c, &a);
    const int P = c->pd;
    g->zu = c->uz ? a.period : 0;
    g->zj = 0;
    fdx_cg_node *k = fdx_stencil_async_head(at, g, &a);
    fdx_stencil_async_columns(k, g, &a);
    /* Planes k0 - lo .. k0 + r + pd - 1 in flight, one commit group each
       (empty past the last plane, so that the count of groups stays
       uniform); plane k0 - lo + j goes to stage j mod S. */
    fdx_cg_node *pro = fdx_cg_for(k, FDX_CG_LOOP, "int i = 0; i < %d; i++", lo + r + P);
    if (g->tm) {
        tm_issue(fdx_cg_if(pro, "k0 - %d + i < k1 + %d", lo, r), g, &a, fdx_cg_fmt(g->cg, "k0 - %d + i", lo), "i");
    } else {
        fdx_stencil_async_issue(fdx_cg_if(pro, "k0 - %d + i < k1 + %d", lo, r), g, &a,
                                fdx_cg_fmt(g->cg, "u + (k0 - %d + i) * sm", lo), "i", 0);
        fdx_cg_async_commit(pro);
    }
    fdx_cg_stmt(k, "const int tc = (ty * %d + %d) * %d + %d + tx * %d", nr, g->ry, a.width, a.rx, V);
    if (!g->zu) {
        emit_plane(fdx_cg_for(k, FDX_CG_LOOP, "long long k = k0; k < k1; k++"), g, &a, -1);
    } else {
        /* Unrolled by the period: step j's planes are k0 + j mod zu, each
           step in its scope, the march leaving after the chunk's last plane. */
        fdx_cg_stmt(k, "const int nt_ = (int)(k1 - k0)");
        for (int j = 0; j < a.per_thread; j++) fdx_cg_stmt(k, "const unsigned sd%d = sbase + so%d", j, j);
        for (int j = 0; j < a.per_thread; j++) /* in-plane offsets: the fits check keeps planes under 2^31 points */
            fdx_cg_stmt(k, "const int gi%d = (int)go%d", j, j);
        if (!g->tm) fdx_cg_stmt(k, "const real *gu_ = u + (k0 + %d) * sm /* the next plane copied */", r + P);
        for (int i = 0; i < nr; i++) fdx_cg_stmt(k, "real *O%d_ = out + base_ + %d * sy + k0 * sm", i, i);
        for (int i = 0; i < nr && (g->ks->update == FDX_UPDATE_WAVE || g->ks->coef); i++)
            fdx_cg_stmt(k, "long long Q%d_ = base_ + %d * sy + (k0 + 1) * sm", i, i);
        fdx_cg_node *m = fdx_cg_for(k, FDX_CG_LOOP_NOUNROLL, "int t = 0; t < nt_;");
        if (a.period != a.stages) fdx_cg_stmt(m, "const int b_ = (t + %d) %% %d /* the round's first stage */", lo, a.stages);
        for (int j = 0; j < g->zu; j++) {
            fdx_cg_comment(m, "step %d of %d", j, g->zu);
            emit_plane(fdx_cg_scope(m), g, &a, j);
            fdx_cg_stmt(m, "t++");
            if (j + 1 < g->zu) fdx_cg_stmt(fdx_cg_if(m, "t >= nt_"), "break");
        }
        g->zj = 0;
    }
    if (!g->tm) fdx_cg_async_wait(k, -1, NULL); /* (tm: every plane copied was waited for) */
}
