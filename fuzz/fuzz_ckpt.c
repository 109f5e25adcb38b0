/* fuzz_ckpt: libFuzzer target for the checkpoint reader. */
#include "fdx.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fdx_ckpt *c = NULL;
    if (fdx_ckpt_parse(data, size, &c) == FDX_OK) {
        const fdx_ckpt_info *in = fdx_ckpt_get_info(c);
        size_t n = fdx_dtype_size(in->type);
        for (int d = 0; d < in->rank; d++) n *= (size_t)in->shape[d];
        const unsigned char *u = fdx_ckpt_get_field(c, "u");
        volatile unsigned sum = 0;
        for (size_t i = 0; u && i < n; i++) sum += u[i]; /* every byte must be readable */
        fdx_ckpt_free(&c);
    }
    return 0;
}
