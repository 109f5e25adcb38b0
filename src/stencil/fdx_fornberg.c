/* fdx_fornberg: finite-difference weights on arbitrary points by Fornberg's
   recursion (Math. Comp. 51, 1988), so no order needs a hand-typed table. */
#include "core/fdx_error.h"
#include "fdx/stencil.h"

#include <math.h>
#include <string.h>

#define MAX_POINTS 32

/* Builds the weights of every derivative 0..m at once, adding one point at a
   time: c[j][d] is the weight of point j for derivative d using the points
   seen so far.  Each new point rescales the old weights by its distance and
   gets its own weight from the previous point's. */
fdx_status fdx_fornberg_weights(int m, double x0, int npts, const double *x, double *w)
{
    FDX_CHECK(x && w, FDX_ERR_INVALID, "fdx_fornberg_weights: NULL argument");
    FDX_CHECK(npts >= 1 && npts <= MAX_POINTS, FDX_ERR_INVALID, "number of points %d out of range 1..%d", npts,
              MAX_POINTS);
    FDX_CHECK(m >= 0 && m < npts, FDX_ERR_INVALID, "derivative %d needs at least %d points, got %d", m, m + 1, npts);
    for (int i = 0; i < npts; i++)
        for (int j = 0; j < i; j++)
            FDX_CHECK(x[i] != x[j], FDX_ERR_INVALID, "points %d and %d coincide (x = %g)", j, i, x[i]);
    double c[MAX_POINTS][MAX_POINTS];
    memset(c, 0, sizeof c);
    double prod_prev = 1, dist_new = x[0] - x0;
    c[0][0] = 1;
    for (int i = 1; i < npts; i++) {
        int top = i < m ? i : m;
        double prod = 1, dist_prev = dist_new;
        dist_new = x[i] - x0;
        for (int j = 0; j < i; j++) {
            double gap = x[i] - x[j];
            prod *= gap;
            if (j == i - 1) {
                for (int d = top; d >= 1; d--)
                    c[i][d] = prod_prev * (d * c[i - 1][d - 1] - dist_prev * c[i - 1][d]) / prod;
                c[i][0] = -prod_prev * dist_prev * c[i - 1][0] / prod;
            }
            for (int d = top; d >= 1; d--) c[j][d] = (dist_new * c[j][d] - d * c[j][d - 1]) / gap;
            c[j][0] = dist_new * c[j][0] / gap;
        }
        prod_prev = prod;
    }
    for (int i = 0; i < npts; i++) w[i] = c[i][m];
    return FDX_OK;
}

fdx_status fdx_fd_weights(int m, int order, double *w)
{
    FDX_CHECK(w, FDX_ERR_INVALID, "fdx_fd_weights: NULL argument");
    FDX_CHECK(m == 1 || m == 2, FDX_ERR_INVALID, "derivative %d: only first and second derivatives", m);
    FDX_CHECK(order >= 2 && order <= FDX_STENCIL_MAX_ORDER && order % 2 == 0, FDX_ERR_INVALID,
              "accuracy order %d must be even, 2..%d", order, FDX_STENCIL_MAX_ORDER);
    int r = order / 2;
    double x[2 * FDX_STENCIL_MAX_ORDER + 1];
    for (int i = 0; i <= 2 * r; i++) x[i] = i - r;
    FDX_TRY(fdx_fornberg_weights(m, 0.0, 2 * r + 1, x, w));
    /* Centred weights are exactly symmetric (m even) or antisymmetric (m odd);
       enforcing it removes the recursion's rounding asymmetry, and the sum of
       a second derivative's weights becomes exactly zero. */
    double sign = m % 2 ? -1.0 : 1.0;
    for (int o = 1; o <= r; o++) {
        double avg = 0.5 * (w[r + o] + sign * w[r - o]);
        w[r + o] = avg;
        w[r - o] = sign * avg;
    }
    if (m % 2) {
        w[r] = 0;
    } else {
        double s = 0;
        for (int o = 1; o <= r; o++) s += 2 * w[r + o];
        w[r] = -s;
    }
    return FDX_OK;
}
