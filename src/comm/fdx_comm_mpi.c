/* fdx_comm_mpi: MPI between processes (OpenMPI or any MPI-3 library), on the
   caller's communicator or the world. */
#include "comm/fdx_comm_mpi.h"
#include "core/fdx_knob.h"

#include <limits.h>
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fdx_mpi_comm {
    MPI_Comm comm; /* fdx's duplicate */
};

static int fdx_initialized_mpi;

static fdx_status mpi_fail(int err, const char *call)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(err, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "error %d", err);
    return fdx_fail(FDX_ERR_MPI, "%s failed: %s", call, text);
}

/* FDX_OK for MPI_SUCCESS, else mpi_fail's status. */
static fdx_status mpi_status(int err, const char *call) { return err == MPI_SUCCESS ? FDX_OK : mpi_fail(err, call); }
#define MPI_TRY(call) FDX_TRY(mpi_status((call), #call))

/* Started by a launcher: OpenMPI, PMI(x) or MPICH's hydra set these. */
static int under_launcher(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) return 1;
    return 0;
}

fdx_status fdx_mpi_join(const void *user_comm, fdx_mpi_comm **out, int *procs, int *proc, int *node_rank)
{
    *out = NULL;
    *procs = 1, *proc = 0, *node_rank = 0;
    int inited = 0;
    MPI_TRY(MPI_Initialized(&inited));
    FDX_CHECK(inited || !user_comm, FDX_ERR_INVALID,
              "a communicator was given but MPI is not initialized (call MPI_Init before fdx_dist_create)");
    MPI_Comm base;
    if (user_comm) {
        base = *(const MPI_Comm *)user_comm;
        FDX_CHECK(base != MPI_COMM_NULL, FDX_ERR_INVALID, "the communicator given to fdx is MPI_COMM_NULL");
    } else {
        if (!inited) {
            /* A plain run stays a job of one process: singleton MPI start-up
               is slow and fails in some containers. */
            if (!under_launcher()) return FDX_OK;
            int provided;
            MPI_TRY(MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided));
            fdx_initialized_mpi = 1;
        }
        /* The one default: the whole job, when the caller names no communicator. */
        base = MPI_COMM_WORLD;
    }
    fdx_mpi_comm *c = calloc(1, sizeof *c);
    FDX_CHECK(c, FDX_ERR_NOMEM, "out of memory for a communicator");
    int err = MPI_Comm_dup(base, &c->comm);
    if (err != MPI_SUCCESS) {
        free(c);
        return mpi_fail(err, "MPI_Comm_dup");
    }
    MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    *out = c;
    MPI_TRY(MPI_Comm_size(c->comm, procs));
    MPI_TRY(MPI_Comm_rank(c->comm, proc));
    MPI_Comm node;
    MPI_TRY(MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, *proc, MPI_INFO_NULL, &node));
    MPI_TRY(MPI_Comm_rank(node, node_rank));
    MPI_Comm_free(&node);
    return FDX_OK;
}

void fdx_mpi_comm_free(fdx_mpi_comm **pc)
{
    if (!pc || !*pc) return;
    int fin = 0;
    if (MPI_Finalized(&fin) == MPI_SUCCESS && !fin) MPI_Comm_free(&(*pc)->comm);
    free(*pc);
    *pc = NULL;
}

void fdx_mpi_finalize(void)
{
    int fin = 0;
    if (fdx_initialized_mpi && MPI_Finalized(&fin) == MPI_SUCCESS && !fin) MPI_Finalize();
    fdx_initialized_mpi = 0;
}

int fdx_mpi_cuda_aware(void)
{
    const char *force = fdx_knob(FDX_KNOB_MPI_CUDA_AWARE);
    if (force) return atoi(force) != 0;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    /* Compiled with CUDA support; the library loaded at run time decides. */
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}

struct fdx_mpi_reqs {
    MPI_Comm comm;
    int n, cap;
    MPI_Request req[];
};

fdx_status fdx_mpi_reqs_create(const fdx_mpi_comm *c, int cap, fdx_mpi_reqs **out)
{
    fdx_mpi_reqs *r = calloc(1, sizeof *r + sizeof(MPI_Request) * (size_t)(cap > 0 ? cap : 1));
    FDX_CHECK(r, FDX_ERR_NOMEM, "out of memory for %d MPI requests", cap);
    r->comm = c ? c->comm : MPI_COMM_NULL;
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
    FDX_CHECK(r->comm != MPI_COMM_NULL, FDX_ERR_INTERNAL, "an MPI send in a job of one process");
    FDX_CHECK(r->n < r->cap, FDX_ERR_INTERNAL, "more than %d MPI transfers in flight", r->cap);
    FDX_CHECK(bytes <= INT_MAX, FDX_ERR_UNSUPPORTED, "shadow message of %zu bytes exceeds MPI's int count", bytes);
    MPI_TRY(MPI_Isend(buf, (int)bytes, MPI_BYTE, dest, tag, r->comm, &r->req[r->n]));
    r->n++;
    return FDX_OK;
}

fdx_status fdx_mpi_irecv(fdx_mpi_reqs *r, void *buf, size_t bytes, int src, int tag)
{
    FDX_CHECK(r->comm != MPI_COMM_NULL, FDX_ERR_INTERNAL, "an MPI receive in a job of one process");
    FDX_CHECK(r->n < r->cap, FDX_ERR_INTERNAL, "more than %d MPI transfers in flight", r->cap);
    FDX_CHECK(bytes <= INT_MAX, FDX_ERR_UNSUPPORTED, "shadow message of %zu bytes exceeds MPI's int count", bytes);
    MPI_TRY(MPI_Irecv(buf, (int)bytes, MPI_BYTE, src, tag, r->comm, &r->req[r->n]));
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

static int active(const fdx_mpi_comm *c)
{
    int fin = 0;
    return c && MPI_Finalized(&fin) == MPI_SUCCESS && !fin;
}

fdx_status fdx_mpi_sum_double(const fdx_mpi_comm *c, double *v, int n)
{
    if (active(c)) MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, c->comm));
    return FDX_OK;
}

fdx_status fdx_mpi_extreme_double(const fdx_mpi_comm *c, double *v, int n, int max)
{
    if (active(c)) MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, max ? MPI_MAX : MPI_MIN, c->comm));
    return FDX_OK;
}

fdx_status fdx_mpi_sum_u64(const fdx_mpi_comm *c, uint64_t *v, int n)
{
    if (active(c)) MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_UINT64_T, MPI_SUM, c->comm));
    return FDX_OK;
}

fdx_status fdx_mpi_allgather(const fdx_mpi_comm *c, const void *mine, size_t bytes, void *all)
{
    FDX_CHECK(bytes <= INT_MAX, FDX_ERR_UNSUPPORTED, "allgather of %zu bytes exceeds MPI's int count", bytes);
    if (!active(c)) {
        memcpy(all, mine, bytes);
        return FDX_OK;
    }
    MPI_TRY(MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, c->comm));
    return FDX_OK;
}

fdx_status fdx_mpi_xor(const fdx_mpi_comm *c, void *buf, size_t bytes)
{
    if (!active(c)) return FDX_OK;
    for (size_t off = 0; off < bytes; off += 1u << 30) {
        size_t n = bytes - off < (1u << 30) ? bytes - off : (1u << 30);
        MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, (char *)buf + off, (int)n, MPI_UNSIGNED_CHAR, MPI_BXOR, c->comm));
    }
    return FDX_OK;
}

fdx_status fdx_mpi_barrier(const fdx_mpi_comm *c)
{
    if (active(c)) MPI_TRY(MPI_Barrier(c->comm));
    return FDX_OK;
}
