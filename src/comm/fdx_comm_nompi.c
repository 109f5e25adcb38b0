/* fdx_comm_nompi: the job is one process in a build without MPI. */
#include "comm/fdx_comm_mpi.h"

#include <stdlib.h>
#include <string.h>

fdx_status fdx_mpi_join(const void *user_comm, fdx_mpi_comm **out, int *procs, int *proc, int *node_rank)
{
    *out = NULL;
    *procs = 1, *proc = 0, *node_rank = 0;
    FDX_CHECK(!user_comm, FDX_ERR_UNSUPPORTED, "a communicator was given, but fdx was built without MPI");
    /* Several copies of fdx started by mpirun would each compute the whole
       problem: say so instead. */
    if (getenv("OMPI_COMM_WORLD_SIZE") && atoi(getenv("OMPI_COMM_WORLD_SIZE")) > 1)
        return fdx_fail(FDX_ERR_UNSUPPORTED, "started by mpirun with %s processes, but fdx was built without MPI",
                        getenv("OMPI_COMM_WORLD_SIZE"));
    return FDX_OK;
}

void fdx_mpi_comm_free(fdx_mpi_comm **c) { *c = NULL; }
void fdx_mpi_finalize(void) {}
int fdx_mpi_cuda_aware(void) { return 0; }

struct fdx_mpi_reqs {
    int unused;
};

fdx_status fdx_mpi_reqs_create(const fdx_mpi_comm *c, int cap, fdx_mpi_reqs **out)
{
    (void)c, (void)cap;
    *out = calloc(1, sizeof **out);
    FDX_CHECK(*out, FDX_ERR_NOMEM, "out of memory");
    return FDX_OK;
}

void fdx_mpi_reqs_destroy(fdx_mpi_reqs **r)
{
    if (!r || !*r) return;
    free(*r);
    *r = NULL;
}

#define NO_MPI fdx_fail(FDX_ERR_UNSUPPORTED, "fdx was built without MPI")

fdx_status fdx_mpi_isend(fdx_mpi_reqs *r, const void *buf, size_t bytes, int dest, int tag)
{
    (void)r, (void)buf, (void)bytes, (void)dest, (void)tag;
    return NO_MPI;
}
fdx_status fdx_mpi_irecv(fdx_mpi_reqs *r, void *buf, size_t bytes, int src, int tag)
{
    (void)r, (void)buf, (void)bytes, (void)src, (void)tag;
    return NO_MPI;
}
fdx_status fdx_mpi_waitall(fdx_mpi_reqs *r)
{
    (void)r;
    return FDX_OK;
}
fdx_status fdx_mpi_sum_double(const fdx_mpi_comm *c, double *v, int n)
{
    (void)c, (void)v, (void)n;
    return FDX_OK;
}
fdx_status fdx_mpi_extreme_double(const fdx_mpi_comm *c, double *v, int n, int max)
{
    (void)c, (void)v, (void)n, (void)max;
    return FDX_OK;
}
fdx_status fdx_mpi_sum_u64(const fdx_mpi_comm *c, uint64_t *v, int n)
{
    (void)c, (void)v, (void)n;
    return FDX_OK;
}
fdx_status fdx_mpi_allgather(const fdx_mpi_comm *c, const void *mine, size_t bytes, void *all)
{
    (void)c;
    memcpy(all, mine, bytes);
    return FDX_OK;
}
fdx_status fdx_mpi_xor(const fdx_mpi_comm *c, void *buf, size_t bytes)
{
    (void)c, (void)buf, (void)bytes;
    return FDX_OK;
}
fdx_status fdx_mpi_barrier(const fdx_mpi_comm *c)
{
    (void)c;
    return FDX_OK;
}
