/* fdx_mg_kernels: the CPU (OpenMP) kernels of the multigrid solver.  Every
   kernel loops over the unknowns of one level, rows (j,k) in parallel and
   points along a row as a simd loop; the 5/7-point operator reads ghost or
   boundary points that the caller filled (mg_ghosts) before. */
#include "mg/fdx_mg_impl.h"

#include <omp.h>
#include <string.h>

/* Levels smaller than this run on one thread: a parallel region costs more
   than their work (and much more when the cores are shared). */
#define MG_PAR_MIN 32768

/* -lap u at point p (2D: sz == 0 and c2 == 0, the z terms vanish). */
#define MG_AU(u, p)                                                                                         \
    (diag * (u)[p] - c0 * ((u)[(p) - 1] + (u)[(p) + 1]) - c1 * ((u)[(p) - sy] + (u)[(p) + sy]) -           \
     c2 * ((u)[(p) - sz] + (u)[(p) + sz]))

/* The face coefficient of -div(k grad u): the harmonic mean of the two
   point values (include/fdx/mg.h says why). */
#define MG_KF(a, b) (2.0 * (a) * (b) / ((a) + (b)))

/* -div(k grad u) at p (kc: the level's coefficient): declares AU (the
   operator), NB (the weighted neighbour sum) and DG (the diagonal), so
   that AU = DG u_p - NB.  2D: sz == 0, the z faces have weight c2 == 0. */
#define MG_AUK(u, p, AU, NB, DG)                                                                            \
    const double kp_ = kc[p];                                                                                \
    const double wxm_ = c0 * MG_KF(kp_, kc[(p) - 1]), wxp_ = c0 * MG_KF(kp_, kc[(p) + 1]);                    \
    const double wym_ = c1 * MG_KF(kp_, kc[(p) - sy]), wyp_ = c1 * MG_KF(kp_, kc[(p) + sy]);                  \
    const double wzm_ = c2 * MG_KF(kp_, kc[(p) - sz]), wzp_ = c2 * MG_KF(kp_, kc[(p) + sz]);                  \
    const double DG = (wxm_ + wxp_) + (wym_ + wyp_) + (wzm_ + wzp_);                                        \
    const double NB = (wxm_ * (u)[(p) - 1] + wxp_ * (u)[(p) + 1]) + (wym_ * (u)[(p) - sy] + wyp_ * (u)[(p) + sy]) + \
                      (wzm_ * (u)[(p) - sz] + wzp_ * (u)[(p) + sz]);                                        \
    const double AU = DG * (u)[p] - NB

#define MG_CONSTS(L)                                                                                        \
    const double diag = (L)->diag, c0 = (L)->c[0], c1 = (L)->c[1], c2 = (L)->c[2];                          \
    const double *kc = (L)->k;                                                                               \
    const int64_t sy = (L)->sy, sz = (L)->sz;                                                               \
    const int64_t i0 = (L)->lo[0], i1 = (L)->hi[0], j0 = (L)->lo[1], j1 = (L)->hi[1], k0 = (L)->lo[2],       \
                  k1 = (L)->hi[2];                                                                          \
    (void)diag, (void)c0, (void)c1, (void)c2, (void)i0, (void)i1, (void)kc

/* Copies the plane at index src of `axis` onto the plane at dst, over the
   full stored extents of the other axes (ghosts included, so filling axis
   by axis also fills edges and corners). */
static void copy_plane(const mg_level *L, double *a, int axis, int64_t dst, int64_t src)
{
    const int64_t st[3] = {1, L->sy, L->sz};
    const int b = axis == 0 ? 1 : 0, c = axis == 2 ? 1 : 2;
    const int64_t nb = L->m[b], nc = L->m[c], sb = st[b], sc = st[c];
    double *d = a + dst * st[axis];
    const double *s = a + src * st[axis];
#pragma omp parallel for schedule(static) if (nb * nc > MG_PAR_MIN)
    for (int64_t y = 0; y < nc; y++)
        for (int64_t x = 0; x < nb; x++) d[x * sb + y * sc] = s[x * sb + y * sc];
}

void mg_ghost_planes(const mg_level *L, double *a, int axis, int64_t src_lo, int64_t src_hi)
{
    if (src_lo >= 0) copy_plane(L, a, axis, 0, src_lo);
    if (src_hi >= 0) copy_plane(L, a, axis, L->m[axis] - 1, src_hi);
}

int64_t mg_ghost_source(fdx_solver_bc bc, int64_t m, int side)
{
    return bc == FDX_BC_NEUMANN ? (side ? m - 2 : 1) : (side ? 1 : m - 2);
}

void mg_ghosts_by(const fdx_solver *s, const mg_level *L, double *a, mg_planes_fn planes)
{
    for (int ax = 0; ax < s->rank; ax++)
        if (s->bc[ax] != FDX_BC_DIRICHLET)
            planes(L, a, ax, mg_ghost_source(s->bc[ax], L->m[ax], 0), mg_ghost_source(s->bc[ax], L->m[ax], 1));
}

void mg_ghosts(const fdx_solver *s, const mg_level *L, double *a) { mg_ghosts_by(s, L, a, mg_ghost_planes); }

/* One row's residual f - A u (row: offset of (0, j, k)) into out[i] for
   the row's unknowns i0 <= i < i1 (out NULL: not stored); returns the sum
   of its squares. */
static inline double residual_row(const mg_level *L, const double *u, const double *f, double *out, int64_t row)
{
    MG_CONSTS(L);
    (void)j0, (void)j1, (void)k0, (void)k1;
    double acc = 0;
    if (kc && out) {
#pragma omp simd reduction(+ : acc)
        for (int64_t i = i0; i < i1; i++) {
            const int64_t p = row + i;
            MG_AUK(u, p, au, nb, dg);
            const double v = f[p] - au;
            out[i] = v;
            acc += v * v;
        }
    } else if (kc) {
#pragma omp simd reduction(+ : acc)
        for (int64_t i = i0; i < i1; i++) {
            const int64_t p = row + i;
            MG_AUK(u, p, au, nb, dg);
            const double v = f[p] - au;
            acc += v * v;
        }
    } else if (out) {
#pragma omp simd reduction(+ : acc)
        for (int64_t i = i0; i < i1; i++) {
            const int64_t p = row + i;
            const double v = f[p] - MG_AU(u, p);
            out[i] = v;
            acc += v * v;
        }
    } else {
#pragma omp simd reduction(+ : acc)
        for (int64_t i = i0; i < i1; i++) {
            const int64_t p = row + i;
            const double v = f[p] - MG_AU(u, p);
            acc += v * v;
        }
    }
    return acc;
}

/* Sums over rows in a fixed order: each thread adds its static share of
   the rows and puts its sum in its own slot, and the slots are added in
   thread order.  (OpenMP's reduction combines in the order threads finish,
   so the last bits of a norm, and a residual history, would change from run
   to run.) */
enum { MG_MAX_PARTS = 1024 };
typedef struct mg_parts {
    double v[MG_MAX_PARTS];
    int n;
} mg_parts;
static int mg_parts_threads(void)
{
    return omp_get_max_threads() < MG_MAX_PARTS ? omp_get_max_threads() : MG_MAX_PARTS;
}
/* By every thread of the region, after its share of the rows. */
static void mg_parts_put(mg_parts *p, double s)
{
    p->v[omp_get_thread_num()] = s;
#pragma omp single
    p->n = omp_get_num_threads();
}
static double mg_parts_sum(const mg_parts *p)
{
    double sum = 0;
    for (int t = 0; t < p->n; t++) sum += p->v[t];
    return sum;
}

/* The body of a row kernel: row (j, k) of L's unknowns (row: the offset of
   (0, j, k)), points i0 <= i < i1 as a simd loop; returns the row's part of
   the kernel's sum (0 when it has none). */
typedef double (*mg_row_fn)(const mg_level *L, int64_t j, int64_t k, int64_t row, const void *arg);

/* The one row walker of the kernels: body on every row of L's unknowns,
   static shares of the (k, j) rows in parallel (one thread for a small
   level).  With `sum`, returns the rows' sums in the fixed order above
   (each thread adds its rows in order, the threads in order: the same bits
   every run); else 0. */
static double mg_rows(const mg_level *L, mg_row_fn body, const void *arg, int sum)
{
    const int64_t j0 = L->lo[1], j1 = L->hi[1], k0 = L->lo[2], k1 = L->hi[2], sy = L->sy, sz = L->sz;
    mg_parts part;
#pragma omp parallel num_threads(mg_parts_threads()) if (L->count > MG_PAR_MIN)
    {
        double s = 0;
#pragma omp for collapse(2) schedule(static)
        for (int64_t k = k0; k < k1; k++)
            for (int64_t j = j0; j < j1; j++) s += body(L, j, k, j * sy + k * sz, arg);
        if (sum) mg_parts_put(&part, s); /* the same in every thread */
    }
    return sum ? mg_parts_sum(&part) : 0.0;
}

/* Arguments of the row kernels below: arrays a, b (read), x, y (written),
   scalars, a colour (or prolongation's add) and a coarse level. */
typedef struct mg_row_args {
    const double *a, *b;
    double *x, *y;
    double s0, s1;
    int color;
    const mg_level *C;
} mg_row_args;

static double residual_body(const mg_level *L, int64_t j, int64_t k, int64_t row, const void *arg)
{
    const mg_row_args *a = arg;
    (void)j, (void)k;
    return residual_row(L, a->a, a->b, a->x ? a->x + row : NULL, row);
}

double mg_residual(const mg_level *L, const double *u, const double *f, double *r)
{
    const mg_row_args a = {.a = u, .b = f, .x = r};
    return mg_rows(L, residual_body, &a, 1);
}

/* The second difference along one axis at p: fourth order where p - 2s and
   p + 2s are inside the grid (wide), second order else. */
#define MG_D2(u, p, s, wide)                                                                                \
    ((wide) ? (((u)[(p) - 2 * (s)] + (u)[(p) + 2 * (s)]) - 16.0 * ((u)[(p) - (s)] + (u)[(p) + (s)]) +        \
               30.0 * (u)[p]) * (1.0 / 12.0)                                                                \
            : (2.0 * (u)[p] - (u)[(p) - (s)] - (u)[(p) + (s)]))

static double residual4_body(const mg_level *L, int64_t j, int64_t k, int64_t row, const void *arg)
{
    const mg_row_args *a = arg;
    const double *u = a->a, *f = a->b;
    double *r = a->x;
    MG_CONSTS(L);
    (void)j0, (void)j1, (void)k0, (void)k1;
    const int wy = j >= 2 && j + 2 <= L->m[1] - 1, wz = sz && k >= 2 && k + 2 <= L->m[2] - 1;
    double acc = 0;
#pragma omp simd reduction(+ : acc)
    for (int64_t i = i0; i < i1; i++) {
        const int64_t p = row + i;
        const int wx = i >= 2 && i + 2 <= L->m[0] - 1;
        const double v = f[p] - (c0 * MG_D2(u, p, 1, wx) + c1 * MG_D2(u, p, sy, wy) + (sz ? c2 * MG_D2(u, p, sz, wz) : 0.0));
        r[p] = v;
        acc += v * v;
    }
    return acc;
}

double mg_residual4(const mg_level *L, const double *u, const double *f, double *r)
{
    const mg_row_args a = {.a = u, .b = f, .x = r};
    return mg_rows(L, residual4_body, &a, 1);
}

static double apply_body(const mg_level *L, int64_t j, int64_t k, int64_t row, const void *arg)
{
    const mg_row_args *a = arg;
    const double *p = a->a;
    double *q = a->x;
    MG_CONSTS(L);
    (void)j, (void)k, (void)j0, (void)j1, (void)k0, (void)k1;
    double acc = 0;
    if (kc) {
#pragma omp simd reduction(+ : acc)
        for (int64_t i = row + i0; i < row + i1; i++) {
            MG_AUK(p, i, v, nb, dg);
            q[i] = v;
            acc += v * p[i];
        }
    } else {
#pragma omp simd reduction(+ : acc)
        for (int64_t i = row + i0; i < row + i1; i++) {
            double v = MG_AU(p, i);
            q[i] = v;
            acc += v * p[i];
        }
    }
    return acc;
}

double mg_apply(const mg_level *L, const double *p, double *q)
{
    const mg_row_args a = {.a = p, .x = q};
    return mg_rows(L, apply_body, &a, 1);
}

static double jacobi_body(const mg_level *L, int64_t j, int64_t k, int64_t row, const void *arg)
{
    const mg_row_args *a = arg;
    const double *u = a->a, *f = a->b, omega = a->s0;
    double *out = a->x;
    MG_CONSTS(L);
    (void)j, (void)k, (void)j0, (void)j1, (void)k0, (void)k1;
    const double w = omega / diag;
    if (kc) {
#pragma omp simd
        for (int64_t i = row + i0; i < row + i1; i++) {
            MG_AUK(u, i, au, nb, dg);
            out[i] = u[i] + omega / dg * (f[i] - au);
        }
    } else {
#pragma omp simd
        for (int64_t i = row + i0; i < row + i1; i++) out[i] = u[i] + w * (f[i] - MG_AU(u, i));
    }
    return 0;
}

void mg_jacobi(const mg_level *L, const double *u, const double *f, double *out, double omega)
{
    const mg_row_args a = {.a = u, .b = f, .x = out, .s0 = omega};
    (void)mg_rows(L, jacobi_body, &a, 0);
}

/* Gauss-Seidel on the points of one colour of one row (row: offset of
   (0, j, k); parity: (j + k + color) & 1).  Every point of the row is
   computed and the other colour's keep their value (a blend), so the loop
   is a plain simd loop: the other colour's points, the only neighbours
   along the row, do not change in this pass. */
static inline void gs_row(const mg_level *L, double *u, const double *f, int64_t row, int parity)
{
    MG_CONSTS(L);
    (void)j0, (void)j1, (void)k0, (void)k1;
    const double inv = 1.0 / diag;
    if (kc) {
        /* Only this colour's points: the face means' divisions, not the
           memory, bound the variable operator, so the blend would double
           the time. */
#pragma omp simd
        for (int64_t i = i0 + ((i0 + parity) & 1); i < i1; i += 2) {
            const int64_t p = row + i;
            MG_AUK(u, p, au, nb, dg);
            (void)au;
            u[p] = (f[p] + nb) / dg;
        }
        return;
    }
#pragma omp simd
    for (int64_t i = i0; i < i1; i++) {
        const int64_t p = row + i;
        const double g = (f[p] + c0 * (u[p - 1] + u[p + 1]) + c1 * (u[p - sy] + u[p + sy]) +
                          c2 * (u[p - sz] + u[p + sz])) * inv;
        u[p] = ((i + parity) & 1) ? u[p] : g;
    }
}

static double gs_color_body(const mg_level *L, int64_t j, int64_t k, int64_t row, const void *arg)
{
    const mg_row_args *a = arg;
    gs_row(L, a->x, a->b, row, (int)((j + k + a->color) & 1));
    return 0;
}

void mg_gs_color(const mg_level *L, double *u, const double *f, int color)
{
    const mg_row_args a = {.b = f, .x = u, .color = color};
    (void)mg_rows(L, gs_color_body, &a, 0);
}

static void gs_plane(const mg_level *L, double *u, const double *f, int64_t k, int color)
{
    for (int64_t j = L->lo[1]; j < L->hi[1]; j++) gs_row(L, u, f, j * L->sy + k * L->sz, (int)((j + k + color) & 1));
}

/* One red-black sweep (colour `first`, then the other) in one pass over
   memory: each thread runs the first colour on plane k and the second on
   plane k-1 right behind it, inside its own chunk of planes; the two edge
   planes of every chunk get their second colour after a barrier, when the
   neighbouring chunks' first colour is done.  The result is that of the
   two separate passes, bit for bit (points of one colour do not depend on
   each other). */
void mg_gs_sweep(const mg_level *L, double *u, const double *f, int first)
{
    const int64_t k0 = L->lo[2], k1 = L->hi[2];
    const int second = 1 - first;
#pragma omp parallel if (L->count > MG_PAR_MIN)
    {
        const int nt = omp_get_num_threads(), t = omp_get_thread_num();
        const int64_t nk = k1 - k0;
        const int64_t ka = k0 + nk * t / nt, kb = k0 + nk * (t + 1) / nt;
        for (int64_t k = ka; k < kb; k++) {
            gs_plane(L, u, f, k, first);
            if (k - 1 > ka) gs_plane(L, u, f, k - 1, second);
        }
#pragma omp barrier
        if (kb > ka) gs_plane(L, u, f, ka, second);
        if (kb - 1 > ka) gs_plane(L, u, f, kb - 1, second);
    }
}

/* out = u on the unknowns only: the out-of-place CUDA sweeps write nothing
   else, so out's boundary points keep what they held (the solver keeps them
   equal to u's; the CPU copying them too once hid an FMG that did not). */
static double copy_body(const mg_level *L, int64_t j, int64_t k, int64_t row, const void *arg)
{
    const mg_row_args *a = arg;
    (void)j, (void)k;
    memcpy(a->x + row + L->lo[0], a->a + row + L->lo[0], (size_t)(L->hi[0] - L->lo[0]) * sizeof(double));
    return 0;
}

static void copy_unknowns(const mg_level *L, const double *u, double *out)
{
    const mg_row_args a = {.a = u, .x = out};
    (void)mg_rows(L, copy_body, &a, 0);
}

void mg_gs_sweep2(const mg_level *L, const double *u, const double *f, double *out, int first)
{
    copy_unknowns(L, u, out);
    mg_gs_sweep(L, out, f, first);
}

double mg_gs_sweep2_norm(const mg_level *L, const double *u, const double *f, double *out, int first)
{
    const double r2 = mg_residual(L, u, f, NULL);
    mg_gs_sweep2(L, u, f, out, first);
    return r2;
}

void mg_gs_sweep2p(const mg_level *F, const mg_level *C, const double *uc, const double *u, const double *f,
                   double *out, int first)
{
    copy_unknowns(F, u, out);
    mg_prolong(F, C, uc, out, 1);
    mg_gs_sweep(F, out, f, first);
}

static double cheby_body(const mg_level *L, int64_t j, int64_t k, int64_t row, const void *arg)
{
    const mg_row_args *a = arg;
    const double *u = a->a, *f = a->b, alpha = a->s0, beta = a->s1;
    double *d = a->y, *out = a->x;
    MG_CONSTS(L);
    (void)j, (void)k, (void)j0, (void)j1, (void)k0, (void)k1;
    const double b = beta / diag;
    if (kc) {
#pragma omp simd
        for (int64_t i = row + i0; i < row + i1; i++) {
            MG_AUK(u, i, au, nb, dg);
            double dn = (alpha == 0 ? 0.0 : alpha * d[i]) + beta / dg * (f[i] - au);
            d[i] = dn;
            out[i] = u[i] + dn;
        }
    } else if (alpha == 0) {
#pragma omp simd
        for (int64_t i = row + i0; i < row + i1; i++) {
            double dn = b * (f[i] - MG_AU(u, i));
            d[i] = dn;
            out[i] = u[i] + dn;
        }
    } else {
#pragma omp simd
        for (int64_t i = row + i0; i < row + i1; i++) {
            double dn = alpha * d[i] + b * (f[i] - MG_AU(u, i));
            d[i] = dn;
            out[i] = u[i] + dn;
        }
    }
    return 0;
}

void mg_cheby(const mg_level *L, const double *u, const double *f, double *d, double *out, double alpha, double beta)
{
    const mg_row_args a = {.a = u, .b = f, .x = out, .y = d, .s0 = alpha, .s1 = beta};
    (void)mg_rows(L, cheby_body, &a, 0);
}

/* fc = R r, r the fine rows of rf, or (rf NULL) the residual f - A u
   computed row by row into the thread's second row buffer (fine rows shared
   by neighbouring coarse rows are computed again: about 2.25x the
   residual's arithmetic in 3D, in exchange for no fine residual array
   written and read back).  The same sums in the same order either way. */
static void restrict_rows(const fdx_solver *s, const mg_level *F, const mg_level *C, const double *rf, const double *u,
                          const double *f, double *fc)
{
    const mg_transfer *tx = &F->tr[0], *ty = &F->tr[1], *tz = &F->tr[2];
    const int64_t fi0 = F->lo[0], fi1 = F->hi[0], half = s->rowbuf_stride / 2;
#pragma omp parallel if (F->count > MG_PAR_MIN)
    {
        double *row = s->rowbuf + (int64_t)omp_get_thread_num() * s->rowbuf_stride, *res = row + half;
#pragma omp for collapse(2) schedule(static)
        for (int64_t K = C->lo[2]; K < C->hi[2]; K++)
            for (int64_t J = C->lo[1]; J < C->hi[1]; J++) {
                int first = 1;
                for (int32_t pz = tz->ptr[K]; pz < tz->ptr[K + 1]; pz++)
                    for (int32_t py = ty->ptr[J]; py < ty->ptr[J + 1]; py++) {
                        const double w = tz->w[pz] * ty->w[py];
                        const int64_t off = ty->idx[py] * F->sy + tz->idx[pz] * F->sz;
                        const double *src = rf ? rf + off : res;
                        if (!rf) (void)residual_row(F, u, f, res, off);
                        if (first) {
#pragma omp simd
                            for (int64_t i = fi0; i < fi1; i++) row[i] = w * src[i];
                        } else {
#pragma omp simd
                            for (int64_t i = fi0; i < fi1; i++) row[i] += w * src[i];
                        }
                        first = 0;
                    }
                double *dst = fc + J * C->sy + K * C->sz;
                for (int64_t I = C->lo[0]; I < C->hi[0]; I++) {
                    double acc = 0;
                    for (int32_t px = tx->ptr[I]; px < tx->ptr[I + 1]; px++) acc += tx->w[px] * row[tx->idx[px]];
                    dst[I] = acc;
                }
            }
    }
}

void mg_restrict(const fdx_solver *s, const mg_level *F, const mg_level *C, const double *rf, double *fc)
{
    restrict_rows(s, F, C, rf, NULL, NULL, fc);
}

void mg_resrestrict(const fdx_solver *s, const mg_level *F, const mg_level *C, const double *u, const double *f,
                    double *fc)
{
    restrict_rows(s, F, C, NULL, u, f, fc);
}

static double prolong_body(const mg_level *F, int64_t j, int64_t k, int64_t row, const void *arg)
{
    const mg_row_args *a = arg;
    const mg_level *C = a->C;
    const double *uc = a->a;
    const int add = a->color;
    const mg_transfer *tx = &F->tr[0], *ty = &F->tr[1], *tz = &F->tr[2];
    const int64_t csy = C->sy, csz = C->sz;
    const int64_t i0 = F->lo[0], i1 = F->hi[0];
    const int32_t *xa = tx->i0, *xb = tx->i1;
    const double *wa = tx->w0, *wb = tx->w1;
    const double v00 = tz->w0[k] * ty->w0[j], v01 = tz->w0[k] * ty->w1[j];
    const double v10 = tz->w1[k] * ty->w0[j], v11 = tz->w1[k] * ty->w1[j];
    const double *c00 = uc + ty->i0[j] * csy + tz->i0[k] * csz;
    const double *c01 = uc + ty->i1[j] * csy + tz->i0[k] * csz;
    const double *c10 = uc + ty->i0[j] * csy + tz->i1[k] * csz;
    const double *c11 = uc + ty->i1[j] * csy + tz->i1[k] * csz;
    double *dst = a->x + row;
#pragma omp simd
    for (int64_t i = i0; i < i1; i++) {
        const int32_t p = xa[i], q = xb[i];
        const double v = wa[i] * (v00 * c00[p] + v01 * c01[p] + v10 * c10[p] + v11 * c11[p]) +
                         wb[i] * (v00 * c00[q] + v01 * c01[q] + v10 * c10[q] + v11 * c11[q]);
        dst[i] = add ? dst[i] + v : v;
    }
    return 0;
}

/* uf (+)= P uc over the fine unknowns. */
void mg_prolong(const mg_level *F, const mg_level *C, const double *uc, double *uf, int add)
{
    const mg_row_args a = {.a = uc, .x = uf, .color = add, .C = C};
    (void)mg_rows(F, prolong_body, &a, 0);
}


void mg_zero(const mg_level *L, double *a)
{
    const int64_t n = L->count;
#pragma omp parallel for schedule(static) if (n > MG_PAR_MIN)
    for (int64_t i = 0; i < n; i++) a[i] = 0;
}

static double dot_body(const mg_level *L, int64_t j, int64_t k, int64_t row, const void *arg)
{
    const mg_row_args *g = arg;
    const double *a = g->a, *b = g->b;
    (void)j, (void)k;
    const int64_t i0 = L->lo[0], i1 = L->hi[0];
    double acc = 0;
#pragma omp simd reduction(+ : acc)
    for (int64_t i = row + i0; i < row + i1; i++) acc += a[i] * (b ? b[i] : 1.0);
    return acc;
}

double mg_dot(const mg_level *L, const double *a, const double *b)
{
    const mg_row_args g = {.a = a, .b = b};
    return mg_rows(L, dot_body, &g, 1);
}

double mg_sum(const mg_level *L, const double *a) { return mg_dot(L, a, NULL); }

static double shift_body(const mg_level *L, int64_t j, int64_t k, int64_t row, const void *arg)
{
    const mg_row_args *g = arg;
    double *a = g->x;
    const double v = g->s0;
    (void)j, (void)k;
    const int64_t i0 = L->lo[0], i1 = L->hi[0];
#pragma omp simd
    for (int64_t i = row + i0; i < row + i1; i++) a[i] += v;
    return 0;
}

void mg_shift(const mg_level *L, double *a, double v)
{
    const mg_row_args g = {.x = a, .s0 = v};
    (void)mg_rows(L, shift_body, &g, 0);
}

static double cg_update_body(const mg_level *L, int64_t j, int64_t k, int64_t row, const void *arg)
{
    const mg_row_args *g = arg;
    double *x = g->x, *r = g->y;
    const double *p = g->a, *q = g->b, alpha = g->s0;
    (void)j, (void)k;
    const int64_t i0 = L->lo[0], i1 = L->hi[0];
    double acc = 0;
#pragma omp simd reduction(+ : acc)
    for (int64_t i = row + i0; i < row + i1; i++) {
        x[i] += alpha * p[i];
        double v = r[i] - alpha * q[i];
        r[i] = v;
        acc += v * v;
    }
    return acc;
}

double mg_cg_update(const mg_level *L, double *x, const double *p, double *r, const double *q, double alpha)
{
    const mg_row_args g = {.a = p, .b = q, .x = x, .y = r, .s0 = alpha};
    return mg_rows(L, cg_update_body, &g, 1);
}

static double cg_direction_body(const mg_level *L, int64_t j, int64_t k, int64_t row, const void *arg)
{
    const mg_row_args *g = arg;
    double *p = g->x;
    const double *z = g->a, beta = g->s0;
    (void)j, (void)k;
    const int64_t i0 = L->lo[0], i1 = L->hi[0];
#pragma omp simd
    for (int64_t i = row + i0; i < row + i1; i++) p[i] = z[i] + beta * p[i];
    return 0;
}

void mg_cg_direction(const mg_level *L, double *p, const double *z, double beta)
{
    const mg_row_args g = {.a = z, .x = p, .s0 = beta};
    (void)mg_rows(L, cg_direction_body, &g, 0);
}

void mg_inject_boundary(const fdx_solver *s, const mg_level *F, const mg_level *C, const double *uf, double *uc)
{
    const mg_transfer *t[3] = {&F->tr[0], &F->tr[1], &F->tr[2]};
    for (int64_t K = 0; K < C->m[2]; K++)
        for (int64_t J = 0; J < C->m[1]; J++)
            for (int64_t I = 0; I < C->m[0]; I++) {
                const int64_t S[3] = {I, J, K};
                int face = 0;
                for (int a = 0; a < s->rank; a++)
                    if (s->bc[a] == FDX_BC_DIRICHLET && (S[a] == 0 || S[a] == C->m[a] - 1)) face = 1;
                if (!face) continue;
                double v = 0;
                for (int corner = 0; corner < 8; corner++) {
                    double w = 1;
                    int64_t q = 0;
                    const int64_t st[3] = {1, F->sy, F->sz};
                    for (int a = 0; a < 3; a++) {
                        const int hi = (corner >> a) & 1;
                        const double wa = hi ? 1 - t[a]->bw[S[a]] : t[a]->bw[S[a]];
                        w *= wa;
                        q += (t[a]->b0[S[a]] + hi) * st[a];
                    }
                    if (w != 0) v += w * uf[q];
                }
                uc[I + J * C->sy + K * C->sz] = v;
            }
}

static void residual_only(const mg_level *L, const double *u, const double *f, double *r) { (void)mg_residual(L, u, f, r); }
static double resnorm2(const mg_level *L, const double *u, const double *f) { return mg_residual(L, u, f, NULL); }

static void copy(const mg_level *L, double *dst, const double *src)
{
    memcpy(dst, src, (size_t)L->count * sizeof(double));
}

static void coarse(fdx_solver *s, mg_level *L)
{
    const int64_t nu = s->chol_n;
    const double *A = s->chol;
    double *x = s->chol_vec;
    for (int64_t i = 0; i < nu; i++) {
        double v = L->t[s->chol_map[i]];
        for (int64_t k = 0; k < i; k++) v -= A[i * nu + k] * x[k];
        x[i] = v / A[i * nu + i];
    }
    for (int64_t i = nu - 1; i >= 0; i--) {
        double v = x[i];
        for (int64_t k = i + 1; k < nu; k++) v -= A[k * nu + i] * x[k];
        x[i] = v / A[i * nu + i];
    }
    for (int64_t i = 0; i < nu; i++) L->u[s->chol_map[i]] += x[i];
}

void mg_copy_box(const mg_level *L, const int64_t *off, const int64_t *lo, const int64_t *hi, int64_t nx, int64_t ny,
                 const double *src, double *dst, int to_user)
{
#pragma omp parallel for collapse(2) schedule(static) if (L->count > MG_PAR_MIN)
    for (int64_t k = lo[2]; k < hi[2]; k++)
        for (int64_t j = lo[1]; j < hi[1]; j++) {
            const int64_t user = nx * (j + ny * k), stored = (j + off[1]) * L->sy + (k + off[2]) * L->sz + off[0];
            if (to_user)
                for (int64_t i = lo[0]; i < hi[0]; i++) dst[user + i] = src[stored + i];
            else
                for (int64_t i = lo[0]; i < hi[0]; i++) dst[stored + i] = src[user + i];
        }
}

/* Stored = caller + 1 on an axis with ghosts. */
void mg_user_box(const mg_level *L, int whole, int64_t *off, int64_t *lo, int64_t *hi)
{
    for (int a = 0; a < 3; a++) {
        off[a] = L->m[a] - L->n[a] == 2 ? 1 : 0;
        lo[a] = whole ? 0 : L->lo[a] - off[a];
        hi[a] = whole ? L->n[a] : L->hi[a] - off[a];
    }
}

void mg_copy_user(const fdx_solver *s, const double *src, double *dst, int to_user, int whole)
{
    int64_t off[3], lo[3], hi[3];
    mg_user_box(&s->lev[0], whole, off, lo, hi);
    mg_copy_box(&s->lev[0], off, lo, hi, s->shape[0], s->shape[1], src, dst, to_user);
}

static fdx_status ok(void) { return FDX_OK; }

static const mg_ops CPU_OPS = {
    .ghosts = mg_ghosts,
    .ghost_planes = mg_ghost_planes,
    .residual = residual_only,
    .resnorm2 = resnorm2,
    .apply = mg_apply,
    .jacobi = mg_jacobi,
    .gs_color = mg_gs_color,
    .gs_sweep = mg_gs_sweep,
    .gs_sweep2 = mg_gs_sweep2,
    .gs_sweep2p = mg_gs_sweep2p,
    .gs_sweep2_norm = mg_gs_sweep2_norm,
    .cheby = mg_cheby,
    .restrict_ = mg_restrict,
    .prolong = mg_prolong,
    .inject = mg_inject_boundary,
    .zero = mg_zero,
    .copy = copy,
    .dot = mg_dot,
    .shift = mg_shift,
    .cg_update = mg_cg_update,
    .cg_direction = mg_cg_direction,
    .coarse = coarse,
    .copy_user = mg_copy_user,
    .copy_box = mg_copy_box,
    .resrestrict = mg_resrestrict,
    .status = ok,
    .residual4 = mg_residual4,
};

const mg_ops *mg_cpu_ops(void) { return &CPU_OPS; }
