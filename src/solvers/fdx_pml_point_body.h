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
#define PML_INLINE __forceinline__
#else
#define PML_HD
#define PML_UNROLL
#define PML_INLINE inline __attribute__((always_inline))
#endif
/* The fused pass's window of u along an axis: u at x + o is win[o + PML_W]. */
#define PML_W (2 * FDX_PML_MAX_R)
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

/* Slab index of local position x of axis a (psi at x + 1/2, zeta at x), -1 outside. */
PML_HD static inline PML_I PML_FN(pml_slab)(const fdx_pml_job *J, int a, PML_I x)
{
    PML_I lo = (PML_I)J->pos[a][0], hi = (PML_I)J->pos[a][1];
    if (x >= lo && x < lo + J->m) return x - lo;
    if (x >= hi && x < hi + J->m) return J->m + x - hi;
    return -1;
}

/* psi of axis a one step on at slab point s (u's index q there, sa = u's
   stride along a): b psi + a D+u.  One expression for pass 1 and the fused
   pass, so both round alike. */
PML_HD static inline PML_T PML_FN(pml_psi_new)(const fdx_pml_job *J, const PML_T *ta, PML_T old, const PML_T *u,
                                               PML_I q, PML_I sa, PML_I s)
{
    PML_T du = 0;
    for (int k = 1; k <= J->r; k++) du += (PML_T)J->ws[k] * (u[q + k * sa] - u[q + (1 - k) * sa]);
    return ta[s] * old + ta[2 * J->m + s] * du;
}

/* Offset of axis a's slab arrays at the point x across (x[a] ignored). */
PML_HD static inline PML_I PML_FN(pml_across)(const fdx_pml_job *J, int a, const PML_I *x)
{
    return x[0] * ((PML_I)J->sst[a][0]) + x[1] * ((PML_I)J->sst[a][1]) + x[2] * ((PML_I)J->sst[a][2]) -
           x[a] * ((PML_I)J->sst[a][a]);
}

/* Pass 1: psi of axis a at slab point s, across at x (x[a] is ignored; a
   position outside the block is skipped). */
PML_HD static inline void PML_FN(pml_psi_at)(const fdx_pml_job *J, const PML_T *tab, PML_T *aux, const PML_T *u,
                                             int a, PML_I s, PML_I *x)
{
    int m = J->m;
    x[a] = s < m ? (PML_I)J->pos[a][0] + s : (PML_I)J->pos[a][1] + (s - m);
    if (x[a] < 0 || x[a] >= (PML_I)J->n[a]) return;
    PML_I q = x[0] * ((PML_I)J->st[0]) + x[1] * ((PML_I)J->st[1]) + x[2] * ((PML_I)J->st[2]);
    PML_I p = ((PML_I)J->psi[a]) + PML_FN(pml_across)(J, a, x) + s * ((PML_I)J->sst[a][a]);
    aux[p] = PML_FN(pml_psi_new)(J, tab + (PML_I)8 * m * a, aux[p], u, q, (PML_I)J->st[a], s);
}

/* Pass 1, thread t of all axes' points: x fastest (coalesced on the GPU),
   axis a over its 2m slab points, the other axes over their unknowns (axis 2
   of a 2D grid: its one plane). */
PML_HD static inline void PML_FN(pml_psi_point)(const fdx_pml_job *J, const PML_T *tab, PML_T *aux, const PML_T *u,
                                                PML_I t)
{
    int a = 0;
    while (a < J->rank - 1 && t >= ((PML_I)J->npsi[a])) t -= ((PML_I)J->npsi[a++]);
    PML_I s = 0, rest = t, x[3] = {0, 0, 0};
    for (int d = 0; d < 3; d++) {
        PML_I lo = (PML_I)J->ulo[d], ext = d == a ? 2 * J->m : (PML_I)J->uhi[d] - lo;
        PML_I c;
        rest = PML_FN(pml_div)(rest, ext, &c);
        if (d == a) s = c;
        else x[d] = lo + c;
    }
    PML_FN(pml_psi_at)(J, tab, aux, u, a, s, x);
}

/* The fused pass's part of axis a at the unknown x (u's index q, slab
   arrays at `across`), R = r a constant (the caller's switch: the loops
   unroll and the arrays stay in registers).  u along the axis is read once
   into a window of 4R - 1 values; from it and the old psi the new psi of
   the 2R half points D-psi needs (P[i + R] at x + i + 1/2, 0 outside the
   slabs), the same expression as pml_psi_new, so the same numbers as pass
   1's; its own half point (and at the first unknown the wall's) is stored
   in the other buffer.  Adds D-psi, then the new zeta, to *term. */
PML_HD static PML_INLINE void PML_FN(pml_fused_axis)(const fdx_pml_job *J, const PML_T *ta, PML_T *aux,
                                                     const PML_T *u, PML_I q, int a, PML_I xa, PML_I across,
                                                     const int R, PML_T *term)
{
    int m = J->m;
    PML_I sa = (PML_I)J->st[a], ss = (PML_I)J->sst[a][a], na = (PML_I)J->n[a];
    PML_T win[2 * PML_W + 1], P[2 * FDX_PML_MAX_R];
    PML_UNROLL for (int o = 1 - 2 * R; o <= 2 * R - 1; o++)
        win[o + PML_W] = xa + o >= 0 && xa + o < na ? u[q + o * sa] : (PML_T)0;
    const PML_T *old = aux + ((PML_I)J->psi[a]) + across;
    PML_UNROLL for (int i = -R; i < R; i++) {
        PML_I s = PML_FN(pml_slab)(J, a, xa + i);
        PML_T v = 0;
        if (s >= 0) {
            PML_T du = 0;
            PML_UNROLL for (int k = 1; k <= R; k++)
                du += (PML_T)J->ws[k] * (win[i + k + PML_W] - win[i + 1 - k + PML_W]);
            v = ta[s] * old[s * ss] + ta[2 * m + s] * du;
        }
        P[i + R] = v;
    }
    PML_T *out = aux + ((PML_I)J->psi_out[a]) + across;
    PML_I s0 = PML_FN(pml_slab)(J, a, xa);
    if (s0 >= 0) out[s0 * ss] = P[R];
    if (PML_FN(pml_slab)(J, a, xa - 1) == 0) out[0] = P[R - 1]; /* the wall's half point: no unknown of its own */
    PML_T dpsi = 0;
    PML_UNROLL for (int k = 1; k <= R; k++) dpsi += (PML_T)J->ws[k] * (P[R + k - 1] - P[R - k]);
    *term += dpsi;
    if (s0 < 0) return;
    PML_T d2 = (PML_T)J->w2[0] * win[PML_W];
    PML_UNROLL for (int k = 1; k <= R; k++) d2 += (PML_T)J->w2[k] * (win[PML_W + k] + win[PML_W - k]);
    PML_T *z = aux + ((PML_I)J->zeta[a]) + across + s0 * ss;
    *z = ta[4 * m + s0] * *z + ta[6 * m + s0] * (d2 + dpsi);
    *term += *z;
}

/* The layer's terms at the unknown x of the strips.  Pass 2 reads psi as
   pass 1 left it; the fused pass (J->fused) takes pml_fused_axis's. */
PML_HD static inline void PML_FN(pml_term_at)(const fdx_pml_job *J, const PML_T *tab, PML_T *aux, PML_T *next,
                                              const PML_T *u, const PML_T *c2, const PML_I *x)
{
    int m = J->m, r = J->r;
    PML_I q = x[0] * ((PML_I)J->st[0]) + x[1] * ((PML_I)J->st[1]) + x[2] * ((PML_I)J->st[2]);
    PML_T term = 0;
    PML_UNROLL for (int a = 0; a < 3; a++) { /* unrolled: x[a] stays in registers */
        if (a >= J->rank) break;
        PML_I xa = x[a];
        if (xa >= (PML_I)J->zone[a][0] && xa < (PML_I)J->zone[a][1]) continue;
        PML_I across = PML_FN(pml_across)(J, a, x);
        const PML_T *ta = tab + (PML_I)8 * m * a;
        if (J->fused) {
            switch (r) {
            case 1: PML_FN(pml_fused_axis)(J, ta, aux, u, q, a, xa, across, 1, &term); break;
            case 2: PML_FN(pml_fused_axis)(J, ta, aux, u, q, a, xa, across, 2, &term); break;
            case 3: PML_FN(pml_fused_axis)(J, ta, aux, u, q, a, xa, across, 3, &term); break;
            case 4: PML_FN(pml_fused_axis)(J, ta, aux, u, q, a, xa, across, 4, &term); break;
            case 5: PML_FN(pml_fused_axis)(J, ta, aux, u, q, a, xa, across, 5, &term); break;
            default: PML_FN(pml_fused_axis)(J, ta, aux, u, q, a, xa, across, FDX_PML_MAX_R, &term); break;
            }
            continue;
        }
        PML_I base = ((PML_I)J->psi[a]) + across, ss = ((PML_I)J->sst[a][a]), sa = ((PML_I)J->st[a]);
        PML_T dpsi = 0;
        for (int k = 1; k <= r; k++) {
            PML_I sp = PML_FN(pml_slab)(J, a, xa + k - 1), sm = PML_FN(pml_slab)(J, a, xa - k);
            PML_T hi = sp >= 0 ? aux[base + sp * ss] : (PML_T)0, lo = sm >= 0 ? aux[base + sm * ss] : (PML_T)0;
            dpsi += (PML_T)J->ws[k] * (hi - lo);
        }
        term += dpsi;
        PML_I s = PML_FN(pml_slab)(J, a, xa);
        if (s < 0) continue;
        PML_T d2 = (PML_T)J->w2[0] * u[q];
        for (int k = 1; k <= r; k++) d2 += (PML_T)J->w2[k] * (u[q + k * sa] + u[q - k * sa]);
        PML_T *z = aux + ((PML_I)J->zeta[a]) + across + s * ss;
        *z = ta[4 * m + s] * *z + ta[6 * m + s] * (d2 + dpsi);
        term += *z;
    }
    next[q] += (PML_T)J->alpha * c2[q] * term;
}

/* Pass 2 or the fused pass, thread t of the strips' boxes (x fastest). */
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
