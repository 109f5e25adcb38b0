/* fdx_mg_dist_setup: a distributed multigrid solver's levels (each level's
   distribution, its blocks' geometry and transfer tables, the shadow widths
   the transfers need, the gathered levels) and its public entry points.
   What the levels are for: fdx_mg_dist.c. */
#include "core/fdx_knob.h"
#include "core/fdx_log.h"
#include "mg/fdx_mg_dist_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- setup ----------------------------------------------------------------- */

/* The smallest part of a split axis (fdx_dist's rule: n / grid). */
static int64_t thinnest(const fdx_dist_desc *d, const int64_t *n)
{
    int64_t t = INT64_MAX;
    for (int a = 0; a < d->rank; a++)
        if (d->grid[a] > 1 && n[a] / d->grid[a] < t) t = n[a] / d->grid[a];
    return t;
}

/* Level L's distribution: its stored grid (the ghost planes of Neumann and
   periodic axes included, global index = stored index), split as the
   caller's grid is: the caller's parts of the unknowns, the ghosts added to
   the end parts (so level 0's blocks hold what the caller's blocks hold).
   A split periodic axis wraps in the exchange (fdx_dist's periodic frame of
   one point: the ghosts are renewed from the far end's unknowns); the other
   ghosts are filled on the blocks (fdx_mg_dist.c fill_ghosts). */
static fdx_status level_dist(mg_dist *md, const fdx_solver *s, const mg_level *L, fdx_dist **out)
{
    fdx_dist_desc d = *fdx_dist_get_desc(md->user);
    int64_t frame[FDX_DIST_MAX_RANK] = {0, 0, 0};
    for (int a = 0; a < d.rank; a++) {
        frame[a] = (L->m[a] - L->n[a]) / 2;
        d.shape[a] = L->m[a];
        d.shadow[a] = d.grid[a] > 1 ? 1 : 0;
        d.periodic[a] = d.grid[a] > 1 && s->bc[a] == FDX_BC_PERIODIC ? 1 : 0;
    }
    d.corners = 1;
    return fdx_dist_create_framed(md->opts, &d, frame, out);
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* A split periodic axis (wrap 1) of stored extent m: the restriction of
   the first coarse unknown gathers the last fine unknown (m - 2: the
   interpolation of the fine points past the last coarse unknown reads the
   coarse ghost, which is the first unknown), across the whole axis.  Its
   image, the fine ghost 0 (renewed from m - 2 by the exchange's wrap), is
   on the first unit: the fine index x or its image, whichever is nearer
   to the range [lo, hi). */
static int64_t near_image(int64_t x, int64_t m, int wrap, int64_t lo, int64_t hi)
{
    if (!wrap || (x >= lo && x < hi)) return x;
    const int64_t y = x == m - 2 ? 0 : x == 1 ? m - 1 : x;
    const int64_t dx = x < lo ? lo - x : x - (hi - 1), dy = y < lo ? lo - y : y >= hi ? y - (hi - 1) : 0;
    return dy < dx ? y : x;
}

/* A periodic axis split over units: its restriction reads across the
   wrap (near_image). */
static int wrap_axis(const fdx_solver *s, int a)
{
    return s->bc[a] == FDX_BC_PERIODIC && fdx_dist_get_desc(s->md->user)->grid[a] > 1;
}

/* The shadows the transfers between fine level F (distribution df) and
   coarse level C (dc) need, over every unit of the job: the fine one
   (restriction and injection read fine points around a coarse part) and
   the coarse one (prolongation reads coarse points around a fine part). */
static void transfer_needs(int rank, const int *wrap, fdx_dist *df, fdx_dist *dc, const mg_level *F, const mg_level *C,
                           int64_t *nf, int64_t *nc)
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
                    for (int32_t p = t->ptr[S]; p < t->ptr[S + 1]; p++) {
                        const int64_t x = near_image(t->idx[p], F->m[a], wrap[a], flo[a], fhi[a]);
                        *nf = max64(*nf, max64(flo[a] - x, x - (fhi[a] - 1)));
                    }
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
                                 const mg_level *C, int64_t fo, int64_t co, const int64_t *own_c, int a, int wrap,
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
                const int64_t x = near_image(t->idx[p], Fg->m[a], wrap, fo, fo + fe) - fo; /* the same order */
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
    mg_dist_unit(md, i);
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
        /* the restriction's fine points: unknowns, and on a wrapped axis
           the ghost that stands for the last unknown (near_image) */
        const int w = a < s->rank && wrap_axis(s, a);
        const int64_t glo = w ? 0 : G->lo[a], ghi = w ? G->m[a] : G->hi[a];
        E->lo[a] = max64(0, glo - dl->org[i][a]);
        E->hi[a] = ghi - dl->org[i][a] < L->m[a] ? ghi - dl->org[i][a] : L->m[a];
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
            if (k <= FLD_T || (k == FLD_D && s->smoother == FDX_SMOOTH_CHEBY) || (k >= FLD_X && (cg || (l == 0 && s->order == 4))))
                FDX_TRY(add_field(s, dl, &dl->fld[k]));
        first = dl->fld[FLD_U].a;
    }
    for (int i = 0; i < md->nu; i++) FDX_TRY(local_level(s, dl, G, first, i, !dl->gathered));
    for (int k = 0; k < FLD_COUNT; k++)
        if (dl->fld[k].a) mg_dist_zero(dl, &dl->fld[k]);
    if (dl->stage.a) mg_dist_zero(dl, &dl->stage);
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
                                   fd->org[i][a], cd->org[i][a], own, a, a < s->rank && wrap_axis(s, a), &fd->loc[i].tr[a]));
            if (s->gpu) {
                mg_dist_unit(md, i);
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
    md->rank = s->rank;
    for (int a = 0; a < 3; a++) md->bc[a] = s->bc[a];
    FDX_TRY(mg_build_geometry(s));
    mg_dist_enter(md);
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
    for (int l = 0; l <= g; l++) FDX_TRY_GOTO(st, level_dist(md, s, &s->lev[l], &dd[l]), done);
    const int sweep = s->fused_gs && s->smoother == FDX_SMOOTH_RBGS;
    int wrap[3] = {0, 0, 0}, wrapped = 0;
    for (int a = 0; a < s->rank; a++) wrapped |= wrap[a] = wrap_axis(s, a);
    for (;;) {
        /* the one-pass sweeps and the fourth-order residual (level 0)
           read two points into the shadows */
        for (int l = 0; l <= g; l++) width[l] = (sweep && l < g) || (l == 0 && s->order == 4) ? 2 : 1;
        for (int l = 0; l < g; l++) {
            int64_t nf, nc;
            transfer_needs(s->rank, wrap, dd[l], dd[l + 1], &s->lev[l], &s->lev[l + 1], &nf, &nc);
            /* the one-pass residual+restriction computes the residual
               where the restriction reads: u one point beyond (not with
               a wrap: d_resrestrict runs two passes there) */
            reach[l] = nf;
            width[l] = max64(width[l], nf + (s->fuse && !wrapped && nf > 0));
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
        dl->G = &s->lev[l];
        dl->gathered = l >= g;
        dl->d = l <= g ? dd[l] : NULL;
        if (l <= g) dd[l] = NULL; /* the finer ones a thin level gave up: freed below */
        dl->width = l <= g ? (int)width[l] : 0;
        dl->reach = l < g ? (int)reach[l] : 0;
        dl->wrapped = wrapped;
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
    mg_dist_unit(md, 0); /* the gathered levels live on unit 0 */
    FDX_TRY_GOTO(st, mg_build_storage(s, g), done);
    st = md->err;
    md->err = FDX_OK;
done:
    mg_dist_leave(md);
    md->err = FDX_OK;
    for (int l = 0; l < MG_MAX_LEVELS; l++) fdx_dist_destroy(&dd[l]);
    return st;
}

void mg_dist_free_levels(fdx_solver *s)
{
    mg_dist *md = s->md;
    mg_dist_enter(md);
    for (int l = 0; l < MG_MAX_LEVELS; l++) {
        mg_dlevel *dl = &md->dl[l];
        for (int k = 0; k < FLD_COUNT; k++) fdx_darray_destroy(&dl->fld[k].a);
        fdx_darray_destroy(&dl->stage.a);
        for (int i = 0; dl->loc && i < md->nu; i++) {
            mg_level *L = &dl->loc[i];
            mg_dist_unit(md, i);
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
    mg_dist_leave(md); /* unit 0's device: mg_free_levels frees the gathered levels there */
    md->err = FDX_OK;
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
                  "multigrid: the distribution's axis %d has a periodic frame; the solver's grid is the unknowns "
                  "(give a distribution without frames and fdx_solver_set_bc(s, %d, FDX_BC_PERIODIC))",
                  a, a);
    fdx_solver *s = NULL;
    FDX_TRY(fdx_solver_create(fdx_dist_ctx(d, 0), dd->rank, dd->shape, &s));
    fdx_status st = FDX_OK;
    mg_dist *md = calloc(1, sizeof *md);
    FDX_TRY_GOTO(st, md ? FDX_OK : fdx_fail(FDX_ERR_NOMEM, "out of host memory for a distributed solver"), fail);
    s->md = md;
    md->user = d;
    md->base = s->ops;
    md->nu = fdx_dist_local_units(d);
    s->ops = mg_dist_ops();
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
