/* fdx_pml_point_body: the point code of fdx_pml_point.h, included once per
   element type with PML_T (float or double) and PML_FN(name) (a suffixed
   name) defined.  No include guard on purpose.

   Table of axis a (8m entries of PML_T at tab + 8 m a): b and a of psi
   (half points), then b and a of zeta (grid points), each 2m long in slab
   order: the lower slab's m entries from the wall inwards, then the upper's. */
#include "solvers/fdx_pml.h"

#ifndef PML_HD
#ifdef __CUDACC__
#define PML_HD __device__
#else
#define PML_HD
#endif
#endif

#ifndef PML_SLAB_DEFINED
#define PML_SLAB_DEFINED
/* v / e, leaving v % e in *rem: in 32 bits when both fit (64-bit division
   is a long routine on the GPU; the layer's indices nearly always fit). */
PML_HD static inline long long pml_div(long long v, long long e, long long *rem)
{
    if (v < 4294967296LL && e < 4294967296LL) {
        unsigned q = (unsigned)v / (unsigned)e;
        *rem = (long long)((unsigned)v - q * (unsigned)e);
        return q;
    }
    *rem = v % e;
    return v / e;
}

/* Slab index of position x of axis a (psi at x + 1/2, zeta at x), -1 outside. */
PML_HD static inline long long pml_slab(const fdx_pml_job *J, int a, long long x)
{
    long long lo = J->r - 1, hi = J->n[a] - J->r - J->m;
    if (x >= lo && x < lo + J->m) return x - lo;
    if (x >= hi && x < hi + J->m) return J->m + x - hi;
    return -1;
}
#endif

/* Pass 1: psi of axis a at slab point s, across at x (x[a] is ignored). */
PML_HD static inline void PML_FN(pml_psi_at)(const fdx_pml_job *J, const PML_T *tab, PML_T *aux, const PML_T *u,
                                             int a, long long s, long long *x)
{
    int m = J->m, r = J->r;
    x[a] = s < m ? r - 1 + s : J->n[a] - r - m + (s - m);
    long long q = x[0] * J->st[0] + x[1] * J->st[1] + x[2] * J->st[2], sa = J->st[a];
    PML_T du = 0;
    for (int k = 1; k <= r; k++) du += (PML_T)J->ws[k] * (u[q + k * sa] - u[q + (1 - k) * sa]);
    long long p = J->psi[a] + x[0] * J->sst[a][0] + x[1] * J->sst[a][1] + x[2] * J->sst[a][2] - x[a] * J->sst[a][a] +
                  s * J->sst[a][a];
    const PML_T *ta = tab + 8LL * m * a;
    aux[p] = ta[s] * aux[p] + ta[2 * m + s] * du;
}

/* Pass 1, thread t of all axes' points: x fastest (coalesced on the GPU),
   axis a over its 2m slab points, the other axes over their unknowns (axis 2
   of a 2D grid: its one plane). */
PML_HD static inline void PML_FN(pml_psi_point)(const fdx_pml_job *J, const PML_T *tab, PML_T *aux, const PML_T *u,
                                                long long t)
{
    int a = 0, r = J->r;
    while (a < J->rank - 1 && t >= J->npsi[a]) t -= J->npsi[a++];
    long long s = 0, rest = t, x[3] = {0, 0, 0};
    for (int d = 0; d < 3; d++) {
        long long lo = d < J->rank ? r : 0, ext = d == a ? 2 * J->m : d < J->rank ? J->n[d] - 2 * r : 1;
        long long c;
        rest = pml_div(rest, ext, &c);
        if (d == a) s = c;
        else x[d] = lo + c;
    }
    PML_FN(pml_psi_at)(J, tab, aux, u, a, s, x);
}

/* Pass 2: the layer's terms at the unknown x of the shell. */
PML_HD static inline void PML_FN(pml_term_at)(const fdx_pml_job *J, const PML_T *tab, PML_T *aux, PML_T *next,
                                              const PML_T *u, const PML_T *c2, const long long *x)
{
    int m = J->m, r = J->r;
    long long q = x[0] * J->st[0] + x[1] * J->st[1] + x[2] * J->st[2];
    PML_T term = 0;
    for (int a = 0; a < J->rank; a++) {
        long long xa = x[a], reach = r + m - 1; /* D-psi is non-zero up to r - 1 points past psi */
        if (xa >= r + reach && xa < J->n[a] - r - reach) continue;
        long long base = J->psi[a] + x[0] * J->sst[a][0] + x[1] * J->sst[a][1] + x[2] * J->sst[a][2] -
                       xa * J->sst[a][a];
        long long ss = J->sst[a][a];
        PML_T dpsi = 0;
        for (int k = 1; k <= r; k++) {
            long long sp = pml_slab(J, a, xa + k - 1), sm = pml_slab(J, a, xa - k);
            PML_T hi = sp >= 0 ? aux[base + sp * ss] : (PML_T)0, lo = sm >= 0 ? aux[base + sm * ss] : (PML_T)0;
            dpsi += (PML_T)J->ws[k] * (hi - lo);
        }
        term += dpsi;
        long long s = pml_slab(J, a, xa);
        if (s < 0) continue;
        long long sa = J->st[a];
        PML_T d2 = (PML_T)J->w2[0] * u[q];
        for (int k = 1; k <= r; k++) d2 += (PML_T)J->w2[k] * (u[q + k * sa] + u[q - k * sa]);
        const PML_T *ta = tab + 8LL * m * a;
        PML_T *z = aux + base + J->size[a] + s * ss;
        *z = ta[4 * m + s] * *z + ta[6 * m + s] * (d2 + dpsi);
        term += *z;
    }
    next[q] += (PML_T)J->alpha * c2[q] * term;
}

/* Pass 2, thread t of the shell's boxes (x fastest). */
PML_HD static inline void PML_FN(pml_term_point)(const fdx_pml_job *J, const PML_T *tab, PML_T *aux, PML_T *next,
                                                 const PML_T *u, const PML_T *c2, long long t)
{
    int b = 0;
    while (t >= J->box_end[b]) b++;
    long long off = t - (b ? J->box_end[b - 1] : 0), x[3];
    for (int d = 0; d < 3; d++) {
        long long c;
        off = pml_div(off, J->box_hi[b][d] - J->box_lo[b][d], &c);
        x[d] = J->box_lo[b][d] + c;
    }
    PML_FN(pml_term_at)(J, tab, aux, next, u, c2, x);
}
