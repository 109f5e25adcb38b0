/* fdx_pml_point_body: the point code of fdx_pml_point.h, included once per
   element type PML_T (float or double) and index type PML_I (int when every
   index of the grid and the layer fits: 64-bit integer arithmetic is several
   instructions on the GPU, and this code is mostly index arithmetic; else
   long long), with PML_FN(name) giving the suffixed name.  No include guard
   on purpose.

   Table of axis a (8m entries of PML_T at tab + 8 m a): b and a of psi
   (half points), then b and a of zeta (grid points), each 2m long in slab
   order: the lower slab's m entries from the wall inwards, then the upper's. */
#include "solvers/fdx_pml.h"

#ifndef PML_HD
#ifdef __CUDACC__
#define PML_HD __device__
#define PML_UNROLL _Pragma("unroll")
#else
#define PML_HD
#define PML_UNROLL
#endif
#endif

/* v / e, leaving v % e in *rem (unsigned 32-bit division in the 32-bit
   variant: 64-bit division is a long routine on the GPU). */
PML_HD static inline PML_I PML_FN(pml_div)(PML_I v, PML_I e, PML_I *rem)
{
    if (sizeof(PML_I) == 4) {
        unsigned q = (unsigned)v / (unsigned)e;
        *rem = (PML_I)((unsigned)v - q * (unsigned)e);
        return (PML_I)q;
    }
    *rem = v % e;
    return v / e;
}

/* Slab index of position x of axis a (psi at x + 1/2, zeta at x), -1 outside. */
PML_HD static inline PML_I PML_FN(pml_slab)(const fdx_pml_job *J, int a, PML_I x)
{
    PML_I lo = J->r - 1, hi = (PML_I)((PML_I)J->n[a]) - J->r - J->m;
    if (x >= lo && x < lo + J->m) return x - lo;
    if (x >= hi && x < hi + J->m) return J->m + x - hi;
    return -1;
}

/* Pass 1: psi of axis a at slab point s, across at x (x[a] is ignored). */
PML_HD static inline void PML_FN(pml_psi_at)(const fdx_pml_job *J, const PML_T *tab, PML_T *aux, const PML_T *u,
                                             int a, PML_I s, PML_I *x)
{
    int m = J->m, r = J->r;
    x[a] = s < m ? r - 1 + s : ((PML_I)J->n[a]) - r - m + (s - m);
    PML_I q = x[0] * ((PML_I)J->st[0]) + x[1] * ((PML_I)J->st[1]) + x[2] * ((PML_I)J->st[2]), sa = ((PML_I)J->st[a]);
    PML_T du = 0;
    for (int k = 1; k <= r; k++) du += (PML_T)J->ws[k] * (u[q + k * sa] - u[q + (1 - k) * sa]);
    PML_I p = ((PML_I)J->psi[a]) + x[0] * ((PML_I)J->sst[a][0]) + x[1] * ((PML_I)J->sst[a][1]) + x[2] * ((PML_I)J->sst[a][2]) - x[a] * ((PML_I)J->sst[a][a]) +
                  s * ((PML_I)J->sst[a][a]);
    const PML_T *ta = tab + (PML_I)8 * m * a;
    aux[p] = ta[s] * aux[p] + ta[2 * m + s] * du;
}

/* Pass 1, thread t of all axes' points: x fastest (coalesced on the GPU),
   axis a over its 2m slab points, the other axes over their unknowns (axis 2
   of a 2D grid: its one plane). */
PML_HD static inline void PML_FN(pml_psi_point)(const fdx_pml_job *J, const PML_T *tab, PML_T *aux, const PML_T *u,
                                                PML_I t)
{
    int a = 0, r = J->r;
    while (a < J->rank - 1 && t >= ((PML_I)J->npsi[a])) t -= ((PML_I)J->npsi[a++]);
    PML_I s = 0, rest = t, x[3] = {0, 0, 0};
    for (int d = 0; d < 3; d++) {
        PML_I lo = d < J->rank ? r : 0, ext = d == a ? 2 * J->m : d < J->rank ? ((PML_I)J->n[d]) - 2 * r : 1;
        PML_I c;
        rest = PML_FN(pml_div)(rest, ext, &c);
        if (d == a) s = c;
        else x[d] = lo + c;
    }
    PML_FN(pml_psi_at)(J, tab, aux, u, a, s, x);
}

/* Pass 2: the layer's terms at the unknown x of the shell. */
PML_HD static inline void PML_FN(pml_term_at)(const fdx_pml_job *J, const PML_T *tab, PML_T *aux, PML_T *next,
                                              const PML_T *u, const PML_T *c2, const PML_I *x)
{
    int m = J->m, r = J->r;
    PML_I q = x[0] * ((PML_I)J->st[0]) + x[1] * ((PML_I)J->st[1]) + x[2] * ((PML_I)J->st[2]);
    PML_T term = 0;
    PML_UNROLL for (int a = 0; a < 3; a++) { /* unrolled: x[a] stays in registers */
        if (a >= J->rank) break;
        PML_I xa = x[a], reach = r + m - 1; /* D-psi is non-zero up to r - 1 points past psi */
        if (xa >= r + reach && xa < ((PML_I)J->n[a]) - r - reach) continue;
        PML_I base = ((PML_I)J->psi[a]) + x[0] * ((PML_I)J->sst[a][0]) + x[1] * ((PML_I)J->sst[a][1]) + x[2] * ((PML_I)J->sst[a][2]) -
                       xa * ((PML_I)J->sst[a][a]);
        PML_I ss = ((PML_I)J->sst[a][a]);
        PML_T dpsi = 0;
        for (int k = 1; k <= r; k++) {
            PML_I sp = PML_FN(pml_slab)(J, a, xa + k - 1), sm = PML_FN(pml_slab)(J, a, xa - k);
            PML_T hi = sp >= 0 ? aux[base + sp * ss] : (PML_T)0, lo = sm >= 0 ? aux[base + sm * ss] : (PML_T)0;
            dpsi += (PML_T)J->ws[k] * (hi - lo);
        }
        term += dpsi;
        PML_I s = PML_FN(pml_slab)(J, a, xa);
        if (s < 0) continue;
        PML_I sa = ((PML_I)J->st[a]);
        PML_T d2 = (PML_T)J->w2[0] * u[q];
        for (int k = 1; k <= r; k++) d2 += (PML_T)J->w2[k] * (u[q + k * sa] + u[q - k * sa]);
        const PML_T *ta = tab + (PML_I)8 * m * a;
        PML_T *z = aux + base + ((PML_I)J->size[a]) + s * ss;
        *z = ta[4 * m + s] * *z + ta[6 * m + s] * (d2 + dpsi);
        term += *z;
    }
    next[q] += (PML_T)J->alpha * c2[q] * term;
}

/* Pass 2, thread t of the shell's boxes (x fastest). */
PML_HD static inline void PML_FN(pml_term_point)(const fdx_pml_job *J, const PML_T *tab, PML_T *aux, PML_T *next,
                                                 const PML_T *u, const PML_T *c2, PML_I t)
{
    int b = 0;
    while (t >= ((PML_I)J->box_end[b])) b++;
    PML_I off = t - (b ? ((PML_I)J->box_end[b - 1]) : 0), x[3];
    for (int d = 0; d < 3; d++) {
        PML_I c;
        off = PML_FN(pml_div)(off, ((PML_I)J->box_hi[b][d]) - ((PML_I)J->box_lo[b][d]), &c);
        x[d] = ((PML_I)J->box_lo[b][d]) + c;
    }
    PML_FN(pml_term_at)(J, tab, aux, next, u, c2, x);
}
