/* fdx_traffic: the seed's theoretical DRAM traffic of a star stencil, the
   denominator of every effective-bandwidth figure (metrics.h). */
#include "fdx/metrics.h"

/* Counts the points with at most one coordinate in the boundary band: those
   are exactly the points some interior output reads through a star stencil. */
void fdx_star_traffic(int rank, const int64_t *shape, int radius, size_t elem_size, double *fetch_bytes,
                      double *write_bytes)
{
    double interior = 1;
    for (int d = 0; d < rank; d++) interior *= (double)(shape[d] > 2 * radius ? shape[d] - 2 * radius : 0);
    double fetch = interior;
    for (int d = 0; d < rank; d++) {
        double others = 1;
        for (int e = 0; e < rank; e++)
            if (e != d) others *= (double)(shape[e] > 2 * radius ? shape[e] - 2 * radius : 0);
        double band = (double)(shape[d] < 2 * radius ? shape[d] : 2 * radius);
        fetch += band * others;
    }
    *fetch_bytes = fetch * (double)elem_size;
    *write_bytes = interior * (double)elem_size;
}
