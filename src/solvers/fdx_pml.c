/* fdx_pml: the PML's state, coefficient tables and two passes: OpenMP loops
   here for the CPU backend, dispatch to fdx_pml_cuda.cu for CUDA. */
#include "solvers/fdx_pml.h"

#include "backends/fdx_backend.h"
#include "core/fdx_knob.h"
#include "fdx/stencil.h"
#include "solvers/fdx_fieldops.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/fdx_pml_point.h"

struct fdx_pml {
    fdx_ctx *ctx;
    const fdx_backend *be;
    fdx_dtype type;
    fdx_pml_desc d;
    fdx_pml_job job;
    void *aux, *tab; /* backend memory: the memory variables, the coefficients */
    int64_t count;   /* elements of the state: psi_a and zeta_a of every axis, the checkpoint's layout */
    int64_t total;   /* elements of aux: the state, then the fused pass's second psi of every axis */
    long long psi1[3], psi2[3]; /* offsets of axis a's two psi buffers (the first is the state's) */
    int flip;          /* fused pass: 1 when the current psi is in the second buffer */
    long long npsi, nterm; /* points of pass 1 and of the strips */
};

void fdx_pml_profile(const fdx_pml_desc *d, int a, double x, double *damp, double *shift)
{
    int m = d->width - d->r;
    double lo = (double)(d->r - 1 + m) - x, hi = x - (double)(d->n[a] - d->r - m);
    double xi = (lo > hi ? lo : hi) / m;
    *damp = *shift = 0;
    if (xi <= 0) return;
    if (xi > 1) xi = 1;
    double d0 = (d->power + 1) * d->cmax * log(1 / d->r0) / (2 * m * d->h);
    *damp = d0 * pow(xi, d->power);
    *shift = d->alpha_max * (1 - xi);
}

double fdx_pml_default_r0(int m)
{
    double e = 2 + m / 3.0;
    return pow(10, -(e < 12 ? e : 12));
}

/* The recursive convolution's b = exp(-(d + alpha) dt) and a = d (b - 1) / (d + alpha). */
static void coefs(const fdx_pml_desc *d, int a, double x, double *b, double *c)
{
    double damp, shift;
    fdx_pml_profile(d, a, x, &damp, &shift);
    *b = exp(-(damp + shift) * d->dt);
    *c = damp > 0 ? damp * (*b - 1) / (damp + shift) : 0;
}

/* A block: inside the grid, and along each axis it does not span either
   clear of the layer's reach or holding it whole with room for the
   neighbour's shadow (r points), which steps its shadow's points as this
   block does: a point of the layer with its psi, D-psi or zeta in another
   unit would need the memory exchanged. */
static fdx_status check_block(const fdx_pml_desc *d)
{
    int whole = d->extent[0] == 0 && d->extent[1] == 0 && d->extent[2] == 0;
    if (whole) return FDX_OK;
    long long reach = d->width + d->r - 1; /* the first point past every term: 2r + m - 1 */
    for (int a = 0; a < d->rank; a++) {
        long long o = d->origin[a], e = d->extent[a], n = d->n[a];
        FDX_CHECK(o >= 0 && e > 0 && o + e <= n, FDX_ERR_INVALID, "pml: block %lld..%lld of axis %d outside 0..%lld",
                  o, o + e - 1, a, n - 1);
        if (e == n) continue;
        int lo = o == 0, hi = o + e == n;
        long long need = reach + 2LL * d->r; /* the layer, then the neighbour's shadow before it */
        FDX_CHECK(!(lo && e < need) && !(hi && e < need) && (lo || hi || (o >= reach && o + e <= n - reach)),
                  FDX_ERR_INVALID,
                  "pml: a unit holds points %lld..%lld of axis %d; a %d-cell layer at order %d needs the units at "
                  "its faces to hold %lld points each (fewer units or a longer axis)",
                  o, o + e - 1, a, d->width, 2 * d->r, need - d->r);
    }
    return FDX_OK;
}

fdx_status fdx_pml_check(const fdx_pml_desc *d)
{
    FDX_CHECK(d->rank == 2 || d->rank == 3, FDX_ERR_INVALID, "pml: rank %d (2 or 3)", d->rank);
    FDX_CHECK(d->r >= 1 && d->r <= FDX_PML_MAX_R, FDX_ERR_INVALID, "pml: stencil radius %d (1..%d)", d->r,
              FDX_PML_MAX_R);
    FDX_CHECK(d->width >= d->r + 2, FDX_ERR_INVALID,
              "pml: a width of %d cells leaves fewer than 2 damped cells inside the %d frame layers (give at least %d)",
              d->width, d->r, d->r + 2);
    for (int a = 0; a < d->rank; a++)
        FDX_CHECK(2LL * d->width < d->n[a], FDX_ERR_INVALID,
                  "pml: %d cells on both sides leave nothing of axis %d (%lld points)", d->width, a, (long long)d->n[a]);
    FDX_CHECK(isfinite(d->h) && d->h > 0 && isfinite(d->dt) && d->dt > 0 && isfinite(d->cmax) && d->cmax > 0,
              FDX_ERR_INVALID, "pml: spacing %g, time step %g and speed %g must be finite and > 0", d->h, d->dt, d->cmax);
    FDX_CHECK(d->r0 > 0 && d->r0 < 1, FDX_ERR_INVALID, "pml: target reflection %g (0 < R0 < 1)", d->r0);
    FDX_CHECK(d->power >= 1 && d->power <= 4, FDX_ERR_INVALID, "pml: profile power %d (1..4)", d->power);
    FDX_CHECK(isfinite(d->alpha_max) && d->alpha_max >= 0, FDX_ERR_INVALID, "pml: frequency shift %g (finite, >= 0)",
              d->alpha_max);
    return check_block(d);
}

/* The geometry in the block's indices: the slabs' positions, the term-free
   zone, the unknowns, and the strips as disjoint boxes: for axis a its two
   strips, across the axes before a only the zone (the strips of those axes
   have their own boxes), across the later axes all the unknowns.  The state
   (psi_a, zeta_a per axis) comes first in aux, the fused pass's second psi
   of every axis after it. */
static fdx_status make_job(const fdx_pml_desc *d, int cuda, fdx_pml *p)
{
    fdx_pml_job *J = &p->job;
    memset(J, 0, sizeof *J);
    J->rank = d->rank, J->r = d->r, J->m = d->width - d->r;
    /* The fused pass on CUDA (one pass over the strips' memory instead of
       two); the two passes on the CPU, where recomputing 2r values of psi
       a point costs more than a second pass (1.5x the layer's time,
       docs/notes/apps.md).  FDX_PML_TWOPASS=1 or 0 takes either anywhere. */
    J->fused = fdx_knob(FDX_KNOB_PML_TWOPASS) ? fdx_knob_is(FDX_KNOB_PML_TWOPASS, "0") : cuda;
    int r = d->r, m = J->m, whole = d->extent[0] == 0 && d->extent[1] == 0 && d->extent[2] == 0;
    long long reach = r + m - 1, org[3] = {0, 0, 0};
    for (int a = 0; a < 3; a++) {
        J->n[a] = a >= d->rank ? 1 : whole ? d->n[a] : d->extent[a];
        org[a] = a < d->rank && !whole ? d->origin[a] : 0;
    }
    J->st[0] = 1, J->st[1] = J->n[0], J->st[2] = J->n[0] * J->n[1];
    for (int a = 0; a < 3; a++) {
        long long n = a < d->rank ? d->n[a] : 1;
        J->ulo[a] = a < d->rank ? (r - org[a] > 0 ? r - org[a] : 0) : 0;
        J->uhi[a] = a < d->rank ? (n - r - org[a] < J->n[a] ? n - r - org[a] : J->n[a]) : 1;
        J->pos[a][0] = r - 1 - org[a], J->pos[a][1] = n - r - m - org[a];
        J->zone[a][0] = r + reach - org[a], J->zone[a][1] = n - r - reach - org[a];
    }
    long long off = 0;
    p->npsi = 0;
    for (int a = 0; a < d->rank; a++) {
        long long e[3] = {J->n[0], J->n[1], J->n[2]};
        e[a] = 2 * m;
        J->sst[a][0] = 1, J->sst[a][1] = e[0], J->sst[a][2] = e[0] * e[1];
        /* A block with no strip of axis a (the middle of a split axis) keeps no memory of it. */
        int has = J->pos[a][0] + m > 0 || J->pos[a][1] < J->n[a];
        long long size = has ? e[0] * e[1] * e[2] : 0;
        J->psi[a] = off, J->zeta[a] = off + size;
        off += 2 * size;
        J->npsi[a] = has ? 2LL * m : 0;
        for (int b = 0; b < 3; b++)
            if (b != a) J->npsi[a] *= J->uhi[b] > J->ulo[b] ? J->uhi[b] - J->ulo[b] : 0;
        p->npsi += J->npsi[a];
    }
    p->count = off;
    for (int a = 0; a < d->rank; a++) {
        p->psi1[a] = J->psi[a], p->psi2[a] = off;
        off += J->zeta[a] - J->psi[a];
    }
    p->total = J->fused ? off : p->count;
    /* FDX_PML_INDEX64 takes the 64-bit variant anyway (the tests check both). */
    J->i32 = p->total <= INT32_MAX && J->n[0] * J->n[1] * J->n[2] <= INT32_MAX && !fdx_knob(FDX_KNOB_PML_INDEX64);
    long long end = 0;
    for (int a = 0; a < d->rank; a++)
        for (int side = 0; side < 2; side++) {
            long long lo[3], hi[3], pts = 1;
            for (int b = 0; b < 3; b++) {
                lo[b] = J->ulo[b], hi[b] = J->uhi[b];
                if (b < a) {
                    if (J->zone[b][0] > lo[b]) lo[b] = J->zone[b][0];
                    if (J->zone[b][1] < hi[b]) hi[b] = J->zone[b][1];
                }
            }
            long long mid = J->zone[a][0] < J->uhi[a] ? J->zone[a][0] : J->uhi[a];
            if (side == 0) hi[a] = mid;
            else lo[a] = J->zone[a][1] > mid ? J->zone[a][1] : mid;
            for (int b = 0; b < 3; b++) pts *= hi[b] > lo[b] ? hi[b] - lo[b] : 0;
            if (pts == 0) continue;
            memcpy(J->box_lo[J->nbox], lo, sizeof lo);
            memcpy(J->box_hi[J->nbox], hi, sizeof hi);
            end += pts;
            J->box_end[J->nbox++] = end;
        }
    p->nterm = end;
    double w2[2 * FDX_PML_MAX_R + 1], x[2 * FDX_PML_MAX_R], ws[2 * FDX_PML_MAX_R];
    FDX_TRY(fdx_fd_weights(2, 2 * r, w2));
    for (int k = 0; k <= r; k++) J->w2[k] = w2[r + k] / (d->h * d->h);
    /* Staggered first derivative at 0 from the 2r half points -r+1/2 .. r-1/2. */
    for (int k = 0; k < 2 * r; k++) x[k] = k - r + 0.5;
    FDX_TRY(fdx_fornberg_weights(1, 0.0, 2 * r, x, ws));
    for (int k = 1; k <= r; k++) J->ws[k] = ws[r - 1 + k] / d->h;
    J->alpha = d->dt * d->dt;
    return FDX_OK;
}

static void pml_free(fdx_pml *p)
{
    if (p->aux) p->be->free(p->aux);
    if (p->tab) p->be->free(p->tab);
    free(p);
}

fdx_status fdx_pml_create(fdx_ctx *ctx, fdx_dtype type, const fdx_pml_desc *d, fdx_pml **out)
{
    FDX_CHECK(out, FDX_ERR_INVALID, "fdx_pml_create: out is NULL");
    *out = NULL;
    FDX_CHECK(ctx && d, FDX_ERR_INVALID, "fdx_pml_create: %s is NULL", ctx ? "the description" : "the context");
    FDX_CHECK(type == FDX_FLOAT32 || type == FDX_FLOAT64, FDX_ERR_INVALID, "pml: element type %d (float or double)",
              (int)type);
    FDX_TRY(fdx_pml_check(d));
    fdx_pml *p = calloc(1, sizeof *p);
    FDX_CHECK(p, FDX_ERR_NOMEM, "no memory for a PML");
    p->ctx = ctx, p->be = fdx_ctx_ops(ctx), p->type = type, p->d = *d;
    fdx_status st = make_job(d, fdx_ctx_backend(ctx) == FDX_BACKEND_CUDA, p);
    size_t es = fdx_dtype_size(type), ntab = (size_t)8 * (size_t)p->job.m * (size_t)d->rank;
    double *tab = st == FDX_OK ? malloc(ntab * sizeof(double)) : NULL;
    if (st == FDX_OK && !tab) st = fdx_fail(FDX_ERR_NOMEM, "no memory for the PML's coefficients");
    for (int a = 0; st == FDX_OK && a < d->rank; a++) {
        int m = p->job.m;
        double *t = tab + 8 * m * a;
        for (int s = 0; s < 2 * m; s++) {
            double x = s < m ? d->r - 1 + s : (double)(d->n[a] - d->r - m + (s - m));
            coefs(d, a, x + 0.5, &t[s], &t[2 * m + s]);
            coefs(d, a, x, &t[4 * m + s], &t[6 * m + s]);
        }
    }
    /* The tables in the run's element type, as the kernels read them. */
    if (st == FDX_OK && type == FDX_FLOAT32)
        for (size_t i = 0; i < ntab; i++) ((float *)tab)[i] = (float)tab[i];
    if (st == FDX_OK) st = p->be->alloc(ntab * es, &p->tab);
    if (st == FDX_OK) st = p->be->copy(p->tab, tab, ntab * es, FDX_COPY_H2D, NULL);
    /* At least one element: a block of a split axis's middle with no strip
       of any axis still gets a valid pointer. */
    size_t bytes = (size_t)(p->total > 0 ? p->total : 1) * es;
    if (st == FDX_OK) st = p->be->alloc(bytes, &p->aux);
    if (st == FDX_OK) st = p->be->memset(p->aux, 0, bytes, NULL);
    if (st == FDX_OK) st = p->be->stream_sync(NULL);
    free(tab);
    if (st != FDX_OK) {
        pml_free(p);
        return st;
    }
    *out = p;
    return FDX_OK;
}

void fdx_pml_destroy(fdx_pml **pp)
{
    if (!pp || !*pp) return;
    pml_free(*pp);
    *pp = NULL;
}

double fdx_pml_elements(int rank, const int64_t *n, int r, int width)
{
    double total = 1, e = 0;
    for (int a = 0; a < rank; a++) total *= (double)n[a];
    for (int a = 0; a < rank; a++) {
        double w = width < n[a] / 2 ? width : (double)(n[a] / 2), m = w > r ? w - r : 0;
        e += 3 * (2 * m) * (total / (double)n[a]); /* psi (two buffers) and zeta in 2 slabs of m */
    }
    return e;
}

int64_t fdx_pml_state_count(const fdx_pml *p) { return p ? p->count : 0; }

/* The current psi of the fused pass may be in the second buffer: the state
   is psi_a and zeta_a of each axis wherever they are. */
fdx_status fdx_pml_state_get(fdx_pml *p, void *bytes, void *stream)
{
    size_t es = fdx_dtype_size(p->type);
    FDX_TRY(p->be->copy(bytes, p->aux, (size_t)p->count * es, FDX_COPY_D2H, stream));
    for (int a = 0; p->flip && a < p->d.rank; a++)
        FDX_TRY(p->be->copy((char *)bytes + (size_t)p->psi1[a] * es, (char *)p->aux + (size_t)p->psi2[a] * es,
                            (size_t)(p->job.zeta[a] - p->job.psi[a]) * es, FDX_COPY_D2H, stream));
    return p->be->stream_sync(stream);
}

fdx_status fdx_pml_state_put(fdx_pml *p, const void *bytes, void *stream)
{
    FDX_TRY(p->be->copy(p->aux, bytes, (size_t)p->count * fdx_dtype_size(p->type), FDX_COPY_H2D, stream));
    p->flip = 0;
    return p->be->stream_sync(stream);
}

/* The CPU loops: rows of x with their coordinates known (no per-point
   index decoding), planes shared out in one parallel region; the two
   passes (FDX_PML_TWOPASS) with one barrier between them (a loaded machine
   makes every barrier dear). */
#define DEFINE_CPU_STEP(T, I, IT)                                                                                  \
    static void step_##T##_##I(const fdx_pml_job *J, const T *tab, T *aux, T *next, const T *u, const T *c2)     \
    {                                                                                                              \
        _Pragma("omp parallel")                                                                                    \
        {                                                                                                          \
            for (int a = 0; !J->fused && a < J->rank; a++) {                                                       \
                IT lo[3], hi[3];                                                                                   \
                for (int d = 0; d < 3; d++) {                                                                      \
                    lo[d] = d == a ? 0 : (IT)J->ulo[d];                                                            \
                    hi[d] = d == a ? 2 * J->m : (IT)J->uhi[d];                                                     \
                }                                                                                                  \
                _Pragma("omp for collapse(2) schedule(static) nowait") for (IT k = lo[2]; k < hi[2]; k++)          \
                    for (IT j = lo[1]; j < hi[1]; j++)                                                             \
                        for (IT i = lo[0]; i < hi[0]; i++) {                                                       \
                            IT x[3] = {i, j, k};                                                                   \
                            pml_psi_at_##T##_##I(J, tab, aux, u, a, x[a], x);                                      \
                        }                                                                                          \
            }                                                                                                      \
            if (!J->fused) {                                                                                       \
                _Pragma("omp barrier")                                                                             \
            }                                                                                                      \
            for (int b = 0; b < J->nbox; b++) {                                                                    \
                IT lo[3], hi[3];                                                                                   \
                for (int d = 0; d < 3; d++) lo[d] = (IT)J->box_lo[b][d], hi[d] = (IT)J->box_hi[b][d];              \
                _Pragma("omp for collapse(2) schedule(static) nowait") for (IT k = lo[2]; k < hi[2]; k++)          \
                    for (IT j = lo[1]; j < hi[1]; j++)                                                             \
                        for (IT i = lo[0]; i < hi[0]; i++) {                                                       \
                            IT x[3] = {i, j, k};                                                                   \
                            pml_term_at_##T##_##I(J, tab, aux, next, u, c2, x);                                    \
                        }                                                                                          \
            }                                                                                                      \
        }                                                                                                          \
    }
DEFINE_CPU_STEP(float, i32, int)
DEFINE_CPU_STEP(float, i64, long long)
DEFINE_CPU_STEP(double, i32, int)
DEFINE_CPU_STEP(double, i64, long long)

static int same_grid(const fdx_pml *p, const fdx_array *a)
{
    if (!a || fdx_array_dtype(a) != p->type || fdx_array_rank(a) != p->d.rank) return 0;
    for (int d = 0; d < p->d.rank; d++)
        if (fdx_array_extent(a, d) != p->job.n[d]) return 0;
    return fdx_array_device((fdx_array *)a) != NULL;
}

fdx_status fdx_pml_step(fdx_pml *p, fdx_array *next, const fdx_array *cur, const fdx_array *c2, void *stream)
{
    FDX_CHECK(p, FDX_ERR_INVALID, "fdx_pml_step: the PML is NULL");
    FDX_CHECK(same_grid(p, next) && same_grid(p, cur) && same_grid(p, c2), FDX_ERR_INVALID,
              "fdx_pml_step: %s is missing or not an array of the layer's grid and element type",
              !same_grid(p, next) ? "next" : !same_grid(p, cur) ? "cur" : "c2");
    (void)stream; /* the CPU loops run at once */
    void *pn = fdx_array_device(next);
    const void *pu = fdx_array_device((fdx_array *)cur), *pc = fdx_array_device((fdx_array *)c2);
    int is_double = p->type == FDX_FLOAT64;
    /* The fused pass reads the current psi and writes the other buffer,
       which is current afterwards (queued work keeps its job by value). */
    for (int a = 0; p->job.fused && a < p->d.rank; a++) {
        p->job.psi[a] = p->flip ? p->psi2[a] : p->psi1[a];
        p->job.psi_out[a] = p->flip ? p->psi1[a] : p->psi2[a];
    }
    p->flip ^= p->job.fused;
    if (fdx_ctx_backend(p->ctx) == FDX_BACKEND_CUDA) {
#ifdef FDX_HAVE_CUDA
        int e = fdx_pml_cuda_step(&p->job, is_double, p->tab, p->aux, pn, pu, pc, stream);
        return e ? fdx_fail(FDX_ERR_CUDA, "pml kernels: %s", fdx_fieldops_cuda_error(e)) : FDX_OK;
#else
        return fdx_fail(FDX_ERR_UNSUPPORTED, "fdx was built without CUDA");
#endif
    }
    /* The same index variant as CUDA's, so the CPU tests check what the GPU runs. */
    if (is_double && p->job.i32) step_double_i32(&p->job, p->tab, p->aux, pn, pu, pc);
    else if (is_double) step_double_i64(&p->job, p->tab, p->aux, pn, pu, pc);
    else if (p->job.i32) step_float_i32(&p->job, p->tab, p->aux, pn, pu, pc);
    else step_float_i64(&p->job, p->tab, p->aux, pn, pu, pc);
    return FDX_OK;
}
