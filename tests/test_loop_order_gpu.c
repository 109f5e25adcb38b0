/* test_loop_order.c on CUDA (skips without a device). */
#define LOOP_TEST_BACKEND "cuda"
#define LOOP_TEST_NAME "test_loop_order_gpu"
#include "test_loop_order.c"
