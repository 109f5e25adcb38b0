/* fdx loop: parallel loops whose bodies are C source fragments, compiled at
   run time for the context's backend (C with OpenMP, or CUDA C through NVRTC)
   under the layouts the arrays have at launch; reductions; ACROSS loops run
   as hyperplanes; automatic array reorganization (autotfm); actuality of the
   host and device copies of arrays. */
#ifndef FDX_LOOP_H
#define FDX_LOOP_H

#include "array.h"
#include "layout.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FDX_LOOP_MAX_RANK 4
#define FDX_LOOP_MAX_ARGS 16

typedef struct fdx_loop fdx_loop;

/* How a loop uses an array (as OPS's access modes, but enums).  FDX_WRITE:
   the loop does not read the array's old values; when its range covers
   every axis of the array and the body names each axis by a loop index
   alone (A(i,j,k) = ...), every element is taken to be written, so autotfm
   changes such an array's layout without moving its old data. */
typedef enum fdx_access {
    FDX_READ = 1,
    FDX_WRITE = 2,
    FDX_READ_WRITE = 3
} fdx_access;

/* Reductions.  In the body, a reduction variable starts each iteration at
   the operation's identity; whatever the body leaves in it is combined:
   `s = x;` or `s += x;` for a sum, `m = fabs(d);` for a max.  The _LOC
   variants also return the loop indices of the extreme value (the first one
   in sequential order on ties).  AND and OR are bitwise, on integer
   reductions only. */
typedef enum fdx_reduce {
    FDX_REDUCE_SUM = 0,
    FDX_REDUCE_MAX,
    FDX_REDUCE_MIN,
    FDX_REDUCE_MAXLOC,
    FDX_REDUCE_MINLOC,
    FDX_REDUCE_PROD,
    FDX_REDUCE_AND,
    FDX_REDUCE_OR
} fdx_reduce;

/* A loop over loop indices named in `indices` ("i,j,k": index 0 first; the
   sequential meaning is a nest with index 0 innermost).  Names are C
   identifiers; 1 to FDX_LOOP_MAX_RANK of them. */
FDX_API fdx_status fdx_loop_create(fdx_ctx *ctx, const char *indices, fdx_loop **out);
FDX_API void fdx_loop_destroy(fdx_loop **loop);

/* Index ranges lo[d] <= idx_d < hi[d]. */
FDX_API fdx_status fdx_loop_range(fdx_loop *loop, const int64_t *lo, const int64_t *hi);
/* Aligns the loop with array `a` ("parallel on a"): loop index d runs over
   axis axes[d] of a (axes NULL: index d over axis d).  Sets the range to
   those axes' full extents unless fdx_loop_range set one. */
FDX_API fdx_status fdx_loop_on(fdx_loop *loop, fdx_array *a, const int *axes);

/* Names an array for the body: `name(x0, x1, ...)` in the body is the
   element at those logical indices, an lvalue of the array's element type. */
FDX_API fdx_status fdx_loop_array(fdx_loop *loop, const char *name, fdx_array *a, fdx_access access);
/* ALIGN with a shift: element 0 of array `name` sits at loop-space index
   origin[x] on each axis x, so `name(x0, ...)` in the body addresses element
   (x0 - origin[0], ...).  The origin is a run-time value (changing it does
   not recompile).  Distributed loops use it to let bodies see global
   indices on every unit's block. */
FDX_API fdx_status fdx_loop_array_origin(fdx_loop *loop, const char *name, const int64_t *origin);
/* A double scalar `name` in the body; set again to change its value for the
   next run (no recompilation). */
FDX_API fdx_status fdx_loop_scalar(fdx_loop *loop, const char *name, double value);
/* A double reduction variable `name`. */
FDX_API fdx_status fdx_loop_reduction(fdx_loop *loop, const char *name, fdx_reduce op);
/* A reduction variable of type FDX_FLOAT32, FDX_FLOAT64, FDX_INT32 or
   FDX_INT64 (float, double, int, long long in the body).  Integer sums,
   products, max, min, and, or are exact (64-bit accumulators); float
   reductions accumulate in double. */
FDX_API fdx_status fdx_loop_reduction_typed(fdx_loop *loop, const char *name, fdx_reduce op, fdx_dtype type);
/* Declares the loop ACROSS: iteration idx reads elements written by the
   iterations idx +- e_d * w with 0 < w <= width[d] (one index offset at a
   time, as in the seeds' SOR), and writes only its own point.  The result
   is that of the sequential nest; the runtime runs hyperplanes. */
FDX_API fdx_status fdx_loop_across(fdx_loop *loop, const int *width);
/* ACROSS with per-index widths low:high (as DVMH's across(A(low:high))):
   iteration idx reads elements written by iterations idx - w e_d
   (0 < w <= low[d]) and idx + w e_d (0 < w <= high[d]).  Accesses to
   written arrays are checked when the loop runs: an offset in more than one
   index at once (a box-shaped dependence such as U(i,j+1,k-1)), an offset
   beyond the declared width, or an index expression that is not
   `index +- constant` is refused with FDX_ERR_INVALID naming the access. */
FDX_API fdx_status fdx_loop_across_widths(fdx_loop *loop, const int *low, const int *high);
/* Iteration order of each index: +1 ascending (the default), -1 descending
   (the sequential nest runs index d from hi-1 down to lo, as the upper
   sweep of NAS LU).  ACROSS loops give the result of that nest; _LOC ties
   go to the first iteration in that order. */
FDX_API fdx_status fdx_loop_order(fdx_loop *loop, const int *dir);
/* The body: C statements (C99 for the CPU, the C subset of CUDA C for
   NVRTC).  Compilation errors name the body's own line numbers. */
FDX_API fdx_status fdx_loop_body(fdx_loop *loop, const char *body);
/* A name for messages and logs (default "loop"). */
FDX_API fdx_status fdx_loop_name(fdx_loop *loop, const char *name);

/* Automatic reorganization for this loop: 1 on, 0 off, 2 force (also for
   loops too small to repay it).  Default: the context's option "autotfm". */
FDX_API fdx_status fdx_loop_set_autotfm(fdx_loop *loop, int mode);

/* Runs the loop once; `stream` as in fdx_time_run.  Waits for the device
   when the loop has reductions, or when stream is NULL and the context has
   no stream of its own (fdx_ctx_set_stream); with a context stream a NULL
   stream means that one and the run returns once queued. */
FDX_API fdx_status fdx_loop_run(fdx_loop *loop, void *stream);
/* Runs the loop `times` times in a row with the same scalars (the sweeps of
   an iterative method).  ACROSS loops pipeline the sweeps: sweep s runs its
   plane t while sweep s-1 runs plane t + width + 1, with the result of
   `times` sequential nests.  Reductions report the last sweep. */
FDX_API fdx_status fdx_loop_run_repeated(fdx_loop *loop, int times, void *stream);
/* Result of a reduction after the last run; loc (rank entries) may be NULL,
   and must be for reductions other than MAXLOC and MINLOC. */
FDX_API fdx_status fdx_loop_result(const fdx_loop *loop, const char *name, double *value, int64_t *loc);
/* The same for integer reductions, exactly (no trip through double). */
FDX_API fdx_status fdx_loop_result_int(const fdx_loop *loop, const char *name, int64_t *value, int64_t *loc);

/* ---- the planner ------------------------------------------------------------ */
typedef struct fdx_loop_decision {
    int thread_index;                /* loop index on the fastest thread dimension */
    int across;                      /* 1: hyperplanes */
    int narrays;
    struct {
        fdx_layout from, to;         /* to == from: nothing moves */
        int moved;                   /* 1 when the planner asked for a transform */
        int relabel;                 /* 1: write-only and overwritten whole: the
                                        layout changes, no data moves */
        char why[160];
    } array[FDX_LOOP_MAX_ARGS];
    /* GPU parallel loops on diagonal arrays: threads walk the diagonals of
       indices (thread_index, diag_index) as the arrays store them, so the
       arrays keep the layout an ACROSS loop gave them (-1: not so). */
    int diag_index;
} fdx_loop_decision;

/* What the planner would do before the next run, for `target` (the
   context's backend with FDX_BACKEND_AUTO; FDX_BACKEND_CUDA plans as for a
   GPU whatever the context, for tests and studies). */
FDX_API fdx_status fdx_loop_plan(fdx_loop *loop, fdx_backend_kind target, fdx_loop_decision *out);
/* Plans (and reorganizes) as for `target` on every later run: with
   FDX_BACKEND_CUDA on a CPU context the arrays take the GPU's layouts and
   the CPU code runs under them. */
FDX_API fdx_status fdx_loop_plan_for(fdx_loop *loop, fdx_backend_kind target);

/* What this loop's planner moved so far: transforms (the data moved into
   another layout), relabels (an array the loop only writes, and overwrites
   whole, took the layout without its data moving) and the bytes the
   transforms read and wrote. */
typedef struct fdx_loop_moves {
    int64_t transforms, relabels, bytes;
} fdx_loop_moves;
FDX_API fdx_status fdx_loop_move_stats(const fdx_loop *loop, fdx_loop_moves *out);

/* ---- actuality ---------------------------------------------------------------
   Which copies of an array hold its current values (a mask of fdx_place; 0:
   not tracked yet, the array was only moved by hand).  Loops copy an array
   to their side only when the other side holds the current copy. */
FDX_API unsigned fdx_array_valid(const fdx_array *a);
/* The whole array in the plain (identity) layout to or from a host buffer of
   fdx_array_bytes(a) bytes, whatever its current layout and wherever its
   current copy lives. */
FDX_API fdx_status fdx_array_get(fdx_array *a, void *dst);
FDX_API fdx_status fdx_array_put(fdx_array *a, const void *src);

#ifdef __cplusplus
}
#endif
#endif
