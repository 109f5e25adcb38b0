/* fdx_sha256: SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), small and
   dependency-free; the kernel cache signs every artifact with them. */
#ifndef FDX_SHA256_H
#define FDX_SHA256_H

#include "fdx_error.h"

#include <stddef.h>
#include <stdint.h>

#define FDX_SHA256_BYTES 32

typedef struct fdx_sha256 {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char block[64];
    size_t used;
} fdx_sha256;

FDX_HIDDEN void fdx_sha256_init(fdx_sha256 *s);
FDX_HIDDEN void fdx_sha256_add(fdx_sha256 *s, const void *data, size_t n);
FDX_HIDDEN void fdx_sha256_final(fdx_sha256 *s, unsigned char out[FDX_SHA256_BYTES]);

/* HMAC-SHA256: init with the key, add the message in pieces, final. */
typedef struct fdx_hmac {
    fdx_sha256 inner, outer;
} fdx_hmac;

FDX_HIDDEN void fdx_hmac_init(fdx_hmac *m, const void *key, size_t key_len);
FDX_HIDDEN void fdx_hmac_add(fdx_hmac *m, const void *data, size_t n);
FDX_HIDDEN void fdx_hmac_final(fdx_hmac *m, unsigned char out[FDX_SHA256_BYTES]);

/* Constant-time comparison of two digests: 1 when equal. */
FDX_HIDDEN int fdx_digest_equal(const unsigned char *a, const unsigned char *b, size_t n);

#endif
