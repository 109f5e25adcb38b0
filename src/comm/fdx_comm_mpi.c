/* fdx_comm_mpi: MPI between processes (OpenMPI or any MPI-3 library). */
#include "comm/fdx_comm_mpi.h"

#include <limits.h>
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fdx_initialized_mpi;

static fdx_status mpi_fail(int err, const char *call)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(err, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "error %d", err);
    return fdx_fail(FDX_ERR_MPI, "%s failed: %s", call, text);
}

#define MPI_TRY(call)                                                          \
    do {                                                                       \
        int fdx_mpi_err_ = (call);                                             \
        if (fdx_mpi_err_ != MPI_SUCCESS) return mpi_fail(fdx_mpi_err_, #call); \
    } while (0)

/* Started by a launcher: OpenMPI, PMI(x) or MPICH's hydra set these. */
static int under_launcher(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) return 1;
    return 0;
}

fdx_status fdx_mpi_join(int *procs, int *proc, int *node_rank)
{
    *procs = 1, *proc = 0, *node_rank = 0;
    int inited = 0;
    MPI_TRY(MPI_Initialized(&inited));
    if (!inited) {
        /* A plain run stays a job of one process: singleton MPI start-up is
           slow and fails in some containers. */
        if (!under_launcher()) return FDX_OK;
        int provided;
        MPI_TRY(MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided));
        fdx_initialized_mpi = 1;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    }
    MPI_TRY(MPI_Comm_size(MPI_COMM_WORLD, procs));
    MPI_TRY(MPI_Comm_rank(MPI_COMM_WORLD, proc));
    MPI_Comm node;
    MPI_TRY(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, *proc, MPI_INFO_NULL, &node));
    MPI_TRY(MPI_Comm_rank(node, node_rank));
    MPI_Comm_free(&node);
    return FDX_OK;
}

void fdx_mpi_finalize(void)
{
    int fin = 0;
    if (fdx_initialized_mpi && MPI_Finalized(&fin) == MPI_SUCCESS && !fin) MPI_Finalize();
    fdx_initialized_mpi = 0;
}

int fdx_mpi_cuda_aware(void)
{
    const char *force = getenv("FDX_MPI_CUDA_AWARE");
    if (force && *force) return atoi(force) != 0;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    /* Compiled with CUDA support; the library loaded at run time decides. */
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}

struct fdx_mpi_reqs {
    int n, cap;
    MPI_Request req[];
};

fdx_status fdx_mpi_reqs_create(int cap, fdx_mpi_reqs **out)
{
    fdx_mpi_reqs *r = calloc(1, sizeof *r + sizeof(MPI_Request) * (size_t)(cap > 0 ? cap : 1));
    FDX_CHECK(r, FDX_ERR_NOMEM, "out of memory for %d MPI requests", cap);
    r->cap = cap;
    *out = r;
    return FDX_OK;
}

void fdx_mpi_reqs_destroy(fdx_mpi_reqs **r)
{
    if (!r || !*r) return;
    free(*r);
    *r = NULL;
}

fdx_status fdx_mpi_isend(fdx_mpi_reqs *r, const void *buf, size_t bytes, int dest, int tag)
{
    FDX_CHECK(r->n < r->cap, FDX_ERR_INTERNAL, "more than %d MPI transfers in flight", r->cap);
    FDX_CHECK(bytes <= INT_MAX, FDX_ERR_UNSUPPORTED, "shadow message of %zu bytes exceeds MPI's int count", bytes);
    MPI_TRY(MPI_Isend(buf, (int)bytes, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &r->req[r->n]));
    r->n++;
    return FDX_OK;
}

fdx_status fdx_mpi_irecv(fdx_mpi_reqs *r, void *buf, size_t bytes, int src, int tag)
{
    FDX_CHECK(r->n < r->cap, FDX_ERR_INTERNAL, "more than %d MPI transfers in flight", r->cap);
    FDX_CHECK(bytes <= INT_MAX, FDX_ERR_UNSUPPORTED, "shadow message of %zu bytes exceeds MPI's int count", bytes);
    MPI_TRY(MPI_Irecv(buf, (int)bytes, MPI_BYTE, src, tag, MPI_COMM_WORLD, &r->req[r->n]));
    r->n++;
    return FDX_OK;
}

fdx_status fdx_mpi_waitall(fdx_mpi_reqs *r)
{
    int n = r->n;
    r->n = 0;
    if (n) MPI_TRY(MPI_Waitall(n, r->req, MPI_STATUSES_IGNORE));
    return FDX_OK;
}

static int active(void)
{
    int inited = 0, fin = 0;
    MPI_Initialized(&inited);
    if (inited) MPI_Finalized(&fin);
    return inited && !fin;
}

fdx_status fdx_mpi_sum_double(double *v, int n)
{
    if (active()) MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    return FDX_OK;
}

fdx_status fdx_mpi_extreme_double(double *v, int n, int max)
{
    if (active()) MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, max ? MPI_MAX : MPI_MIN, MPI_COMM_WORLD));
    return FDX_OK;
}

fdx_status fdx_mpi_sum_u64(uint64_t *v, int n)
{
    if (active()) MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
    return FDX_OK;
}

fdx_status fdx_mpi_xor_bytes(void *buf, size_t bytes)
{
    if (!active()) return FDX_OK;
    for (size_t off = 0; off < bytes; off += 1u << 30) {
        size_t n = bytes - off < (1u << 30) ? bytes - off : (1u << 30);
        MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, (char *)buf + off, (int)n, MPI_UNSIGNED_CHAR, MPI_BXOR, MPI_COMM_WORLD));
    }
    return FDX_OK;
}

fdx_status fdx_mpi_barrier(void)
{
    if (active()) MPI_TRY(MPI_Barrier(MPI_COMM_WORLD));
    return FDX_OK;
}
