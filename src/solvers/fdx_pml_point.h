/* fdx_pml_point: one point of each PML pass, one definition for the host
   (fdx_pml.c) and the device (fdx_pml_cuda.cu; PML_HD is __device__ under
   nvcc): pml_psi_point_float/_double and pml_term_point_float/_double. */
#ifndef FDX_PML_POINT_H
#define FDX_PML_POINT_H

#define PML_T float
#define PML_FN(x) x##_float
#include "solvers/fdx_pml_point_body.h"
#undef PML_T
#undef PML_FN
#define PML_T double
#define PML_FN(x) x##_double
#include "solvers/fdx_pml_point_body.h"
#undef PML_T
#undef PML_FN

#endif
