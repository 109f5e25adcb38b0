/* The stencil configuration's one table (src/stencil/fdx_stencil_cfg.def):
   every knob the generator builds into a kernel gives a kernel of its own in
   the process's kernel table (the key once left out zs, so two
   configurations differing only in zs shared one kernel), run-time knobs
   share one; the tuning file's text reads back as the same configuration,
   older files without the last field read it as its default, and values out
   of range are refused.  Uses a stand-in CUDA backend whose JIT counts its
   loads, so no GPU is needed. */
#include "fdx_test.h"
#include "stencil/fdx_stencil_cache.h"

#include <stdint.h>
#include <string.h>

static int loads;

static fdx_status fake_jit(const fdx_device_info *dev, const char *source, const char *entry, const char *what,
                           fdx_kernel **out)
{
    (void)dev, (void)entry, (void)what;
    CHECK(source && strstr(source, "__global__"), "CUDA source handed to the JIT");
    *out = (fdx_kernel *)(uintptr_t)(0x1000 + 16 * ++loads); /* never dereferenced */
    return FDX_OK;
}

static fdx_kernel *get(const fdx_backend *be, const fdx_device_info *dev, const fdx_stencil_kspec *ks,
                       const fdx_stencil_cfg *cfg, const char *what)
{
    fdx_kernel *k = NULL;
    fdx_status st = fdx_stencil_kernel_get(be, dev, ks, cfg, &k);
    CHECK(st == FDX_OK, "%s: %s", what, fdx_last_error());
    return k;
}

static void test_kernel_key(void)
{
    fdx_backend be;
    memset(&be, 0, sizeof be);
    be.name = "fake-cuda";
    be.kind = FDX_BACKEND_CUDA;
    be.jit_load = fake_jit;
    fdx_device_info dev;
    memset(&dev, 0, sizeof dev);
    snprintf(dev.name, sizeof dev.name, "fake device");
    fdx_stencil_kspec ks = {1, 3, 2, FDX_UPDATE_WAVE, 0, 0, 0};
    /* The asynchronous march with and without the column from the stages. */
    fdx_stencil_cfg a = {.variant = FDX_SV_ASYNC, .tx = 32, .ty = 8, .vec = 2, .chunk = 16, .by = 1, .pd = 2};
    fdx_stencil_cfg z = a;
    z.zs = 1;
    int before = loads;
    fdx_kernel *ka = get(&be, &dev, &ks, &a, "async"), *kz = get(&be, &dev, &ks, &z, "async zs");
    CHECK(ka && kz && ka != kz, "configurations differing only in zs share one kernel");
    CHECK(loads == before + 2, "zs: %d loads, want 2", loads - before);
    CHECK(get(&be, &dev, &ks, &z, "async zs again") == kz, "the same configuration loads once");
    fdx_stencil_cfg h = a;
    h.zh = 1;
    fdx_kernel *kh = get(&be, &dev, &ks, &h, "async zh");
    CHECK(kh && kh != ka && kh != kz, "configurations differing only in zh share one kernel");
    fdx_stencil_cfg y = a;
    y.ry = 2;
    fdx_kernel *ky0 = get(&be, &dev, &ks, &y, "async ry2");
    y.ys = 1;
    fdx_kernel *ky = get(&be, &dev, &ks, &y, "async ry2 ys");
    CHECK(ky && ky0 && ky != ky0, "configurations differing only in ys share one kernel");
    y.b2 = 1;
    fdx_kernel *kb = get(&be, &dev, &ks, &y, "async ry2 ys b2");
    CHECK(kb && kb != ky, "configurations differing only in b2 share one kernel");
    y.uz = 1;
    fdx_kernel *kuz = get(&be, &dev, &ks, &y, "async ry2 ys b2 uz");
    CHECK(kuz && kuz != kb, "configurations differing only in uz share one kernel");
    /* Every knob baked into an unrolled kernel: a kernel of its own. */
    fdx_stencil_cfg u = {.variant = FDX_SV_UNROLL, .tx = 32, .ty = 4, .vec = 2, .chunk = 8, .by = 1, .pd = 4};
    fdx_kernel *ku = get(&be, &dev, &ks, &u, "unroll");
    static const char *name[] = {"tx", "ty", "vec", "pd", "zfast", "pipe", "win", "minb", "xv", "band", "ry"};
    for (int i = 0; i < 11; i++) {
        fdx_stencil_cfg c = u;
        int *f[] = {&c.tx, &c.ty, &c.vec, &c.pd, &c.zfast, &c.pipe, &c.win, &c.minb, &c.xv, &c.band, &c.ry};
        static const int value[] = {64, 8, 1, 2, 1, 1, 1, 2, 1, 4, 2};
        *f[i] = value[i];
        before = loads;
        fdx_kernel *k = get(&be, &dev, &ks, &c, name[i]);
        CHECK(k && k != ku && loads == before + 1, "unroll with another %s shares a kernel", name[i]);
    }
    /* Run-time knobs: the same kernel (chunk stays a march of groups). */
    fdx_stencil_cfg r = u;
    r.chunk = 24, r.by = 7;
    before = loads;
    CHECK(get(&be, &dev, &ks, &r, "chunk") == ku && loads == before, "another chunk compiled another kernel");
    /* One group per block (chunk == pd) is straight-line code: its own. */
    r.chunk = r.pd;
    CHECK(get(&be, &dev, &ks, &r, "single group") != ku, "a single group shares the march's kernel");
}

static void test_file_text(void)
{
    fdx_stencil_cfg c = {.variant = FDX_SV_ASYNC, .tx = 64, .ty = 8, .vec = 2, .chunk = 112, .by = 3, .pd = 2,
                         .minb = 3, .ry = 2, .zs = 1};
    char text[256];
    fdx_stencil_cfg_format(&c, text, sizeof text);
    CHECK(strcmp(text, "3 64 8 2 112 3 2 0 0 0 3 0 0 2 1 0 0 0 0 0") == 0, "file text: %s", text);
    fdx_stencil_cfg back;
    CHECK(fdx_stencil_cfg_parse(text, &back) && memcmp(&back, &c, sizeof c) == 0, "file text reads back");
    /* A file from before tm existed (19 fields) reads tm as 0; tm only in
       the asynchronous march of rank 3. */
    CHECK(fdx_stencil_cfg_parse("3 16 16 4 125 16 3 0 0 1 0 0 0 0 0 0 0 0 1", &back) && back.uz == 1 && back.tm == 0,
          "19-field file");
    CHECK(fdx_stencil_cfg_parse("3 16 16 4 125 16 3 0 0 1 0 0 0 0 0 0 0 0 1 1", &back) && back.tm == 1, "tm read");
    {
        fdx_stencil_kspec k3 = {0, 3, 6, FDX_UPDATE_APPLY, 0, 0, 0};
        const int64_t odd[3] = {217, 459, 261}, even[3] = {220, 459, 261};
        CHECK(!fdx_stencil_cfg_fits(&k3, &back, odd), "tm on rows of no 16-byte multiple fits");
        CHECK(fdx_stencil_cfg_fits(&k3, &back, even), "tm on rows of 16-byte multiples (win set) does not fit");
        fdx_stencil_cfg t = back;
        t.variant = FDX_SV_UNROLL;
        CHECK(!fdx_stencil_cfg_fits(&k3, &t, even), "tm outside the asynchronous march fits");
        t = back, t.b2 = 1;
        CHECK(!fdx_stencil_cfg_fits(&k3, &t, even), "tm with b2 fits");
        k3.rank = 2, t = back, t.ty = 1, t.tx = 32;
        const int64_t two[3] = {220, 1, 459};
        CHECK(!fdx_stencil_cfg_fits(&k3, &t, two), "tm in rank 2 fits");
    }
    /* A file from before zs existed (14 fields) reads zs as 0. */
    CHECK(fdx_stencil_cfg_parse("3 64 8 2 112 3 2 0 0 0 3 0 0 2", &back) && back.zs == 0 && back.ry == 2,
          "14-field file");
    CHECK(!fdx_stencil_cfg_parse("3 64 8 2 112 3 2 0 0 0 3 0 0", &back), "13 fields accepted");
    /* ... and one from before zh (15 fields) reads zh as 0; zh only in the
       asynchronous march, not with zs. */
    CHECK(fdx_stencil_cfg_parse("3 64 8 2 112 3 2 0 0 0 3 0 0 2 1", &back) && back.zs == 1 && back.zh == 0,
          "15-field file");
    CHECK(fdx_stencil_cfg_parse("3 64 8 2 112 3 2 0 0 0 3 0 0 2 0 1", &back) && back.zh == 1, "zh");
    CHECK(!fdx_stencil_cfg_parse("3 64 8 2 112 3 2 0 0 0 3 0 0 2 1 1", &back), "zh with zs accepted");
    CHECK(!fdx_stencil_cfg_parse("4 64 8 2 112 3 2 0 0 0 3 0 0 2 0 1", &back), "zh in the plane tile accepted");
    CHECK(!fdx_stencil_cfg_parse("3 64 8 2 112 3 2 0 0 0 3 0 0 2 0 2", &back), "zh 2 accepted");
    /* ... and one from before ys (16 fields) reads ys as 0; ys only in the
       asynchronous march with its column carried (not zs, not zh). */
    CHECK(fdx_stencil_cfg_parse("3 64 8 2 112 3 2 0 0 0 3 0 0 2 0 1", &back) && back.ys == 0, "16-field file");
    CHECK(fdx_stencil_cfg_parse("3 64 8 2 112 3 2 0 0 0 3 0 0 2 0 0 1", &back) && back.ys == 1, "ys");
    CHECK(!fdx_stencil_cfg_parse("3 64 8 2 112 3 2 0 0 0 3 0 0 2 0 1 1", &back), "ys with zh accepted");
    CHECK(!fdx_stencil_cfg_parse("3 64 8 2 112 3 2 0 0 0 3 0 0 2 1 0 1", &back), "ys with zs accepted");
    CHECK(!fdx_stencil_cfg_parse("2 64 8 2 112 3 2 0 0 0 3 0 0 2 0 0 1", &back), "ys in the unrolled column accepted");
    /* ... and one from before b2 (17 fields) reads b2 as 0; b2 only in the
       asynchronous march at least two planes ahead. */
    CHECK(fdx_stencil_cfg_parse("3 64 8 2 112 3 2 0 0 0 3 0 0 2 0 0 1", &back) && back.b2 == 0, "17-field file");
    CHECK(fdx_stencil_cfg_parse("3 64 8 2 112 3 2 0 0 0 3 0 0 2 0 1 0 1", &back) && back.b2 == 1, "b2");
    CHECK(!fdx_stencil_cfg_parse("3 64 8 2 112 3 1 0 0 0 3 0 0 2 0 1 0 1", &back), "b2 one plane ahead accepted");
    CHECK(!fdx_stencil_cfg_parse("2 64 8 2 112 3 2 0 0 0 3 0 0 2 0 0 0 1", &back), "b2 in the unrolled column accepted");
    /* ... and one from before uz (18 fields) reads uz as 0; uz only in the
       asynchronous march. */
    CHECK(fdx_stencil_cfg_parse("3 64 8 2 112 3 2 0 0 0 3 0 0 2 0 1 0 1", &back) && back.uz == 0, "18-field file");
    CHECK(fdx_stencil_cfg_parse("3 64 8 2 112 3 2 0 0 0 3 0 0 2 0 1 0 1 1", &back) && back.uz == 1, "uz");
    CHECK(!fdx_stencil_cfg_parse("2 64 8 2 112 3 2 0 0 0 3 0 0 2 0 0 0 0 1", &back), "uz in the unrolled column accepted");
    CHECK(!fdx_stencil_cfg_parse("4 64 8 2 112 3 2 0 0 0 3 0 0 2 0 0 0 0 1", &back), "uz in the plane tile accepted");
    CHECK(!fdx_stencil_cfg_parse("3 64 8 2 112 3 2 0 0 0 3 0 0 2 0 0 0 0 2", &back), "uz 2 accepted");
    CHECK(!fdx_stencil_cfg_parse("3 64 8 3 112 3 2 0 0 0 3 0 0 2 1", &back), "vec 3 accepted");
    CHECK(!fdx_stencil_cfg_parse("2 64 8 2 112 3 2 0 0 0 3 0 0 2 1", &back), "zs without async accepted");
    CHECK(!fdx_stencil_cfg_parse("3 64 8 2 112 3 2 0 0 0 33 0 0 2 1", &back), "minb 33 accepted");
    CHECK(!fdx_stencil_cfg_parse("3 64 32 2 112 3 2 0 0 0 3 0 0 2 1", &back), "2048 threads accepted");
    fdx_stencil_cfg_text(&c, 1, text, sizeof text);
    CHECK(strcmp(text, "async 64x8 vec2 chunk 112 pd2 lb3 ry2 zs") == 0, "readable text: %s", text);
    fdx_stencil_cfg_text(&c, 0, text, sizeof text);
    CHECK(strcmp(text, "cpu rows 3 chunk 112") == 0, "CPU text: %s", text);
    c.zs = 0, c.zh = 1;
    fdx_stencil_cfg_text(&c, 1, text, sizeof text);
    CHECK(strcmp(text, "async 64x8 vec2 chunk 112 pd2 lb3 ry2 zh") == 0, "readable text: %s", text);
    c.zh = 0, c.ys = 1;
    fdx_stencil_cfg_text(&c, 1, text, sizeof text);
    CHECK(strcmp(text, "async 64x8 vec2 chunk 112 pd2 lb3 ry2 ys") == 0, "readable text: %s", text);
    c.b2 = 1;
    fdx_stencil_cfg_text(&c, 1, text, sizeof text);
    CHECK(strcmp(text, "async 64x8 vec2 chunk 112 pd2 lb3 ry2 ys b2") == 0, "readable text: %s", text);
    c.uz = 1;
    fdx_stencil_cfg_text(&c, 1, text, sizeof text);
    CHECK(strcmp(text, "async 64x8 vec2 chunk 112 pd2 lb3 ry2 ys b2 uz") == 0, "readable text: %s", text);
}

int main(void)
{
    test_kernel_key();
    test_file_text();
    return fdx_test_finish("test_stencil_cfg");
}
