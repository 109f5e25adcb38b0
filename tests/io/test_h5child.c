/* test_h5child: the HDF5 reader for untrusted files (libhdf5 in a child
   process): a round trip on random values; extents refused before data is
   read (a dataset declaring petabytes, in a file of a few kilobytes); a
   shape other than the grid wanted; FIFOs, directories, devices and empty or
   missing files refused at once without blocking (the wrong kind of file:
   FDX_ERR_INVALID; missing or empty: FDX_ERR_IO); garbage and truncations
   refused (FDX_ERR_IO, as every file fdx cannot read); NULL arguments; a file that crashes libhdf5. */
#include "fdx_test.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef FDX_HAVE_HDF5
#include <hdf5.h>

static char dir[] = "/tmp/fdx_test_h5child.XXXXXX";

static char *path_of(const char *name)
{
    static char buf[8][256];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* A chunked dataset with huge extents and no chunk written: a tiny file
   that declares nz*ny*nx values. */
static void write_huge(const char *path, hsize_t nz, hsize_t ny, hsize_t nx)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[3] = {nz, ny, nx}, chunk[3] = {1, 1, 64};
    hid_t sp = H5Screate_simple(3, dims, NULL), pl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(pl, 3, chunk);
    hid_t ds = H5Dcreate2(f, "u", H5T_IEEE_F64LE, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
    CHECK(f >= 0 && ds >= 0, "cannot make the huge-extent file");
    H5Dclose(ds), H5Pclose(pl), H5Sclose(sp), H5Fclose(f);
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void test_round_trip(void)
{
    int64_t shape[3] = {7, 5, 3};
    double u[105];
    uint64_t s = 42;
    for (int i = 0; i < 105; i++) u[i] = fdx_test_rand(&s);
    CHECK_OK(fdx_h5_write_field(path_of("good.h5"), "u", u, FDX_FLOAT64, 3, shape, 0.5, 3));
    double *v = (double *)(uintptr_t)1; /* poisoned: must be replaced */
    int rank = -1;
    int64_t got[3] = {-1, -1, -1};
    CHECK_OK(fdx_h5_read_field(path_of("good.h5"), NULL, &v, &rank, got));
    CHECK(rank == 3 && got[0] == 7 && got[1] == 5 && got[2] == 3, "shape %d: %lldx%lldx%lld", rank, (long long)got[0],
          (long long)got[1], (long long)got[2]);
    int same = v != NULL;
    for (int i = 0; same && i < 105; i++) same = v[i] == u[i];
    CHECK(same, "values differ after the round trip through the child");
    free(v);
    v = NULL;
    CHECK_OK(fdx_h5_read_field_shaped(path_of("good.h5"), "u", 3, shape, &v));
    CHECK(v && v[104] == u[104], "shaped read");
    free(v);
    /* The grid wanted differs: refused, naming both shapes. */
    int64_t other[3] = {7, 5, 4}, flat[2] = {7, 15};
    v = (double *)(uintptr_t)1;
    CHECK_FAILS(fdx_h5_read_field_shaped(path_of("good.h5"), NULL, 3, other, &v), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "7x5x3") && strstr(fdx_last_error(), "7x5x4"), "message: %s", fdx_last_error());
    CHECK(v == NULL, "output not cleared on failure");
    CHECK_FAILS(fdx_h5_read_field_shaped(path_of("good.h5"), NULL, 2, flat, &v), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_h5_read_field(path_of("good.h5"), "nosuch", &v, &rank, got), FDX_ERR_INVALID);
}

static void test_huge_extents(void)
{
    write_huge(path_of("huge.h5"), (hsize_t)1 << 20, (hsize_t)1 << 20, (hsize_t)1 << 12);
    struct stat sb;
    CHECK(stat(path_of("huge.h5"), &sb) == 0 && sb.st_size < 65536, "the huge-extent file is %lld bytes",
          (long long)sb.st_size);
    double *v = NULL;
    int rank;
    int64_t got[3];
    double t0 = seconds();
    CHECK_FAILS(fdx_h5_read_field(path_of("huge.h5"), NULL, &v, &rank, got), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "GiB") != NULL, "message does not give the size: %s", fdx_last_error());
    CHECK(seconds() - t0 < 20, "refusing took %.1f s", seconds() - t0);
    int64_t want[3] = {4096, 1 << 20, 1 << 20};
    CHECK_FAILS(fdx_h5_read_field_shaped(path_of("huge.h5"), NULL, 3, want, &v), FDX_ERR_INVALID);
    CHECK(v == NULL, "data returned for a refused file");
}

static void test_not_files(void)
{
    double *v = NULL;
    int rank;
    int64_t got[3];
    CHECK(mkfifo(path_of("fifo"), 0600) == 0, "mkfifo");
    double t0 = seconds();
    CHECK_FAILS(fdx_h5_read_field(path_of("fifo"), NULL, &v, &rank, got), FDX_ERR_INVALID);
    CHECK(seconds() - t0 < 5, "a FIFO blocked the reader for %.1f s", seconds() - t0);
    CHECK_FAILS(fdx_h5_read_field(dir, NULL, &v, &rank, got), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_h5_read_field("/dev/zero", NULL, &v, &rank, got), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_h5_read_field(path_of("missing.h5"), NULL, &v, &rank, got), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_h5_read_field("", NULL, &v, &rank, got), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_h5_read_field(NULL, NULL, &v, &rank, got), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_h5_read_field(path_of("good.h5"), NULL, NULL, &rank, got), FDX_ERR_INVALID);
    FILE *f = fopen(path_of("empty.h5"), "w");
    if (f) fclose(f);
    CHECK_FAILS(fdx_h5_read_field(path_of("empty.h5"), NULL, &v, &rank, got), FDX_ERR_INVALID);
    CHECK(v == NULL, "data returned for a refused file");
}

/* Garbage and every truncation of a good file: refused (FDX_ERR_IO; a
   truncation that still parses may fail a check: FDX_ERR_INVALID); never a
   crash here. */
static void test_damage(void)
{
    char *bytes;
    size_t n;
    CHECK_OK(fdx_file_read(path_of("good.h5"), 1 << 20, &bytes, &n));
    if (!bytes) return;
    int refused = 0, tried = 0;
    for (size_t cut = 0; cut < n; cut += n / 23 + 1) {
        CHECK_OK(fdx_file_write_atomic(path_of("cut.h5"), bytes, cut));
        double *v = NULL;
        int rank;
        int64_t got[3];
        fdx_status st = fdx_h5_read_field(path_of("cut.h5"), NULL, &v, &rank, got);
        tried++;
        refused += st == FDX_ERR_INVALID || st == FDX_ERR_IO;
        CHECK(st != FDX_OK || v != NULL, "OK without data at cut %zu", cut);
        free(v);
    }
    CHECK(refused == tried, "%d of %d truncations read as a field", tried - refused, tried);
    uint64_t s = 7;
    for (size_t i = 0; i < n; i++) bytes[i] = (char)(fdx_test_rand(&s) * 127);
    CHECK_OK(fdx_file_write_atomic(path_of("garbage.h5"), bytes, n));
    double *v = NULL;
    int rank;
    int64_t got[3];
    CHECK_FAILS(fdx_h5_read_field(path_of("garbage.h5"), NULL, &v, &rank, got), FDX_ERR_INVALID);
    free(bytes);
}

/* tests/hostile/hdf5_crash.h5 makes libhdf5 1.10.8 read through a NULL
   pointer (H5F__accum_read): the child dies of SIGSEGV, this process gets
   FDX_ERR_IO naming the signal.  A libhdf5 that refuses the file cleanly
   gives FDX_ERR_IO or FDX_ERR_INVALID; either way this process lives on. */
static void test_reader_crash(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", __FILE__);
    char *slash = strrchr(path, '/');
    if (!slash) return;
    snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), "hostile/hdf5_crash.h5");
    if (access(path, R_OK) != 0) return;
    double *v = NULL;
    int rank;
    int64_t got[3];
    fdx_clear_error();
    fdx_status st = fdx_h5_read_field(path, NULL, &v, &rank, got);
    CHECK(st == FDX_ERR_IO || st == FDX_ERR_INVALID,
          "crash file: %s: %s", fdx_strerror(st), fdx_last_error());
    CHECK(v == NULL, "data returned for the crash file");
    printf("test_h5child: crash file: %s\n", fdx_last_error());
}
#endif

int main(void)
{
#ifndef FDX_HAVE_HDF5
    return fdx_test_skip("test_h5child", "built without HDF5");
#else
    if (!mkdtemp(dir)) return fdx_test_skip("test_h5child", "no temporary directory");
    test_round_trip();
    test_huge_extents();
    test_not_files();
    test_damage();
    test_reader_crash();
    const char *names[] = {"good.h5", "huge.h5", "fifo", "empty.h5", "cut.h5", "garbage.h5"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) unlink(path_of(names[i]));
    rmdir(dir);
    return fdx_test_finish("test_h5child");
#endif
}
