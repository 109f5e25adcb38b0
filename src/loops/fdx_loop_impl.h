/* fdx_loop_impl: the loop object shared by the loop runtime's files. */
#ifndef FDX_LOOP_IMPL_H
#define FDX_LOOP_IMPL_H

#include "arrays/fdx_array_impl.h"
#include "fdx/loop.h"

#define LOOP_NAME_MAX 32
#define LOOP_MAX_SCALARS 16
#define LOOP_MAX_REDS 16
#define LOOP_KCACHE 4
/* launch graphs kept a loop (portions of a distributed sweep: one each) */
#define LOOP_GRAPHS 32

typedef struct loop_arg {
    char name[LOOP_NAME_MAX];
    fdx_array *array;
    fdx_access access;
    /* From the body: loop index driving each array axis (-1 none, -2 mixed). */
    int drive[FDX_MAX_RANK];
    int uses;
    /* 1 while every accessor call names each axis by a loop index alone
       (no offset, no other expression): a write-only array whose axes the
       range covers is then overwritten whole (the planner relabels it). */
    int exact;
    /* ALIGN shift: element 0 at loop-space index origin (run-time values) */
    int shifted;
    int64_t origin[FDX_MAX_RANK];
} loop_arg;

typedef struct loop_red {
    char name[LOOP_NAME_MAX];
    fdx_reduce op;
    fdx_dtype type;
    double value;
    int64_t ivalue; /* integer reductions other than _LOC: the exact value */
    int64_t lin;    /* linear iteration of the extreme (LOC variants) */
} loop_red;

/* Integer reductions other than _LOC keep their value in the 64-bit slot
   of the accumulators (exact); the others in the double slot. */
FDX_HIDDEN int fdx_loop_red_is_loc(fdx_reduce op);
FDX_HIDDEN int fdx_loop_red_is_int(const loop_red *r);
/* Identities for the double and the 64-bit slot. */
FDX_HIDDEN double fdx_loop_red_identity(fdx_reduce op);
FDX_HIDDEN int64_t fdx_loop_red_identity_int(const loop_red *r);
/* Folds (v, l) into (*bv, *bl) as the generated code does. */
FDX_HIDDEN void fdx_loop_red_fold(const loop_red *r, double v, int64_t l, double *bv, int64_t *bl);

/* Run-time integers of a launch: the range's lower bounds, then the
   origins of shifted arrays (slot LOOP_RI_ORIGIN + a * FDX_MAX_RANK + x),
   then the steps [T0, T1) the CPU kernel walks (a run in parts). */
#define LOOP_RI_ORIGIN FDX_LOOP_MAX_RANK
#define LOOP_RI_STEPS (FDX_LOOP_MAX_RANK + FDX_LOOP_MAX_ARGS * FDX_MAX_RANK)
#define LOOP_RI_COUNT (LOOP_RI_STEPS + 2)

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
    /* CUDA parallel loops on diagonal arrays: threads walk the diagonals of
       offsets (fast, diag2) (x_fast + x_diag2 constant), diagonal after
       diagonal, as the arrays store them (-1: plain enumeration). */
    int diag2;
    /* CUDA kernel shape (fdx_loop_plan.c: kernel_shape).  block: threads
       per block.  grid (parallel loops without a diagonal walk): a thread
       grid instead of the flat grid-stride enumeration: x over the fast
       axis (bx threads a block), y over chunks of ppt consecutive points of
       axis `march` (by threads a block, each walking its chunk, so the
       compiler keeps neighbours in registers), z over the other axes; no
       division per point. */
    int block, grid, bx, by, ppt, march;
    /* CUDA ACROSS (FDX_LOOP_COOP=1): the steps of a launch range in one
       cooperative launch (every block resident), the kernel walking them
       with a grid-wide barrier between two steps and taking the blocks of
       each step's launch shape (dim[0] x its sweeps in flight) in turn, so
       every point, and every reduction slot, is what the launch per step
       computes (fdx_loop_gen_gpu.c: 1 the blocks from a work counter, 2
       a fixed round robin). */
    int coop;
} loop_geom;

/* The grid kernel's chunk counts: along x (fast axis / bx), y (march axis
   / (by * ppt)) and z (the other axes' points); the launch takes at most
   these many blocks per dimension and the kernel strides over the rest. */
FDX_HIDDEN void fdx_loop_grid_chunks(const loop_geom *g, int64_t c[3]);
/* A CUDA launch's grid (dim) and block (x, y) for geometry g on a device
   of sm_count SMs (fdx_loop_run.c); for kernels other than the grid kernel
   dim[1] is 1 and each step puts its sweeps in flight on y. */
FDX_HIDDEN void fdx_loop_launch_shape(const fdx_loop *l, const loop_geom *g, int sm_count, unsigned dim[3],
                                      unsigned block[2]);

/* A run being launched: kernel, geometry, arguments and reduction
   partials (fdx_loop_run.c); kept by the loop while a run in parts
   (fdx_loop_steps_*) is under way. */
typedef struct loop_launch {
    loop_geom g;
    fdx_kernel *k;
    int times;
    void *stream;
    int64_t nblk;
    unsigned dim[3], block[2];
    double sc[LOOP_MAX_SCALARS];
    long long ri[LOOP_RI_COUNT];
    void *ptr[FDX_LOOP_MAX_ARGS];
    double *hv;     /* host partials [sweep][block][reduction] */
    long long *hl;
    size_t count;
    void *pv, *pl;  /* CUDA: the partials on the device */
} loop_launch;

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
    int width[FDX_LOOP_MAX_RANK];       /* max(low, high) per index */
    int wlo[FDX_LOOP_MAX_RANK], whi[FDX_LOOP_MAX_RANK];
    int dir[FDX_LOOP_MAX_RANK];         /* +1 ascending, -1 descending */
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
    /* deferred reductions: the last run's partials wait for fdx_loop_finish */
    int defer, pending;
    void *pend_stream;
    size_t pend_count, pend_first, pend_blocks;
    double *pend_v;
    long long *pend_l;
    /* layout moves: a kept scratch buffer of the context's memory (moves
       ping-pong between it and the array's storage), and the counters */
    void *scratch;
    size_t scratch_bytes;
    fdx_loop_moves moves;
    /* CUDA: the launches of a run as a graph (fdx_loop_graph.h), one per
       recent launch key (fdx_loop_run.c): a key seen once is remembered
       without a graph, captured the second time, replayed after that.
       Several keys, so that the portions of a distributed ACROSS sweep
       (same launches, another lower bound each) replay their own graphs
       sweep after sweep.  graph_off after a failed capture. */
    void *graph[LOOP_GRAPHS], *graph_key[LOOP_GRAPHS], *graph_stream;
    unsigned long graph_used[LOOP_GRAPHS], graph_clock;
    int graph_off;
    /* Distributed ACROSS (fdx_dacross.c): sweeps at least dist_min
       hyperplanes apart, and the indices in plane_axes (bits) kept in the
       hyperplane sum t (a split axis: every unit's steps then line up with
       the global wavefront); a run in parts keeps its launch in `part`. */
    int dist_min;
    unsigned plane_axes;
    int in_parts;
    loop_launch part;
    /* cooperative runs (CUDA): the grid barrier's and the work counter
       (16 bytes); launches that share the device at once (their grids
       split its resident blocks; distributed units on one GPU) */
    void *coop_bar;
    int coop_share;
};

/* Releases the loop's graph and its key (a kernel it names may go). */
FDX_HIDDEN void fdx_loop_graph_drop(fdx_loop *l);

/* Runs `times` sweeps like fdx_loop_run_repeated but returns without
   waiting for the reductions (CUDA: the partials stay on the device);
   fdx_loop_finish completes them (the results then read as usual).  Lets
   distributed loops queue work on several devices before waiting. */
FDX_HIDDEN fdx_status fdx_loop_run_deferred(fdx_loop *l, int times, void *stream);
FDX_HIDDEN fdx_status fdx_loop_finish(fdx_loop *l);
/* 1 while a deferred run's results are not finished. */
FDX_HIDDEN int fdx_loop_pending(const fdx_loop *l);

/* A run of `times` sweeps in parts, for distributed ACROSS loops: begin
   plans, moves, compiles and starts the reductions (*last: the run's last
   step, tmax + dist * (times - 1)); steps launches the steps [T0, T1) of
   the wavefront on the run's stream (no host wait); end marks the written
   arrays.  The reductions are deferred (fdx_loop_finish folds the last
   sweep's partials, which stay on the device until then). */
FDX_HIDDEN fdx_status fdx_loop_steps_begin(fdx_loop *l, int times, void *stream, long long *last);
FDX_HIDDEN fdx_status fdx_loop_steps(fdx_loop *l, long long T0, long long T1);
FDX_HIDDEN fdx_status fdx_loop_steps_end(fdx_loop *l);

/* Body analysis: fills arg[].drive from the accessor calls in the body;
   for ACROSS loops checks the accesses to written arrays (star-shaped,
   within the widths). */
FDX_HIDDEN fdx_status fdx_loop_analyze(fdx_loop *l);
/* Loop index d's value at iteration-space offset x (order applied). */
FDX_HIDDEN int64_t fdx_loop_index_at(const fdx_loop *l, int d, int64_t x);
FDX_HIDDEN int fdx_loop_is_ident(const char *s);

/* Planner: layouts wanted and geometry for `target`. */
FDX_HIDDEN fdx_status fdx_loop_decide(fdx_loop *l, fdx_backend_kind target, fdx_loop_decision *d, loop_geom *g);
/* Applies a decision (moves data, logs what moved, why and its cost) on
   `stream` (the run's). */
FDX_HIDDEN fdx_status fdx_loop_apply(fdx_loop *l, const fdx_loop_decision *d, void *stream);
/* Moves array a of the loop to layout `to` through the loop's scratch
   (fdx_loop_move.c); relabel: take the layout without moving the data
   (the loop overwrites every element).  *bytes: bytes read + written. */
FDX_HIDDEN fdx_status fdx_loop_move(fdx_loop *l, fdx_array *a, const fdx_layout *to, int relabel, void *stream,
                                    int64_t *bytes);

/* The launch geometry a run on `target` would use under the current
   layouts (tests: the emulated CUDA launches of test_loop_emu). */
FDX_HIDDEN fdx_status fdx_loop_geometry(fdx_loop *l, fdx_backend_kind target, loop_geom *g);
/* Source generation for the current layouts; *out is malloc'ed. */
FDX_HIDDEN fdx_status fdx_loop_source(fdx_loop *l, fdx_backend_kind target, char **out);
FDX_HIDDEN fdx_status fdx_loop_gen_cpu(const fdx_loop *l, const loop_geom *g, char **out);
FDX_HIDDEN fdx_status fdx_loop_gen_cuda(const fdx_loop *l, const loop_geom *g, char **out);

/* Actuality: make the copy on the context's side current / mark writes. */
FDX_HIDDEN fdx_status fdx_loop_actual_before(fdx_array *a);
FDX_HIDDEN void fdx_loop_actual_written(fdx_array *a);

#endif
