/* fdx_mg_dist: multigrid distributed over units (GPUs, CPU units, MPI
   ranks) through the comm layer (include/fdx/dist.h, src/comm/fdx_comm.h).

   Each fine level is split as the caller's distribution splits the fine
   grid (the same unit grid, parts from fdx_dist): one fdx_dist per level,
   and each field of the level an fdx_darray whose local blocks are the
   unit's part plus a shadow on every side with a neighbour (one cell, or
   as wide as the transfers between two levels' parts need: setup
   measures it).  Below a size (FDX_MG_GATHER unknowns a unit, default
   32768) the level and every coarser one are gathered onto one unit of
   every process (the same values on all: each rank solves them, so no
   scatter between ranks is needed), solved there by the one-unit code,
   and the correction goes back into each unit's block.

   The cycles (fdx_mg_cycle.c) and the solve loops (fdx_mg.c) are the
   one-unit code unchanged: this file is another kernels table (mg_ops)
   whose fields are handles (mg_dfield, one local pointer a unit) in place
   of arrays.  Each entry runs the unit's kernels (the CPU's or CUDA's
   table, on a local mg_level describing the block) on every unit, after
   renewing the shadows of the inputs it reads around a point when a
   kernel wrote them since (so a red-black sweep exchanges once a colour,
   as on one unit the two colours run apart); reductions add the units'
   sums in unit order, then across ranks.  Every field value is therefore
   the one-unit solver's bit for bit (the same operations on each point;
   colours by global index); only the norms' summation order differs, in
   the last bits of the residual history.

   What keeps the units' own cost down: a level on one unit of one process
   renews nothing (no calls); the residual is restricted in one pass on
   each block (its values in the shadows computed, not exchanged); in one
   process the gathered level is filled and read back by box copies on the
   units' streams (no host round trip), so on CUDA a whole cycle after the
   first (every unit's kernels, the renewals' copies, the orders between
   streams) is captured once as a graph and replayed from unit 0's stream.

   Supported: what one unit takes: Dirichlet, Neumann and periodic axes
   (mixed too; a level's grid is its stored grid with the ghost planes, the
   ghosts renewed with the shadows: fresh()), orders 2 and 4 (level 0's
   shadows two wide), constant or variable coefficient, every cycle,
   smoother and CG-MG.  The nullspace of a problem without a Dirichlet axis
   (the mean removed, the compatibility check) runs through this table's
   sums, so across units and ranks. */
#include "comm/fdx_comm.h"
#include "core/fdx_knob.h"
#include "core/fdx_log.h"
#include "mg/fdx_mg_dist_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>


static void keep(mg_dist *md, fdx_status st)
{
    if (st != FDX_OK && md->err == FDX_OK) md->err = st;
}

/* Makes local unit i current: its device, and its stream for the kernels. */
void mg_dist_unit(mg_dist *md, int i)
{
    keep(md, fdx_dist_use(md->user, i));
    if (md->stream[i]) mg_cuda_use_stream(md->stream[i]);
}

/* Entering and leaving the solver's work on this thread: the stream the
   thread's one-unit kernels use is put back, and unit 0's device made
   current (another solver on this thread must not launch on a unit's
   stream, which may be another device's). */
void mg_dist_enter(mg_dist *md)
{
    if (md->stream[0]) md->outer = mg_cuda_current_stream();
}

void mg_dist_leave(mg_dist *md)
{
    keep(md, fdx_dist_use(md->user, 0));
    if (md->stream[0]) mg_cuda_use_stream(md->outer);
}

/* Units whose block holds unknowns (a part of only boundary points has none). */
#define EACH(dl, i)                                                                                           \
    for (int i = 0; i < (dl)->md->nu; i++)                                                                    \
        if ((dl)->loc[i].unknowns > 0 && (mg_dist_unit((dl)->md, i), 1))

/* Stream `waiter` runs what it gets next after what `signaller` has
   queued (signaller: a stream of local unit i). */
static void order(mg_dist *md, void *waiter, void *signaller, int i)
{
    if (md->stream[0]) keep(md, mg_cuda_order(waiter, signaller, md->ev[i]));
}

static void renewal_order(mg_dlevel *dl, int after);

/* The ghost planes the exchange does not renew: Neumann axes (mirror) and
   periodic axes that are not split (wrap inside the block), on the units
   whose block holds the ghost plane (the end units: a block starts or ends
   with it; a neighbour's shadow never reaches it, the end part owning the
   ghost and at least as many unknowns as the shadow is wide), over the
   block's whole extent on the other axes, axis after axis as mg_ghosts
   does; one launch an axis and unit.  After the exchange every other point
   of a block holds its owner's value, and each ghost is a copy of one such
   point (edges and corners: composed axis by axis in either order), so
   every ghost is the one-unit value.  The ghosts of split periodic axes
   came with the exchange (the level's distribution wraps them).  Nothing
   on a level of Dirichlet axes only. */
static void fill_ghosts(mg_dlevel *dl, mg_dfield *f)
{
    mg_dist *md = dl->md;
    const fdx_dist_desc *dd = fdx_dist_get_desc(dl->d);
    for (int a = 0; a < md->rank; a++) {
        const fdx_solver_bc bc = md->bc[a];
        if (bc == FDX_BC_DIRICHLET || (bc == FDX_BC_PERIODIC && dd->grid[a] > 1)) continue;
        const int64_t M = dl->G->m[a];
        for (int i = 0; i < md->nu; i++) {
            const mg_level *B = &dl->loc[i];
            const int64_t o = dl->org[i][a];
            /* the block holds the global ghost 0 (M - 1) as its plane 0 (m - 1) */
            const int lo = o == 0, hi = o + B->m[a] == M;
            if (!lo && !hi) continue;
            mg_dist_unit(md, i);
            md->base->ghost_planes(B, f->p[i], a, lo ? mg_ghost_source(bc, M, 0) - o : -1,
                                   hi ? mg_ghost_source(bc, M, 1) - o : -1);
        }
    }
}

/* Renews a field's shadows and ghosts when a kernel wrote it since.  A
   level on one unit of one process has no shadows (its only boundary is
   the physical one): no exchange, only its ghosts filled (no call with
   Dirichlet axes only). */
static void fresh(mg_dlevel *dl, mg_dfield *f)
{
    mg_dist *md = dl->md;
    if (!f->stale) return;
    f->stale = 0;
    if (fdx_dist_units(dl->d) > 1) {
        renewal_order(dl, 0);
        keep(md, fdx_darray_exchange(f->a));
        renewal_order(dl, 1);
    }
    fill_ghosts(dl, f);
}

/* The units' sums in unit order, then across ranks. */
static double total(mg_dlevel *dl, const double *part)
{
    double sum = 0;
    for (int i = 0; i < dl->md->nu; i++) sum += part[i];
    keep(dl->md, fdx_dist_sum_doubles(dl->d, &sum, 1));
    return sum;
}

void mg_dist_zero(mg_dlevel *dl, mg_dfield *f)
{
    for (int i = 0; i < dl->md->nu; i++) {
        mg_dist_unit(dl->md, i);
        dl->md->base->zero(&dl->loc[i], f->p[i]);
    }
    f->stale = 0;
}

/* Waits for every unit's kernels (before the host reads their blocks). */
static void sync_units(mg_dist *md)
{
    if (!md->stream[0]) return;
    for (int i = 0; i < md->nu; i++) {
        mg_dist_unit(md, i);
        keep(md, mg_cuda_stream_sync(md->stream[i]));
    }
}

/* The box copies between the gathered level (unit 0's array of C's
   layout) and unit i's block of its stage: the unit's owned points into
   the level (to_level), or the whole block (shadows too) from it.  Each
   unit copies on its stream (CUDA: reading or writing unit 0's memory),
   ordered after unit 0's work and before unit 0's next: no host wait, so
   a cycle's graph can hold them. */
static void box_copies(mg_dlevel *cd, const mg_level *C, mg_dfield *stage, double *level, int to_level)
{
    mg_dist *md = cd->md;
    for (int i = 0; i < md->nu; i++) {
        const mg_level *B = &cd->loc[i];
        int64_t off[3], lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
        if (to_level) fdx_dist_owned(cd->d, fdx_dist_proc(cd->d) * md->nu + i, lo, hi);
        for (int a = 0; a < 3; a++) {
            off[a] = -cd->org[i][a];
            if (!to_level) lo[a] = cd->org[i][a], hi[a] = lo[a] + B->m[a];
        }
        mg_dist_unit(md, i);
        order(md, md->stream[i], md->stream[0], 0);
        md->base->copy_box(B, off, lo, hi, C->m[0], C->m[1], to_level ? stage->p[i] : level,
                           to_level ? level : stage->p[i], to_level);
        order(md, md->stream[0], md->stream[i], i);
    }
    mg_dist_unit(md, 0);
}

/* The gathered level's field dst (on unit 0) = the stage's owned points,
   on every process. */
static void gather(mg_dlevel *cd, const mg_level *C, mg_dfield *stage, double *dst)
{
    mg_dist *md = cd->md;
    if (md->local) {
        box_copies(cd, C, stage, dst, 1);
        return;
    }
    sync_units(md);
    keep(md, fdx_darray_gather(stage->a, md->stream[0] ? cd->host : dst, 1));
    if (md->stream[0]) {
        mg_dist_unit(md, 0);
        keep(md, mg_cuda_upload(dst, cd->host, (size_t)C->count * sizeof(double)));
    }
}

/* Every block of the stage (shadows included) = the gathered field src. */
static void scatter(mg_dlevel *cd, const mg_level *C, const double *src, mg_dfield *stage)
{
    mg_dist *md = cd->md;
    stage->stale = 0;
    if (md->local) {
        box_copies(cd, C, stage, (double *)(uintptr_t)src, 0);
        return;
    }
    const double *g = src;
    if (md->stream[0]) {
        mg_dist_unit(md, 0);
        keep(md, mg_cuda_download(cd->host, src, (size_t)C->count * sizeof(double)));
        g = cd->host;
    }
    for (int i = 0; i < md->nu; i++) {
        const mg_level *B = &cd->loc[i];
        int64_t off[3], lo[3], hi[3];
        for (int a = 0; a < 3; a++) off[a] = -cd->org[i][a], lo[a] = cd->org[i][a], hi[a] = lo[a] + B->m[a];
        mg_dist_unit(md, i);
        if (md->stream[0]) {
            mg_copy_box(B, off, lo, hi, C->m[0], C->m[1], g, md->box, 0);
            keep(md, mg_cuda_upload(stage->p[i], md->box, (size_t)B->count * sizeof(double)));
        } else {
            mg_copy_box(B, off, lo, hi, C->m[0], C->m[1], g, stage->p[i], 0);
        }
    }
    stage->stale = 0;
}

/* ---- the kernels table ---------------------------------------------------- */

static const mg_ops *base_on(const mg_level *L)
{
    mg_dist_unit(L->dl->md, 0);
    return L->dl->md->base;
}

static void d_ghosts(const fdx_solver *s, const mg_level *L, double *a)
{
    if (L->dl->gathered) {
        base_on(L)->ghosts(s, L, a);
        return;
    }
    fresh(L->dl, FLD(a));
}

static void d_residual(const mg_level *L, const double *u, const double *f, double *r)
{
    mg_dlevel *dl = L->dl;
    if (dl->gathered) {
        base_on(L)->residual(L, u, f, r);
        return;
    }
    fresh(dl, FLD(u));
    EACH(dl, i) dl->md->base->residual(&dl->loc[i], FLD(u)->p[i], FLD(f)->p[i], FLD(r)->p[i]);
    FLD(r)->stale = 1;
}

static double d_resnorm2(const mg_level *L, const double *u, const double *f)
{
    mg_dlevel *dl = L->dl;
    if (dl->gathered) return base_on(L)->resnorm2(L, u, f);
    double part[MG_MAX_UNITS] = {0};
    fresh(dl, FLD(u));
    if (dl->md->stream[0]) {
        /* CUDA: every unit's kernel first, then the sums (each read waits) */
        EACH(dl, i) mg_cuda_resnorm2_launch(&dl->loc[i], FLD(u)->p[i], FLD(f)->p[i]);
        EACH(dl, i) part[i] = mg_cuda_sum_read(&dl->loc[i]);
    } else {
        EACH(dl, i) part[i] = dl->md->base->resnorm2(&dl->loc[i], FLD(u)->p[i], FLD(f)->p[i]);
    }
    return total(dl, part);
}

/* The fourth-order residual (level 0, Dirichlet axes): its two-deep reads
   are in the shadows (two wide on level 0); a block's test of "two from
   the boundary" on its own extent is the global one, since every part
   owns at least two points. */
static double d_residual4(const mg_level *L, const double *u, const double *f, double *r)
{
    mg_dlevel *dl = L->dl;
    if (dl->gathered) return base_on(L)->residual4(L, u, f, r);
    double part[MG_MAX_UNITS] = {0};
    fresh(dl, FLD(u));
    EACH(dl, i) part[i] = dl->md->base->residual4(&dl->loc[i], FLD(u)->p[i], FLD(f)->p[i], FLD(r)->p[i]);
    FLD(r)->stale = 1;
    return total(dl, part);
}

static double d_apply(const mg_level *L, const double *p, double *q)
{
    mg_dlevel *dl = L->dl;
    if (dl->gathered) return base_on(L)->apply(L, p, q);
    double part[MG_MAX_UNITS] = {0};
    fresh(dl, FLD(p));
    EACH(dl, i) part[i] = dl->md->base->apply(&dl->loc[i], FLD(p)->p[i], FLD(q)->p[i]);
    FLD(q)->stale = 1;
    return total(dl, part);
}

static void d_jacobi(const mg_level *L, const double *u, const double *f, double *out, double omega)
{
    mg_dlevel *dl = L->dl;
    if (dl->gathered) {
        base_on(L)->jacobi(L, u, f, out, omega);
        return;
    }
    fresh(dl, FLD(u));
    EACH(dl, i) dl->md->base->jacobi(&dl->loc[i], FLD(u)->p[i], FLD(f)->p[i], FLD(out)->p[i], omega);
    FLD(out)->stale = 1;
}

/* Colours by global index: a block whose origin has an odd index sum
   calls the other colour by the same number. */
static int odd(const mg_dlevel *dl, int i) { return (int)((dl->org[i][0] + dl->org[i][1] + dl->org[i][2]) & 1); }

static void d_gs_color(const mg_level *L, double *u, const double *f, int color)
{
    mg_dlevel *dl = L->dl;
    if (dl->gathered) {
        base_on(L)->gs_color(L, u, f, color);
        return;
    }
    fresh(dl, FLD(u));
    EACH(dl, i) dl->md->base->gs_color(&dl->loc[i], FLD(u)->p[i], FLD(f)->p[i], color ^ odd(dl, i));
    FLD(u)->stale = 1;
}

/* One red-black sweep in one pass (3D): each unit sweeps its unknowns and
   a ring of one point into the shadows (shadows two wide), so that the
   second colour of its owned points reads the first colour's new values
   across the cut, computed from the old ones; the ring's own second
   colour is wrong and the next renewal replaces it (f's shadows are
   renewed too: once after each restriction).  One renewal a sweep
   instead of one a colour, and the one-unit sweep kernels (CUDA: the
   z-marching one), the same values. */
static void d_gs_sweep(const mg_level *L, double *u, const double *f, int first)
{
    mg_dlevel *dl = L->dl;
    if (dl->gathered) {
        base_on(L)->gs_sweep(L, u, f, first);
        return;
    }
    fresh(dl, FLD(u));
    fresh(dl, FLD(f)); /* the ring's right-hand side */
    EACH(dl, i) dl->md->base->gs_sweep(&dl->swp[i], FLD(u)->p[i], FLD(f)->p[i], first ^ odd(dl, i));
    FLD(u)->stale = 1;
}

/* Stream orders around a renewal of level dl's shadows: its compute
   streams after the units' queued work (before), the units' streams after
   the renewal (after). */
static void renewal_order(mg_dlevel *dl, int after)
{
    mg_dist *md = dl->md;
    for (int i = 0; md->stream[0] && i < md->nu; i++) {
        mg_dist_unit(md, i);
        if (after)
            order(md, md->stream[i], fdx_dist_stream(dl->d, i), i);
        else
            order(md, fdx_dist_stream(dl->d, i), md->stream[i], i);
    }
}

/* The one-pass sweep with u's renewal overlapped (FDX_MG_OVERLAP=1, CUDA's
   z-marching sweep, several units, u stale): the renewal begins, each
   unit sweeps the interior of its block (its unknowns two or more from a
   cut: they read no shadow), the renewal ends, each unit sweeps the rest
   of its ring-widened box in slabs.  The z-marching kernel computes the
   first colour around its output box, so the boxes write what one sweep
   writes (the ring's wrong second colour included). */
static int overlapped_sweep(mg_dlevel *dl, const double *u, const double *f, double *out, int first)
{
    mg_dist *md = dl->md;
    const mg_ops *b = md->base;
    if (!md->stream[0] || !b->gs_sweep2_box || !FLD(u)->stale || fdx_dist_units(dl->d) == 1 ||
        dl->swp[0].gs2 != MG_GS2_Z || !fdx_knob_is(FDX_KNOB_MG_OVERLAP, "1"))
        return 0;
    fresh(dl, FLD(f));
    FLD(u)->stale = 0;
    renewal_order(dl, 0);
    keep(md, fdx_darray_exchange_begin(FLD(u)->a));
    int64_t in[MG_MAX_UNITS][2][3];
    for (int i = 0; i < md->nu; i++) {
        const mg_level *O = &dl->loc[i];
        int64_t olo[3] = {0, 0, 0}, ohi[3] = {1, 1, 1};
        fdx_dist_owned(dl->d, fdx_dist_proc(dl->d) * md->nu + i, olo, ohi);
        for (int a = 0; a < 3; a++) {
            /* two points off a side with a neighbour (a shadow) */
            in[i][0][a] = O->lo[a] + (olo[a] > 0 ? 2 : 0);
            in[i][1][a] = O->hi[a] - (ohi[a] < dl->G->m[a] ? 2 : 0);
            if (in[i][1][a] < in[i][0][a]) in[i][1][a] = in[i][0][a];
        }
    }
    EACH(dl, i) b->gs_sweep2_box(&dl->swp[i], FLD(u)->p[i], FLD(f)->p[i], FLD(out)->p[i], first ^ odd(dl, i), in[i][0],
                                 in[i][1]);
    keep(md, fdx_darray_exchange_end(FLD(u)->a));
    renewal_order(dl, 1);
    EACH(dl, i) {
        /* W's box less the interior: below and above it on axis a, within
           the interior on the axes before a and all of W on those after */
        const mg_level *W = &dl->swp[i];
        const int empty = in[i][1][0] <= in[i][0][0] || in[i][1][1] <= in[i][0][1] || in[i][1][2] <= in[i][0][2];
        if (empty) {
            b->gs_sweep2_box(W, FLD(u)->p[i], FLD(f)->p[i], FLD(out)->p[i], first ^ odd(dl, i), W->lo, W->hi);
            continue;
        }
        for (int a = 0; a < 3; a++)
            for (int side = 0; side < 2; side++) {
                int64_t lo[3], hi[3];
                for (int c = 0; c < 3; c++) {
                    lo[c] = c < a ? in[i][0][c] : W->lo[c];
                    hi[c] = c < a ? in[i][1][c] : W->hi[c];
                }
                if (side)
                    lo[a] = in[i][1][a];
                else
                    hi[a] = in[i][0][a];
                b->gs_sweep2_box(W, FLD(u)->p[i], FLD(f)->p[i], FLD(out)->p[i], first ^ odd(dl, i), lo, hi);
            }
    }
    FLD(out)->stale = 1;
    return 1;
}

static void d_gs_sweep2(const mg_level *L, const double *u, const double *f, double *out, int first)
{
    mg_dlevel *dl = L->dl;
    if (dl->gathered) {
        base_on(L)->gs_sweep2(L, u, f, out, first);
        return;
    }
    if (overlapped_sweep(dl, u, f, out, first)) return;
    fresh(dl, FLD(u));
    fresh(dl, FLD(f));
    const mg_ops *b = dl->md->base;
    EACH(dl, i) {
        if (dl->md->stream[0]) {
            b->gs_sweep2(&dl->swp[i], FLD(u)->p[i], FLD(f)->p[i], FLD(out)->p[i], first ^ odd(dl, i));
        } else {
            /* The CPU's stand-in sweeps a copy of u in place: it reads the
               ring's outer neighbours from out (CUDA's kernels read u), so
               the whole block is copied first. */
            b->copy(&dl->loc[i], FLD(out)->p[i], FLD(u)->p[i]);
            b->gs_sweep(&dl->swp[i], FLD(out)->p[i], FLD(f)->p[i], first ^ odd(dl, i));
        }
    }
    FLD(out)->stale = 1;
}

static void d_cheby(const mg_level *L, const double *u, const double *f, double *d, double *out, double alpha,
                    double beta)
{
    mg_dlevel *dl = L->dl;
    if (dl->gathered) {
        base_on(L)->cheby(L, u, f, d, out, alpha, beta);
        return;
    }
    fresh(dl, FLD(u));
    EACH(dl, i)
    dl->md->base->cheby(&dl->loc[i], FLD(u)->p[i], FLD(f)->p[i], FLD(d)->p[i], FLD(out)->p[i], alpha, beta);
    FLD(d)->stale = 1;
    FLD(out)->stale = 1;
}

/* The field a transfer from a finer level writes on coarse level cd: fc's
   blocks, or the gathered level's stage, zeroed (the gather copies every
   owned point, boundary points too: the caller's zeros there) ... */
static mg_dfield *coarse_out(mg_dlevel *cd, double *fc)
{
    if (!cd->gathered) return FLD(fc);
    mg_dist_zero(cd, &cd->stage);
    return &cd->stage;
}

/* ... and, once written, into fc on one unit when gathered. */
static void coarse_written(mg_dlevel *cd, const mg_level *C, mg_dfield *out, double *fc)
{
    out->stale = 1;
    if (cd->gathered) gather(cd, C, out, fc);
}

static void d_restrict(const fdx_solver *s, const mg_level *F, const mg_level *C, const double *rf, double *fc)
{
    mg_dlevel *fd = F->dl, *cd = C->dl;
    if (fd->gathered) {
        base_on(F)->restrict_(s, F, C, rf, fc);
        return;
    }
    fresh(fd, FLD(rf));
    mg_dfield *out = coarse_out(cd, fc);
    EACH(cd, i) fd->md->base->restrict_(s, &fd->ext[i], &cd->loc[i], FLD(rf)->p[i], out->p[i]);
    coarse_written(cd, C, out, fc);
}

/* The residual restricted in one pass on each block (no fine residual
   array, so none to renew): each unit computes the residual on its
   unknowns and those within the restriction's reach in its shadows, which
   need u one point further (setup widens the shadows by one) and f's
   shadows.  The same values as d_residual then d_restrict: the residual
   at a shadow point is the same operations on the same values as its
   owner's. */
static void d_resrestrict(const fdx_solver *s, const mg_level *F, const mg_level *C, const double *u, const double *f,
                          double *fc)
{
    mg_dlevel *fd = F->dl, *cd = C->dl;
    if (fd->gathered) {
        base_on(F)->resrestrict(s, F, C, u, f, fc);
        return;
    }
    if (fd->wrapped) {
        /* the restriction reads the residual at a fine ghost (the wrapped
           last unknown), which the one-pass kernels do not compute: two
           passes, the same values */
        d_residual(F, u, f, F->t);
        d_restrict(s, F, C, F->t, fc);
        return;
    }
    fresh(fd, FLD(u));
    fresh(fd, FLD(f));
    mg_dfield *out = coarse_out(cd, fc);
    EACH(cd, i) fd->md->base->resrestrict(s, &fd->ext[i], &cd->loc[i], FLD(u)->p[i], FLD(f)->p[i], out->p[i]);
    coarse_written(cd, C, out, fc);
}

static void d_prolong(const mg_level *F, const mg_level *C, const double *uc, double *uf, int add)
{
    mg_dlevel *fd = F->dl, *cd = C->dl;
    if (fd->gathered) {
        base_on(F)->prolong(F, C, uc, uf, add);
        return;
    }
    mg_dfield *in = FLD(uc);
    if (cd->gathered) {
        in = &cd->stage;
        scatter(cd, C, uc, in);
    } else {
        fresh(cd, in);
    }
    EACH(fd, i) fd->md->base->prolong(&fd->loc[i], &cd->loc[i], in->p[i], FLD(uf)->p[i], add);
    FLD(uf)->stale = 1;
}

/* The coarse blocks' points on the global Dirichlet faces; the kernel also
   writes the blocks' ends that are shadows (from fine points clamped into
   the block: values the next renewal replaces). */
static void d_inject(const fdx_solver *s, const mg_level *F, const mg_level *C, const double *uf, double *uc)
{
    mg_dlevel *fd = F->dl, *cd = C->dl;
    if (fd->gathered) {
        base_on(F)->inject(s, F, C, uf, uc);
        return;
    }
    fresh(fd, FLD(uf));
    mg_dfield *out = coarse_out(cd, uc);
    for (int i = 0; i < fd->md->nu; i++) {
        mg_dist_unit(fd->md, i);
        fd->md->base->inject(s, &fd->loc[i], &cd->loc[i], FLD(uf)->p[i], out->p[i]);
    }
    coarse_written(cd, C, out, uc);
}

static void d_zero(const mg_level *L, double *a)
{
    if (L->dl->gathered) {
        base_on(L)->zero(L, a);
        return;
    }
    mg_dist_zero(L->dl, FLD(a));
}

static void d_copy(const mg_level *L, double *dst, const double *src)
{
    mg_dlevel *dl = L->dl;
    if (dl->gathered) {
        base_on(L)->copy(L, dst, src);
        return;
    }
    for (int i = 0; i < dl->md->nu; i++) {
        mg_dist_unit(dl->md, i);
        dl->md->base->copy(&dl->loc[i], FLD(dst)->p[i], FLD(src)->p[i]);
    }
    FLD(dst)->stale = FLD(src)->stale;
}

static double d_dot(const mg_level *L, const double *a, const double *b)
{
    mg_dlevel *dl = L->dl;
    if (dl->gathered) return base_on(L)->dot(L, a, b);
    double part[MG_MAX_UNITS] = {0};
    EACH(dl, i) part[i] = dl->md->base->dot(&dl->loc[i], FLD(a)->p[i], b ? FLD(b)->p[i] : NULL);
    return total(dl, part);
}

static void d_shift(const mg_level *L, double *a, double v)
{
    mg_dlevel *dl = L->dl;
    if (dl->gathered) {
        base_on(L)->shift(L, a, v);
        return;
    }
    EACH(dl, i) dl->md->base->shift(&dl->loc[i], FLD(a)->p[i], v);
    FLD(a)->stale = 1;
}

static double d_cg_update(const mg_level *L, double *x, const double *p, double *r, const double *q, double alpha)
{
    mg_dlevel *dl = L->dl;
    if (dl->gathered) return base_on(L)->cg_update(L, x, p, r, q, alpha);
    double part[MG_MAX_UNITS] = {0};
    EACH(dl, i)
    part[i] = dl->md->base->cg_update(&dl->loc[i], FLD(x)->p[i], FLD(p)->p[i], FLD(r)->p[i], FLD(q)->p[i], alpha);
    FLD(x)->stale = FLD(r)->stale = 1;
    return total(dl, part);
}

static void d_cg_direction(const mg_level *L, double *p, const double *z, double beta)
{
    mg_dlevel *dl = L->dl;
    if (dl->gathered) {
        base_on(L)->cg_direction(L, p, z, beta);
        return;
    }
    EACH(dl, i) dl->md->base->cg_direction(&dl->loc[i], FLD(p)->p[i], FLD(z)->p[i], beta);
    FLD(p)->stale = 1;
}

static void d_coarse(fdx_solver *s, mg_level *L) { base_on(L)->coarse(s, L); }

/* The caller's arrays are fdx_darrays of the solver's distribution (their
   handles come through the solve as its f and u): each unit copies its
   owned points (whole: boundary points too) between the caller's block
   and level 0's.  Level 0's parts are the caller's plus the ghost planes
   of Neumann and periodic axes (stored index = the caller's + goff). */
static void d_copy_user(const fdx_solver *s, const double *src, double *dst, int to_user, int whole)
{
    const mg_level *L = &s->lev[0];
    mg_dlevel *dl = L->dl;
    mg_dist *md = dl->md;
    fdx_darray *user = (fdx_darray *)(void *)(uintptr_t)(to_user ? dst : src);
    mg_dfield *fld = FLD(to_user ? src : dst);
    for (int i = 0; i < md->nu; i++) {
        fdx_array *ua = fdx_darray_local(user, i);
        int64_t uorg[3] = {0, 0, 0}, olo[3] = {0, 0, 0}, ohi[3] = {1, 1, 1}, off[3], lo[3], hi[3];
        fdx_darray_local_origin(user, i, uorg);
        fdx_dist_owned(dl->d, fdx_dist_proc(dl->d) * md->nu + i, olo, ohi);
        int64_t goff[3], glo[3], ghi[3];
        mg_user_box(L, whole, goff, glo, ghi); /* the caller's box, and the ghost offset */
        for (int a = 0; a < 3; a++) {
            const int64_t blo = olo[a] - goff[a] > glo[a] ? olo[a] - goff[a] : glo[a];
            const int64_t bhi = ohi[a] - goff[a] < ghi[a] ? ohi[a] - goff[a] : ghi[a];
            lo[a] = blo - uorg[a];
            hi[a] = bhi > blo ? bhi - uorg[a] : lo[a];
            off[a] = uorg[a] + goff[a] - dl->org[i][a];
        }
        const int64_t nx = fdx_array_extent(ua, 0), ny = s->rank > 1 ? fdx_array_extent(ua, 1) : 1;
        double *up = s->gpu ? fdx_array_device(ua) : fdx_array_host(ua);
        mg_dist_unit(md, i);
        md->base->copy_box(&dl->loc[i], off, lo, hi, nx, ny, to_user ? fld->p[i] : up, to_user ? up : fld->p[i],
                           to_user);
    }
    if (!to_user) fld->stale = 1;
}

static fdx_status d_status(void);
static int d_graph_cycle(fdx_solver *s, fdx_solver_cycle c);

static const mg_ops DIST_OPS = {
    .ghosts = d_ghosts,
    .residual = d_residual,
    .resnorm2 = d_resnorm2,
    .apply = d_apply,
    .residual4 = d_residual4,
    .jacobi = d_jacobi,
    .gs_color = d_gs_color,
    .gs_sweep = d_gs_sweep,
    .gs_sweep2 = d_gs_sweep2,
    .cheby = d_cheby,
    .restrict_ = d_restrict,
    .resrestrict = d_resrestrict,
    .prolong = d_prolong,
    .inject = d_inject,
    .zero = d_zero,
    .copy = d_copy,
    .dot = d_dot,
    .shift = d_shift,
    .cg_update = d_cg_update,
    .cg_direction = d_cg_direction,
    .coarse = d_coarse,
    .copy_user = d_copy_user,
    .status = d_status,
    .graph_cycle = d_graph_cycle,
    .graph_free = mg_cuda_graph_free,
};

const mg_ops *mg_dist_ops(void) { return &DIST_OPS; }

/* status() takes no solver: the solve in progress on this thread. */
static __thread mg_dist *current;

static fdx_status d_status(void)
{
    mg_dist *md = current;
    if (!md) return FDX_OK;
    for (int i = 0; i < md->nu; i++) {
        mg_dist_unit(md, i);
        keep(md, md->base->status());
    }
    mg_dist_leave(md);
    const fdx_status st = md->err;
    md->err = FDX_OK;
    return st;
}

/* ---- a cycle as one CUDA graph ----------------------------------------------- */

/* The units' streams fork from unit 0's (the graph's origin) and join it. */
static void g_fork(fdx_solver *s)
{
    mg_dist *md = s->md;
    for (int i = 1; i < md->nu; i++) {
        mg_dist_unit(md, i);
        order(md, md->stream[i], md->stream[0], 0);
    }
    mg_dist_unit(md, 0);
}

static void g_join(fdx_solver *s)
{
    mg_dist *md = s->md;
    for (int i = 1; i < md->nu; i++) {
        mg_dist_unit(md, i);
        order(md, md->stream[0], md->stream[i], i);
    }
    mg_dist_unit(md, 0);
}

/* Which of a level's fields wait for a renewal: the cycle renews by
   these, so a graph replays only from the state it was captured in, and
   leaves the state the capture left.  Settled before each graph cycle by
   renewing every stale field (in the default configurations none is
   stale at a cycle's start but level 0's f once a solve, which the cycle
   would renew anyway), so every cycle of every solve starts from the same
   state and replays one graph. */
static uint64_t g_state(const fdx_solver *s, int l)
{
    const mg_dlevel *dl = &s->md->dl[l];
    uint64_t v = 0;
    for (int k = 0; k < FLD_COUNT; k++) v |= (uint64_t)(dl->fld[k].stale != 0) << k;
    return v;
}

static void g_set_state(fdx_solver *s, int l, uint64_t v)
{
    mg_dlevel *dl = &s->md->dl[l];
    for (int k = 0; k < FLD_COUNT; k++) dl->fld[k].stale = (int)(v >> k & 1);
}

static void g_settle(fdx_solver *s)
{
    mg_dist *md = s->md;
    for (int l = 0; l < md->gather; l++)
        for (int k = 0; k < FLD_COUNT; k++) fresh(&md->dl[l], &md->dl[l].fld[k]);
    mg_dist_unit(md, 0);
}

/* A failure of the captured cycle's calls (kept by keep()) fails the
   capture, not the solve: nothing of it ran. */
static int g_failed(fdx_solver *s)
{
    const int bad = s->md->err != FDX_OK;
    s->md->err = FDX_OK;
    return bad;
}

/* CUDA units of one process (the gathered level reached by box copies,
   not through the host): the whole cycle (every unit's kernels, the
   renewals' copies and the orders between streams) as one graph replayed
   from unit 0's stream. */
static int d_graph_cycle(fdx_solver *s, fdx_solver_cycle c)
{
    mg_dist *md = s->md;
    if (md->stream[0] && md->err != FDX_OK) FDX_DEBUG("multigrid: no CUDA graph: an earlier call of the solve failed");
    if (!md->stream[0] || !md->local || md->err != FDX_OK) return 0;
    /* Neumann or periodic axes: plain launches.  Their cycles renew the
       shadows before each colour and fill the ghost planes on the end
       units, and the graph of that replayed 4-7x slower than the same
       work launched from the host (H100, 129^3, 2 units, every level
       split: 293 ms against 73.6 with FDX_MG_GRAPH=0; periodic 491 ms;
       each graph captured once a solve: not a re-capture; why the replay
       is slow is not known). */
    for (int a = 0; a < md->rank; a++)
        if (md->bc[a] != FDX_BC_DIRICHLET) return 0;
    const mg_graph_hooks h = {.origin = md->stream[0],
                              .relaxed = 1,
                              .fork = g_fork,
                              .join = g_join,
                              .settle = g_settle,
                              .state = g_state,
                              .set_state = g_set_state,
                              .failed = g_failed};
    mg_dist_unit(md, 0);
    return mg_cuda_graph_cycle(s, c, &h);
}

void mg_dist_destroy(fdx_solver *s)
{
    mg_dist *md = s->md;
    if (!md) return;
    if (current == md) current = NULL;
    for (int i = 0; i < md->nu; i++) {
        if (!md->stream[i]) continue;
        fdx_dist_use(md->user, i);
        mg_cuda_event_destroy(md->ev[i]);
        mg_cuda_stream_destroy(md->stream[i]);
    }
    fdx_options_destroy(&md->opts);
    free(md);
    s->md = NULL;
}

void mg_dist_begin(fdx_solver *s)
{
    current = s->md;
    if (!s->md) return;
    s->md->err = FDX_OK;
    mg_dist_enter(s->md);
}
