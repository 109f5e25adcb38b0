/* A plain reference Laplacian in double, for the tests: the loop of the seed,
   nothing clever, so it is easy to trust. */
#ifndef LAPLACIAN_REF_H
#define LAPLACIAN_REF_H

#include <stdint.h>

/* in/out are double or float (is_double); out interior only. 2D: n[2] == 1. */
static inline void laplacian_ref(int rank, const int64_t *n, const double *h, const void *in, double *out)
{
    int64_t nz = rank == 3 ? n[2] : 1, sy = n[0], sz = n[0] * n[1];
    const double *u = in;
    for (int64_t k = rank == 3 ? 1 : 0; k < (rank == 3 ? nz - 1 : 1); k++)
        for (int64_t j = 1; j < n[1] - 1; j++)
            for (int64_t i = 1; i < n[0] - 1; i++) {
                int64_t p = i + j * sy + k * sz;
                double s = (u[p - 1] - 2 * u[p] + u[p + 1]) / (h[0] * h[0]) +
                           (u[p - sy] - 2 * u[p] + u[p + sy]) / (h[1] * h[1]);
                if (rank == 3) s += (u[p - sz] - 2 * u[p] + u[p + sz]) / (h[2] * h[2]);
                out[p] = s;
            }
}

#endif
