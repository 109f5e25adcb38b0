/* fdx_temporal_gen_skew: the CPU's skewed-slab temporal kernel (rank 3
   heat; fdx_temporal_cfg.skew).

   Why: the overlapped tiles (fdx_temporal_gen.c) recompute a halo of
   (k - t) r rows on both sides of every level t; with a core's L2 share
   that is 10-30% more points and 25-60% more input read at k = 3-4, and it
   grows with k, so deeper blocking stops paying.  Here no point is computed
   twice:

   - The interior rows r .. ny - r are cut into slabs of `by` rows, Y_j =
     r + j by.  Level t of slab j is the rows lo_j(t) = max(r, Y_j - t r) ..
     hi_j(t) = lo_{j+1}(t) (the last slab up to ny - r): the slabs of a
     level tile the interior, each level shifted r rows down (a
     parallelogram in (y, t)).  Level t of slab j reads level t - 1 at rows
     lo_j(t) - r .. hi_j(t) + r: its own rows, the frame, and the 2r rows
     below its own that slab j - 1 holds (by >= 2r), never slab j + 1's.
   - A thread takes a run of consecutive slabs and marches the whole
     marching axis: in iteration i every level t computes its plane i - t r
     (level 1 reads the input in place, level k writes out), slab after
     slab.  Levels 1 .. k - 1 live in a ring of 2r + 1 planes a slab, of
     full rows (frame columns copied from the input); the top 2r rows of
     each level (what slab j + 1 reads) are also copied into an edge ring
     of 2r + 1 + slack planes.
   - Slab j's iteration i needs slab j - 1 to have done iteration i (the
     rows below), and slab j - 1 may not overwrite a plane slab j still
     reads: it runs at most `slack` iterations ahead.  Across threads that
     is a progress counter a slab (release after an iteration, acquire
     before reading): a wavefront in which thread th runs a plane or so
     behind thread th - 1.  Within a thread the slab order keeps both.
   - x blocks (bx < the interior: the candidates' answer to deep rings
     that outgrow a core's cache): all threads take block after block,
     each a march of its own; level t of a block also computes the (k - t)
     r columns beyond it on each side that the later levels read (the
     overlapped tiles' halo, in x only).
   - The frame (planes, rows and columns within r of a face) is the
     input's at every level: lookups there read u.
   Every point is fdx_stencil_emit_point's expression with neighbours from
   the level before, so a pass is bit for bit k single steps (the same
   argument as the other kernels). */
#include "stencil/fdx_stencil_gen.h"
#include "stencil/fdx_temporal.h"

/* Level v's neighbour of the point at x: along x in its centre row, along y
   in the rows ym<o> / yp<o>, along the marching axis in pm<o> / pp<o>. */
static void skew_neighbour(fdx_sb *b, const gen *g, int a, int off, int v)
{
    (void)g;
    const char side = off < 0 ? 'm' : 'p';
    const int o = off < 0 ? -off : off;
    /* v: the row of the loop (FDX_TEMPORAL_CODE_ROWS2's second row: q...) */
    const char *q = v ? "q" : "";
    if (a == 0) fdx_sb_printf(b, "%spc[x %c %d]", q, off < 0 ? '-' : '+', o);
    else fdx_sb_printf(b, "%s%c%c%d[x]", q, a == 1 ? 'y' : 'p', side, o);
}

/* Level t (1 .. k) of slab j at plane p = i - t r. */
/* nt: the row buffer d's columns from .. to into out's row y of the plane
   through streaming stores where the destination is 64-byte aligned (whole
   vectors), plain stores at the ends. */
static void emit_stream_row(fdx_cg_node *row, const gen *g, const char *d, const char *plane, const char *y,
                            const char *from, const char *to)
{
    const int dbl = g->ks->is_double, vl = dbl ? 8 : 16;
    const char *sfx = dbl ? "pd" : "ps";
    fdx_cg_node *b = fdx_cg_scope(row);
    fdx_cg_stmt(b, "real *o = out + %s * sm + %s * sy", plane, y);
    fdx_cg_stmt(b, "const long long se = %s", to);
    fdx_cg_stmt(b, "long long x = %s", from);
    fdx_cg_stmt(fdx_cg_for(b, FDX_CG_LOOP, "; x < se && ((uintptr_t)(o + x) & 63); x++"), "o[x] = %s[x]", d);
    fdx_cg_line(b, "#if defined(__AVX512F__)");
    fdx_cg_stmt(fdx_cg_for(b, FDX_CG_LOOP, "; x + %d <= se; x += %d", vl, vl),
                "_mm512_stream_%s(o + x, _mm512_loadu_%s(%s + x))", sfx, sfx, d);
    fdx_cg_line(b, "#elif defined(__AVX__)");
    fdx_cg_stmt(fdx_cg_for(b, FDX_CG_LOOP, "; x + %d <= se; x += %d", vl / 2, vl / 2),
                "_mm256_stream_%s(o + x, _mm256_loadu_%s(%s + x))", sfx, sfx, d);
    fdx_cg_line(b, "#endif");
    fdx_cg_stmt(fdx_cg_for(b, FDX_CG_LOOP, "; x < se; x++"), "o[x] = %s[x]", d);
}

/* The point at x of each of the loop's nr rows into d[x] (qd[x]): every
   point's loads before the stores, so the rows' shared loads (row y + 1's
   centre is row y's yp1) are one load. */
static void emit_point_loop(fdx_cg_node *at, const gen *g, const char *range, int nr)
{
    fdx_cg_node *x = fdx_cg_for(at, FDX_CG_LOOP_SIMD, "long long x = %s; x++", range);
    for (int q = 0; q < nr; q++)
        fdx_stencil_emit_point(x, g, skew_neighbour, "P.", q, q ? "qpc[x]" : "pc[x]", NULL, NULL, NULL, q ? "n2" : "n1");
    for (int q = 0; q < nr; q++) fdx_cg_stmt(x, "%sd[x] = n%d", q ? "q" : "", q + 1);
}

/* The row's points xa .. xz - 1.  Aligned (FDX_TEMPORAL_CPU_ALIGN, default
   on; session 10): ring rows hold x at a column congruent to x modulo a
   cache line (xo is a line multiple) and the input's rows start on a line
   where nx is a multiple of one, so once d + x is on a line every stream
   but the x +- r neighbours is: one unaligned line-sized head, the aligned
   lines, one unaligned line-sized tail, head and tail overlapping the
   middle (points recomputed to the same values: the level reads only the
   level before).  No scalar iterations and no split loads on the centre,
   y and marching-axis rows: on the 2-core EPYC, one thread, 512x34x512
   k4 nt, 0.52 -> 0.47 ns a point and level; 128-wide x blocks 0.60 ->
   0.555 (a scalar peel instead lost on short rows).  Rows shorter than a
   line take the plain loop. */
static void emit_row_points(fdx_cg_node *row, const gen *g, int align, int nr)
{
    if (!align) {
        emit_point_loop(row, g, "xa; x < xz", nr);
        return;
    }
    fdx_cg_node *wide = fdx_cg_if(row, "xz - xa >= line");
    fdx_cg_stmt(wide, "const long long xm = xa + (long long)((-(uintptr_t)(d + xa) / sizeof(real)) & (uintptr_t)(line - 1)), "
                      "xe = xm + (xz - xm) / line * line");
    emit_point_loop(wide, g, "xa; x < xa + line", nr);
    emit_point_loop(wide, g, "xm; x < xe", nr);
    emit_point_loop(wide, g, "xz - line; x < xz", nr);
    emit_point_loop(fdx_cg_else(wide), g, "xa; x < xz", nr);
}

/* Spread prefetching (FDX_TEMPORAL_CODE_SPREAD, FDX_TEMPORAL_CPU_PREFETCH=2;
   session 11): the input plane the next iteration's level 1 reads first
   (i + 1: rows lo[1] - r .. hi[1] + r, the block's columns and k r each
   side) asked for into L2 in pieces spread over the whole iteration: level
   t's row y asks for segment t - 1 of k of the columns of input row lo[1] -
   r + (y - lo[t]) (its last row for the rows left).  Why: on the 16-core
   host one thread ran k4 at ~1 ns a point and level, close to "compute plus
   DRAM, not overlapped" (level 1 meets the new plane's rows as demand
   misses, a 4 KB page a 512-double row, where the streamer starts over),
   and the loss at 16 threads grows with the DRAM streams, not the hot set
   (session 10's probe); level-1-only prefetching (PREFETCH=1) issues a
   row's 64 lines at once while level 1 runs. */
static void emit_spread_prefetch(fdx_cg_node *row, const gen *g, int K, int t, const char *y)
{
    const int R = g->r;
    fdx_cg_node *pf = fdx_cg_if(row, "i + 1 < nm");
    fdx_cg_stmt(pf, "const long long ya = lo[1] - %d, yz = hi[1] + %d, qa = ya + (%s - lo[%d]), "
                    "qz = %s == hi[%d] - 1 ? yz : qa + 1",
                R, R, y, t, y, t);
    fdx_cg_stmt(pf, "const long long ca = (x0 - %d > 0 ? x0 - %d : 0) & ~(line - 1), cz = x1 + %d < nx ? x1 + %d : nx",
                K * R, K * R, K * R, K * R);
    /* segment t - 1 of k: its ends on lines, the last one to cz */
    fdx_cg_stmt(pf, "const long long sa = ca + ((cz - ca) * %d / %d & ~(line - 1)), sz = %d == %d ? cz : ca + ((cz - ca) * %d / %d & ~(line - 1))",
                t - 1, K, t, K, t, K);
    fdx_cg_node *q = fdx_cg_for(pf, FDX_CG_LOOP, "long long qy = qa; qy < qz && qy < yz; qy++");
    fdx_cg_stmt(q, "const real *nf = u + (i + 1) * sm + qy * sy");
    fdx_cg_stmt(fdx_cg_for(q, FDX_CG_LOOP, "long long x = sa; x < sz; x += line"), "__builtin_prefetch(nf + x, 0, 2)");
}

/* Spread streaming (FDX_TEMPORAL_CODE_OSPREAD, FDX_TEMPORAL_CPU_STREAM=1,
   nt only; session 11): the last level's rows go into a plane buffer in the
   slab's scratch (FDX_OUTBUF), and the plane before (pp = i - 1 - k r) goes
   out through the streaming stores in pieces while every level of the next
   iteration computes: level t's row y sends segment t - 1 of k of the
   columns of buffered row lo[k] + (y - lo[t]) (its last row the rows left),
   before the last level overwrites that row.  Why: a row's 64 streaming
   lines at once occupy the core's fill buffers while the last level runs
   (a burst at a quarter of the iteration at k4); spread out they overlap
   the other levels.  Iterations where some level does not run (the march's
   ends) send the whole plane first; the march's last plane goes after it. */
static void emit_spread_stream(fdx_cg_node *row, const gen *g, int K, int t, const char *y)
{
    fdx_cg_node *sp = fdx_cg_if(row, "pv && steady");
    fdx_cg_stmt(sp, "const long long ra = lo[%d] + (%s - lo[%d]), rz = %s == hi[%d] - 1 ? hi[%d] : ra + 1", K, y, t, y,
                t, K);
    fdx_cg_stmt(sp, "const long long sa = FDX_SEG(%d), sz = FDX_SEG(%d)", t - 1, t);
    fdx_cg_node *q = fdx_cg_for(sp, FDX_CG_LOOP, "long long ry = ra; ry < rz && ry < hi[%d]; ry++", K);
    fdx_cg_stmt(q, "const real *obr = FDX_OUTBUF(ry)");
    emit_stream_row(q, g, "obr", "pp", "ry", "sa", "sz");
}

/* The whole buffered plane pp of slab j (rows lo[k] .. hi[k]) out. */
static void emit_flush_plane(fdx_cg_node *at, const gen *g, int K)
{
    fdx_cg_node *q = fdx_cg_for(at, FDX_CG_LOOP, "long long ry = lo[%d]; ry < hi[%d]; ry++", K, K);
    fdx_cg_stmt(q, "const real *obr = FDX_OUTBUF(ry)");
    emit_stream_row(q, g, "obr", "pp", "ry", "x0", "x1");
}

/* Level t's rows y (nr 2: and y + 1) at plane p: level t - 1's row
   pointers (the input's for level 1 and the frame), the points, the
   streaming copy (nt), the ring rows' frame columns and edge copies. */
static void emit_rows(fdx_cg_node *row, const gen *g, int K, int t, int nt, int code, int nr)
{
    const int R = g->r, s = t - 1;
    for (int q = 0; q < nr; q++) {
        const char *w = q ? "q" : "", *y = q ? "(y + 1)" : "y";
        fdx_cg_stmt(row, "const real *%spc = FDX_ROW(%d, p, %s)", w, s, y);
        for (int o = 1; o <= R; o++) {
            fdx_cg_stmt(row, "const real *%sym%d = FDX_ROW(%d, p, %s - %d), *%syp%d = FDX_ROW(%d, p, %s + %d)", w, o, s, y, o,
                        w, o, s, y, o);
            fdx_cg_stmt(row, "const real *%spm%d = FDX_ROW(%d, p - %d, %s), *%spp%d = FDX_ROW(%d, p + %d, %s)", w, o, s, o,
                        y, w, o, s, o, y);
        }
        /* nt: row buffers at the slab's scratch end, one a row */
        if (t == K && nt && (code & FDX_TEMPORAL_CODE_OSPREAD)) fdx_cg_stmt(row, "real *%sd = FDX_OUTBUF(%s)", w, y);
        else if (t == K && nt) fdx_cg_stmt(row, "real *%sd = rj + per - %d * ew - xo", w, q + 1);
        else if (t == K) fdx_cg_stmt(row, "real *%sd = out + p * sm + %s * sy", w, y);
        else fdx_cg_stmt(row, "real *%sd = FDX_RING(rj, %d, p) + (%s - lo[%d]) * ew - xo", w, t, y, t);
        /* Prefetch (FDX_TEMPORAL_CODE_PREFETCH): level 1 also asks for the
           input plane the next iteration's level 1 reads first (i + 1), this
           row, into L2: its lines then come from memory while the other
           levels compute instead of at the next iteration's row starts (a
           row of 512 doubles is a 4 KB page, where the hardware streamer
           starts over). */
        if (t == 1 && (code & FDX_TEMPORAL_CODE_PREFETCH)) {
            fdx_cg_node *pf = fdx_cg_if(row, "p + %d < nm", R + 1);
            fdx_cg_stmt(pf, "const real *nf = u + (p + %d) * sm + %s * sy", R + 1, y);
            fdx_cg_stmt(fdx_cg_for(pf, FDX_CG_LOOP, "long long x = xa & ~(line - 1); x < xz; x += line"),
                        "__builtin_prefetch(nf + x, 0, 2)");
        }
        if (code & FDX_TEMPORAL_CODE_SPREAD) emit_spread_prefetch(row, g, K, t, y);
        if (nt && (code & FDX_TEMPORAL_CODE_OSPREAD)) emit_spread_stream(row, g, K, t, y);
    }
    emit_row_points(row, g, code & FDX_TEMPORAL_CODE_ALIGN, nr);
    for (int q = 0; q < nr; q++) {
        const char *d = q ? "qd" : "d", *y = q ? "(y + 1)" : "y";
        if (t == K && nt && !(code & FDX_TEMPORAL_CODE_OSPREAD)) emit_stream_row(row, g, d, "p", y, "xa", "xz");
        if (t == K) continue;
        /* The ring row's frame columns where the block meets a face: the
           input's (read by level t + 1). */
        fdx_cg_node *fr = fdx_cg_scope(row);
        fdx_cg_stmt(fr, "const real *uf = u + p * sm + %s * sy", y);
        fdx_cg_stmt(fdx_cg_for(fdx_cg_if(fr, "xa == %d", R), FDX_CG_LOOP, "long long x = 0; x < %d; x++", R),
                    "%s[x] = uf[x]", d);
        fdx_cg_stmt(fdx_cg_for(fdx_cg_if(fr, "xz == nx - %d", R), FDX_CG_LOOP, "long long x = nx - %d; x < nx; x++", R),
                    "%s[x] = uf[x]", d);
        /* The top 2r rows, which the slab above reads, also into the edge
           ring (deeper: the slab above may lag). */
        fdx_cg_stmt(fdx_cg_if(fr, "j + 1 < nslab && %s >= hi[%d] - %d", y, t, 2 * R),
                    "__builtin_memcpy(FDX_EDGE(rj, %d, p) + (%s - (hi[%d] - %d)) * ew, %s + xo, (unsigned long)ew * sizeof(real))",
                    t, y, t, 2 * R, d);
    }
}

/* Level t (1 .. k) of slab j at plane p = i - t r.  Two rows a loop
   (FDX_TEMPORAL_CODE_ROWS2): half the row set-up, and row y + 1's centre
   and lower rows are row y's, so a vector of two rows' points takes 3 + 4r
   + 2 (2r) loads instead of 2 (3 + 4r); an odd last row alone. */
static void emit_level(fdx_cg_node *it, const gen *g, int K, int t, int nt, int code)
{
    const int R = g->r;
    fdx_cg_node *lv = fdx_cg_scope(it);
    fdx_cg_stmt(lv, "const long long p = i - %d", t * R);
    fdx_cg_node *in = fdx_cg_if(lv, "p >= %d && p < nm - %d", R, R);
    /* Level t's columns: the block's and the (k - t) r its later levels
       still read, inside the frame. */
    fdx_cg_stmt(in, "const long long xa = x0 - %d > %d ? x0 - %d : %d, xz = x1 + %d < nx - %d ? x1 + %d : nx - %d",
                (K - t) * R, R, (K - t) * R, R, (K - t) * R, R, (K - t) * R, R);
    if (!(code & FDX_TEMPORAL_CODE_ROWS2)) {
        emit_rows(fdx_cg_for(in, FDX_CG_LOOP, "long long y = lo[%d]; y < hi[%d]; y++", t, t), g, K, t, nt, code, 1);
        return;
    }
    emit_rows(fdx_cg_for(in, FDX_CG_LOOP, "long long y = lo[%d]; y + 1 < hi[%d]; y += 2", t, t), g, K, t, nt, code, 2);
    fdx_cg_node *last = fdx_cg_if(in, "(hi[%d] - lo[%d]) & 1", t, t);
    fdx_cg_stmt(last, "const long long y = hi[%d] - 1", t);
    emit_rows(last, g, K, t, nt, code, 1);
}

/* Iteration i of slab j (both in scope): the slab's rows of every level,
   the spread streaming's plane, the waits (fixed slabs, `waits`: the
   slab below is another thread's at the run's first slab, the slab above
   at its last), the levels (time-stamped with stats), the counter. */
static void emit_slab_iteration(fdx_cg_node *sl, const gen *g, const fdx_temporal_cfg *c, int code, int stats,
                                int ospread, int waits)
{
    const int K = c->k, R = g->r;
    fdx_cg_stmt(sl, "real *const rj = scratch + j * per");
    fdx_cg_stmt(sl, "const real *const rm = j > 0 ? scratch + (j - 1) * per : rj");
    fdx_cg_stmt(sl, "(void)rm");
    /* The slab's rows of every level. */
    fdx_cg_stmt(sl, "long long lo[%d], hi[%d]", K + 1, K + 1);
    fdx_cg_node *lt = fdx_cg_for(sl, FDX_CG_LOOP, "int t = 0; t <= %d; t++", K);
    fdx_cg_stmt(lt, "const long long a = FDX_Y(j) - t * %d, b = FDX_Y(j + 1) - t * %d", R, R);
    fdx_cg_stmt(lt, "lo[t] = a > %d ? a : %d", R, R);
    fdx_cg_stmt(lt, "hi[t] = j == nslab - 1 ? ny - %d : b > %d ? b : %d", R, R, R);
    if (ospread) {
        /* The plane the last level buffered last iteration: spread over
           this one where every level runs, else out now. */
        fdx_cg_stmt(sl, "const long long pp = i - 1 - %d", K * R);
        fdx_cg_stmt(sl, "const int pv = pp >= %d && pp < nm - %d, steady = i >= %d && i < nm", R, R, (K + 1) * R);
        emit_flush_plane(fdx_cg_if(sl, "pv && !steady"), g, K);
    }
    if (waits) {
        /* Slab j - 1 (another thread's) has done iteration i; slab j + 1
           (another thread's) is at most the slack behind. */
        fdx_cg_node *wb = fdx_cg_if(sl, "j == ja && j > 0"), *wa = fdx_cg_if(sl, "j == jz - 1 && j + 1 < nslab");
        if (stats) fdx_cg_stmt(wb, "fdx_a = FDX_TSC()"), fdx_cg_stmt(wa, "fdx_a = FDX_TSC()");
        fdx_cg_stmt(wb, "FDX_WAIT(0, __atomic_load_n(&prog[(j - 1) * 16], __ATOMIC_ACQUIRE) > i)");
        fdx_cg_stmt(wa, "FDX_WAIT(0, __atomic_load_n(&prog[(j + 1) * 16], __ATOMIC_ACQUIRE) >= i - %d)",
                    FDX_TEMPORAL_CODE_SLACKOF(code));
        if (stats) fdx_cg_stmt(wb, "fdx_st[0] += FDX_TSC() - fdx_a"), fdx_cg_stmt(wa, "fdx_st[1] += FDX_TSC() - fdx_a");
    }
    for (int t = 1; t <= K; t++) {
        if (!stats) {
            emit_level(sl, g, K, t, c->nt, code);
            continue;
        }
        fdx_cg_node *ts = fdx_cg_scope(sl);
        fdx_cg_stmt(ts, "fdx_a = FDX_TSC()");
        emit_level(ts, g, K, t, c->nt, code);
        fdx_cg_stmt(ts, "fdx_st[%d] += FDX_TSC() - fdx_a", 1 + t);
    }
    fdx_cg_stmt(sl, "__atomic_store_n(&prog[j * 16], i + 1, __ATOMIC_RELEASE)");
}

/* Dynamic slabs (FDX_TEMPORAL_CODE_DYN, FDX_TEMPORAL_CPU_DYN=N; session
   12).  Why: with fixed slabs the threads form one chain along y, and the
   16-core host's time stamps had 30-40% of every pass waiting on one slow
   vCPU, which one moving between runs (so the balance from the last pass
   chases it).  Here a thread claims one slab's iteration at a time (a
   claim word a slab, taken by compare-and-swap: whoever holds it runs the
   slab's next iteration, so any thread may run any slab; the claim's
   acquire / release carries the rings between them) from its home range
   of consecutive slabs, bnd[th] .. bnd[th + 1], in the fixed order (the
   ready one furthest behind).  A thread whose waits since it last took a
   slab (less an eighth of its compute: jitter is not slowness) pass N of
   its slab iterations' time takes the neighbour's nearest slab: the one
   below where its lowest slab waits on it, the one above where its top
   slab waits on its slack, keeping every range at least one slab, and
   only where that neighbour is the slow one, not waiting itself (its
   lowest slab two iterations behind what it needs, its top slab short of
   its slack's end).  (The first version took from any neighbour waited
   on: on the 16-core host every thread above a slow one waits, so ranges
   drifted up the chain, 1 .. 19 slabs of 64, ~22 slabs taken a thread
   and pass, each moving its rings: s12f.)  So a slow core's range shrinks by a
   slab each time a neighbour waits on it, and its slabs' rings move once,
   to the neighbour's L2.  Every point is still computed by one iteration
   of one slab in the fixed slabs' order of dependences: the same values. */
static void emit_dyn_march(fdx_cg_node *xb, const gen *g, const fdx_temporal_cfg *c, int code, int stats, int ospread)
{
    const int K = c->k, R = g->r, slack = FDX_TEMPORAL_CODE_SLACKOF(code), N = FDX_TEMPORAL_CODE_DYNOF(code);
    fdx_cg_stmt(xb, "const long long iend = nm + %d", (K - 1) * R);
    /* slab q can run its iteration pq: q - 1 has done it, q + 1 is at most the slack behind */
    fdx_cg_line(xb, "#define FDX_READY(q, pq) (((q) == 0 || __atomic_load_n(&prog[((q) - 1) * 16], __ATOMIC_ACQUIRE) > (pq)) && "
                    "((q) + 1 == nslab || __atomic_load_n(&prog[((q) + 1) * 16], __ATOMIC_ACQUIRE) >= (pq) - %d))", slack);
    /* fdx_item: a slab iteration's cycles (running mean); fdx_acc: the
       cycles waited, less an eighth of those computed, since the last
       slab taken (a thread taking a neighbour's slab when its waits pass
       N items: a slow neighbour, not the chain's jitter) */
    fdx_cg_stmt(xb, "unsigned long long fdx_item = 0, fdx_w0 = 0");
    fdx_cg_stmt(xb, "long long fdx_ws = 0, fdx_spin = 0, fdx_acc = 0");
    fdx_cg_node *lp = fdx_cg_for(xb, FDX_CG_LOOP, ";;");
    fdx_cg_stmt(lp, "const long long hl = __atomic_load_n(&bnd[th * 16], __ATOMIC_RELAXED), "
                    "hh = __atomic_load_n(&bnd[(th + 1) * 16], __ATOMIC_RELAXED)");
    fdx_cg_stmt(lp, "long long j = -1, jp = 0");
    fdx_cg_stmt(lp, "int left = 0");
    fdx_cg_node *hq = fdx_cg_for(lp, FDX_CG_LOOP, "long long q = hl; q < hh; q++");
    fdx_cg_stmt(hq, "const long long pq = __atomic_load_n(&prog[q * 16], __ATOMIC_ACQUIRE)");
    fdx_cg_stmt(hq, "if (pq >= iend) continue");
    fdx_cg_stmt(hq, "left = 1");
    fdx_cg_stmt(hq, "if ((j < 0 || pq < jp) && !__atomic_load_n(&claim[q * 16], __ATOMIC_RELAXED) && FDX_READY(q, pq)) j = q, jp = pq");
    /* Nothing ready at home: wait, and after N iterations' time take a
       neighbour's slab (not with the home done: the pass's drain would
       pile the upper slabs on the lower threads for the next pass). */
    fdx_cg_node *idle = fdx_cg_if(lp, "j < 0");
    fdx_cg_stmt(idle, "const unsigned long long now = FDX_CLK()");
    fdx_cg_stmt(idle, "if (!fdx_ws++) fdx_w0 = now");
    fdx_cg_stmt(idle, "const unsigned long long lim = %dULL * (fdx_item > 10000 ? fdx_item : 10000)", N);
    fdx_cg_node *late = fdx_cg_if(idle, "!left || (now ? (unsigned long long)fdx_acc + (now - fdx_w0) > lim : fdx_ws > %d)", 256 * N);
    fdx_cg_stmt(late, "int moved = 0");
    fdx_cg_stmt(late, "long long e = hl");
    /* below: the home's lowest slab, past its first iteration (not the
       pipeline's fill), waits on slab hl - 1, and the neighbour is the
       slow one: its own lowest slab bl has what it needs from below by
       two iterations (else it waits too: a chain of waits takes from no
       one but its cause) */
    fdx_cg_stmt(late, "const long long pl = left ? __atomic_load_n(&prog[hl * 16], __ATOMIC_ACQUIRE) : 0");
    fdx_cg_stmt(late, "const long long bl = th > 0 ? __atomic_load_n(&bnd[(th - 1) * 16], __ATOMIC_RELAXED) : 0");
    fdx_cg_stmt(late, "if (left && th > 0 && pl > %d && pl < iend && hl - bl >= 2 && "
                      "__atomic_load_n(&prog[(hl - 1) * 16], __ATOMIC_ACQUIRE) <= pl && "
                      "(bl == 0 || __atomic_load_n(&prog[(bl - 1) * 16], __ATOMIC_ACQUIRE) > "
                      "__atomic_load_n(&prog[bl * 16], __ATOMIC_ACQUIRE) + 1)) "
                      "moved = __atomic_compare_exchange_n(&bnd[th * 16], &e, hl - 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)",
                2 * R);
    /* above: the home's top slab waits on slab hh's slack, and the
       neighbour's top slab bt is not at its own slack's end */
    fdx_cg_stmt(late, "e = hh");
    fdx_cg_stmt(late, "const long long bt = th + 1 < team ? __atomic_load_n(&bnd[(th + 2) * 16], __ATOMIC_RELAXED) - 1 : 0");
    fdx_cg_stmt(late, "if (left && !moved && th + 1 < team && bt - hh >= 1 && "
                      "__atomic_load_n(&prog[hh * 16], __ATOMIC_ACQUIRE) < __atomic_load_n(&prog[(hh - 1) * 16], __ATOMIC_ACQUIRE) - %d && "
                      "(bt + 1 == nslab || __atomic_load_n(&prog[(bt + 1) * 16], __ATOMIC_ACQUIRE) > "
                      "__atomic_load_n(&prog[bt * 16], __ATOMIC_ACQUIRE) - %d)) "
                      "moved = __atomic_compare_exchange_n(&bnd[(th + 1) * 16], &e, hh + 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)",
                slack, slack - 1);
    fdx_cg_node *mv = fdx_cg_if(late, "moved");
    if (stats) fdx_cg_stmt(mv, "fdx_st[1]++, fdx_st[0] += now - fdx_w0");
    fdx_cg_stmt(mv, "fdx_w0 = now, fdx_acc = 0");
    /* all slabs done: the block is */
    fdx_cg_node *done = fdx_cg_if(late, "!moved && !left");
    fdx_cg_stmt(done, "long long q = 0");
    fdx_cg_stmt(done, "while (q < nslab && __atomic_load_n(&prog[q * 16], __ATOMIC_ACQUIRE) >= iend) q++");
    fdx_cg_node *all = fdx_cg_if(done, "q == nslab");
    if (stats) fdx_cg_stmt(all, "fdx_st[0] += now - fdx_w0");
    fdx_cg_stmt(all, "break");
    fdx_cg_stmt(idle, "if (++fdx_spin > 4000) sched_yield(), fdx_spin = 0; else FDX_PAUSE()");
    fdx_cg_stmt(idle, "continue");
    fdx_cg_stmt(lp, "long long e = 0");
    fdx_cg_stmt(lp, "if (!__atomic_compare_exchange_n(&claim[j * 16], &e, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) continue");
    /* the claim's acquire made the last holder's rings and counter visible */
    fdx_cg_stmt(lp, "const long long i = __atomic_load_n(&prog[j * 16], __ATOMIC_RELAXED)");
    fdx_cg_node *stale = fdx_cg_if(lp, "i >= iend || !FDX_READY(j, i)");
    fdx_cg_stmt(stale, "__atomic_store_n(&claim[j * 16], 0, __ATOMIC_RELEASE)");
    fdx_cg_stmt(stale, "continue");
    fdx_cg_stmt(lp, "const unsigned long long fdx_i0 = FDX_CLK()");
    fdx_cg_node *was = fdx_cg_if(lp, "fdx_ws");
    if (stats) fdx_cg_stmt(was, "fdx_st[0] += fdx_i0 - fdx_w0");
    fdx_cg_stmt(was, "fdx_acc += (long long)(fdx_i0 - fdx_w0)");
    fdx_cg_stmt(lp, "fdx_ws = 0");
    emit_slab_iteration(fdx_cg_scope(lp), g, c, code, stats, ospread, 0);
    fdx_cg_stmt(lp, "__atomic_store_n(&claim[j * 16], 0, __ATOMIC_RELEASE)");
    fdx_cg_stmt(lp, "const unsigned long long fdx_d = FDX_CLK() - fdx_i0");
    fdx_cg_stmt(lp, "fdx_item = (fdx_item + fdx_d) / 2");
    fdx_cg_stmt(lp, "fdx_acc = fdx_acc > (long long)(fdx_d / 8) ? fdx_acc - (long long)(fdx_d / 8) : 0");
    fdx_cg_line(xb, "#undef FDX_READY");
}

void fdx_temporal_emit_skew(fdx_cg_node *k, const gen *g, const fdx_temporal_cfg *c)
{
    const int code = fdx_temporal_cpu_code(), align = code & FDX_TEMPORAL_CODE_ALIGN, dyn = (code & FDX_TEMPORAL_CODE_DYN) != 0;
    const int K = c->k, R = g->r, S = 2 * R + 1, E = S + FDX_TEMPORAL_CODE_SLACKOF(code);
    fdx_cg_stmt(k, "const long long nx = P.n[0], ny = P.n[1], nm = P.n[2], sy = nx, sm = nx * ny");
    fdx_cg_stmt(k, "(void)outp, (void)up, (void)cf");
    /* by rows a slab (the last one takes the rest), rings of ew-long rows
       (T.bx), per values a slab (T.per), the progress counters after the
       rings, 128 bytes apart. */
    fdx_cg_stmt(k, "const long long by = P.by < ny - %d ? P.by : ny - %d, per = T.per", 2 * R, 2 * R);
    /* x blocks of bw interior columns, one after the other (all threads on
       one block); a ring row holds a block and k r columns each side
       (fdx_temporal_skew_row's length). */
    fdx_cg_stmt(k, "const long long bw = T.bx < nx - %d ? T.bx : nx - %d, nxb = (nx - %d + bw - 1) / bw", 2 * R, 2 * R,
                2 * R);
    fdx_cg_stmt(k, "const long long line = 64 / (long long)sizeof(real), ew = (bw + %d + line - 1) / line * line + line",
                2 * K * R);
    /* Balanced slabs (FDX_TEMPORAL_CODE_BALANCE; session 11): slab j
       starts at the row the host left in its counter line (prog[16 j +
       15]), so a slow core's slab can be shorter; the rings hold up to
       bym = 1.5 by rows (fdx_temporal_skew_bym). */
    const int bal = (code & FDX_TEMPORAL_CODE_BALANCE) != 0;
    fdx_cg_stmt(k, "const long long nslab = (ny - %d + by - 1) / by, bym = by + %s, ps = (bym + %d) * ew", 2 * R,
                bal ? "by / 2" : "0", (K - 1) * R);
    if (bal)
        fdx_cg_line(k, "#define FDX_Y(j) ((j) >= nslab ? ny - %d : ((const long long *)(scratch + nslab * per))[(j) * 16 + 15])", R);
    else
        fdx_cg_line(k, "#define FDX_Y(j) (%d + (j) * by)", R);
    /* A slab's scratch: its rings (levels 1 .. k - 1, 2r + 1 planes of ps
       values), its edge rings (2r + 1 + slack planes of its top 2r rows),
       the row buffer (nt). */
    fdx_cg_stmt(k, "const long long pe = %d * ew, eo = %d * ps", 2 * R, (K - 1) * S);
    fdx_cg_stmt(k, "long long *const prog = (long long *)(scratch + nslab * per)");
    fdx_cg_stmt(k, "(void)ps, (void)pe, (void)eo");
    if (dyn) {
        /* dynamic slabs: a claim a slab, then the home ranges' bounds
           (team + 1), each on a 128-byte line of its own */
        fdx_cg_stmt(k, "long long *const claim = prog + nslab * 16, *const bnd = claim + nslab * 16");
        fdx_cg_line(k, "#if defined(__x86_64__) || defined(__i386__)");
        fdx_cg_line(k, "#define FDX_CLK() __builtin_ia32_rdtsc()");
        fdx_cg_line(k, "#else");
        fdx_cg_line(k, "#define FDX_CLK() 0ULL");
        fdx_cg_line(k, "#endif");
    }
    const int ospread = c->nt && (code & FDX_TEMPORAL_CODE_OSPREAD);
    if (ospread) {
        /* The last level's plane buffer (spread streaming): by + k r rows
           before the two row buffers at the slab's scratch end; segment s
           of k of the block's columns, its inner ends on lines. */
        fdx_cg_stmt(k, "const long long ob = (bym + %d) * ew", K * R);
        fdx_cg_line(k, "#define FDX_OUTBUF(y) (rj + per - 2 * ew - ob + ((y) - lo[%d]) * ew - xo)", K);
        fdx_cg_line(k, "#define FDX_SEGAT(s) ((x0 + (x1 - x0) * (s) / %d) & ~(line - 1))", K);
        fdx_cg_line(k, "#define FDX_SEG(s) ((s) == 0 ? x0 : (s) == %d ? x1 : FDX_SEGAT(s) > x0 ? FDX_SEGAT(s) : x0)", K);
    }
    fdx_cg_line(k, "extern int sched_yield(void);");
    /* Level s's row y at plane q as slab j sees it: the input at the frame
       and for level 0, else its own ring or (the 2r rows below its own)
       slab j - 1's edge ring (whose top row is lo[s] - 1). */
    fdx_cg_line(k, "#define FDX_RING(base, s, q) ((base) + ((long long)((s) - 1) * %d + (q) %% %d) * ps)", S, S);
    fdx_cg_line(k, "#define FDX_EDGE(base, s, q) ((base) + eo + ((long long)((s) - 1) * %d + (q) %% %d) * pe)", E, E);
    fdx_cg_line(k, "#define FDX_ROW(s, q, y) ((s) == 0 || (q) < %d || (q) >= nm - %d || (y) < %d || (y) >= ny - %d "
                   "? u + (q) * sm + (y) * sy : (y) >= lo[s] ? FDX_RING(rj, s, q) + ((y) - lo[s]) * ew - xo "
                   ": FDX_EDGE(rm, s, q) + ((y) - (lo[s] - %d)) * ew - xo)",
                R, R, R, R, 2 * R);
    /* Spin on a counter (pause), yielding now and then (more threads than
       CPUs, e.g. a loaded machine). */
    fdx_cg_line(k, "#if defined(__x86_64__) || defined(__i386__)");
    fdx_cg_line(k, "#define FDX_PAUSE() __builtin_ia32_pause()");
    fdx_cg_line(k, "#else");
    fdx_cg_line(k, "#define FDX_PAUSE() ((void)0)");
    fdx_cg_line(k, "#endif");
    fdx_cg_line(k, "#define FDX_WAIT(cnt, cond) do { int spin_ = 0; while (!(cond)) { if (++spin_ > 4000) "
                   "sched_yield(), spin_ = 0; else FDX_PAUSE(); } } while (0)");
    /* Pinning (T.pin; host 16 cores, 10:05: k4 19.1 ms a step with
       OMP_PROC_BIND=close OMP_PLACES=cores against 24.9 unbound): a thread
       that moves leaves its rings in another core's L2.  OpenMP's
       proc_bind clause does nothing without OMP_PLACES (libgomp), so each
       thread takes the th-th CPU of the process's mask for the pass and
       gets its own mask back after it; not where the user already bound
       the threads, nor with more threads than CPUs. */
    fdx_cg_line(k, "#ifdef __linux__");
    fdx_cg_stmt(k, "cpu_set_t fdx_all");
    fdx_cg_stmt(k, "const int fdx_pin = T.pin && omp_get_proc_bind() == omp_proc_bind_false && "
                   "sched_getaffinity(0, sizeof fdx_all, &fdx_all) == 0");
    fdx_cg_line(k, "#endif");
    fdx_cg_line(k, "#pragma omp parallel num_threads((int)T.nthr)");
    fdx_cg_node *par = fdx_cg_scope(k);
    fdx_cg_stmt(par, "const long long team = omp_get_num_threads(), th = omp_get_thread_num()");
    fdx_cg_line(par, "#ifdef __linux__");
    fdx_cg_stmt(par, "cpu_set_t fdx_mine");
    fdx_cg_stmt(par, "int fdx_pinned = 0");
    fdx_cg_node *pin = fdx_cg_if(par, "fdx_pin && CPU_COUNT(&fdx_all) >= team");
    fdx_cg_stmt(pin, "int c = 0, n = -1");
    fdx_cg_stmt(fdx_cg_for(pin, FDX_CG_LOOP, "; c < CPU_SETSIZE; c++"), "if (CPU_ISSET(c, &fdx_all) && ++n == th) break");
    fdx_cg_node *one = fdx_cg_if(pin, "c < CPU_SETSIZE && sched_getaffinity(0, sizeof fdx_mine, &fdx_mine) == 0");
    fdx_cg_stmt(one, "cpu_set_t s1");
    fdx_cg_stmt(one, "CPU_ZERO(&s1)");
    fdx_cg_stmt(one, "CPU_SET(c, &s1)");
    fdx_cg_stmt(one, "fdx_pinned = sched_setaffinity(0, sizeof s1, &s1) == 0");
    fdx_cg_line(par, "#endif");
    fdx_cg_stmt(par, "const long long ja = th * nslab / team, jz = (th + 1) * nslab / team");
    /* Time stamps (FDX_TEMPORAL_CODE_STATS, FDX_TEMPORAL_CPU_STATS=1;
       session 11): a thread's cycles waiting for the slab below (st 0) and
       above (1), in each level (1 + t), at the blocks' barriers (k + 2)
       and in all (k + 3), left in its first slab's counter line
       after the counter (fdx_temporal_skew_stats reads them). */
    const int stats = (code & (FDX_TEMPORAL_CODE_STATS | FDX_TEMPORAL_CODE_BALANCE)) && K + 4 < 15;
    if (stats) {
        fdx_cg_line(par, "#if defined(__x86_64__) || defined(__i386__)");
        fdx_cg_line(par, "#define FDX_TSC() __builtin_ia32_rdtsc()");
        fdx_cg_line(par, "#else");
        fdx_cg_line(par, "#define FDX_TSC() 0ULL");
        fdx_cg_line(par, "#endif");
        fdx_cg_stmt(par, "unsigned long long fdx_st[16] = {0}, fdx_a = 0");
        fdx_cg_stmt(par, "const unsigned long long fdx_t0 = FDX_TSC()");
        fdx_cg_stmt(par, "(void)fdx_a");
    }
    if (dyn) {
        /* The home ranges: where the last pass left them (the host writes
           them back, fdx_temporal.c skew_dyn_set), even where they do not
           tile this team's slabs; they move over the pass's x blocks. */
        fdx_cg_line(par, "#pragma omp single");
        fdx_cg_node *one = fdx_cg_scope(par);
        fdx_cg_stmt(one, "int ok = bnd[0] == 0 && bnd[team * 16] == nslab");
        fdx_cg_stmt(fdx_cg_for(one, FDX_CG_LOOP, "long long q = 0; q < team && ok; q++"), "ok = bnd[(q + 1) * 16] >= bnd[q * 16]");
        fdx_cg_stmt(fdx_cg_for(fdx_cg_if(one, "!ok"), FDX_CG_LOOP, "long long q = 0; q <= team; q++"),
                    "bnd[q * 16] = q * nslab / team");
    }
    fdx_cg_node *xb = fdx_cg_for(par, FDX_CG_LOOP, "long long xb = 0; xb < nxb; xb++");
    /* The block's interior columns x0 .. x1; ring column 0 is x0 - k r,
       aligned: rounded down to a line (ew has the line to spare). */
    fdx_cg_stmt(xb, "const long long x0 = %d + xb * bw, x1 = x0 + bw < nx - %d ? x0 + bw : nx - %d, xo = (x0 - %d) & %s",
                R, R, R, K * R, align ? "~(line - 1)" : "-1LL");
    /* Counter: the iteration the slab runs next (the first is 2r: level 1's
       plane r); reset after every thread left the block before. */
    fdx_cg_node *rs = fdx_cg_for(xb, FDX_CG_LOOP, "long long j = ja; j < jz; j++");
    fdx_cg_stmt(rs, "__atomic_store_n(&prog[j * 16], %d, __ATOMIC_RELAXED)", 2 * R);
    if (dyn) fdx_cg_stmt(rs, "__atomic_store_n(&claim[j * 16], 0, __ATOMIC_RELAXED)");
    if (stats) fdx_cg_stmt(xb, "fdx_a = FDX_TSC()");
    fdx_cg_line(xb, "#pragma omp barrier");
    if (stats) fdx_cg_stmt(xb, "fdx_st[%d] += FDX_TSC() - fdx_a", K + 2);
    if (dyn) {
        emit_dyn_march(xb, g, c, code, stats, ospread);
    } else {
        fdx_cg_node *it = fdx_cg_for(xb, FDX_CG_LOOP, "long long i = %d; i < nm + %d; i++", 2 * R, (K - 1) * R);
        emit_slab_iteration(fdx_cg_for(it, FDX_CG_LOOP, "long long j = ja; j < jz; j++"), g, c, code, stats, ospread, 1);
    }
    if (ospread) {
        /* The march's last plane (nm - r - 1), buffered in its last iteration. */
        fdx_cg_node *fl = fdx_cg_for(xb, FDX_CG_LOOP, "long long j = ja; j < jz; j++");
        fdx_cg_stmt(fl, "real *const rj = scratch + j * per");
        fdx_cg_stmt(fl, "long long lo[%d], hi[%d]", K + 1, K + 1);
        fdx_cg_stmt(fl, "const long long a = FDX_Y(j) - %d, b = FDX_Y(j + 1) - %d", K * R, K * R);
        fdx_cg_stmt(fl, "lo[%d] = a > %d ? a : %d", K, R, R);
        fdx_cg_stmt(fl, "hi[%d] = j == nslab - 1 ? ny - %d : b > %d ? b : %d", K, R, R, R);
        fdx_cg_stmt(fl, "const long long pp = nm - %d", R + 1);
        emit_flush_plane(fl, g, K);
    }
    if (stats) fdx_cg_stmt(xb, "fdx_a = FDX_TSC()");
    fdx_cg_line(xb, "#pragma omp barrier");
    if (stats) {
        fdx_cg_stmt(xb, "fdx_st[%d] += FDX_TSC() - fdx_a", K + 2);
        fdx_cg_stmt(par, "fdx_st[%d] = FDX_TSC() - fdx_t0", K + 3);
        fdx_cg_stmt(fdx_cg_for(fdx_cg_if(par, "ja < jz"), FDX_CG_LOOP, "int q = 0; q < %d; q++", K + 4),
                    "prog[ja * 16 + 1 + q] = (long long)fdx_st[q]");
    }
    fdx_cg_line(par, "#ifdef __linux__");
    fdx_cg_stmt(fdx_cg_if(par, "fdx_pinned"), "sched_setaffinity(0, sizeof fdx_mine, &fdx_mine)");
    fdx_cg_line(par, "#endif");
    /* Streaming stores are weakly ordered: done before the pass returns. */
    if (c->nt) {
        fdx_cg_line(par, "#if defined(__SSE2__)");
        fdx_cg_stmt(par, "_mm_sfence()");
        fdx_cg_line(par, "#endif");
    }
    fdx_cg_line(k, "#undef FDX_ROW");
    fdx_cg_line(k, "#undef FDX_RING");
    fdx_cg_line(k, "#undef FDX_EDGE");
    fdx_cg_line(k, "#undef FDX_WAIT");
    fdx_cg_line(k, "#undef FDX_PAUSE");
    if (stats) fdx_cg_line(k, "#undef FDX_TSC");
    if (dyn) fdx_cg_line(k, "#undef FDX_CLK");
    fdx_cg_line(k, "#undef FDX_Y");
    if (ospread) {
        fdx_cg_line(k, "#undef FDX_OUTBUF");
        fdx_cg_line(k, "#undef FDX_SEGAT");
        fdx_cg_line(k, "#undef FDX_SEG");
    }
}
