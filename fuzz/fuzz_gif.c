/* fuzz_gif: libFuzzer target for the GIF decoder. */
#include "fdx.h"
#include "fdx/internal/io.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int w, h, frames;
    fdx_image last;
    if (size > (1 << 20)) return 0;
    if (fdx_gif_decode(data, size, &w, &h, &frames, &last) == FDX_OK) fdx_image_free(&last);
    return 0;
}
