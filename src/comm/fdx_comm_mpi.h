/* fdx_comm_mpi (internal): the few MPI operations fdx uses, behind one small
   interface so that a build without MPI runs as a job of one process. */
#ifndef FDX_COMM_MPI_H
#define FDX_COMM_MPI_H

#include "core/fdx_error.h"

#include <stddef.h>
#include <stdint.h>

/* Joins the job: initializes MPI if the process was started by mpirun (or
   another PMI launcher) and nobody initialized it; procs 1 otherwise.
   node_rank is the rank among the processes on this host. */
FDX_HIDDEN fdx_status fdx_mpi_join(int *procs, int *proc, int *node_rank);
FDX_HIDDEN void fdx_mpi_finalize(void);
/* 1 when the MPI library says at run time that it takes CUDA device
   pointers (MPIX_Query_cuda_support), 0 otherwise; FDX_MPI_CUDA_AWARE=0|1
   overrides. */
FDX_HIDDEN int fdx_mpi_cuda_aware(void);

/* A set of outstanding nonblocking transfers. */
typedef struct fdx_mpi_reqs fdx_mpi_reqs;
FDX_HIDDEN fdx_status fdx_mpi_reqs_create(int cap, fdx_mpi_reqs **out);
FDX_HIDDEN void fdx_mpi_reqs_destroy(fdx_mpi_reqs **r);
FDX_HIDDEN fdx_status fdx_mpi_isend(fdx_mpi_reqs *r, const void *buf, size_t bytes, int dest, int tag);
FDX_HIDDEN fdx_status fdx_mpi_irecv(fdx_mpi_reqs *r, void *buf, size_t bytes, int src, int tag);
FDX_HIDDEN fdx_status fdx_mpi_waitall(fdx_mpi_reqs *r);

/* In-place global sums over all processes (no-ops with one process). */
FDX_HIDDEN fdx_status fdx_mpi_sum_double(double *v, int n);
FDX_HIDDEN fdx_status fdx_mpi_sum_u64(uint64_t *v, int n);
/* In-place global maximum (max = 1) or minimum. */
FDX_HIDDEN fdx_status fdx_mpi_extreme_double(double *v, int n, int max);
/* In-place bitwise xor of a byte buffer over all processes: each process
   writes its own part of a zeroed buffer, all receive the whole. */
FDX_HIDDEN fdx_status fdx_mpi_xor_bytes(void *buf, size_t bytes);
FDX_HIDDEN fdx_status fdx_mpi_barrier(void);

#endif
