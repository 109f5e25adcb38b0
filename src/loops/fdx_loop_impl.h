/* fdx_loop_impl: the loop object shared by the loop runtime's files. */
#ifndef FDX_LOOP_IMPL_H
#define FDX_LOOP_IMPL_H

#include "arrays/fdx_array_impl.h"
#include "fdx/loop.h"

#define LOOP_NAME_MAX 32
#define LOOP_MAX_SCALARS 16
#define LOOP_MAX_REDS 8
#define LOOP_KCACHE 4

typedef struct loop_arg {
    char name[LOOP_NAME_MAX];
    fdx_array *array;
    fdx_access access;
    /* From the body: loop index driving each array axis (-1 none, -2 mixed). */
    int drive[FDX_MAX_RANK];
    int uses;
} loop_arg;

typedef struct loop_red {
    char name[LOOP_NAME_MAX];
    fdx_reduce op;
    double value;
    int64_t lin; /* linear iteration of the extreme (LOC variants) */
} loop_red;

/* The launch geometry both code generators share.  PARALLEL: every point
   at once.  ACROSS: t = sum over the plane axes of (idx - lo) runs 0..tmax;
   sweep s runs plane t at step t + dist * s; on the plane, axis `solved`
   follows from t, the others are enumerated; `seq` (CPU) is walked
   sequentially inside each point (-1 none). */
typedef struct loop_geom {
    int rank;
    int64_t lo[FDX_LOOP_MAX_RANK], n[FDX_LOOP_MAX_RANK];
    int across;
    int plane[FDX_LOOP_MAX_RANK]; /* 1: axis in t */
    int solved, seq, fast;        /* fast: loop index on thread x / inner loop */
    int64_t tmax, dist;
    /* CUDA hyperplanes: one warp per line of the fast axis, its bounds from
       t in closed form (no thread off the plane); 0: flat enumeration. */
    int lines;
    int clip; /* the one plane axis among the line axes, its range from t (-1 none) */
} loop_geom;

typedef struct loop_kentry {
    char *source;
    fdx_kernel *kernel;
} loop_kentry;

struct fdx_loop {
    fdx_ctx *ctx;
    char name[LOOP_NAME_MAX];
    int rank;
    char index[FDX_LOOP_MAX_RANK][LOOP_NAME_MAX];
    int64_t lo[FDX_LOOP_MAX_RANK], hi[FDX_LOOP_MAX_RANK];
    int have_range;
    int width[FDX_LOOP_MAX_RANK];
    int across;
    int autotfm; /* 0 off, 1 on, 2 force */
    fdx_backend_kind plan_target;
    int nargs, nscalars, nreds;
    loop_arg arg[FDX_LOOP_MAX_ARGS];
    char scalar_name[LOOP_MAX_SCALARS][LOOP_NAME_MAX];
    double scalar[LOOP_MAX_SCALARS];
    loop_red red[LOOP_MAX_REDS];
    char *body;
    int analyzed;
    /* compiled kernels by source text, most recent first */
    loop_kentry kcache[LOOP_KCACHE];
    /* device scratch for reduction partials */
    void *partials;
    size_t partials_bytes;
};

/* Body analysis: fills arg[].drive from the accessor calls in the body. */
FDX_HIDDEN fdx_status fdx_loop_analyze(fdx_loop *l);
FDX_HIDDEN int fdx_loop_is_ident(const char *s);

/* Planner: layouts wanted and geometry for `target`. */
FDX_HIDDEN fdx_status fdx_loop_decide(fdx_loop *l, fdx_backend_kind target, fdx_loop_decision *d, loop_geom *g);
/* Applies a decision (moves data, logs what moved, why and its cost). */
FDX_HIDDEN fdx_status fdx_loop_apply(fdx_loop *l, const fdx_loop_decision *d);

/* Source generation for the current layouts; *out is malloc'ed. */
FDX_HIDDEN fdx_status fdx_loop_source(fdx_loop *l, fdx_backend_kind target, char **out);
FDX_HIDDEN fdx_status fdx_loop_gen_cpu(const fdx_loop *l, const loop_geom *g, char **out);
FDX_HIDDEN fdx_status fdx_loop_gen_cuda(const fdx_loop *l, const loop_geom *g, char **out);

/* Actuality: make the copy on the context's side current / mark writes. */
FDX_HIDDEN fdx_status fdx_loop_actual_before(fdx_array *a);
FDX_HIDDEN void fdx_loop_actual_written(fdx_array *a);

/* Growing text buffer for the generators. */
typedef struct loop_text {
    char *p;
    size_t len, cap;
    int failed;
} loop_text;
FDX_HIDDEN void fdx_loop_text(loop_text *t, const char *fmt, ...) FDX_PRINTF(2, 3);

#endif
