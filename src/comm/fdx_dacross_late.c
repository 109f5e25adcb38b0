/* fdx_dacross_late: a distributed ACROSS run's shadows renewed one portion
   late (FDX_DLOOP_LATE=1, one process), so the renewal leaves the devices'
   critical path.

   On time (fdx_darray_exchange between two portions) portion b + 1 starts
   only after the chain portion b done -> pack -> peer pull -> unpack ->
   events back on both compute streams (~43 us on 2 H200s, session 8).
   Late: after portion b each sender snapshots its faces into its own
   buffer on its compute stream (a local pack, then its portion b + 1 runs
   at once); the receiver pulls the snapshot into a staging buffer of its
   own device on its comm stream while both compute portion b + 1, and
   unpacks it into its shadow on its compute stream just before portion
   b + 2.  The critical path keeps a local pack and a local unpack a
   portion, and waits on events recorded a portion earlier.

   So the shadow read in portion b holds the neighbour's values after
   portion b - 2, i.e. at global step (b - 1) B (not bB): fdx_dacross.c
   then runs with lag 2B - 1 and sweeps 4B + w - 1 apart (the bound's
   proof is in its header).  Two snapshot and two staging buffers a face
   (portions alternate), so a snapshot never overwrites what a pull still
   reads, nor a pull what an unpack still reads: the snapshot of b waits
   for the pull of b - 2, the pull of b for the unpack of b - 2. */
#include "comm/fdx_dacross_late.h"
#include "fdx/internal/test_hooks.h"

#include <stdlib.h>
#include <string.h>

/* One shadow face: receiver i's face f, filled from sender j's face g. */
typedef struct late_face {
    fdx_darray *a;
    int i, j;
    fdx_face *f, *g;
    void *snap[2];     /* on j: g's values after a portion */
    void *stage[2];    /* on i: the pulled snapshot */
    void *snapped[2];  /* events: j's snapshot done (j's compute stream) */
    void *pulled[2];   /* i's pull done (i's comm stream) */
    void *unpacked[2]; /* i's unpack done (i's compute stream) */
} late_face;

struct fdx_dlate {
    fdx_dist *dist;
    int n;
    late_face face[FDX_LOOP_MAX_ARGS * FDX_DIST_MAX_LOCAL * FDX_MAX_FACES];
};

int fdx_dlate_possible(const fdx_dist *d, fdx_darray *const *written, int n)
{
    if (d->procs > 1) return 0;
    for (int k = 0; k < n; k++) {
        if (written[k]->corners) return 0;
        for (int ax = 0; ax < d->desc.rank; ax++)
            if (d->desc.periodic[ax] > 0) return 0;
    }
    return 1;
}

static fdx_status face_init(fdx_dist *d, late_face *x)
{
    const fdx_backend *be = d->be;
    FDX_TRY(fdx_dist_use(d, x->j));
    for (int p = 0; p < 2; p++) {
        FDX_TRY(be->alloc(x->g->sbytes, &x->snap[p]));
        FDX_TRY(fdx_comm_event_create(be, &x->snapped[p]));
    }
    FDX_TRY(fdx_dist_use(d, x->i));
    for (int p = 0; p < 2; p++) {
        FDX_TRY(be->alloc(x->f->rbytes, &x->stage[p]));
        FDX_TRY(fdx_comm_event_create(be, &x->pulled[p]));
        FDX_TRY(fdx_comm_event_create(be, &x->unpacked[p]));
    }
    return FDX_OK;
}

fdx_status fdx_dlate_create(fdx_dist *d, fdx_darray *const *written, int n, fdx_dlate **out)
{
    *out = NULL;
    fdx_dlate *r = calloc(1, sizeof *r);
    FDX_CHECK(r, FDX_ERR_NOMEM, "out of memory for the late renewal of a distributed ACROSS loop");
    r->dist = d;
    fdx_status st = FDX_OK;
    for (int k = 0; k < n && st == FDX_OK; k++) {
        fdx_darray *a = written[k];
        st = fdx_darray_sync_faces(a);
        for (int i = 0; i < d->nlocal && st == FDX_OK; i++)
            for (int q = 0; q < a->unit[i].nfaces && st == FDX_OK; q++) {
                fdx_face *f = &a->unit[i].faces[q];
                if (!f->rbytes) continue;
                late_face *x = &r->face[r->n++];
                x->a = a, x->i = i, x->j = f->peer % d->nlocal, x->f = f;
                x->g = fdx_darray_facing(a, x->j, f->axis, 1 - f->side, d->proc * d->nlocal + i);
                if (!x->g || x->g->sbytes != f->rbytes)
                    st = fdx_fail(FDX_ERR_INTERNAL, "faces of units %d and %d do not match on axis %d", i, f->peer, f->axis);
                else
                    st = face_init(d, x);
            }
    }
    if (st != FDX_OK) fdx_dlate_destroy(&r);
    *out = r;
    return st;
}

void fdx_dlate_destroy(fdx_dlate **pr)
{
    fdx_dlate *r = *pr;
    if (!r) return;
    const fdx_backend *be = r->dist->be;
    for (int k = 0; k < r->n; k++) {
        late_face *x = &r->face[k];
        for (int p = 0; p < 2; p++) {
            fdx_dist_use(r->dist, x->j);
            if (x->snap[p]) be->free(x->snap[p]);
            if (x->snapped[p]) be->event_destroy(x->snapped[p]);
            fdx_dist_use(r->dist, x->i);
            if (x->stage[p]) be->free(x->stage[p]);
            if (x->pulled[p]) be->event_destroy(x->pulled[p]);
            if (x->unpacked[p]) be->event_destroy(x->unpacked[p]);
        }
    }
    free(r);
    *pr = NULL;
}

static fdx_status record(const fdx_backend *be, void *event, void *stream)
{
    return event ? be->event_record(event, stream) : FDX_OK;
}

/* Before portion b: the snapshot taken after portion b - 2 into the shadow. */
fdx_status fdx_dlate_before(fdx_dlate *r, long long b)
{
    fdx_dist *d = r->dist;
    const fdx_backend *be = d->be;
    if (b < 2 || fdx_dist_test_exchange_skipped()) return FDX_OK;
    int p = (int)(b % 2);
    for (int k = 0; k < r->n; k++) {
        late_face *x = &r->face[k];
        FDX_TRY(fdx_dist_use(d, x->i));
        FDX_TRY(fdx_comm_stream_wait(be, d->compute[x->i], x->pulled[p]));
        FDX_TRY(fdx_darray_box_copy(x->a, x->i, x->f->recv_lo, x->f->rbox, x->stage[p], 0, d->compute[x->i]));
        FDX_TRY(record(be, x->unpacked[p], d->compute[x->i]));
    }
    return FDX_OK;
}

/* After portion b (unless it is one of the run's last two): every face
   snapshotted on its sender's compute stream and pulled by its receiver
   on the receiver's comm stream. */
fdx_status fdx_dlate_after(fdx_dlate *r, long long b)
{
    fdx_dist *d = r->dist;
    const fdx_backend *be = d->be;
    if (fdx_dist_test_exchange_skipped()) return FDX_OK;
    int p = (int)(b % 2);
    for (int k = 0; k < r->n; k++) {
        late_face *x = &r->face[k];
        FDX_TRY(fdx_dist_use(d, x->j));
        if (b >= 2) FDX_TRY(fdx_comm_stream_wait(be, d->compute[x->j], x->pulled[p]));
        FDX_TRY(fdx_darray_box_copy(x->a, x->j, x->g->send_lo, x->g->sbox, x->snap[p], 1, d->compute[x->j]));
        FDX_TRY(record(be, x->snapped[p], d->compute[x->j]));
    }
    for (int k = 0; k < r->n; k++) {
        late_face *x = &r->face[k];
        FDX_TRY(fdx_dist_use(d, x->i));
        FDX_TRY(fdx_comm_stream_wait(be, d->comm[x->i], x->snapped[p]));
        if (b >= 2) FDX_TRY(fdx_comm_stream_wait(be, d->comm[x->i], x->unpacked[p]));
        FDX_TRY(fdx_comm_peer_copy(be, x->stage[p], d->ordinal[x->i], x->snap[p], d->ordinal[x->j], x->f->rbytes,
                                   d->comm[x->i]));
        FDX_TRY(record(be, x->pulled[p], d->comm[x->i]));
    }
    return FDX_OK;
}

/* After the run's nb portions (portion b snapshotted for b <= nb - 3,
   the others' snapshots would never be read): the pulls still under way
   finish before either unit's later work, and this run's unpacks before
   the next run's pulls (the next run reuses the buffers from its first
   portion on, and its own waits stay inside it). */
fdx_status fdx_dlate_end(fdx_dlate *r, long long nb)
{
    fdx_dist *d = r->dist;
    const fdx_backend *be = d->be;
    if (fdx_dist_test_exchange_skipped()) return FDX_OK;
    for (int k = 0; k < r->n; k++) {
        late_face *x = &r->face[k];
        for (long long b = nb - 4 > 0 ? nb - 4 : 0; b <= nb - 3; b++) {
            FDX_TRY(fdx_dist_use(d, x->j));
            FDX_TRY(fdx_comm_stream_wait(be, d->compute[x->j], x->pulled[b % 2]));
        }
        FDX_TRY(fdx_dist_use(d, x->i));
        for (long long b = nb - 2 > 2 ? nb - 2 : 2; b < nb; b++)
            FDX_TRY(fdx_comm_stream_wait(be, d->comm[x->i], x->unpacked[b % 2]));
    }
    return FDX_OK;
}
