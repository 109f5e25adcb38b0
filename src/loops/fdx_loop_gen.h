/* fdx_loop_gen (internal): the pieces both of the loop generator's targets
   build their kernel from (fdx_loop_gen.c: the prelude, one iteration, the
   solved axis, the reductions' folds, and the CPU kernel) and the CUDA
   kernel (fdx_loop_gen_gpu.c). */
#ifndef FDX_LOOP_GEN_H
#define FDX_LOOP_GEN_H

#include "codegen/fdx_cg.h"
#include "loops/fdx_loop_impl.h"

#define NPARAMS(t) ((int)(sizeof t / sizeof *t))

/* The accumulator slots of reduction r: the double slot's name is
   <v_pre>r<v_suf>, the 64-bit slot's <l_pre>r<l_suf>. */
typedef struct acc_names {
    const char *v_pre, *v_suf, *l_pre, *l_suf;
} acc_names;

/* The kernel's parameters: the arrays (fdx_p_<name>, restrict pointers),
   then `more`; returns their count (p has room for FDX_LOOP_MAX_ARGS + nmore). */
FDX_HIDDEN int fdx_loop_gen_params(const fdx_loop *l, fdx_cg *cg, const fdx_cg_param *more, int nmore, fdx_cg_param *p);
/* Initial values of reduction r's double and 64-bit accumulator slots. */
FDX_HIDDEN const char *fdx_loop_gen_slot_v(fdx_cg *cg, const loop_red *r);
FDX_HIDDEN const char *fdx_loop_gen_slot_l(fdx_cg *cg, const loop_red *r);
/* Folds source (sv, sl) into destination (dv, dl), as fdx_loop_red_fold. */
FDX_HIDDEN void fdx_loop_gen_combine(fdx_cg_node *at, const loop_red *r, const char *sv, const char *sl, const char *dv,
                                     const char *dl);
/* One iteration at offsets fdx_x<d> into `at`: indices, reduction
   variables, the body, the folds into the accumulators `acc`. */
FDX_HIDDEN void fdx_loop_gen_point(fdx_cg *cg, fdx_cg_node *at, const fdx_loop *l, const loop_geom *g, acc_names acc);
/* The solved axis from t, skipping points off the index box. */
FDX_HIDDEN void fdx_loop_gen_solve(fdx_cg *cg, fdx_cg_node *at, const loop_geom *g);
/* Axis d is enumerated (neither solved from t nor walked sequentially). */
FDX_HIDDEN int fdx_loop_gen_enumerated(const loop_geom *g, int d);
/* The range's lower bounds and shifted origins from run-time integers `ri`. */
FDX_HIDDEN void fdx_loop_gen_runtime_ints(fdx_cg_node *at, const fdx_loop *l, const char *ri);
/* The CUDA kernel (fdx_loop_gen_gpu.c). */
FDX_HIDDEN void fdx_loop_gen_cuda_kernel(fdx_cg *cg, const fdx_loop *l, const loop_geom *g);

#endif
