/* test_io_images: checks that a PNG and an animated GIF are valid images of
   an expected size with non-trivial content.  With arguments
   (PNG GIF WIDTH HEIGHT MIN_FRAMES) it checks those files (cli_demo.sh uses
   it on fdx demo's pictures); without, it draws its own pair first. */
#include "fdx/internal/io.h"
#include "fdx_test.h"

#include <string.h>
#include <unistd.h>

/* Distinct colours, and the share of pixels unlike the first one. */
static void content(const unsigned char *px, size_t n, int channels, int *distinct, double *varied)
{
    static unsigned char seen[1 << 15];
    memset(seen, 0, sizeof seen);
    size_t differ = 0;
    *distinct = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = px + i * (size_t)channels;
        unsigned key = channels == 3 ? (unsigned)(p[0] >> 3) << 10 | (unsigned)(p[1] >> 3) << 5 | (unsigned)(p[2] >> 3) : p[0];
        if (!seen[key]) {
            seen[key] = 1;
            (*distinct)++;
        }
        if (memcmp(p, px, (size_t)channels) != 0) differ++;
    }
    *varied = (double)differ / (double)n;
}

static void check_pair(const char *png, const char *gif, int w, int h, int min_frames)
{
#ifdef FDX_HAVE_PNG
    fdx_image img;
    CHECK_OK(fdx_png_read(png, &img));
    if (img.pixels) {
        CHECK(img.width == w && img.height == h, "%s is %dx%d, expected %dx%d", png, img.width, img.height, w, h);
        int distinct;
        double varied;
        content(img.pixels, (size_t)img.width * img.height, 3, &distinct, &varied);
        CHECK(distinct >= 16 && varied > 0.05, "%s looks blank: %d colours, %.3f of pixels vary", png, distinct, varied);
        fdx_image_free(&img);
    }
#endif
    char *data = NULL;
    size_t n = 0;
    CHECK_OK(fdx_file_read(gif, 1 << 28, &data, &n));
    int gw = 0, gh = 0, frames = 0;
    fdx_image last;
    if (data) {
        CHECK_OK(fdx_gif_decode((unsigned char *)data, n, &gw, &gh, &frames, &last));
        CHECK(gw == w && gh == h, "%s is %dx%d, expected %dx%d", gif, gw, gh, w, h);
        CHECK(frames >= min_frames, "%s has %d frames, expected at least %d", gif, frames, min_frames);
        if (last.pixels) {
            int distinct;
            double varied;
            content(last.pixels, (size_t)gw * gh, 1, &distinct, &varied);
            CHECK(distinct >= 8 && varied > 0.05, "%s's last frame looks blank (%d levels)", gif, distinct);
            fdx_image_free(&last);
        }
        free(data);
    }
}

int main(int argc, char **argv)
{
    if (argc == 6) {
        check_pair(argv[1], argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
        return fdx_test_finish("test_io_images");
    }
    /* Self-check: a short heat run from letters drawn into both files. */
    fdx_ctx *ctx = fdx_test_ctx("cpu");
    if (!ctx) return fdx_test_skip("test_io_images", "no CPU context");
    char png[128], gif[128];
    snprintf(png, sizeof png, "/tmp/fdx_test_images.%ld.png", (long)getpid());
    snprintf(gif, sizeof gif, "/tmp/fdx_test_images.%ld.gif", (long)getpid());
    fdx_sim_config *c = NULL;
    fdx_sim *s = NULL;
    CHECK_OK(fdx_sim_config_create(FDX_SIM_HEAT, &c));
    CHECK_OK(fdx_sim_config_set(c, "size", "120x50"));
    CHECK_OK(fdx_sim_config_set(c, "text", "Hi!"));
    CHECK_OK(fdx_sim_create(ctx, c, &s));
    unsigned char pal[768];
    fdx_cmap_palette(FDX_CMAP_SEQUENTIAL, pal);
    fdx_gif *g = NULL;
    fdx_image idx = {0}, rgb = {0};
    double *u = malloc(120 * 50 * sizeof(double));
    CHECK_OK(fdx_gif_open(gif, 240, 100, pal, 5, &g));
    for (int f = 0; s && g && f < 5; f++) {
        for (int k = 0; k < 20; k++) CHECK_OK(fdx_sim_step(s));
        CHECK_OK(fdx_sim_get_field(s, u));
        fdx_image_free(&idx);
        CHECK_OK(fdx_image_from_field(u, 120, 50, 0, 1, 2, &idx));
        CHECK_OK(fdx_gif_add(g, &idx));
    }
    CHECK_OK(fdx_gif_close(&g));
    CHECK_OK(fdx_image_to_rgb(&idx, pal, &rgb));
#ifdef FDX_HAVE_PNG
    CHECK_OK(fdx_png_write(png, &rgb));
#endif
    check_pair(png, gif, 240, 100, 5);
    fdx_image_free(&idx);
    fdx_image_free(&rgb);
    free(u);
    unlink(png);
    unlink(gif);
    fdx_sim_destroy(&s);
    fdx_sim_config_destroy(&c);
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_io_images");
}
