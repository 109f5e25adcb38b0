/* fdx_jit_compile_batch on the CPU backend: several C sources compiled in
   parallel threads into the kernel cache (a bad one counted as failed, the
   rest unaffected), then loaded without compiling again and run. */
#include "fdx_test.h"
#include "backends/fdx_jit_batch.h"
#include "core/fdx_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 5

int main(void)
{
    char dir[256], cmd[300];
    snprintf(dir, sizeof dir, "/tmp/fdx-test-jit-batch-%ld", (long)getpid());
    CHECK_OK(fdx_cache_set_dir(dir));
    const fdx_backend *be = fdx_backend_cpu();
    fdx_device_info dev;
    CHECK_OK(be->device_info(0, &dev));
    char text[N][200];
    const char *src[N];
    for (int i = 0; i < N; i++) {
        if (i == 2) snprintf(text[i], sizeof text[i], "void entry(void **args) { this is not C; }\n");
        else snprintf(text[i], sizeof text[i], "void entry(void **args) { *(int *)args[0] = %d * 7 + 1; }\n", i);
        src[i] = text[i];
    }
    CHECK(fdx_jit_batch_threads(N) >= 1 && fdx_jit_batch_threads(N) <= N, "threads %d", fdx_jit_batch_threads(N));
    int failed = fdx_jit_compile_batch(be, &dev, src, N, "batch test kernel");
    CHECK(failed == 1, "%d of %d sources failed, expected the one bad source", failed, N);
    /* Every good source is cached now: its .so is there, signed. */
    int cached = 0;
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -c '\\.so$'", dir);
    FILE *p = popen(cmd, "r");
    if (p) {
        if (fscanf(p, "%d", &cached) != 1) cached = -1;
        pclose(p);
    }
    CHECK(cached == N - 1, "%d shared objects cached, expected %d", cached, N - 1);
    for (int i = 0; i < N; i++) {
        fdx_kernel *k = NULL;
        fdx_status st = be->jit_load(&dev, src[i], "entry", "batch test kernel", &k);
        if (i == 2) {
            CHECK(st == FDX_ERR_COMPILE, "the bad source loaded (status %d)", st);
            fdx_clear_error();
            continue;
        }
        CHECK_OK(st);
        if (st != FDX_OK) continue;
        int out = -1;
        void *args[1] = {&out};
        fdx_launch_dims dims = {{1, 1, 1}, {1, 1, 1}, 0};
        CHECK_OK(be->launch(k, &dims, args, NULL));
        CHECK(out == i * 7 + 1, "kernel %d wrote %d", i, out);
        be->kernel_release(k);
    }
    /* A batch of nothing, and a second batch of cached sources, fail nothing. */
    CHECK(fdx_jit_compile_batch(be, &dev, src, 0, "none") == 0, "an empty batch failed");
    const char *good[2] = {src[0], src[1]};
    CHECK(fdx_jit_compile_batch(be, &dev, good, 2, "cached") == 0, "cached sources failed");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return fdx_test_finish("test_jit_batch");
}
