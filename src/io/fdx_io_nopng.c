/* fdx_io_nopng: stand-ins when fdx is built without libpng. */
#include "core/fdx_error.h"
#include "fdx/io.h"

#include <string.h>

fdx_status fdx_png_write(const char *path, const fdx_image *img)
{
    (void)img;
    return fdx_fail(FDX_ERR_UNSUPPORTED, "cannot write '%s': fdx was built without libpng", path);
}

fdx_status fdx_png_read(const char *path, fdx_image *out)
{
    memset(out, 0, sizeof *out);
    return fdx_fail(FDX_ERR_UNSUPPORTED, "cannot read '%s': fdx was built without libpng", path);
}
