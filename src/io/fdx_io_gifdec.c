/* fdx_io_gifdec: a strict GIF decoder for checking the files fdx writes (and
   a fuzzing target): every length is checked against what is left. */
#include "core/fdx_error.h"
#include "fdx/internal/io.h"

#include <stdlib.h>
#include <string.h>

typedef struct reader {
    const unsigned char *p;
    size_t n, at;
} reader;

static int get(reader *r, size_t k, const unsigned char **out)
{
    if (r->n - r->at < k) return 0;
    *out = r->p + r->at;
    r->at += k;
    return 1;
}

/* Concatenates the sub-blocks that follow into one buffer. */
static fdx_status sub_blocks(reader *r, unsigned char **data, size_t *size)
{
    size_t cap = 0, n = 0;
    unsigned char *buf = NULL;
    for (;;) {
        const unsigned char *len, *bytes;
        if (!get(r, 1, &len)) break;
        if (*len == 0) {
            *data = buf;
            *size = n;
            return FDX_OK;
        }
        if (!get(r, *len, &bytes)) break;
        if (n + *len > cap) {
            cap = 2 * (n + *len);
            unsigned char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                return fdx_fail(FDX_ERR_NOMEM, "no memory to decode GIF");
            }
            buf = nb;
        }
        memcpy(buf + n, bytes, *len);
        n += *len;
    }
    free(buf);
    return fdx_fail(FDX_ERR_INVALID, "GIF data ends inside a block");
}

/* Decodes LZW codes into exactly npx indices. */
static fdx_status lzw_decode(const unsigned char *d, size_t nd, int min_code, unsigned char *px, size_t npx)
{
    uint16_t prefix[4096];
    unsigned char suffix[4096], first[4096], stack[4097];
    int clear = 1 << min_code, eoi = clear + 1, size = min_code + 1, next = eoi + 1, prev = -1;
    for (int i = 0; i < clear; i++) {
        prefix[i] = 0;
        suffix[i] = first[i] = (unsigned char)i;
    }
    size_t bit = 0, out = 0;
    for (;;) {
        if (bit + (size_t)size > 8 * nd) return fdx_fail(FDX_ERR_INVALID, "GIF image data ends without an end code");
        int code = 0;
        for (int b = 0; b < size; b++, bit++) code |= ((d[bit >> 3] >> (bit & 7)) & 1) << b;
        if (code == clear) {
            size = min_code + 1;
            next = eoi + 1;
            prev = -1;
            continue;
        }
        if (code == eoi) break;
        if (code > next || (code == next && prev < 0) || (code >= clear && code < eoi + 1 && code != clear))
            return fdx_fail(FDX_ERR_INVALID, "GIF LZW code %d is not in the table (next %d)", code, next);
        /* Unwind the string of `code` (or prev + first(prev) when new). */
        int sp = 0, c = code;
        if (code == next) {
            stack[sp++] = first[prev];
            c = prev;
        }
        while (c > eoi) {
            stack[sp++] = suffix[c];
            c = prefix[c];
        }
        stack[sp++] = (unsigned char)c;
        if (out + (size_t)sp > npx) return fdx_fail(FDX_ERR_INVALID, "GIF image data has more pixels than the frame");
        while (sp > 0) px[out++] = stack[--sp];
        if (prev >= 0 && next < 4096) {
            prefix[next] = (uint16_t)prev;
            suffix[next] = first[code == next ? prev : code];
            first[next] = first[prev];
            next++;
        }
        if (next == (1 << size) && size < 12) size++;
        prev = code;
    }
    if (out != npx) return fdx_fail(FDX_ERR_INVALID, "GIF frame has %zu of its %zu pixels", out, npx);
    return FDX_OK;
}

fdx_status fdx_gif_decode(const unsigned char *data, size_t size, int *width, int *height, int *frames,
                          fdx_image *last)
{
    reader r = {data, size, 0};
    const unsigned char *h = NULL;
    if (last) memset(last, 0, sizeof *last);
    *frames = 0;
    FDX_CHECK(get(&r, 13, &h) && (memcmp(h, "GIF89a", 6) == 0 || memcmp(h, "GIF87a", 6) == 0), FDX_ERR_INVALID,
              "not a GIF file (bad header)");
    int w = h[6] | h[7] << 8, ht = h[8] | h[9] << 8;
    FDX_CHECK(w > 0 && ht > 0, FDX_ERR_INVALID, "GIF screen %dx%d is empty", w, ht);
    *width = w;
    *height = ht;
    if (h[10] & 0x80) {
        const unsigned char *pal;
        FDX_CHECK(get(&r, 3u << ((h[10] & 7) + 1), &pal), FDX_ERR_INVALID, "GIF colour table is truncated");
    }
    unsigned char *px = NULL;
    fdx_status st = FDX_OK;
    for (;;) {
        const unsigned char *tag;
        if (!get(&r, 1, &tag)) {
            st = fdx_fail(FDX_ERR_INVALID, "GIF ends without a trailer");
            break;
        }
        if (*tag == 0x3B) break;
        if (*tag == 0x21) {
            const unsigned char *label;
            unsigned char *skip = NULL;
            size_t n;
            if (!get(&r, 1, &label)) {
                st = fdx_fail(FDX_ERR_INVALID, "GIF extension is truncated");
                break;
            }
            if ((st = sub_blocks(&r, &skip, &n)) != FDX_OK) break;
            free(skip);
            continue;
        }
        if (*tag != 0x2C) {
            st = fdx_fail(FDX_ERR_INVALID, "GIF has an unknown block 0x%02x at byte %zu", *tag, r.at - 1);
            break;
        }
        const unsigned char *d;
        if (!get(&r, 9, &d)) {
            st = fdx_fail(FDX_ERR_INVALID, "GIF image descriptor is truncated");
            break;
        }
        int fx = d[0] | d[1] << 8, fy = d[2] | d[3] << 8, fw = d[4] | d[5] << 8, fh = d[6] | d[7] << 8;
        if (fw <= 0 || fh <= 0 || fx + fw > w || fy + fh > ht || (d[8] & 0x40)) {
            st = fdx_fail(FDX_ERR_INVALID, "GIF frame %d (%dx%d at %d,%d, flags 0x%02x) is not supported", *frames,
                          fw, fh, fx, fy, d[8]);
            break;
        }
        if (d[8] & 0x80) {
            const unsigned char *pal;
            if (!get(&r, 3u << ((d[8] & 7) + 1), &pal)) {
                st = fdx_fail(FDX_ERR_INVALID, "GIF local colour table is truncated");
                break;
            }
        }
        const unsigned char *mc;
        if (!get(&r, 1, &mc) || *mc < 2 || *mc > 8) {
            st = fdx_fail(FDX_ERR_INVALID, "GIF LZW minimum code size is missing or out of range");
            break;
        }
        unsigned char *lzw = NULL;
        size_t nl;
        if ((st = sub_blocks(&r, &lzw, &nl)) != FDX_OK) break;
        /* Each code yields at most 4096 pixels: refuse frames the data
           cannot fill before allocating them. */
        if ((double)fw * fh > ((double)nl * 8 / 9 + 1) * 4096) {
            free(lzw);
            st = fdx_fail(FDX_ERR_INVALID, "GIF frame %d (%dx%d) has only %zu bytes of image data", *frames, fw, fh, nl);
            break;
        }
        free(px);
        px = malloc((size_t)fw * fh);
        if (!px) {
            free(lzw);
            st = fdx_fail(FDX_ERR_NOMEM, "no memory for a %dx%d GIF frame", fw, fh);
            break;
        }
        st = lzw_decode(lzw, nl, *mc, px, (size_t)fw * fh);
        free(lzw);
        if (st != FDX_OK) break;
        (*frames)++;
        if (last && fw == w && fh == ht) {
            fdx_image_free(last);
            last->width = w;
            last->height = ht;
            last->channels = 1;
            last->pixels = px;
            px = NULL;
        }
    }
    free(px);
    if (st != FDX_OK && last) fdx_image_free(last);
    return st;
}
