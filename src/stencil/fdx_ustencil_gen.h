/* fdx_ustencil_gen (internal to the user stencil generator's files): the
   generator's state and the naming and addressing helpers both strategies
   use. */
#ifndef FDX_USTENCIL_GEN_H
#define FDX_USTENCIL_GEN_H

#include "codegen/fdx_cg.h"
#include "stencil/fdx_ustencil_impl.h"

typedef struct ugen {
    const fdx_us_spec *ks;
    const fdx_us_cfg *cfg;
    fdx_cg *cg;
    int cuda;
    const char *w; /* "P.w" (C) or "p.w" (CUDA) */
} ugen;

/* The field's name with its component where fields have several (u0, u1c2, k0). */
FDX_HIDDEN const char *fdx_us_field_name(const ugen *g, const fdx_us_factor *f);
/* Appends an offset as a name part: m1, p2, 0. */
FDX_HIDDEN void fdx_us_off_text(fdx_sb *b, int o);
/* The element address of point index expression `pt`, component comp of the field. */
FDX_HIDDEN const char *fdx_us_elem(const ugen *g, int field, int comp, const char *pt);
FDX_HIDDEN int fdx_us_same_factor(const fdx_us_factor *a, const fdx_us_factor *b);
/* The kernel and its parameters (out, u0.., k0.., p); returns the body. */
FDX_HIDDEN fdx_cg_node *fdx_us_emit_kernel(fdx_cg_node *at, const ugen *g);
/* Stores the value named <pre><index> to component comp of point pt. */
FDX_HIDDEN void fdx_us_store(fdx_cg_node *at, const ugen *g, int comp, const char *pt, const char *pre, int index);
/* The march (fdx_ustencil_march.c). */
FDX_HIDDEN void fdx_us_emit_march(fdx_cg_node *at, const ugen *g);

#endif
