/* NPB LU's routines as fdx loops (tools/fdx/lu_loops.c) against plain C
   transcriptions of NPB's Fortran routines (written out here, per
   direction, without the loops' generic forms) on a small random grid of
   distinct extents: setiv, erhs, rhs, jacld+blts, jacu+buts, the update,
   l2norm, error, pintgr.  Outputs are poisoned with NaN first: points a
   routine must not write stay NaN. */
#include "fdx_test.h"
#include "loops/fdx_loop_impl.h"
#include "lu.h"
#ifdef FDX_HAVE_CUDA
#include "backends/cuda/fdx_cuda.h"
#endif

#include <string.h>

#ifndef LU_TEST_BACKEND
#define LU_TEST_BACKEND "cpu"
#define LU_TEST_NAME "test_lu"
#endif

#define NX 8
#define NY 7
#define NZ 9
#define NP (NX * NY * NZ)
#define AT(i, j, k) ((i) + NX * ((j) + NY * (k)))
#define V5(a, m, i, j, k) (a)[(m) + 5 * AT(i, j, k)]

static const double c1 = 1.4, c2 = 0.4, c3 = 0.1, c4 = 1.0, c5 = 1.4;
static const double dxc = 0.75, dyc = 0.75, dzc = 1.0;
static uint64_t seed = 4242;
static fdx_ctx *ctx;
static lu *p;

static double *vec(size_t n, double fill)
{
    double *v = malloc(n * sizeof(double));
    for (size_t q = 0; q < n; q++) v[q] = fill;
    return v;
}

/* A random state: density in [1, 1.5], the rest in [-1, 1). */
static void random_state(double *u)
{
    for (int q = 0; q < NP; q++)
        for (int m = 0; m < 5; m++) u[m + 5 * q] = m == 0 ? 1.25 + 0.25 * fdx_test_rand(&seed) : fdx_test_rand(&seed);
}

static void random_field(double *v, size_t n)
{
    for (size_t q = 0; q < n; q++) v[q] = fdx_test_rand(&seed);
}

static int interior(int i, int j, int k)
{
    return i > 0 && j > 0 && k > 0 && i < NX - 1 && j < NY - 1 && k < NZ - 1;
}

/* got vs want at every point: equal within tol (relative to max(1,|want|))
   where want is a number, NaN (untouched) where want is NaN. */
static void compare(const char *what, const double *got, const double *want, size_t n, double tol)
{
    double e = 0;
    size_t bad = 0;
    for (size_t q = 0; q < n; q++) {
        if (isnan(want[q])) {
            bad += !isnan(got[q]);
            continue;
        }
        double d = fabs(got[q] - want[q]) / fmax(1.0, fabs(want[q]));
        if (!(d <= e)) e = d;
    }
    CHECK(e <= tol && bad == 0, "%s: max relative error %.3g (tolerance %.3g), %zu points written that must not be", what,
          e, tol, bad);
}

static void exact(int i, int j, int k, double *ue)
{
    double xi = (double)i / (NX - 1), eta = (double)j / (NY - 1), zeta = (double)k / (NZ - 1);
    for (int m = 0; m < 5; m++) {
        const double *ce = lu_ce[m];
        ue[m] = ce[0] + (ce[1] + (ce[4] + (ce[7] + ce[10] * xi) * xi) * xi) * xi +
                (ce[2] + (ce[5] + (ce[8] + ce[11] * eta) * eta) * eta) * eta +
                (ce[3] + (ce[6] + (ce[9] + ce[12] * zeta) * zeta) * zeta) * zeta;
    }
}

/* ---- setbv + setiv --------------------------------------------------------- */
static void test_setiv(void)
{
    double *u = vec(5 * NP, NAN), *want = vec(5 * NP, 0), *got = vec(5 * NP, 0);
    CHECK_OK(fdx_array_put(p->u, u));
    CHECK_OK(lu_setiv(p));
    CHECK_OK(fdx_array_get(p->u, got));
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                double e[5];
                exact(i, j, k, e);
                if (!interior(i, j, k)) {
                    for (int m = 0; m < 5; m++) V5(want, m, i, j, k) = e[m];
                    continue;
                }
                double xi = (double)i / (NX - 1), eta = (double)j / (NY - 1), zeta = (double)k / (NZ - 1);
                double a[5], b[5], c[5], d[5], f[5], g[5];
                exact(0, j, k, a), exact(NX - 1, j, k, b), exact(i, 0, k, c), exact(i, NY - 1, k, d);
                exact(i, j, 0, f), exact(i, j, NZ - 1, g);
                for (int m = 0; m < 5; m++) {
                    double px = (1 - xi) * a[m] + xi * b[m], py = (1 - eta) * c[m] + eta * d[m],
                           pz = (1 - zeta) * f[m] + zeta * g[m];
                    V5(want, m, i, j, k) = px + py + pz - px * py - py * pz - pz * px + px * py * pz;
                }
            }
    compare("setiv u", got, want, 5 * NP, 1e-14);
    free(u), free(want), free(got);
}

/* ---- rhs / erhs: NPB's rhs, one direction at a time with flux lines ---------- */
static void ref_rhs(const double *u, const double *frct, double *rsd, double *rho, double *qs)
{
    for (int q = 0; q < NP; q++) {
        rho[q] = 1.0 / u[5 * q];
        qs[q] = 0.5 * (u[5 * q + 1] * u[5 * q + 1] + u[5 * q + 2] * u[5 * q + 2] + u[5 * q + 3] * u[5 * q + 3]) * rho[q];
    }
    for (int k = 1; k < NZ - 1; k++)
        for (int j = 1; j < NY - 1; j++)
            for (int i = 1; i < NX - 1; i++)
                for (int m = 0; m < 5; m++) V5(rsd, m, i, j, k) = frct ? -V5(frct, m, i, j, k) : 0.0;
    const double t1[3] = {p->tx1, p->ty1, p->tz1}, t2[3] = {p->tx2, p->ty2, p->tz2}, t3[3] = {p->tx3, p->ty3, p->tz3};
    const double dd[3] = {dxc, dyc, dzc};
    const int nn[3] = {NX, NY, NZ};
    for (int d = 0; d < 3; d++) {
        int n = d + 1, len = nn[d];
        /* lines along d: the two other indices run over the interior */
        for (int b = 1; b < (d == 2 ? NY : NZ) - 1; b++)
            for (int a = 1; a < (d == 0 ? NY : NX) - 1; a++) {
                int pt[64];
                for (int s = 0; s < len; s++)
                    pt[s] = d == 0 ? AT(s, a, b) : d == 1 ? AT(a, s, b) : AT(a, b, s);
                double flux[64][5];
                for (int s = 0; s < len; s++) {
                    const double *w = u + 5 * pt[s];
                    double un = w[n] * rho[pt[s]];
                    flux[s][0] = w[n];
                    for (int c = 1; c < 4; c++) flux[s][c] = w[c] * un + (c == n ? c2 * (w[4] - qs[pt[s]]) : 0.0);
                    flux[s][4] = (c1 * w[4] - c2 * qs[pt[s]]) * un;
                }
                for (int s = 1; s < len - 1; s++)
                    for (int m = 0; m < 5; m++) rsd[m + 5 * pt[s]] -= t2[d] * (flux[s + 1][m] - flux[s - 1][m]);
                for (int s = 1; s < len; s++) {
                    double v[5], vm[5];
                    for (int c = 1; c < 5; c++) {
                        v[c] = rho[pt[s]] * u[c + 5 * pt[s]];
                        vm[c] = rho[pt[s - 1]] * u[c + 5 * pt[s - 1]];
                    }
                    for (int c = 1; c < 4; c++) flux[s][c] = (c == n ? 4.0 / 3.0 : 1.0) * t3[d] * (v[c] - vm[c]);
                    flux[s][4] = 0.5 * (1.0 - c1 * c5) * t3[d] *
                                     ((v[1] * v[1] + v[2] * v[2] + v[3] * v[3]) - (vm[1] * vm[1] + vm[2] * vm[2] + vm[3] * vm[3])) +
                                 (1.0 / 6.0) * t3[d] * (v[n] * v[n] - vm[n] * vm[n]) + c1 * c5 * t3[d] * (v[4] - vm[4]);
                }
                for (int s = 1; s < len - 1; s++) {
                    double *r = rsd + 5 * pt[s];
                    const double *um = u + 5 * pt[s - 1], *u0 = u + 5 * pt[s], *up = u + 5 * pt[s + 1];
                    r[0] += dd[d] * t1[d] * (um[0] - 2.0 * u0[0] + up[0]);
                    for (int m = 1; m < 5; m++)
                        r[m] += t3[d] * c3 * c4 * (flux[s + 1][m] - flux[s][m]) + dd[d] * t1[d] * (um[m] - 2.0 * u0[m] + up[m]);
                }
                /* fourth-order dissipation, NPB's boundary forms */
                for (int m = 0; m < 5; m++) {
#define UL(s) u[m + 5 * pt[s]]
#define RL(s) rsd[m + 5 * pt[s]]
                    RL(1) -= p->dssp * (5.0 * UL(1) - 4.0 * UL(2) + UL(3));
                    RL(2) -= p->dssp * (-4.0 * UL(1) + 6.0 * UL(2) - 4.0 * UL(3) + UL(4));
                    for (int s = 3; s < len - 3; s++)
                        RL(s) -= p->dssp * (UL(s - 2) - 4.0 * UL(s - 1) + 6.0 * UL(s) - 4.0 * UL(s + 1) + UL(s + 2));
                    RL(len - 3) -= p->dssp * (UL(len - 5) - 4.0 * UL(len - 4) + 6.0 * UL(len - 3) - 4.0 * UL(len - 2));
                    RL(len - 2) -= p->dssp * (UL(len - 4) - 4.0 * UL(len - 3) + 5.0 * UL(len - 2));
#undef UL
#undef RL
                }
            }
    }
}

static void test_rhs(void)
{
    double *u = vec(5 * NP, 0), *frct = vec(5 * NP, 0), *rsd = vec(5 * NP, NAN), *want = vec(5 * NP, NAN);
    double *rho = vec(NP, 0), *qs = vec(NP, 0), *got = vec(5 * NP, 0), *g1 = vec(NP, 0);
    random_state(u);
    random_field(frct, 5 * NP);
    CHECK_OK(fdx_array_put(p->u, u));
    CHECK_OK(fdx_array_put(p->frct, frct));
    CHECK_OK(fdx_array_put(p->rsd, rsd));
    CHECK_OK(lu_rhs(p));
    ref_rhs(u, frct, want, rho, qs);
    CHECK_OK(fdx_array_get(p->rsd, got));
    compare("rhs rsd", got, want, 5 * NP, 1e-12);
    CHECK_OK(fdx_array_get(p->rho_i, g1));
    compare("rhs rho_i", g1, rho, NP, 1e-15);
    CHECK_OK(fdx_array_get(p->qs, g1));
    compare("rhs qs", g1, qs, NP, 1e-15);

    /* erhs: the same operator on the exact solution, no forcing; frct
       poisoned, its boundary must stay untouched */
    double *ue = vec(5 * NP, 0), *f = vec(5 * NP, NAN);
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) exact(i, j, k, ue + 5 * AT(i, j, k));
    CHECK_OK(fdx_array_put(p->frct, f));
    CHECK_OK(lu_erhs(p));
    for (int q = 0; q < 5 * NP; q++) want[q] = NAN;
    ref_rhs(ue, NULL, want, rho, qs);
    CHECK_OK(fdx_array_get(p->frct, got));
    compare("erhs frct", got, want, 5 * NP, 1e-12);
    free(u), free(frct), free(rsd), free(want), free(rho), free(qs), free(got), free(g1), free(ue), free(f);
}

/* ---- jacld/jacu: NPB's blocks written out per direction ------------------ */
/* The block of the neighbour state w (1/rho tmp1, kinetic energy q) in
   direction x (NPB's c in jacld, a in jacu), y (b), z (a in jacld, c in
   jacu); sg = -1 lower, +1 upper. */
static void ref_block(int d, double sg, const double *w, double tmp1, double q, double M[5][5])
{
    const double dt = p->dt, r43 = 4.0 / 3.0, c34 = c3 * c4, c1345 = c1 * c3 * c4 * c5;
    const double tmp2 = tmp1 * tmp1, tmp3 = tmp1 * tmp2;
    memset(M, 0, 25 * sizeof(double));
    double u2 = w[1], u3 = w[2], u4 = w[3], u5 = w[4];
    if (d == 0) {
        double t1 = p->tx1, t2 = sg * dt * p->tx2, f = dt * t1;
        M[0][0] = -f * dxc, M[0][1] = t2;
        M[1][0] = t2 * (-(u2 * tmp1) * (u2 * tmp1) + c2 * q * tmp1) - f * (-r43 * c34 * tmp2 * u2);
        M[1][1] = t2 * ((2.0 - c2) * (u2 * tmp1)) - f * (r43 * c34 * tmp1) - f * dxc;
        M[1][2] = t2 * (-c2 * (u3 * tmp1)), M[1][3] = t2 * (-c2 * (u4 * tmp1)), M[1][4] = t2 * c2;
        M[2][0] = t2 * (-(u2 * u3) * tmp2) - f * (-c34 * tmp2 * u3);
        M[2][1] = t2 * (u3 * tmp1), M[2][2] = t2 * (u2 * tmp1) - f * (c34 * tmp1) - f * dxc;
        M[3][0] = t2 * (-(u2 * u4) * tmp2) - f * (-c34 * tmp2 * u4);
        M[3][1] = t2 * (u4 * tmp1), M[3][3] = t2 * (u2 * tmp1) - f * (c34 * tmp1) - f * dxc;
        M[4][0] = t2 * ((c2 * 2.0 * q - c1 * u5) * u2 * tmp2) -
                  f * (-(r43 * c34 - c1345) * tmp3 * (u2 * u2) - (c34 - c1345) * tmp3 * (u3 * u3) -
                       (c34 - c1345) * tmp3 * (u4 * u4) - c1345 * tmp2 * u5);
        M[4][1] = t2 * (c1 * (u5 * tmp1) - c2 * (u2 * u2 * tmp2 + q * tmp1)) - f * (r43 * c34 - c1345) * tmp2 * u2;
        M[4][2] = t2 * (-c2 * (u3 * u2) * tmp2) - f * (c34 - c1345) * tmp2 * u3;
        M[4][3] = t2 * (-c2 * (u4 * u2) * tmp2) - f * (c34 - c1345) * tmp2 * u4;
        M[4][4] = t2 * (c1 * (u2 * tmp1)) - f * c1345 * tmp1 - f * dxc;
    } else if (d == 1) {
        double t1 = p->ty1, t2 = sg * dt * p->ty2, f = dt * t1;
        M[0][0] = -f * dyc, M[0][2] = t2;
        M[1][0] = t2 * (-(u2 * u3) * tmp2) - f * (-c34 * tmp2 * u2);
        M[1][1] = t2 * (u3 * tmp1) - f * (c34 * tmp1) - f * dyc, M[1][2] = t2 * (u2 * tmp1);
        M[2][0] = t2 * (-(u3 * tmp1) * (u3 * tmp1) + c2 * (q * tmp1)) - f * (-r43 * c34 * tmp2 * u3);
        M[2][1] = t2 * (-c2 * (u2 * tmp1));
        M[2][2] = t2 * ((2.0 - c2) * (u3 * tmp1)) - f * (r43 * c34 * tmp1) - f * dyc;
        M[2][3] = t2 * (-c2 * (u4 * tmp1)), M[2][4] = t2 * c2;
        M[3][0] = t2 * (-(u3 * u4) * tmp2) - f * (-c34 * tmp2 * u4);
        M[3][2] = t2 * (u4 * tmp1), M[3][3] = t2 * (u3 * tmp1) - f * (c34 * tmp1) - f * dyc;
        M[4][0] = t2 * ((c2 * 2.0 * q - c1 * u5) * (u3 * tmp2)) -
                  f * (-(c34 - c1345) * tmp3 * (u2 * u2) - (r43 * c34 - c1345) * tmp3 * (u3 * u3) -
                       (c34 - c1345) * tmp3 * (u4 * u4) - c1345 * tmp2 * u5);
        M[4][1] = t2 * (-c2 * (u2 * u3) * tmp2) - f * (c34 - c1345) * tmp2 * u2;
        M[4][2] = t2 * (c1 * (u5 * tmp1) - c2 * (q * tmp1 + u3 * u3 * tmp2)) - f * (r43 * c34 - c1345) * tmp2 * u3;
        M[4][3] = t2 * (-c2 * (u3 * u4) * tmp2) - f * (c34 - c1345) * tmp2 * u4;
        M[4][4] = t2 * (c1 * (u3 * tmp1)) - f * c1345 * tmp1 - f * dyc;
    } else {
        double t1 = p->tz1, t2 = sg * dt * p->tz2, f = dt * t1;
        M[0][0] = -f * dzc, M[0][3] = t2;
        M[1][0] = t2 * (-(u2 * u4) * tmp2) - f * (-c34 * tmp2 * u2);
        M[1][1] = t2 * (u4 * tmp1) - f * c34 * tmp1 - f * dzc, M[1][3] = t2 * (u2 * tmp1);
        M[2][0] = t2 * (-(u3 * u4) * tmp2) - f * (-c34 * tmp2 * u3);
        M[2][2] = t2 * (u4 * tmp1) - f * (c34 * tmp1) - f * dzc, M[2][3] = t2 * (u3 * tmp1);
        M[3][0] = t2 * (-(u4 * tmp1) * (u4 * tmp1) + c2 * q * tmp1) - f * (-r43 * c34 * tmp2 * u4);
        M[3][1] = t2 * (-c2 * (u2 * tmp1)), M[3][2] = t2 * (-c2 * (u3 * tmp1));
        M[3][3] = t2 * (2.0 - c2) * (u4 * tmp1) - f * (r43 * c34 * tmp1) - f * dzc, M[3][4] = t2 * c2;
        M[4][0] = t2 * ((c2 * 2.0 * q - c1 * u5) * u4 * tmp2) -
                  f * (-(c34 - c1345) * tmp3 * (u2 * u2) - (c34 - c1345) * tmp3 * (u3 * u3) -
                       (r43 * c34 - c1345) * tmp3 * (u4 * u4) - c1345 * tmp2 * u5);
        M[4][1] = t2 * (-c2 * (u2 * u4) * tmp2) - f * (c34 - c1345) * tmp2 * u2;
        M[4][2] = t2 * (-c2 * (u3 * u4) * tmp2) - f * (c34 - c1345) * tmp2 * u3;
        M[4][3] = t2 * (c1 * (u5 * tmp1) - c2 * (q * tmp1 + u4 * u4 * tmp2)) - f * (r43 * c34 - c1345) * tmp2 * u4;
        M[4][4] = t2 * (c1 * (u4 * tmp1)) - f * c1345 * tmp1 - f * dzc;
    }
}

/* jacld's d (the same in jacu): the diagonal block. */
static void ref_diag(const double *w, double tmp1, double D[5][5])
{
    const double dt = p->dt, r43 = 4.0 / 3.0, c34 = c3 * c4, c1345 = c1 * c3 * c4 * c5;
    const double tx1 = p->tx1, ty1 = p->ty1, tz1 = p->tz1, tmp2 = tmp1 * tmp1, tmp3 = tmp1 * tmp2;
    const double dis = dt * 2.0 * (tx1 * dxc + ty1 * dyc + tz1 * dzc);
    memset(D, 0, 25 * sizeof(double));
    D[0][0] = 1.0 + dis;
    D[1][0] = -dt * 2.0 * (tx1 * r43 + ty1 + tz1) * c34 * tmp2 * w[1];
    D[1][1] = 1.0 + dt * 2.0 * c34 * tmp1 * (tx1 * r43 + ty1 + tz1) + dis;
    D[2][0] = -dt * 2.0 * (tx1 + ty1 * r43 + tz1) * c34 * tmp2 * w[2];
    D[2][2] = 1.0 + dt * 2.0 * c34 * tmp1 * (tx1 + ty1 * r43 + tz1) + dis;
    D[3][0] = -dt * 2.0 * (tx1 + ty1 + tz1 * r43) * c34 * tmp2 * w[3];
    D[3][3] = 1.0 + dt * 2.0 * c34 * tmp1 * (tx1 + ty1 + tz1 * r43) + dis;
    double a = tx1 * (r43 * c34 - c1345) + ty1 * (c34 - c1345) + tz1 * (c34 - c1345);
    double b = tx1 * (c34 - c1345) + ty1 * (r43 * c34 - c1345) + tz1 * (c34 - c1345);
    double c = tx1 * (c34 - c1345) + ty1 * (c34 - c1345) + tz1 * (r43 * c34 - c1345);
    D[4][0] = -dt * 2.0 * ((a * (w[1] * w[1]) + b * (w[2] * w[2]) + c * (w[3] * w[3])) * tmp3 + (tx1 + ty1 + tz1) * c1345 * tmp2 * w[4]);
    D[4][1] = dt * 2.0 * tmp2 * w[1] * a;
    D[4][2] = dt * 2.0 * tmp2 * w[2] * b;
    D[4][3] = dt * 2.0 * tmp2 * w[3] * c;
    D[4][4] = 1.0 + dt * 2.0 * (tx1 + ty1 + tz1) * c1345 * tmp1 + dis;
}

/* NPB's full Gaussian elimination of D x = tv, x into tv. */
static void ref_solve(double D[5][5], double *tv)
{
    for (int p0 = 0; p0 < 5; p0++) {
        double t = 1.0 / D[p0][p0];
        for (int m = p0 + 1; m < 5; m++) {
            double f = t * D[m][p0];
            for (int c = p0 + 1; c < 5; c++) D[m][c] -= f * D[p0][c];
            tv[m] -= tv[p0] * f;
        }
    }
    for (int m = 4; m >= 0; m--) {
        for (int c = m + 1; c < 5; c++) tv[m] -= D[m][c] * tv[c];
        tv[m] /= D[m][m];
    }
}

/* blts (lower = 1) or buts on v in NPB's order. */
static void ref_sweep(int lower, const double *u, const double *rho, const double *qs, double *v)
{
    const double om = p->omega;
    if (lower)
        for (int k = 1; k < NZ - 1; k++)
            for (int j = 1; j < NY - 1; j++)
                for (int i = 1; i < NX - 1; i++)
                    for (int m = 0; m < 5; m++) V5(v, m, i, j, k) *= p->dt;
    for (int kk = 1; kk < NZ - 1; kk++)
        for (int jj = 1; jj < NY - 1; jj++)
            for (int ii = 1; ii < NX - 1; ii++) {
                int i = lower ? ii : NX - 1 - ii, j = lower ? jj : NY - 1 - jj, k = lower ? kk : NZ - 1 - kk;
                int o = lower ? -1 : 1;
                int nb[3] = {AT(i + o, j, k), AT(i, j + o, k), AT(i, j, k + o)};
                double M[3][5][5], D[5][5], tv[5];
                for (int d = 0; d < 3; d++) ref_block(d, lower ? -1.0 : 1.0, u + 5 * nb[d], rho[nb[d]], qs[nb[d]], M[d]);
                ref_diag(u + 5 * AT(i, j, k), rho[AT(i, j, k)], D);
                for (int m = 0; m < 5; m++) {
                    double s = 0;
                    for (int c = 0; c < 5; c++) s += M[2][m][c] * v[c + 5 * nb[2]];
                    double t = 0;
                    for (int c = 0; c < 5; c++) t += M[1][m][c] * v[c + 5 * nb[1]] + M[0][m][c] * v[c + 5 * nb[0]];
                    tv[m] = lower ? V5(v, m, i, j, k) - om * s - om * t : om * s + om * t;
                }
                ref_solve(D, tv);
                for (int m = 0; m < 5; m++) V5(v, m, i, j, k) = lower ? tv[m] : V5(v, m, i, j, k) - tv[m];
            }
}

static void test_sweeps(void)
{
    double *u = vec(5 * NP, 0), *v = vec(5 * NP, 0), *want = vec(5 * NP, 0), *got = vec(5 * NP, 0);
    double *rho = vec(NP, 0), *qs = vec(NP, 0);
    random_state(u);
    random_field(v, 5 * NP);
    for (int q = 0; q < NP; q++) {
        rho[q] = 1.0 / u[5 * q];
        qs[q] = 0.5 * (u[5 * q + 1] * u[5 * q + 1] + u[5 * q + 2] * u[5 * q + 2] + u[5 * q + 3] * u[5 * q + 3]) * rho[q];
    }
    CHECK_OK(fdx_array_put(p->u, u));
    CHECK_OK(fdx_array_put(p->rho_i, rho));
    CHECK_OK(fdx_array_put(p->qs, qs));
    for (int lower = 1; lower >= 0; lower--) {
        memcpy(want, v, 5 * NP * sizeof(double));
        CHECK_OK(fdx_array_put(p->rsd, v));
        CHECK_OK(lower ? lu_blts(p) : lu_buts(p));
        ref_sweep(lower, u, rho, qs, want);
        CHECK_OK(fdx_array_get(p->rsd, got));
        compare(lower ? "jacld+blts rsd" : "jacu+buts rsd", got, want, 5 * NP, 1e-10);
    }
    /* the update */
    CHECK_OK(fdx_array_put(p->rsd, v));
    CHECK_OK(lu_add(p));
    CHECK_OK(fdx_array_get(p->u, got));
    double tmp = 1.0 / (p->omega * (2.0 - p->omega));
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                for (int m = 0; m < 5; m++)
                    V5(want, m, i, j, k) = V5(u, m, i, j, k) + (interior(i, j, k) ? tmp * V5(v, m, i, j, k) : 0.0);
    compare("ssor update u", got, want, 5 * NP, 1e-15);
    free(u), free(v), free(want), free(got), free(rho), free(qs);
}

/* ---- l2norm, error, pintgr ------------------------------------------------- */
static double phi(const double *u, int i, int j, int k)
{
    const double *w = u + 5 * AT(i, j, k);
    return c2 * (w[4] - 0.5 * (w[1] * w[1] + w[2] * w[2] + w[3] * w[3]) / w[0]);
}

static void test_norms(void)
{
    double *u = vec(5 * NP, 0), *v = vec(5 * NP, 0);
    random_state(u);
    random_field(v, 5 * NP);
    CHECK_OK(fdx_array_put(p->u, u));
    CHECK_OK(fdx_array_put(p->rsd, v));
    double got[5], gote[5], l2[5] = {0}, er[5] = {0}, cells = (double)(NX - 2) * (NY - 2) * (NZ - 2);
    CHECK_OK(lu_l2norm(p, got));
    CHECK_OK(lu_error(p, gote));
    for (int k = 1; k < NZ - 1; k++)
        for (int j = 1; j < NY - 1; j++)
            for (int i = 1; i < NX - 1; i++) {
                double e[5];
                exact(i, j, k, e);
                for (int m = 0; m < 5; m++) {
                    l2[m] += V5(v, m, i, j, k) * V5(v, m, i, j, k);
                    er[m] += (e[m] - V5(u, m, i, j, k)) * (e[m] - V5(u, m, i, j, k));
                }
            }
    for (int m = 0; m < 5; m++) {
        l2[m] = sqrt(l2[m] / cells), er[m] = sqrt(er[m] / cells);
        CHECK(fabs(got[m] - l2[m]) <= 1e-13 * l2[m], "l2norm %d: %.17g vs %.17g", m, got[m], l2[m]);
        CHECK(fabs(gote[m] - er[m]) <= 1e-13 * er[m], "error %d: %.17g vs %.17g", m, gote[m], er[m]);
    }
    /* pintgr in NPB's 1-based bounds: ibeg 2, ifin nx-1, jbeg 2, jfin ny-2, k 3 .. nz-1 */
    int ib = 1, ifn = NX - 2, jb = 1, jf = NY - 3, k1 = 2, k2 = NZ - 2;
    double f1 = 0, f2 = 0, f3 = 0;
    for (int j = jb; j < jf; j++)
        for (int i = ib; i < ifn; i++)
            f1 += phi(u, i, j, k1) + phi(u, i + 1, j, k1) + phi(u, i, j + 1, k1) + phi(u, i + 1, j + 1, k1) + phi(u, i, j, k2) +
                  phi(u, i + 1, j, k2) + phi(u, i, j + 1, k2) + phi(u, i + 1, j + 1, k2);
    for (int k = k1; k < k2; k++)
        for (int i = ib; i < ifn; i++)
            f2 += phi(u, i, jb, k) + phi(u, i + 1, jb, k) + phi(u, i, jb, k + 1) + phi(u, i + 1, jb, k + 1) + phi(u, i, jf, k) +
                  phi(u, i + 1, jf, k) + phi(u, i, jf, k + 1) + phi(u, i + 1, jf, k + 1);
    for (int k = k1; k < k2; k++)
        for (int j = jb; j < jf; j++)
            f3 += phi(u, ib, j, k) + phi(u, ib, j + 1, k) + phi(u, ib, j, k + 1) + phi(u, ib, j + 1, k + 1) + phi(u, ifn, j, k) +
                  phi(u, ifn, j + 1, k) + phi(u, ifn, j, k + 1) + phi(u, ifn, j + 1, k + 1);
    double want = 0.25 * (p->dxi * p->deta * f1 + p->dxi * p->dzeta * f2 + p->deta * p->dzeta * f3), frc = 0;
    CHECK_OK(lu_pintgr(p, &frc));
    CHECK(fabs(frc - want) <= 1e-13 * fabs(want), "pintgr: %.17g vs %.17g", frc, want);
    free(u), free(v);
}

/* Class S end to end, verified against NPB's reference values as fdx lu
   does, here with the layouts a GPU run would move the arrays through. */
static void plan_as_gpu(lu *l, int mode);

static void test_class_s(int mode)
{
    const lu_class *c = lu_class_find('S');
    lu *s = NULL;
    CHECK_OK(lu_create(ctx, c->n, c->n, c->n, c->dt, 1.2, mode, &s));
    if (!s) return;
    plan_as_gpu(s, mode);
    double xcr[5], xce[5], xci = 0;
    CHECK_OK(lu_benchmark(s, c->itmax, xcr, xce, &xci, NULL));
    for (int m = 0; m < 5; m++) {
        CHECK(fabs(xcr[m] - c->xcr[m]) <= 1e-8 * c->xcr[m], "class S xcr %d: %.17g vs %.17g", m, xcr[m], c->xcr[m]);
        CHECK(fabs(xce[m] - c->xce[m]) <= 1e-8 * c->xce[m], "class S xce %d: %.17g vs %.17g", m, xce[m], c->xce[m]);
    }
    CHECK(fabs(xci - c->xci) <= 1e-8 * c->xci, "class S xci: %.17g vs %.17g", xci, c->xci);
    fdx_layout l;
    CHECK_OK(fdx_array_layout(s->u, &l));
    CHECK(l.perm[0] == 1 && (mode != LU_AUTOTFM_DIAGONAL || l.diag == FDX_DIAG_ANTI),
          "u is not i-fastest (anti-diagonal) after a GPU-planned run");
    lu_destroy(&s);
}

/* The layout moves of NPB's SSOR iteration as a GPU plans it: the first
   iteration puts u, rsd, rho_i, qs on the anti-diagonal of (i, j) for the
   sweeps (and frct for rhs); after it the parallel loops walk those
   diagonals, so an iteration moves nothing (it used to move 8 arrays: the
   parallel loops took them back to i-fastest permutations).  Class S
   under these layouts gives the plain run's results bit for bit on the
   CPU (same enumeration order, only the storage differs). */
static void test_moves(void)
{
    const lu_class *c = lu_class_find('S');
    lu *off = NULL, *on = NULL;
    CHECK_OK(lu_create(ctx, c->n, c->n, c->n, c->dt, 1.2, 0, &off));
    CHECK_OK(lu_create(ctx, c->n, c->n, c->n, c->dt, 1.2, 2, &on));
    if (!off || !on) goto done;
    plan_as_gpu(on, 2);
    plan_as_gpu(off, 0); /* autotfm off: plain layouts, the same CPU code (no FP contraction) */
    double r0[5], r1[5], t = 0;
    fdx_loop_moves m0, m1, m2;
    CHECK_OK(lu_setiv(on));
    CHECK_OK(lu_erhs(on));
    lu_move_stats(on, &m0);
    CHECK_OK(lu_ssor(on, 1, r1, &t));
    lu_move_stats(on, &m1);
    CHECK_OK(lu_ssor(on, 4, r1, &t));
    lu_move_stats(on, &m2);
    printf("  LU moves under GPU planning: setup %lld transforms %lld relabels; first SSOR %lld transforms "
           "(%.1f MB) %lld relabels; next 4 iterations %lld transforms %lld relabels\n",
           (long long)m0.transforms, (long long)m0.relabels, (long long)(m1.transforms - m0.transforms),
           (double)(m1.bytes - m0.bytes) / 1e6, (long long)(m1.relabels - m0.relabels),
           (long long)(m2.transforms - m1.transforms), (long long)(m2.relabels - m1.relabels));
    /* rhs: frct, rsd i-fastest; blts: u, rho_i, qs, rsd onto the
       anti-diagonal; the second rhs: frct onto it too */
    /* 7 under CPU-run GPU planning; on a GPU the setup loops are planned
       for the device too and take 3 of them (H100: setup 3, first SSOR 6):
       at most 7 either way, 8 before the diagonal walk */
    CHECK(m1.transforms - m0.transforms <= 7 && m1.transforms <= 10,
          "first SSOR iteration: %lld transforms (setup %lld), expected at most 7 (and 10 in all)",
          (long long)(m1.transforms - m0.transforms), (long long)m0.transforms);
    CHECK(m2.transforms == m1.transforms && m2.relabels == m1.relabels,
          "SSOR iterations 2..5 moved %lld arrays and relabelled %lld (expected none: the parallel loops walk "
          "the sweeps' diagonals)", (long long)(m2.transforms - m1.transforms), (long long)(m2.relabels - m1.relabels));
    fdx_loop_decision d;
    CHECK_OK(fdx_loop_plan(on->add, FDX_BACKEND_CUDA, &d));
    CHECK(d.diag_index == 1 && d.thread_index == 0 && !d.array[0].moved && !d.array[1].moved,
          "add walks the anti-diagonals of (i, j) (thread %d, diagonal %d, moves %d %d)", d.thread_index, d.diag_index,
          d.array[0].moved, d.array[1].moved);
    CHECK_OK(fdx_loop_plan(on->rhs, FDX_BACKEND_CUDA, &d));
    CHECK(d.diag_index == 1, "rhs walks the anti-diagonals (diagonal index %d)", d.diag_index);
    /* the plain run, same sequence: bit for bit */
    CHECK_OK(lu_setiv(off));
    CHECK_OK(lu_erhs(off));
    CHECK_OK(lu_ssor(off, 1, r0, &t));
    CHECK_OK(lu_ssor(off, 4, r0, &t));
    /* on a GPU the sums fold in another order (the enumeration differs) */
    int exact = strcmp(LU_TEST_BACKEND, "cpu") == 0;
    for (int m = 0; m < 5; m++)
        CHECK(exact ? memcmp(&r0[m], &r1[m], sizeof(double)) == 0 : fabs(r0[m] - r1[m]) <= 1e-12 * fabs(r0[m]),
              "residual norm %d: %.17g GPU-planned vs %.17g plain", m, r1[m], r0[m]);
    fdx_array *a0[3] = {off->u, off->rsd, off->qs}, *a1[3] = {on->u, on->rsd, on->qs};
    for (int q = 0; q < 3; q++) {
        size_t bytes = fdx_array_bytes(a0[q]);
        char *b0 = malloc(bytes), *b1 = malloc(bytes);
        if (b0 && b1) {
            CHECK_OK(fdx_array_get(a0[q], b0));
            CHECK_OK(fdx_array_get(a1[q], b1));
            double e = 0;
            for (size_t x = 0; x < bytes / 8; x++) {
                double v0 = ((double *)b0)[x], v1 = ((double *)b1)[x];
                e = fmax(e, fabs(v0 - v1) / fmax(fabs(v0), 1e-300));
            }
            CHECK(exact ? memcmp(b0, b1, bytes) == 0 : e <= 1e-12,
                  "array %d differs between the GPU-planned and the plain run (%.3g)", q, e);
        }
        free(b0);
        free(b1);
    }
done:
    lu_destroy(&off);
    lu_destroy(&on);
}

/* Class S with the loops queued on a context stream and no timers (fdx lu
   --timers off): the runs without reductions do not wait; verified. */
static void test_stream(void)
{
    const lu_class *c = lu_class_find('S');
    void *stream = NULL;
    CHECK_OK(fdx_ctx_ops(ctx)->stream_create(&stream));
    CHECK_OK(fdx_ctx_set_stream(ctx, stream));
    lu *s = NULL;
    CHECK_OK(lu_create(ctx, c->n, c->n, c->n, c->dt, 1.2, -1, &s));
    if (s) {
        s->timers = 0;
        double xcr[5], xce[5], xci = 0;
        CHECK_OK(lu_benchmark(s, c->itmax, xcr, xce, &xci, NULL));
        for (int m = 0; m < 5; m++)
            CHECK(fabs(xcr[m] - c->xcr[m]) <= 1e-8 * c->xcr[m], "class S on a stream: xcr %d %.17g vs %.17g", m, xcr[m],
                  c->xcr[m]);
        CHECK(fabs(xci - c->xci) <= 1e-8 * c->xci, "class S on a stream: xci %.17g vs %.17g", xci, c->xci);
    }
    lu_destroy(&s);
    CHECK_OK(fdx_ctx_set_stream(ctx, NULL));
    fdx_ctx_ops(ctx)->stream_destroy(stream);
}

/* Every loop's CUDA kernel (under the layouts now current) compiles with
   NVRTC: no GPU needed. */
static void nvrtc_check(void)
{
#ifdef FDX_HAVE_CUDA
    fdx_loop *loops[LU_NLOOPS];
    const char *names[LU_NLOOPS];
    int n = lu_loops(p, loops, names);
    for (int q = 0; q < n; q++) {
        char *src = NULL;
        void *cubin = NULL;
        size_t size = 0;
        CHECK_OK(fdx_loop_source(loops[q], FDX_BACKEND_CUDA, &src));
        if (src) CHECK_OK(fdx_nvrtc_compile(src, 90, names[q], &cubin, &size));
        free(cubin);
        free(src);
    }
#endif
}

/* Plans as for a GPU: autotfm forced where it is on (so small grids move
   too), the arrays change layout between loops as they would on a GPU and
   the CPU code runs under those layouts. */
static void plan_as_gpu(lu *l, int mode)
{
    fdx_loop *loops[LU_NLOOPS];
    int n = lu_loops(l, loops, NULL);
    for (int q = 0; q < n; q++) CHECK_OK(fdx_loop_plan_for(loops[q], FDX_BACKEND_CUDA));
    if (mode == LU_AUTOTFM_DIAGONAL) {
        CHECK_OK(fdx_loop_set_autotfm(l->blts, 2));
        CHECK_OK(fdx_loop_set_autotfm(l->buts, 2));
    }
}

/* mode 0: plain layouts; 2: GPU planning, every loop; LU_AUTOTFM_DIAGONAL:
   GPU planning of the sweeps, prim/rhs/add over anti-diagonals. */
static void run_all(int mode)
{
    CHECK_OK(lu_create(ctx, NX, NY, NZ, 0.5, 1.2, mode ? mode : -1, &p));
    if (!p) return;
    int gpu_layouts = mode != 0;
    if (gpu_layouts) plan_as_gpu(p, mode);
    test_setiv();
    test_rhs();
    test_sweeps();
    test_norms();
    if (gpu_layouts) {
        fdx_layout l;
        CHECK_OK(fdx_array_layout(p->rsd, &l));
        CHECK(l.perm[0] != 0 || l.diag != FDX_DIAG_NONE, "rsd kept the plain layout under GPU planning");
    }
    nvrtc_check();
    lu_destroy(&p);
}

int main(void)
{
    if (strcmp(LU_TEST_BACKEND, "cuda") == 0 && fdx_cuda_device_count() == 0)
        return fdx_test_skip(LU_TEST_NAME, "no CUDA device");
    ctx = fdx_test_ctx(LU_TEST_BACKEND);
    if (!ctx) return fdx_test_skip(LU_TEST_NAME, "no context on this backend");
    run_all(0);
    run_all(2);
    /* the rest with a thread per hyperplane point, as fdx lu runs the sweeps
       (the runs above used the runtime's default geometry) */
    setenv("FDX_LOOP_LINES", "0", 1);
    run_all(LU_AUTOTFM_DIAGONAL);
    test_class_s(2);
    test_class_s(LU_AUTOTFM_DIAGONAL);
    test_moves();
    test_stream();
    CHECK_FAILS(lu_create(ctx, 5, 8, 8, 0.5, 1.2, -1, &p), FDX_ERR_INVALID);
    lu_destroy(&p);
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish(LU_TEST_NAME);
}
