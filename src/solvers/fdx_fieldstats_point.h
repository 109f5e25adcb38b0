/* fdx_fieldstats_point: what one point adds to a reduction, one definition
   compiled for the host (fdx_fieldstats.c) and the device
   (fdx_fieldstats_cuda.cu), every product and sum rounded on its own. */
#ifndef FDX_FIELDSTATS_POINT_H
#define FDX_FIELDSTATS_POINT_H

#include "solvers/fdx_fieldstats.h"

#ifdef __CUDACC__
#define ST_HD __device__
#define ST_MUL(a, b) __dmul_rn(a, b)
#define ST_ADD(a, b) __dadd_rn(a, b)
#define ST_DIV(a, b) __ddiv_rn(a, b)
#else
#define ST_HD
#define ST_MUL(a, b) ((a) * (b))
#define ST_ADD(a, b) ((a) + (b))
#define ST_DIV(a, b) ((a) / (b))
#endif

ST_HD static inline double st_load(const void *p, int is_double, int64_t q)
{
    return is_double ? ((const double *)p)[q] : (double)((const float *)p)[q];
}

/* Point (i, j, k): its two terms a, b and the value v that min/max see. */
ST_HD static inline void st_point(const fdx_stats_job *J, int64_t i, int64_t j, int64_t k, double *a, double *b,
                                  double *v)
{
    int64_t q = i + J->n[0] * (j + J->n[1] * k);
    double u = st_load(J->u, J->is_double, q);
    *v = u;
    if (J->mode == 0) {
        *a = u;
        *b = ST_MUL(u, u);
        return;
    }
    double p = st_load(J->p, J->is_double, q), d = u - p;
    if (J->mode == 2) {
        *a = *v = d;
        *b = ST_MUL(d, d);
        return;
    }
    *a = ST_DIV(ST_MUL(ST_MUL(d, d), J->e.idt2), st_load(J->c2, J->is_double, q));
    int r = J->e.r;
    int64_t idx[3] = {i, j, k};
    int inner = 1;
    for (int ax = 0; ax < J->rank; ax++) inner &= idx[ax] >= r && idx[ax] < J->n[ax] - r;
    *b = 0;
    if (!inner) return;
    int64_t st[3] = {1, J->n[0], J->n[0] * J->n[1]};
    double lap = 0;
    for (int ax = 0; ax < J->rank; ax++)
        for (int m = -r; m <= r; m++) lap = ST_ADD(lap, ST_MUL(J->e.w[m + r], st_load(J->p, J->is_double, q + m * st[ax])));
    *b = -ST_MUL(ST_MUL(u, lap), J->e.ih2);
}

#endif
