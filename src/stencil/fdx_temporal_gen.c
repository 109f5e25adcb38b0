/* fdx_temporal_gen: the temporally blocked heat / Jacobi kernels as fdx_cg
   IR (fdx_temporal.h says what they do).  Each time level's point is the
   single-step kernels' own expression (fdx_stencil_emit_point, the same
   terms in the same order), with neighbours from the level before: so a
   pass of k levels is bit for bit k single steps wherever the compiler
   contracts alike, which it does for one expression tree under one set of
   flags (the tests check it on every target).

   Names in the generated code: level t (0 the input) holds c<t>_<i>, its
   column's plane j - r + i (CUDA registers) or L<t>, a ring of 2r + 1 tile
   planes (CPU); sh<t> is level t's centre plane in shared memory (CUDA);
   s<t> / n<t+1> the weighted sum and the value of level t + 1. */
#include "stencil/fdx_stencil_gen.h"
#include "stencil/fdx_temporal.h"

#include <stdio.h>
#include <stdlib.h>

/* "+ 3" / "- 3" for an offset, so neighbours read like the other kernels'. */
static void offset(fdx_sb *b, long long o)
{
    fdx_sb_printf(b, " %c %lld", o < 0 ? '-' : '+', o < 0 ? -o : o);
}

/* CUDA: a thread's points q = 0 .. nq - 1 (rank 3: consecutive rows;
   rank 2: points tx apart along x).  The callbacks get v = level * 16 + q. */
#define QS 16
/* The rotated plane loop (fdx_temporal_cfg.un = 2r + 1): its copy ph of the
   body finds the column slot i of a level in register (i + ph) mod (2r + 1)
   (no moves between planes); the callbacks get ph * PHS + v. */
#define PHS (QS * 16)
/* Rank 2 with adjacent points (fdx_temporal_cfg.ax): the callbacks get AXF
   + ...; a thread's points are consecutive along x, so its own x
   neighbours come from its registers (the values the shared plane has). */
#define AXF (PHS * 16)

static int slot(const gen *g, int i, int ph) { return (i + ph) % (2 * g->r + 1); }

/* CUDA: level v's neighbours: along the marching axis from its register
   column; along y from the thread's own rows where it holds them (the same
   values the shared plane has), else from the shared plane l<level> (the
   point at me0 + its offset, rows g->aw apart). */
static void cuda_neighbour(fdx_sb *b, const gen *g, int a, int off, int v)
{
    const int ax = v >= AXF, ph = v % AXF / PHS, t = v % PHS / QS, q = v % QS, rank3 = g->ks->rank == 3;
    if (a == 2) {
        fdx_sb_printf(b, "c%d_%d_%d", t, q, slot(g, g->r + off, ph));
    } else if ((a == 1 || (a == 0 && ax)) && q + off >= 0 && q + off < g->nr) {
        fdx_sb_printf(b, "c%d_%d_%d", t, q + off, slot(g, g->r, ph));
    } else {
        int at = a == 1 ? (q + off) * g->aw : (rank3 ? q * g->aw : q * g->row) + off;
        fdx_sb_printf(b, "l%d[me0", t);
        if (at) offset(b, at);
        fdx_sb_puts(b, "]");
    }
}

/* CPU: the centre row pc of level v's ring (indexed by global x), rows of
   the tile ew apart, the marching-axis neighbours' rows pm<o> / pp<o>. */
static void cpu_neighbour(fdx_sb *b, const gen *g, int a, int off, int v)
{
    (void)g;
    if (a == 2) {
        fdx_sb_printf(b, "p%c%d[x]", off < 0 ? 'm' : 'p', off < 0 ? -off : off);
    } else if (a == 0) {
        fdx_sb_puts(b, "pc[x");
        offset(b, off);
        fdx_sb_puts(b, "]");
    } else { /* v 1: the rows are the input's (sy apart), else a ring's (ew) */
        fdx_sb_printf(b, "pc[x%s%d * %s]", off < 0 ? " - " : " + ", off < 0 ? -off : off, v == 1 ? "sy" : "ew");
    }
}

static void emit_params(fdx_cg_node *top, const gen *g, int threads, fdx_cg_node **kernel)
{
    fdx_cg_line(top, "struct fdx_tp { long long bx, per, nthr, pin; };");
    const fdx_cg_param params[] = {
        {"real", "out", 1},
        {"const real", "u", 1},
        {"real", "scratch", 1},
        {"const struct fdx_p", g->cuda ? "p" : "P", 0},
        {"const struct fdx_tp", g->cuda ? "tp" : "T", 0},
        /* WAVE: the level before the last out, the input's level before u,
           the coefficient array (NULL where the spec has none; heat: all NULL). */
        {"real", "outp", 1},
        {"const real", "up", 1},
        {"const real", "cf", 1},
    };
    *kernel = fdx_cg_kernel(top, FDX_STENCIL_ENTRY, params, 8, threads, 0);
}

/* Shifts the columns of level t down a plane (their top slots are refilled). */
static void emit_shift(fdx_cg_node *at, const gen *g, int t, int nq)
{
    fdx_sb s = FDX_SB_INIT;
    for (int q = 0; q < nq; q++)
        for (int i = 0; i < 2 * g->r; i++)
            fdx_sb_printf(&s, "%sc%d_%d_%d = c%d_%d_%d;", q || i ? " " : "", t, q, i, t, q, i + 1);
    fdx_cg_line(at, "%s", fdx_cg_text(g->cg, &s));
}

static void emit_levels(fdx_cg_node *loop, const gen *g, const fdx_temporal_cfg *c, int ph, int fast);

/* Fixed device helpers, a line each, at the top of the kernel source. */
static void emit_lines(fdx_cg_node *top, const char *const *lines, size_t n)
{
    for (size_t i = 0; i < n; i++) fdx_cg_line(top, "%s", lines[i]);
}

/* nb (fdx_temporal_cfg.nb): the mbarrier operations the kernel uses, as
   inline PTX; tests/cuda_emu.h defines FDX_CUDA_EMU and its own (threads
   that wait yield to the others).  A warp's barrier counts its 32 threads'
   arrivals: a phase a plane. */
static void emit_nb_helpers(fdx_cg_node *top)
{
    static const char *const lines[] = {
        "#ifndef FDX_CUDA_EMU",
        "/* a barrier's shared-memory address (the operations below take it) */",
        "static __device__ __forceinline__ unsigned fdx_nb_addr(const unsigned long long *b)",
        "{ return (unsigned)__cvta_generic_to_shared(b); }",
        "static __device__ __forceinline__ void fdx_nb_init(unsigned b, unsigned n)",
        "{ asm volatile(\"mbarrier.init.shared::cta.b64 [%0], %1;\" :: \"r\"(b), \"r\"(n) : \"memory\"); }",
        "/* release: this thread's shared stores before it are seen by the waiters */",
        "static __device__ __forceinline__ void fdx_nb_arrive(unsigned b)",
        "{ asm volatile(\"mbarrier.arrive.shared::cta.b64 _, [%0];\" :: \"r\"(b) : \"memory\"); }",
        "/* acquire: until the phase of this parity has completed */",
        "static __device__ __forceinline__ void fdx_nb_wait(unsigned b, unsigned parity)",
        "{ asm volatile(\"{\\n.reg .pred P1;\\nFDX_NB_WAIT:\\nmbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\\n\"",
        "               \"@!P1 bra FDX_NB_WAIT;\\n}\" :: \"r\"(b), \"r\"(parity) : \"memory\"); }",
        "#endif",
    };
    emit_lines(top, lines, sizeof lines / sizeof *lines);
}

/* nr (fdx_temporal_cfg.nr): named barriers (bar.arrive / bar.sync with a
   thread count: producers arrive, consumers wait; the arrival releases the
   producer's shared stores to the consumers); tests/cuda_emu.h has its
   own where FDX_CUDA_EMU is defined. */
static void emit_nr_helpers(fdx_cg_node *top)
{
    static const char *const lines[] = {
        "#ifndef FDX_CUDA_EMU",
        "static __device__ __forceinline__ void fdx_nr_arrive(unsigned id, unsigned n)",
        "{ asm volatile(\"bar.arrive %0, %1;\" :: \"r\"(id), \"r\"(n) : \"memory\"); }",
        "static __device__ __forceinline__ void fdx_nr_sync(unsigned id, unsigned n)",
        "{ asm volatile(\"bar.sync %0, %1;\" :: \"r\"(id), \"r\"(n) : \"memory\"); }",
        "#endif",
    };
    emit_lines(top, lines, sizeof lines / sizeof *lines);
}

/* nb: the warps whose cells a warp's points read, as offsets in warps
   with the condition that they exist: the warps beside it along x (x
   neighbours reach r < 32 threads) and, in rank 3, the warp rows within
   ceil(r / nq) thread rows.  The relation is symmetric. */
static int nb_neighbours(const gen *g, const fdx_temporal_cfg *c, int off[], char cond[][24])
{
    const int WX = c->tx / 32, NQ = fdx_temporal_points(c);
    const int DY = g->ks->rank == 3 ? (g->r + NQ - 1) / NQ : 0;
    int n = 0;
    if (WX > 1) {
        off[n] = -1, snprintf(cond[n++], 24, "wx > 0");
        off[n] = 1, snprintf(cond[n++], 24, "wx < %d", WX - 1);
    }
    for (int d = 1; d <= DY && d < c->ty; d++) {
        off[n] = -d * WX, snprintf(cond[n++], 24, "wy >= %d", d);
        off[n] = d * WX, snprintf(cond[n++], 24, "wy < %d", c->ty - d);
    }
    return n;
}

/* nb: the thread arrives on the barrier of parity `p` (an expression) of
   its own warp and of each neighbour: a warp's barrier pair (one a plane
   parity) counts 32 arrivals from itself and from each neighbour. */
static void emit_nb_arrivals(fdx_cg_node *at, const gen *g, const fdx_temporal_cfg *c, const char *p)
{
    int off[8];
    char cond[8][24];
    int n = nb_neighbours(g, c, off, cond);
    fdx_cg_stmt(at, "fdx_nb_arrive(nba + 8u * (%s))", p);
    for (int i = 0; i < n; i++)
        fdx_cg_stmt(fdx_cg_if(at, "%s", cond[i]), "fdx_nb_arrive(nba + 8u * (%s) %c %du)", p, off[i] < 0 ? '-' : '+',
                    16 * (off[i] < 0 ? -off[i] : off[i]));
}

/* nb: instead of the block's barrier after a plane's centres are stored,
   the thread arrives on its warp's and its neighbours' barriers of the
   plane's parity and waits for its own warp's: it then has the plane from
   every warp whose cells it reads (each arrival releases the arriving
   thread's stores).  Plane i is phase i / 2 of barrier i % 2.  Why that is
   enough: a warp arrives on plane i + 1 only after its wait on plane i,
   so no arrival of plane i + 2 reaches a barrier whose plane-i phase is
   still open (the two parities keep plane i + 1's apart); and the set of
   centres a warp rewrites at plane i + 2 was last read at plane i by its
   neighbours, which arrived on plane i + 1 after those reads. */
static void emit_nb_sync(fdx_cg_node *loop, const gen *g, const fdx_temporal_cfg *c)
{
    emit_nb_arrivals(loop, g, c, "i & 1");
    fdx_cg_stmt(loop, "fdx_nb_wait(nba + 8u * (i & 1), (unsigned)(i >> 1) & 1u)");
}

/* nr: instead of the block's barrier, a group of thread rows (ceil(ty / 8)
   rows: 16 barriers) arrives on the barriers (of the plane's parity: 2
   group + i % 2) of the groups within reach of it, taken round the block
   (the first and last groups are each other's: every barrier then counts
   the same threads, a constant, and no arrival is conditional: 64
   registers for float k4 64x8 q4 against 70 with edge rows counted apart),
   then waits on its own (its warps: the x neighbours, the rows of the
   group, its own lanes).  The same argument as nb's: a group arrives on
   plane i + 1 only after its wait on plane i, so a barrier never mixes two
   planes of one parity, and the set a group rewrites at plane i + 2 was
   read at plane i before its neighbours arrived on plane i + 1. */
static void emit_nr_sync(fdx_cg_node *loop, const gen *g, const fdx_temporal_cfg *c)
{
    const int DY = fdx_temporal_nr_reach(c, g->r), count = c->tx * fdx_temporal_nr_group(c) * (1 + 2 * DY);
    fdx_cg_stmt(loop, "const unsigned nrp = (unsigned)i & 1u");
    for (int d = 1; d <= DY; d++) {
        fdx_cg_stmt(loop, "fdx_nr_arrive(nrm%d + nrp, %du)", d, count);
        fdx_cg_stmt(loop, "fdx_nr_arrive(nrq%d + nrp, %du)", d, count);
    }
    fdx_cg_stmt(loop, "fdx_nr_sync(nro + nrp, %du)", count);
}

/* nr: the groups' barrier pairs, group G's at 2 G, its neighbours' round
   the block (before the plane loop). */
static void emit_nr_rows(fdx_cg_node *k, const gen *g, const fdx_temporal_cfg *c)
{
    const int rows = fdx_temporal_nr_group(c), n = c->ty / rows;
    fdx_cg_stmt(k, "const int nrg = ty / %d", rows);
    fdx_cg_stmt(k, "const unsigned nro = 2u * (unsigned)nrg");
    for (int d = 1; d <= fdx_temporal_nr_reach(c, g->r); d++)
        fdx_cg_stmt(k, "const unsigned nrm%d = 2u * (unsigned)(nrg >= %d ? nrg - %d : nrg + %d), nrq%d = 2u * (unsigned)(nrg < %d ? nrg + %d : nrg - %d)",
                    d, d, d, n - d, d, n - d, d, n - d);
}

/* CUDA: the load of point q's input (w 1: u_prev) at the plane `ahead`
   offsets (emit_plane's) into the array. */
static const char *next_plane(const gen *g, const fdx_temporal_cfg *c, int w, int q)
{
    return fdx_cg_ld(g->cg, FDX_CG_LDG, fdx_cg_fmt(g->cg, c->i32 ? "%s + (b%d + ahead)" : "%s + b%d + ahead", w ? "up" : "u", q));
}

/* CUDA: one plane i of the march (the loop's body; `ph` the rotated
   loop's copy, 0 in the plain loop, which shifts the columns instead). */
static void emit_plane(fdx_cg_node *loop, const gen *g, const fdx_temporal_cfg *c, int ph, int rotated)
{
    const int K = c->k, R = g->r, TX = c->tx, rank3 = g->ks->rank == 3;
    const int NQ = fdx_temporal_points(c), PD = c->pd > 1 ? c->pd : 1, wave = g->ks->update == FDX_UPDATE_WAVE;
    const int W = rank3 ? TX : TX * NQ, RY = g->ry, H = rank3 ? c->ty * NQ : 1;
    const int sw = W + 2 * R, pl = (H + 2 * RY) * sw, streams = wave ? 2 : 1;
    if (!rotated)
        for (int t = 0; t < K; t++) emit_shift(loop, g, t, NQ);
    for (int q = 0; q < NQ && !c->ll; q++) {
        fdx_sb s = FDX_SB_INIT;
        fdx_sb_printf(&s, "c0_%d_%d = f0_%d;", q, slot(g, 2 * R, ph), q);
        for (int f = 0; f + 1 < PD; f++) fdx_sb_printf(&s, " f%d_%d = f%d_%d;", f, q, f + 1, q);
        if (wave) {
            for (int i = 0; i < R; i++) fdx_sb_printf(&s, " cp%d_%d = cp%d_%d;", q, i, q, i + 1);
            fdx_sb_printf(&s, " cp%d_%d = fp0_%d;", q, R, q);
            for (int f = 0; f + 1 < PD; f++) fdx_sb_printf(&s, " fp%d_%d = fp%d_%d;", f, q, f + 1, q);
        }
        fdx_cg_line(loop, "%s", fdx_cg_text(g->cg, &s));
    }
    /* Past the last plane the columns take stale values: only frame points
       (which keep their input) read them.  lc: every thread loads, the
       plane clamped to the last (outside the array b is the nearest point
       inside): values only frame points read, as the stale ones. */
    const char *plane = c->lc ? fdx_cg_fmt(g->cg, "(i + %d < nm ? i + %d : nm - 1)", PD, PD) : fdx_cg_fmt(g->cg, "(i + %d)", PD);
    if (c->i32) fdx_cg_stmt(loop, "const int ahead = %s * (int)sm", plane);
    else fdx_cg_stmt(loop, "const long long ahead = (long long)%s * sm", plane);
    for (int w = 0; w < streams && !c->ll; w++)
        for (int q = 0; q < NQ; q++)
            fdx_cg_stmt(c->lc ? fdx_cg_scope(loop) : fdx_cg_if(loop, "col%d && i + %d < nm", q, PD), "%s%d_%d = %s", w ? "fp" : "f", PD - 1, q,
                        next_plane(g, c, w, q));
    fdx_cg_stmt(loop, "real *const set = shm + (i & 1) * %d", K * pl);
    for (int t = 0; t < K; t++) {
        fdx_cg_stmt(loop, "real *const l%d = set + %d", t, t * pl);
        for (int q = 0; q < NQ; q++)
            fdx_cg_stmt(loop, "l%d[me0 + %d] = c%d_%d_%d", t, rank3 ? q * sw : c->ax ? q : q * TX, t, q, slot(g, R, ph));
    }
    if (c->nb) emit_nb_sync(loop, g, c);
    else if (c->nr) emit_nr_sync(loop, g, c);
    else fdx_cg_barrier(loop, "this plane's centres are in");
    if (c->fp) {
        /* A block whose tile lies inside the frame, on a plane where every
           level before the last is inside too: no point keeps its input,
           the levels need no select (the same values: the select would
           take the computed one). */
        if (c->fw) {
            /* fw: on those planes every block; a warp with a point on the
               frame (inside the array: points outside it are read only by
               frame points, which keep their input) selects, the others
               not. */
            fdx_cg_node *planes = fdx_cg_if(loop, "i >= %d && i < nm", K * R), *wf = fdx_cg_if(planes, "wfree");
            emit_levels(wf, g, c, ph, 1);
            emit_levels(fdx_cg_else(wf), g, c, ph, 2);
            emit_levels(fdx_cg_else(planes), g, c, ph, 0);
        } else {
            fdx_cg_node *fast = fdx_cg_if(loop, "inner && i >= %d && i < nm", K * R);
            emit_levels(fast, g, c, ph, 1);
            emit_levels(fdx_cg_else(fast), g, c, ph, 0);
        }
    } else {
        emit_levels(loop, g, c, ph, 0);
    }
}

/* CUDA: the levels 1 .. k of plane i (after the barrier); `fast`: every
   level before the last is inside the frame planes, and (1) every point
   of the warp is inside the frame or outside the array, or (2) frame
   points keep their input by a select on fx alone (fw). */
static void emit_levels(fdx_cg_node *loop, const gen *g, const fdx_temporal_cfg *c, int ph, int fast)
{
    const int K = c->k, R = g->r, TX = c->tx, rank3 = g->ks->rank == 3;
    const int NQ = fdx_temporal_points(c), wave = g->ks->update == FDX_UPDATE_WAVE;
    gen gq = *g;
    gq.nr = rank3 || c->ax ? NQ : 1;
    gq.row = c->ax ? 1 : TX;
    for (int t = 1; t <= K; t++) {
        /* (the fast body needs j<t> only for the coefficients, in<t> only
           for the last level) */
        if (!fast || t == K || g->ks->coef) fdx_cg_stmt(loop, "const int j%d = i - %d", t, t * R);
        if (t < K && fast) {
        } else if (t < K) fdx_cg_stmt(loop, "const bool in%d = (unsigned)(j%d - %d) < (unsigned)(nm - %d)", t, t, R, 2 * R);
        else fdx_cg_stmt(loop, "const bool in%d = j%d >= k0 && j%d < k1", t, t, t);
        for (int q = 0; q < NQ; q++) {
            const char *centre = fdx_cg_fmt(g->cg, "c%d_%d_%d", t - 1, q, slot(g, R, ph)), *val = fdx_cg_fmt(g->cg, "n%d_%d", t, q);
            /* WAVE: level t - 2 at this point and plane (u_prev's column for
               level 1); the coefficient where the point is computed. */
            const char *prev = t == 1 ? fdx_cg_fmt(g->cg, "cp%d_0", q) : fdx_cg_fmt(g->cg, "c%d_%d_%d", t - 2, q, slot(g, 0, ph));
            const char *coef = NULL;
            if (g->ks->coef) {
                coef = fdx_cg_fmt(g->cg, "k%d_%d", t, q);
                fdx_cg_stmt(loop, "real %s = 0", coef);
                fdx_cg_stmt(fast && t < K ? fdx_cg_scope(loop) : fdx_cg_if(loop, "fx%d && in%d", q, t), "%s = %s", coef,
                            fdx_cg_ld(g->cg, FDX_CG_LDG, fdx_cg_fmt(g->cg, c->i32 ? "cf + (b%d + j%d * (int)sm)" : "cf + b%d + (long long)j%d * sm", q, t)));
            }
            fdx_stencil_emit_point(loop, &gq, cuda_neighbour, "p.", (c->ax ? AXF : 0) + ph * PHS + (t - 1) * QS + q, centre, wave ? prev : NULL, coef,
                                   NULL, val);
            if (t < K) {
                if (fast == 2) fdx_cg_stmt(loop, "c%d_%d_%d = fx%d ? %s : %s", t, q, slot(g, 2 * R, ph), q, val, centre);
                else if (fast) fdx_cg_stmt(loop, "c%d_%d_%d = %s", t, q, slot(g, 2 * R, ph), val);
                else fdx_cg_stmt(loop, "c%d_%d_%d = fx%d && in%d ? %s : %s", t, q, slot(g, 2 * R, ph), q, t, val, centre);
            } else {
                fdx_cg_node *st = fdx_cg_if(loop, "own%d && in%d", q, t);
                fdx_cg_store(st, (fdx_cg_lanes){fdx_cg_fmt(g->cg, "n%d_", K), "", 1, q}, NULL,
                             fdx_cg_fmt(g->cg, c->i32 ? "out + (b%d + j%d * (int)sm)" : "out + b%d + (long long)j%d * sm", q, t), FDX_CG_STREAM);
                /* WAVE: the level before, the pass's new u_prev. */
                if (wave)
                    fdx_cg_store(st, (fdx_cg_lanes){fdx_cg_fmt(g->cg, "c%d_%d_", t - 1, q), "", 1, slot(g, R, ph)}, NULL,
                                 fdx_cg_fmt(g->cg, c->i32 ? "outp + (b%d + j%d * (int)sm)" : "outp + b%d + (long long)j%d * sm", q, t), FDX_CG_STREAM);
            }
        }
        /* ll: level 1 has read level 0's plane i - 2r (slot 0 of this
           copy) for the last time: the next input plane goes there (the
           next copy's slot 2r). */
        for (int q = 0; t == 1 && c->ll && q < NQ; q++)
            fdx_cg_stmt(c->lc ? fdx_cg_scope(loop) : fdx_cg_if(loop, "col%d && i + 1 < nm", q), "c0_%d_%d = %s", q,
                        slot(g, 0, ph), next_plane(g, c, 0, q));
    }
}

/* CUDA: a block of tx x ty threads holds one tile column, halo included;
   each thread nq points of it (fdx_temporal.h).  Plane indices are 32-bit
   (fdx_temporal_fits keeps the marching extent below 2^31); addresses are
   64-bit offsets per point. */
static void emit_cuda(fdx_cg_node *top, const gen *g, const fdx_temporal_cfg *c)
{
    const int K = c->k, R = g->r, RY = g->ry, KR = K * R, TX = c->tx, TY = c->ty, rank3 = g->ks->rank == 3;
    const int NQ = fdx_temporal_points(c), PD = c->pd > 1 ? c->pd : 1, wave = g->ks->update == FDX_UPDATE_WAVE;
    const int W = rank3 ? TX : TX * NQ, H = rank3 ? TY * NQ : 1; /* the tile with its halo */
    const int sw = W + 2 * R, pl = (H + 2 * RY) * sw;
    fdx_cg_node *k;
    if (c->nb) emit_nb_helpers(top);
    if (c->nr) emit_nr_helpers(top);
    emit_params(top, g, TX * TY, &k);
    /* Two sets of k planes (dynamic shared memory), alternating by the
       input plane's parity: a plane's writes go to the set its readers of
       the plane before do not use, so one barrier a plane suffices. */
    fdx_cg_shared(k, "real", "shm", NULL);
    if (c->nb) {
        /* nb: two barriers a warp after the planes (fdx_temporal_cfg.nb);
           warp w is the threads 32 w .. 32 w + 31 of the block, (wx, wy)
           its place among the tx / 32 warps of a row of threads; its
           barriers expect 32 arrivals from it and from each neighbour. */
        fdx_cg_stmt(k, "unsigned long long *const nbar = (unsigned long long *)(shm + %d)", 2 * K * pl);
        fdx_cg_stmt(k, "const int lin = (int)threadIdx.y * %d + (int)threadIdx.x, w = lin >> 5, wx = w %% %d, wy = w / %d",
                    TX, TX / 32, TX / 32);
        fdx_cg_stmt(k, "const unsigned nba = fdx_nb_addr(nbar + 2 * w)");
        fdx_cg_stmt(k, "(void)wx, (void)wy");
        int off[8];
        char cond[8][24];
        int nn = nb_neighbours(g, c, off, cond);
        fdx_sb e = FDX_SB_INIT;
        fdx_sb_puts(&e, "32u * (1u");
        for (int i = 0; i < nn; i++) fdx_sb_printf(&e, " + (%s)", cond[i]);
        fdx_sb_puts(&e, ")");
        const char *expect = fdx_cg_text(g->cg, &e);
        fdx_cg_node *init = fdx_cg_if(k, "(lin & 31) == 0");
        fdx_cg_stmt(init, "fdx_nb_init(nba, %s)", expect);
        fdx_cg_stmt(init, "fdx_nb_init(nba + 8u, %s)", expect);
        fdx_cg_barrier(k, "the barriers are set");
    }
    fdx_cg_stmt(k, "const long long nx = p.n[0], ny = p.n[1], sy = nx, sm = nx * ny");
    fdx_cg_stmt(k, "const int nm = (int)p.n[2]");
    fdx_cg_stmt(k, "const int tx = threadIdx.x, ty = threadIdx.y");
    fdx_cg_stmt(k, "(void)scratch, (void)tp, (void)sy, (void)ty, (void)outp, (void)up, (void)cf");
    /* The block's tile: its own points and a halo of k r on each side. */
    if (rank3) {
        fdx_cg_stmt(k, "const int me0 = (ty * %d + %d) * %d + tx + %d", NQ, RY, sw, R);
        fdx_cg_stmt(k, "const long long x = (long long)blockIdx.x * %d - %d + tx", W - 2 * KR, KR);
        fdx_cg_stmt(k, "const long long ya = (long long)blockIdx.y * %d - %d + ty * %d", H - 2 * KR, KR, NQ);
        if (c->fp)
            fdx_cg_stmt(k,
                        "const long long tx0 = (long long)blockIdx.x * %d - %d, ty0 = (long long)blockIdx.y * %d - %d;"
                        " const bool inner = tx0 >= %d && tx0 + %d <= nx - %d && ty0 >= %d && ty0 + %d <= ny - %d",
                        W - 2 * KR, KR, H - 2 * KR, KR, R, W, R, RY, H, RY);
        if (c->fw) {
            /* fw: the warp's points (32 consecutive tx of one thread row:
               tx a multiple of 32) inside the array, xl .. xh by yl .. yh:
               none, or all inside the frame */
            fdx_cg_stmt(k, "const long long xw = x - (tx & 31), xl = xw > 0 ? xw : 0, xh = xw + 31 < nx - 1 ? xw + 31 : nx - 1");
            fdx_cg_stmt(k, "const long long yl = ya > 0 ? ya : 0, yh = ya + %d < ny - 1 ? ya + %d : ny - 1", NQ - 1, NQ - 1);
            fdx_cg_stmt(k, "const bool wfree = xl > xh || yl > yh || (xl >= %d && xh < nx - %d && yl >= %d && yh < ny - %d)", R, R,
                        RY, RY);
            fdx_cg_stmt(k, "(void)inner");
        }
    } else {
        /* ax: thread tx holds the points tx nq .. tx nq + nq - 1, else tx,
           tx + tx', ... (tx' threads a block) */
        fdx_cg_stmt(k, "const int me0 = tx * %d + %d", c->ax ? NQ : 1, R);
        fdx_cg_stmt(k, "const long long xa = (long long)blockIdx.x * %d - %d + tx * %d", W - 2 * KR, KR, c->ax ? NQ : 1);
        if (c->fp)
            fdx_cg_stmt(k, "const long long tx0 = (long long)blockIdx.x * %d - %d; const bool inner = tx0 >= %d && tx0 + %d <= nx - %d",
                        W - 2 * KR, KR, R, W, R);
    }
    if (c->nr) emit_nr_rows(k, g, c);
    fdx_cg_stmt(k, "const int k0 = %d + (int)blockIdx.z * (int)p.chunk", R);
    fdx_cg_stmt(k, "const int k1 = k0 + (int)p.chunk < nm - %d ? k0 + (int)p.chunk : nm - %d", R, R);
    for (int q = 0; q < NQ; q++) {
        /* Point q: inside the array (col), in-plane interior (fx; elsewhere,
           the frame and outside the array, whose values only frame points
           read, a level keeps its input), one of the block's own (own). */
        if (rank3) fdx_cg_stmt(k, "const long long x%d = x, y%d = ya + %d", q, q, q);
        else fdx_cg_stmt(k, "const long long x%d = xa + %d, y%d = 0", q, c->ax ? q : q * TX, q);
        fdx_cg_stmt(k, "const bool col%d = x%d >= 0 && x%d < nx && y%d >= 0 && y%d < ny", q, q, q, q, q);
        fdx_cg_stmt(k, "const bool fx%d = x%d >= %d && x%d < nx - %d && y%d >= %d && y%d < ny - %d", q, q, R, q, R, q,
                    RY, q, RY);
        if (rank3)
            fdx_cg_stmt(k, "const bool own%d = fx%d && tx >= %d && tx < %d && ty * %d + %d >= %d && ty * %d + %d < %d", q,
                        q, KR, W - KR, NQ, q, KR, NQ, q, H - KR);
        else
            fdx_cg_stmt(k, "const bool own%d = fx%d && me0 + (%d) >= %d && me0 + (%d) < %d", q, q, (c->ax ? q : q * TX) - R,
                        KR, (c->ax ? q : q * TX) - R, W - KR);
        /* lc: a point outside the array loads the nearest point inside it
           (clamped x, y: a line its warp reads anyway), not element 0 of
           the plane, which every edge block's outside points would ask
           the same memory slice for at once (s12j: pd1 / pd2 lc lost 3% /
           23% against their plain loads, at fewer instructions). */
        const char *off = c->lc ? fdx_cg_fmt(g->cg, "(x%d < 0 ? 0 : x%d < nx ? x%d : nx - 1) + (y%d < 0 ? 0 : y%d < ny ? y%d : ny - 1) * sy",
                                             q, q, q, q, q, q)
                                : fdx_cg_fmt(g->cg, "col%d ? x%d + y%d * sy : 0", q, q, q);
        if (c->i32) fdx_cg_stmt(k, "const int b%d = (int)(%s)", q, off);
        else fdx_cg_stmt(k, "const long long b%d = %s", q, off);
        fdx_cg_stmt(k, "(void)own%d", q);
    }
    /* The planes' pads are read by points of the tile's edge, whose values
       are never used: zeroed, so nothing reads uninitialised memory. */
    fdx_cg_stmt(fdx_cg_for(k, FDX_CG_LOOP, "int s = ty * %d + tx; s < %d; s += %d", TX, 2 * K * pl, TX * TY),
                "shm[s] = 0");
    fdx_cg_barrier(k, "zeroed");
    for (int t = 0; t < K; t++) {
        fdx_sb d = FDX_SB_INIT;
        fdx_sb_puts(&d, "real");
        for (int q = 0; q < NQ; q++)
            for (int i = 0; i <= 2 * R; i++) fdx_sb_printf(&d, "%s c%d_%d_%d = 0", q || i ? "," : "", t, q, i);
        fdx_cg_stmt(k, "%s", fdx_cg_text(g->cg, &d));
    }
    /* Plane i of the input feeds level t's plane i - t r; the last output
       plane k1 - 1 comes at i = k1 - 1 + k r.  The input planes i .. i +
       pd - 1 are in flight (f<plane>_<point>). */
    fdx_cg_stmt(k, "const int i0 = k0 - %d > 0 ? k0 - %d : 0, i1 = k1 + %d", KR, KR, KR);
    /* nb: plane i is phase i / 2 of barrier i % 2; a barrier whose first
       plane here has an odd phase completes phase 0 first (the block's
       barrier after it: before anyone waits). */
    if (c->nb) {
        for (int par = 0; par < 2; par++)
            emit_nb_arrivals(fdx_cg_if(k, "((i0 + ((i0 ^ %d) & 1)) >> 1) & 1", par), g, c, par ? "1" : "0");
        fdx_cg_barrier(k, "the barriers' first phases are set");
    }
    /* WAVE: u_prev, the level before level 0, streams alongside u (fp<plane>_<point>)
       into a column of r + 1 planes cp<point>_<i>, plane i - r + i'. */
    const int streams = wave ? 2 : 1;
    for (int w = 0; w < streams; w++) {
        const char *f = w ? "fp" : "f", *arr = w ? "up" : "u";
        for (int d = 0; d < PD; d++)
            for (int q = 0; q < NQ; q++) {
                /* ll: the first plane straight into the first copy's slot 2r */
                const char *to = c->ll ? fdx_cg_fmt(g->cg, "c0_%d_%d", q, 2 * R) : fdx_cg_fmt(g->cg, "%s%d_%d", f, d, q);
                if (!c->ll) fdx_cg_stmt(k, "real %s = 0", to);
                fdx_cg_stmt(fdx_cg_if(k, "col%d && i0 + %d < nm", q, d), "%s = %s", to,
                            fdx_cg_ld(g->cg, FDX_CG_LDG, fdx_cg_fmt(g->cg, c->i32 ? "%s + (b%d + (i0 + %d) * (int)sm)" : "%s + b%d + (long long)(i0 + %d) * sm", arr, q, d)));
            }
    }
    if (wave) {
        fdx_sb d = FDX_SB_INIT;
        fdx_sb_puts(&d, "real");
        for (int q = 0; q < NQ; q++)
            for (int i = 0; i <= R; i++) fdx_sb_printf(&d, "%s cp%d_%d = 0", q || i ? "," : "", q, i);
        fdx_cg_stmt(k, "%s", fdx_cg_text(g->cg, &d));
    }
    /* Rotated (un = 2r + 1): the body 2r + 1 times, each copy naming the
       column slots one further round, so the columns never move (the
       plain loop shifts them: 2r moves a point and level a plane). */
    const int U = c->un == 2 * R + 1 ? c->un : 1;
    fdx_cg_node *loop = fdx_cg_for(k, FDX_CG_LOOP_NOUNROLL, U > 1 ? "int iu = i0; iu < i1; iu += %d" : "int i = i0; i < i1; i += %d", U);
    for (int ph = 0; ph < U; ph++) {
        fdx_cg_node *body = loop;
        if (U > 1) {
            /* i1 is the block's: every thread leaves at the same plane. */
            if (ph) fdx_cg_stmt(fdx_cg_if(loop, "iu + %d >= i1", ph), "break");
            body = fdx_cg_scope(loop);
            fdx_cg_stmt(body, "const int i = iu + %d", ph);
        }
        emit_plane(body, g, c, U > 1 ? ph : 0, U > 1);
    }
}

/* CPU: the rows of one level of a task's tile at plane j (level t from
   level t - 1; the last level straight into out). */
static void emit_cpu_level(fdx_cg_node *loop, const gen *g, int K, int t, int direct)
{
    /* `direct`: level 0 is the input itself (rows sy apart, planes sm). */
    const int in_u = direct && t == 1;
    const int R = g->r, RY = g->ry, S = 2 * R + 1, h = (K - t) * R, hy = (K - t) * RY, last = t == K;
    fdx_cg_node *lv = fdx_cg_scope(loop);
    fdx_cg_stmt(lv, "const long long j = i - %d", t * R);
    /* The planes, rows and columns level t needs: the tile grown by the
       halo the levels after it still consume. */
    fdx_cg_node *in = fdx_cg_if(lv, "j >= (k0 - %d > 0 ? k0 - %d : 0) && j < (k1 + %d < nm ? k1 + %d : nm)", h, h, h, h);
    fdx_cg_stmt(in, "const long long ya = y0 - %d > 0 ? y0 - %d : 0, yz = y1 + %d < ny ? y1 + %d : ny", hy, hy, hy, hy);
    fdx_cg_stmt(in, "const long long xa = x0 - %d > 0 ? x0 - %d : 0, xz = x1 + %d < nx ? x1 + %d : nx", h, h, h, h);
    fdx_cg_stmt(in, "const int fj = j < %d || j >= nm - %d", R, R);
    fdx_cg_stmt(in, "(void)fj");
    fdx_cg_node *row = fdx_cg_for(in, FDX_CG_LOOP, "long long yy = ya; yy < yz; yy++");
    fdx_cg_stmt(row, "const long long ro = (yy - ey0) * ew - ex0");
    if (in_u) fdx_cg_stmt(row, "const real *pc = u + j * sm + yy * sy");
    else fdx_cg_stmt(row, "const real *pc = L%d + (j %% %d) * ps + ro", t - 1, S);
    if (last) fdx_cg_stmt(row, "real *d = out + j * sm + yy * sy");
    else fdx_cg_stmt(row, "real *d = L%d + (j %% %d) * ps + ro", t, S);
    if (!last) {
        /* Frame planes and rows keep the input (the last level has none: its
           tile is interior). */
        fdx_cg_node *fr = fdx_cg_if(row, "fj || yy < %d || yy >= ny - %d", RY, RY);
        fdx_cg_stmt(fdx_cg_for(fr, FDX_CG_LOOP_SIMD, "long long x = xa; x < xz; x++"), "d[x] = pc[x]");
        fdx_cg_stmt(fr, "continue");
        fdx_cg_stmt(fdx_cg_for(row, FDX_CG_LOOP, "long long x = xa; x < (xz < %d ? xz : %d); x++", R, R),
                    "d[x] = pc[x]");
        fdx_cg_stmt(fdx_cg_for(row, FDX_CG_LOOP, "long long x = (xa > nx - %d ? xa : nx - %d); x < xz; x++", R, R),
                    "d[x] = pc[x]");
    }
    for (int o = 1; o <= R; o++) {
        if (in_u) fdx_cg_stmt(row, "const real *pm%d = pc - %d * sm, *pp%d = pc + %d * sm", o, o, o, o);
        else
            fdx_cg_stmt(row, "const real *pm%d = L%d + ((j - %d) %% %d) * ps + ro, *pp%d = L%d + ((j + %d) %% %d) * ps + ro",
                        o, t - 1, o, S, o, t - 1, o, S);
    }
    /* WAVE: level t - 2's row at plane j (u_prev's for level 1), the
       coefficients' row; the last level also writes level K - 1 (its
       centre row) as the pass's u_prev. */
    const int wave = g->ks->update == FDX_UPDATE_WAVE;
    if (wave && t == 1) fdx_cg_stmt(row, "const real *pv = up + j * sm + yy * sy");
    else if (wave && direct && t == 2) fdx_cg_stmt(row, "const real *pv = u + j * sm + yy * sy");
    else if (wave) fdx_cg_stmt(row, "const real *pv = L%d + (j %% %d) * ps + ro", t - 2, S);
    if (g->ks->coef) fdx_cg_stmt(row, "const real *kc = cf + j * sm + yy * sy");
    if (wave && last) fdx_cg_stmt(row, "real *dp = outp + j * sm + yy * sy");
    fdx_cg_node *x = fdx_cg_for(row, FDX_CG_LOOP_SIMD, "long long x = (xa > %d ? xa : %d); x < (xz < nx - %d ? xz : nx - %d); x++",
                                R, R, R, R);
    fdx_stencil_emit_point(x, g, cpu_neighbour, "P.", in_u, "pc[x]", wave ? "pv[x]" : NULL, g->ks->coef ? "kc[x]" : NULL,
                           NULL, "n1");
    fdx_cg_stmt(x, "d[x] = n1");
    if (wave && last) fdx_cg_stmt(x, "dp[x] = pc[x]");
}

static void emit_cpu(fdx_cg_node *top, const gen *g, const fdx_temporal_cfg *c)
{
    const int K = c->k, R = g->r, RY = g->ry, KR = K * R, S = 2 * R + 1;
    if (c->skew) { /* (sched_setaffinity: before any system header) */
        fdx_cg_line(top, "#define _GNU_SOURCE");
        fdx_cg_line(top, "#include <sched.h>");
    }
    fdx_cg_line(top, "#include <omp.h>");
    if (c->v512) fdx_cg_line(top, "#pragma GCC target(\"prefer-vector-width=512\")");
    if (c->nt) fdx_cg_line(top, "#include <immintrin.h>");
    if (c->nt || c->skew) fdx_cg_line(top, "#include <stdint.h>");
    fdx_cg_node *k;
    emit_params(top, g, 0, &k);
    if (c->skew) {
        fdx_temporal_emit_skew(k, g, c);
        return;
    }
    fdx_cg_stmt(k, "const long long nx = P.n[0], ny = P.n[1], nm = P.n[2], sy = nx, sm = nx * ny");
    fdx_cg_stmt(k, "const long long chunk = P.chunk, by = P.by, bx = T.bx");
    fdx_cg_stmt(k, "(void)outp, (void)up, (void)cf");
    fdx_cg_stmt(k, "const long long nkb = (nm - %d + chunk - 1) / chunk, nyb = (ny - %d + by - 1) / by, "
                   "nxb = (nx - %d + bx - 1) / bx",
                2 * R, 2 * RY, 2 * R);
    fdx_cg_line(k, "#pragma omp parallel num_threads((int)T.nthr)");
    fdx_cg_node *par = fdx_cg_scope(k);
    fdx_cg_stmt(par, "real *const w = scratch + (long long)omp_get_thread_num() * T.per");
    fdx_cg_node *task = fdx_cg_for(fdx_cg_for(fdx_cg_for(par, FDX_CG_LOOP_WORKSHARE, "long long kb = 0; kb < nkb; kb++"),
                                              FDX_CG_LOOP, "long long yb = 0; yb < nyb; yb++"),
                                   FDX_CG_LOOP, "long long xb = 0; xb < nxb; xb++");
    fdx_cg_stmt(task, "const long long k0 = %d + kb * chunk, k1 = k0 + chunk < nm - %d ? k0 + chunk : nm - %d", R, R, R);
    fdx_cg_stmt(task, "const long long y0 = %d + yb * by, y1 = y0 + by < ny - %d ? y0 + by : ny - %d", RY, RY, RY);
    fdx_cg_stmt(task, "const long long x0 = %d + xb * bx, x1 = x0 + bx < nx - %d ? x0 + bx : nx - %d", R, R, R);
    /* The tile with its halo: the rings' planes (indexed from ex0, ey0). */
    fdx_cg_stmt(task, "const long long ex0 = x0 - %d, ey0 = y0 - %d, ew = x1 - x0 + %d, ps = ew * (y1 - y0 + %d)", KR,
                K * RY, 2 * KR, 2 * K * RY);
    const int D = c->direct != 0;
    for (int t = D; t < K; t++) fdx_cg_stmt(task, "real *const L%d = w + %d * ps", t, (t - D) * S);
    fdx_cg_stmt(task, "const long long i0 = k0 - %d > 0 ? k0 - %d : 0, i1 = k1 + %d", KR, KR, KR);
    fdx_cg_node *loop = fdx_cg_for(task, FDX_CG_LOOP, "long long i = i0; i < i1; i++");
    if (D) {
        /* Level 0 is the input in place: level 1 reads its planes. */
        for (int t = 1; t <= K; t++) emit_cpu_level(loop, g, K, t, 1);
        return;
    }
    /* Level 0: the input's plane i over the tile and halo, inside the array. */
    fdx_cg_node *in = fdx_cg_if(loop, "i < nm");
    fdx_cg_stmt(in, "const long long ya = ey0 > 0 ? ey0 : 0, yz = y1 + %d < ny ? y1 + %d : ny", K * RY, K * RY);
    fdx_cg_stmt(in, "const long long xa = ex0 > 0 ? ex0 : 0, xz = x1 + %d < nx ? x1 + %d : nx", KR, KR);
    fdx_cg_node *row = fdx_cg_for(in, FDX_CG_LOOP, "long long yy = ya; yy < yz; yy++");
    fdx_cg_stmt(row, "real *d = L0 + (i %% %d) * ps + (yy - ey0) * ew - ex0", S);
    fdx_cg_stmt(row, "const real *s = u + i * sm + yy * sy");
    fdx_cg_stmt(fdx_cg_for(row, FDX_CG_LOOP_SIMD, "long long x = xa; x < xz; x++"), "d[x] = s[x]");
    for (int t = 1; t <= K; t++) emit_cpu_level(loop, g, K, t, 0);
}

fdx_status fdx_temporal_generate(const fdx_stencil_kspec *ks, const fdx_temporal_cfg *cfg, int cuda, char **source)
{
    *source = NULL;
    const char *why = NULL;
    FDX_CHECK(fdx_temporal_supports(ks, &why), FDX_ERR_INTERNAL, "temporal blocking: %s", why);
    FDX_CHECK(ks->radius >= 1 && ks->radius <= FDX_STENCIL_MAX_RADIUS, FDX_ERR_INTERNAL, "stencil radius %d",
              ks->radius);
    FDX_CHECK(cfg->k >= 1 && cfg->k <= FDX_TEMPORAL_MAX_K, FDX_ERR_INTERNAL, "temporal depth %d", cfg->k);
    if (cuda) {
        int halo = 2 * cfg->k * ks->radius;
        int w = fdx_temporal_tile_x(cfg, ks->rank), h = fdx_temporal_tile_y(cfg, ks->rank);
        FDX_CHECK(w > halo && cfg->tx * cfg->ty <= 1024 && (ks->rank == 3 ? h > halo : cfg->ty == 1) &&
                      cfg->nq >= 0 && cfg->nq <= FDX_TEMPORAL_MAX_POINTS && cfg->pd >= 0 && cfg->pd <= FDX_TEMPORAL_MAX_PD &&
                      cfg->un >= 0 && cfg->un <= FDX_TEMPORAL_MAX_UNROLL,
                  FDX_ERR_INTERNAL, "temporal block %dx%d q%d pd%d keeps no points of its own at depth %d, radius %d",
                  cfg->tx, cfg->ty, cfg->nq, cfg->pd, cfg->k, ks->radius);
    }
    gen g = {ks, NULL, NULL, cuda, ks->radius, ks->radius, ks->rank == 3 ? ks->radius : 0, 1,
             ks->is_double ? "double" : "float", 0, 0, 0, 1, 0, cfg->tx + 2 * ks->radius, 0};
    g.cg = fdx_cg_create(cuda ? FDX_CG_CUDA : FDX_CG_C);
    FDX_CHECK(g.cg, FDX_ERR_NOMEM, "out of memory generating a temporal kernel");
    fdx_cg_node *top = fdx_cg_root(g.cg);
    fdx_stencil_emit_prelude(top, &g);
    fdx_cg_comment(top, "temporally blocked: %d steps a pass", cfg->k);
    if (cuda) emit_cuda(top, &g, cfg);
    else emit_cpu(top, &g, cfg);
    fdx_sb out = FDX_SB_INIT;
    fdx_status st = fdx_cg_print(g.cg, &out);
    fdx_cg_destroy(g.cg);
    if (st == FDX_OK) st = fdx_sb_take(&out, "a temporal kernel", source);
    fdx_sb_free(&out);
    return st;
}
