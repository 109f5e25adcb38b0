/* fdx_io_annotate: a picture of a field that can be read on its own: a
   caption band on top (step and time) and a colour bar with its end values
   on the right, drawn in the palette's own colours so the frame stays an
   indexed image (the GIF takes it as it is, and a restart maps a PNG frame
   back to indices exactly). */
#include "core/fdx_error.h"
#include "fdx/internal/io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MARGIN = 4, BAR_WIDTH = 10, FONT_SCALE = 1, LABEL_CHARS = 10 };

static int luminance(const unsigned char *rgb) { return 299 * rgb[0] + 587 * rgb[1] + 114 * rgb[2]; }

/* Palette indices of the lightest and darkest colours: background and ink. */
static void paper_and_ink(const unsigned char palette[768], unsigned char *paper, unsigned char *ink)
{
    int hi = 0, lo = 0;
    for (int i = 1; i < 256; i++) {
        if (luminance(palette + 3 * i) > luminance(palette + 3 * hi)) hi = i;
        if (luminance(palette + 3 * i) < luminance(palette + 3 * lo)) lo = i;
    }
    *paper = (unsigned char)hi;
    *ink = (unsigned char)lo;
}

/* Writes text with its top-left corner at (x, y) of img (row 0 on top);
   the text is cut at the last character that fits in `room` pixels. */
static fdx_status draw_text(fdx_image *img, int x, int y, int room, const char *text, unsigned char ink)
{
    char buf[65];
    snprintf(buf, sizeof buf, "%s", text);
    size_t n = strlen(buf);
    while (n && fdx_font_text_width(buf, FONT_SCALE) > room) buf[--n] = '\0';
    if (!n) return FDX_OK;
    int w = fdx_font_text_width(buf, FONT_SCALE), h = fdx_font_height(FONT_SCALE);
    unsigned char *mask = malloc((size_t)w * (size_t)h);
    FDX_CHECK(mask, FDX_ERR_NOMEM, "out of memory drawing text '%s'", buf);
    fdx_status st = fdx_font_render(buf, FONT_SCALE, mask, w, h);
    for (int r = 0; st == FDX_OK && r < h; r++)
        for (int c = 0; c < w; c++)
            if (mask[(size_t)(h - 1 - r) * (size_t)w + (size_t)c]) /* mask row 0 is the bottom */
                img->pixels[(size_t)(y + r) * (size_t)img->width + (size_t)(x + c)] = ink;
    free(mask);
    return st;
}

fdx_status fdx_image_annotate(const fdx_image *field, const unsigned char palette[768], double lo, double hi,
                              const char *caption, fdx_image *out)
{
    FDX_CHECK(field && palette && out && field->pixels && field->channels == 1, FDX_ERR_INVALID,
              "fdx_image_annotate: needs an indexed (1-channel) image, a palette and an output");
    /* Labels of at most LABEL_CHARS characters ("%.3g" of any double), in a
       panel of that fixed width: every frame of a run has one size (a GIF
       needs it) whatever its values. */
    char top[32], bottom[32];
    snprintf(top, sizeof top, "%.3g", hi);
    snprintf(bottom, sizeof bottom, "%.3g", lo);
    int th = fdx_font_height(FONT_SCALE);
    const int label = 6 * LABEL_CHARS * FONT_SCALE - FONT_SCALE;
    const int band = caption && *caption ? th + 2 * MARGIN : MARGIN;
    const int panel = MARGIN + BAR_WIDTH + MARGIN + label + MARGIN;
    /* The bar spans the field's rows, and at least its two labels. */
    const int rows = field->height > 2 * th + MARGIN ? field->height : 2 * th + MARGIN;
    FDX_TRY(fdx_image_create(field->width + panel, band + rows + MARGIN, 1, out));
    unsigned char paper, ink;
    paper_and_ink(palette, &paper, &ink);
    memset(out->pixels, paper, (size_t)out->width * (size_t)out->height);
    for (int r = 0; r < field->height; r++)
        memcpy(out->pixels + (size_t)(band + r) * (size_t)out->width,
               field->pixels + (size_t)r * (size_t)field->width, (size_t)field->width);
    /* The bar: the top row is level 255 (hi), the bottom row level 0 (lo),
       framed in ink. */
    const int bx = field->width + MARGIN;
    for (int r = 0; r < rows; r++) {
        unsigned char level = (unsigned char)(rows > 1 ? (255 * (rows - 1 - r) + (rows - 1) / 2) / (rows - 1) : 255);
        unsigned char *row = out->pixels + (size_t)(band + r) * (size_t)out->width + (size_t)bx;
        for (int c = 0; c < BAR_WIDTH; c++)
            row[c] = (r == 0 || r == rows - 1 || c == 0 || c == BAR_WIDTH - 1) ? ink : level;
    }
    const int lx = bx + BAR_WIDTH + MARGIN;
    fdx_status st = draw_text(out, lx, band, label, top, ink);
    if (st == FDX_OK) st = draw_text(out, lx, band + rows - th, label, bottom, ink);
    if (st == FDX_OK && caption && *caption) st = draw_text(out, MARGIN, MARGIN, out->width - 2 * MARGIN, caption, ink);
    if (st != FDX_OK) fdx_image_free(out);
    return st;
}
