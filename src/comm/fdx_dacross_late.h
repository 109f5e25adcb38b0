/* fdx_dacross_late (internal): the shadows of a distributed ACROSS run
   renewed one portion late (fdx_dacross_late.c; FDX_DLOOP_LATE=1): the
   shadow a unit reads in portion b holds its neighbours' values after
   portion b - 2. */
#ifndef FDX_DACROSS_LATE_H
#define FDX_DACROSS_LATE_H

#include "comm/fdx_comm_impl.h"
#include "loops/fdx_loop_impl.h"

typedef struct fdx_dlate fdx_dlate;

/* 1 when the written arrays can be renewed late: one process (between
   processes the renewal stays on time), no corner exchange, no periodic
   axis. */
FDX_HIDDEN int fdx_dlate_possible(const fdx_dist *d, fdx_darray *const *written, int n);
/* Buffers and events for the faces of the written arrays (kept with the
   loop; the faces must not change while it lives). */
FDX_HIDDEN fdx_status fdx_dlate_create(fdx_dist *d, fdx_darray *const *written, int n, fdx_dlate **out);
FDX_HIDDEN void fdx_dlate_destroy(fdx_dlate **r);
/* Queued before and after portion b (0, 1, ...) of a run, and after the
   run's nb portions. */
FDX_HIDDEN fdx_status fdx_dlate_before(fdx_dlate *r, long long b);
FDX_HIDDEN fdx_status fdx_dlate_after(fdx_dlate *r, long long b);
FDX_HIDDEN fdx_status fdx_dlate_end(fdx_dlate *r, long long nb);

#endif
