/* fdx_ctx: the context picks a backend and a device from the options and
   carries them to every object created under it. */
#include "backends/fdx_backend.h"
#include "core/fdx_cache.h"
#include "core/fdx_log.h"
#include "fdx/internal/ctx.h"

#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

struct fdx_ctx {
    fdx_options *opts;
    const fdx_backend *ops;
    fdx_device_info dev;
    void *stream; /* the caller's stream for calls given none (NULL: default) */
};

int fdx_cuda_device_count(void)
{
    const fdx_backend *cuda = fdx_backend_cuda();
    return cuda ? cuda->device_count() : 0;
}

int fdx_built_with_cuda(void) { return fdx_backend_cuda() != NULL; }

static fdx_status copy_options(const fdx_options *src, fdx_options **dst)
{
    FDX_TRY(fdx_options_create(dst));
    if (!src) return FDX_OK;
    for (int i = 0; i < fdx_options_count(); i++) {
        const char *name, *env, *def, *help;
        fdx_options_describe(i, &name, &env, &def, &help);
        fdx_status st = fdx_options_set(*dst, name, fdx_options_get(src, name));
        if (st != FDX_OK) {
            fdx_options_destroy(dst);
            return st;
        }
    }
    return FDX_OK;
}

static fdx_status pick_backend(fdx_ctx *c)
{
    fdx_backend_kind want;
    FDX_TRY(fdx_backend_kind_parse(fdx_options_get(c->opts, "backend"), &want));
    int ordinal = atoi(fdx_options_get(c->opts, "device"));
    const fdx_backend *cuda = fdx_backend_cuda();
    fdx_clear_error(); /* device_count records why there is no device */
    int ndev = cuda ? cuda->device_count() : 0;

    if (want == FDX_BACKEND_CUDA || (want == FDX_BACKEND_AUTO && ndev > 0)) {
        FDX_CHECK(cuda, FDX_ERR_NO_DEVICE,
                  "backend cuda requested but this fdx was built without CUDA: rebuild with the CUDA toolkit, or use "
                  "--backend cpu");
        /* fdx_fail formats before it stores, so quoting the last error is safe. */
        FDX_CHECK(ndev > 0, FDX_ERR_NO_DEVICE, "backend cuda requested, but %s",
                  fdx_last_error()[0] ? fdx_last_error() : "no CUDA device was found");
        FDX_CHECK(ordinal < ndev, FDX_ERR_NO_DEVICE, "CUDA device %d requested but only %d found (0..%d)", ordinal,
                  ndev, ndev - 1);
        c->ops = cuda;
    } else {
        c->ops = fdx_backend_cpu();
        ordinal = 0;
    }
    /* NVRTC (110 MB) loads while the context is created. */
    if (c->ops->jit_preload) c->ops->jit_preload();
    FDX_TRY(c->ops->device_info(ordinal, &c->dev));
    FDX_TRY(c->ops->set_device(ordinal));
    FDX_INFO("backend %s, device %d: %s", c->ops->name, ordinal, c->dev.name);
    return FDX_OK;
}

fdx_status fdx_ctx_create(const fdx_options *opts, fdx_ctx **out)
{
    FDX_CHECK(out, FDX_ERR_INVALID, "fdx_ctx_create: out is NULL");
    *out = NULL;
    fdx_ctx *c = calloc(1, sizeof *c);
    FDX_CHECK(c, FDX_ERR_NOMEM, "out of memory creating a context");
    fdx_status st;
    FDX_TRY_GOTO(st, copy_options(opts, &c->opts), fail);

    fdx_log_level level;
    FDX_TRY_GOTO(st, fdx_log_level_parse(fdx_options_get(c->opts, "log"), &level), fail);
    fdx_log_set_level(level);
    FDX_TRY_GOTO(st, fdx_cache_set_dir(fdx_options_get(c->opts, "cache-dir")), fail);
#ifdef _OPENMP
    int threads = atoi(fdx_options_get(c->opts, "threads"));
    if (threads > 0) omp_set_num_threads(threads);
#endif
    FDX_TRY_GOTO(st, pick_backend(c), fail);
    *out = c;
    return FDX_OK;
fail:
    fdx_ctx_destroy(&c);
    return st;
}

void fdx_ctx_destroy(fdx_ctx **ctx)
{
    if (!ctx || !*ctx) return;
    fdx_options_destroy(&(*ctx)->opts);
    free(*ctx);
    *ctx = NULL;
}

/* The public getters answer "nothing" for a NULL context instead of crashing. */
fdx_backend_kind fdx_ctx_backend(const fdx_ctx *ctx) { return ctx ? ctx->ops->kind : FDX_BACKEND_AUTO; }
const char *fdx_ctx_device_name(const fdx_ctx *ctx) { return ctx ? ctx->dev.name : ""; }
const fdx_options *fdx_ctx_options(const fdx_ctx *ctx) { return ctx ? ctx->opts : NULL; }
size_t fdx_ctx_memory(const fdx_ctx *ctx) { return ctx ? ctx->dev.mem_total : 0; }
const fdx_backend *fdx_ctx_ops(const fdx_ctx *ctx) { return ctx->ops; }
const fdx_device_info *fdx_ctx_device(const fdx_ctx *ctx) { return &ctx->dev; }

/* A caller's CUDA stream (cudaStream_t) for every operation given a NULL
   stream; the CPU backend keeps it but runs synchronously. */
fdx_status fdx_ctx_set_stream(fdx_ctx *ctx, void *stream)
{
    FDX_CHECK(ctx, FDX_ERR_INVALID, "fdx_ctx_set_stream: context is NULL");
    ctx->stream = stream;
    return FDX_OK;
}
void *fdx_ctx_get_stream(const fdx_ctx *ctx) { return ctx ? ctx->stream : NULL; }
void *fdx_ctx_stream(const fdx_ctx *ctx, void *stream) { return stream ? stream : ctx->stream; }

fdx_status fdx_ctx_stream_create(fdx_ctx *ctx, void **stream)
{
    FDX_CHECK(ctx && stream, FDX_ERR_INVALID, "fdx_ctx_stream_create: NULL argument");
    FDX_TRY(ctx->ops->set_device(ctx->dev.ordinal));
    return ctx->ops->stream_create(stream);
}
void fdx_ctx_stream_destroy(fdx_ctx *ctx, void *stream)
{
    if (ctx && stream) ctx->ops->stream_destroy(stream);
}
fdx_status fdx_ctx_sync(fdx_ctx *ctx)
{
    FDX_CHECK(ctx, FDX_ERR_INVALID, "fdx_ctx_sync: context is NULL");
    return ctx->ops->stream_sync(ctx->stream);
}
