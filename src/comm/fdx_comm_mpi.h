/* fdx_comm_mpi (internal): the few MPI operations fdx uses, behind one small
   interface so that a build without MPI runs as a job of one process.  Every
   operation runs on a communicator of the job (fdx_mpi_comm): the caller's
   own, or the world when the caller gave none. */
#ifndef FDX_COMM_MPI_H
#define FDX_COMM_MPI_H

#include "core/fdx_error.h"

#include <stddef.h>
#include <stdint.h>

typedef struct fdx_mpi_comm fdx_mpi_comm;

/* Joins the job.  user_comm: the address of the caller's MPI_Comm (MPI must
   be initialized), duplicated so fdx's messages never mix with the caller's;
   NULL: the world, initializing MPI only when the process was started by
   mpirun (or another PMI launcher) and nobody initialized it.  *out is NULL
   when the job is this one process (no MPI, or not started by a launcher).
   node_rank is the rank among the job's processes on this host. */
FDX_HIDDEN fdx_status fdx_mpi_join(const void *user_comm, fdx_mpi_comm **out, int *procs, int *proc, int *node_rank);
FDX_HIDDEN void fdx_mpi_comm_free(fdx_mpi_comm **c);
/* Finalizes MPI only if fdx initialized it. */
FDX_HIDDEN void fdx_mpi_finalize(void);
/* 1 when the MPI library says at run time that it takes CUDA device
   pointers (MPIX_Query_cuda_support), 0 otherwise; FDX_MPI_CUDA_AWARE=0|1
   overrides. */
FDX_HIDDEN int fdx_mpi_cuda_aware(void);

/* A set of outstanding nonblocking transfers on one communicator. */
typedef struct fdx_mpi_reqs fdx_mpi_reqs;
FDX_HIDDEN fdx_status fdx_mpi_reqs_create(const fdx_mpi_comm *c, int cap, fdx_mpi_reqs **out);
FDX_HIDDEN void fdx_mpi_reqs_destroy(fdx_mpi_reqs **r);
FDX_HIDDEN fdx_status fdx_mpi_isend(fdx_mpi_reqs *r, const void *buf, size_t bytes, int dest, int tag);
FDX_HIDDEN fdx_status fdx_mpi_irecv(fdx_mpi_reqs *r, void *buf, size_t bytes, int src, int tag);
FDX_HIDDEN fdx_status fdx_mpi_waitall(fdx_mpi_reqs *r);

/* In-place global operations over the processes of c (no-ops when c is
   NULL: one process). */
FDX_HIDDEN fdx_status fdx_mpi_sum_double(const fdx_mpi_comm *c, double *v, int n);
FDX_HIDDEN fdx_status fdx_mpi_sum_u64(const fdx_mpi_comm *c, uint64_t *v, int n);
/* In-place global maximum (max = 1) or minimum. */
FDX_HIDDEN fdx_status fdx_mpi_extreme_double(const fdx_mpi_comm *c, double *v, int n, int max);
/* Every process's `bytes` bytes, in rank order, into all (procs * bytes). */
FDX_HIDDEN fdx_status fdx_mpi_allgather(const fdx_mpi_comm *c, const void *mine, size_t bytes, void *all);
/* In-place bitwise xor of a byte buffer over all processes: each process
   writes its own part of a zeroed buffer, all receive the whole. */
FDX_HIDDEN fdx_status fdx_mpi_xor(const fdx_mpi_comm *c, void *buf, size_t bytes);
FDX_HIDDEN fdx_status fdx_mpi_barrier(const fdx_mpi_comm *c);

#endif
