/* fdx_cpu_backend: host memory, a wall-clock "event", and kernels compiled by
   the system C compiler (fdx_cpu_jit.c).  Streams do not exist: work runs
   when it is enqueued. */
#include "backends/fdx_backend.h"
#include "backends/cpu/fdx_cpu_jit.h"
#include "core/fdx_knob.h"
#include "fdx/internal/clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#ifdef _OPENMP
#include <omp.h>
#endif

static int cpu_device_count(void) { return 1; }

static void read_cpu_model(char *buf, size_t n)
{
    snprintf(buf, n, "host CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon += 1 + (colon[1] == ' ');
                colon[strcspn(colon, "\n")] = '\0';
                snprintf(buf, n, "%s", colon);
            }
            break;
        }
    }
    fclose(f);
}

static fdx_status cpu_device_info(int ordinal, fdx_device_info *info)
{
    FDX_CHECK(ordinal == 0, FDX_ERR_NO_DEVICE, "CPU device %d does not exist (only 0)", ordinal);
    memset(info, 0, sizeof *info);
    read_cpu_model(info->name, sizeof info->name);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    info->mem_total = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
#ifdef _OPENMP
    info->sm_count = omp_get_max_threads();
#else
    info->sm_count = 1;
#endif
    info->max_threads_per_block = 1;
    /* The last-level cache (what a bandwidth probe must exceed); 0 when
       the C library cannot tell. */
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
    info->l2_bytes = llc > 0 ? (size_t)llc : 0;
    return FDX_OK;
}

static fdx_status cpu_set_device(int ordinal)
{
    FDX_CHECK(ordinal == 0, FDX_ERR_NO_DEVICE, "CPU device %d does not exist (only 0)", ordinal);
    return FDX_OK;
}

/* 2 MiB alignment for large blocks lets the kernel back them with huge pages;
   64 bytes (a cache line, a full AVX-512 vector) otherwise. */
/* FDX_CPU_HUGEPAGES=1 (session 11, measurements): blocks of 2 MiB and more
   are 2 MiB aligned and asked for transparent huge pages (madvise), which
   a kernel in THP "madvise" mode (Ubuntu's default) gives only when asked:
   the temporal kernels' rows are 4 KB pages of 512 doubles, a new page
   (a TLB walk, nested in a VM) every row.  Advice only: a refusal is
   ignored. */
static fdx_status cpu_alloc(size_t bytes, void **ptr)
{
    const int huge = bytes >= (2u << 20) && fdx_knob_int(FDX_KNOB_CPU_HUGEPAGES, 0, 1, 0);
    size_t align = bytes >= (64u << 20) || huge ? (2u << 20) : 64;
    void *p = NULL;
    int rc = posix_memalign(&p, align, bytes ? bytes : 1);
    if (rc != 0)
        return fdx_fail(FDX_ERR_NOMEM, "cannot allocate %zu bytes of host memory: %s", bytes, strerror(rc));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (huge) (void)madvise(p, (bytes + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1), MADV_HUGEPAGE);
#endif
    *ptr = p;
    return FDX_OK;
}

static void cpu_free(void *ptr) { free(ptr); }

/* A parallel copy: one thread streams a contiguous chunk. */
static fdx_status cpu_copy_probe(void *dst, const void *src, size_t bytes, void *stream)
{
    (void)stream;
    char *d = dst;
    const char *s = src;
#pragma omp parallel
    {
        size_t nt = 1, t = 0;
#ifdef _OPENMP
        nt = (size_t)omp_get_num_threads();
        t = (size_t)omp_get_thread_num();
#endif
        size_t chunk = (bytes / nt + 63) & ~(size_t)63;
        size_t lo = t * chunk, hi = lo + chunk > bytes ? bytes : lo + chunk;
        if (lo < hi) memcpy(d + lo, s + lo, hi - lo);
    }
    return FDX_OK;
}

static fdx_status cpu_copy(void *dst, const void *src, size_t bytes, fdx_copy_dir dir, void *stream)
{
    (void)dir;
    if (bytes >= (8u << 20)) return cpu_copy_probe(dst, src, bytes, stream);
    memcpy(dst, src, bytes);
    return FDX_OK;
}

static fdx_status cpu_memset(void *ptr, int byte, size_t bytes, void *stream)
{
    (void)stream;
    memset(ptr, byte, bytes);
    return FDX_OK;
}

static fdx_status cpu_stream_create(void **stream)
{
    *stream = NULL;
    return FDX_OK;
}
static void cpu_stream_destroy(void *stream) { (void)stream; }
static fdx_status cpu_stream_sync(void *stream)
{
    (void)stream;
    return FDX_OK;
}
static fdx_status cpu_device_sync(void) { return FDX_OK; }

static fdx_status cpu_event_create(void **event)
{
    *event = calloc(1, sizeof(double)); /* fdx_now_s at the record */
    FDX_CHECK(*event, FDX_ERR_NOMEM, "out of memory creating a CPU event");
    return FDX_OK;
}
static void cpu_event_destroy(void *event) { free(event); }
static fdx_status cpu_event_record(void *event, void *stream)
{
    (void)stream;
    *(double *)event = fdx_now_s();
    return FDX_OK;
}
static fdx_status cpu_event_elapsed_ms(void *start, void *stop, double *ms)
{
    *ms = 1e3 * (*(const double *)stop - *(const double *)start);
    return FDX_OK;
}

static const fdx_backend cpu_backend = {
    .name = "cpu",
    .kind = FDX_BACKEND_CPU,
    .device_count = cpu_device_count,
    .device_info = cpu_device_info,
    .set_device = cpu_set_device,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .copy = cpu_copy,
    .memset = cpu_memset,
    .stream_create = cpu_stream_create,
    .stream_destroy = cpu_stream_destroy,
    .stream_sync = cpu_stream_sync,
    .device_sync = cpu_device_sync,
    .event_create = cpu_event_create,
    .event_destroy = cpu_event_destroy,
    .event_record = cpu_event_record,
    .event_elapsed_ms = cpu_event_elapsed_ms,
    .jit_load = fdx_cpu_jit_load,
    .jit_compile = fdx_cpu_jit_compile,
    .kernel_release = fdx_cpu_kernel_release,
    .launch = fdx_cpu_launch,
    .copy_probe = cpu_copy_probe,
};

const fdx_backend *fdx_backend_cpu(void) { return &cpu_backend; }
