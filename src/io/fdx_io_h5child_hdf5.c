/* fdx_io_h5child: HDF5 files named by a user are untrusted, and libhdf5
   crashes on some damaged ones (a NULL read in H5F__accum_read on a garbled
   superblock, found by fuzz/fuzz_h5.c).  So libhdf5 reads them in a child
   process: the child sends a small header and the values over a pipe, the
   parent checks the header (status, rank, extents, count against the memory
   bound and the grid wanted) before it allocates, and a child that crashes,
   is killed or hangs becomes FDX_ERR_IO with a message, never a crash of the
   caller.  A file libhdf5 cannot read is FDX_ERR_IO (as before); a readable
   dataset of the wrong rank, type or size, FDX_ERR_INVALID. */
#include "core/fdx_error.h"
#include "core/fdx_file.h"
#include "fdx/internal/clock.h"
#include "fdx/io.h"
#include "io/fdx_h5read.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define H5CHILD_MAGIC 0x66647848u /* "Hxdf" */
#define H5CHILD_TIMEOUT_MS 120000 /* a damaged file must not hang the run */

typedef struct h5child_header {
    uint32_t magic;
    int32_t status;
    int32_t rank;
    int32_t pad;
    int64_t shape[3];
    uint64_t count;
    char message[512];
} h5child_header;

/* Half the machine's memory: more than any field a run can hold. */
static uint64_t memory_bound(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return (uint64_t)1 << 34;
    return (uint64_t)pages * (uint64_t)page / 2;
}

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n > ((size_t)1 << 26) ? ((size_t)1 << 26) : n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        c += w, n -= (size_t)w;
    }
    return 0;
}

/* The child: libhdf5 reads, the result goes down the pipe. */
static void child_main(int fd, const char *path, const char *name, const fdx_h5_want *want)
{
    /* A crash must be a signal the parent sees, not a handler of the
       caller's (a fuzzer's or a sanitizer's) that goes on in the child. */
    static const int deadly[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof deadly / sizeof *deadly; i++) signal(deadly[i], SIG_DFL);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, SIG_IGN); /* the parent handles Ctrl-C and ends the child */
    /* Whatever libhdf5 (or a sanitizer) would print goes nowhere: the
       child speaks only through the pipe, so fdx's error stays one line. */
    int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_fd >= 0) {
        dup2(null_fd, STDERR_FILENO);
        dup2(null_fd, STDOUT_FILENO);
        close(null_fd);
    }
    h5child_header h;
    memset(&h, 0, sizeof h);
    h.magic = H5CHILD_MAGIC;
    double *v = NULL;
    int rank = 0;
    int64_t shape[3] = {0, 0, 0};
    fdx_status st = fdx_h5_read_local(path, name, want, &v, &rank, shape);
    h.status = (int32_t)st;
    if (st == FDX_OK) {
        h.rank = rank;
        h.count = 1;
        for (int d = 0; d < rank; d++) h.shape[d] = shape[d], h.count *= (uint64_t)shape[d];
    } else {
        snprintf(h.message, sizeof h.message, "%s", fdx_last_error());
    }
    int bad = write_all(fd, &h, sizeof h) != 0 || (st == FDX_OK && write_all(fd, v, h.count * sizeof(double)) != 0);
    close(fd);
    _exit(bad ? 4 : 0);
}

static int64_t now_ms(void) { return (int64_t)(1000 * fdx_now_s()); }

/* Reads n bytes or fails: 0 ok, 1 end of file or error, 2 timed out. */
static int read_all(int fd, void *p, size_t n, int64_t deadline)
{
    char *c = p;
    while (n) {
        int64_t left = deadline - now_ms();
        if (left <= 0) return 2;
        struct pollfd pf = {fd, POLLIN, 0};
        int r = poll(&pf, 1, left > 1000 ? 1000 : (int)left);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return 1;
        if (r == 0) continue;
        ssize_t got = read(fd, c, n > ((size_t)1 << 26) ? ((size_t)1 << 26) : n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return 1;
        c += got, n -= (size_t)got;
    }
    return 0;
}

/* How the child ended, for the message: "" if it exited 0. */
static void child_end(pid_t pid, int kill_it, char *why, size_t cap)
{
    int ws = 0;
    if (kill_it) kill(pid, SIGKILL);
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
    }
    why[0] = '\0';
    if (WIFSIGNALED(ws))
        snprintf(why, cap, "the HDF5 reader crashed (signal %d, %s)", WTERMSIG(ws), strsignal(WTERMSIG(ws)));
    else if (WIFEXITED(ws) && WEXITSTATUS(ws) != 0)
        snprintf(why, cap, "the HDF5 reader failed (exit status %d)", WEXITSTATUS(ws));
}

/* Only a regular, readable, non-empty file is handed to libhdf5: a FIFO
   would block, a device never ends.  Whatever is wrong with the file a user
   named (missing, unreadable, the wrong kind, empty) is bad input, exit 2,
   as for every other input file; only the reader's own failure is exit 3. */
static fdx_status check_input(const char *path)
{
    FDX_CHECK(path && path[0], FDX_ERR_INVALID, "the HDF5 file name is empty");
    int fd = -1;
    if (fdx_open_input(AT_FDCWD, path, 0, &fd) != FDX_OK) return fdx_fail(FDX_ERR_INVALID, "%s", fdx_last_error());
    struct stat sb;
    int ok = fstat(fd, &sb) == 0;
    close(fd);
    FDX_CHECK(ok && sb.st_size > 0, FDX_ERR_INVALID, "'%s' is empty (truncated?)", path);
    return FDX_OK;
}

static fdx_status read_in_child(const char *path, const char *name, const fdx_h5_want *want, double **data, int *rank,
                                int64_t *shape)
{
    FDX_TRY(check_input(path));
    int fds[2];
    FDX_CHECK(pipe2(fds, O_CLOEXEC) == 0, FDX_ERR_IO, "cannot make a pipe for the HDF5 reader: %s", strerror(errno));
    fflush(NULL); /* nothing buffered may be written twice */
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]), close(fds[1]);
        return fdx_fail(FDX_ERR_IO, "cannot start the HDF5 reader: %s", strerror(e));
    }
    if (pid == 0) {
        close(fds[0]);
        child_main(fds[1], path, name, want);
    }
    close(fds[1]);
    int64_t deadline = now_ms() + H5CHILD_TIMEOUT_MS;
    h5child_header h;
    char why[160];
    int r = read_all(fds[0], &h, sizeof h, deadline);
    fdx_status st = FDX_OK;
    double *v = NULL;
    if (r != 0) {
        close(fds[0]);
        child_end(pid, r == 2, why, sizeof why);
        return fdx_fail(FDX_ERR_IO, "cannot read '%s': %s", path,
                        r == 2 ? "the HDF5 reader timed out" : why[0] ? why : "the HDF5 reader ended early");
    }
    h.message[sizeof h.message - 1] = '\0';
    if (h.magic != H5CHILD_MAGIC || h.status < FDX_OK || h.status > FDX_ERR_INTERNAL) {
        st = fdx_fail(FDX_ERR_IO, "cannot read '%s': the HDF5 reader sent a bad header", path);
    } else if (h.status != FDX_OK) {
        st = fdx_fail((fdx_status)h.status, "%s", h.message);
    } else {
        /* The child checked all this; the parent trusts nothing it sends. */
        uint64_t count = 1;
        int ok = h.rank >= 1 && h.rank <= 3;
        for (int d = 0; ok && d < h.rank; d++) {
            ok = h.shape[d] >= 1 && h.shape[d] <= ((int64_t)1 << 40) && count <= ((uint64_t)1 << 60) / (uint64_t)h.shape[d];
            if (ok) count *= (uint64_t)h.shape[d];
        }
        ok = ok && count == h.count && count * sizeof(double) <= want->max_bytes;
        for (int d = 0; ok && want->rank && d < want->rank; d++) ok = h.rank == want->rank && h.shape[d] == want->shape[d];
        if (!ok) st = fdx_fail(FDX_ERR_IO, "cannot read '%s': the HDF5 reader sent extents that do not check", path);
        else if (!(v = malloc((size_t)count * sizeof(double))))
            st = fdx_fail(FDX_ERR_NOMEM, "no memory for the %llu values of '%s'", (unsigned long long)count, path);
        else if ((r = read_all(fds[0], v, (size_t)count * sizeof(double), deadline)) != 0)
            st = fdx_fail(FDX_ERR_IO, "cannot read '%s': %s", path,
                          r == 2 ? "the HDF5 reader timed out" : "the HDF5 reader sent fewer values than it declared");
    }
    close(fds[0]);
    child_end(pid, st != FDX_OK || r != 0, why, sizeof why);
    if (st == FDX_OK && why[0]) st = fdx_fail(FDX_ERR_IO, "cannot read '%s': %s", path, why);
    if (st != FDX_OK) {
        free(v);
        return st;
    }
    *data = v;
    *rank = h.rank;
    for (int d = 0; d < h.rank; d++) shape[d] = h.shape[d];
    return FDX_OK;
}

fdx_status fdx_h5_read_field(const char *path, const char *name, double **data, int *rank, int64_t *shape)
{
    FDX_CHECK(data && rank && shape, FDX_ERR_INVALID, "fdx_h5_read_field: NULL output argument");
    *data = NULL;
    fdx_h5_want want = {0, {0, 0, 0}, memory_bound()};
    return read_in_child(path, name, &want, data, rank, shape);
}

fdx_status fdx_h5_read_field_shaped(const char *path, const char *name, int rank, const int64_t *shape,
                                    double **data)
{
    FDX_CHECK(data && shape, FDX_ERR_INVALID, "fdx_h5_read_field_shaped: NULL argument");
    FDX_CHECK(rank >= 1 && rank <= 3, FDX_ERR_INVALID, "fdx_h5_read_field_shaped: rank %d is not 1..3", rank);
    *data = NULL;
    fdx_h5_want want = {rank, {0, 0, 0}, memory_bound()};
    for (int d = 0; d < rank; d++) want.shape[d] = shape[d];
    int got_rank;
    int64_t got[3];
    return read_in_child(path, name, &want, data, &got_rank, got);
}
