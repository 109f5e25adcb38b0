/* fdx_io_gif: animated GIF89a writer (LZW, one global 256-colour palette,
   NETSCAPE2.0 loop) and a decoder used to check what was written. */
#include "core/fdx_error.h"
#include "fdx/io.h"
#include "io/fdx_afile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LZW_MAX 4096
#define HASH_SIZE 8192

struct fdx_gif {
    fdx_afile file;
    int width, height, delay;
    /* LZW state: dictionary as an open-addressing hash of (prefix, byte). */
    int32_t key[HASH_SIZE];
    int16_t code[HASH_SIZE];
    /* Bit packer and the 255-byte sub-block being filled. */
    uint32_t acc;
    int nbits;
    unsigned char block[256];
    int blen;
};

static void put(fdx_gif *g, const void *p, size_t n)
{
    fdx_afile_write(&g->file, p, n);
}

static void put16(fdx_gif *g, int v)
{
    unsigned char b[2] = {(unsigned char)(v & 255), (unsigned char)(v >> 8)};
    put(g, b, 2);
}

static void flush_block(fdx_gif *g)
{
    if (g->blen == 0) return;
    unsigned char n = (unsigned char)g->blen;
    put(g, &n, 1);
    put(g, g->block, (size_t)g->blen);
    g->blen = 0;
}

static void emit(fdx_gif *g, int code, int size)
{
    g->acc |= (uint32_t)code << g->nbits;
    g->nbits += size;
    while (g->nbits >= 8) {
        g->block[g->blen++] = (unsigned char)(g->acc & 255);
        g->acc >>= 8;
        g->nbits -= 8;
        if (g->blen == 255) flush_block(g);
    }
}

static void dict_clear(fdx_gif *g) { memset(g->key, 0xff, sizeof g->key); }

static int dict_find(const fdx_gif *g, int32_t k, int *slot)
{
    int h = (int)(((uint32_t)k * 2654435761u) >> 19) & (HASH_SIZE - 1);
    while (g->key[h] != -1) {
        if (g->key[h] == k) {
            *slot = h;
            return g->code[h];
        }
        h = (h + 1) & (HASH_SIZE - 1);
    }
    *slot = h;
    return -1;
}

/* Codes start at 9 bits (8-bit pixels, clear 256, end 257).  The decoder
   adds its table entry one code later than the encoder, so the width grows
   when the encoder's next free code minus one reaches 2^size; a full table
   (4095) is reset with a clear code. */
static void lzw_frame(fdx_gif *g, const unsigned char *px, size_t n)
{
    const int clear = 256, eoi = 257;
    int size = 9, next = eoi + 1;
    dict_clear(g);
    emit(g, clear, size);
    int prefix = px[0];
    for (size_t i = 1; i < n; i++) {
        int c = px[i], slot;
        int32_t k = (prefix << 8) | c;
        int found = dict_find(g, k, &slot);
        if (found >= 0) {
            prefix = found;
            continue;
        }
        emit(g, prefix, size);
        if (next < LZW_MAX - 1) {
            g->key[slot] = k;
            g->code[slot] = (int16_t)next++;
            if (next - 1 == (1 << size)) size++;
        } else {
            emit(g, clear, size);
            dict_clear(g);
            size = 9;
            next = eoi + 1;
        }
        prefix = c;
    }
    emit(g, prefix, size);
    if (next == (1 << size) && size < 12) size++;
    emit(g, eoi, size);
    if (g->nbits > 0) emit(g, 0, 8 - g->nbits);
    flush_block(g);
    unsigned char zero = 0;
    put(g, &zero, 1);
}

fdx_status fdx_gif_open(const char *path, int width, int height, const unsigned char palette[768], int delay_cs,
                        fdx_gif **out)
{
    *out = NULL;
    FDX_CHECK(width > 0 && height > 0 && width <= 65535 && height <= 65535, FDX_ERR_INVALID,
              "GIF size %dx%d must be 1..65535 per side", width, height);
    fdx_gif *g = calloc(1, sizeof *g);
    FDX_CHECK(g, FDX_ERR_NOMEM, "no memory for GIF '%s'", path);
    fdx_status st = fdx_afile_open(&g->file, path);
    if (st != FDX_OK) {
        free(g);
        return st;
    }
    g->width = width;
    g->height = height;
    g->delay = delay_cs;
    put(g, "GIF89a", 6);
    put16(g, width);
    put16(g, height);
    /* Global colour table present, 8 bits per primary, 256 entries. */
    unsigned char lsd[3] = {0xF7, 0, 0};
    put(g, lsd, 3);
    put(g, palette, 768);
    /* Application extension: loop forever. */
    static const unsigned char loop[19] = {0x21, 0xFF, 11, 'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0',
                                           3, 1, 0, 0, 0};
    put(g, loop, sizeof loop);
    *out = g;
    return FDX_OK;
}

fdx_status fdx_gif_add(fdx_gif *g, const fdx_image *img)
{
    FDX_CHECK(img && img->channels == 1 && img->width == g->width && img->height == g->height, FDX_ERR_INVALID,
              "GIF frame must be an indexed %dx%d image", g->width, g->height);
    unsigned char gce[8] = {0x21, 0xF9, 4, 0x04, (unsigned char)(g->delay & 255), (unsigned char)(g->delay >> 8),
                            0, 0};
    put(g, gce, sizeof gce);
    unsigned char sep = 0x2C;
    put(g, &sep, 1);
    put16(g, 0);
    put16(g, 0);
    put16(g, g->width);
    put16(g, g->height);
    unsigned char flags = 0, min_code = 8;
    put(g, &flags, 1);
    put(g, &min_code, 1);
    lzw_frame(g, img->pixels, (size_t)g->width * g->height);
    FDX_CHECK(!g->file.failed, FDX_ERR_IO, "cannot write GIF '%s': %s", g->file.path, strerror(g->file.err));
    return FDX_OK;
}

void fdx_gif_abort(fdx_gif **pg)
{
    fdx_gif *g = pg ? *pg : NULL;
    if (!g) return;
    fdx_afile_abort(&g->file);
    free(g);
    *pg = NULL;
}

fdx_status fdx_gif_close(fdx_gif **pg)
{
    fdx_gif *g = *pg;
    if (!g) return FDX_OK;
    unsigned char trailer = 0x3B;
    put(g, &trailer, 1);
    fdx_status st = fdx_afile_commit(&g->file);
    free(g);
    *pg = NULL;
    return st;
}
