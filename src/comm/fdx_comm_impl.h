/* fdx_comm (internal): the distribution, distributed arrays and their face
   plans as the comm modules share them. */
#ifndef FDX_COMM_IMPL_H
#define FDX_COMM_IMPL_H

#include "arrays/fdx_array_impl.h"
#include "backends/fdx_backend.h"
#include "comm/fdx_comm.h"
#include "comm/fdx_comm_dev.h"
#include "comm/fdx_comm_mpi.h"
#include "fdx/dist.h"

#define FDX_DIST_MAX_LOCAL FDX_MAX_DEVICES

struct fdx_dist {
    fdx_dist_desc desc;
    int units, procs, proc, node_rank;
    int nlocal;                        /* units of this process */
    int cuda_aware;                    /* MPI takes device pointers */
    fdx_mpi_comm *comm_mpi;            /* fdx's duplicate of the job's communicator (NULL: one process) */
    fdx_ctx *ctx[FDX_DIST_MAX_LOCAL];
    const fdx_backend *be;             /* all local units share one backend */
    int ordinal[FDX_DIST_MAX_LOCAL];   /* device of each local unit */
    void *compute[FDX_DIST_MAX_LOCAL]; /* compute stream per unit (NULL on the CPU) */
    void *comm[FDX_DIST_MAX_LOCAL];    /* stream for packing and copies */
    int64_t frame[FDX_DIST_MAX_RANK];  /* points added to the end parts (fdx_dist_create_framed); 0: none */
};

/* One face of a local block: what it sends to a neighbour and where the
   neighbour's matching face lands.  Boxes are in local coordinates, padded
   to rank 3 with extent 1. */
typedef struct fdx_face {
    int axis, side;          /* side 0: lower neighbour, 1: upper */
    int peer;                /* global unit id of the neighbour */
    /* A face sends as many planes as the neighbour's shadow on its side
       holds and receives as many as its own: widths low:high may differ. */
    int64_t send_lo[3], recv_lo[3], sbox[3], rbox[3];
    size_t sbytes, rbytes;
    int64_t send_off, recv_off; /* element offsets when the box is contiguous, else -1 */
    void *send_buf, *recv_buf;  /* device packing buffers (NULL when contiguous) */
    void *host_send, *host_recv; /* pinned staging for MPI without CUDA support */
} fdx_face;

#define FDX_MAX_FACES (2 * FDX_DIST_MAX_RANK)

typedef struct fdx_unit_plan {
    fdx_array *local;
    int64_t origin[3];       /* global index of local (0,0,0) */
    int64_t n3[3];           /* local extents padded to rank 3 */
    int nfaces;
    fdx_face faces[FDX_MAX_FACES];
    void *ready, *packed, *done; /* events (CUDA only) */
} fdx_unit_plan;

struct fdx_darray {
    fdx_dist *dist;
    fdx_dtype type;
    int ncomp;               /* values a point: a leading undistributed axis ('*') when > 1 */
    size_t elem;             /* bytes a point (ncomp values): the unit of packing */
    int shadow_lo[3], shadow_hi[3], corners; /* this array's shadows */
    int own_shadow;          /* 1: widths other than the distribution's */
    fdx_unit_plan unit[FDX_DIST_MAX_LOCAL];
    fdx_mpi_reqs *reqs;      /* outstanding MPI transfers between begin and end */
    int in_flight;
    int stale;               /* 1: written by a loop since its shadows were last renewed */
};

/* Grid coordinates of a unit, and the unit at given coordinates. */
FDX_HIDDEN void fdx_dist_coords(const fdx_dist *d, int unit, int *c);
FDX_HIDDEN int fdx_dist_unit_at(const fdx_dist *d, const int *c);
/* Shadow width of unit `unit` below (side 0) or above (side 1) on axis a. */
FDX_HIDDEN int fdx_dist_shadow(const fdx_dist *d, int unit, int axis, int side);
/* The box [lo, hi) (global indices, padded to rank 3) of a into `out`
   (dense, box-shaped, ncomp values a point first); owned points of this
   process's units only, or of every process with gather_all. */
FDX_HIDDEN fdx_status fdx_darray_gather_box(fdx_darray *a, const int64_t *lo, const int64_t *hi, void *out, int gather_all);
/* The n points idx[q * rank ...] (global indices) of a into out[q], on every
   process. */
FDX_HIDDEN fdx_status fdx_darray_gather_points(fdx_darray *a, int n, const int64_t *idx, void *out);
/* The box [lo, lo + box) (block-local point coordinates, padded to rank
   3) of local unit i's block to (pack) or from a dense buffer of points,
   through the block's layout: the plain pack kernel, or the layout
   engine's slice copy when autotfm reorganized the block (fdx_darray.c). */
FDX_HIDDEN fdx_status fdx_darray_box_copy(fdx_darray *a, int i, const int64_t *lo, const int64_t *box, void *buf,
                                          int pack, void *stream);
/* The face of local unit j that faces unit `unit` across `axis` from
   `side` (a periodic axis of two units, or of one, has two faces to the
   same peer: the side tells them apart); NULL when there is none
   (fdx_exchange.c). */
FDX_HIDDEN fdx_face *fdx_darray_facing(fdx_darray *a, int j, int axis, int side, int unit);
/* Face plans after a block's layout changed: faces copied straight out
   of / into a plain block (contiguous) go through buffers on other layouts. */
FDX_HIDDEN fdx_status fdx_darray_sync_faces(fdx_darray *a);
#endif
