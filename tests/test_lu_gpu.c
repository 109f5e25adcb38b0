/* NPB LU's routines on CUDA: the CPU tests (test_lu.c) on the GPU, every
   routine against the plain C transcription of NPB, and class S verified
   with the GPU's layouts and geometries. */
#define LU_TEST_BACKEND "cuda"
#define LU_TEST_NAME "test_lu_gpu"
#include "test_lu.c"
