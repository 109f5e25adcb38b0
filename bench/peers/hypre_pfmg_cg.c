/* hypre_pfmg_cg: HYPRE's struct PCG preconditioned by one PFMG V-cycle on
   the peer problem (peer_problem.h), split along z over the MPI ranks.
   Prints one JSON record like `fdx mg --json`.  Built by bench/peers/build.sh
   only (bench use; never linked into libfdx).
   usage: mpirun -np P hypre_pfmg_cg N [TOL] */
#include "HYPRE_struct_ls.h"
#include "peer_problem.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = argc > 1 ? atoi(argv[1]) : 129;
    const double tol = argc > 2 ? atof(argv[2]) : 1e-10;
    const int m = n - 2; /* interior points per axis, global indices 1..m */
    const int z0 = 1 + m * rank / size, z1 = m * (rank + 1) / size; /* inclusive */
    int lo[3] = {1, 1, z0}, hi[3] = {m, m, z1};
    const double h = 1.0 / (n - 1), c = 1.0 / (h * h);
    HYPRE_Init();
    HYPRE_StructGrid grid;
    HYPRE_StructGridCreate(MPI_COMM_WORLD, 3, &grid);
    HYPRE_StructGridSetExtents(grid, lo, hi);
    HYPRE_StructGridAssemble(grid);
    HYPRE_StructStencil stencil;
    HYPRE_StructStencilCreate(3, 7, &stencil);
    int off[7][3] = {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
    for (int e = 0; e < 7; e++) HYPRE_StructStencilSetElement(stencil, e, off[e]);
    HYPRE_StructMatrix A;
    HYPRE_StructMatrixCreate(MPI_COMM_WORLD, grid, stencil, &A);
    HYPRE_StructMatrixInitialize(A);
    const long np = (long)m * m * (z1 - z0 + 1);
    double *vals = malloc(sizeof(double) * 7 * np), *rhs = malloc(sizeof(double) * np), *x0 = calloc(np, sizeof(double));
    int entries[7] = {0, 1, 2, 3, 4, 5, 6};
    long q = 0;
    for (int k = z0; k <= z1; k++)
        for (int j = 1; j <= m; j++)
            for (int i = 1; i <= m; i++, q++) {
                int idx[3] = {i, j, k};
                vals[7 * q] = 6 * c;
                for (int e = 1; e < 7; e++) {
                    int a = idx[0] + off[e][0], b = idx[1] + off[e][1], g = idx[2] + off[e][2];
                    vals[7 * q + e] = (a < 1 || a > m || b < 1 || b > m || g < 1 || g > m) ? 0.0 : -c;
                }
                rhs[q] = peer_rhs(i, j, k, n);
            }
    HYPRE_StructMatrixSetBoxValues(A, lo, hi, 7, entries, vals);
    HYPRE_StructMatrixAssemble(A);
    HYPRE_StructVector b, x;
    HYPRE_StructVectorCreate(MPI_COMM_WORLD, grid, &b);
    HYPRE_StructVectorCreate(MPI_COMM_WORLD, grid, &x);
    HYPRE_StructVectorInitialize(b);
    HYPRE_StructVectorInitialize(x);
    HYPRE_StructVectorSetBoxValues(b, lo, hi, rhs);
    HYPRE_StructVectorSetBoxValues(x, lo, hi, x0);
    HYPRE_StructVectorAssemble(b);
    HYPRE_StructVectorAssemble(x);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    HYPRE_StructSolver solver, precond;
    HYPRE_StructPCGCreate(MPI_COMM_WORLD, &solver);
    HYPRE_StructPCGSetTol(solver, tol);
    HYPRE_StructPCGSetTwoNorm(solver, 1);
    HYPRE_StructPCGSetRelChange(solver, 0);
    HYPRE_StructPCGSetMaxIter(solver, 200);
    HYPRE_StructPFMGCreate(MPI_COMM_WORLD, &precond);
    HYPRE_StructPFMGSetMaxIter(precond, 1);
    HYPRE_StructPFMGSetTol(precond, 0.0);
    HYPRE_StructPFMGSetZeroGuess(precond);
    HYPRE_StructPFMGSetRelaxType(precond, 2); /* symmetric red-black Gauss-Seidel */
    HYPRE_StructPFMGSetNumPreRelax(precond, 1);
    HYPRE_StructPFMGSetNumPostRelax(precond, 1);
    HYPRE_StructPCGSetPrecond(solver, HYPRE_StructPFMGSolve, HYPRE_StructPFMGSetup, precond);
    HYPRE_StructPCGSetup(solver, A, b, x);
    double t1 = MPI_Wtime();
    HYPRE_StructPCGSolve(solver, A, b, x);
    double t2 = MPI_Wtime();
    int iters = 0;
    double res = 0;
    HYPRE_StructPCGGetNumIterations(solver, &iters);
    HYPRE_StructPCGGetFinalRelativeResidualNorm(solver, &res);
    HYPRE_StructVectorGetBoxValues(x, lo, hi, x0);
    double err = 0;
    q = 0;
    for (int k = z0; k <= z1; k++)
        for (int j = 1; j <= m; j++)
            for (int i = 1; i <= m; i++, q++) err = fmax(err, fabs(x0[q] - peer_exact(i * h, j * h, k * h)));
    double gerr = 0;
    MPI_Reduce(&err, &gerr, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("{\"case\": \"poisson\", \"peer\": \"hypre-pfmg-cg\", \"backend\": \"mpi\", \"ranks\": %d, "
               "\"precision\": \"double\", \"shape\": [%d, %d, %d], \"cycles\": %d, \"tol\": %g, "
               "\"final_residual\": %.6g, \"time_s\": {\"setup\": %.6f, \"solve\": %.6f, \"total\": %.6f}, "
               "\"error_max\": %.6g, \"discretization_error\": %.6g, \"verified\": %s}\n",
               size, n, n, n, iters, tol, res, t1 - t0, t2 - t1, t2 - t0, gerr, peer_disc_error(n),
               res <= tol && gerr <= 1.25 * peer_disc_error(n) ? "true" : "false");
    HYPRE_StructPFMGDestroy(precond);
    HYPRE_StructPCGDestroy(solver);
    HYPRE_StructMatrixDestroy(A);
    HYPRE_StructVectorDestroy(b);
    HYPRE_StructVectorDestroy(x);
    HYPRE_StructGridDestroy(grid);
    HYPRE_StructStencilDestroy(stencil);
    free(vals);
    free(rhs);
    free(x0);
    HYPRE_Finalize();
    MPI_Finalize();
    return 0;
}
