/* fdx_exchange: split-phase shadow renewal.  Begin packs faces on each
   unit's comm stream after its queued compute work, copies faces between
   units of this process (peer copies) and starts MPI transfers; end
   completes MPI, unpacks, and makes every compute stream wait. */
#include "comm/fdx_comm_impl.h"
#include "fdx/internal/test_hooks.h"

#include <stdlib.h>

/* The tests' fault injection (fdx/internal/test_hooks.h): set by test
   programs only, never by an environment variable. */
static int skip_exchange;

void fdx_dist_test_skip_exchange(int on) { skip_exchange = on != 0; }
int fdx_dist_test_exchange_skipped(void) { return skip_exchange; }

static int is_remote(const fdx_dist *d, const fdx_face *f) { return f->peer / d->nlocal != d->proc; }
static int staged(const fdx_dist *d) { return d->be->kind == FDX_BACKEND_CUDA && !d->cuda_aware; }

static char *at(fdx_unit_plan *p, size_t elem, int64_t off) { return (char *)fdx_array_device(p->local) + (size_t)off * elem; }
/* Where a face's outgoing bytes are and where its incoming bytes go. */
static void *send_src(fdx_darray *a, int i, fdx_face *f)
{
    return f->send_off >= 0 ? at(&a->unit[i], a->elem, f->send_off) : f->send_buf;
}
static void *recv_dst(fdx_darray *a, int i, fdx_face *f)
{
    return f->recv_off >= 0 ? at(&a->unit[i], a->elem, f->recv_off) : f->recv_buf;
}

/* A face packed from or unpacked into the block, whatever its layout. */
static fdx_status face_copy(fdx_darray *a, int i, fdx_face *f, int pack, void *stream)
{
    return pack ? fdx_darray_box_copy(a, i, f->send_lo, f->sbox, f->send_buf, 1, stream)
                : fdx_darray_box_copy(a, i, f->recv_lo, f->rbox, f->recv_buf, 0, stream);
}

/* MPI tag of the message that local unit `li` of its process receives on
   its face (axis, side). */
static int tag_of(int li, int axis, int side) { return (li * FDX_DIST_MAX_RANK + axis) * 2 + side; }

fdx_face *fdx_darray_facing(fdx_darray *a, int j, int axis, int side, int unit)
{
    fdx_unit_plan *q = &a->unit[j];
    for (int g = 0; g < q->nfaces; g++)
        if (q->faces[g].axis == axis && q->faces[g].side == side && q->faces[g].peer == unit) return &q->faces[g];
    return NULL;
}

static fdx_status begin_axes(fdx_darray *a, unsigned mask)
{
    fdx_dist *d = a->dist;
    const fdx_backend *be = d->be;
    /* Pack (and stage) every outgoing face once the unit's compute work is done. */
    for (int i = 0; i < d->nlocal; i++) {
        fdx_unit_plan *p = &a->unit[i];
        FDX_TRY(fdx_dist_use(d, i));
        if (p->ready) {
            FDX_TRY(be->event_record(p->ready, d->compute[i]));
            FDX_TRY(fdx_comm_stream_wait(be, d->comm[i], p->ready));
        }
        for (int k = 0; k < p->nfaces; k++) {
            fdx_face *f = &p->faces[k];
            if (!(mask >> f->axis & 1)) continue;
            if (f->send_off < 0 && f->sbytes) {
                FDX_TRY(face_copy(a, i, f, 1, d->comm[i]));
            }
            if (is_remote(d, f) && staged(d))
                FDX_TRY(be->copy(f->host_send, send_src(a, i, f), f->sbytes, FDX_COPY_D2H, d->comm[i]));
        }
        if (p->packed) FDX_TRY(be->event_record(p->packed, d->comm[i]));
    }
    /* Between processes: receives first, then sends once packed. */
    for (int i = 0; i < d->nlocal; i++) {
        fdx_unit_plan *p = &a->unit[i];
        for (int k = 0; k < p->nfaces; k++) {
            fdx_face *f = &p->faces[k];
            if (!(mask >> f->axis & 1) || !is_remote(d, f)) continue;
            FDX_TRY(fdx_mpi_irecv(a->reqs, staged(d) ? f->host_recv : recv_dst(a, i, f), f->rbytes,
                                  f->peer / d->nlocal, tag_of(i, f->axis, f->side)));
        }
    }
    for (int i = 0; i < d->nlocal; i++) {
        fdx_unit_plan *p = &a->unit[i];
        int any = 0;
        for (int k = 0; k < p->nfaces; k++) any |= (mask >> p->faces[k].axis & 1) && is_remote(d, &p->faces[k]);
        if (!any) continue;
        FDX_TRY(fdx_dist_use(d, i));
        FDX_TRY(be->stream_sync(d->comm[i]));
        for (int k = 0; k < p->nfaces; k++) {
            fdx_face *f = &p->faces[k];
            if (!(mask >> f->axis & 1) || !is_remote(d, f)) continue;
            FDX_TRY(fdx_mpi_isend(a->reqs, staged(d) ? f->host_send : send_src(a, i, f), f->sbytes,
                                  f->peer / d->nlocal, tag_of(f->peer % d->nlocal, f->axis, 1 - f->side)));
        }
    }
    /* Inside the process: the receiver pulls from the sender's device. */
    for (int i = 0; i < d->nlocal; i++) {
        fdx_unit_plan *p = &a->unit[i];
        FDX_TRY(fdx_dist_use(d, i));
        for (int k = 0; k < p->nfaces; k++) {
            fdx_face *f = &p->faces[k];
            if (!(mask >> f->axis & 1) || is_remote(d, f)) continue;
            int j = f->peer % d->nlocal;
            fdx_face *g = fdx_darray_facing(a, j, f->axis, 1 - f->side, d->proc * d->nlocal + i);
            FDX_CHECK(g && g->sbytes == f->rbytes, FDX_ERR_INTERNAL, "faces of units %d and %d do not match on axis %d",
                      d->proc * d->nlocal + i, f->peer, f->axis);
            FDX_TRY(fdx_comm_stream_wait(be, d->comm[i], a->unit[j].packed));
            FDX_TRY(fdx_comm_peer_copy(be, recv_dst(a, i, f), d->ordinal[i], send_src(a, j, g), d->ordinal[j], f->rbytes,
                                       d->comm[i]));
            if (f->recv_off < 0 && f->rbytes) {
                FDX_TRY(face_copy(a, i, f, 0, d->comm[i]));
            }
        }
    }
    return FDX_OK;
}

static fdx_status end_axes(fdx_darray *a, unsigned mask)
{
    fdx_dist *d = a->dist;
    const fdx_backend *be = d->be;
    FDX_TRY(fdx_mpi_waitall(a->reqs));
    for (int i = 0; i < d->nlocal; i++) {
        fdx_unit_plan *p = &a->unit[i];
        FDX_TRY(fdx_dist_use(d, i));
        for (int k = 0; k < p->nfaces; k++) {
            fdx_face *f = &p->faces[k];
            if (!(mask >> f->axis & 1) || !is_remote(d, f)) continue;
            if (staged(d) && f->rbytes) FDX_TRY(be->copy(recv_dst(a, i, f), f->host_recv, f->rbytes, FDX_COPY_H2D, d->comm[i]));
            if (f->recv_off < 0 && f->rbytes) {
                FDX_TRY(face_copy(a, i, f, 0, d->comm[i]));
            }
        }
        if (p->done) FDX_TRY(be->event_record(p->done, d->comm[i]));
    }
    /* A unit's compute waits for its own shadows and for its neighbours'
       pulls from its faces (they read its send buffers and slabs). */
    for (int i = 0; i < d->nlocal; i++) {
        fdx_unit_plan *p = &a->unit[i];
        FDX_TRY(fdx_dist_use(d, i));
        FDX_TRY(fdx_comm_stream_wait(be, d->compute[i], p->done));
        for (int k = 0; k < p->nfaces; k++)
            if (!is_remote(d, &p->faces[k]))
                FDX_TRY(fdx_comm_stream_wait(be, d->compute[i], a->unit[p->faces[k].peer % d->nlocal].done));
    }
    return FDX_OK;
}

static unsigned split_axes(const fdx_darray *a)
{
    const fdx_dist *d = a->dist;
    unsigned m = 0;
    for (int ax = 0; ax < d->desc.rank; ax++)
        if ((d->desc.grid[ax] > 1 && (a->shadow_lo[ax] > 0 || a->shadow_hi[ax] > 0)) || d->desc.periodic[ax] > 0)
            m |= 1u << ax;
    return m;
}

fdx_status fdx_darray_exchange_begin(fdx_darray *a)
{
    FDX_CHECK(a, FDX_ERR_INVALID, "fdx_darray_exchange_begin: NULL array");
    FDX_CHECK(!a->in_flight, FDX_ERR_INVALID, "fdx_darray_exchange_begin: an exchange of this array is already under way");
    if (skip_exchange) return FDX_OK;
    FDX_TRY(fdx_darray_sync_faces(a)); /* blocks reorganized by autotfm */
    unsigned m = split_axes(a), last = 0;
    for (int ax = 0; ax < 3; ax++)
        if (m >> ax & 1) last = 1u << ax;
    if (a->corners) {
        /* Each axis sends slabs that include the shadows filled by the axes
           before it, which carries edges and corners along. */
        for (int ax = 0; ax < 3; ax++)
            if ((m >> ax & 1) && (1u << ax) != last) {
                FDX_TRY(begin_axes(a, 1u << ax));
                FDX_TRY(end_axes(a, 1u << ax));
            }
        m = last;
    }
    a->in_flight = m ? (int)m : -1;
    return begin_axes(a, m);
}

fdx_status fdx_darray_exchange_end(fdx_darray *a)
{
    FDX_CHECK(a, FDX_ERR_INVALID, "fdx_darray_exchange_end: NULL array");
    if (skip_exchange) return FDX_OK;
    FDX_CHECK(a->in_flight, FDX_ERR_INVALID, "fdx_darray_exchange_end without fdx_darray_exchange_begin");
    unsigned m = a->in_flight > 0 ? (unsigned)a->in_flight : 0;
    a->in_flight = 0;
    return end_axes(a, m);
}

fdx_status fdx_darray_exchange(fdx_darray *a)
{
    FDX_TRY(fdx_darray_exchange_begin(a));
    FDX_TRY(fdx_darray_exchange_end(a));
    a->stale = 0;
    return FDX_OK;
}
