/* fdx_cg: a small kernel IR and its two printers, C with OpenMP and CUDA C.

   A generator builds a tree of nodes (kernel, helper functions, scopes,
   loops, conditions, statements, loads and stores of vector lanes with
   cache hints, shared-memory stages, asynchronous copies, barriers) and
   prints it for one target.  The tree owns the structure, the indentation,
   the braces and every construct whose spelling depends on the target
   (loop pragmas, __ldg / __ldcs / __stcs against plain accesses, vector
   types, __launch_bounds__, cp.async, __syncthreads, the kernel's argument
   convention); expressions inside nodes (index arithmetic, the stencil's
   weighted sums) are C text, built with fdx_cg_fmt and, for a load inside
   an expression, fdx_cg_ld.  Every string lives in the tree's arena, so a
   generator never manages buffers; running out of memory is reported once,
   by fdx_cg_print.  docs/DESIGN.md ("Code generation") walks through an
   example. */
#ifndef FDX_CG_H
#define FDX_CG_H

#include "core/fdx_error.h"
#include "fdx/internal/sb.h"

typedef enum fdx_cg_target { FDX_CG_C = 0, FDX_CG_CUDA = 1 } fdx_cg_target;

/* How a load or store meets the caches (CUDA; C ignores it). */
typedef enum fdx_cg_hint {
    FDX_CG_PLAIN = 0,  /* an ordinary access */
    FDX_CG_LDG,        /* read-only data cache (__ldg) */
    FDX_CG_STREAM      /* evict-first streaming access (__ldcs / __stcs) */
} fdx_cg_hint;

/* Loop pragmas, spelled per target. */
typedef enum fdx_cg_loop {
    FDX_CG_LOOP = 0,        /* none */
    FDX_CG_LOOP_NOUNROLL,   /* CUDA: #pragma unroll 1 (C: none) */
    FDX_CG_LOOP_SIMD,       /* C: #pragma omp simd (CUDA: none) */
    FDX_CG_LOOP_PARALLEL,   /* C: omp parallel for, static; collapse(n) for n nested loops */
    FDX_CG_LOOP_PARALLEL_SIMD, /* C: omp parallel for simd, static */
    FDX_CG_LOOP_WORKSHARE   /* C, inside a parallel region: omp for, static, nowait;
                               collapse(n) for n nested loops (CUDA: none) */
} fdx_cg_loop;

typedef struct fdx_cg fdx_cg;
typedef struct fdx_cg_node fdx_cg_node;

/* A tree for `target`; NULL when out of memory. */
FDX_HIDDEN fdx_cg *fdx_cg_create(fdx_cg_target target);
FDX_HIDDEN void fdx_cg_destroy(fdx_cg *cg);
FDX_HIDDEN fdx_cg_target fdx_cg_target_of(const fdx_cg *cg);
/* The top level of the source (helpers, typedefs, the kernel). */
FDX_HIDDEN fdx_cg_node *fdx_cg_root(fdx_cg *cg);

/* ---- expressions: text in the arena ---------------------------------------- */

/* Formatted text kept as long as the tree ("" when out of memory). */
FDX_HIDDEN const char *fdx_cg_fmt(fdx_cg *cg, const char *fmt, ...) FDX_PRINTF(2, 3);
/* The text of a string builder, kept in the tree; frees the builder (a
   builder that ran out of memory marks the tree failed). */
FDX_HIDDEN const char *fdx_cg_text(fdx_cg *cg, fdx_sb *text);
/* One value loaded at `addr` (a pointer expression) with a cache hint, as an
   expression: __ldg(addr) / __ldcs(addr) on CUDA, *(addr) in C. */
FDX_HIDDEN const char *fdx_cg_ld(fdx_cg *cg, fdx_cg_hint hint, const char *addr);

/* ---- structure --------------------------------------------------------------- */

/* A statement; the printer adds the semicolon. */
FDX_HIDDEN void fdx_cg_stmt(fdx_cg_node *at, const char *fmt, ...) FDX_PRINTF(2, 3);
/* A line as it is (preprocessor lines, typedefs with their semicolon). */
FDX_HIDDEN void fdx_cg_line(fdx_cg_node *at, const char *fmt, ...) FDX_PRINTF(2, 3);
/* Text as it is, several lines, not indented (helper text from elsewhere). */
FDX_HIDDEN void fdx_cg_raw(fdx_cg_node *at, const char *text);
/* A comment on its own line. */
FDX_HIDDEN void fdx_cg_comment(fdx_cg_node *at, const char *fmt, ...) FDX_PRINTF(2, 3);
/* A nested scope { ... }; returns it. */
FDX_HIDDEN fdx_cg_node *fdx_cg_scope(fdx_cg_node *at);
/* if (cond) { ... }: returns the body; fdx_cg_else gives the else body. */
FDX_HIDDEN fdx_cg_node *fdx_cg_if(fdx_cg_node *at, const char *fmt, ...) FDX_PRINTF(2, 3);
FDX_HIDDEN fdx_cg_node *fdx_cg_else(fdx_cg_node *body_of_if);
/* for (head) { ... } with a pragma; returns the body.  A loop whose body is
   only another loop prints it without braces (perfect nests, as collapse
   needs). */
FDX_HIDDEN fdx_cg_node *fdx_cg_for(fdx_cg_node *at, fdx_cg_loop pragma, const char *fmt, ...) FDX_PRINTF(3, 4);

/* ---- functions ----------------------------------------------------------------- */

/* A kernel parameter: C type text of the pointee / value, and how it is passed. */
typedef struct fdx_cg_param {
    const char *type; /* "real", "const real", "const struct fdx_p" */
    const char *name;
    int pointer;      /* passed as a restrict pointer; else by value */
} fdx_cg_param;

/* The kernel `name` with `n` parameters: CUDA extern "C" __global__ with
   __launch_bounds__(threads[, min_blocks]) (threads 0: none), parameters in
   registers; C `void name(void **args)` unpacking args[i] into the same
   names: a pointer parameter is args[i] itself (with restrict), a by-value
   one is copied from the address args[i] (the stencil engine's CPU launch).
   Returns the body. */
FDX_HIDDEN fdx_cg_node *fdx_cg_kernel(fdx_cg_node *at, const char *name, const fdx_cg_param *params, int n,
                                      int threads, int min_blocks);
/* The same kernel in the other C convention, cudaLaunchKernel's: args[i]
   is the address of parameter i, pointers included (`type *restrict name =
   *(type **)args[i]`), and the array is named `args_name` (the loop
   generator's reserved fdx_args, so user names cannot collide).  CUDA: as
   fdx_cg_kernel. */
FDX_HIDDEN fdx_cg_node *fdx_cg_kernel_by_address(fdx_cg_node *at, const char *name, const char *args_name,
                                                 const fdx_cg_param *params, int n, int threads);
/* A helper function: CUDA __device__ __forceinline__, C static inline.
   `params` is the parameter list's text.  Returns the body. */
FDX_HIDDEN fdx_cg_node *fdx_cg_helper(fdx_cg_node *at, const char *ret, const char *name, const char *params);

/* ---- memory ---------------------------------------------------------------------- */

/* Vector lanes: `lanes` consecutive values named <pre><first + v><suf>,
   v = 0..lanes-1 (component v of the vector type `vtype` when lanes > 1). */
typedef struct fdx_cg_lanes {
    const char *pre, *suf;
    int lanes, first;
} fdx_cg_lanes;

/* Loads lanes from `ptr + idx`: one access of `vtype` when lanes > 1 (the
   address is aligned to it), or with `window` from the helper named
   fdx_win<hint> (any alignment: two aligned loads, see the stencil
   generator).  C: scalar loads. */
FDX_HIDDEN void fdx_cg_load(fdx_cg_node *at, fdx_cg_lanes dst, const char *vtype, const char *ptr, const char *idx,
                            fdx_cg_hint hint, int window);
/* Stores lanes to `ptr` (a pointer expression): one access of `vtype` when
   lanes > 1 (aligned), else one value. */
FDX_HIDDEN void fdx_cg_store(fdx_cg_node *at, fdx_cg_lanes src, const char *vtype, const char *ptr, fdx_cg_hint hint);

/* Shared memory (CUDA only; fdx_cg_print fails for C): a static array
   `type name[dims]`, or with dims NULL the block's dynamic shared memory
   as bytes aligned to 16, `name[]`. */
FDX_HIDDEN void fdx_cg_shared(fdx_cg_node *at, const char *type, const char *name, const char *dims);
/* A block-wide barrier: __syncthreads() (C: #pragma omp barrier). */
FDX_HIDDEN void fdx_cg_barrier(fdx_cg_node *at, const char *why);
/* An asynchronous copy of `bytes` (4, 8, 16) from global `src` (pointer
   expression) to the shared-memory address `dst` (a 32-bit shared-window
   address expression), when `cond` (NULL: always): cp.async, through L1
   (.ca) below 16 bytes, bypassing it (.cg) at 16.  CUDA only. */
FDX_HIDDEN void fdx_cg_async_copy(fdx_cg_node *at, const char *cond, const char *dst, const char *src, int bytes);
/* Closes the copies issued so far into a group. */
FDX_HIDDEN void fdx_cg_async_commit(fdx_cg_node *at);
/* Waits until at most `pending` groups are in flight (-1: all), with a note. */
FDX_HIDDEN void fdx_cg_async_wait(fdx_cg_node *at, int pending, const char *why);
/* A hint to bring the line at `addr` (a pointer expression into valid
   memory) into the cache ahead of its loads: CUDA prefetch.global.L2, C
   __builtin_prefetch. */
FDX_HIDDEN void fdx_cg_prefetch(fdx_cg_node *at, const char *addr);

/* ---- printing -------------------------------------------------------------------- */

/* Prints the tree for its target.  FDX_ERR_NOMEM when building or printing
   ran out of memory; FDX_ERR_UNSUPPORTED naming the node when the target
   has no such construct (shared memory in C). */
FDX_HIDDEN fdx_status fdx_cg_print(fdx_cg *cg, fdx_sb *out);

#endif
