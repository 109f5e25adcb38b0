/* test_dist_loop.c with CUDA units (several a GPU when there are fewer
   GPUs than units; peer copies between GPUs where there are more). */
#define DIST_LOOP_BACKEND "cuda"
#define DIST_LOOP_NAME "test_dist_loop_gpu"
#include "test_dist_loop.c"
