/* fdx_ustencil_march: the march (FDX_US_MARCH), the tuned CUDA path of user
   stencils in rank 2 and 3 (box, div(k grad u)), as fdx_cg IR.

   2D blocks cover the plane (vec lanes and `rows` rows a thread); each
   thread walks its points through a chunk of planes.  Step s loads plane s's
   distinct points once (as aligned vectors with vload) and adds every term
   whose latest factor lies in plane s into the accumulator of its output
   plane s - dz (2r + 1 accumulators per point and component,
   a<comp>_<d>_<point>: output plane s + r - d); after the step plane s - r
   is complete and stored, and the accumulators shift a plane.  A term whose
   factors lie in two planes (the z faces of div(k grad u)) takes the
   earlier one from a register column of the thread's own points
   (<field>_col<lag>_<point>), which is why the march needs such factors at
   in-plane offset (0, 0).  With pipe, step s loads plane s + 1 into
   n<name> while it computes plane s from <name> (carried in registers), so
   a thread keeps a plane of loads in flight.  No shared memory and no
   barriers.

   The tile form (FDX_US_TILE): the march's in-plane neighbours came through
   L1, and its misses made the box and div(k grad u) L2-bound (ncu, session
   8: L2 throughput 92% / 99% while DRAM moved only the ideal bytes).  Here
   each plane's block tile (tx vec + 2 rx by ty rows + 2 ry values, every
   field read in a plane) is copied once by cp.async into a ring of pf + 1
   shared stages, pf planes ahead; a step waits for its plane, a barrier
   makes every thread's copies visible (and says the stage the next copy
   overwrites, the one read a step before, is free), then issues the copy
   of plane s + pf and reads its values from the stage.  No thread returns
   early (the barriers): threads past the grid copy and compute, but store
   nothing. */
#include "stencil/fdx_ustencil_gen.h"

#include <string.h>

/* The plane (m offset) at which a term is added: its latest factor's. */
static int late_plane(const fdx_us_term *t)
{
    int z = t->f[0].off[2];
    if (t->nf == 2 && t->f[1].off[2] > z) z = t->f[1].off[2];
    return z;
}

int fdx_us_march_ok(const fdx_us_spec *ks)
{
    if (ks->rank < 2) return 0;
    for (int i = 0; i < ks->nterms; i++) {
        const fdx_us_term *t = &ks->terms[i];
        int z = late_plane(t);
        for (int f = 0; f < t->nf; f++)
            if (t->f[f].off[2] != z && (t->f[f].off[0] || t->f[f].off[1])) return 0;
    }
    return 1;
}

/* A column: a (field, component) some term reads from an earlier plane. */
typedef struct column {
    int field, comp, depth;
} column;

/* u0_xm1_y0 (rank 2: u0_xm1): the value at lane position px, row dy
   (relative to the thread's first row) of the current plane. */
static const char *plane_name(const ugen *g, const fdx_us_factor *f, int px, int dy)
{
    fdx_sb b = FDX_SB_INIT;
    fdx_sb_printf(&b, "%s_x", fdx_us_field_name(g, f));
    fdx_us_off_text(&b, px);
    if (g->ks->rank == 3) fdx_sb_puts(&b, "_y"), fdx_us_off_text(&b, dy);
    return fdx_cg_text(g->cg, &b);
}

/* A point of the thread: lane v of row i, numbered i * vec + v. */
static const char *col_name(const ugen *g, const fdx_us_factor *f, int lag, int lane)
{
    return fdx_cg_fmt(g->cg, "%s_col%d_%d", fdx_us_field_name(g, f), lag, lane);
}

/* The value of factor f of a term added at plane offset z, for lane v of
   row i. */
static const char *factor_value(const ugen *g, const fdx_us_factor *f, int z, int v, int i)
{
    if (f->off[2] == z) return plane_name(g, f, v + f->off[0], i + f->off[1]);
    return col_name(g, f, z - f->off[2], i * g->cfg->vec + v);
}

/* The in-plane offset of row d (relative to the thread's first row): with
   several rows a thread, rows past the grid's last are clamped to it (oy<d>),
   so the loads of a partial last block stay inside; their points are not
   stored. */
static const char *row_off(const ugen *g, int d)
{
    if (d > 0 && g->cfg->rows > 1) return fdx_cg_fmt(g->cg, "oy%d", d);
    return d ? fdx_cg_fmt(g->cg, "%d * sy", d) : "0";
}

/* The element at lane position px, row d of the plane starting at ps. */
static const char *row_elem(const ugen *g, int field, int comp, int px, int d)
{
    const char *pt = fdx_cg_fmt(g->cg, "ps + %d + %s", px, row_off(g, d));
    return fdx_us_elem(g, field, comp, pt);
}

typedef struct pload {
    fdx_us_factor f; /* off[0] holds the lane position, off[1] the row, off[2] 0 */
} pload;

static int add_load(pload *l, int n, int field, int comp, int px, int dy)
{
    fdx_us_factor f = {field, comp, {px, dy, 0}};
    for (int i = 0; i < n; i++)
        if (fdx_us_same_factor(&l[i].f, &f)) return n;
    l[n].f = f;
    return n + 1;
}

/* vload: each row's points (field, row) as the aligned vectors of vec
   values that hold them, named <field>_v<first position>_y<row>, then each
   point a component of one.  The thread's first lane x is rx modulo vec
   (also where the last thread shifts its lanes: 2 rx is a multiple of vec),
   nx is a multiple of vec and the arrays are aligned, so position p is
   aligned where rx + p is a multiple of vec, and a vector holding a point
   of the row lies inside the row. */
static void emit_vector_loads(fdx_cg_node *at, const ugen *g, const pload *loads, int nl, const char *pre)
{
    const int V = g->cfg->vec, rx = g->ks->rx;
    static _Thread_local char done[4 * FDX_USTENCIL_MAX_TERMS * 16 + 256];
    memset(done, 0, sizeof done);
    for (int i = 0; i < nl; i++) {
        if (done[i]) continue;
        const fdx_us_factor *f = &loads[i].f;
        int lo = f->off[0], hi = f->off[0];
        for (int j = i; j < nl; j++)
            if (loads[j].f.field == f->field && loads[j].f.comp == f->comp && loads[j].f.off[1] == f->off[1]) {
                lo = loads[j].f.off[0] < lo ? loads[j].f.off[0] : lo;
                hi = loads[j].f.off[0] > hi ? loads[j].f.off[0] : hi;
            }
        for (int p0 = lo - (((rx + lo) % V) + V) % V; p0 <= hi; p0 += V) {
            fdx_sb b = FDX_SB_INIT;
            fdx_sb_printf(&b, "%s_v", fdx_us_field_name(g, f));
            fdx_us_off_text(&b, p0);
            if (g->ks->rank == 3) fdx_sb_puts(&b, "_y"), fdx_us_off_text(&b, f->off[1]);
            const char *vname = fdx_cg_text(g->cg, &b);
            const char *addr = fdx_cg_fmt(g->cg, "(const realv *)(%s)", row_elem(g, f->field, f->comp, p0, f->off[1]));
            fdx_cg_stmt(at, "const realv %s%s = %s", pre, vname, fdx_cg_ld(g->cg, FDX_CG_LDG, addr));
            for (int j = i; j < nl; j++) {
                const fdx_us_factor *e = &loads[j].f;
                if (done[j] || e->field != f->field || e->comp != f->comp || e->off[1] != f->off[1] || e->off[0] < p0 ||
                    e->off[0] >= p0 + V)
                    continue;
                fdx_cg_stmt(at, "const real %s%s = %s%s.%c", pre, plane_name(g, e, e->off[0], e->off[1]), pre, vname,
                            "xyzw"[e->off[0] - p0]);
                done[j] = 1;
            }
        }
    }
}

/* Declares name(0) = 0, ..., one statement. */
static void declare_zero(fdx_cg_node *at, const ugen *g, fdx_sb *names)
{
    fdx_cg_stmt(at, "real%s", fdx_cg_text(g->cg, names));
}

/* What a march reads: the columns with their depths, and the distinct
   points of a plane (every latest factor at each lane of each row, and each
   column's points). */
typedef struct march {
    int V, NR, L, R;
    column cols[(FDX_USTENCIL_MAX_INPUTS + FDX_USTENCIL_MAX_COEFS) * FDX_USTENCIL_MAX_COMPONENTS];
    int ncols;
    pload loads[4 * FDX_USTENCIL_MAX_TERMS * 16 + 256];
    int nl;
} march;

static void plan(const ugen *g, march *m)
{
    const fdx_us_spec *ks = g->ks;
    m->V = g->cfg->vec, m->NR = g->cfg->rows > 1 ? g->cfg->rows : 1, m->L = m->V * m->NR, m->R = ks->rm;
    m->ncols = m->nl = 0;
    for (int i = 0; i < ks->nterms; i++) {
        const fdx_us_term *t = &ks->terms[i];
        int z = late_plane(t);
        for (int f = 0; f < t->nf; f++) {
            int lag = z - t->f[f].off[2], j = 0;
            if (!lag) continue;
            while (j < m->ncols && !(m->cols[j].field == t->f[f].field && m->cols[j].comp == t->f[f].comp)) j++;
            if (j == m->ncols) m->cols[m->ncols++] = (column){t->f[f].field, t->f[f].comp, 0};
            if (lag > m->cols[j].depth) m->cols[j].depth = lag;
        }
    }
    for (int i = 0; i < ks->nterms; i++) {
        const fdx_us_term *t = &ks->terms[i];
        int z = late_plane(t);
        for (int f = 0; f < t->nf; f++)
            for (int r = 0; r < m->NR && t->f[f].off[2] == z; r++)
                for (int v = 0; v < m->V; v++)
                    m->nl = add_load(m->loads, m->nl, t->f[f].field, t->f[f].comp, v + t->f[f].off[0], r + t->f[f].off[1]);
    }
    for (int j = 0; j < m->ncols; j++)
        for (int r = 0; r < m->NR; r++)
            for (int v = 0; v < m->V; v++) m->nl = add_load(m->loads, m->nl, m->cols[j].field, m->cols[j].comp, v, r);
}

/* The thread's position, its chunk of planes, the accumulators and the
   columns. */
static void emit_head(fdx_cg_node *k, const ugen *g, const march *m)
{
    const fdx_us_spec *ks = g->ks;
    const fdx_us_cfg *c = g->cfg;
    const int V = m->V, NR = m->NR, R = m->R;
    fdx_cg_stmt(k, "const long long x0 = %d + ((long long)blockIdx.x * %d + threadIdx.x) * %d", ks->rx, c->tx, V);
    fdx_cg_stmt(k, "const long long y = %d + ((long long)blockIdx.y * %d + threadIdx.y) * %d", ks->ry, c->ty, NR);
    if (c->variant == FDX_US_TILE) /* every thread to the barriers; act_: it stores */
        fdx_cg_stmt(k, "const bool act_ = !(x0 >= nx - %d || y >= ny - %d)", ks->rx, ks->ry);
    else
        fdx_cg_stmt(fdx_cg_if(k, "x0 >= nx - %d || y >= ny - %d", ks->rx, ks->ry), "return");
    fdx_cg_comment(k, "the lanes x .. x + %d lie inside; lanes below lo belong to the thread before", V - 1);
    fdx_cg_stmt(k, "const long long x = x0 + %d <= nx - %d ? x0 : nx - %d", V, ks->rx, ks->rx + V);
    fdx_cg_stmt(k, "const int lo = (int)(x0 - x)");
    fdx_cg_stmt(k, "(void)lo");
    for (int d = 1; NR > 1 && d < NR + ks->ry; d++)
        fdx_cg_stmt(k, "const long long oy%d = (y + %d < ny ? %d : ny - 1 - y) * sy", d, d, d);
    fdx_cg_stmt(k, "const long long s0 = %d + (long long)blockIdx.z * p.chunk", R);
    fdx_cg_stmt(k, "const long long s1 = s0 + p.chunk < nm - %d ? s0 + p.chunk : nm - %d", R, R);
    fdx_cg_stmt(k, "const long long base = x + y * sy");
    fdx_cg_comment(k, "a<comp>_<d>_<point>: output plane s + %d - d of point row * %d + lane; plane s - %d is "
                      "complete after step s", R, V, R);
    for (int oc = 0; oc < ks->ncomp; oc++)
        for (int d = 0; d <= 2 * R; d++) {
            fdx_sb b = FDX_SB_INIT;
            for (int l = 0; l < m->L; l++) fdx_sb_printf(&b, "%s a%d_%d_%d = 0", l ? "," : "", oc, d, l);
            declare_zero(k, g, &b);
        }
    for (int j = 0; j < m->ncols; j++) {
        fdx_us_factor f = {m->cols[j].field, m->cols[j].comp, {0, 0, 0}};
        fdx_sb b = FDX_SB_INIT;
        for (int lag = 1; lag <= m->cols[j].depth; lag++)
            for (int l = 0; l < m->L; l++)
                fdx_sb_printf(&b, "%s %s = 0", lag + l > 1 ? "," : "", col_name(g, &f, lag, l));
        fdx_cg_comment(k, "plane s - lag of the thread's own points");
        declare_zero(k, g, &b);
    }
}

/* A plane's loads (its first point at ps) as const values named
   <pre><plane name>. */
static void emit_plane_loads(fdx_cg_node *at, const ugen *g, const march *m, const char *pre)
{
    if (g->cfg->vload) emit_vector_loads(at, g, m->loads, m->nl, pre);
    for (int i = 0; i < m->nl && !g->cfg->vload; i++) {
        const fdx_us_factor *f = &m->loads[i].f;
        fdx_cg_stmt(at, "const real %s%s = %s", pre, plane_name(g, f, f->off[0], f->off[1]),
                    fdx_cg_ld(g->cg, FDX_CG_LDG, row_elem(g, f->field, f->comp, f->off[0], f->off[1])));
    }
}

/* Step s's prefetch and loads: plane s's values, or with pipe the values of
   plane s + 1 (the last plane at most) as n<name>, while plane s's were
   loaded a step before into <name>. */
static void emit_loads(fdx_cg_node *step, const ugen *g, const march *m)
{
    const fdx_us_cfg *c = g->cfg;
    fdx_cg_stmt(step, c->pipe ? "const long long ps = base + (s + 1 < nm ? s + 1 : nm - 1) * sm"
                              : "const long long ps = base + s * sm");
    if (c->pf) {
        /* The thread's points pf planes ahead into L2 (the last plane at
           most), so the loads of that step find them there. */
        fdx_cg_stmt(step, "const long long pa = base + (s + %d < nm ? s + %d : nm - 1) * sm", c->pf, c->pf);
        for (int f = 0; f < g->ks->ninputs + g->ks->ncoefs; f++) {
            int used = 0;
            for (int i = 0; i < m->nl && !used; i++) used = m->loads[i].f.field == f;
            for (int r = 0; r < m->NR && used; r++)
                fdx_cg_prefetch(step, fdx_us_elem(g, f, 0, r ? fdx_cg_fmt(g->cg, "pa + %s", row_off(g, r)) : "pa"));
        }
    }
    emit_plane_loads(step, g, m, c->pipe ? "n" : "");
}

/* Each term into the accumulator of its output plane. */
static void emit_sums(fdx_cg_node *step, const ugen *g, const march *m)
{
    const fdx_us_spec *ks = g->ks;
    for (int oc = 0; oc < ks->ncomp; oc++)
        for (int d = 0; d <= 2 * m->R; d++)
            for (int l = 0; l < m->L; l++) {
                fdx_sb e = FDX_SB_INIT;
                int any = 0;
                fdx_sb_printf(&e, "a%d_%d_%d +=", oc, d, l);
                for (int i = 0; i < ks->nterms; i++) {
                    const fdx_us_term *t = &ks->terms[i];
                    int z = late_plane(t);
                    if (t->out_comp != oc || z + m->R != d) continue;
                    fdx_sb_printf(&e, "%sp.w[%d] * %s", any ? "\n+ " : " ", i,
                                  factor_value(g, &t->f[0], z, l % m->V, l / m->V));
                    if (t->nf == 2) fdx_sb_printf(&e, " * %s", factor_value(g, &t->f[1], z, l % m->V, l / m->V));
                    any = 1;
                }
                if (any) fdx_cg_stmt(step, "%s", fdx_cg_text(g->cg, &e));
                else fdx_sb_free(&e);
            }
}

/* The complete plane's stores, then the accumulators a plane on and the
   columns a plane down (registers, no memory traffic). */
static void emit_store_shift(fdx_cg_node *step, const ugen *g, const march *m)
{
    const fdx_us_spec *ks = g->ks;
    const int V = m->V, R = m->R;
    fdx_cg_node *st = fdx_cg_if(step, g->cfg->variant == FDX_US_TILE ? "s >= s0 + %d && act_" : "s >= s0 + %d", R);
    fdx_cg_stmt(st, "const long long q = base + (s - %d) * sm", R);
    for (int r = 0; r < m->NR; r++) {
        fdx_cg_node *row = r ? fdx_cg_if(st, "y + %d < ny - %d", r, ks->ry) : st;
        for (int v = 0; v < V; v++) {
            fdx_cg_node *lane = V > 1 ? fdx_cg_if(row, "%d >= lo", v) : row;
            const char *pt = r ? fdx_cg_fmt(g->cg, "q + %d + %d * sy", v, r) : fdx_cg_fmt(g->cg, "q + %d", v);
            for (int oc = 0; oc < ks->ncomp; oc++)
                fdx_us_store(lane, g, oc, pt, fdx_cg_fmt(g->cg, "a%d_%d_", oc, 2 * R), r * V + v);
        }
    }
    for (int oc = 0; oc < ks->ncomp; oc++)
        for (int l = 0; l < m->L; l++) {
            fdx_sb b = FDX_SB_INIT;
            for (int d = 2 * R; d >= 1; d--) fdx_sb_printf(&b, "a%d_%d_%d = a%d_%d_%d; ", oc, d, l, oc, d - 1, l);
            fdx_sb_printf(&b, "a%d_0_%d = 0;", oc, l);
            fdx_cg_line(step, "%s", fdx_cg_text(g->cg, &b));
        }
    for (int j = 0; j < m->ncols; j++) {
        fdx_us_factor f = {m->cols[j].field, m->cols[j].comp, {0, 0, 0}};
        for (int l = 0; l < m->L; l++) {
            fdx_sb b = FDX_SB_INIT;
            for (int lag = m->cols[j].depth; lag >= 2; lag--)
                fdx_sb_printf(&b, "%s = %s; ", col_name(g, &f, lag, l), col_name(g, &f, lag - 1, l));
            fdx_sb_printf(&b, "%s = %s;", col_name(g, &f, 1, l), plane_name(g, &f, l % V, l / V));
            fdx_cg_line(step, "%s", fdx_cg_text(g->cg, &b));
        }
    }
}

/* pipe: the current plane's values take the next plane's (n<name>). */
static void emit_pipe_carry(fdx_cg_node *at, const ugen *g, const march *m)
{
    fdx_sb b = FDX_SB_INIT;
    for (int i = 0; i < m->nl; i++) {
        const char *name = plane_name(g, &m->loads[i].f, m->loads[i].f.off[0], m->loads[i].f.off[1]);
        fdx_sb_printf(&b, "%s%s = n%s;", i ? " " : "", name, name);
    }
    fdx_cg_line(at, "%s", fdx_cg_text(g->cg, &b));
}

/* The tile's geometry: W x H values a stage and field, E copies a thread. */
typedef struct tile {
    int W, H, HW, NT, E, S, D, nf;
    int fields[FDX_USTENCIL_MAX_INPUTS + FDX_USTENCIL_MAX_COEFS]; /* those read in a plane, by tile index */
    const char *es;
} tile;

/* Copies plane `plane` (an expression) of every tile field into stage
   `stage` (an expression): thread tid's E slots, go<j> its in-plane offset
   or -1 outside the array. */
static void emit_tile_copy(fdx_cg_node *at, const ugen *g, const tile *t, const char *plane, const char *stage)
{
    fdx_cg_stmt(at, "const long long pb_ = (%s) * sm", plane);
    fdx_cg_stmt(at, "const unsigned sd_ = sbase + (unsigned)(%s) * %du", stage, t->HW * (g->ks->is_double ? 8 : 4));
    for (int q = 0; q < t->nf; q++)
        for (int j = 0; j < t->E; j++)
            fdx_cg_async_copy(at, fdx_cg_fmt(g->cg, "go%d >= 0", j),
                              fdx_cg_fmt(g->cg, "sd_ + (unsigned)(tid_ + %d) * %du", q * t->S * t->HW + j * t->NT,
                                         g->ks->is_double ? 8 : 4),
                              fdx_us_elem(g, t->fields[q], 0, fdx_cg_fmt(g->cg, "pb_ + go%d", j)), g->ks->is_double ? 8 : 4);
}

static void emit_tile_march(fdx_cg_node *k, const ugen *g, const march *m)
{
    const fdx_us_spec *ks = g->ks;
    const fdx_us_cfg *c = g->cfg;
    tile t;
    t.W = c->tx * m->V + 2 * ks->rx, t.H = ks->rank == 3 ? c->ty * m->NR + 2 * ks->ry : 1, t.HW = t.W * t.H;
    t.NT = c->tx * c->ty, t.E = (t.HW + t.NT - 1) / t.NT, t.D = c->pf, t.S = c->pf + 1, t.nf = 0;
    for (int f = 0; f < ks->ninputs + ks->ncoefs; f++) {
        int used = 0;
        for (int i = 0; i < m->nl && !used; i++) used = m->loads[i].f.field == f;
        if (used) t.fields[t.nf++] = f;
    }
    fdx_cg_shared(k, "unsigned char", "fdx_smem_", NULL);
    fdx_cg_stmt(k, "const real *tl_ = (const real *)fdx_smem_");
    fdx_cg_stmt(k, "const unsigned sbase = (unsigned)__cvta_generic_to_shared(fdx_smem_)");
    fdx_cg_stmt(k, "const int tid_ = (int)(threadIdx.y * %d + threadIdx.x)", c->tx);
    fdx_cg_comment(k, "the block's tile: columns from x %lld, rows from y %lld of the block's first point", (long long)-ks->rx,
                   (long long)-ks->ry);
    fdx_cg_stmt(k, "const long long X0 = (long long)blockIdx.x * %d, Y0 = (long long)blockIdx.y * %d", c->tx * m->V,
                ks->rank == 3 ? c->ty * m->NR : 0);
    for (int j = 0; j < t.E; j++) {
        fdx_cg_stmt(k, "const int h%d_ = (tid_ + %d) / %d, w%d_ = (tid_ + %d) - h%d_ * %d", j, j * t.NT, t.W, j, j * t.NT, j,
                    t.W);
        fdx_cg_stmt(k, "const int go%d = tid_ + %d < %d && X0 + w%d_ < nx && Y0 + h%d_ < ny ? (int)((Y0 + h%d_) * sy + X0 + "
                       "w%d_) : -1",
                    j, j * t.NT, t.HW, j, j, j, j);
    }
    /* the thread's first point in the tile */
    fdx_cg_stmt(k, "const int tp_ = (int)(threadIdx.y * %d + %d) * %d + (int)threadIdx.x * %d + %d", m->NR,
                ks->rank == 3 ? ks->ry : 0, t.W, m->V, ks->rx);
    fdx_cg_comment(k, "planes s0 - %d .. s0 - %d in flight, one commit group each", m->R, m->R - t.D + 1);
    for (int i = 0; i < t.D; i++) {
        fdx_cg_node *pro = fdx_cg_scope(k);
        emit_tile_copy(fdx_cg_if(pro, "s0 - %d < s1 + %d", m->R - i, m->R), g, &t, fdx_cg_fmt(g->cg, "s0 - %d", m->R - i),
                       fdx_cg_fmt(g->cg, "%d", i));
        fdx_cg_async_commit(pro);
    }
    fdx_cg_stmt(k, "int st_ = 0");
    if (c->unroll > 1) fdx_cg_line(k, "#pragma unroll %d", c->unroll);
    fdx_cg_node *step = fdx_cg_for(k, c->unroll > 1 ? FDX_CG_LOOP : FDX_CG_LOOP_NOUNROLL,
                                   "long long s = s0 - %d; s < s1 + %d; s++", m->R, m->R);
    fdx_cg_async_wait(step, t.D - 1, "this step's plane landed");
    fdx_cg_barrier(step, "every thread's copies of it visible; the stage read a step before is free");
    emit_tile_copy(fdx_cg_if(step, "s + %d < s1 + %d", t.D, m->R), g, &t, fdx_cg_fmt(g->cg, "s + %d", t.D),
                   fdx_cg_fmt(g->cg, "(st_ + %d) %% %d", t.D, t.S));
    fdx_cg_async_commit(step);
    for (int q = 0; q < t.nf; q++)
        fdx_cg_stmt(step, "const real *t%d_ = tl_ + (%d + st_) * %d + tp_", q, q * t.S, t.HW);
    for (int i = 0; i < m->nl; i++) {
        const fdx_us_factor *f = &m->loads[i].f;
        int q = 0;
        while (t.fields[q] != f->field) q++;
        fdx_cg_stmt(step, "const real %s = t%d_[%d]", plane_name(g, f, f->off[0], f->off[1]), q, f->off[1] * t.W + f->off[0]);
    }
    emit_sums(step, g, m);
    emit_store_shift(step, g, m);
    fdx_cg_stmt(step, "st_ = st_ == %d ? 0 : st_ + 1", t.S - 1);
}

void fdx_us_emit_march(fdx_cg_node *at, const ugen *g)
{
    static _Thread_local march m;
    plan(g, &m);
    fdx_cg_node *k = fdx_us_emit_kernel(at, g);
    emit_head(k, g, &m);
    if (g->cfg->variant == FDX_US_TILE) {
        emit_tile_march(k, g, &m);
        return;
    }
    if (g->cfg->pipe) {
        /* plane s0 - r's values before the first step; the loads in a
           scope of their own (each step's reuse the names) */
        fdx_sb d = FDX_SB_INIT;
        for (int i = 0; i < m.nl; i++)
            fdx_sb_printf(&d, "%s %s = 0", i ? "," : "real",
                          plane_name(g, &m.loads[i].f, m.loads[i].f.off[0], m.loads[i].f.off[1]));
        fdx_cg_comment(k, "pipe: the current plane's values, loaded a step ahead");
        fdx_cg_stmt(k, "%s", fdx_cg_text(g->cg, &d));
        fdx_cg_node *pro = fdx_cg_scope(k);
        fdx_cg_stmt(pro, "const long long ps = base + (s0 - %d) * sm", m.R);
        emit_plane_loads(pro, g, &m, "n");
        emit_pipe_carry(pro, g, &m);
    }
    if (g->cfg->unroll > 1) fdx_cg_line(k, "#pragma unroll %d", g->cfg->unroll);
    fdx_cg_node *step = fdx_cg_for(k, g->cfg->unroll > 1 ? FDX_CG_LOOP : FDX_CG_LOOP_NOUNROLL,
                                   "long long s = s0 - %d; s < s1 + %d; s++", m.R, m.R);
    emit_loads(step, g, &m);
    emit_sums(step, g, &m);
    emit_store_shift(step, g, &m);
    if (g->cfg->pipe) emit_pipe_carry(step, g, &m);
}
