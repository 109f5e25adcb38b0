/* The C-DVMH program of docs/LOOPS.md written with fdx's loop API: an array
   distributed [block][block] over units, a parallel loop that sets initial
   values from the global coordinates, a Jacobi step with a shadow renewal
   and a max reduction, SOR sweeps as an ACROSS loop in both orders, and the
   result brought to the host (get_actual).  Run: dvmh_sor [units]
   (FDX_BACKEND=cpu|cuda picks the units' kind; several units a process, and
   every rank under mpirun).  Prints the last changes and the checksum; the
   checksum digest is the same for any number of units.
   Build against an installed fdx: cc dvmh_sor.c $(pkg-config --cflags --libs fdx) */
#include <fdx.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define N 64

#define TRY(call)                                                              \
    do {                                                                       \
        if ((call) != FDX_OK) {                                                \
            fprintf(stderr, "dvmh_sor: %s\n", fdx_last_error());               \
            return 1;                                                          \
        }                                                                      \
    } while (0)

int main(int argc, char **argv)
{
    int units = argc > 1 ? atoi(argv[1]) : 2;
    /* #pragma dvm array distribute[block][block], shadow[1:1][1:1]
       (fdx: first index fastest, so C-DVMH's A[j][i] is A(i,j) here) */
    fdx_dist_desc dd = {0};
    dd.rank = 2, dd.shape[0] = N, dd.shape[1] = N;
    dd.grid[0] = 1, dd.grid[1] = units; /* [*][block] in C order: rows split */
    dd.shadow[0] = dd.shadow[1] = 1;
    dd.units_per_proc = units;
    fdx_dist *d = NULL;
    fdx_darray *A = NULL, *B = NULL;
    fdx_dloop *init = NULL, *jac = NULL, *sor = NULL;
    TRY(fdx_dist_create(NULL, &dd, &d));
    TRY(fdx_darray_create(d, FDX_FLOAT64, &A));
    TRY(fdx_darray_create(d, FDX_FLOAT64, &B)); /* #pragma dvm array align([i][j] with A[i][j]) */

    /* #pragma dvm parallel([j][i] on A[j][i])  -- the body sees global i, j */
    TRY(fdx_dloop_create(d, "i,j", &init));
    TRY(fdx_dloop_array(init, "A", A, FDX_WRITE));
    TRY(fdx_dloop_array(init, "B", B, FDX_WRITE));
    TRY(fdx_dloop_body(init, "int edge = i == 0 || j == 0 || i == 63 || j == 63;\n"
                             "A(i,j) = edge ? sin(0.1 * i) + cos(0.05 * j) : 0.0;\nB(i,j) = A(i,j);"));
    TRY(fdx_dloop_run(init));

    /* #pragma dvm parallel([j][i] on B[j][i]) shadow_renew(A) reduction(max(eps)) */
    int64_t lo[2] = {1, 1}, hi[2] = {N - 1, N - 1};
    TRY(fdx_dloop_create(d, "i,j", &jac));
    TRY(fdx_dloop_range(jac, lo, hi));
    TRY(fdx_dloop_array(jac, "A", A, FDX_READ)); /* A's shadows renewed because init wrote A */
    TRY(fdx_dloop_array(jac, "B", B, FDX_WRITE));
    TRY(fdx_dloop_reduction(jac, "eps", FDX_REDUCE_MAX));
    TRY(fdx_dloop_body(jac, "B(i,j) = 0.25 * (A(i-1,j) + A(i+1,j) + A(i,j-1) + A(i,j+1));\n"
                            "eps = fabs(B(i,j) - A(i,j));"));
    TRY(fdx_dloop_run(jac));
    double eps;
    TRY(fdx_dloop_result(jac, "eps", &eps));

    /* #pragma dvm parallel([j][i] on B[j][i]) across(B[1:1][1:1]) reduction(maxloc(...))
       forward, then the same loop descending (for (j = N-2; j >= 1; j--) ...) */
    int one[2] = {1, 1}, down[2] = {-1, -1};
    TRY(fdx_dloop_create(d, "i,j", &sor));
    TRY(fdx_dloop_range(sor, lo, hi));
    TRY(fdx_dloop_array(sor, "B", B, FDX_READ_WRITE));
    TRY(fdx_dloop_across(sor, one, one));
    TRY(fdx_dloop_scalar(sor, "w", 1.8));
    TRY(fdx_dloop_reduction(sor, "ch", FDX_REDUCE_MAXLOC));
    TRY(fdx_dloop_body(sor, "double d = w * (0.25 * (B(i-1,j) + B(i+1,j) + B(i,j-1) + B(i,j+1)) - B(i,j));\n"
                            "B(i,j) += d;\nch = fabs(d);"));
    TRY(fdx_dloop_run_repeated(sor, 20));
    double ch_fwd, ch_bwd;
    int64_t at[2];
    TRY(fdx_dloop_result_loc(sor, "ch", &ch_fwd, at));
    TRY(fdx_dloop_order(sor, down));
    TRY(fdx_dloop_run_repeated(sor, 20));
    TRY(fdx_dloop_result(sor, "ch", &ch_bwd));

    /* #pragma dvm get_actual(B): the field on the host, and a checksum */
    double *field = malloc(sizeof(double) * N * N);
    if (!field) return 1;
    TRY(fdx_darray_gather(B, field, 1));
    fdx_dist_checksum cs;
    TRY(fdx_darray_checksum(B, &cs));
    if (fdx_dist_proc(d) == 0)
        printf("dvmh_sor: %d units, jacobi eps %.6g, sor change %.6g at (%lld,%lld) forward, %.6g backward, "
               "B(32,32) %.12g, digest %016" PRIx64 "\n",
               fdx_dist_units(d), eps, ch_fwd, (long long)at[0], (long long)at[1], ch_bwd, field[32 + N * 32], cs.digest);
    free(field);
    fdx_dloop_destroy(&init);
    fdx_dloop_destroy(&jac);
    fdx_dloop_destroy(&sor);
    fdx_darray_destroy(&A);
    fdx_darray_destroy(&B);
    fdx_dist_destroy(&d);
    fdx_dist_finalize();
    return 0;
}
