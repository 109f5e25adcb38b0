/* fdx_pml_point: one point of each PML pass, one definition for the host
   (fdx_pml.c) and the device (fdx_pml_cuda.cu; PML_HD is __device__ under
   nvcc): pml_psi_point_<T><I> and pml_term_point_<T><I> (and their _at
   forms), T float or double, I i32 (every index fits an int) or i64. */
#ifndef FDX_PML_POINT_H
#define FDX_PML_POINT_H

#define PML_T float
#define PML_I int
#define PML_FN(x) x##_float_i32
#include "solvers/fdx_pml_point_body.h"
#undef PML_I
#undef PML_FN
#define PML_I long long
#define PML_FN(x) x##_float_i64
#include "solvers/fdx_pml_point_body.h"
#undef PML_T
#undef PML_I
#undef PML_FN
#define PML_T double
#define PML_I int
#define PML_FN(x) x##_double_i32
#include "solvers/fdx_pml_point_body.h"
#undef PML_I
#undef PML_FN
#define PML_I long long
#define PML_FN(x) x##_double_i64
#include "solvers/fdx_pml_point_body.h"
#undef PML_T
#undef PML_I
#undef PML_FN

#endif
