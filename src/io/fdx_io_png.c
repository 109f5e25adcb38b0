/* fdx_io_png: PNG files through libpng, written atomically. */
#include "core/fdx_error.h"
#include "fdx/io.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>

fdx_status fdx_png_write(const char *path, const fdx_image *img)
{
    FDX_CHECK(img && img->pixels && img->channels == 3, FDX_ERR_INVALID, "PNG '%s' needs an RGB image", path);
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    pi.width = (png_uint_32)img->width;
    pi.height = (png_uint_32)img->height;
    pi.format = PNG_FORMAT_RGB;
    /* Encode into memory first, then publish atomically. */
    png_alloc_size_t size = 0;
    if (!png_image_write_to_memory(&pi, NULL, &size, 0, img->pixels, 0, NULL))
        return fdx_fail(FDX_ERR_IO, "cannot encode PNG '%s': %s", path, pi.message);
    void *mem = malloc(size);
    FDX_CHECK(mem, FDX_ERR_NOMEM, "no memory to encode PNG '%s'", path);
    if (!png_image_write_to_memory(&pi, mem, &size, 0, img->pixels, 0, NULL)) {
        free(mem);
        return fdx_fail(FDX_ERR_IO, "cannot encode PNG '%s': %s", path, pi.message);
    }
    fdx_status st = fdx_file_write_atomic(path, mem, size);
    free(mem);
    return st;
}

fdx_status fdx_png_read(const char *path, fdx_image *out)
{
    memset(out, 0, sizeof *out);
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&pi, path))
        return fdx_fail(FDX_ERR_IO, "cannot read PNG '%s': %s", path, pi.message);
    pi.format = PNG_FORMAT_RGB;
    fdx_status st = fdx_image_create((int)pi.width, (int)pi.height, 3, out);
    if (st != FDX_OK) {
        png_image_free(&pi);
        return st;
    }
    if (!png_image_finish_read(&pi, NULL, out->pixels, 0, NULL)) {
        fdx_image_free(out);
        return fdx_fail(FDX_ERR_IO, "cannot decode PNG '%s': %s", path, pi.message);
    }
    return FDX_OK;
}
