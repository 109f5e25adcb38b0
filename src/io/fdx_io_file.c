/* fdx_io_file: files written whole or not at all (temporary name, fsync,
   rename), whole-file reads with a size cap, output directories. */
#include "core/fdx_error.h"
#include "fdx/io.h"
#include "io/fdx_afile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory part of path ("." when there is none), for its fsync. */
static void dir_of(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, cap, ".");
    else if (slash == path) snprintf(dir, cap, "/");
    else snprintf(dir, cap, "%.*s", (int)(slash - path), path);
}

/* After a rename the directory entry is durable only once the directory
   itself is synced; failure to open it (some file systems) is harmless. */
static void sync_dir(const char *path)
{
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

fdx_status fdx_afile_open(fdx_afile *a, const char *path)
{
    memset(a, 0, sizeof *a);
    FDX_CHECK(path && path[0] && strlen(path) < sizeof a->path, FDX_ERR_INVALID, "file path is empty or too long");
    snprintf(a->path, sizeof a->path, "%s", path);
    fdx_afile_tmpname(path, a->tmp, sizeof a->tmp);
    a->f = fopen(a->tmp, "wb");
    FDX_CHECK(a->f, FDX_ERR_IO, "cannot create '%s': %s", a->tmp, strerror(errno));
    return FDX_OK;
}

void fdx_afile_write(fdx_afile *a, const void *data, size_t size)
{
    if (a->failed || size == 0) return;
    if (fwrite(data, 1, size, a->f) != size) {
        a->failed = 1;
        a->err = errno;
    }
}

void fdx_afile_abort(fdx_afile *a)
{
    if (a->f) fclose(a->f);
    a->f = NULL;
    if (a->tmp[0]) unlink(a->tmp);
    a->tmp[0] = '\0';
}

fdx_status fdx_afile_commit(fdx_afile *a)
{
    if (!a->failed && (fflush(a->f) != 0 || fsync(fileno(a->f)) != 0)) {
        a->failed = 1;
        a->err = errno;
    }
    if (!a->failed && fclose(a->f) != 0) {
        a->failed = 1;
        a->err = errno;
    } else if (!a->failed) {
        a->f = NULL;
    }
    if (a->failed) {
        fdx_status st = fdx_fail(FDX_ERR_IO, "cannot write '%s': %s", a->path, strerror(a->err));
        fdx_afile_abort(a);
        return st;
    }
    if (rename(a->tmp, a->path) != 0) {
        fdx_status st = fdx_fail(FDX_ERR_IO, "cannot rename '%s' to '%s': %s", a->tmp, a->path, strerror(errno));
        fdx_afile_abort(a);
        return st;
    }
    a->tmp[0] = '\0';
    sync_dir(a->path);
    return FDX_OK;
}

void fdx_afile_tmpname(const char *path, char *tmp, size_t cap)
{
    snprintf(tmp, cap, "%s.tmp.%ld", path, (long)getpid());
}

fdx_status fdx_afile_publish(const char *tmp, const char *path)
{
    int fd = open(tmp, O_RDONLY);
    if (fd < 0 || fsync(fd) != 0) {
        fdx_status st = fdx_fail(FDX_ERR_IO, "cannot flush '%s': %s", tmp, strerror(errno));
        if (fd >= 0) close(fd);
        unlink(tmp);
        return st;
    }
    close(fd);
    if (rename(tmp, path) != 0) {
        fdx_status st = fdx_fail(FDX_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
        unlink(tmp);
        return st;
    }
    sync_dir(path);
    return FDX_OK;
}

fdx_status fdx_file_write_atomic(const char *path, const void *data, size_t size)
{
    fdx_afile a;
    FDX_TRY(fdx_afile_open(&a, path));
    fdx_afile_write(&a, data, size);
    return fdx_afile_commit(&a);
}

fdx_status fdx_file_read(const char *path, size_t max_bytes, char **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    FDX_CHECK(f, FDX_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
        if (n == cap) {
            if (cap > max_bytes) break;
            char *nb = realloc(buf, 2 * cap + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    int err = ferror(f);
    fclose(f);
    FDX_CHECK(buf, FDX_ERR_NOMEM, "no memory to read '%s'", path);
    if (err || n > max_bytes) {
        free(buf);
        return err ? fdx_fail(FDX_ERR_IO, "cannot read '%s'", path)
                   : fdx_fail(FDX_ERR_INVALID, "'%s' is larger than %zu bytes", path, max_bytes);
    }
    buf[n] = '\0';
    *data = buf;
    *size = n;
    return FDX_OK;
}

fdx_status fdx_dir_prepare(const char *path)
{
    FDX_CHECK(path && path[0] && strlen(path) < 4000, FDX_ERR_INVALID, "output directory name is empty or too long");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    /* mkdir -p: each prefix in turn; existing ones are fine. */
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return fdx_fail(FDX_ERR_IO, "cannot create directory '%s': %s", buf, strerror(errno));
            *p = c;
            if (!c) break;
        }
    }
    struct stat st;
    FDX_CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode), FDX_ERR_IO, "'%s' is not a directory", path);
    FDX_CHECK(access(path, W_OK | X_OK) == 0, FDX_ERR_IO, "output directory '%s' is not writable: %s", path,
              strerror(errno));
    return FDX_OK;
}
