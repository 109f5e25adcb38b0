/* fdx_sim_diag: diagnostics on host copies: integral and max |u|, the
   discrete wave energy that leapfrog conserves, Poisson's last change. */
#include "core/fdx_error.h"
#include "fdx/stencil.h"
#include "solvers/fdx_sim_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* -(a, L b) over interior points, L the run's Laplacian (points outside the
   interior are the walls' values, zero for the wave). */
static double minus_a_lap_b(const fdx_sim *s, const double *a, const double *b, const double *w)
{
    int64_t nx = s->n[0], ny = s->n[1], nz = s->n[2], st[3] = {1, nx, nx * ny};
    int r = s->r, rank = s->rank;
    double sum = 0, ih2 = 1.0 / (s->h * s->h);
#pragma omp parallel for collapse(2) reduction(+ : sum)
    for (int64_t k = rank == 3 ? r : 0; k < (rank == 3 ? nz - r : 1); k++)
        for (int64_t j = r; j < ny - r; j++)
            for (int64_t i = r; i < nx - r; i++) {
                int64_t q = i + nx * (j + ny * k);
                double lap = 0;
                for (int d = 0; d < rank; d++)
                    for (int m = -r; m <= r; m++) lap += w[m + r] * b[q + m * st[d]];
                sum -= a[q] * lap * ih2;
            }
    return sum;
}

fdx_status fdx_sim_diagnose(fdx_sim *s, fdx_sim_diag *d)
{
    FDX_CHECK(s && d, FDX_ERR_INVALID, "fdx_sim_diagnose: %s is NULL", s ? "the result" : "the simulation");
    memset(d, 0, sizeof *d);
    FDX_TRY(fdx_sim_pull(s));
    double *u = malloc((size_t)s->count * sizeof(double));
    FDX_CHECK(u, FDX_ERR_NOMEM, "no memory for diagnostics");
    fdx_status st = fdx_sim_download(s, s->cur, u);
    if (st != FDX_OK) {
        free(u);
        return st;
    }
    int64_t nx = s->n[0], ny = s->n[1], nz = s->n[2];
    int r = s->r, rank = s->rank;
    double sum = 0, mx = 0;
#pragma omp parallel for collapse(2) reduction(+ : sum) reduction(max : mx)
    for (int64_t k = rank == 3 ? r : 0; k < (rank == 3 ? nz - r : 1); k++)
        for (int64_t j = r; j < ny - r; j++)
            for (int64_t i = r; i < nx - r; i++) {
                double v = u[i + nx * (j + ny * k)];
                sum += v;
                if (fabs(v) > mx) mx = fabs(v);
            }
    /* The checksum in index order, one thread: the same bits for any run
       that computed the same field. */
    double all = 0, sq = 0;
    for (int64_t q = 0; q < s->count; q++) {
        all += u[q];
        sq += u[q] * u[q];
    }
    d->sum = all;
    d->l2 = sqrt(sq);
    d->integral = sum * pow(s->h, rank);
    d->max_abs = mx;
    d->change = s->change;
    if (s->kind == FDX_SIM_WAVE) {
        /* E = sum (u - u_prev)^2 / (c^2 dt^2) - (u, L u_prev), half of it,
           times the cell volume: constant for leapfrog without source and
           sponge. */
        double *p = malloc((size_t)s->count * sizeof(double)), *c2 = malloc((size_t)s->count * sizeof(double));
        double w[FDX_STENCIL_MAX_ORDER + 1];
        st = p && c2 ? FDX_OK : fdx_fail(FDX_ERR_NOMEM, "no memory for the energy");
        if (st == FDX_OK) st = fdx_sim_download(s, s->prev, p);
        if (st == FDX_OK) st = fdx_sim_download(s, s->coef, c2);
        if (st == FDX_OK) st = fdx_fd_weights(2, s->order, w);
        if (st == FDX_OK) {
            double kin = 0, idt2 = 1.0 / (s->dt * s->dt);
#pragma omp parallel for reduction(+ : kin)
            for (int64_t q = 0; q < s->count; q++) kin += (u[q] - p[q]) * (u[q] - p[q]) * idt2 / c2[q];
            d->energy = 0.5 * (kin + minus_a_lap_b(s, u, p, w)) * pow(s->h, rank);
        }
        free(p);
        free(c2);
    }
    free(u);
    return st;
}
