/* test_io: colour maps, GIF round trips through the decoder, PNG, the font,
   INI parsing with line numbers, checkpoints (round trip, damage), HDF5
   fields (round trip, truncation), XDMF, atomic writes. */
#include "fdx/internal/io.h"
#include "fdx_test.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static void test_cmaps(void)
{
    unsigned char p[768];
    fdx_cmap_palette(FDX_CMAP_SEQUENTIAL, p);
    /* Perceptual: luminance rises with the value. */
    double last = -1;
    int mono = 1;
    for (int i = 0; i < 256; i++) {
        double l = 0.2126 * p[3 * i] + 0.7152 * p[3 * i + 1] + 0.0722 * p[3 * i + 2];
        if (l < last - 1.0) mono = 0;
        last = l;
    }
    CHECK(mono, "sequential map luminance must rise");
    CHECK(p[0] + p[1] + p[2] < 30 && p[765] + p[766] + p[767] > 700, "sequential map runs dark to light");
    fdx_cmap_palette(FDX_CMAP_DIVERGING, p);
    /* Symmetric: equal lightness at equal distance from the middle. */
    for (int i = 0; i < 128; i++) {
        double a = p[3 * i] + p[3 * i + 1] + p[3 * i + 2], b = p[3 * (255 - i)] + p[3 * (255 - i) + 1] + p[3 * (255 - i) + 2];
        CHECK(fabs(a - b) < 60, "diverging lightness at %d: %g vs %g", i, a, b);
    }
    CHECK(p[3 * 0 + 2] > p[3 * 0], "diverging map starts blue");
    CHECK(p[3 * 255] > p[3 * 255 + 2], "diverging map ends red");
}

static unsigned char *slurp(const char *path, size_t *n)
{
    char *d = NULL;
    if (fdx_file_read(path, 1 << 28, &d, n) != FDX_OK) return NULL;
    return (unsigned char *)d;
}

static void gif_round_trip(int w, int h, int frames, int pattern)
{
    char path[320];
    snprintf(path, sizeof path, "%s/t.gif", dir);
    unsigned char pal[768];
    fdx_cmap_palette(FDX_CMAP_SEQUENTIAL, pal);
    fdx_gif *g = NULL;
    fdx_image img;
    CHECK_OK(fdx_image_create(w, h, 1, &img));
    CHECK_OK(fdx_gif_open(path, w, h, pal, 5, &g));
    uint64_t seed = 1234 + (uint64_t)pattern;
    for (int f = 0; f < frames && g; f++) {
        for (int i = 0; i < w * h; i++) {
            double r = fdx_test_rand(&seed);
            img.pixels[i] = pattern == 0   ? (unsigned char)(128 + 127 * r)           /* noise: table resets */
                            : pattern == 1 ? 7                                        /* one colour: long runs */
                                           : (unsigned char)((i / 3 + f) % 256);      /* ramps */
        }
        CHECK_OK(fdx_gif_add(g, &img));
    }
    CHECK_OK(fdx_gif_close(&g));
    size_t n;
    unsigned char *d = slurp(path, &n);
    CHECK(d != NULL, "GIF %s not written", path);
    int gw = 0, gh = 0, gf = 0;
    fdx_image last;
    if (d) {
        CHECK_OK(fdx_gif_decode(d, n, &gw, &gh, &gf, &last));
        CHECK(gw == w && gh == h && gf == frames, "GIF %dx%d x%d decoded as %dx%d x%d", w, h, frames, gw, gh, gf);
        CHECK(last.pixels && memcmp(last.pixels, img.pixels, (size_t)w * h) == 0,
              "GIF %dx%d pattern %d: last frame differs after decoding", w, h, pattern);
        fdx_image_free(&last);
        /* Any truncation must be an error, never a crash. */
        for (size_t cut = 0; cut < n; cut += n / 97 + 1) {
            int a, b, c;
            fdx_status st = fdx_gif_decode(d, cut, &a, &b, &c, NULL);
            CHECK(st != FDX_OK, "GIF truncated to %zu of %zu bytes decoded", cut, n);
        }
        free(d);
    }
    fdx_image_free(&img);
}

static void test_png(void)
{
#ifndef FDX_HAVE_PNG
    return;
#else
    char path[320];
    snprintf(path, sizeof path, "%s/t.png", dir);
    fdx_image a, b;
    CHECK_OK(fdx_image_create(37, 21, 3, &a));
    for (int i = 0; i < 37 * 21 * 3; i++) a.pixels[i] = (unsigned char)(i * 7);
    CHECK_OK(fdx_png_write(path, &a));
    CHECK_OK(fdx_png_read(path, &b));
    CHECK(b.width == 37 && b.height == 21 && b.pixels && memcmp(a.pixels, b.pixels, 37 * 21 * 3) == 0,
          "PNG round trip differs");
    fdx_image_free(&a);
    fdx_image_free(&b);
    CHECK_FAILS(fdx_png_write("/nonexistent-dir/x.png", &a), FDX_ERR_INVALID);
#endif
}

static void test_font(void)
{
    unsigned char m[60 * 20];
    CHECK_OK(fdx_font_render("fdx", 2, m, 60, 20));
    int on = 0;
    for (int i = 0; i < 60 * 20; i++) on += m[i];
    CHECK(on > 40 && on < 600, "letters cover %d cells", on);
    CHECK(fdx_font_text_width("fdx", 2) == 34, "width of 'fdx' at scale 2 is %d", fdx_font_text_width("fdx", 2));
    CHECK_FAILS(fdx_font_render("too long for this", 3, m, 60, 20), FDX_ERR_INVALID);
}

/* The annotated frame: the field unchanged below the caption band, a bar
   running from the palette's top level to its bottom, ink in the caption and
   the labels, palette indices only; on the diverging map too; a caption too
   wide is cut, not refused; a tiny field still gets a readable bar. */
static void check_annotated(int w, int h, fdx_cmap map, const char *caption)
{
    unsigned char pal[768];
    fdx_cmap_palette(map, pal);
    fdx_image f = {0}, a = {0};
    CHECK_OK(fdx_image_create(w, h, 1, &f));
    if (!f.pixels) return;
    for (int i = 0; i < w * h; i++) f.pixels[i] = (unsigned char)(i * 7 % 256);
    CHECK_OK(fdx_image_annotate(&f, pal, -0.25, 1.5, caption, &a));
    if (a.pixels) {
        CHECK(a.channels == 1 && a.width > w + 20 && a.height >= h, "annotated %dx%d from %dx%d", a.width, a.height, w, h);
        int band, same = 1;
        /* find the band: the first row equal to the field's first row */
        for (band = 0; band < a.height - h; band++)
            if (memcmp(a.pixels + (size_t)band * a.width, f.pixels, (size_t)w) == 0) break;
        for (int r = 0; r < h && band + r < a.height; r++)
            same &= memcmp(a.pixels + (size_t)(band + r) * a.width, f.pixels + (size_t)r * w, (size_t)w) == 0;
        CHECK(same, "the field is copied unchanged below a band of %d rows", band);
        CHECK(caption && *caption ? band >= 7 : band < 7, "caption band %d rows for '%s'", band, caption ? caption : "");
        /* the bar's inner column: 255 near the top, 0 near the bottom, monotone */
        int col = w + 4 + 5, prev = 256, mono = 1;
        int rows = h > 18 ? h : 18;
        for (int r = 1; r < rows - 1; r++) {
            int v = a.pixels[(size_t)(band + r) * a.width + col];
            mono &= v <= prev;
            prev = v;
        }
        int top = a.pixels[(size_t)(band + 1) * a.width + col], bot = a.pixels[(size_t)(band + rows - 2) * a.width + col];
        CHECK(mono && top >= 240 && bot <= 15, "bar from %d down to %d, monotone %d", top, bot, mono);
        /* labels: ink pixels right of the bar */
        int ink = 0;
        for (int r = band; r < a.height; r++)
            for (int c = w + 4 + 10 + 4; c < a.width; c++) ink += a.pixels[(size_t)r * a.width + c] != a.pixels[0];
        CHECK(ink > 20, "%d label pixels", ink);
    }
    fdx_image_free(&a);
    fdx_image_free(&f);
}

static void test_annotate(void)
{
    check_annotated(120, 50, FDX_CMAP_SEQUENTIAL, "step 200  t 0.125");
    check_annotated(300, 200, FDX_CMAP_DIVERGING, "step 1000000000000  t 123456.789 a long caption, longer than the frame");
    check_annotated(3, 2, FDX_CMAP_SEQUENTIAL, "step 0");
    check_annotated(64, 64, FDX_CMAP_SEQUENTIAL, NULL);
    {   /* the size does not depend on the values or the caption */
        unsigned char pal[768];
        fdx_cmap_palette(FDX_CMAP_DIVERGING, pal);
        fdx_image f = {0}, a1 = {0}, a2 = {0};
        CHECK_OK(fdx_image_create(50, 30, 1, &f));
        if (f.pixels) {
            memset(f.pixels, 7, 1500);
            CHECK_OK(fdx_image_annotate(&f, pal, -1.5e-300, 2.25e-300, "step 1", &a1));
            CHECK_OK(fdx_image_annotate(&f, pal, 0, 1, "step 100000  t 12345.6789", &a2));
            CHECK(a1.width == a2.width && a1.height == a2.height, "frames %dx%d and %dx%d", a1.width, a1.height,
                  a2.width, a2.height);
        }
        fdx_image_free(&a1);
        fdx_image_free(&a2);
        fdx_image_free(&f);
    }
    fdx_image rgb = {0}, out = {0};
    unsigned char pal[768];
    fdx_cmap_palette(FDX_CMAP_SEQUENTIAL, pal);
    CHECK_OK(fdx_image_create(4, 4, 3, &rgb));
    CHECK_FAILS(fdx_image_annotate(&rgb, pal, 0, 1, "x", &out), FDX_ERR_INVALID);
    fdx_image_free(&rgb);
}

typedef struct seen {
    int n;
    char last[64];
} seen;

static fdx_status count_pair(void *user, const char *section, const char *key, const char *value, int line)
{
    (void)section, (void)line;
    seen *s = user;
    s->n++;
    snprintf(s->last, sizeof s->last, "%s=%s", key, value);
    return FDX_OK;
}

static void test_ini(void)
{
    const char *good = "# comment\n[heat]\nsteps = 10 ; trailing\n receivers = 1,2;3,4\ntext = \"a # b\"\n";
    seen s = {0, ""};
    CHECK_OK(fdx_ini_parse(good, strlen(good), "good.ini", count_pair, &s));
    CHECK(s.n == 3 && strcmp(s.last, "text=a # b") == 0, "parsed %d pairs, last '%s'", s.n, s.last);
    const char *bad[] = {"steps 10\n", "[heat\n", "= 3\n", "a b = 3\n", "x = 1\n\0y = 2\n"};
    size_t lens[] = {9, 6, 4, 8, 13};
    for (int i = 0; i < 5; i++) {
        CHECK_FAILS(fdx_ini_parse(bad[i], lens[i], "bad.ini", count_pair, &s), FDX_ERR_INVALID);
        CHECK(strstr(fdx_last_error(), "bad.ini:") != NULL, "message '%s' lacks file:line", fdx_last_error());
    }
}

static void test_ckpt(void)
{
    char path[320];
    snprintf(path, sizeof path, "%s/c.fdx", dir);
    double u[6 * 5], v[6 * 5];
    uint64_t seed = 9;
    for (int i = 0; i < 30; i++) u[i] = fdx_test_rand(&seed), v[i] = fdx_test_rand(&seed);
    fdx_ckpt_info info = {42, 1.5, FDX_FLOAT64, 2, {6, 5, 1}, "steps = 7\n"};
    fdx_ckpt_field f[2] = {{"u", u}, {"u_prev", v}};
    CHECK_OK(fdx_ckpt_write(path, &info, f, 2));
    fdx_ckpt *c = NULL;
    CHECK_OK(fdx_ckpt_read(path, &c));
    if (c) {
        const fdx_ckpt_info *in = fdx_ckpt_get_info(c);
        CHECK(in->step == 42 && in->time == 1.5 && in->rank == 2 && strcmp(in->config, "steps = 7\n") == 0,
              "checkpoint header differs");
        CHECK(memcmp(fdx_ckpt_get_field(c, "u"), u, sizeof u) == 0, "field u differs");
        CHECK(memcmp(fdx_ckpt_get_field(c, "u_prev"), v, sizeof v) == 0, "field u_prev differs");
        CHECK(fdx_ckpt_get_field(c, "w") == NULL, "unknown field found");
        fdx_ckpt_free(&c);
    }
    size_t n;
    unsigned char *d = slurp(path, &n);
    if (d) {
        for (size_t cut = 0; cut < n; cut += 13) CHECK_FAILS(fdx_ckpt_parse(d, cut, &c), FDX_ERR_INVALID);
        d[n / 2] ^= 1;
        CHECK_FAILS(fdx_ckpt_parse(d, n, &c), FDX_ERR_INVALID);
        free(d);
    }
    /* No temporary file ("<name>.tmp.<pid>.<n>") is left behind. */
    DIR *dd = opendir(dir);
    for (struct dirent *e; dd && (e = readdir(dd));) CHECK(!strstr(e->d_name, ".tmp."), "temporary %s left behind", e->d_name);
    if (dd) closedir(dd);
}

static void test_hdf5(void)
{
#ifndef FDX_HAVE_HDF5
    return;
#else
    char path[320], xdmf[320];
    snprintf(path, sizeof path, "%s/f.h5", dir);
    snprintf(xdmf, sizeof xdmf, "%s/f.xdmf", dir);
    float u[4 * 3 * 2];
    for (int i = 0; i < 24; i++) u[i] = (float)i * 0.5f;
    int64_t shape[3] = {4, 3, 2};
    CHECK_OK(fdx_h5_write_field(path, "u", u, FDX_FLOAT32, 3, shape, 0.25, 3));
    double *back = NULL;
    int rank = 0;
    int64_t s2[3] = {0};
    CHECK_OK(fdx_h5_read_field(path, NULL, &back, &rank, s2));
    CHECK(rank == 3 && s2[0] == 4 && s2[1] == 3 && s2[2] == 2, "HDF5 shape %lldx%lldx%lld", (long long)s2[0],
          (long long)s2[1], (long long)s2[2]);
    for (int i = 0; back && i < 24; i++) CHECK(back[i] == u[i], "HDF5 value %d: %g vs %g", i, back[i], (double)u[i]);
    free(back);
    /* Truncated copies are refused with a message. */
    size_t n;
    unsigned char *d = slurp(path, &n);
    char cut_path[330];
    snprintf(cut_path, sizeof cut_path, "%s/cut.h5", dir);
    for (size_t cut = 0; d && cut < n; cut += n / 7 + 1) {
        CHECK_OK(fdx_file_write_atomic(cut_path, d, cut));
        fdx_clear_error();
        fdx_status st = fdx_h5_read_field(cut_path, NULL, &back, &rank, s2);
        CHECK(st != FDX_OK && fdx_last_error()[0], "truncated HDF5 (%zu of %zu bytes) was read", cut, n);
        if (st == FDX_OK) free(back);
    }
    free(d);
    fdx_xdmf_entry e[2] = {{0.0, "f.h5", "u"}, {0.25, "g.h5", "u"}};
    double h[3] = {0.1, 0.1, 0.1};
    CHECK_OK(fdx_xdmf_write(xdmf, "u", FDX_FLOAT32, 3, shape, h, e, 2));
    char *text = NULL;
    CHECK_OK(fdx_file_read(xdmf, 1 << 20, &text, &n));
    CHECK(text && strstr(text, "CollectionType=\"Temporal\"") && strstr(text, "g.h5:/u") &&
              strstr(text, "Dimensions=\"2 3 4\""),
          "XDMF text lacks the time series");
    free(text);
#endif
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/fdx_test_io.%ld", (long)getpid());
    mkdir(dir, 0755);
    test_cmaps();
    gif_round_trip(1, 1, 1, 1);
    gif_round_trip(300, 200, 2, 0);
    gif_round_trip(64, 64, 3, 1);
    gif_round_trip(257, 129, 2, 2);
    test_png();
    test_font();
    test_annotate();
    test_ini();
    test_ckpt();
    test_hdf5();
    CHECK_FAILS(fdx_dir_prepare("/proc/forbidden/x"), FDX_ERR_IO);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return fdx_test_finish("test_io");
}
