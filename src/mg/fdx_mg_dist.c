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

   Supported: Dirichlet boundaries on every axis, order 2, constant or
   variable coefficient, every cycle, smoother and CG-MG.  Not: Neumann
   and periodic axes, order 4 (refused at setup). */
#include "comm/fdx_comm.h"
#include "core/fdx_knob.h"
#include "core/fdx_log.h"
#include "mg/fdx_mg_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MG_MAX_UNITS 64

enum { FLD_U, FLD_F, FLD_T, FLD_D, FLD_X, FLD_P, FLD_Q, FLD_COUNT };

/* One field of a distributed level: its array, each local unit's block
   (device memory on CUDA), and whether a kernel wrote it since its
   shadows were last renewed. */
typedef struct mg_dfield {
    fdx_darray *a;
    double *p[MG_MAX_UNITS];
    int stale;
} mg_dfield;

struct mg_dlevel {
    mg_dist *md;
    fdx_dist *d;         /* this level's distribution (NULL below the gathered level) */
    int gathered;        /* solved on one unit; d, loc and stage are its distributed copy for the transfers */
    int width;           /* shadow width on split axes */
    int reach;           /* how far the restriction to the next level reads beyond a unit's part (any unit) */
    mg_level *loc;       /* each local unit's block: unknowns it owns, transfer tables to it from the next level */
    mg_level *ext;       /* the same with the unknowns within `reach` of them (the restriction reads those too) */
    mg_level *swp;       /* one-pass red-black sweeps: the owned unknowns and one more on each split side */
    int64_t (*org)[3];   /* each block's origin (global stored index of local 0) */
    mg_dfield fld[FLD_COUNT];
    mg_dfield stage;     /* the gathered level's distributed copy */
    double *host;        /* CUDA: the gathered level on the host */
};

struct mg_dist {
    fdx_dist *user;       /* the caller's distribution of the fine grid */
    fdx_options *opts;    /* the options it was made with (the levels' distributions too) */
    const mg_ops *base;   /* the units' kernels */
    int nu;               /* local units */
    int gather;           /* the first level solved on one unit */
    void *stream[MG_MAX_UNITS]; /* CUDA: each unit's kernels, in order */
    void *ev[MG_MAX_UNITS];     /* CUDA: the event each unit signals an order with */
    int local;            /* one process whose units reach unit 0's memory: the gathered level by box copies */
    mg_dlevel dl[MG_MAX_LEVELS];
    double *box;          /* CUDA: host staging of one block */
    void *outer;          /* CUDA: this thread's kernel stream before the solver took it (restored after) */
    fdx_status err;       /* the first failure of a kernel-table call (they return nothing) */
};

/* A handle in a level's field pointer (the cycles only pass and swap them). */
#define FLD(a) ((mg_dfield *)(void *)(uintptr_t)(a))
#define HANDLE(f) ((double *)(void *)(f))

static void keep(mg_dist *md, fdx_status st)
{
    if (st != FDX_OK && md->err == FDX_OK) md->err = st;
}

/* Makes local unit i current: its device, and its stream for the kernels. */
static void use(mg_dist *md, int i)
{
    keep(md, fdx_dist_use(md->user, i));
    if (md->stream[i]) mg_cuda_use_stream(md->stream[i]);
}

/* Entering and leaving the solver's work on this thread: the stream the
   thread's one-unit kernels use is put back, and unit 0's device made
   current (another solver on this thread must not launch on a unit's
   stream, which may be another device's). */
static void enter(mg_dist *md)
{
    if (md->stream[0]) md->outer = mg_cuda_current_stream();
}

static void leave(mg_dist *md)
{
    keep(md, fdx_dist_use(md->user, 0));
    if (md->stream[0]) mg_cuda_use_stream(md->outer);
}

/* Units whose block holds unknowns (a part of only boundary points has none). */
#define EACH(dl, i)                                                                                           \
    for (int i = 0; i < (dl)->md->nu; i++)                                                                    \
        if ((dl)->loc[i].unknowns > 0 && (use((dl)->md, i), 1))

/* Stream `waiter` runs what it gets next after what `signaller` has
   queued (signaller: a stream of local unit i). */
static void order(mg_dist *md, void *waiter, void *signaller, int i)
{
    if (md->stream[0]) keep(md, mg_cuda_order(waiter, signaller, md->ev[i]));
}

/* Renews a field's shadows when a kernel wrote it since.  A level on one
   unit of one process has no shadows (its only boundary is the physical
   one): nothing to renew, no call. */
static void fresh(mg_dlevel *dl, mg_dfield *f)
{
    mg_dist *md = dl->md;
    if (!f->stale) return;
    f->stale = 0;
    if (fdx_dist_units(dl->d) == 1) return;
    for (int i = 0; md->stream[0] && i < md->nu; i++) {
        use(md, i);
        order(md, fdx_dist_stream(dl->d, i), md->stream[i], i);
    }
    keep(md, fdx_darray_exchange(f->a));
    for (int i = 0; md->stream[0] && i < md->nu; i++) {
        use(md, i);
        order(md, md->stream[i], fdx_dist_stream(dl->d, i), i);
    }
}

/* The units' sums in unit order, then across ranks. */
static double total(mg_dlevel *dl, const double *part)
{
    double sum = 0;
    for (int i = 0; i < dl->md->nu; i++) sum += part[i];
    keep(dl->md, fdx_dist_sum_doubles(dl->d, &sum, 1));
    return sum;
}

static void zero_all(mg_dlevel *dl, mg_dfield *f)
{
    for (int i = 0; i < dl->md->nu; i++) {
        use(dl->md, i);
        dl->md->base->zero(&dl->loc[i], f->p[i]);
    }
    f->stale = 0;
}

/* Waits for every unit's kernels (before the host reads their blocks). */
static void sync_units(mg_dist *md)
{
    if (!md->stream[0]) return;
    for (int i = 0; i < md->nu; i++) {
        use(md, i);
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
        use(md, i);
        order(md, md->stream[i], md->stream[0], 0);
        md->base->copy_box(B, off, lo, hi, C->m[0], C->m[1], to_level ? stage->p[i] : level,
                           to_level ? level : stage->p[i], to_level);
        order(md, md->stream[0], md->stream[i], i);
    }
    use(md, 0);
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
        use(md, 0);
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
        use(md, 0);
        keep(md, mg_cuda_download(cd->host, src, (size_t)C->count * sizeof(double)));
        g = cd->host;
    }
    for (int i = 0; i < md->nu; i++) {
        const mg_level *B = &cd->loc[i];
        int64_t off[3], lo[3], hi[3];
        for (int a = 0; a < 3; a++) off[a] = -cd->org[i][a], lo[a] = cd->org[i][a], hi[a] = lo[a] + B->m[a];
        use(md, i);
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
    use(L->dl->md, 0);
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

static void d_gs_sweep2(const mg_level *L, const double *u, const double *f, double *out, int first)
{
    mg_dlevel *dl = L->dl;
    if (dl->gathered) {
        base_on(L)->gs_sweep2(L, u, f, out, first);
        return;
    }
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
    zero_all(cd, &cd->stage);
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
        use(fd->md, i);
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
    zero_all(L->dl, FLD(a));
}

static void d_copy(const mg_level *L, double *dst, const double *src)
{
    mg_dlevel *dl = L->dl;
    if (dl->gathered) {
        base_on(L)->copy(L, dst, src);
        return;
    }
    for (int i = 0; i < dl->md->nu; i++) {
        use(dl->md, i);
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
   and level 0's. */
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
        for (int a = 0; a < 3; a++) {
            const int64_t blo = whole || olo[a] > L->lo[a] ? olo[a] : L->lo[a];
            const int64_t bhi = whole || ohi[a] < L->hi[a] ? ohi[a] : L->hi[a];
            lo[a] = blo - uorg[a];
            hi[a] = bhi > blo ? bhi - uorg[a] : lo[a];
            off[a] = uorg[a] - dl->org[i][a];
        }
        const int64_t nx = fdx_array_extent(ua, 0), ny = s->rank > 1 ? fdx_array_extent(ua, 1) : 1;
        double *up = s->gpu ? fdx_array_device(ua) : fdx_array_host(ua);
        use(md, i);
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

/* status() takes no solver: the solve in progress on this thread. */
static __thread mg_dist *current;

static fdx_status d_status(void)
{
    mg_dist *md = current;
    if (!md) return FDX_OK;
    for (int i = 0; i < md->nu; i++) {
        use(md, i);
        keep(md, md->base->status());
    }
    leave(md);
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
        use(md, i);
        order(md, md->stream[i], md->stream[0], 0);
    }
    use(md, 0);
}

static void g_join(fdx_solver *s)
{
    mg_dist *md = s->md;
    for (int i = 1; i < md->nu; i++) {
        use(md, i);
        order(md, md->stream[0], md->stream[i], i);
    }
    use(md, 0);
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
    use(md, 0);
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
    if (!md->stream[0] || !md->local || md->err != FDX_OK) return 0;
    const mg_graph_hooks h = {.origin = md->stream[0],
                              .relaxed = 1,
                              .fork = g_fork,
                              .join = g_join,
                              .settle = g_settle,
                              .state = g_state,
                              .set_state = g_set_state,
                              .failed = g_failed};
    use(md, 0);
    return mg_cuda_graph_cycle(s, c, &h);
}

/* ---- setup ----------------------------------------------------------------- */

/* The smallest part of a split axis (fdx_dist's rule: n / grid). */
static int64_t thinnest(const fdx_dist_desc *d, const int64_t *n)
{
    int64_t t = INT64_MAX;
    for (int a = 0; a < d->rank; a++)
        if (d->grid[a] > 1 && n[a] / d->grid[a] < t) t = n[a] / d->grid[a];
    return t;
}

static fdx_status level_dist(mg_dist *md, const mg_level *L, fdx_dist **out)
{
    fdx_dist_desc d = *fdx_dist_get_desc(md->user);
    for (int a = 0; a < d.rank; a++) {
        d.shape[a] = L->n[a];
        d.shadow[a] = d.grid[a] > 1 ? 1 : 0;
        d.periodic[a] = 0;
    }
    d.corners = 1;
    return fdx_dist_create(md->opts, &d, out);
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* The shadows the transfers between fine level F (distribution df) and
   coarse level C (dc) need, over every unit of the job: the fine one
   (restriction and injection read fine points around a coarse part) and
   the coarse one (prolongation reads coarse points around a fine part). */
static void transfer_needs(int rank, fdx_dist *df, fdx_dist *dc, const mg_level *F, const mg_level *C, int64_t *nf,
                           int64_t *nc)
{
    *nf = *nc = 0;
    for (int u = 0; u < fdx_dist_units(df); u++) {
        int64_t flo[3] = {0}, fhi[3] = {1}, clo[3] = {0}, chi[3] = {1};
        fdx_dist_owned(df, u, flo, fhi);
        fdx_dist_owned(dc, u, clo, chi);
        for (int a = 0; a < rank; a++) {
            const mg_transfer *t = &F->tr[a];
            for (int64_t S = clo[a]; S < chi[a]; S++) {
                if (S >= C->lo[a] && S < C->hi[a])
                    for (int32_t p = t->ptr[S]; p < t->ptr[S + 1]; p++)
                        *nf = max64(*nf, max64(flo[a] - t->idx[p], t->idx[p] - (fhi[a] - 1)));
                const int64_t b = t->b0[S] + (t->bw[S] != 1.0);
                *nf = max64(*nf, max64(flo[a] - t->b0[S], b - (fhi[a] - 1)));
            }
            for (int64_t i = flo[a] > F->lo[a] ? flo[a] : F->lo[a]; i < fhi[a] && i < F->hi[a]; i++)
                *nc = max64(*nc, max64(clo[a] - t->i0[i], t->i1[i] - (chi[a] - 1)));
        }
    }
}

/* Unit i's transfer tables to fine block F (origin fo) from coarse block
   C (origin co) along axis a, from the global ones t: indices shifted into
   the blocks; rows and columns the unit does not compute left empty (or
   clamped into the block). */
static fdx_status local_transfer(const mg_transfer *t, const mg_level *Fg, const mg_level *Cg, const mg_level *F,
                                 const mg_level *C, int64_t fo, int64_t co, const int64_t *own_c, int a,
                                 mg_transfer *out)
{
    const int64_t fe = F->m[a], ce = C->m[a];
    FDX_TRY(mg_transfer_alloc(out, fe, ce));
    for (int64_t x = 0; x < fe; x++) {
        const int64_t G = x + fo, own = x >= F->lo[a] && x < F->hi[a];
        if (G < Fg->lo[a] || G >= Fg->hi[a]) continue;
        const int64_t i0 = t->i0[G] - co, i1 = t->i1[G] - co;
        if (i0 < 0 || i1 >= ce) {
            FDX_CHECK(!own, FDX_ERR_INTERNAL, "multigrid: fine point %lld of axis %d reads coarse points outside its block",
                      (long long)G, a);
            continue;
        }
        out->i0[x] = (int32_t)i0, out->i1[x] = (int32_t)i1, out->w0[x] = t->w0[G], out->w1[x] = t->w1[G];
    }
    int32_t nnz = 0;
    out->span = 0;
    for (int64_t S = 0; S < ce; S++) {
        const int64_t G = S + co;
        out->ptr[S] = nnz;
        if (G >= own_c[0] && G < own_c[1] && G >= Cg->lo[a] && G < Cg->hi[a])
            for (int32_t p = t->ptr[G]; p < t->ptr[G + 1]; p++) {
                const int64_t x = t->idx[p] - fo;
                FDX_CHECK(x >= 0 && x < fe, FDX_ERR_INTERNAL,
                          "multigrid: coarse point %lld of axis %d gathers fine points outside its block", (long long)G, a);
                out->idx[nnz] = (int32_t)x;
                out->w[nnz++] = t->w[p];
            }
        if (nnz - out->ptr[S] > out->span) out->span = nnz - out->ptr[S];
        int64_t b = t->b0[G] - fo;
        if (b > fe - 2) b = fe - 2;
        if (b < 0) b = 0;
        out->b0[S] = (int32_t)b;
        out->bw[S] = t->bw[G];
    }
    out->ptr[ce] = nnz;
    if (out->span == 0) out->span = 1;
    return FDX_OK;
}

static fdx_status add_field(fdx_solver *s, mg_dlevel *dl, mg_dfield *f)
{
    const fdx_dist_desc *dd = fdx_dist_get_desc(dl->d);
    fdx_darray_desc desc = {0};
    desc.type = FDX_FLOAT64;
    desc.own_shadow = 1;
    desc.corners = 1;
    for (int a = 0; a < dd->rank; a++) desc.shadow_lo[a] = desc.shadow_hi[a] = dd->grid[a] > 1 ? dl->width : 0;
    FDX_TRY(fdx_darray_create_desc(dl->d, &desc, &f->a));
    for (int i = 0; i < dl->md->nu; i++) {
        fdx_array *b = fdx_darray_local(f->a, i);
        f->p[i] = s->gpu ? fdx_array_device(b) : fdx_array_host(b);
    }
    return FDX_OK;
}

/* Unit i's block of level l (global geometry G, block array b): extents,
   the unknowns it owns (and in ext, all of the block's), its coefficient. */
static fdx_status local_level(fdx_solver *s, mg_dlevel *dl, const mg_level *G, fdx_darray *b, int i, int with_k)
{
    mg_dist *md = dl->md;
    mg_level *L = &dl->loc[i], *E = &dl->ext[i];
    int64_t olo[3] = {0, 0, 0}, ohi[3] = {1, 1, 1};
    fdx_dist_owned(dl->d, fdx_dist_proc(dl->d) * md->nu + i, olo, ohi);
    fdx_darray_local_origin(b, i, dl->org[i]);
    *L = *G;
    memset(L->tr, 0, sizeof L->tr);
    memset(L->dtr, 0, sizeof L->dtr);
    L->k = L->dk = L->dsum = L->u = L->f = L->t = L->d = NULL;
    L->gs2 = 0;
    L->dl = dl;
    L->unknowns = 1;
    for (int a = 0; a < 3; a++) {
        L->m[a] = a < s->rank ? fdx_array_extent(fdx_darray_local(b, i), a) : 1;
        const int64_t lo = max64(olo[a], G->lo[a]), hi = ohi[a] < G->hi[a] ? ohi[a] : G->hi[a];
        L->lo[a] = lo - dl->org[i][a];
        L->hi[a] = hi > lo ? hi - dl->org[i][a] : L->lo[a];
        L->unknowns *= L->hi[a] - L->lo[a];
    }
    L->sy = L->m[0];
    L->sz = s->rank == 3 ? L->m[0] * L->m[1] : 0;
    L->count = L->m[0] * L->m[1] * L->m[2];
    use(md, i);
    if (with_k && G->k) {
        L->k = malloc((size_t)L->count * sizeof(double));
        FDX_CHECK(L->k, FDX_ERR_NOMEM, "multigrid: out of host memory for a block's coefficient");
        int64_t off[3], lo[3], hi[3];
        for (int a = 0; a < 3; a++) off[a] = -dl->org[i][a], lo[a] = dl->org[i][a], hi[a] = lo[a] + L->m[a];
        mg_copy_box(L, off, lo, hi, G->m[0], G->m[1], G->k, L->k, 0);
        if (s->gpu) {
            FDX_TRY(mg_cuda_alloc((size_t)L->count * sizeof(double), (void **)&L->dk));
            FDX_TRY(mg_cuda_upload(L->dk, L->k, (size_t)L->count * sizeof(double)));
        }
    }
    if (with_k) FDX_TRY(mg_alloc_sums(s, L));
    *E = *L;
    mg_level *W = &dl->swp[i];
    *W = *L;
    W->gs2 = G->gs2;
    for (int a = 0; a < 3; a++) {
        E->lo[a] = max64(0, G->lo[a] - dl->org[i][a]);
        E->hi[a] = G->hi[a] - dl->org[i][a] < L->m[a] ? G->hi[a] - dl->org[i][a] : L->m[a];
        if (L->hi[a] > L->lo[a]) {
            W->lo[a] = max64(E->lo[a], L->lo[a] - 1);
            W->hi[a] = L->hi[a] + 1 < E->hi[a] ? L->hi[a] + 1 : E->hi[a];
            E->lo[a] = max64(E->lo[a], L->lo[a] - dl->reach);
            E->hi[a] = L->hi[a] + dl->reach < E->hi[a] ? L->hi[a] + dl->reach : E->hi[a];
        }
    }
    return FDX_OK;
}

/* Level l's distributed storage: fields (or the gathered level's stage),
   the blocks' geometry. */
static fdx_status build_dlevel(fdx_solver *s, int l)
{
    mg_dist *md = s->md;
    mg_dlevel *dl = &md->dl[l];
    const mg_level *G = &s->lev[l];
    dl->loc = calloc((size_t)md->nu, sizeof *dl->loc);
    dl->ext = calloc((size_t)md->nu, sizeof *dl->ext);
    dl->swp = calloc((size_t)md->nu, sizeof *dl->swp);
    dl->org = calloc((size_t)md->nu, sizeof *dl->org);
    FDX_CHECK(dl->loc && dl->ext && dl->swp && dl->org, FDX_ERR_NOMEM, "multigrid: out of host memory for level %d's blocks", l);
    fdx_darray *first;
    if (dl->gathered) {
        FDX_TRY(add_field(s, dl, &dl->stage));
        first = dl->stage.a;
    } else {
        const int cg = l == 0 && s->method == FDX_SOLVER_CG_MG;
        for (int k = 0; k < FLD_COUNT; k++)
            if (k <= FLD_T || (k == FLD_D && s->smoother == FDX_SMOOTH_CHEBY) || (k >= FLD_X && cg))
                FDX_TRY(add_field(s, dl, &dl->fld[k]));
        first = dl->fld[FLD_U].a;
    }
    for (int i = 0; i < md->nu; i++) FDX_TRY(local_level(s, dl, G, first, i, !dl->gathered));
    for (int k = 0; k < FLD_COUNT; k++)
        if (dl->fld[k].a) zero_all(dl, &dl->fld[k]);
    if (dl->stage.a) zero_all(dl, &dl->stage);
    return md->err;
}

static fdx_status build_transfers(fdx_solver *s, int l)
{
    mg_dist *md = s->md;
    mg_dlevel *fd = &md->dl[l], *cd = &md->dl[l + 1];
    for (int i = 0; i < md->nu; i++) {
        int64_t clo[3] = {0, 0, 0}, chi[3] = {1, 1, 1};
        fdx_dist_owned(cd->d, fdx_dist_proc(cd->d) * md->nu + i, clo, chi);
        for (int a = 0; a < 3; a++) {
            const int64_t own[2] = {clo[a], chi[a]};
            FDX_TRY(local_transfer(&s->lev[l].tr[a], &s->lev[l], &s->lev[l + 1], &fd->loc[i], &cd->loc[i],
                                   fd->org[i][a], cd->org[i][a], own, a, &fd->loc[i].tr[a]));
            if (s->gpu) {
                use(md, i);
                FDX_TRY(mg_cuda_upload_transfer(&fd->loc[i].tr[a], &fd->loc[i].dtr[a], fd->loc[i].m[a],
                                                cd->loc[i].m[a]));
            }
            fd->ext[i].tr[a] = fd->loc[i].tr[a];
            fd->ext[i].dtr[a] = fd->loc[i].dtr[a];
        }
    }
    return FDX_OK;
}

fdx_status mg_dist_build(fdx_solver *s)
{
    mg_dist *md = s->md;
    const int units = fdx_dist_units(md->user);
    for (int a = 0; a < s->rank; a++)
        FDX_CHECK(s->bc[a] == FDX_BC_DIRICHLET, FDX_ERR_UNSUPPORTED,
                  "multigrid on %d units: axis %d is %s; distributed levels take Dirichlet boundaries only", units, a,
                  fdx_solver_bc_name(s->bc[a]));
    FDX_CHECK(s->order == 2, FDX_ERR_UNSUPPORTED, "multigrid on %d units: order 4 runs on one unit only", units);
    FDX_TRY(mg_build_geometry(s));
    enter(md);
    const fdx_dist_desc *ud = fdx_dist_get_desc(md->user);
    FDX_CHECK(s->nlev >= 2 && thinnest(ud, s->lev[1].n) >= 1, FDX_ERR_INVALID,
              "multigrid on %d units: the grid %lldx%lldx%lld is too small to split (its first coarse level needs "
              "a point on every unit)",
              units, (long long)s->shape[0], (long long)s->shape[1], (long long)s->shape[2]);
    /* The first level gathered onto one unit: the first below the size,
       the coarsest at the latest, and no later than the first whose parts
       are thinner than the transfers' shadows. */
    const char *gk = fdx_knob(FDX_KNOB_MG_GATHER);
    /* CUDA: 262144 (on 2 H200s 513^3 solved 2% faster gathering at 65^3,
       and never slower on one H100: the small levels' kernels are
       latency-bound, so splitting them only adds renewals) */
    const int64_t per = gk ? atoll(gk) : s->gpu ? 262144 : 32768;
    int g = 1;
    while (g < s->nlev - 1 && s->lev[g].unknowns >= per * units && thinnest(ud, s->lev[g + 1].n) >= 1) g++;
    fdx_dist *dd[MG_MAX_LEVELS] = {NULL};
    fdx_status st = FDX_OK;
    int64_t width[MG_MAX_LEVELS], reach[MG_MAX_LEVELS] = {0};
    for (int l = 0; l <= g; l++) FDX_TRY_GOTO(st, level_dist(md, &s->lev[l], &dd[l]), done);
    /* the one-pass sweeps read two points into the shadows */
    const int sweep = s->fused_gs && s->smoother == FDX_SMOOTH_RBGS;
    for (;;) {
        for (int l = 0; l <= g; l++) width[l] = sweep && l < g ? 2 : 1;
        for (int l = 0; l < g; l++) {
            int64_t nf, nc;
            transfer_needs(s->rank, dd[l], dd[l + 1], &s->lev[l], &s->lev[l + 1], &nf, &nc);
            /* the one-pass residual+restriction computes the residual
               where the restriction reads: u one point beyond */
            reach[l] = nf;
            width[l] = max64(width[l], nf + (s->fuse && nf > 0));
            width[l + 1] = max64(width[l + 1], nc);
        }
        int bad = -1;
        for (int l = 0; l <= g && bad < 0; l++)
            if (width[l] > thinnest(ud, s->lev[l].n)) bad = l;
        if (bad < 0) break;
        FDX_TRY_GOTO(st,
                     bad >= 2 ? FDX_OK
                              : fdx_fail(FDX_ERR_INVALID,
                                         "multigrid on %d units: level %d (%lld points on an axis) is split into "
                                         "parts thinner than the %lld-point shadows its transfers need",
                                         units, bad, (long long)s->lev[bad].n[s->rank - 1], (long long)width[bad]),
                     done);
        g = bad - 1;
    }
    md->gather = g;
    FDX_DEBUG("multigrid on %d units: %d levels, levels 0..%d distributed (shadows %lld, %lld%s), %d.. on one unit",
              units, s->nlev, g - 1, (long long)width[0], (long long)width[g > 1 ? 1 : 0], g > 2 ? ", ..." : "", g);
    for (int l = 0; l < s->nlev; l++) {
        mg_dlevel *dl = &md->dl[l];
        dl->md = md;
        dl->gathered = l >= g;
        dl->d = l <= g ? dd[l] : NULL;
        dd[l] = NULL;
        dl->width = l <= g ? (int)width[l] : 0;
        dl->reach = l < g ? (int)reach[l] : 0;
        s->lev[l].dl = dl;
    }
    for (int l = 0; l <= g; l++) FDX_TRY_GOTO(st, build_dlevel(s, l), done);
    for (int l = 0; l < g; l++) FDX_TRY_GOTO(st, build_transfers(s, l), done);
    for (int l = 0; l < g; l++) {
        mg_dlevel *dl = &md->dl[l];
        s->lev[l].u = HANDLE(&dl->fld[FLD_U]);
        s->lev[l].f = HANDLE(&dl->fld[FLD_F]);
        s->lev[l].t = HANDLE(&dl->fld[FLD_T]);
        s->lev[l].d = dl->fld[FLD_D].a ? HANDLE(&dl->fld[FLD_D]) : NULL;
    }
    if (md->dl[0].fld[FLD_X].a) {
        s->x = HANDLE(&md->dl[0].fld[FLD_X]);
        s->p = HANDLE(&md->dl[0].fld[FLD_P]);
        s->q = HANDLE(&md->dl[0].fld[FLD_Q]);
    }
    /* the gathered level by box copies between the units' memory (else
       through the host, and across ranks by the darray's gather) */
    mg_dlevel *gd = &md->dl[g];
    md->local = fdx_dist_procs(md->user) == 1;
    for (int i = 1; s->gpu && i < md->nu; i++)
        if (!mg_cuda_reaches(gd->stage.p[i], gd->stage.p[0])) md->local = 0;
    if (s->gpu && !md->local) {
        mg_dlevel *cd = gd;
        int64_t most = 1;
        for (int i = 0; i < md->nu; i++) most = max64(most, cd->loc[i].count);
        cd->host = malloc((size_t)s->lev[g].count * sizeof(double));
        md->box = malloc((size_t)most * sizeof(double));
        FDX_TRY_GOTO(st,
                     cd->host && md->box ? FDX_OK
                                         : fdx_fail(FDX_ERR_NOMEM, "multigrid: out of host memory for the gathered level"),
                     done);
    }
    use(md, 0); /* the gathered levels live on unit 0 */
    FDX_TRY_GOTO(st, mg_build_storage(s, g), done);
    st = md->err;
    md->err = FDX_OK;
done:
    leave(md);
    md->err = FDX_OK;
    for (int l = 0; l < MG_MAX_LEVELS; l++) fdx_dist_destroy(&dd[l]);
    return st;
}

void mg_dist_free_levels(fdx_solver *s)
{
    mg_dist *md = s->md;
    enter(md);
    for (int l = 0; l < MG_MAX_LEVELS; l++) {
        mg_dlevel *dl = &md->dl[l];
        for (int k = 0; k < FLD_COUNT; k++) fdx_darray_destroy(&dl->fld[k].a);
        fdx_darray_destroy(&dl->stage.a);
        for (int i = 0; dl->loc && i < md->nu; i++) {
            mg_level *L = &dl->loc[i];
            use(md, i);
            for (int a = 0; a < 3; a++) {
                mg_transfer_free(&L->tr[a]);
                if (s->gpu) mg_cuda_free_transfer(&L->dtr[a]);
            }
            free(L->k);
            if (s->gpu) {
                mg_cuda_free(L->dk);
                mg_cuda_free(L->dsum);
            }
        }
        free(dl->loc);
        free(dl->ext);
        free(dl->swp);
        free(dl->org);
        free(dl->host);
        fdx_dist_destroy(&dl->d);
        if (l < md->gather) s->lev[l].u = s->lev[l].f = s->lev[l].t = s->lev[l].d = NULL;
        s->lev[l].dl = NULL;
        memset(dl, 0, sizeof *dl);
    }
    if (md->gather > 0) s->x = s->p = s->q = NULL;
    free(md->box);
    md->box = NULL;
    md->gather = 0;
    leave(md); /* unit 0's device: mg_free_levels frees the gathered levels there */
    md->err = FDX_OK;
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

/* ---- the public entry points ---------------------------------------------- */

fdx_status fdx_solver_create_dist(const fdx_options *opts, fdx_dist *d, fdx_solver **out)
{
    FDX_CHECK(out, FDX_ERR_INVALID, "fdx_solver_create_dist: out is NULL");
    *out = NULL;
    FDX_CHECK(d, FDX_ERR_INVALID, "fdx_solver_create_dist: the distribution is NULL");
    const fdx_dist_desc *dd = fdx_dist_get_desc(d);
    FDX_CHECK(fdx_dist_local_units(d) <= MG_MAX_UNITS, FDX_ERR_INVALID,
              "multigrid: %d units in one process (at most %d)", fdx_dist_local_units(d), MG_MAX_UNITS);
    for (int a = 0; a < dd->rank; a++)
        FDX_CHECK(!dd->periodic[a], FDX_ERR_UNSUPPORTED,
                  "multigrid: the distribution's axis %d is periodic; distributed levels take Dirichlet boundaries only",
                  a);
    fdx_solver *s = NULL;
    FDX_TRY(fdx_solver_create(fdx_dist_ctx(d, 0), dd->rank, dd->shape, &s));
    fdx_status st = FDX_OK;
    mg_dist *md = calloc(1, sizeof *md);
    FDX_TRY_GOTO(st, md ? FDX_OK : fdx_fail(FDX_ERR_NOMEM, "out of host memory for a distributed solver"), fail);
    s->md = md;
    md->user = d;
    md->base = s->ops;
    md->nu = fdx_dist_local_units(d);
    s->ops = &DIST_OPS;
    /* the options the distribution was made with: each level's own takes them */
    FDX_TRY_GOTO(st, fdx_options_create(&md->opts), fail);
    for (int i = 0; opts && i < fdx_options_count(); i++) {
        const char *name, *env, *def, *help;
        fdx_options_describe(i, &name, &env, &def, &help);
        const char *v = fdx_options_get(opts, name);
        if (v) FDX_TRY_GOTO(st, fdx_options_set(md->opts, name, v), fail);
    }
    for (int i = 0; s->gpu && i < md->nu; i++) {
        FDX_TRY_GOTO(st, fdx_dist_use(d, i), fail);
        FDX_TRY_GOTO(st, mg_cuda_stream_create(&md->stream[i]), fail);
        FDX_TRY_GOTO(st, mg_cuda_event_create(&md->ev[i]), fail);
    }
    *out = s;
    return FDX_OK;
fail:
    fdx_solver_destroy(&s);
    return st;
}

int fdx_solver_distributed_levels(const fdx_solver *s) { return s && s->md && s->ready ? s->md->gather : 0; }

fdx_status mg_dist_check(const fdx_solver *s, fdx_darray *a, const char *what)
{
    FDX_CHECK(s->md, FDX_ERR_INVALID, "multigrid: fdx_solver_solve_dist on a solver of one unit (fdx_solver_solve)");
    FDX_CHECK(a, FDX_ERR_INVALID, "multigrid: %s is NULL", what);
    for (int i = 0; i < s->md->nu; i++) {
        fdx_array *b = fdx_darray_local(a, i);
        FDX_CHECK(b && fdx_array_ctx(b) == fdx_dist_ctx(s->md->user, i), FDX_ERR_INVALID,
                  "multigrid: %s is not an array of the solver's distribution", what);
        FDX_CHECK(fdx_array_dtype(b) == FDX_FLOAT64 && fdx_array_rank(b) == s->rank, FDX_ERR_INVALID,
                  "multigrid: %s is %s of rank %d, not double of rank %d", what, fdx_dtype_name(fdx_array_dtype(b)),
                  fdx_array_rank(b), s->rank);
    }
    return FDX_OK;
}

void mg_dist_begin(fdx_solver *s)
{
    current = s->md;
    if (!s->md) return;
    s->md->err = FDX_OK;
    enter(s->md);
}
