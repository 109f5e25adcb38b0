/* fdx_comm_pack.cu: the CUDA strided box copy (shadow pack/unpack), one
   thread per element, with a C launcher. */
#include "backends/cuda/fdx_cuda.h"
#include "comm/fdx_comm_dev.h"

namespace {

struct box_args {
    char *dst;
    const char *src;
    long long dn0, dn1, dlo0, dlo1, dlo2;
    long long sn0, sn1, slo0, slo1, slo2;
    long long bx, by, bz;
};

/* T is a type of the element's size, so each element moves in one access. */
template <typename T>
__global__ void box_copy_kernel(box_args a)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long j = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= a.bx || j >= a.by) return;
    for (long long k = blockIdx.z; k < a.bz; k += gridDim.z) {
        long long s = a.slo0 + i + a.sn0 * ((a.slo1 + j) + a.sn1 * (a.slo2 + k));
        long long d = a.dlo0 + i + a.dn0 * ((a.dlo1 + j) + a.dn1 * (a.dlo2 + k));
        reinterpret_cast<T *>(a.dst)[d] = reinterpret_cast<const T *>(a.src)[s];
    }
}

} // namespace

extern "C" fdx_status fdx_comm_box_copy_cuda(const fdx_box_copy *c, void *stream)
{
    box_args a = {(char *)c->dst, (const char *)c->src, c->dn[0], c->dn[1], c->dlo[0], c->dlo[1], c->dlo[2],
                  c->sn[0], c->sn[1], c->slo[0], c->slo[1], c->slo[2], c->box[0], c->box[1], c->box[2]};
    /* Wide blocks along x for coalescing; short boxes along x (faces of
       the x axis) get more threads along y instead. */
    unsigned tx = c->box[0] >= 128 ? 128 : c->box[0] >= 32 ? 32 : 8;
    unsigned ty = 256 / tx;
    long long gx = (c->box[0] + tx - 1) / tx, gy = (c->box[1] + ty - 1) / ty;
    long long gz = c->box[2] < 65535 ? c->box[2] : 65535;
    if (gx > 2147483647LL || gy > 65535)
        return fdx_fail(FDX_ERR_UNSUPPORTED, "shadow face %lldx%lldx%lld too large for one pack launch",
                        (long long)c->box[0], (long long)c->box[1], (long long)c->box[2]);
    dim3 grid((unsigned)gx, (unsigned)gy, (unsigned)gz), block(tx, ty, 1);
    cudaStream_t s = (cudaStream_t)stream;
    switch (c->elem) {
    case 4: box_copy_kernel<float><<<grid, block, 0, s>>>(a); break;
    case 8: box_copy_kernel<double><<<grid, block, 0, s>>>(a); break;
    case 2: box_copy_kernel<short><<<grid, block, 0, s>>>(a); break;
    case 1: box_copy_kernel<char><<<grid, block, 0, s>>>(a); break;
    default: return fdx_fail(FDX_ERR_UNSUPPORTED, "element size %zu has no pack kernel", c->elem);
    }
    FDX_CUDA_CHECK_LAUNCH("box_copy_kernel");
    return FDX_OK;
}
