/* peer_problem: the manufactured problem the peer benchmarks solve, the
   same as `fdx mg` with Dirichlet boundaries on an n^3 vertex grid of the
   unit cube: u* = sin(pi x) sin(pi y) sin(pi z) + x y z, f = 3 pi^2 (the
   product).  Unknowns are the (n-2)^3 interior points; the boundary values
   enter the right-hand side.  The exact discrete solution is known (the
   product is a discrete eigenvector, xyz is discrete-harmonic), so the
   error of an answer is checked against it. */
#ifndef PEER_PROBLEM_H
#define PEER_PROBLEM_H

#include <math.h>

static double peer_exact(double x, double y, double z) { return sin(M_PI * x) * sin(M_PI * y) * sin(M_PI * z) + x * y * z; }

/* f at an interior point plus c * (boundary neighbours' values). */
static double peer_rhs(int i, int j, int k, int n)
{
    const double h = 1.0 / (n - 1), c = 1.0 / (h * h);
    double x = i * h, y = j * h, z = k * h;
    double b = 3 * M_PI * M_PI * sin(M_PI * x) * sin(M_PI * y) * sin(M_PI * z);
    const int d[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
    for (int q = 0; q < 6; q++) {
        int a = i + d[q][0], e = j + d[q][1], g = k + d[q][2];
        if (a == 0 || a == n - 1 || e == 0 || e == n - 1 || g == 0 || g == n - 1) b += c * peer_exact(a * h, e * h, g * h);
    }
    return b;
}

/* The exact discrete solution's error against u*: the product's amplitude
   times |lambda / lambda_h - 1|. */
static double peer_disc_error(int n)
{
    const double h = 1.0 / (n - 1), s = sin(0.5 * M_PI * h);
    return fabs(3 * M_PI * M_PI / (3 * 4 / (h * h) * s * s) - 1);
}

#endif
