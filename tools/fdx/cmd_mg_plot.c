/* cmd_mg_plot: the residual history of a solve as a PNG (log scale, one
   grid line a decade, labelled with the io module's bitmap font). */
#include "cmd_mg.h"
#include "fdx/internal/io.h" /* the font */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put(fdx_image *img, int x, int y, const unsigned char *rgb)
{
    if (x < 0 || y < 0 || x >= img->width || y >= img->height) return;
    memcpy(img->pixels + 3 * ((size_t)y * (size_t)img->width + (size_t)x), rgb, 3);
}

static void line(fdx_image *img, int x0, int y0, int x1, int y1, const unsigned char *rgb)
{
    int steps = abs(x1 - x0) > abs(y1 - y0) ? abs(x1 - x0) : abs(y1 - y0);
    for (int t = 0; t <= steps; t++) {
        int x = x0 + (steps ? (x1 - x0) * t / steps : 0), y = y0 + (steps ? (y1 - y0) * t / steps : 0);
        put(img, x, y, rgb);
        put(img, x, y + 1, rgb);
    }
}

/* Text centred at cx with its top at y.  The font's mask has y upward
   (row 0 at the bottom, as the fields it raises letters from), so rows are
   read bottom-up. */
static fdx_status text(fdx_image *img, const char *s, int cx, int y, const unsigned char *rgb)
{
    enum { W = 160, H = 9 };
    unsigned char mask[W * H];
    if (fdx_font_text_width(s, 1) > W) return FDX_OK;
    FDX_TRY(fdx_font_render(s, 1, mask, W, H));
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++)
            if (mask[(H - 1 - j) * W + i]) put(img, cx - W / 2 + i, y + j, rgb);
    return FDX_OK;
}

fdx_status cmd_mg_plot(const char *path, const double *hist, int n, const char *title)
{
    const int W = 640, H = 400, L = 70, R = 20, T = 30, B = 40;
    static const unsigned char white[3] = {255, 255, 255}, grey[3] = {210, 210, 210}, black[3] = {0, 0, 0},
                               blue[3] = {31, 90, 180};
    double lo = 0;
    for (int i = 0; i < n; i++)
        if (hist[i] > 0 && log10(hist[i]) < lo) lo = log10(hist[i]);
    int decades = (int)ceil(-lo);
    if (decades < 1) decades = 1;
    fdx_image img;
    FDX_TRY(fdx_image_create(W, H, 3, &img));
    for (int i = 0; i < W * H; i++) memcpy(img.pixels + 3 * i, white, 3);
    const int pw = W - L - R, ph = H - T - B;
    fdx_status st = FDX_OK;
    for (int d = 0; d <= decades && st == FDX_OK; d++) {
        int y = T + ph * d / decades;
        line(&img, L, y, L + pw, y, grey);
        char lab[16];
        snprintf(lab, sizeof lab, "1E-%d", d);
        st = text(&img, d ? lab : "1", L - 30, y - 4, black);
    }
    line(&img, L, T, L, T + ph, black);
    line(&img, L, T + ph, L + pw, T + ph, black);
    int span = n > 1 ? n - 1 : 1;
    for (int i = 0; i < n; i++) {
        int x = L + pw * i / span;
        char lab[16];
        snprintf(lab, sizeof lab, "%d", i);
        if (n <= 30 || i % 5 == 0)
            if (st == FDX_OK) st = text(&img, lab, x, T + ph + 8, black);
    }
    for (int i = 0; i < n; i++) {
        double v = hist[i] > 0 ? log10(hist[i]) : -decades;
        int x = L + pw * i / span, y = T + (int)(ph * (-v) / decades);
        for (int dx = -2; dx <= 2; dx++)
            for (int dy = -2; dy <= 2; dy++) put(&img, x + dx, y + dy, blue);
        if (i > 0) {
            double pv = hist[i - 1] > 0 ? log10(hist[i - 1]) : -decades;
            line(&img, L + pw * (i - 1) / span, T + (int)(ph * (-pv) / decades), x, y, blue);
        }
    }
    if (st == FDX_OK) st = text(&img, title, W / 2, 10, black);
    if (st == FDX_OK) st = fdx_png_write(path, &img);
    fdx_image_free(&img);
    return st;
}
