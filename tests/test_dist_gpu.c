/* test_dist_gpu: test_dist on CUDA units (two GPUs when present: peer
   copies; one GPU holds all units otherwise): exchanges and overlapped wave
   steps bit-identical to one whole array. */
#define DIST_BACKEND "cuda"
#define DIST_NAME "test_dist_gpu"
#include "test_dist.c"
