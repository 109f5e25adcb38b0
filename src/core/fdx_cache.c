/* fdx_cache: hashing, the cache directory and atomic file writes. */
#include "fdx_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Two independent 64-bit FNV-1a style streams with different offsets and a
   final avalanche: plenty for a cache key, and no dependency. */
void fdx_hash_init(fdx_hash *h)
{
    h->a = 0xcbf29ce484222325ULL;
    h->b = 0x84222325cbf29ce4ULL ^ 0x9e3779b97f4a7c15ULL;
}

void fdx_hash_add(fdx_hash *h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h->a = (h->a ^ p[i]) * 0x100000001b3ULL;
        h->b = (h->b ^ p[i]) * 0x00000100000001b3ULL + 0x9e3779b97f4a7c15ULL;
    }
}

void fdx_hash_add_str(fdx_hash *h, const char *s)
{
    fdx_hash_add(h, s ? s : "", strlen(s ? s : "") + 1);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

void fdx_hash_hex(const fdx_hash *h, char out[33])
{
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)mix(h->a),
             (unsigned long long)mix(h->b ^ h->a));
}

static char cache_dir[4096];

fdx_status fdx_cache_set_dir(const char *dir)
{
    FDX_CHECK(dir && *dir, FDX_ERR_INVALID, "empty cache directory");
    if (strncmp(dir, "~/", 2) == 0) {
        const char *home = getenv("HOME");
        if (!home || !*home) home = "/tmp";
        snprintf(cache_dir, sizeof cache_dir, "%s/%s", home, dir + 2);
    } else {
        snprintf(cache_dir, sizeof cache_dir, "%s", dir);
    }
    return FDX_OK;
}

fdx_status fdx_mkdir_p(const char *path)
{
    char buf[4096];
    size_t len = strlen(path);
    FDX_CHECK(len > 0 && len < sizeof buf, FDX_ERR_IO, "bad directory path '%s'", path);
    memcpy(buf, path, len + 1);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return fdx_fail(FDX_ERR_IO, "cannot create directory '%s': %s", buf, strerror(errno));
            *p = c;
            if (c == '\0') break;
        }
    }
    struct stat st;
    FDX_CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode), FDX_ERR_IO,
              "'%s' exists but is not a directory", path);
    return FDX_OK;
}

fdx_status fdx_cache_path(const char *key, const char *ext, char *buf, size_t n)
{
    if (!cache_dir[0]) FDX_TRY(fdx_cache_set_dir("~/.cache/fdx"));
    FDX_TRY(fdx_mkdir_p(cache_dir));
    int len = snprintf(buf, n, "%s/%s%s", cache_dir, key, ext);
    FDX_CHECK(len > 0 && (size_t)len < n, FDX_ERR_IO, "cache path too long under '%s'", cache_dir);
    return FDX_OK;
}

fdx_status fdx_write_atomic(const char *path, const void *data, size_t n)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return fdx_fail(FDX_ERR_IO, "cannot create '%s': %s", tmp, strerror(errno));
    const char *p = data;
    size_t left = n;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return fdx_fail(FDX_ERR_IO, "cannot write '%s': %s", tmp, strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        return fdx_fail(FDX_ERR_IO, "cannot flush '%s': %s", tmp, strerror(e));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return fdx_fail(FDX_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(e));
    }
    return FDX_OK;
}

fdx_status fdx_read_file(const char *path, void **data, size_t *n)
{
    *data = NULL;
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return fdx_fail(FDX_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    fdx_status st = FDX_OK;
    long size = -1;
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        st = fdx_fail(FDX_ERR_IO, "cannot size '%s': %s", path, strerror(errno));
        goto done;
    }
    char *buf = malloc((size_t)size + 1);
    if (!buf) {
        st = fdx_fail(FDX_ERR_NOMEM, "out of memory reading '%s' (%ld bytes)", path, size);
        goto done;
    }
    if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
        free(buf);
        st = fdx_fail(FDX_ERR_IO, "short read of '%s'", path);
        goto done;
    }
    buf[size] = '\0';
    *data = buf;
    *n = (size_t)size;
done:
    fclose(f);
    return st;
}

int fdx_file_exists(const char *path) { return access(path, R_OK) == 0; }
