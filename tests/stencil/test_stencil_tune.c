/* The autotuner on the CPU backend: with tune=force it measures candidates,
   keeps the winner in a tuning file beside the kernel cache, and the tuned
   kernel still equals the reference loop. */
#include "test_stencil_check.h"

#include <dirent.h>
#include <unistd.h>
#include <string.h>

static int count_tune_files(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp)))
        if (strstr(e->d_name, ".tune") && !strstr(e->d_name, ".tmp")) n++;
    closedir(dp);
    return n;
}

int main(void)
{
    char dir[256];
    snprintf(dir, sizeof dir, "/tmp/fdx-test-tune-%ld", (long)getpid());
    setenv("FDX_CACHE_DIR", dir, 1);
    fdx_ctx *ctx = sc_ctx("cpu", "force");
    if (!ctx) return fdx_test_finish("test_stencil_tune");
    uint64_t seed = 7;
    fdx_stencil_desc d;
    sc_desc(&d, 3, 2, FDX_UPDATE_APPLY, 0, 0);
    int64_t shape[3] = {250, 130, 130}; /* over the tuning threshold of 2^22 points */
    sc_case(ctx, &d, FDX_FLOAT32, shape, &seed, NULL, NULL);
    CHECK(count_tune_files(dir) == 1, "expected one tuning file in %s, found %d", dir, count_tune_files(dir));
    /* A small problem is not tuned: no new file. */
    int64_t small[3] = {40, 30, 20};
    sc_case(ctx, &d, FDX_FLOAT32, small, &seed, NULL, NULL);
    CHECK(count_tune_files(dir) == 1, "a small problem was tuned (%d files)", count_tune_files(dir));
    fdx_ctx_destroy(&ctx);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return fdx_test_finish("test_stencil_tune");
}
