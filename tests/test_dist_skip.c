/* test_dist_skip: test_dist with FDX_TEST_SKIP_EXCHANGE=1 must fail its
   checks: proof that they depend on the shadow exchange. */
#define DIST_EXPECT_FAILURE 1
#define DIST_NAME "test_dist_skip"
#include "test_dist.c"
