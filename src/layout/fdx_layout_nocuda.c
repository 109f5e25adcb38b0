/* fdx_layout_nocuda: stands in for the CUDA transforms in builds without CUDA
   (never reached: such a build has no CUDA context). */
#include "layout/fdx_layout_plan.h"

static fdx_status no_cuda(void) { return fdx_fail(FDX_ERR_UNSUPPORTED, "fdx was built without CUDA"); }

fdx_status fdx_layout_cuda_perm(void *dst, const void *src, const fdx_perm_plan *p, void *stream)
{
    (void)dst, (void)src, (void)p, (void)stream;
    return no_cuda();
}

fdx_status fdx_layout_cuda_diag(void *dst, const void *src, const fdx_diag_plan *p, void *stream)
{
    (void)dst, (void)src, (void)p, (void)stream;
    return no_cuda();
}

fdx_status fdx_layout_cuda_box(void *array, void *plain, const fdx_box_plan *p, void *stream)
{
    (void)array, (void)plain, (void)p, (void)stream;
    return no_cuda();
}

fdx_status fdx_layout_cuda_emulate(void *dst, const void *src, const fdx_perm_plan *p)
{
    (void)dst, (void)src, (void)p;
    return no_cuda();
}

int fdx_layout_cuda_gather_layout(const fdx_perm_plan *p)
{
    (void)p;
    return 1;
}
