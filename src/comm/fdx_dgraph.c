/* fdx_dgraph: steps over all units of a distribution as one CUDA graph: the
   capture forks every unit's compute and comm streams from unit 0's compute
   stream and joins them back, so one launch replays the work of every unit
   (kernels, peer copies, events) in its captured order. */
#include "comm/fdx_dgraph.h"

#include "comm/fdx_comm_impl.h"
#include "fdx/internal/test_hooks.h"

#include <stdio.h>
#include <stdlib.h>

struct fdx_dgraph {
    fdx_dist *d;
    void *exec;
    void *fork, *join[2 * FDX_DIST_MAX_LOCAL];
    void *streams[2 * FDX_DIST_MAX_LOCAL], *side_join[2 * FDX_DIST_MAX_LOCAL];
    int n; /* streams beside the origin */
};

int fdx_dgraph_possible(const fdx_dist *d)
{
    return d && d->procs == 1 && fdx_ctx_backend(d->ctx[0]) == FDX_BACKEND_CUDA &&
           !fdx_dist_test_exchange_skipped();
}

void fdx_dgraph_destroy(fdx_dgraph **pg)
{
    if (!pg || !*pg) return;
    fdx_dgraph *g = *pg;
    fdx_dist *d = g->d;
    if (g->exec) fdx_comm_cuda_graph_destroy(g->exec);
    for (int i = 0; i < d->nlocal; i++) {
        fdx_dist_use(d, i);
        for (int k = 0; k < 2; k++)
            if (g->join[2 * i + k]) d->be->event_destroy(g->join[2 * i + k]);
        if (i == 0 && g->fork) d->be->event_destroy(g->fork);
    }
    free(g);
    *pg = NULL;
}

/* Every stream but unit 0's compute stream (the graph's origin), with the
   event that joins each back to the origin. */
fdx_status fdx_dgraph_create(fdx_dist *d, fdx_dgraph **out)
{
    FDX_CHECK(d && out, FDX_ERR_INVALID, "fdx_dgraph_create: NULL argument");
    *out = NULL;
    fdx_dgraph *g = calloc(1, sizeof *g);
    FDX_CHECK(g, FDX_ERR_NOMEM, "out of memory for a CUDA graph's record");
    g->d = d;
    fdx_status st = FDX_OK;
    for (int i = 0; st == FDX_OK && i < d->nlocal; i++) {
        st = fdx_dist_use(d, i);
        if (st == FDX_OK && i == 0) st = fdx_comm_event_create(d->be, &g->fork);
        for (int k = 0; st == FDX_OK && k < 2; k++) {
            if (i == 0 && k == 0) continue;
            st = fdx_comm_event_create(d->be, &g->join[2 * i + k]);
            if (st != FDX_OK) break;
            g->streams[g->n] = k ? d->comm[i] : d->compute[i];
            g->side_join[g->n++] = g->join[2 * i + k];
        }
    }
    if (st != FDX_OK) {
        fdx_dgraph_destroy(&g);
        return st;
    }
    *out = g;
    return FDX_OK;
}

int fdx_dgraph_ready(const fdx_dgraph *g) { return g && g->exec; }

fdx_status fdx_dgraph_capture(fdx_dgraph *g, fdx_dgraph_step_fn step, void *arg, int times, fdx_darray *const *arrays,
                              int narrays)
{
    FDX_CHECK(g && step && times > 0, FDX_ERR_INVALID, "fdx_dgraph_capture: NULL argument or %d steps", times);
    fdx_dist *d = g->d;
    if (g->exec) fdx_comm_cuda_graph_destroy(g->exec);
    g->exec = NULL;
    FDX_TRY(fdx_dist_use(d, 0));
    fdx_status st = fdx_comm_cuda_capture_begin(d->compute[0], g->fork, g->streams, g->n);
    for (int t = 0; st == FDX_OK && t < times; t++) st = step(arg);
    char why[512] = "";
    if (st != FDX_OK) snprintf(why, sizeof why, "%s", fdx_last_error());
    FDX_TRY(fdx_dist_use(d, 0));
    fdx_status est = fdx_comm_cuda_capture_end(d->compute[0], g->streams, g->side_join, g->n, st == FDX_OK, &g->exec);
    if (st != FDX_OK || est != FDX_OK) {
        /* Nothing of the capture ran: no exchange is under way, and the
           arrays' events get a real (eager) record again, since waiting on
           an event last recorded inside a dead capture is an error. */
        for (int k = 0; k < narrays; k++) {
            fdx_darray *a = arrays[k];
            if (!a) continue;
            a->in_flight = 0;
            for (int i = 0; i < d->nlocal; i++) {
                fdx_unit_plan *p = &a->unit[i];
                void *ev[3] = {p->ready, p->packed, p->done};
                fdx_dist_use(d, i);
                for (int e = 0; e < 3; e++)
                    if (ev[e]) d->be->event_record(ev[e], d->compute[i]);
            }
        }
        fdx_dist_sync(d);
    }
    if (st != FDX_OK) return fdx_fail(st, "capturing steps into a CUDA graph: %s", why);
    return est;
}

fdx_status fdx_dgraph_launch(fdx_dgraph *g)
{
    FDX_CHECK(g && g->exec, FDX_ERR_INVALID, "fdx_dgraph_launch: no captured graph");
    FDX_TRY(fdx_dist_use(g->d, 0));
    return fdx_comm_cuda_graph_launch(g->exec, g->d->compute[0], g->fork, g->streams, g->side_join, g->n);
}
