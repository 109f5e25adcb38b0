/* lu_bodies: the loop bodies of NPB LU (lu_bodies.c says what each expects). */
#ifndef FDX_LU_BODIES_H
#define FDX_LU_BODIES_H

extern const char *const lu_body_setiv, *const lu_body_exact, *const lu_body_prim, *const lu_body_rhs;
extern const char *const lu_body_blts, *const lu_body_buts, *const lu_body_add, *const lu_body_l2norm;
extern const char *const lu_body_error, *const lu_body_pintgr, *const lu_body_pint_face;

#endif
