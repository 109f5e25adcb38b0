/* fdx_mg_nocuda: stand-ins for the CUDA kernels table in a build without
   CUDA (the solver then refuses CUDA contexts with FDX_ERR_UNSUPPORTED). */
#include "mg/fdx_mg_impl.h"

const mg_ops *mg_cuda_ops(void) { return NULL; }

fdx_status mg_cuda_alloc(size_t bytes, void **out)
{
    (void)bytes;
    *out = NULL;
    return fdx_fail(FDX_ERR_UNSUPPORTED, "multigrid: this build has no CUDA");
}

void mg_cuda_free(void *p) { (void)p; }

fdx_status mg_cuda_upload(void *dst, const void *src, size_t bytes)
{
    (void)dst, (void)src, (void)bytes;
    return fdx_fail(FDX_ERR_UNSUPPORTED, "multigrid: this build has no CUDA");
}

fdx_status mg_cuda_upload_transfer(const mg_transfer *h, mg_transfer *d, int64_t m, int64_t M)
{
    (void)h, (void)d, (void)m, (void)M;
    return fdx_fail(FDX_ERR_UNSUPPORTED, "multigrid: this build has no CUDA");
}

void mg_cuda_free_transfer(mg_transfer *d) { (void)d; }

fdx_status mg_cuda_download(void *dst, const void *src, size_t bytes)
{
    (void)dst, (void)src, (void)bytes;
    return fdx_fail(FDX_ERR_UNSUPPORTED, "multigrid: this build has no CUDA");
}

fdx_status mg_cuda_stream_create(void **out)
{
    *out = NULL;
    return fdx_fail(FDX_ERR_UNSUPPORTED, "multigrid: this build has no CUDA");
}

void mg_cuda_stream_destroy(void *stream) { (void)stream; }
void mg_cuda_use_stream(void *stream) { (void)stream; }

fdx_status mg_cuda_order(void *waiter, void *signaller, void *event)
{
    (void)waiter, (void)signaller, (void)event;
    return fdx_fail(FDX_ERR_UNSUPPORTED, "multigrid: this build has no CUDA");
}

fdx_status mg_cuda_stream_sync(void *stream)
{
    (void)stream;
    return fdx_fail(FDX_ERR_UNSUPPORTED, "multigrid: this build has no CUDA");
}

void *mg_cuda_current_stream(void) { return NULL; }

fdx_status mg_cuda_event_create(void **out)
{
    *out = NULL;
    return fdx_fail(FDX_ERR_UNSUPPORTED, "multigrid: this build has no CUDA");
}

void mg_cuda_event_destroy(void *event) { (void)event; }
int mg_cuda_reaches(const void *from, const void *to)
{
    (void)from, (void)to;
    return 0;
}
int mg_cuda_graph_cycle(fdx_solver *s, fdx_solver_cycle c, const mg_graph_hooks *h)
{
    (void)s, (void)c, (void)h;
    return 0;
}
void mg_cuda_graph_free(fdx_solver *s) { (void)s; }
void mg_cuda_resnorm2_launch(const mg_level *L, const double *u, const double *f) { (void)L, (void)u, (void)f; }
double mg_cuda_sum_read(const mg_level *L)
{
    (void)L;
    return 0;
}
