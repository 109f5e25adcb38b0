/* fdx_io_cmap: colour maps computed by formula, and fields mapped to images. */
#include "core/fdx_error.h"
#include "fdx/io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static unsigned char to_byte(double x)
{
    if (!(x > 0)) return 0;
    if (x >= 1) return 255;
    return (unsigned char)lround(x * 255.0);
}

/* Cubehelix (D. A. Green 2011): a helix around the grey diagonal of the RGB
   cube whose perceived brightness rises monotonically, so the picture reads
   the same in grey.  Start colour, rotations and hue chosen for a dark blue
   to warm white ramp. */
static void cubehelix(double t, double rgb[3])
{
    const double start = 0.5, rotations = -1.4, hue = 1.4, gamma = 1.0;
    double l = pow(t, gamma);
    double a = hue * l * (1 - l) / 2;
    double phi = 2 * M_PI * (start / 3 + rotations * t);
    double c = cos(phi), s = sin(phi);
    rgb[0] = l + a * (-0.14861 * c + 1.78277 * s);
    rgb[1] = l + a * (-0.29227 * c - 0.90649 * s);
    rgb[2] = l + a * (1.97294 * c);
}

/* Diverging: white in the middle, saturating to blue below and red above,
   with the same lightness drop on both sides so +x and -x look alike. */
static void diverging(double t, double rgb[3])
{
    static const double lo[3] = {0.13, 0.30, 0.70}, hi[3] = {0.75, 0.10, 0.12}, mid[3] = {0.97, 0.97, 0.97};
    double s = 2 * t - 1;
    const double *end = s < 0 ? lo : hi;
    double w = pow(fabs(s), 0.8);
    for (int c = 0; c < 3; c++) rgb[c] = mid[c] * (1 - w) + end[c] * w;
}

void fdx_cmap_rgb(fdx_cmap map, double t, unsigned char rgb[3])
{
    if (!(t >= 0)) t = 0;
    if (t > 1) t = 1;
    double v[3];
    if (map == FDX_CMAP_DIVERGING) diverging(t, v);
    else cubehelix(t, v);
    for (int c = 0; c < 3; c++) rgb[c] = to_byte(v[c]);
}

void fdx_cmap_palette(fdx_cmap map, unsigned char palette[768])
{
    for (int i = 0; i < 256; i++) fdx_cmap_rgb(map, i / 255.0, palette + 3 * i);
}

fdx_status fdx_image_create(int width, int height, int channels, fdx_image *out)
{
    memset(out, 0, sizeof *out);
    FDX_CHECK(width > 0 && height > 0 && width <= 65535 && height <= 65535, FDX_ERR_INVALID,
              "image size %dx%d must be 1..65535 per side", width, height);
    FDX_CHECK(channels == 1 || channels == 3, FDX_ERR_INVALID, "image channels %d must be 1 or 3", channels);
    out->pixels = calloc((size_t)width * height, (size_t)channels);
    FDX_CHECK(out->pixels, FDX_ERR_NOMEM, "no memory for a %dx%d image", width, height);
    out->width = width;
    out->height = height;
    out->channels = channels;
    return FDX_OK;
}

void fdx_image_free(fdx_image *img)
{
    if (!img) return;
    free(img->pixels);
    memset(img, 0, sizeof *img);
}

fdx_status fdx_image_from_field(const double *v, int nx, int ny, double lo, double hi, int scale, fdx_image *out)
{
    FDX_CHECK(v && nx > 0 && ny > 0, FDX_ERR_INVALID, "field of %dx%d cells cannot be drawn", nx, ny);
    FDX_CHECK(scale >= 1 && scale <= 64, FDX_ERR_INVALID, "image scale %d must be 1..64", scale);
    FDX_CHECK(isfinite(lo) && isfinite(hi) && hi > lo, FDX_ERR_INVALID, "colour range [%g, %g] is empty", lo, hi);
    FDX_CHECK((int64_t)nx * scale <= 65535 && (int64_t)ny * scale <= 65535, FDX_ERR_INVALID,
              "image of %dx%d cells at scale %d is too large", nx, ny, scale);
    FDX_TRY(fdx_image_create(nx * scale, ny * scale, 1, out));
    double k = 255.0 / (hi - lo);
    for (int y = 0; y < out->height; y++) {
        const double *row = v + (int64_t)nx * (ny - 1 - y / scale);
        unsigned char *dst = out->pixels + (size_t)y * out->width;
        for (int x = 0; x < out->width; x++) {
            double q = (row[x / scale] - lo) * k;
            dst[x] = !(q > 0) ? 0 : q >= 255 ? 255 : (unsigned char)(q + 0.5);
        }
    }
    return FDX_OK;
}

fdx_status fdx_image_to_rgb(const fdx_image *in, const unsigned char palette[768], fdx_image *out)
{
    FDX_CHECK(in && in->channels == 1, FDX_ERR_INVALID, "palette expansion needs an indexed image");
    FDX_TRY(fdx_image_create(in->width, in->height, 3, out));
    size_t n = (size_t)in->width * in->height;
    for (size_t i = 0; i < n; i++) memcpy(out->pixels + 3 * i, palette + 3 * in->pixels[i], 3);
    return FDX_OK;
}
