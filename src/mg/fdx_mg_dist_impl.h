/* fdx_mg_dist_impl: the distributed multigrid's private types, shared by
   its kernels table and graph (fdx_mg_dist.c) and its setup
   (fdx_mg_dist_setup.c).  Not for other modules. */
#ifndef FDX_MG_DIST_IMPL_H
#define FDX_MG_DIST_IMPL_H

#include "comm/fdx_comm.h"
#include "mg/fdx_mg_impl.h"

#include <stdint.h>

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
    const mg_level *G;   /* the level's global geometry (the solver's level) */
    fdx_dist *d;         /* this level's distribution (NULL below the gathered level) */
    int gathered;        /* solved on one unit; d, loc and stage are its distributed copy for the transfers */
    int width;           /* shadow width on split axes */
    int reach;           /* how far the restriction to the next level reads beyond a unit's part (any unit) */
    int wrapped;         /* a split periodic axis: the restriction reads the fine ghost (the wrapped last unknown) */
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
    int rank;             /* the grid's rank and boundary kinds (set at each setup) */
    fdx_solver_bc bc[3];
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

/* Makes local unit i current: its device, and its stream for the kernels. */
void mg_dist_unit(mg_dist *md, int i);
/* Entering and leaving the solver's work on this thread (its kernel stream). */
void mg_dist_enter(mg_dist *md);
void mg_dist_leave(mg_dist *md);
/* Zeroes a field on every unit (shadows included); it is then fresh. */
void mg_dist_zero(mg_dlevel *dl, mg_dfield *f);
/* The kernels table whose fields are distributed handles. */
const mg_ops *mg_dist_ops(void);

#endif
