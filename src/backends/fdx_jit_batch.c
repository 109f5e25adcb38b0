/* fdx_jit_batch: many kernel sources compiled into the cache at once, one
   source a thread (NVRTC compiles one program per call and is thread-safe;
   the C compiler is a separate process per source), so a batch of tuning
   candidates costs about one compile of wall time instead of one each. */
#include "backends/fdx_jit_batch.h"
#include "core/fdx_log.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct batch {
    const fdx_backend *be;
    const fdx_device_info *dev;
    const char *const *sources;
    const char *what;
    int n, next, failed;
} batch;

static void *worker(void *arg)
{
    batch *b = arg;
    for (;;) {
        int i = __atomic_fetch_add(&b->next, 1, __ATOMIC_RELAXED);
        if (i >= b->n) return NULL;
        if (b->be->jit_compile(b->dev, b->sources[i], b->what) != FDX_OK) {
            /* The load that follows compiles it again and reports it. */
            FDX_DEBUG("%s %d of %d did not compile ahead: %s", b->what, i + 1, b->n, fdx_last_error());
            fdx_clear_error();
            __atomic_fetch_add(&b->failed, 1, __ATOMIC_RELAXED);
        }
    }
}

int fdx_jit_batch_threads(int n)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int t = cores < 1 ? 1 : cores > FDX_JIT_BATCH_MAX_THREADS ? FDX_JIT_BATCH_MAX_THREADS : (int)cores;
    return n < t ? (n > 0 ? n : 1) : t;
}

int fdx_jit_compile_batch(const fdx_backend *be, const fdx_device_info *dev, const char *const *sources, int n,
                          const char *what)
{
    if (!be || !be->jit_compile || n <= 0) return 0;
    batch b = {be, dev, sources, what ? what : "a kernel", n, 0, 0};
    pthread_t tid[FDX_JIT_BATCH_MAX_THREADS];
    int nt = fdx_jit_batch_threads(n) - 1, started = 0; /* this thread is one of them */
    for (; started < nt; started++)
        if (pthread_create(&tid[started], NULL, worker, &b) != 0) break; /* fewer threads: still correct */
    worker(&b);
    for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
    return b.failed;
}
