/* lu_dist: NPB LU on distributed loops (include/fdx/dist.h): the grid split
   along z over units (GPUs, CPU units, MPI ranks), the bodies of
   lu_bodies.c unchanged (they see global indices), blts and buts as
   distributed ACROSS loops (units pipeline their portions), the norms as
   global sums.  pintgr runs one loop per face. */
#include "lu.h"
#include "lu_bodies.h"
#include "fdx/internal/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lu_dist {
    lu c; /* grid and coefficients only */
    fdx_dist *d;
    fdx_darray *u, *rsd, *frct, *rho_i, *qs, *ue;
    fdx_dloop *setiv, *exact, *eprim, *erhs, *prim, *rhs, *blts, *buts, *add, *l2norm, *error, *face[6];
};

static double zero(const int64_t *g, void *arg)
{
    (void)g, (void)arg;
    return 0.0;
}

static fdx_status darray(lu_dist *p, int ncomp, fdx_darray **out)
{
    fdx_darray_desc a = {0};
    a.type = FDX_FLOAT64, a.ncomp = ncomp;
    FDX_TRY(fdx_darray_create_desc(p->d, &a, out));
    return fdx_darray_fill(*out, zero, NULL);
}

/* A loop over [lo, hi) with named arrays (names "U,R,Q", access per array),
   the coefficients and the body (with the LU head and `extra`). */
static fdx_status dloop(lu_dist *p, const int64_t *lo, const int64_t *hi, const char *names, fdx_darray **a,
                        const fdx_access *acc, const char *extra, const char *body, fdx_dloop **out)
{
    FDX_TRY(fdx_dloop_create(p->d, "i,j,k", out));
    FDX_TRY(fdx_dloop_range(*out, lo, hi));
    char buf[64], *save = NULL;
    snprintf(buf, sizeof buf, "%s", names);
    int q = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), q++)
        FDX_TRY(fdx_dloop_array(*out, t, a[q], acc[q]));
    const char *sn[16];
    double sv[16];
    int n = lu_coefficients(&p->c, sn, sv);
    for (int s = 0; s < n; s++) FDX_TRY(fdx_dloop_scalar(*out, sn[s], sv[s]));
    char *text = lu_body_text(&p->c, extra, body);
    if (!text) return fdx_fail(FDX_ERR_NOMEM, "out of memory for an LU loop body");
    fdx_status st = fdx_dloop_body(*out, text);
    free(text);
    return st;
}

static fdx_status sums(fdx_dloop *l)
{
    const char *n[5] = {"s0", "s1", "s2", "s3", "s4"};
    for (int m = 0; m < 5; m++) FDX_TRY(fdx_dloop_reduction(l, n[m], FDX_REDUCE_SUM));
    return FDX_OK;
}

static fdx_status build(lu_dist *p)
{
    const int nx = p->c.nx, ny = p->c.ny, nz = p->c.nz;
    FDX_TRY(darray(p, 5, &p->u));
    FDX_TRY(darray(p, 5, &p->rsd));
    FDX_TRY(darray(p, 5, &p->frct));
    FDX_TRY(darray(p, 5, &p->ue));
    FDX_TRY(darray(p, 1, &p->rho_i));
    FDX_TRY(darray(p, 1, &p->qs));
    const fdx_access R = FDX_READ, W = FDX_WRITE, RW = FDX_READ_WRITE;
    const int64_t all_lo[3] = {0, 0, 0}, all_hi[3] = {nx, ny, nz}, in_lo[3] = {1, 1, 1};
    const int64_t in_hi[3] = {nx - 1, ny - 1, nz - 1};
    fdx_darray *a1[1] = {p->u}, *e1[1] = {p->ue};
    fdx_access aw[1] = {W}, ar[1] = {R};
    FDX_TRY(dloop(p, all_lo, all_hi, "U", a1, aw, "", lu_body_setiv, &p->setiv));
    FDX_TRY(dloop(p, all_lo, all_hi, "E", e1, aw, "", lu_body_exact, &p->exact));
    fdx_darray *ep[3] = {p->ue, p->rho_i, p->qs}, *pp[3] = {p->u, p->rho_i, p->qs};
    fdx_access pm[3] = {R, W, W};
    FDX_TRY(dloop(p, all_lo, all_hi, "U,R,Q", ep, pm, "", lu_body_prim, &p->eprim));
    FDX_TRY(dloop(p, all_lo, all_hi, "U,R,Q", pp, pm, "", lu_body_prim, &p->prim));
    fdx_darray *er[4] = {p->ue, p->rho_i, p->qs, p->frct}, *rr[5] = {p->u, p->rho_i, p->qs, p->frct, p->rsd};
    fdx_access em[4] = {R, R, R, W}, rm[5] = {R, R, R, R, W};
    FDX_TRY(dloop(p, in_lo, in_hi, "U,R,Q,O", er, em, "#define LU_START(m) 0.0\n", lu_body_rhs, &p->erhs));
    FDX_TRY(dloop(p, in_lo, in_hi, "U,R,Q,F,O", rr, rm, "#define LU_START(m) (-F(m,i,j,k))\n", lu_body_rhs, &p->rhs));
    fdx_darray *ba[4] = {p->u, p->rho_i, p->qs, p->rsd};
    fdx_access bm[4] = {R, R, R, RW};
    const int one[3] = {1, 1, 1}, none[3] = {0, 0, 0}, down[3] = {-1, -1, -1};
    FDX_TRY(dloop(p, in_lo, in_hi, "U,R,Q,V", ba, bm, "", lu_body_blts, &p->blts));
    FDX_TRY(fdx_dloop_across(p->blts, one, none));
    FDX_TRY(dloop(p, in_lo, in_hi, "U,R,Q,V", ba, bm, "", lu_body_buts, &p->buts));
    FDX_TRY(fdx_dloop_across(p->buts, none, one));
    FDX_TRY(fdx_dloop_order(p->buts, down));
    fdx_darray *aa[2] = {p->u, p->rsd};
    fdx_access am[2] = {RW, R};
    char tmp[96];
    snprintf(tmp, sizeof tmp, "#define tmp %.17g\n", 1.0 / (p->c.omega * (2.0 - p->c.omega)));
    FDX_TRY(dloop(p, in_lo, in_hi, "U,V", aa, am, tmp, lu_body_add, &p->add));
    fdx_darray *v1[1] = {p->rsd};
    FDX_TRY(dloop(p, in_lo, in_hi, "V", v1, ar, "", lu_body_l2norm, &p->l2norm));
    FDX_TRY(sums(p->l2norm));
    FDX_TRY(dloop(p, in_lo, in_hi, "U", a1, ar, "", lu_body_error, &p->error));
    FDX_TRY(sums(p->error));
    /* pintgr: k faces (2, nz-2), j faces (1, ny-3), i faces (1, nx-2) */
    const char *corner[3] = {"#define LU_DI(c) ((c) & 1)\n#define LU_DJ(c) ((c) >> 1)\n#define LU_DK(c) 0\n",
                             "#define LU_DI(c) ((c) & 1)\n#define LU_DJ(c) 0\n#define LU_DK(c) ((c) >> 1)\n",
                             "#define LU_DI(c) 0\n#define LU_DJ(c) ((c) & 1)\n#define LU_DK(c) ((c) >> 1)\n"};
    const int at[3][2] = {{2, nz - 2}, {1, ny - 3}, {1, nx - 2}}, axis[3] = {2, 1, 0};
    for (int f = 0; f < 6; f++) {
        int g = f / 2, x = axis[g];
        int64_t lo[3] = {1, 1, 2}, hi[3] = {nx - 2, ny - 3, nz - 2};
        lo[x] = at[g][f % 2], hi[x] = lo[x] + 1;
        FDX_TRY(dloop(p, lo, hi, "U", a1, ar, corner[g], lu_body_pint_face, &p->face[f]));
        FDX_TRY(fdx_dloop_reduction(p->face[f], "s", FDX_REDUCE_SUM));
    }
    return FDX_OK;
}

fdx_status lu_dist_create(const fdx_options *opts, int units, int nx, int ny, int nz, double dt, double omega,
                          lu_dist **out)
{
    FDX_CHECK(opts && out && units >= 1, FDX_ERR_INVALID, "lu_dist_create: bad argument");
    FDX_CHECK(nx >= 6 && ny >= 6 && nz >= 6, FDX_ERR_INVALID, "LU grid %dx%dx%d: every extent must be at least 6", nx,
              ny, nz);
    lu_dist *p = calloc(1, sizeof *p);
    if (!p) return fdx_fail(FDX_ERR_NOMEM, "out of memory");
    lu_setcoeff(&p->c, nx, ny, nz, dt, omega);
    fdx_dist_desc dd = {0};
    dd.rank = 3;
    dd.shape[0] = nx, dd.shape[1] = ny, dd.shape[2] = nz;
    /* grid all 0: z split over every unit of the job (all MPI ranks) */
    dd.shadow[0] = dd.shadow[1] = dd.shadow[2] = 2; /* rhs's dissipation reads +-2 */
    dd.units_per_proc = units;
    fdx_status st = fdx_dist_create(opts, &dd, &p->d);
    if (st == FDX_OK) st = build(p);
    if (st != FDX_OK) {
        lu_dist_destroy(&p);
        return st;
    }
    *out = p;
    return FDX_OK;
}

void lu_dist_destroy(lu_dist **pp)
{
    if (!pp || !*pp) return;
    lu_dist *p = *pp;
    fdx_dloop **l[] = {&p->setiv, &p->exact, &p->eprim, &p->erhs, &p->prim, &p->rhs, &p->blts, &p->buts,
                       &p->add, &p->l2norm, &p->error, &p->face[0], &p->face[1], &p->face[2], &p->face[3],
                       &p->face[4], &p->face[5]};
    for (size_t q = 0; q < sizeof l / sizeof l[0]; q++) fdx_dloop_destroy(l[q]);
    fdx_darray **a[] = {&p->u, &p->rsd, &p->frct, &p->rho_i, &p->qs, &p->ue};
    for (size_t q = 0; q < sizeof a / sizeof a[0]; q++) fdx_darray_destroy(a[q]);
    fdx_dist_destroy(&p->d);
    free(p);
    *pp = NULL;
}

static fdx_status rms(lu_dist *p, fdx_dloop *l, double nrm[5])
{
    FDX_TRY(fdx_dloop_run(l));
    const char *n[5] = {"s0", "s1", "s2", "s3", "s4"};
    double cells = (double)(p->c.nx - 2) * (double)(p->c.ny - 2) * (double)(p->c.nz - 2);
    for (int m = 0; m < 5; m++) {
        FDX_TRY(fdx_dloop_result(l, n[m], &nrm[m]));
        nrm[m] = sqrt(nrm[m] / cells);
    }
    return FDX_OK;
}

/* One routine, its wall time (after the units finish) into *acc. */
static fdx_status timed(lu_dist *p, fdx_dloop *l, double *acc)
{
    double t0 = fdx_now_s();
    FDX_TRY(fdx_dloop_run(l));
    FDX_TRY(fdx_dist_sync(p->d));
    if (acc) *acc += fdx_now_s() - t0;
    return FDX_OK;
}

static fdx_status ssor(lu_dist *p, int niter, double rsdnm[5], double *seconds, double *sec)
{
    double delunm[5], dummy[LU_NSECTIONS] = {0};
    if (!sec) sec = dummy;
    FDX_TRY(fdx_dloop_run(p->prim));
    FDX_TRY(fdx_dloop_run(p->rhs));
    FDX_TRY(rms(p, p->l2norm, rsdnm));
    for (int s = 0; s < LU_NSECTIONS; s++) sec[s] = 0;
    double t0 = fdx_now_s();
    for (int istep = 1; istep <= niter; istep++) {
        FDX_TRY(timed(p, p->blts, &sec[LU_T_BLTS]));
        FDX_TRY(timed(p, p->buts, &sec[LU_T_BUTS]));
        FDX_TRY(timed(p, p->add, &sec[LU_T_ADD]));
        if (istep == niter) FDX_TRY(rms(p, p->l2norm, delunm));
        FDX_TRY(timed(p, p->prim, &sec[LU_T_RHS]));
        FDX_TRY(timed(p, p->rhs, &sec[LU_T_RHS]));
        if (istep == niter) FDX_TRY(rms(p, p->l2norm, rsdnm));
    }
    if (seconds) *seconds = fdx_now_s() - t0;
    return FDX_OK;
}

fdx_status lu_dist_benchmark(lu_dist *p, int itmax, double xcr[5], double xce[5], double *xci, double *seconds,
                             double section[LU_NSECTIONS])
{
    double r[5];
    FDX_TRY(fdx_dloop_run(p->setiv));
    FDX_TRY(fdx_dloop_run(p->exact));
    FDX_TRY(fdx_dloop_run(p->eprim));
    FDX_TRY(fdx_dloop_run(p->erhs));
    FDX_TRY(ssor(p, 1, r, NULL, NULL));
    FDX_TRY(fdx_dloop_run(p->setiv));
    FDX_TRY(ssor(p, itmax, xcr, seconds, section));
    FDX_TRY(rms(p, p->error, xce));
    double w[3] = {p->c.dxi * p->c.deta, p->c.dxi * p->c.dzeta, p->c.deta * p->c.dzeta}, frc = 0;
    for (int f = 0; f < 6; f++) {
        double s;
        FDX_TRY(fdx_dloop_run(p->face[f]));
        FDX_TRY(fdx_dloop_result(p->face[f], "s", &s));
        frc += w[f / 2] * s;
    }
    *xci = 0.25 * frc;
    return FDX_OK;
}

int lu_dist_proc(const lu_dist *p) { return fdx_dist_proc(p->d); }
int lu_dist_units(const lu_dist *p) { return fdx_dist_units(p->d); }

fdx_darray *lu_dist_array(lu_dist *p, int q)
{
    fdx_darray *a[5] = {p->u, p->rsd, p->frct, p->rho_i, p->qs};
    return q >= 0 && q < 5 ? a[q] : NULL;
}

void lu_dist_move_stats(lu_dist *p, fdx_loop_moves *out)
{
    memset(out, 0, sizeof *out);
    fdx_dloop *l[] = {p->setiv, p->exact, p->eprim, p->erhs, p->prim, p->rhs, p->blts, p->buts, p->add,
                      p->l2norm, p->error, p->face[0], p->face[1], p->face[2], p->face[3], p->face[4], p->face[5]};
    for (size_t q = 0; q < sizeof l / sizeof l[0]; q++) {
        fdx_loop_moves m;
        if (!l[q] || fdx_dloop_move_stats(l[q], &m) != FDX_OK) continue;
        out->transforms += m.transforms, out->relabels += m.relabels, out->bytes += m.bytes;
    }
}
