/* Loops on CUDA: the CPU loop tests (test_loop.c) on the GPU, plus actuality:
   copies happen only when the other side holds the current copy. */
#define LOOP_TEST_BACKEND "cuda"
#define LOOP_TEST_NAME "test_loop_gpu"
#define LOOP_TEST_EXTRA                                                        \
    static void test_extra(void)                                               \
    {                                                                          \
        const int64_t n[3] = {16, 8, 4};                                       \
        double h[512], back[512];                                              \
        for (int q = 0; q < 512; q++) h[q] = fdx_test_rand(&seed);             \
        fdx_array *A = NULL;                                                   \
        CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, n, FDX_ON_HOST, &A));   \
        if (!A) return;                                                        \
        memcpy(fdx_array_host(A), h, sizeof h);                                \
        CHECK(fdx_array_valid(A) == 0, "new array untracked");                 \
        fdx_loop *l = NULL;                                                    \
        CHECK_OK(fdx_loop_create(ctx, "i,j,k", &l));                           \
        CHECK_OK(fdx_loop_on(l, A, NULL));                                     \
        CHECK_OK(fdx_loop_array(l, "A", A, FDX_READ_WRITE));                   \
        CHECK_OK(fdx_loop_body(l, "A(i,j,k) = 2 * A(i,j,k);"));                \
        CHECK_OK(fdx_loop_run(l, NULL)); /* copies the host data over */       \
        CHECK(fdx_array_valid(A) == FDX_ON_DEVICE, "device current after the loop"); \
        CHECK(((double *)fdx_array_host(A))[5] == h[5], "host copy untouched (stale)"); \
        CHECK_OK(fdx_array_get(A, back));                                      \
        CHECK(back[5] == 2 * h[5] && back[511] == 2 * h[511], "get reads the device copy"); \
        CHECK_OK(fdx_array_put(A, h));                                         \
        CHECK_OK(fdx_loop_run(l, NULL));                                       \
        CHECK_OK(fdx_array_get(A, back));                                      \
        CHECK(back[7] == 2 * h[7], "put then loop: %g vs %g", back[7], 2 * h[7]); \
        fdx_loop_destroy(&l);                                                  \
        fdx_array_destroy(&A);                                                 \
    }
#include "test_loop.c"
