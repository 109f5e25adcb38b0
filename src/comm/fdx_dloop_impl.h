/* fdx_dloop (internal): the distributed loop object as fdx_dloop.c (the
   object, parallel runs, reductions) and fdx_dacross.c (pipelined ACROSS
   runs) share it. */
#ifndef FDX_DLOOP_IMPL_H
#define FDX_DLOOP_IMPL_H

#include "comm/fdx_comm_impl.h"
#include "loops/fdx_loop_impl.h"

/* REMOTE_ACCESS: elements of another array the body reads wherever they
   live, fetched before every run into one buffer array a unit. */
#define DLOOP_MAX_REMOTE 4
typedef struct dloop_remote {
    char name[LOOP_NAME_MAX];
    fdx_darray *src;
    int npoints;          /* 0: the box lo..hi; else a list of points */
    int64_t lo[3], hi[3];
    int64_t *idx;         /* npoints x rank global indices */
    void *host;           /* the fetched values */
    size_t bytes;
    fdx_array *buf[FDX_DIST_MAX_LOCAL];
} dloop_remote;

struct fdx_dloop {
    fdx_dist *dist;
    fdx_loop *loop[FDX_DIST_MAX_LOCAL];
    int nidx, has_range;
    int64_t lo[FDX_DIST_MAX_RANK], hi[FDX_DIST_MAX_RANK];
    int narr;
    fdx_darray *arr[FDX_LOOP_MAX_ARGS];
    fdx_access acc[FDX_LOOP_MAX_ARGS];
    int nred;
    loop_red red[LOOP_MAX_REDS]; /* global results; value/ivalue/lin as in loops */
    int across, wlo[FDX_DIST_MAX_RANK], whi[FDX_DIST_MAX_RANK], dir[FDX_DIST_MAX_RANK];
    int portions_set, portions_used;
    int exchanges;
    int nremote;
    dloop_remote remote[DLOOP_MAX_REMOTE];
    /* FDX_DLOOP_GRAPH=1 (fdx_dacross.c): a run that repeats replayed as one
       CUDA graph over every unit; the key of the last run (NULL: none) */
    struct fdx_dgraph *graph;
    void *graph_key;
    int graph_off;
    /* FDX_DLOOP_LATE=1 (fdx_dacross_late.c): the faces' buffers and events
       of the renewal one portion late (NULL until a late run) */
    struct fdx_dlate *late;
};

/* The global loop range [lo, hi). */
FDX_HIDDEN void fdx_dloop_global_range(const fdx_dloop *l, int64_t *lo, int64_t *hi);
/* Renews the stale shadows of arrays the loop reads. */
FDX_HIDDEN fdx_status fdx_dloop_renew(fdx_dloop *l);
FDX_HIDDEN void fdx_dloop_mark_written(fdx_dloop *l);
/* Reductions: start, fold one unit's loop's last results, combine ranks. */
FDX_HIDDEN void fdx_dloop_red_start(fdx_dloop *l);
FDX_HIDDEN fdx_status fdx_dloop_red_fold_unit(fdx_dloop *l, int i);
FDX_HIDDEN fdx_status fdx_dloop_red_finish(fdx_dloop *l);
/* Runs `times` sweeps of unit i's loop over the global box [lo, hi)
   (empty: nothing) without waiting for its reductions; finish_unit waits
   for them and folds them (before the unit's next run), finish_all for
   every unit. */
FDX_HIDDEN fdx_status fdx_dloop_run_box(fdx_dloop *l, int i, const int64_t *lo, const int64_t *hi, int times);
FDX_HIDDEN fdx_status fdx_dloop_finish_unit(fdx_dloop *l, int i);
FDX_HIDDEN fdx_status fdx_dloop_finish_all(fdx_dloop *l);
/* REMOTE_ACCESS (fdx_dremote.c): fetch every declared pattern; free. */
FDX_HIDDEN fdx_status fdx_dremote_fetch(fdx_dloop *l);
FDX_HIDDEN void fdx_dremote_free(fdx_dloop *l);
/* `times` sweeps of a distributed ACROSS loop whose split axes carry
   dependences, as one wavefront over every unit (fdx_dacross.c); the
   shadows of the arrays it reads must be current; reductions are left
   pending on the unit loops (fdx_dloop_finish_all). */
FDX_HIDDEN fdx_status fdx_dacross_run(fdx_dloop *l, int times);
FDX_HIDDEN void fdx_dacross_free(fdx_dloop *l);

#endif
