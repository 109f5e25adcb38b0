/* fdx_timing: median-of-N timing with the backend's events, and the copy
   bandwidth probe that every benchmark compares itself with. */
#include "backends/fdx_backend.h"
#include "core/fdx_log.h"
#include "fdx/metrics.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void summarize(double *t, int n, fdx_time_stats *out)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    double sum = 0;
    for (int i = 0; i < n; i++) sum += t[i];
    out->reps = n;
    out->min_ms = t[0];
    out->max_ms = t[n - 1];
    out->mean_ms = sum / n;
    out->median_ms = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

fdx_status fdx_time_run(fdx_ctx *ctx, fdx_timed_fn fn, void *arg, int warmup, int reps,
                        fdx_time_stats *out)
{
    FDX_CHECK(ctx && fn && out, FDX_ERR_INVALID, "fdx_time_run: NULL argument");
    FDX_CHECK(reps >= 1 && reps <= 1000000, FDX_ERR_INVALID, "repetitions %d out of range 1..1000000", reps);
    FDX_CHECK(warmup >= 0, FDX_ERR_INVALID, "warm-up count %d is negative", warmup);
    const fdx_backend *be = fdx_ctx_ops(ctx);
    void *stream = NULL, *ev[2] = {NULL, NULL};
    double *t = malloc(sizeof(double) * (size_t)reps);
    FDX_CHECK(t, FDX_ERR_NOMEM, "out of memory for %d timings", reps);
    fdx_status st;
    FDX_TRY_GOTO(st, be->stream_create(&stream), done);
    FDX_TRY_GOTO(st, be->event_create(&ev[0]), done);
    FDX_TRY_GOTO(st, be->event_create(&ev[1]), done);
    for (int i = 0; i < warmup; i++) FDX_TRY_GOTO(st, fn(arg, stream), done);
    FDX_TRY_GOTO(st, be->stream_sync(stream), done);
    for (int i = 0; i < reps; i++) {
        FDX_TRY_GOTO(st, be->event_record(ev[0], stream), done);
        FDX_TRY_GOTO(st, fn(arg, stream), done);
        FDX_TRY_GOTO(st, be->event_record(ev[1], stream), done);
        FDX_TRY_GOTO(st, be->event_elapsed_ms(ev[0], ev[1], &t[i]), done);
    }
    FDX_TRY_GOTO(st, be->stream_sync(stream), done);
    summarize(t, reps, out);
done:
    be->event_destroy(ev[0]);
    be->event_destroy(ev[1]);
    be->stream_destroy(stream);
    free(t);
    return st;
}

struct copy_args {
    const fdx_backend *be;
    void *dst, *src;
    size_t bytes;
};

static fdx_status copy_once(void *arg, void *stream)
{
    struct copy_args *c = arg;
    return c->be->copy_probe(c->dst, c->src, c->bytes, stream);
}

/* Four times the last-level cache (the two buffers are eight times it, so
   the copy streams from memory; H100: 50 MiB L2, 200 MiB buffers), at least
   32 MiB and at most 1 GiB; 256 MiB when the cache size is unknown.  A 1 GiB
   probe of the CPU page-faulted 2 GiB (5 s of CPU) on every `fdx info`. */
size_t fdx_copy_probe_bytes(const fdx_device_info *dev)
{
    size_t llc = dev ? dev->l2_bytes : 0;
    if (llc == 0) return (size_t)256 << 20;
    size_t b = 4 * llc;
    return b < ((size_t)32 << 20) ? (size_t)32 << 20 : b > ((size_t)1 << 30) ? (size_t)1 << 30 : b;
}

fdx_status fdx_copy_bandwidth(fdx_ctx *ctx, size_t bytes, int reps, fdx_time_stats *time, double *gbps)
{
    FDX_CHECK(ctx && gbps, FDX_ERR_INVALID, "fdx_copy_bandwidth: NULL argument");
    if (bytes == 0) bytes = fdx_copy_probe_bytes(fdx_ctx_device(ctx));
    if (reps <= 0) reps = 20;
    const fdx_backend *be = fdx_ctx_ops(ctx);
    struct copy_args c = {be, NULL, NULL, bytes};
    fdx_time_stats ts;
    fdx_status st;
    FDX_TRY_GOTO(st, be->alloc(bytes, &c.src), done);
    FDX_TRY_GOTO(st, be->alloc(bytes, &c.dst), done);
    /* Touch both buffers first so the probe measures copies, not page faults. */
    FDX_TRY_GOTO(st, be->memset(c.src, 1, bytes, NULL), done);
    FDX_TRY_GOTO(st, be->memset(c.dst, 2, bytes, NULL), done);
    FDX_TRY_GOTO(st, be->device_sync(), done);
    FDX_TRY_GOTO(st, fdx_time_run(ctx, copy_once, &c, 3, reps, &ts), done);
    *gbps = fdx_effective_gbps((double)bytes, (double)bytes, ts.median_ms);
    if (time) *time = ts;
    FDX_DEBUG("copy probe: %zu bytes, median %.3f ms, %.1f GB/s", bytes, ts.median_ms, *gbps);
done:
    be->free(c.src);
    be->free(c.dst);
    return st;
}

double fdx_effective_gbps(double fetch_bytes, double write_bytes, double ms)
{
    return ms > 0 ? (fetch_bytes + write_bytes) / (ms * 1e-3) / 1e9 : 0.0;
}
