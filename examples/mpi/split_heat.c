/* split_heat: fdx inside a program that owns MPI.  The program initializes
   MPI itself, splits its ranks into two groups (even and odd world ranks)
   and gives each group's communicator to fdx: each group runs its own 2D
   heat problem (a different diffusivity), periodic in x, held at 0 in y,
   split over the group's ranks.  fdx duplicates the communicator, never
   touches the others, and leaves MPI to the program, which finalizes it.

   Each group's leader then solves the same problem alone (MPI_COMM_SELF)
   and compares the two digests of the final field: the distributed run
   must equal one process bit for bit (exit 1 otherwise).

   mpirun -np 4 ./split_heat [NX NY STEPS]      (CPU backend unless
   FDX_BACKEND says otherwise; one unit a rank) */
#include "fdx.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct problem {
    int64_t n[2];
    int steps;
    double kappa;
} problem;

/* A bump off the centre, so that the periodic wrap matters. */
static double bump(const int64_t *g, void *arg)
{
    const problem *p = arg;
    double x = (double)g[0] / (double)p->n[0] - 0.3, y = (double)g[1] / (double)p->n[1] - 0.5;
    return exp(-60 * (x * x + y * y));
}

#define TRY(call)                                                                                        \
    do {                                                                                                 \
        if ((st = (call)) != FDX_OK) goto done;                                                          \
    } while (0)

/* The heat run on `comm`; the final field's checksum in *sum. */
static fdx_status run(MPI_Comm comm, const problem *p, fdx_dist_checksum *sum)
{
    fdx_status st = FDX_OK;
    fdx_dist *d = NULL;
    fdx_darray *ring[2] = {NULL, NULL};
    fdx_dstencil *s = NULL;
    fdx_dist_desc dd = {0};
    dd.rank = 2;
    dd.shape[0] = p->n[0], dd.shape[1] = p->n[1];
    dd.shadow[1] = 1;      /* split along y, one shadow row */
    dd.periodic[0] = 1;    /* x wraps around, a ghost column at each end */
    dd.units_per_proc = 1;
    dd.mpi_comm = &comm;   /* fdx duplicates it: collective on comm */
    TRY(fdx_dist_create(NULL, &dd, &d));
    for (int i = 0; i < 2; i++) {
        TRY(fdx_darray_create(d, FDX_FLOAT64, &ring[i]));
        TRY(fdx_darray_fill(ring[i], bump, (void *)p));
    }
    fdx_stencil_desc sd;
    fdx_stencil_desc_laplacian(&sd, 2, 2, NULL);
    sd.update = FDX_UPDATE_HEAT;
    sd.alpha = p->kappa;
    TRY(fdx_dstencil_create(d, &sd, FDX_FLOAT64, &s));
    fdx_bc_desc bc = {0};
    bc.face[0][0].kind = bc.face[0][1].kind = FDX_FACE_PERIODIC;
    bc.face[1][0].kind = bc.face[1][1].kind = FDX_FACE_DIRICHLET; /* value 0 */
    TRY(fdx_dstencil_set_boundary(s, &bc));
    TRY(fdx_dstencil_run(s, ring, 2, NULL, p->steps, 0, 0));
    TRY(fdx_darray_checksum(ring[0], sum));
done:
    fdx_dstencil_destroy(&s);
    for (int i = 0; i < 2; i++) fdx_darray_destroy(&ring[i]);
    fdx_dist_destroy(&d);
    return st;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int world, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int color = world % 2;
    MPI_Comm group;
    MPI_Comm_split(MPI_COMM_WORLD, color, world, &group);
    int rank, ranks;
    MPI_Comm_rank(group, &rank);
    MPI_Comm_size(group, &ranks);

    problem p = {{argc > 1 ? atoll(argv[1]) : 200, argc > 2 ? atoll(argv[2]) : 120}, argc > 3 ? atoi(argv[3]) : 50,
                 color ? 0.2 : 0.1};
    fdx_dist_checksum split = {0}, alone = {0};
    fdx_status st = run(group, &p, &split);
    int ok = st == FDX_OK;
    if (!ok) fprintf(stderr, "split_heat: group %d rank %d: %s\n", color, rank, fdx_last_error());
    /* The leader checks the group's answer against one process. */
    if (ok && rank == 0) {
        st = run(MPI_COMM_SELF, &p, &alone);
        ok = st == FDX_OK && alone.digest == split.digest;
        if (st != FDX_OK) fprintf(stderr, "split_heat: group %d alone: %s\n", color, fdx_last_error());
        printf("group %d: %d rank(s), kappa %.2f, %d steps on %lldx%lld: digest %016llx, one process %016llx: %s\n",
               color, ranks, p.kappa, p.steps, (long long)p.n[0], (long long)p.n[1],
               (unsigned long long)split.digest, (unsigned long long)alone.digest, ok ? "equal" : "DIFFERENT");
    }
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Comm_free(&group);
    fdx_dist_finalize(); /* leaves the program's MPI alone */
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
