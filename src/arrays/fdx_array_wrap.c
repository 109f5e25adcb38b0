/* fdx_array_wrap: arrays over memory the caller owns (NumPy, CuPy, PyTorch,
   another library's cudaMalloc), without a copy.  Strides that describe a
   dense array in some axis order become the array's layout (src/layout), so
   every operation sees the storage as it is; any other strides (gaps,
   overlaps, negative or broadcast strides) are refused when wrapping, since
   no fdx operation can work on them. */
#include "arrays/fdx_array_impl.h"

#include <stdlib.h>

/* Axis order (fastest first) under which `strides` are the dense strides of
   `shape`: extent-1 axes go where the identity puts them, the others by
   increasing stride.  The message names the first axis whose stride breaks
   density. */
static fdx_status dense_order(int rank, const int64_t *shape, const int64_t *strides, int *perm)
{
    int order[FDX_MAX_RANK], n = 0;
    for (int a = 0; a < rank; a++) {
        if (shape[a] == 1) continue;
        FDX_CHECK(strides[a] > 0, FDX_ERR_UNSUPPORTED,
                  "stride %lld of axis %d: fdx arrays need positive strides (no reversed or broadcast axes); "
                  "copy the array to a contiguous one first",
                  (long long)strides[a], a);
        int k = n++;
        while (k > 0 && strides[order[k - 1]] > strides[a]) order[k] = order[k - 1], k--;
        order[k] = a;
    }
    int64_t want = 1;
    for (int k = 0; k < n; k++) {
        int a = order[k];
        FDX_CHECK(strides[a] == want, FDX_ERR_UNSUPPORTED,
                  "stride %lld of axis %d (extent %lld) leaves the array non-contiguous (a dense array has %lld "
                  "there); fdx works on contiguous arrays only: copy it to a contiguous one first",
                  (long long)strides[a], a, (long long)shape[a], (long long)want);
        want *= shape[a];
    }
    /* Extent-1 axes keep their places; the others fill the rest in order. */
    int k = 0;
    for (int p = 0; p < rank; p++) perm[p] = shape[p] == 1 ? p : -1;
    for (int p = 0; p < rank; p++)
        if (perm[p] < 0) perm[p] = order[k++];
    return FDX_OK;
}

fdx_status fdx_array_wrap(fdx_ctx *ctx, fdx_dtype type, int rank, const int64_t *shape, const int64_t *strides,
                          void *host, void *device, unsigned flags, fdx_array **out)
{
    FDX_CHECK(out, FDX_ERR_INVALID, "fdx_array_wrap: out is NULL");
    *out = NULL;
    FDX_CHECK(ctx, FDX_ERR_INVALID, "fdx_array_wrap: context is NULL");
    size_t es = fdx_dtype_size(type);
    FDX_CHECK(es > 0, FDX_ERR_INVALID, "unknown element type %d", (int)type);
    FDX_CHECK(host || device, FDX_ERR_INVALID, "fdx_array_wrap: neither a host nor a device pointer given");
    unsigned given = (host ? FDX_ON_HOST : 0u) | (device ? FDX_ON_DEVICE : 0u);
    FDX_CHECK(!(flags & ~(unsigned)(FDX_ON_HOST | FDX_ON_DEVICE)), FDX_ERR_INVALID,
              "fdx_array_wrap: flags %u is not a combination of FDX_ON_HOST and FDX_ON_DEVICE", flags);
    FDX_CHECK(!(flags & ~given), FDX_ERR_INVALID, "fdx_array_wrap: flags name the %s copy as current, but no %s pointer "
              "was given", (flags & ~given) & FDX_ON_HOST ? "host" : "device", (flags & ~given) & FDX_ON_HOST ? "host" : "device");
    int cpu = fdx_ctx_backend(ctx) == FDX_BACKEND_CPU;
    FDX_CHECK(!cpu || !host || !device || host == device, FDX_ERR_INVALID,
              "fdx_array_wrap: the CPU backend keeps one storage, but host %p and device %p differ", host, device);
    /* Kernels read whole elements; CUDA kernels also read 16-byte vectors
       whose alignment they take from the index, so the base must be
       aligned to 16 bytes there (cudaMalloc gives 256). */
    FDX_CHECK(!host || (uintptr_t)host % es == 0, FDX_ERR_INVALID,
              "fdx_array_wrap: host pointer %p is not aligned to the %zu-byte element", host, es);
    if (device && !cpu) {
        FDX_CHECK((uintptr_t)device % 16 == 0, FDX_ERR_UNSUPPORTED,
                  "fdx_array_wrap: device pointer %p is not aligned to 16 bytes (fdx's CUDA kernels load 16-byte "
                  "vectors); pass a buffer from cudaMalloc or an aligned offset into one", device);
        const fdx_backend *be = fdx_ctx_ops(ctx);
        if (be->check_device_pointer) FDX_TRY(be->check_device_pointer(device, fdx_ctx_device(ctx)->ordinal, "device pointer"));
    }
    FDX_TRY(fdx_shape_check(rank, shape, 1, es));
    int perm[FDX_MAX_RANK];
    for (int a = 0; a < rank; a++) perm[a] = a;
    if (strides) FDX_TRY(dense_order(rank, shape, strides, perm));
    fdx_array *a;
    FDX_TRY(fdx_array_new(ctx, type, rank, shape, "fdx_array_wrap", &a));
    for (int i = 0; i < rank; i++) a->layout.perm[i] = perm[i]; /* the caller's axis order */
    if (cpu) {
        a->host = a->device = host ? host : device;
        a->borrowed = FDX_ON_HOST | FDX_ON_DEVICE;
        a->valid = FDX_ON_HOST | FDX_ON_DEVICE;
    } else {
        a->host = host;
        a->device = device;
        a->borrowed = given;
        a->valid = flags ? flags : given;
    }
    *out = a;
    return FDX_OK;
}

unsigned fdx_array_wrapped(const fdx_array *a) { return a ? a->borrowed : 0; }

fdx_status fdx_array_strides(const fdx_array *a, int64_t *strides)
{
    FDX_CHECK(a && strides, FDX_ERR_INVALID, "fdx_array_strides: NULL argument");
    FDX_CHECK(a->layout.diag == FDX_DIAG_NONE, FDX_ERR_UNSUPPORTED,
              "the array is stored along diagonals: its elements have no strides (convert it to a plain "
              "layout with fdx_array_set_layout first)");
    int64_t s = 1;
    for (int p = 0; p < a->rank; p++) {
        strides[a->layout.perm[p]] = s;
        s *= a->shape[a->layout.perm[p]];
    }
    return FDX_OK;
}
