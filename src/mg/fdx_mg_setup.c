/* fdx_mg_setup: the level hierarchy (coarse extents, spacings, stored
   arrays), the 1D transfer tables between levels, and the Cholesky factor
   of the coarsest level. */
#include "core/fdx_knob.h"
#include "mg/fdx_mg_gpu.h"
#include "mg/fdx_mg_impl.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Position of stored index s along an axis is (s - offset) * h. */
static double bc_offset(fdx_solver_bc bc) { return bc == FDX_BC_DIRICHLET ? 0.0 : bc == FDX_BC_NEUMANN ? 0.5 : 1.0; }
/* The interval's length in spacings. */
static int64_t bc_span(fdx_solver_bc bc, int64_t n) { return bc == FDX_BC_DIRICHLET ? n - 1 : n; }
/* An axis coarsens while the coarse grid keeps at least one unknown
   (Dirichlet: 3 points) and a periodic one at least 3 points. */
static int can_coarsen(fdx_solver_bc bc, int64_t n) { return bc == FDX_BC_NEUMANN ? n >= 2 : n >= 5; }

static double *alloc_zero(int64_t count, fdx_status *st)
{
    void *p = NULL;
    size_t bytes = (size_t)count * sizeof(double);
    if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) {
        *st = fdx_fail(FDX_ERR_NOMEM, "multigrid: out of host memory for %lld points", (long long)count);
        return NULL;
    }
    memset(p, 0, bytes);
    return p;
}

/* A zeroed field of a level: device memory on CUDA, host memory else. */
double *mg_alloc_field(const fdx_solver *s, int64_t count, fdx_status *st)
{
    if (!s->gpu) return alloc_zero(count, st);
    void *p = NULL;
    *st = mg_cuda_alloc((size_t)count * sizeof(double), &p);
    return *st == FDX_OK ? p : NULL;
}

void mg_free_field(const fdx_solver *s, double *p)
{
    if (s->gpu)
        mg_cuda_free(p);
    else
        free(p);
}

static void level_init(fdx_solver *s, mg_level *L, const int64_t *n, const double *h)
{
    L->unknowns = 1;
    for (int a = 0; a < 3; a++) {
        if (a >= s->rank) {
            L->n[a] = L->m[a] = 1;
            L->lo[a] = 0;
            L->hi[a] = 1;
            L->h[a] = 1;
            L->c[a] = 0;
            continue;
        }
        L->n[a] = n[a];
        L->m[a] = s->bc[a] == FDX_BC_DIRICHLET ? n[a] : n[a] + 2;
        L->lo[a] = 1;
        L->hi[a] = L->m[a] - 1;
        L->h[a] = h[a];
        L->c[a] = 1.0 / (h[a] * h[a]);
        L->unknowns *= L->hi[a] - L->lo[a];
    }
    L->diag = 2.0 * (L->c[0] + L->c[1] + L->c[2]);
    L->sy = L->m[0];
    L->sz = s->rank == 3 ? L->m[0] * L->m[1] : 0;
    L->count = L->m[0] * L->m[1] * L->m[2];
}

/* A level's fields and (CUDA) its reduction slots. */
static fdx_status level_storage(fdx_solver *s, mg_level *L)
{
    fdx_status st = FDX_OK;
    if (!(L->u = mg_alloc_field(s, L->count, &st)) || !(L->f = mg_alloc_field(s, L->count, &st)) ||
        !(L->t = mg_alloc_field(s, L->count, &st)))
        return st;
    if (s->smoother == FDX_SMOOTH_CHEBY && !(L->d = mg_alloc_field(s, L->count, &st))) return st;
    return mg_alloc_sums(s, L);
}

fdx_status mg_alloc_sums(const fdx_solver *s, mg_level *L)
{
    if (!s->gpu) return FDX_OK;
    /* The sum and one slot a block of the widest launch (fdx_mg_gpu.cu:
       128 points of a row a block, one row a block on y and z; or the
       z-marching sweep's tiles, at least one plane a block). */
    const int64_t rows = (L->m[0] / 128 + 1) * L->m[1] * L->m[2];
    const int64_t tiles = (L->m[0] / (MG_GSZ_X - 4) + 1) * (L->m[1] / (MG_GSZ_Y - 4) + 1) * L->m[2];
    fdx_status st = FDX_OK;
    L->dsum = mg_alloc_field(s, 1 + (rows > tiles ? rows : tiles), &st);
    return st;
}

/* The coarse unknown a coarse stored index stands for (ghosts fold onto the
   points they mirror), or -1 (a Dirichlet boundary: zero). */
static int64_t fold(fdx_solver_bc bc, int64_t S, int64_t M)
{
    if (S > 0 && S < M - 1) return S;
    if (bc == FDX_BC_DIRICHLET) return -1;
    if (bc == FDX_BC_NEUMANN) return S == 0 ? 1 : M - 2;
    return S == 0 ? M - 2 : 1; /* periodic */
}

fdx_status mg_transfer_alloc(mg_transfer *t, int64_t m, int64_t M)
{
    t->i0 = calloc((size_t)m, sizeof *t->i0);
    t->i1 = calloc((size_t)m, sizeof *t->i1);
    t->w0 = calloc((size_t)m, sizeof *t->w0);
    t->w1 = calloc((size_t)m, sizeof *t->w1);
    t->ptr = calloc((size_t)M + 1, sizeof *t->ptr);
    t->idx = calloc((size_t)(2 * m + 1), sizeof *t->idx);
    t->w = calloc((size_t)(2 * m + 1), sizeof *t->w);
    t->b0 = calloc((size_t)M, sizeof *t->b0);
    t->bw = calloc((size_t)M, sizeof *t->bw);
    if (!t->i0 || !t->i1 || !t->w0 || !t->w1 || !t->ptr || !t->idx || !t->w || !t->b0 || !t->bw)
        return fdx_fail(FDX_ERR_NOMEM, "multigrid: out of host memory for transfer tables (%lld fine points)",
                        (long long)m);
    return FDX_OK;
}

static fdx_status transfer_init(fdx_solver *s, int axis, const mg_level *F, const mg_level *C, mg_transfer *t)
{
    const int64_t m = F->m[axis], M = C->m[axis];
    FDX_TRY(mg_transfer_alloc(t, m, M));
    if (axis >= s->rank) { /* the missing z axis: one plane onto one plane */
        t->w0[0] = 1;
        t->ptr[1] = 1;
        t->w[0] = 1;
        t->span = 1;
        t->bw[0] = 1;
        return FDX_OK;
    }
    const fdx_solver_bc bc = s->bc[axis];
    const double off = bc_offset(bc);
    const double spf = (double)bc_span(bc, F->n[axis]), spc = (double)bc_span(bc, C->n[axis]);
    /* Prolongation: fine position in coarse index units, its left neighbour. */
    for (int64_t i = F->lo[axis]; i < F->hi[axis]; i++) {
        double x = ((double)i - off) * spc / spf + off;
        int64_t S = (int64_t)floor(x);
        if (S > M - 2) S = M - 2;
        if (S < 0) S = 0;
        double fr = x - (double)S;
        t->i0[i] = (int32_t)S;
        t->i1[i] = (int32_t)(fr > 0 ? S + 1 : S);
        t->w0[i] = 1 - fr;
        t->w1[i] = fr;
    }
    /* Injection: each coarse point's position in fine index units. */
    for (int64_t S = 0; S < M; S++) {
        double x = ((double)S - off) * spf / spc + off;
        int64_t i = (int64_t)floor(x);
        if (i > m - 2) i = m - 2;
        if (i < 0) i = 0;
        t->b0[S] = (int32_t)i;
        t->bw[S] = 1 - (x - (double)i);
    }
    /* Restriction: (h/H) P^T row by row; entries of one fine point that fold
       onto the same coarse unknown are merged. */
    const double scale = spc / spf;
    int32_t nnz = 0;
    for (int64_t S = 0; S < M; S++) {
        t->ptr[S] = nnz;
        if (S >= C->lo[axis] && S < C->hi[axis])
            for (int64_t i = F->lo[axis]; i < F->hi[axis]; i++) {
                double w = 0;
                if (fold(bc, t->i0[i], M) == S) w += t->w0[i];
                if (t->i1[i] != t->i0[i] && fold(bc, t->i1[i], M) == S) w += t->w1[i];
                if (w == 0) continue;
                if (nnz >= 2 * m + 1) return fdx_fail(FDX_ERR_INTERNAL, "multigrid: restriction table overflow");
                t->idx[nnz] = (int32_t)i;
                t->w[nnz] = w * scale;
                nnz++;
            }
        if (nnz - t->ptr[S] > t->span) t->span = nnz - t->ptr[S];
    }
    t->ptr[M] = nnz;
    return FDX_OK;
}

void mg_transfer_free(mg_transfer *t)
{
    free(t->i0);
    free(t->i1);
    free(t->w0);
    free(t->w1);
    free(t->ptr);
    free(t->idx);
    free(t->w);
    free(t->b0);
    free(t->bw);
    memset(t, 0, sizeof *t);
}

void mg_free_levels(fdx_solver *s)
{
    if (s->md) mg_dist_free_levels(s); /* the distributed levels' handles first */
    if (s->ops && s->ops->graph_free) s->ops->graph_free(s);
    s->graph_kind[0] = s->graph_kind[1] = s->graph_kind[2] = FDX_CYCLE_V;
    for (int l = 0; l < MG_MAX_LEVELS; l++) {
        mg_level *L = &s->lev[l];
        mg_free_field(s, L->u);
        mg_free_field(s, L->f);
        mg_free_field(s, L->t);
        mg_free_field(s, L->d);
        mg_free_field(s, L->dsum);
        free(L->k);
        if (s->gpu) mg_cuda_free(L->dk);
        for (int a = 0; a < 3; a++) {
            mg_transfer_free(&L->tr[a]);
            if (s->gpu) mg_cuda_free_transfer(&L->dtr[a]);
        }
        memset(L, 0, sizeof *L);
    }
    free(s->rowbuf);
    free(s->chol);
    free(s->chol_map);
    free(s->chol_vec);
    mg_free_field(s, s->x);
    mg_free_field(s, s->p);
    mg_free_field(s, s->q);
    if (s->gpu) {
        mg_cuda_free(s->d_chol);
        mg_cuda_free(s->d_chol_map);
    }
    s->d_chol = NULL;
    s->d_chol_map = NULL;
    free(s->hist);
    s->rowbuf = s->chol = s->chol_vec = s->x = s->p = s->q = s->hist = NULL;
    s->chol_map = NULL;
    s->nlev = 0;
    s->ready = 0;
}

/* Fine stored indices averaged into coarse stored index S along one axis,
   and their weights (sum 1): the hat of half-width r = H/h around the
   coarse point's fine position (1/4 1/2 1/4 on nested grids, the
   restriction's full weighting), clipped to the stored axis and
   renormalized there.  Returns how many (at most 2r + 1 <= 8). */
static int average_weights(const mg_transfer *t, int64_t S, int64_t m, double r, int64_t *idx, double *w)
{
    const double x = (double)t->b0[S] + (1.0 - t->bw[S]);
    int n = 0;
    double sum = 0;
    for (int64_t i = (int64_t)ceil(x - r); i <= (int64_t)floor(x + r) && n < 8; i++) {
        const double v = 1.0 - fabs((double)i - x) / r;
        if (i < 0 || i >= m || v <= 1e-12) continue;
        idx[n] = i;
        w[n++] = v;
        sum += v;
    }
    for (int q = 0; q < n; q++) w[q] /= sum;
    return n;
}

/* Coarse coefficient at every stored point: the weighted arithmetic mean of
   the fine level's k (average_weights per axis, tensor product), then the
   ghosts of Neumann and periodic axes.  (Arithmetic, not geometric or
   harmonic: docs/notes/mg.md compares them on the jump case.) */
static void coarsen_coefficient(const fdx_solver *s, const mg_level *F, mg_level *C)
{
    double r[3];
    for (int a = 0; a < 3; a++)
        r[a] = a < s->rank ? (double)bc_span(s->bc[a], F->n[a]) / (double)bc_span(s->bc[a], C->n[a]) : 1.0;
#pragma omp parallel for collapse(2) schedule(static) if (C->count > 32768)
    for (int64_t K = 0; K < C->m[2]; K++)
        for (int64_t J = 0; J < C->m[1]; J++) {
            int64_t iz[8], iy[8], ix[8];
            double wz[8], wy[8], wx[8];
            const int nz = average_weights(&F->tr[2], K, F->m[2], r[2], iz, wz);
            const int ny = average_weights(&F->tr[1], J, F->m[1], r[1], iy, wy);
            for (int64_t I = 0; I < C->m[0]; I++) {
                const int nx = average_weights(&F->tr[0], I, F->m[0], r[0], ix, wx);
                double v = 0;
                for (int c = 0; c < nz; c++)
                    for (int b = 0; b < ny; b++) {
                        const double *row = F->k + iy[b] * F->sy + iz[c] * F->sz;
                        double acc = 0;
                        for (int a = 0; a < nx; a++) acc += wx[a] * row[ix[a]];
                        v += wz[c] * wy[b] * acc;
                    }
                C->k[I + J * C->sy + K * C->sz] = v;
            }
        }
    mg_ghosts(s, C, C->k);
}

/* Every level's coefficient on the host, from the caller's. */
static fdx_status build_coefficients(fdx_solver *s)
{
    if (!s->kuser) return FDX_OK;
    fdx_status st = FDX_OK;
    for (int l = 0; l < s->nlev; l++) {
        mg_level *L = &s->lev[l];
        if (!(L->k = alloc_zero(L->count, &st))) return st;
        if (l == 0) {
            mg_copy_user(s, s->kuser, L->k, 0, 1);
            mg_ghosts(s, L, L->k);
        } else {
            coarsen_coefficient(s, &s->lev[l - 1], L);
        }
    }
    return FDX_OK;
}

fdx_status mg_build_geometry(fdx_solver *s)
{
    int64_t n[3] = {s->shape[0], s->shape[1], s->rank == 3 ? s->shape[2] : 1};
    double h[3] = {s->h[0], s->h[1], s->h[2]};
    s->singular = 1;
    for (int a = 0; a < s->rank; a++)
        if (s->bc[a] == FDX_BC_DIRICHLET) s->singular = 0;
    s->nlev = 0;
    for (;;) {
        if (s->nlev == MG_MAX_LEVELS) return fdx_fail(FDX_ERR_INTERNAL, "multigrid: more than %d levels", MG_MAX_LEVELS);
        mg_level *L = &s->lev[s->nlev];
        level_init(s, L, n, h);
        L->work = (double)L->unknowns / (double)s->lev[0].unknowns;
        s->nlev++;
        if (L->unknowns <= MG_COARSE_MAX) break;
        /* Coarsen only the axes strongly coupled (h within 2x of the finest
           spacing): a point smoother does not smooth along weakly coupled
           axes, so those keep their points until the others catch up. */
        double hmin = h[0];
        for (int a = 1; a < s->rank; a++) hmin = fmin(hmin, h[a]);
        int any = 0;
        for (int a = 0; a < s->rank; a++)
            if (can_coarsen(s->bc[a], n[a]) && h[a] <= 2.0 * hmin * (1 + 1e-12)) {
                int64_t nc = (n[a] + 1) / 2;
                h[a] *= (double)bc_span(s->bc[a], n[a]) / (double)bc_span(s->bc[a], nc);
                n[a] = nc;
                any = 1;
            }
        if (!any) break;
    }
    for (int l = 0; l + 1 < s->nlev; l++)
        for (int a = 0; a < 3; a++) FDX_TRY(transfer_init(s, a, &s->lev[l], &s->lev[l + 1], &s->lev[l].tr[a]));
    /* One-pass red-black on every level but the coarsest (whose sweep
       count may be odd); on CUDA only where the blocks fill the device
       (the ring kernel's blocks march all planes, the z-marching kernel's
       chunks of planes: a small level's few blocks would spend a sweep in
       latency, where the colour kernels' two launches cost less).
       FDX_MG_GS2_EVERY=1: every level (tests). */
    const int every = !s->gpu || fdx_knob_is(FDX_KNOB_MG_GS2_EVERY, "1");
    for (int l = 0; l + 1 < s->nlev && s->gs2; l++) {
        const mg_level *L = &s->lev[l];
        const int64_t tiles = (L->hi[0] - L->lo[0] + MG_GS2_X - 1) / MG_GS2_X * ((L->hi[1] - L->lo[1] + MG_GS2_Y - 1) / MG_GS2_Y);
        const int big = s->gs2 == MG_GS2_RING ? tiles >= 128 : L->unknowns >= 32768;
        s->lev[l].gs2 = every || big ? s->gs2 : 0;
    }
    return build_coefficients(s);
}

fdx_status mg_build_storage(fdx_solver *s, int first)
{
    for (int l = first; l < s->nlev; l++) {
        mg_level *L = &s->lev[l];
        FDX_TRY(level_storage(s, L));
        if (l + 1 < s->nlev && s->gpu)
            for (int a = 0; a < 3; a++)
                FDX_TRY(mg_cuda_upload_transfer(&L->tr[a], &L->dtr[a], L->m[a], s->lev[l + 1].m[a]));
        if (L->k && s->gpu) {
            FDX_TRY(mg_cuda_alloc((size_t)L->count * sizeof(double), (void **)&L->dk));
            FDX_TRY(mg_cuda_upload(L->dk, L->k, (size_t)L->count * sizeof(double)));
        }
    }
    int threads = omp_get_max_threads();
    s->rowbuf_stride = 2 * ((s->lev[0].m[0] + 7) / 8 * 8); /* two rows a thread (mg_resrestrict) */
    fdx_status st = FDX_OK;
    if (!s->gpu && !(s->rowbuf = alloc_zero(s->rowbuf_stride * threads, &st))) return st;
    if (!(s->hist = alloc_zero(s->max_cycles + 1, &st))) return st;
    if (first == 0 && (s->method == FDX_SOLVER_CG_MG || s->order == 4)) {
        const int64_t c = s->lev[0].count;
        if (!(s->x = mg_alloc_field(s, c, &st)) || !(s->p = mg_alloc_field(s, c, &st)) ||
            !(s->q = mg_alloc_field(s, c, &st)))
            return st;
    }
    return FDX_OK;
}

fdx_status mg_build_levels(fdx_solver *s)
{
    FDX_TRY(mg_build_geometry(s));
    return mg_build_storage(s, 0);
}

/* The coarsest level's matrix, assembled column by column by applying the
   operator to unit vectors (so it is the operator the kernels apply), plus
   (diag / nu) 1 1^T when singular (the constant mode gets a positive
   eigenvalue, and a compatible right-hand side yields the mean-zero
   solution), factored by Cholesky. */
fdx_status mg_coarse_factor(fdx_solver *s)
{
    mg_level *L = &s->lev[s->nlev - 1];
    const int64_t nu = L->unknowns;
    s->chol_n = nu;
    s->chol = calloc((size_t)(nu * nu), sizeof(double));
    s->chol_map = calloc((size_t)nu, sizeof(int64_t));
    s->chol_vec = calloc((size_t)nu, sizeof(double));
    if (!s->chol || !s->chol_map || !s->chol_vec)
        return fdx_fail(FDX_ERR_NOMEM, "multigrid: out of host memory for the coarse matrix");
    int64_t q = 0;
    for (int64_t k = L->lo[2]; k < L->hi[2]; k++)
        for (int64_t j = L->lo[1]; j < L->hi[1]; j++)
            for (int64_t i = L->lo[0]; i < L->hi[0]; i++) s->chol_map[q++] = i + j * L->sy + k * L->sz;
    double *A = s->chol;
    /* Host scratch (the level's own fields may live on the device). */
    fdx_status st = FDX_OK;
    double *e = alloc_zero(L->count, &st), *ae = e ? alloc_zero(L->count, &st) : NULL;
    if (!ae) {
        free(e);
        return st;
    }
    for (int64_t c = 0; c < nu; c++) {
        memset(e, 0, (size_t)L->count * sizeof(double));
        e[s->chol_map[c]] = 1;
        mg_ghosts(s, L, e);
        mg_apply(L, e, ae);
        for (int64_t r = 0; r < nu; r++) A[r * nu + c] = ae[s->chol_map[r]];
    }
    free(e);
    free(ae);
    if (s->singular)
        for (int64_t r = 0; r < nu * nu; r++) A[r] += L->diag / (double)nu;
    for (int64_t j = 0; j < nu; j++) {
        double d = A[j * nu + j];
        for (int64_t k = 0; k < j; k++) d -= A[j * nu + k] * A[j * nu + k];
        if (!(d > 0))
            return fdx_fail(FDX_ERR_INTERNAL, "multigrid: the coarse matrix (%lld unknowns) is not positive definite",
                            (long long)nu);
        d = sqrt(d);
        A[j * nu + j] = d;
        for (int64_t i = j + 1; i < nu; i++) {
            double v = A[i * nu + j];
            for (int64_t k = 0; k < j; k++) v -= A[i * nu + k] * A[j * nu + k];
            A[i * nu + j] = v / d;
        }
    }
    if (s->gpu) {
        /* the factor, then the solve's scratch (fdx_mg_gpu.cu coarse_kernel) */
        FDX_TRY(mg_cuda_alloc((size_t)(nu * nu + nu) * sizeof(double), (void **)&s->d_chol));
        FDX_TRY(mg_cuda_alloc((size_t)nu * sizeof(int64_t), (void **)&s->d_chol_map));
        FDX_TRY(mg_cuda_upload(s->d_chol, A, (size_t)(nu * nu) * sizeof(double)));
        FDX_TRY(mg_cuda_upload(s->d_chol_map, s->chol_map, (size_t)nu * sizeof(int64_t)));
    }
    return FDX_OK;
}
