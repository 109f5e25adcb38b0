/* fdx dist: arrays block-distributed over a grid of units (MPI ranks x GPUs
   per rank, or CPU units), local blocks with shadows, split-phase shadow
   exchange (peer copies inside a process, MPI between processes), and the
   stencil engine's time steps run distributed, optionally overlapped. */
#ifndef FDX_DIST_H
#define FDX_DIST_H

#include "loop.h"
#include "boundary.h"
#include "stencil.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FDX_DIST_MAX_RANK 3

/* How a global grid is split.  Unit u (0 .. units-1) of the whole job is
   local unit u % units_per_proc of MPI rank u / units_per_proc; its grid
   coordinates run first axis fastest.  An axis with grid[a] == 1 is not
   split.  Remainders go one point each to the first parts. */
typedef struct fdx_dist_desc {
    int rank;                          /* 1, 2 or 3 */
    int64_t shape[FDX_DIST_MAX_RANK];  /* global extents */
    int grid[FDX_DIST_MAX_RANK];       /* units per axis; all 0: split the slowest axis */
    int shadow[FDX_DIST_MAX_RANK];     /* shadow width per axis on each side that has a neighbour */
    int corners;                       /* 1: exchange edge and corner shadows too */
    int units_per_proc;                /* GPUs (or CPU units) per process, >= 1 */
    /* The caller's communicator: the address of an MPI_Comm (so that this
       header needs no mpi.h), e.g. `MPI_Comm c; ... desc.mpi_comm = &c;`.
       fdx duplicates it (fdx_dist_create is collective on it) and never
       initializes or finalizes MPI for it.  NULL: the whole job (the world),
       MPI initialized by fdx only under mpirun and when nobody has. */
    const void *mpi_comm;
    /* Periodic axes: periodic[a] = F > 0 makes axis a periodic with a ghost
       frame of F points at each end (the stencil's radius, as in
       include/fdx/boundary.h): global points [0, F) and [n-F, n) are ghosts
       that every exchange renews from [n-2F, n-F) and [F, 2F), between the
       first and last units of the axis (or within one unit when the axis is
       not split).  The parts at the ends must own at least 2F points.  0:
       not periodic. */
    int periodic[FDX_DIST_MAX_RANK];
} fdx_dist_desc;

typedef struct fdx_dist fdx_dist;

/* Joins MPI when the process was started by mpirun (initializing it if
   nobody has) and builds one context per local unit from opts (on CUDA, unit
   i of a process uses device node_rank * units_per_proc + i modulo the
   device count).  Without MPI or mpirun the job is this one process. */
FDX_API fdx_status fdx_dist_create(const fdx_options *opts, const fdx_dist_desc *d, fdx_dist **out);
FDX_API void fdx_dist_destroy(fdx_dist **d);
/* Finalizes MPI if fdx_dist_create initialized it (call once at exit);
   MPI that the caller initialized is left alone. */
FDX_API void fdx_dist_finalize(void);

FDX_API int fdx_dist_units(const fdx_dist *d);          /* units of the whole job */
FDX_API int fdx_dist_local_units(const fdx_dist *d);    /* units of this process */
FDX_API int fdx_dist_procs(const fdx_dist *d);          /* MPI ranks (1 without MPI) */
FDX_API int fdx_dist_proc(const fdx_dist *d);           /* this process's rank */
FDX_API fdx_ctx *fdx_dist_ctx(const fdx_dist *d, int local_unit);
FDX_API const fdx_dist_desc *fdx_dist_get_desc(const fdx_dist *d);
/* Global index range [lo, hi) that unit `unit` owns on each axis. */
FDX_API void fdx_dist_owned(const fdx_dist *d, int unit, int64_t *lo, int64_t *hi);
/* Whether MPI passes device buffers directly ("cuda-aware") or they are
   staged through pinned host memory ("staged"), or "none" (one process). */
FDX_API const char *fdx_dist_transport(const fdx_dist *d);

/* ---- distributed arrays ---------------------------------------------------
   Each local unit holds one fdx_array of its owned range widened by the
   shadow width on every side that has a neighbour, in the unit's device
   memory (host memory on the CPU). */
typedef struct fdx_darray fdx_darray;

FDX_API fdx_status fdx_darray_create(fdx_dist *d, fdx_dtype type, fdx_darray **out);

/* ALIGN and richer arrays.  ncomp > 1: ncomp values a grid point, a leading
   undistributed axis ('*'): the local array has rank + 1 axes, shape
   (ncomp, local extents), and loops index it A(c, i, j, k) (the seed's
   ARRAY[Z][Y][X][5], DVMH's [block][block][block][*] in C order).
   own_shadow = 1: this array's shadow widths low:high per axis and its own
   corner flag instead of the distribution's (each part must own at least
   the widest).  Stencil steps (fdx_dstencil_*) take only the distribution's
   plain arrays. */
typedef struct fdx_darray_desc {
    fdx_dtype type;
    int ncomp;
    int own_shadow;
    int shadow_lo[FDX_DIST_MAX_RANK], shadow_hi[FDX_DIST_MAX_RANK];
    int corners;
} fdx_darray_desc;
FDX_API fdx_status fdx_darray_create_desc(fdx_dist *d, const fdx_darray_desc *desc, fdx_darray **out);
FDX_API void fdx_darray_destroy(fdx_darray **a);
FDX_API fdx_array *fdx_darray_local(fdx_darray *a, int local_unit);
/* Where the local array starts in global coordinates (owned lo - shadow). */
FDX_API void fdx_darray_local_origin(const fdx_darray *a, int local_unit, int64_t *origin);

/* Fills every local array, shadows included, with f(global index) computed
   on the host (in parallel threads: f must be a pure function), then
   copies it to the device.  gidx has 4 entries: the grid index padded to
   rank 3, then the component (0 without components). */
typedef double (*fdx_dist_init_fn)(const int64_t *gidx, void *arg);
FDX_API fdx_status fdx_darray_fill(fdx_darray *a, fdx_dist_init_fn f, void *arg);
/* Copies the owned points of this process's units into `global` (a host
   buffer of the global shape, times ncomp values a point first, and the
   array's type); points of other
   processes are left alone.  With gather_all, every process receives the
   whole field (MPI). */
FDX_API fdx_status fdx_darray_gather(fdx_darray *a, void *global, int gather_all);

/* Global reductions over owned points: sum, L2 norm, and a digest that is
   bit-exact and independent of the decomposition (a sum modulo 2^64 of a
   hash of each point's global index and bits). */
typedef struct fdx_dist_checksum {
    double sum, l2;
    uint64_t digest;
} fdx_dist_checksum;
FDX_API fdx_status fdx_darray_checksum(fdx_darray *a, fdx_dist_checksum *out);

/* ---- shadow renewal -------------------------------------------------------
   Split phase: begin packs the faces and starts the transfers after the work
   already queued on each unit's compute stream; end completes them and makes
   each unit's compute stream wait for its shadows.  Nothing else may write
   the array between begin and end.  (A test can turn both into no-ops,
   fdx_dist_test_skip_exchange in fdx/internal/test_hooks.h, to prove that
   its checks depend on them.) */
FDX_API fdx_status fdx_darray_exchange_begin(fdx_darray *a);
FDX_API fdx_status fdx_darray_exchange_end(fdx_darray *a);
FDX_API fdx_status fdx_darray_exchange(fdx_darray *a);
/* The compute stream of a local unit (NULL on the CPU). */
FDX_API void *fdx_dist_stream(const fdx_dist *d, int local_unit);
/* Waits for all queued work of all local units. */
FDX_API fdx_status fdx_dist_sync(fdx_dist *d);

/* ---- distributed stencil steps -------------------------------------------- */
typedef struct fdx_dstencil fdx_dstencil;

/* One stencil per local unit; the shadow width of every split axis must be
   at least the stencil's radius. */
FDX_API fdx_status fdx_dstencil_create(fdx_dist *d, const fdx_stencil_desc *desc, fdx_dtype type,
                                       fdx_dstencil **out);
FDX_API void fdx_dstencil_destroy(fdx_dstencil **s);

/* Boundary conditions (include/fdx/boundary.h) on the global faces of every
   later step: before each step, the ghosts of Dirichlet and Neumann faces
   are filled on the units whose blocks touch those faces (only there);
   periodic axes must be the distribution's periodic axes with a frame of
   the stencil's radius, and their ghosts come from the exchange (which
   then also runs on u before a step when u was filled or written by a
   loop).  Values arrays are not taken (one value a face).  The result
   equals fdx_stencil_apply with fdx_stencil_set_boundary on the whole
   grid, bit for bit.  Overlapped steps are not overlapped on a
   distribution with periodic axes.  NULL: none. */
FDX_API fdx_status fdx_dstencil_set_boundary(fdx_dstencil *s, const fdx_bc_desc *bc);

/* out = update(u, u_prev, coef) at every global point at least `radius` from
   the global faces, then out's shadows renewed: the same result as one
   fdx_stencil_apply on the whole grid.  overlap = 1 computes the slabs next
   to split faces first, exchanges their shadows while the interior runs on
   the compute stream (only when the split axes are the slowest axis;
   otherwise it computes, then exchanges). */
FDX_API fdx_status fdx_dstencil_step(fdx_dstencil *s, fdx_darray *out, fdx_darray *u, fdx_darray *u_prev,
                                     fdx_darray *coef, int overlap);

/* `steps` steps on a ring of fields: b[nf-2] is the current field, b[nf-1]
   the one written, b[0] the previous one (wave, nf = 3; heat, nf = 2);
   after each step the ring turns left by one, so that on return b[nf-2]
   holds the newest field.  graph = 1 (CUDA, one process): batches of 24
   steps of all units are captured once into a CUDA graph and replayed,
   which removes the host's per-step launch overhead (the first run for a
   given ring does nf plain steps first so kernels are compiled and tuned).
   Where capture fails the run goes on with plain steps. */
FDX_API fdx_status fdx_dstencil_run(fdx_dstencil *s, fdx_darray **b, int nf, fdx_darray *coef, int64_t steps,
                                    int overlap, int graph);
/* Deep halos (communication avoiding): fdx_dstencil_run advances k steps a
   pass, each unit running the temporally blocked kernels on its block and
   the shadows (at least k x radius wide on split axes; corners exchanged
   when two or more axes are split) renewed once a pass, bit-identical to
   single steps (heat or wave, fixed frames: no periodic axes or boundary
   conditions).  The ring's fields must share the global frame; a wave's
   third field ends as scratch.  0 or 1: one step a pass (the default). */
FDX_API fdx_status fdx_dstencil_set_temporal(fdx_dstencil *s, int k);
/* 1 when the last fdx_dstencil_run replayed a CUDA graph. */
FDX_API int fdx_dstencil_graph_used(const fdx_dstencil *s);

/* ---- distributed loops ---------------------------------------------------
   A loop of the loop runtime (include/fdx/loop.h) run on every unit's block,
   with DVMH's meaning: the range is given in global indices, each unit runs
   the part it owns, and the body sees global indices (the same i, j, k as
   on one unit: the accessors subtract the block's origin).  Neighbours at
   +-w of owned points are in the shadows when w <= the shadow width.
   Before a run, arrays the loop reads are renewed when a distributed loop
   wrote them since their last renewal; arrays it writes are marked for
   renewal.  Reductions are global over all units and ranks, the same on
   every unit; exact operations (max, min, loc, and, or, integer sums and
   products) do not depend on the decomposition, floating sums do in their
   last bits.  With autotfm (the context's option, fdx_dloop_set_autotfm)
   each unit's block takes the layout its loops want (permutation,
   diagonal), as on one unit; shadow exchanges and ACROSS faces read and
   write faces straight out of reorganized blocks (slice copies), fill,
   gather and checksum see global indices whatever the layout
   (FDX_DLOOP_AUTOTFM=off keeps the blocks plain, for comparisons).  The
   stencil engine (fdx_dstencil_*) takes plain blocks only.

   ACROSS loops (fdx_dloop_across) run pipelined over the units, as DVMH
   runs them, with the portions cut along the hyperplanes: every unit runs
   its block's part of one global wavefront (all sweeps of a run in flight
   at once, the loop runtime's hyperplanes inside a block), portion after
   portion of B hyperplane steps, and the shadows of the written arrays are
   renewed between portions (events and peer copies between local units, no
   host wait; messages between processes); reductions are folded once at
   the end.  The result is the sequential nest's, bit for bit the same on
   any grid of units.  Accesses are checked as for fdx_loop_across_widths. */
typedef struct fdx_dloop fdx_dloop;

FDX_API fdx_status fdx_dloop_create(fdx_dist *d, const char *indices, fdx_dloop **out);
FDX_API void fdx_dloop_destroy(fdx_dloop **l);
FDX_API fdx_status fdx_dloop_range(fdx_dloop *l, const int64_t *lo, const int64_t *hi);
FDX_API fdx_status fdx_dloop_array(fdx_dloop *l, const char *name, fdx_darray *a, fdx_access access);
/* ALIGN with a shift (DVMH's align(B[i] with T[i + s])): the body's
   `name(x)` is the element stored at grid index x + shift (per grid axis),
   so B(x) lives where the loop's index x + shift does; fill, gather and
   checksum stay in grid indices. */
FDX_API fdx_status fdx_dloop_array_aligned(fdx_dloop *l, const char *name, fdx_darray *a, fdx_access access,
                                           const int64_t *shift);
FDX_API fdx_status fdx_dloop_scalar(fdx_dloop *l, const char *name, double value);
FDX_API fdx_status fdx_dloop_reduction(fdx_dloop *l, const char *name, fdx_reduce op);
/* A reduction of type FDX_FLOAT32, FDX_FLOAT64, FDX_INT32 or FDX_INT64. */
FDX_API fdx_status fdx_dloop_reduction_typed(fdx_dloop *l, const char *name, fdx_reduce op, fdx_dtype type);
/* ACROSS widths low:high per index (fdx_loop_across_widths); the shadow
   width of every split axis must cover them. */
FDX_API fdx_status fdx_dloop_across(fdx_dloop *l, const int *low, const int *high);
/* Order per index, +1 ascending or -1 descending (fdx_loop_order). */
FDX_API fdx_status fdx_dloop_order(fdx_dloop *l, const int *dir);
/* Portions per block and sweep of a distributed ACROSS loop: a unit's
   hyperplanes of one sweep are cut into this many portions of B steps,
   with a shadow renewal between portions (0: B from a model of launch and
   renewal cost against the extra steps long portions add; the environment
   variable FDX_DLOOP_PORTIONS overrides the model). */
FDX_API fdx_status fdx_dloop_set_portions(fdx_dloop *l, int portions);
FDX_API fdx_status fdx_dloop_body(fdx_dloop *l, const char *body);
/* REMOTE_ACCESS: the body reads elements of `a` that other units own.
   Before every run (every sweep) the runtime fetches them, from every unit
   and rank, into a buffer each unit holds, and `name` in the body reads the
   buffer:
   - a box [lo, hi) in global indices (a point, a line, a plane, or more):
     `name(x0, ...)` takes global indices (component first when `a` has
     components);
   - a list of n points (idx: n x rank global indices): `name(q)` is point
     q (`name(c, q)` with components).
   At most 4 patterns a loop. */
FDX_API fdx_status fdx_dloop_remote_box(fdx_dloop *l, const char *name, fdx_darray *a, const int64_t *lo,
                                        const int64_t *hi);
FDX_API fdx_status fdx_dloop_remote_points(fdx_dloop *l, const char *name, fdx_darray *a, int n, const int64_t *idx);
/* Renews stale shadows of read arrays, runs every unit's part (on its
   compute stream), and combines the reductions; waits when there are any. */
FDX_API fdx_status fdx_dloop_run(fdx_dloop *l);
/* `times` runs in a row (sweeps); reductions report the last one. */
FDX_API fdx_status fdx_dloop_run_repeated(fdx_dloop *l, int times);
FDX_API fdx_status fdx_dloop_result(const fdx_dloop *l, const char *name, double *value);
/* With the location (global indices) of MAXLOC/MINLOC, the first in the
   loop's sequential order on ties; loc may be NULL. */
FDX_API fdx_status fdx_dloop_result_loc(const fdx_dloop *l, const char *name, double *value, int64_t *loc);
FDX_API fdx_status fdx_dloop_result_int(const fdx_dloop *l, const char *name, int64_t *value, int64_t *loc);
/* autotfm for every unit's block (fdx_loop_set_autotfm: 0 off, 1 on,
   2 force), and planning as for `target` (fdx_loop_plan_for: a GPU's
   layouts on CPU units, for tests). */
FDX_API fdx_status fdx_dloop_set_autotfm(fdx_dloop *l, int mode);
FDX_API fdx_status fdx_dloop_plan_for(fdx_dloop *l, fdx_backend_kind target);
/* The layout moves of every local unit's loop so far (fdx_loop_move_stats). */
FDX_API fdx_status fdx_dloop_move_stats(const fdx_dloop *l, fdx_loop_moves *out);
/* Shadow renewals the loop has made (tests); portions of the last ACROSS run. */
FDX_API int fdx_dloop_exchanges(const fdx_dloop *l);
FDX_API int fdx_dloop_portions(const fdx_dloop *l);

#ifdef __cplusplus
}
#endif
#endif
