/* fdx_dremote: REMOTE_ACCESS for distributed loops.  A declared pattern (a
   box of global indices, or a list of points) of a distributed array is
   gathered before each run on every process (owners copy their part, an
   allreduce joins them) and put into one read-only array a unit, which the
   unit's loop knows under the pattern's name: a box keeps global indices
   through the array's origin, a list is indexed by position. */
#include "comm/fdx_dloop_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fdx_status add(fdx_dloop *l, const char *name, fdx_darray *a, int n, const int64_t *lo, const int64_t *hi,
                      const int64_t *idx)
{
    fdx_dist *d = l->dist;
    FDX_CHECK(a && name, FDX_ERR_INVALID, "remote access: NULL array or name");
    FDX_CHECK(a->dist == d, FDX_ERR_INVALID, "remote access '%s': the array belongs to another distribution", name);
    FDX_CHECK(l->nremote < DLOOP_MAX_REMOTE, FDX_ERR_INVALID, "remote access '%s': more than %d patterns in one loop",
              name, DLOOP_MAX_REMOTE);
    int rank = d->desc.rank, with = a->ncomp > 1;
    dloop_remote *r = &l->remote[l->nremote];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->src = a;
    r->npoints = n;
    int64_t shape[FDX_DIST_MAX_RANK + 1], origin[FDX_DIST_MAX_RANK + 1] = {0};
    int brank;
    if (n == 0) {
        for (int ax = 0; ax < 3; ax++) {
            r->lo[ax] = ax < rank ? lo[ax] : 0;
            r->hi[ax] = ax < rank ? hi[ax] : 1;
            FDX_CHECK(r->lo[ax] >= 0 && r->hi[ax] <= d->desc.shape[ax] && r->lo[ax] < r->hi[ax], FDX_ERR_INVALID,
                      "remote access '%s': box %lld..%lld on axis %d is empty or outside the grid (0..%lld)", name,
                      (long long)r->lo[ax], (long long)r->hi[ax], ax, (long long)d->desc.shape[ax]);
        }
        brank = rank + with;
        shape[0] = a->ncomp;
        for (int ax = 0; ax < rank; ax++) shape[ax + with] = r->hi[ax] - r->lo[ax], origin[ax + with] = r->lo[ax];
        r->bytes = a->elem;
        for (int ax = 0; ax < rank; ax++) r->bytes *= (size_t)(r->hi[ax] - r->lo[ax]);
    } else {
        FDX_CHECK(n > 0 && idx, FDX_ERR_INVALID, "remote access '%s': %d points", name, n);
        for (int q = 0; q < n; q++)
            for (int ax = 0; ax < rank; ax++)
                FDX_CHECK(idx[q * rank + ax] >= 0 && idx[q * rank + ax] < d->desc.shape[ax], FDX_ERR_INVALID,
                          "remote access '%s': point %d has index %lld on axis %d, outside the grid (0..%lld)", name, q,
                          (long long)idx[q * rank + ax], ax, (long long)d->desc.shape[ax]);
        r->idx = malloc(sizeof(int64_t) * (size_t)(n * rank));
        FDX_CHECK(r->idx, FDX_ERR_NOMEM, "out of memory for %d remote points", n);
        memcpy(r->idx, idx, sizeof(int64_t) * (size_t)(n * rank));
        brank = 1 + with;
        shape[0] = a->ncomp, shape[with] = n;
        r->bytes = a->elem * (size_t)n;
    }
    l->nremote++; /* freed with the loop from here on */
    r->host = malloc(r->bytes);
    FDX_CHECK(r->host, FDX_ERR_NOMEM, "out of memory for %zu bytes of remote data", r->bytes);
    for (int i = 0; i < d->nlocal; i++) {
        FDX_TRY(fdx_dist_use(d, i));
        FDX_TRY(fdx_array_create(d->ctx[i], a->type, brank, shape, FDX_ON_HOST | FDX_ON_DEVICE, &r->buf[i]));
        FDX_TRY(fdx_loop_array(l->loop[i], name, r->buf[i], FDX_READ));
        if (n == 0) FDX_TRY(fdx_loop_array_origin(l->loop[i], name, origin));
    }
    return FDX_OK;
}

fdx_status fdx_dloop_remote_box(fdx_dloop *l, const char *name, fdx_darray *a, const int64_t *lo, const int64_t *hi)
{
    FDX_CHECK(l && lo && hi, FDX_ERR_INVALID, "fdx_dloop_remote_box: NULL argument");
    return add(l, name, a, 0, lo, hi, NULL);
}

fdx_status fdx_dloop_remote_points(fdx_dloop *l, const char *name, fdx_darray *a, int n, const int64_t *idx)
{
    FDX_CHECK(l, FDX_ERR_INVALID, "fdx_dloop_remote_points: NULL loop");
    return add(l, name, a, n, NULL, NULL, idx);
}

fdx_status fdx_dremote_fetch(fdx_dloop *l)
{
    fdx_dist *d = l->dist;
    for (int k = 0; k < l->nremote; k++) {
        dloop_remote *r = &l->remote[k];
        if (r->npoints) FDX_TRY(fdx_darray_gather_points(r->src, r->npoints, r->idx, r->host));
        else FDX_TRY(fdx_darray_gather_box(r->src, r->lo, r->hi, r->host, 1));
        for (int i = 0; i < d->nlocal; i++) {
            FDX_TRY(fdx_dist_use(d, i));
            FDX_TRY(fdx_array_put(r->buf[i], r->host));
        }
    }
    return FDX_OK;
}

void fdx_dremote_free(fdx_dloop *l)
{
    for (int k = 0; k < l->nremote; k++) {
        dloop_remote *r = &l->remote[k];
        for (int i = 0; i < l->dist->nlocal; i++) fdx_array_destroy(&r->buf[i]);
        free(r->idx);
        free(r->host);
    }
    l->nremote = 0;
}
