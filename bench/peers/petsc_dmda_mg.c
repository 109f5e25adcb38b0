/* petsc_dmda_mg: PETSc's CG preconditioned by PCMG on a DMDA (coarse
   operators rediscretized on the coarsened DMDAs) for the peer problem
   (peer_problem.h).  The boundary points are unknowns with identity rows
   whose couplings from the interior are moved to the right-hand side, so
   the matrix stays symmetric.  Prints one JSON record.  Built by
   bench/peers/build.sh only (bench use; never linked into libfdx).
   usage: mpirun -np P petsc_dmda_mg -n N [-tol TOL] [PETSc options] */
#include "peer_problem.h"

#include <petscdmda.h>
#include <petscksp.h>

static PetscErrorCode rhs_fn(KSP ksp, Vec b, void *ctx)
{
    DM da;
    PetscInt mx, xs, ys, zs, xm, ym, zm;
    PetscScalar ***v;
    (void)ctx;
    PetscFunctionBeginUser;
    PetscCall(KSPGetDM(ksp, &da));
    PetscCall(DMDAGetInfo(da, 0, &mx, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
    PetscCall(DMDAVecGetArray(da, b, &v));
    const double h = 1.0 / (mx - 1);
    for (PetscInt k = zs; k < zs + zm; k++)
        for (PetscInt j = ys; j < ys + ym; j++)
            for (PetscInt i = xs; i < xs + xm; i++) {
                int bnd = i == 0 || j == 0 || k == 0 || i == mx - 1 || j == mx - 1 || k == mx - 1;
                /* identity rows scaled like the interior's diagonal */
                v[k][j][i] = bnd ? 6.0 / (h * h) * peer_exact(i * h, j * h, k * h) : peer_rhs((int)i, (int)j, (int)k, (int)mx);
            }
    PetscCall(DMDAVecRestoreArray(da, b, &v));
    PetscFunctionReturn(0);
}

static PetscErrorCode op_fn(KSP ksp, Mat J, Mat A, void *ctx)
{
    DM da;
    PetscInt mx, xs, ys, zs, xm, ym, zm;
    (void)ctx;
    (void)J;
    PetscFunctionBeginUser;
    PetscCall(KSPGetDM(ksp, &da));
    PetscCall(DMDAGetInfo(da, 0, &mx, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
    const double h = 1.0 / (mx - 1), c = 1.0 / (h * h);
    for (PetscInt k = zs; k < zs + zm; k++)
        for (PetscInt j = ys; j < ys + ym; j++)
            for (PetscInt i = xs; i < xs + xm; i++) {
                MatStencil row = {.k = k, .j = j, .i = i}, col[7];
                PetscScalar v[7];
                int nc = 0;
                int bnd = i == 0 || j == 0 || k == 0 || i == mx - 1 || j == mx - 1 || k == mx - 1;
                col[nc] = row;
                v[nc++] = 6 * c;
                if (!bnd) {
                    const int d[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
                    for (int q = 0; q < 6; q++) {
                        PetscInt a = i + d[q][0], e = j + d[q][1], g = k + d[q][2];
                        if (a == 0 || e == 0 || g == 0 || a == mx - 1 || e == mx - 1 || g == mx - 1) continue;
                        col[nc].i = a, col[nc].j = e, col[nc].k = g, col[nc].c = 0;
                        v[nc++] = -c;
                    }
                }
                PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
            }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscInt n = 129, levels = 0;
    PetscReal tol = 1e-10;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
    for (PetscInt m = n - 1; m % 2 == 0 && m >= 4; m /= 2) levels++;
    DM da;
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE,
                           DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL,
                           NULL, &da));
    PetscCall(DMSetFromOptions(da));
    PetscCall(DMSetUp(da));
    KSP ksp;
    PC pc;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetDM(ksp, da));
    PetscCall(KSPSetComputeRHS(ksp, rhs_fn, NULL));
    PetscCall(KSPSetComputeOperators(ksp, op_fn, NULL));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(ksp, tol, 1e-300, 1e10, 200));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCMG));
    PetscCall(PCMGSetLevels(pc, levels + 1, NULL));
    PetscCall(KSPSetFromOptions(ksp));
    MPI_Barrier(PETSC_COMM_WORLD);
    double t0 = MPI_Wtime();
    PetscCall(KSPSetUp(ksp));
    double t1 = MPI_Wtime();
    PetscCall(KSPSolve(ksp, NULL, NULL));
    double t2 = MPI_Wtime();
    PetscInt its;
    PetscReal rnorm, bnorm;
    Vec x, b;
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetResidualNorm(ksp, &rnorm));
    PetscCall(KSPGetSolution(ksp, &x));
    PetscCall(KSPGetRhs(ksp, &b));
    PetscCall(VecNorm(b, NORM_2, &bnorm));
    PetscInt xs, ys, zs, xm, ym, zm;
    PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
    PetscScalar ***v;
    PetscCall(DMDAVecGetArrayRead(da, x, &v));
    const double h = 1.0 / (n - 1);
    double err = 0, gerr = 0;
    for (PetscInt k = zs; k < zs + zm; k++)
        for (PetscInt j = ys; j < ys + ym; j++)
            for (PetscInt i = xs; i < xs + xm; i++) err = fmax(err, fabs(v[k][j][i] - peer_exact(i * h, j * h, k * h)));
    PetscCall(DMDAVecRestoreArrayRead(da, x, &v));
    MPI_Reduce(&err, &gerr, 1, MPI_DOUBLE, MPI_MAX, 0, PETSC_COMM_WORLD);
    KSPConvergedReason reason;
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscMPIInt size;
    MPI_Comm_size(PETSC_COMM_WORLD, &size);
    /* The residual is relative to ||b||, which includes the boundary rows:
       a stricter test than fdx's interior-only residual. */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "{\"case\": \"poisson\", \"peer\": \"petsc-dmda-pcmg-cg\", \"backend\": \"mpi\", \"ranks\": %d, "
                          "\"precision\": \"double\", \"shape\": [%d, %d, %d], \"levels\": %d, \"cycles\": %d, \"tol\": %g, "
                          "\"final_residual\": %.6g, \"time_s\": {\"setup\": %.6f, \"solve\": %.6f, \"total\": %.6f}, "
                          "\"error_max\": %.6g, \"discretization_error\": %.6g, \"verified\": %s}\n",
                          size, (int)n, (int)n, (int)n, (int)levels + 1, (int)its, (double)tol,
                          (double)(rnorm / bnorm), t1 - t0, t2 - t1, t2 - t0, gerr, peer_disc_error((int)n),
                          reason > 0 && gerr <= 1.25 * peer_disc_error((int)n) ? "true" : "false"));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(DMDestroy(&da));
    PetscCall(PetscFinalize());
    return 0;
}
