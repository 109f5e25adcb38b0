/* pml_check: the wave's perfectly matched layer (src/solvers/fdx_pml.c) on a
   context against a reference written here from the equations of
   docs/notes/apps.md (PML section): plain loops over the whole grid, psi and
   zeta stored on the whole grid, the profile and the staggered weights
   written out again (not taken from the library).  The library's step is
   the stencil's WAVE update followed by fdx_pml_step, on random u, u_prev
   and c^2, with next poisoned (NaN) before every step.  Used by test_pml
   (CPU) and test_pml_gpu (CUDA, also compared with the CPU). */
#ifndef PML_CHECK_H
#define PML_CHECK_H

#include "fdx_test.h"
#include "solvers/fdx_pml.h"

#include <string.h>

/* Staggered first-derivative weights (k = 1..r), written out for the orders tested. */
static const double PC_WS[7][6] = {
    {0},
    {1.0},
    {9.0 / 8, -1.0 / 24},
    {75.0 / 64, -25.0 / 384, 3.0 / 640},
    {1225.0 / 1024, -245.0 / 3072, 49.0 / 5120, -5.0 / 7168},
    {19845.0 / 16384, -735.0 / 8192, 567.0 / 40960, -405.0 / 229376, 35.0 / 294912},
    {160083.0 / 131072, -12705.0 / 131072, 22869.0 / 1310720, -5445.0 / 1835008, 847.0 / 2359296, -63.0 / 2883584}};

typedef struct pc_case {
    int rank, order, width;
    int64_t n[3];
} pc_case;

/* The documented profile: depth xi from the interface (0) to the wall (1). */
static void pc_coefs(const fdx_pml_desc *d, int a, double x, double *b, double *c)
{
    int m = d->width - d->r;
    double xi = (d->width - 1 - x) / m, up = (x - (double)(d->n[a] - d->width)) / m;
    if (up > xi) xi = up;
    double damp = 0, shift = 0;
    if (xi > 0) {
        if (xi > 1) xi = 1;
        damp = (d->power + 1) * d->cmax * log(1 / d->r0) / (2 * m * d->h) * pow(xi, d->power);
        shift = d->alpha_max * (1 - xi);
    }
    *b = exp(-(damp + shift) * d->dt);
    *c = damp > 0 ? damp * (*b - 1) / (damp + shift) : 0;
}

/* One reference step: psi (half points, stored at their lower grid point),
   then next and zeta at every unknown. */
static void pc_ref_step(const fdx_pml_desc *d, const double *w2, double *next, const double *u, const double *up,
                        const double *c2, double **psi, double **zeta)
{
    int64_t n[3] = {d->n[0], d->n[1], d->rank == 3 ? d->n[2] : 1}, st[3] = {1, n[0], n[0] * n[1]};
    int r = d->r, R = d->rank;
    const double *ws = PC_WS[r];
    int64_t lo2 = R == 3 ? r : 0, hi2 = R == 3 ? n[2] - r : 1;
    for (int a = 0; a < R; a++)
        for (int64_t q = 0; q < n[0] * n[1] * n[2]; q++) {
            int64_t g[3] = {q % n[0], q / n[0] % n[1], q / (n[0] * n[1])};
            int on = g[a] >= r - 1 && g[a] < n[a] - r; /* half points from the wall to the wall */
            for (int b = 0; b < R; b++)
                if (b != a) on &= g[b] >= r && g[b] < n[b] - r;
            if (!on) continue;
            double b, c, du = 0;
            pc_coefs(d, a, g[a] + 0.5, &b, &c);
            for (int m = 1; m <= r; m++) du += ws[m - 1] / d->h * (u[q + m * st[a]] - u[q + (1 - m) * st[a]]);
            psi[a][q] = b * psi[a][q] + c * du;
        }
    for (int64_t k = lo2; k < hi2; k++)
        for (int64_t j = r; j < n[1] - r; j++)
            for (int64_t i = r; i < n[0] - r; i++) {
                int64_t g[3] = {i, j, k}, q = i + n[0] * (j + n[1] * k);
                double sum = 0;
                for (int a = 0; a < R; a++) {
                    double lap = w2[r] * u[q], dpsi = 0, b, c;
                    for (int m = 1; m <= r; m++) {
                        lap += w2[r + m] * (u[q + m * st[a]] + u[q - m * st[a]]);
                        dpsi += ws[m - 1] / d->h * (psi[a][q + (m - 1) * st[a]] - psi[a][q - m * st[a]]);
                    }
                    lap /= d->h * d->h;
                    pc_coefs(d, a, (double)g[a], &b, &c);
                    zeta[a][q] = b * zeta[a][q] + c * (lap + dpsi);
                    sum += lap + dpsi + zeta[a][q];
                }
                next[q] = 2 * u[q] - up[q] + d->dt * d->dt * c2[q] * sum;
            }
}

static fdx_array *pc_array(fdx_ctx *ctx, fdx_dtype t, int rank, const int64_t *n, const double *v)
{
    fdx_array *a = NULL;
    if (fdx_array_create(ctx, t, rank, n, FDX_ON_HOST | FDX_ON_DEVICE, &a) != FDX_OK) return NULL;
    int64_t cnt = fdx_array_count(a);
    void *h = fdx_array_host(a);
    for (int64_t q = 0; q < cnt; q++) {
        if (t == FDX_FLOAT64) ((double *)h)[q] = v[q];
        else ((float *)h)[q] = (float)v[q];
    }
    if (fdx_array_to_device(a) != FDX_OK) fdx_array_destroy(&a);
    return a;
}

static void pc_read(fdx_array *a, double *v)
{
    CHECK_OK(fdx_array_to_host(a));
    const void *h = fdx_array_host(a);
    for (int64_t q = 0; q < fdx_array_count(a); q++)
        v[q] = fdx_array_dtype(a) == FDX_FLOAT64 ? ((const double *)h)[q] : (double)((const float *)h)[q];
}

/* K steps of the library and the reference from the same random state; the
   largest difference of any step's next relative to max |u|.  The library's
   last field goes to out (count values) when out is not NULL. */
static double pc_run(fdx_ctx *ctx, const char *name, const pc_case *pc, fdx_dtype t, int steps, uint64_t seed,
                     double *out)
{
    int r = pc->order / 2, R = pc->rank;
    int64_t n[3] = {pc->n[0], pc->n[1], R == 3 ? pc->n[2] : 1}, cnt = n[0] * n[1] * n[2];
    double h = 0.01;
    fdx_pml_desc d = {R, {n[0], n[1], n[2]}, r, pc->width, h, 0.3 * h, 1.0, 1e-5, FDX_PML_POWER, 20.0};
    double w2[2 * FDX_PML_MAX_R + 1];
    CHECK_OK(fdx_fd_weights(2, pc->order, w2));
    double *f[3], *c2 = calloc((size_t)cnt, sizeof(double)), *psi[3] = {0}, *zeta[3] = {0};
    double *got = calloc((size_t)cnt, sizeof(double)), *poison = malloc((size_t)cnt * sizeof(double));
    for (int l = 0; l < 3; l++) f[l] = calloc((size_t)cnt, sizeof(double));
    for (int a = 0; a < R; a++) {
        psi[a] = calloc((size_t)cnt, sizeof(double));
        zeta[a] = calloc((size_t)cnt, sizeof(double));
    }
    /* Random fields on the unknowns (the fixed frame is zero); c^2 in [0.25, 1]. */
    for (int64_t q = 0; q < cnt; q++) {
        int64_t g[3] = {q % n[0], q / n[0] % n[1], q / (n[0] * n[1])};
        int inner = 1;
        for (int a = 0; a < R; a++) inner &= g[a] >= r && g[a] < n[a] - r;
        double v = fdx_test_rand(&seed), w = fdx_test_rand(&seed);
        poison[q] = inner ? NAN : 0; /* next: NaN at every unknown, the frame's zeros kept */
        f[1][q] = inner ? v : 0;
        f[2][q] = inner ? v + 0.1 * w : 0;
        c2[q] = 0.625 + 0.375 * fdx_test_rand(&seed);
    }
    fdx_stencil_desc sd;
    double hh[3] = {h, h, h};
    fdx_stencil_desc_laplacian(&sd, R, pc->order, hh);
    sd.update = FDX_UPDATE_WAVE, sd.coef = 1, sd.alpha = d.dt * d.dt;
    fdx_stencil *sten = NULL;
    fdx_pml *pml = NULL;
    CHECK_OK(fdx_stencil_create(ctx, &sd, t, &sten));
    CHECK_OK(fdx_pml_create(ctx, t, &d, &pml));
    fdx_array *A[3] = {pc_array(ctx, t, R, n, f[0]), pc_array(ctx, t, R, n, f[1]), pc_array(ctx, t, R, n, f[2])};
    fdx_array *C = pc_array(ctx, t, R, n, c2);
    double worst = INFINITY;
    if (sten && pml && A[0] && A[1] && A[2] && C) {
        worst = 0;
        for (int s = 0; s < steps; s++) {
            fdx_array_destroy(&A[0]);
            A[0] = pc_array(ctx, t, R, n, poison);
            CHECK_OK(fdx_stencil_apply(sten, A[0], A[1], A[2], C, NULL));
            CHECK_OK(fdx_pml_step(pml, A[0], A[1], C, NULL));
            pc_ref_step(&d, w2, f[0], f[1], f[2], c2, psi, zeta);
            pc_read(A[0], got);
            double umax = 0, err = 0;
            for (int64_t q = 0; q < cnt; q++) {
                if (fabs(f[0][q]) > umax) umax = fabs(f[0][q]);
                double e = fabs(got[q] - f[0][q]);
                if (!(e <= err)) err = e; /* NaN wins */
            }
            if (!(err / umax <= worst)) worst = err / umax;
            /* Rotate: the library's own arrays, the reference's own fields. */
            fdx_array *ta = A[2];
            A[2] = A[1], A[1] = A[0], A[0] = ta;
            double *tf = f[2];
            f[2] = f[1], f[1] = f[0], f[0] = tf;
        }
        if (out) pc_read(A[1], out);
        /* The layer acted: psi somewhere non-zero (random fields reach every slab at once). */
        double ps = 0;
        for (int a = 0; a < R; a++)
            for (int64_t q = 0; q < cnt; q++) ps += fabs(psi[a][q]);
        CHECK(ps > 0, "%s: the reference's psi stayed zero", name);
    }
    printf("%s: %dD order %d width %d %s, %d steps: max |lib - ref| / max |u| = %.3g\n", name, R, pc->order,
           pc->width, t == FDX_FLOAT64 ? "double" : "float", steps, worst);
    for (int l = 0; l < 3; l++) {
        fdx_array_destroy(&A[l]);
        free(f[l]);
    }
    for (int a = 0; a < R; a++) free(psi[a]), free(zeta[a]);
    fdx_array_destroy(&C);
    fdx_pml_destroy(&pml);
    fdx_stencil_destroy(&sten);
    free(c2);
    free(got);
    free(poison);
    return worst;
}

/* A wave simulation of the given keys (NULL-terminated pairs) on ctx. */
static fdx_sim *pc_sim(fdx_ctx *ctx, const char **kv)
{
    fdx_sim_config *c = NULL;
    fdx_sim *s = NULL;
    CHECK_OK(fdx_sim_config_create(FDX_SIM_WAVE, &c));
    for (int i = 0; c && kv[i]; i += 2) CHECK_OK(fdx_sim_config_set(c, kv[i], kv[i + 1]));
    if (c) CHECK_OK(fdx_sim_create(ctx, c, &s));
    fdx_sim_config_destroy(&c);
    return s;
}

static const pc_case PC_CASES[] = {
    {2, 2, 6, {40, 33, 1}}, {2, 4, 8, {37, 42, 1}}, {2, 8, 9, {45, 39, 1}},
    {3, 2, 5, {22, 19, 17}}, {3, 4, 7, {21, 24, 19}}, {3, 8, 10, {26, 23, 29}},
};
#define PC_NCASES ((int)(sizeof PC_CASES / sizeof PC_CASES[0]))
/* The other radii (3, 5, 6): the fused pass is specialised per radius. */
static const pc_case PC_MORE[] = {{2, 6, 8, {41, 38, 1}}, {3, 10, 8, {23, 21, 25}}, {2, 12, 9, {43, 40, 1}}};
#define PC_NMORE ((int)(sizeof PC_MORE / sizeof PC_MORE[0]))

/* The fused pass (FDX_PML_TWOPASS=0) and the two passes (=1) on ctx, every
   case and radius, float and double: both near the reference, and equal bit
   for bit (one case in the 64-bit index variant). */
static void pc_fused_vs_twopass(fdx_ctx *ctx, const char *backend, uint64_t seed)
{
    for (int i = 0; i < PC_NCASES + PC_NMORE; i++) {
        const pc_case *pc = i < PC_NCASES ? &PC_CASES[i] : &PC_MORE[i - PC_NCASES];
        int64_t cnt = pc->n[0] * pc->n[1] * (pc->rank == 3 ? pc->n[2] : 1);
        double *one = calloc((size_t)cnt, sizeof(double)), *two = calloc((size_t)cnt, sizeof(double));
        for (int t = 0; t < 2; t++) {
            fdx_dtype type = t ? FDX_FLOAT32 : FDX_FLOAT64;
            if (i == PC_NCASES - 1) setenv("FDX_PML_INDEX64", "1", 1);
            setenv("FDX_PML_TWOPASS", "1", 1);
            double e2 = pc_run(ctx, "two passes", pc, type, 9, seed + i, two);
            setenv("FDX_PML_TWOPASS", "0", 1);
            double e1 = pc_run(ctx, "fused", pc, type, 9, seed + i, one);
            unsetenv("FDX_PML_TWOPASS");
            unsetenv("FDX_PML_INDEX64");
            double tol = t ? 5e-5 : 1e-11;
            CHECK(e1 < tol && e2 < tol, "%s case %d %s: fused %.3g, two passes %.3g from the reference", backend, i,
                  t ? "float" : "double", e1, e2);
            CHECK(memcmp(one, two, (size_t)cnt * sizeof(double)) == 0,
                  "%s case %d %s: the fused pass differs from the two passes", backend, i, t ? "float" : "double");
        }
        free(one);
        free(two);
    }
}

#endif
