/* fdx_loop_move: the planner's layout moves.  A move is a chain of single
   passes of the layout engine (leave the diagonal, permute, enter the new
   diagonal) that ping-pong between the array's storage and a scratch buffer
   the loop keeps, on the run's stream: no allocation or free per move
   (fdx_array_set_layout allocates a fresh buffer and frees the old one each
   time).  When the chain has an odd number of passes the array
   takes the scratch as its storage and the loop keeps the old storage as
   its scratch.  An array the loop only writes, and overwrites whole, is
   relabelled: its layout changes and nothing moves. */
#include "loops/fdx_loop_impl.h"

#include <string.h>

static int same_layout(const fdx_layout *a, const fdx_layout *b)
{
    return a->diag == b->diag && memcmp(a->perm, b->perm, sizeof(int) * (size_t)a->rank) == 0;
}

/* from -> to as layouts one pass apart each (chain[0] = from, last = to). */
static int chain_of(const fdx_layout *from, const fdx_layout *to, fdx_layout *chain)
{
    int n = 0;
    chain[n++] = *from;
    int keep_diag = from->diag == to->diag && from->perm[0] == to->perm[0] && from->perm[1] == to->perm[1];
    if (from->diag != FDX_DIAG_NONE && !keep_diag) {
        chain[n] = *from;
        chain[n++].diag = FDX_DIAG_NONE;
    }
    const fdx_layout *cur = &chain[n - 1];
    if (memcmp(cur->perm, to->perm, sizeof(int) * (size_t)to->rank) != 0 && !(cur->diag != FDX_DIAG_NONE && cur->diag == to->diag)) {
        chain[n] = *to;
        chain[n++].diag = FDX_DIAG_NONE;
    }
    if (!same_layout(&chain[n - 1], to)) chain[n++] = *to;
    return n;
}

/* The scratch holds at least `bytes` of the context's memory. */
static fdx_status scratch_for(fdx_loop *l, size_t bytes)
{
    if (l->scratch && l->scratch_bytes >= bytes) return FDX_OK;
    const fdx_backend *be = fdx_ctx_ops(l->ctx);
    if (l->scratch) be->free(l->scratch); /* frees after the work queued on it (cudaFree waits) */
    l->scratch = NULL;
    l->scratch_bytes = 0;
    FDX_TRY(be->alloc(bytes, &l->scratch));
    l->scratch_bytes = bytes;
    return FDX_OK;
}

fdx_status fdx_loop_move(fdx_loop *l, fdx_array *a, const fdx_layout *to, int relabel, void *stream, int64_t *bytes)
{
    *bytes = 0;
    if (relabel) {
        a->layout = *to;
        l->moves.relabels++;
        return FDX_OK;
    }
    int shared = a->host == a->device;
    size_t size = fdx_array_bytes(a);
    /* The scratch path converts the device copy alone: it must be the
       current one (a current host copy of its own becomes stale, as after a
       loop that writes the array).  Otherwise the layout engine converts
       whatever is current. */
    if (a->borrowed || !a->device || !(shared || (a->valid & FDX_ON_DEVICE))) {
        FDX_TRY(fdx_array_set_layout(a, to));
        l->moves.transforms++;
        l->moves.bytes += 2 * (int64_t)size;
        *bytes = 2 * (int64_t)size;
        return FDX_OK;
    }
    fdx_layout chain[4];
    int n = chain_of(&a->layout, to, chain);
    if (n < 2) return FDX_OK;
    /* The scratch may be storage that kernels queued on other streams
       still read (an array's old buffer after an odd chain): wait for the
       device once per move, as the cudaFree of a fresh-buffer move did
       implicitly.  Moves are rare (the planner keeps layouts). */
    FDX_TRY(fdx_ctx_ops(l->ctx)->device_sync());
    FDX_TRY(scratch_for(l, size));
    void *buf[2] = {a->device, l->scratch};
    size_t cap[2] = {size, l->scratch_bytes};
    fdx_status st = FDX_OK;
    int k = 0;
    for (; k + 1 < n && st == FDX_OK; k++)
        st = fdx_layout_convert(l->ctx, buf[(k + 1) % 2], &chain[k + 1], buf[k % 2], &chain[k], a->elem_size, a->rank,
                                a->shape, stream);
    if (st != FDX_OK) k--; /* pass k failed: the data is whole in buf[k % 2] under chain[k] */
    if (k % 2) {
        a->device = buf[1];
        if (shared) a->host = buf[1];
        l->scratch = buf[0];
        l->scratch_bytes = cap[0];
    }
    a->layout = chain[k];
    if (!shared && a->valid) a->valid = FDX_ON_DEVICE;
    l->moves.transforms++;
    l->moves.bytes += 2 * (int64_t)size * k;
    *bytes = 2 * (int64_t)size * k;
    return st;
}

fdx_status fdx_loop_move_stats(const fdx_loop *l, fdx_loop_moves *out)
{
    FDX_CHECK(l && out, FDX_ERR_INVALID, "fdx_loop_move_stats: NULL argument");
    *out = l->moves;
    return FDX_OK;
}
