/* lu: the NAS Parallel Benchmarks' LU (SSOR for five coupled nonlinear PDEs,
   the compressible Navier-Stokes model problem of NPB 3.x) written with the
   public fdx loop API: one loop per NPB routine, bodies as C text, arrays
   u(5,nx,ny,nz) declared once, the two triangular sweeps as ACROSS loops.
   Shared by `fdx lu` (cmd_lu.c) and the per-routine tests (tests/cli/test_lu.c). */
#ifndef FDX_LU_H
#define FDX_LU_H

#include "fdx.h"
#include "fdx/internal/clock.h" /* fdx_now_s: NPB's timers */

/* A problem class of NPB LU and its reference results (facts from NPB 3.4's
   verify routine: residual norms xcr, error norms xce, surface integral xci). */
typedef struct lu_class {
    char name;
    int n;        /* grid points per axis */
    int itmax;    /* SSOR iterations */
    double dt;
    double xcr[5], xce[5], xci;
} lu_class;

/* The class named c ('S', 'W', 'A', 'B', 'C'), or NULL. */
const lu_class *lu_class_find(char c);

/* The coefficients of the exact solution, ce(m, 1..13) of NPB's setcoeff. */
extern const double lu_ce[5][13];

/* NPB's operation count for LU, in Mop, divided by the time in seconds. */
double lu_mops(int n, int itmax, double seconds);

#define LU_NLOOPS 11

/* NPB's timers: the timed SSOR's seconds per routine. */
enum { LU_T_RHS, LU_T_BLTS, LU_T_BUTS, LU_T_ADD, LU_T_L2NORM, LU_NSECTIONS };

/* The arrays and loops of one problem.  Index 0 of u, rsd, frct is the
   component; axes 1..3 are x, y, z (0-based: boundary points 0 and n-1). */
typedef struct lu {
    fdx_ctx *ctx;
    int nx, ny, nz;
    double dt, omega;
    int autotfm; /* of the loops other than the sweeps (-1: the context's) */
    /* 1 (default): wait for the device after every routine and time it
       (NPB's timers, `section`); 0: queue everything on the context's
       stream, waiting only for the norms (no section times) */
    int timers;
    /* setcoeff: 1/h^2, 1/(2h), 1/h per axis, the dissipation weight */
    double dxi, deta, dzeta, tx1, tx2, tx3, ty1, ty2, ty3, tz1, tz2, tz3, dssp;
    fdx_array *u, *rsd, *frct, *rho_i, *qs;
    fdx_loop *setiv, *prim, *rhs, *blts, *buts, *add, *l2norm, *error, *pint[3];
    double rsdnm[5], delunm[5];
    double section[LU_NSECTIONS]; /* seconds of the last lu_ssor per LU_T_* */
    fdx_loop_moves erhs_moves;    /* of erhs's loops, which it destroys */
    fdx_loop_moves timed_moves;   /* lu_benchmark: the moves of its timed SSOR */
} lu;

/* Arrays (plain layout, on the context's side) and loops for an nx x ny x nz
   grid (each >= 6); autotfm 1 on, 0 off, 2 force, -1 the context's default,
   LU_AUTOTFM_SWEEPS on for blts and buts only, LU_AUTOTFM_DIAGONAL that and
   the parallel loops of the iteration (prim, rhs, add) written over the
   anti-diagonals of (i, j), where the sweeps' layout puts neighbours. */
#define LU_AUTOTFM_SWEEPS 3
#define LU_AUTOTFM_DIAGONAL 4
fdx_status lu_create(fdx_ctx *ctx, int nx, int ny, int nz, double dt, double omega, int autotfm, lu **out);
void lu_destroy(lu **p);

/* The routines of NPB LU, each one loop run (or two: prim + rhs). */
fdx_status lu_setiv(lu *p);                  /* setbv + setiv: boundary = exact, interior interpolated */
fdx_status lu_erhs(lu *p);                   /* frct: the forcing from the exact solution */
fdx_status lu_rhs(lu *p);                    /* rsd = -frct + the flux operator of u */
fdx_status lu_blts(lu *p);                   /* jacld + blts: lower sweep on rsd (with rsd *= dt) */
fdx_status lu_buts(lu *p);                   /* jacu + buts: upper sweep on rsd, descending */
fdx_status lu_add(lu *p);                    /* u += rsd / (omega (2 - omega)) */
fdx_status lu_l2norm(lu *p, double nrm[5]);  /* RMS of rsd over the interior */
fdx_status lu_error(lu *p, double nrm[5]);   /* RMS of u - exact over the interior */
fdx_status lu_pintgr(lu *p, double *frc);    /* surface integral of the pressure */

/* NPB's ssor(niter): rhs, l2norm, then niter iterations of blts, buts, add,
   rhs, with the norms of the correction and of the residual at the end
   (inorm = itmax as in NPB's classes).  *seconds: the timed section. */
fdx_status lu_ssor(lu *p, int niter, double rsdnm[5], double *seconds);

/* NPB's main program: setiv, erhs, ssor(1), setiv, ssor(itmax) (timed),
   error, pintgr: the values NPB verifies. */
fdx_status lu_benchmark(lu *p, int itmax, double xcr[5], double xce[5], double *xci, double *seconds);

/* setcoeff: grid, time step, relaxation and the coefficients into p. */
void lu_setcoeff(lu *p, int nx, int ny, int nz, double dt, double omega);
/* The scalars every body may use (names and values; returns the count, 12). */
int lu_coefficients(const lu *p, const char **names, double *values);
/* A body with the head every LU body expects (lu_bodies.c); malloc'ed. */
char *lu_body_text(const lu *p, const char *extra, const char *body);

/* ---- distributed (lu_dist.c): the same bodies on fdx_dloop, the grid split
   along z over `units` GPUs (or CPU units), MPI ranks included ---------- */
typedef struct lu_dist lu_dist;
fdx_status lu_dist_create(const fdx_options *opts, int units, int nx, int ny, int nz, double dt, double omega,
                          lu_dist **out);
void lu_dist_destroy(lu_dist **p);
int lu_dist_proc(const lu_dist *p);  /* this process's MPI rank (0 without MPI) */
int lu_dist_units(const lu_dist *p); /* units of the whole job */
/* Array q (0 u, 1 rsd, 2 frct, 3 rho_i, 4 qs); the layout moves of every loop. */
fdx_darray *lu_dist_array(lu_dist *p, int q);
void lu_dist_move_stats(lu_dist *p, fdx_loop_moves *out);
fdx_status lu_dist_benchmark(lu_dist *p, int itmax, double xcr[5], double xce[5], double *xci, double *seconds,
                             double section[LU_NSECTIONS]);

/* The loops in a fixed order with their names, for reports (planner). */
int lu_loops(lu *p, fdx_loop **loops, const char **names);
/* The layout moves of every loop so far (erhs's temporary loops included). */
void lu_move_stats(lu *p, fdx_loop_moves *out);

#endif
