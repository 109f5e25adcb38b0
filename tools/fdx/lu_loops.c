/* lu_loops: the arrays and loops of NPB LU on the fdx loop API, and the
   routines and SSOR driver built from them.  Loops over the grid are
   aligned with axes 1..3 of u(5,nx,ny,nz) (fdx_loop_on); the two triangular
   sweeps are ACROSS loops with width 1 in every direction, the upper one
   (buts) in descending order (fdx_loop_order). */
#include "lu.h"
#include "lu_bodies.h"
#include "fdx/internal/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int GRID_AXES[3] = {1, 2, 3};

/* What every body sees before its own text: the grid, NPB's constants, an
   unroll hint for both compilers and the exact solution. */
char *lu_body_text(const lu *p, const char *extra, const char *body)
{
    char head[4096];
    int n = snprintf(head, sizeof head,
                     "#define NX %d\n#define NY %d\n#define NZ %d\n"
                     "#define C1 1.40\n#define C2 0.40\n#define C3 1.00e-01\n#define C4 1.00\n#define C5 1.40\n"
                     "#define DX 0.75\n#define DY 0.75\n#define DZ 1.00\n"
                     "#ifdef __CUDACC__\n#define LU_UNROLL _Pragma(\"unroll\")\n#else\n"
                     "#define LU_UNROLL _Pragma(\"GCC unroll 16\")\n#endif\n"
                     "const double CE[5][13] = {",
                     p->nx, p->ny, p->nz);
    for (int m = 0; m < 5 && n > 0 && (size_t)n < sizeof head; m++) {
        n += snprintf(head + n, sizeof head - (size_t)n, "%s{", m ? "," : "");
        for (int c = 0; c < 13 && (size_t)n < sizeof head; c++)
            n += snprintf(head + n, sizeof head - (size_t)n, "%s%.17g", c ? "," : "", lu_ce[m][c]);
        n += snprintf(head + n, sizeof head - (size_t)n, "}");
    }
    if (n > 0 && (size_t)n < sizeof head)
        n += snprintf(head + n, sizeof head - (size_t)n,
                      "}; (void)CE;\n"
                      "#define LU_EXACT(m, x, y, z) (CE[m][0] + (CE[m][1] + (CE[m][4] + (CE[m][7] + CE[m][10] * (x)) * (x)) * (x)) * (x)"
                      " + (CE[m][2] + (CE[m][5] + (CE[m][8] + CE[m][11] * (y)) * (y)) * (y)) * (y)"
                      " + (CE[m][3] + (CE[m][6] + (CE[m][9] + CE[m][12] * (z)) * (z)) * (z)) * (z))\n");
    size_t len = strlen(head) + strlen(extra) + strlen(body) + 1;
    char *s = malloc(len);
    if (s) snprintf(s, len, "%s%s%s", head, extra, body);
    return s;
}

static fdx_status set_body(lu *p, fdx_loop *l, const char *extra, const char *body)
{
    char *s = lu_body_text(p, extra, body);
    if (!s) return fdx_fail(FDX_ERR_NOMEM, "out of memory for an LU loop body");
    fdx_status st = fdx_loop_body(l, s);
    free(s);
    return st;
}

int lu_coefficients(const lu *p, const char **names, double *values)
{
    static const char *const n[12] = {"tx1", "tx2", "tx3", "ty1", "ty2", "ty3", "tz1", "tz2", "tz3", "dssp", "dt", "omega"};
    const double v[12] = {p->tx1, p->tx2, p->tx3, p->ty1, p->ty2, p->ty3, p->tz1, p->tz2, p->tz3, p->dssp, p->dt, p->omega};
    for (int q = 0; q < 12; q++) names[q] = n[q], values[q] = v[q];
    return 12;
}

/* The coefficients every body may use, as scalars. */
static fdx_status coefficients(const lu *p, fdx_loop *l)
{
    const char *names[16];
    double v[16];
    int n = lu_coefficients(p, names, v);
    for (int q = 0; q < n; q++) FDX_TRY(fdx_loop_scalar(l, names[q], v[q]));
    return FDX_OK;
}

/* A loop "i,j,k" on the grid axes of u, over the interior or every point.
   diag: the loop in the frame of the anti-diagonals of (i, j) instead:
   indices q0, q1, k with i = q0, j = q1 - q0 (frame_body), so that thread
   index q0 walks an anti-diagonal; points off the grid are skipped. */
static fdx_status grid_loop_in(lu *p, const char *name, int interior, int autotfm, int diag, fdx_loop **out)
{
    FDX_TRY(fdx_loop_create(p->ctx, diag ? "q0,q1,k" : "i,j,k", out));
    FDX_TRY(fdx_loop_name(*out, name));
    int b = interior ? 1 : 0;
    if (diag) {
        int64_t lo[3] = {b, 2 * b, b}, hi[3] = {p->nx - b, p->nx + p->ny - 1 - 2 * b, p->nz - b};
        FDX_TRY(fdx_loop_range(*out, lo, hi));
    } else {
        if (interior) {
            int64_t lo[3] = {1, 1, 1}, hi[3] = {p->nx - 1, p->ny - 1, p->nz - 1};
            FDX_TRY(fdx_loop_range(*out, lo, hi));
        }
        FDX_TRY(fdx_loop_on(*out, p->u, GRID_AXES));
    }
    if (autotfm >= 0) FDX_TRY(fdx_loop_set_autotfm(*out, autotfm));
    return coefficients(p, *out);
}

static fdx_status grid_loop(lu *p, const char *name, int interior, int autotfm, fdx_loop **out)
{
    return grid_loop_in(p, name, interior, autotfm, 0, out);
}

/* The body in the loop's frame (grid_loop_in). */
static fdx_status frame_body(lu *p, fdx_loop *l, const char *extra, const char *body, int diag, int interior)
{
    if (!diag) return set_body(p, l, extra, body);
    char pre[512];
    snprintf(pre, sizeof pre, "%sconst long long i = q0, j = q1 - q0;\nif (j >= %d && j < %d) {\n", extra, interior,
             interior ? p->ny - 1 : p->ny);
    size_t len = strlen(body) + 4;
    char *b = malloc(len);
    if (!b) return fdx_fail(FDX_ERR_NOMEM, "out of memory for an LU loop body");
    snprintf(b, len, "%s}\n", body);
    fdx_status st = set_body(p, l, pre, b);
    free(b);
    return st;
}

static fdx_status array(lu *p, int comps, fdx_array **out)
{
    int64_t s4[4] = {5, p->nx, p->ny, p->nz}, s3[3] = {p->nx, p->ny, p->nz};
    FDX_TRY(fdx_array_create(p->ctx, FDX_FLOAT64, comps > 1 ? 4 : 3, comps > 1 ? s4 : s3, FDX_ON_DEVICE, out));
    /* zero everywhere: rsd and frct stay zero on the boundary, as in NPB */
    size_t bytes = fdx_array_bytes(*out);
    void *z = calloc(1, bytes);
    if (!z) return fdx_fail(FDX_ERR_NOMEM, "out of host memory (%zu bytes)", bytes);
    fdx_status st = fdx_array_put(*out, z);
    free(z);
    return st;
}

static fdx_status arrays(fdx_loop *l, const char *names, fdx_array **a, const fdx_access *acc)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", names);
    int q = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), q++)
        FDX_TRY(fdx_loop_array(l, t, a[q], acc[q]));
    return FDX_OK;
}

static fdx_status sums(fdx_loop *l)
{
    const char *n[5] = {"s0", "s1", "s2", "s3", "s4"};
    for (int m = 0; m < 5; m++) FDX_TRY(fdx_loop_reduction(l, n[m], FDX_REDUCE_SUM));
    return FDX_OK;
}

/* pintgr's three face pairs: loop (a, b) and the point of face f. */
static fdx_status face_loop(lu *p, int which, int autotfm, fdx_loop **out)
{
    int nx = p->nx, ny = p->ny, nz = p->nz;
    int64_t lo[3][2] = {{1, 1}, {1, 2}, {1, 2}}, hi[3][2] = {{nx - 2, ny - 3}, {nx - 2, nz - 2}, {ny - 3, nz - 2}};
    char extra[256];
    if (which == 0)
        snprintf(extra, sizeof extra, "#define LU_FI(a, b, f) (a)\n#define LU_FJ(a, b, f) (b)\n#define LU_FK(a, b, f) ((f) ? %d : 2)\n", nz - 2);
    else if (which == 1)
        snprintf(extra, sizeof extra, "#define LU_FI(a, b, f) (a)\n#define LU_FJ(a, b, f) ((f) ? %d : 1)\n#define LU_FK(a, b, f) (b)\n", ny - 3);
    else
        snprintf(extra, sizeof extra, "#define LU_FI(a, b, f) ((f) ? %d : 1)\n#define LU_FJ(a, b, f) (a)\n#define LU_FK(a, b, f) (b)\n", nx - 2);
    const char *names[3] = {"pintgr_k", "pintgr_j", "pintgr_i"};
    FDX_TRY(fdx_loop_create(p->ctx, "a,b", out));
    FDX_TRY(fdx_loop_name(*out, names[which]));
    FDX_TRY(fdx_loop_range(*out, lo[which], hi[which]));
    if (autotfm >= 0) FDX_TRY(fdx_loop_set_autotfm(*out, autotfm));
    FDX_TRY(fdx_loop_array(*out, "U", p->u, FDX_READ));
    FDX_TRY(fdx_loop_reduction(*out, "s", FDX_REDUCE_SUM));
    return set_body(p, *out, extra, lu_body_pintgr);
}

static fdx_status build(lu *p, int mode)
{
    /* LU_AUTOTFM_SWEEPS: only the sweeps reorganize; the parallel loops run
       under whatever layout the sweeps left.  LU_AUTOTFM_DIAGONAL: the same,
       and the parallel loops of the iteration walk anti-diagonals. */
    int only = mode == LU_AUTOTFM_SWEEPS || mode == LU_AUTOTFM_DIAGONAL, dg = mode == LU_AUTOTFM_DIAGONAL;
    int autotfm = only ? 0 : mode, sweeps = only ? 1 : mode;
    p->autotfm = autotfm;
    FDX_TRY(array(p, 5, &p->u));
    FDX_TRY(array(p, 5, &p->rsd));
    FDX_TRY(array(p, 5, &p->frct));
    FDX_TRY(array(p, 1, &p->rho_i));
    FDX_TRY(array(p, 1, &p->qs));
    if (dg) {
        /* frct is read only by rhs: give it the layout the sweeps' planner
           gives u and rsd (anti-diagonal of i, j; then the component) */
        const int perm[4] = {1, 2, 0, 3};
        fdx_layout l;
        FDX_TRY(fdx_layout_make(4, perm, FDX_DIAG_ANTI, &l));
        FDX_TRY(fdx_array_set_layout(p->frct, &l));
    }
    const fdx_access W = FDX_WRITE, R = FDX_READ, RW = FDX_READ_WRITE;

    FDX_TRY(grid_loop(p, "setiv", 0, autotfm, &p->setiv));
    FDX_TRY(fdx_loop_array(p->setiv, "U", p->u, W));
    FDX_TRY(set_body(p, p->setiv, "", lu_body_setiv));

    fdx_array *pa[3] = {p->u, p->rho_i, p->qs};
    fdx_access pm[3] = {R, W, W};
    FDX_TRY(grid_loop_in(p, "prim", 0, autotfm, dg, &p->prim));
    FDX_TRY(arrays(p->prim, "U,R,Q", pa, pm));
    FDX_TRY(frame_body(p, p->prim, "", lu_body_prim, dg, 0));

    fdx_array *ra[5] = {p->u, p->rho_i, p->qs, p->frct, p->rsd};
    fdx_access rm[5] = {R, R, R, R, W};
    FDX_TRY(grid_loop_in(p, "rhs", 1, autotfm, dg, &p->rhs));
    FDX_TRY(arrays(p->rhs, "U,R,Q,F,O", ra, rm));
    FDX_TRY(frame_body(p, p->rhs, "#define LU_START(m) (-F(m,i,j,k))\n", lu_body_rhs, dg, 1));

    const int width[3] = {1, 1, 1}, none[3] = {0, 0, 0}, down[3] = {-1, -1, -1};
    fdx_array *ba[4] = {p->u, p->rho_i, p->qs, p->rsd};
    fdx_access bm[4] = {R, R, R, RW};
    FDX_TRY(grid_loop(p, "blts", 1, sweeps, &p->blts));
    FDX_TRY(arrays(p->blts, "U,R,Q,V", ba, bm));
    FDX_TRY(fdx_loop_across_widths(p->blts, width, none)); /* reads i-1, j-1, k-1 */
    FDX_TRY(set_body(p, p->blts, "", lu_body_blts));

    FDX_TRY(grid_loop(p, "buts", 1, sweeps, &p->buts));
    FDX_TRY(arrays(p->buts, "U,R,Q,V", ba, bm));
    FDX_TRY(fdx_loop_across_widths(p->buts, none, width)); /* reads i+1, j+1, k+1 */
    FDX_TRY(fdx_loop_order(p->buts, down));
    FDX_TRY(set_body(p, p->buts, "", lu_body_buts));

    fdx_array *aa[2] = {p->u, p->rsd};
    fdx_access am[2] = {RW, R};
    FDX_TRY(grid_loop_in(p, "add", 1, autotfm, dg, &p->add));
    FDX_TRY(arrays(p->add, "U,V", aa, am));
    FDX_TRY(fdx_loop_scalar(p->add, "tmp", 1.0 / (p->omega * (2.0 - p->omega))));
    FDX_TRY(frame_body(p, p->add, "", lu_body_add, dg, 1));

    FDX_TRY(grid_loop(p, "l2norm", 1, autotfm, &p->l2norm));
    FDX_TRY(fdx_loop_array(p->l2norm, "V", p->rsd, R));
    FDX_TRY(sums(p->l2norm));
    FDX_TRY(set_body(p, p->l2norm, "", lu_body_l2norm));

    FDX_TRY(grid_loop(p, "error", 1, autotfm, &p->error));
    FDX_TRY(fdx_loop_array(p->error, "U", p->u, R));
    FDX_TRY(sums(p->error));
    FDX_TRY(set_body(p, p->error, "", lu_body_error));

    for (int f = 0; f < 3; f++) FDX_TRY(face_loop(p, f, autotfm, &p->pint[f]));
    return FDX_OK;
}

void lu_setcoeff(lu *p, int nx, int ny, int nz, double dt, double omega)
{
    p->nx = nx, p->ny = ny, p->nz = nz;
    p->dt = dt, p->omega = omega;
    p->dxi = 1.0 / (nx - 1), p->deta = 1.0 / (ny - 1), p->dzeta = 1.0 / (nz - 1);
    p->tx1 = 1.0 / (p->dxi * p->dxi), p->tx2 = 1.0 / (2.0 * p->dxi), p->tx3 = 1.0 / p->dxi;
    p->ty1 = 1.0 / (p->deta * p->deta), p->ty2 = 1.0 / (2.0 * p->deta), p->ty3 = 1.0 / p->deta;
    p->tz1 = 1.0 / (p->dzeta * p->dzeta), p->tz2 = 1.0 / (2.0 * p->dzeta), p->tz3 = 1.0 / p->dzeta;
    p->dssp = 1.0 / 4.0; /* max(dx1, dy1, dz1) / 4 with dx1 = dy1 = 0.75, dz1 = 1 */
}

fdx_status lu_create(fdx_ctx *ctx, int nx, int ny, int nz, double dt, double omega, int autotfm, lu **out)
{
    FDX_CHECK(ctx && out, FDX_ERR_INVALID, "lu_create: NULL argument");
    FDX_CHECK(nx >= 6 && ny >= 6 && nz >= 6, FDX_ERR_INVALID, "LU grid %dx%dx%d: every extent must be at least 6", nx,
              ny, nz);
    lu *p = calloc(1, sizeof *p);
    if (!p) return fdx_fail(FDX_ERR_NOMEM, "out of memory");
    p->ctx = ctx;
    p->timers = 1;
    lu_setcoeff(p, nx, ny, nz, dt, omega);
    fdx_status st = build(p, autotfm);
    if (st != FDX_OK) {
        lu_destroy(&p);
        return st;
    }
    *out = p;
    return FDX_OK;
}

void lu_destroy(lu **pp)
{
    if (!pp || !*pp) return;
    lu *p = *pp;
    fdx_loop *loops[LU_NLOOPS];
    int n = lu_loops(p, loops, NULL);
    for (int q = 0; q < n; q++) fdx_loop_destroy(&loops[q]);
    fdx_array_destroy(&p->u);
    fdx_array_destroy(&p->rsd);
    fdx_array_destroy(&p->frct);
    fdx_array_destroy(&p->rho_i);
    fdx_array_destroy(&p->qs);
    free(p);
    *pp = NULL;
}

int lu_loops(lu *p, fdx_loop **loops, const char **names)
{
    fdx_loop *l[LU_NLOOPS] = {p->setiv, p->prim, p->rhs, p->blts, p->buts, p->add, p->l2norm, p->error,
                              p->pint[0], p->pint[1], p->pint[2]};
    static const char *const n[LU_NLOOPS] = {"setiv", "prim", "rhs", "blts", "buts", "add", "l2norm", "error",
                                             "pintgr_k", "pintgr_j", "pintgr_i"};
    int count = LU_NLOOPS;
    for (int q = 0; q < count; q++) {
        loops[q] = l[q];
        if (names) names[q] = n[q];
    }
    return count;
}

void lu_move_stats(lu *p, fdx_loop_moves *out)
{
    *out = p->erhs_moves;
    fdx_loop *loops[LU_NLOOPS];
    int n = lu_loops(p, loops, NULL);
    for (int q = 0; q < n; q++) {
        fdx_loop_moves m;
        if (fdx_loop_move_stats(loops[q], &m) != FDX_OK) continue;
        out->transforms += m.transforms;
        out->relabels += m.relabels;
        out->bytes += m.bytes;
    }
}

fdx_status lu_setiv(lu *p) { return fdx_loop_run(p->setiv, NULL); }

/* erhs: the same flux operator as rhs, applied to the exact solution (held
   in a temporary array) with no forcing: frct = L(u_exact). */
fdx_status lu_erhs(lu *p)
{
    fdx_array *ue = NULL;
    fdx_loop *ex = NULL, *pr = NULL, *op = NULL;
    fdx_status st;
    const fdx_access W = FDX_WRITE, R = FDX_READ;
    FDX_TRY_GOTO(st, array(p, 5, &ue), done);
    FDX_TRY_GOTO(st, grid_loop(p, "erhs_exact", 0, p->autotfm, &ex), done);
    FDX_TRY_GOTO(st, fdx_loop_array(ex, "E", ue, W), done);
    FDX_TRY_GOTO(st, set_body(p, ex, "", lu_body_exact), done);
    FDX_TRY_GOTO(st, fdx_loop_run(ex, NULL), done);
    fdx_array *pa[3] = {ue, p->rho_i, p->qs};
    fdx_access pm[3] = {R, W, W};
    FDX_TRY_GOTO(st, grid_loop(p, "erhs_prim", 0, p->autotfm, &pr), done);
    FDX_TRY_GOTO(st, arrays(pr, "U,R,Q", pa, pm), done);
    FDX_TRY_GOTO(st, set_body(p, pr, "", lu_body_prim), done);
    FDX_TRY_GOTO(st, fdx_loop_run(pr, NULL), done);
    fdx_array *ra[4] = {ue, p->rho_i, p->qs, p->frct};
    fdx_access rm[4] = {R, R, R, W};
    FDX_TRY_GOTO(st, grid_loop(p, "erhs", 1, p->autotfm, &op), done);
    FDX_TRY_GOTO(st, arrays(op, "U,R,Q,O", ra, rm), done);
    FDX_TRY_GOTO(st, set_body(p, op, "#define LU_START(m) 0.0\n", lu_body_rhs), done);
    FDX_TRY_GOTO(st, fdx_loop_run(op, NULL), done);
done:;
    fdx_loop *tmp[3] = {ex, pr, op};
    for (int q = 0; q < 3; q++) {
        fdx_loop_moves m;
        if (tmp[q] && fdx_loop_move_stats(tmp[q], &m) == FDX_OK) {
            p->erhs_moves.transforms += m.transforms;
            p->erhs_moves.relabels += m.relabels;
            p->erhs_moves.bytes += m.bytes;
        }
    }
    fdx_loop_destroy(&ex);
    fdx_loop_destroy(&pr);
    fdx_loop_destroy(&op);
    fdx_array_destroy(&ue);
    return st;
}

fdx_status lu_rhs(lu *p)
{
    FDX_TRY(fdx_loop_run(p->prim, NULL));
    return fdx_loop_run(p->rhs, NULL);
}

fdx_status lu_blts(lu *p) { return fdx_loop_run(p->blts, NULL); }
fdx_status lu_buts(lu *p) { return fdx_loop_run(p->buts, NULL); }
fdx_status lu_add(lu *p) { return fdx_loop_run(p->add, NULL); }

static fdx_status rms(lu *p, fdx_loop *l, double nrm[5])
{
    FDX_TRY(fdx_loop_run(l, NULL));
    const char *n[5] = {"s0", "s1", "s2", "s3", "s4"};
    double cells = (double)(p->nx - 2) * (double)(p->ny - 2) * (double)(p->nz - 2);
    for (int m = 0; m < 5; m++) {
        FDX_TRY(fdx_loop_result(l, n[m], &nrm[m], NULL));
        nrm[m] = sqrt(nrm[m] / cells);
    }
    return FDX_OK;
}

fdx_status lu_l2norm(lu *p, double nrm[5]) { return rms(p, p->l2norm, nrm); }
fdx_status lu_error(lu *p, double nrm[5]) { return rms(p, p->error, nrm); }

fdx_status lu_pintgr(lu *p, double *frc)
{
    double s[3], w[3] = {p->dxi * p->deta, p->dxi * p->dzeta, p->deta * p->dzeta};
    for (int f = 0; f < 3; f++) {
        FDX_TRY(fdx_loop_run(p->pint[f], NULL));
        FDX_TRY(fdx_loop_result(p->pint[f], "s", &s[f], NULL));
        s[f] *= w[f];
    }
    *frc = 0.25 * (s[0] + s[1] + s[2]);
    return FDX_OK;
}

/* Runs one routine and, with timers, waits for it and adds its wall time
   to section `sec`.  Without timers and with a context stream the loops
   only queue their kernels (fdx_loop_run waits for reductions only). */
static fdx_status timed(lu *p, int sec, fdx_status (*f)(lu *))
{
    if (!p->timers) return f(p);
    double t0 = fdx_now_s();
    fdx_status st = f(p);
    if (st == FDX_OK) st = fdx_ctx_sync(p->ctx);
    p->section[sec] += fdx_now_s() - t0;
    return st;
}

static fdx_status norm_delu(lu *p) { return lu_l2norm(p, p->delunm); }
static fdx_status norm_rsd(lu *p) { return lu_l2norm(p, p->rsdnm); }

fdx_status lu_ssor(lu *p, int niter, double rsdnm[5], double *seconds)
{
    FDX_TRY(lu_rhs(p));
    FDX_TRY(lu_l2norm(p, p->rsdnm));
    for (int s = 0; s < LU_NSECTIONS; s++) p->section[s] = 0;
    double t0 = fdx_now_s();
    for (int istep = 1; istep <= niter; istep++) {
        FDX_TRY(timed(p, LU_T_BLTS, lu_blts));
        FDX_TRY(timed(p, LU_T_BUTS, lu_buts));
        FDX_TRY(timed(p, LU_T_ADD, lu_add));
        if (istep == niter) FDX_TRY(timed(p, LU_T_L2NORM, norm_delu)); /* inorm = itmax */
        FDX_TRY(timed(p, LU_T_RHS, lu_rhs));
        if (istep == niter) FDX_TRY(timed(p, LU_T_L2NORM, norm_rsd));
    }
    FDX_TRY(fdx_ctx_sync(p->ctx));
    if (seconds) *seconds = fdx_now_s() - t0;
    memcpy(rsdnm, p->rsdnm, sizeof p->rsdnm);
    return FDX_OK;
}

fdx_status lu_benchmark(lu *p, int itmax, double xcr[5], double xce[5], double *xci, double *seconds)
{
    double rsdnm[5];
    FDX_TRY(lu_setiv(p));
    FDX_TRY(lu_erhs(p));
    FDX_TRY(lu_ssor(p, 1, rsdnm, NULL)); /* touches the data, compiles every kernel */
    FDX_TRY(lu_setiv(p));
    fdx_loop_moves m0, m1;
    lu_move_stats(p, &m0);
    FDX_TRY(lu_ssor(p, itmax, xcr, seconds));
    lu_move_stats(p, &m1);
    p->timed_moves = (fdx_loop_moves){m1.transforms - m0.transforms, m1.relabels - m0.relabels, m1.bytes - m0.bytes};
    FDX_TRY(lu_error(p, xce));
    return lu_pintgr(p, xci);
}
