/* fdx_dgraph (internal, for the comm and solvers modules): a batch of steps
   over every unit of a distribution, captured once as one CUDA graph and
   replayed.  Used by fdx_dstencil_run and the distributed simulation
   driver (src/solvers/fdx_sim_dist.c). */
#ifndef FDX_DGRAPH_H
#define FDX_DGRAPH_H

#include "core/fdx_error.h"
#include "fdx/dist.h"

typedef struct fdx_dgraph fdx_dgraph;

/* One step's work, enqueued on the distribution's streams; must be legal
   while capturing (no host syncs, no allocations, no compiles: run the step
   once uncaptured first) and take no host value that changes from step to
   step (a captured kernel keeps its arguments). */
typedef fdx_status (*fdx_dgraph_step_fn)(void *arg);

/* 1 when graphs can run on d: one process, CUDA, exchanges not skipped by
   the test hook. */
FDX_HIDDEN int fdx_dgraph_possible(const fdx_dist *d);
FDX_HIDDEN fdx_status fdx_dgraph_create(fdx_dist *d, fdx_dgraph **out);
FDX_HIDDEN void fdx_dgraph_destroy(fdx_dgraph **g);
/* Captures `times` calls of step (replacing an earlier capture), forked from
   and joined to unit 0's compute stream.  On failure nothing ran: the
   arrays (those the steps exchange) get their events re-recorded and no
   exchange under way, every unit is synced, and the status names why. */
FDX_HIDDEN fdx_status fdx_dgraph_capture(fdx_dgraph *g, fdx_dgraph_step_fn step, void *arg, int times,
                                         fdx_darray *const *arrays, int narrays);
/* 1 once a capture succeeded. */
FDX_HIDDEN int fdx_dgraph_ready(const fdx_dgraph *g);
/* Replays the captured steps, ordered after the earlier work of every
   stream of the distribution and before their later work. */
FDX_HIDDEN fdx_status fdx_dgraph_launch(fdx_dgraph *g);

#endif
