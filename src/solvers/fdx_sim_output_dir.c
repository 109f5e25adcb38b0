/* fdx_sim_output_dir: the files of a run in its directory: finding another
   run's files before anything is written (refused, or removed with
   overwrite), and removing what a restart computes again (files of later
   steps, temporaries of dead processes). */
#include "solvers/fdx_sim_output_impl.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The single files a run writes in DIR, and its numbered series. */
static const char *const RUN_FILES[] = {"checkpoint.fdx", "summary.json", "animation.gif", "seismogram.png",
                                        "receivers.csv", "fields.xdmf", NULL};
const fdx_sim_series FDX_SIM_FIELDS = {"fields", "u_", ".h5"}, FDX_SIM_FRAMES = {"frames", "frame_", ".png"};
static const fdx_sim_series *const SERIES[] = {&FDX_SIM_FIELDS, &FDX_SIM_FRAMES};

int64_t fdx_sim_series_step(const fdx_sim_series *se, const char *name)
{
    size_t lp = strlen(se->prefix), ls = strlen(se->suffix), n = strlen(name);
    if (n <= lp + ls || strncmp(name, se->prefix, lp) != 0 || strcmp(name + n - ls, se->suffix) != 0) return -1;
    int64_t v = 0;
    for (size_t i = lp; i < n - ls; i++) {
        if (name[i] < '0' || name[i] > '9' || v > INT64_MAX / 10 - 10) return -1;
        v = 10 * v + (name[i] - '0');
    }
    return v;
}

/* A temporary of the atomic writer ("NAME.tmp.PID" or "NAME.tmp.PID.N")
   whose process is gone. */
static int stale_tmp(const char *name)
{
    const char *t = strstr(name, ".tmp.");
    if (!t || !t[5]) return 0;
    char *end;
    long pid = strtol(t + 5, &end, 10);
    if (end == t + 5 || pid <= 0) return 0;
    if (*end == '.') {
        char *end2;
        strtoul(end + 1, &end2, 10);
        if (end2 == end + 1) return 0;
        end = end2;
    }
    if (*end) return 0;
    return pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

fdx_status fdx_sim_each_entry(const char *dir, const char *sub,
                              fdx_status (*fn)(const char *path, const char *name, void *arg), void *arg)
{
    char path[1200];
    snprintf(path, sizeof path, "%s%s%s", dir, sub[0] ? "/" : "", sub);
    DIR *d = opendir(path);
    if (!d) return FDX_OK;
    fdx_status st = FDX_OK;
    struct dirent *e;
    while (st == FDX_OK && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char file[1500];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        st = fn(file, e->d_name, arg);
    }
    closedir(d);
    return st;
}

typedef struct claim_scan {
    const fdx_sim_series *se; /* NULL: DIR itself */
    int64_t after;    /* remove: series steps above this (-1: all run files) */
    int64_t field_every;
    int remove, found;
    char first[256];
} claim_scan;

static fdx_status on_entry(const char *path, const char *name, void *arg)
{
    claim_scan *c = arg;
    int mine = stale_tmp(name), run = 0;
    if (!mine && c->se) {
        int64_t k = fdx_sim_series_step(c->se, name);
        run = k >= 0 && k > c->after;
    } else if (!mine) {
        for (int i = 0; RUN_FILES[i]; i++) run |= c->after < 0 && strcmp(name, RUN_FILES[i]) == 0;
    }
    /* Restart: a field off the schedule at or before the checkpoint is the
       final field of an earlier, shorter run; the continued run ends later. */
    if (!mine && c->se == &FDX_SIM_FIELDS && c->after >= 0) {
        int64_t k = fdx_sim_series_step(c->se, name);
        run |= k > 0 && (c->field_every == 0 || k % c->field_every != 0);
    }
    if (run && !c->found++) snprintf(c->first, sizeof c->first, "%s%s%s", c->se ? c->se->sub : "", c->se ? "/" : "", name);
    if ((run || mine) && c->remove)
        FDX_CHECK(unlink(path) == 0 || errno == ENOENT, FDX_ERR_IO, "cannot remove '%s': %s", path, strerror(errno));
    return FDX_OK;
}

/* Finds (remove = 0) or removes the run files of dir; series files only
   above step `after` (-1: all), and earlier final fields off the schedule of
   field_every. */
static fdx_status scan_run_files(const char *dir, int64_t after, int64_t field_every, int remove, claim_scan *c)
{
    memset(c, 0, sizeof *c);
    c->remove = remove;
    c->after = after;
    c->field_every = field_every;
    FDX_TRY(fdx_sim_each_entry(dir, "", on_entry, c));
    for (size_t i = 0; i < sizeof SERIES / sizeof SERIES[0]; i++) {
        c->se = SERIES[i];
        FDX_TRY(fdx_sim_each_entry(dir, SERIES[i]->sub, on_entry, c));
    }
    return FDX_OK;
}

int fdx_sim_same_dir(const char *a, const char *b)
{
    struct stat sa, sb;
    return a && b && a[0] && b[0] && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

fdx_status fdx_sim_check_output(const char *dir, const char *restart, int overwrite)
{
    FDX_CHECK(dir && dir[0], FDX_ERR_INVALID, "output: the directory name is empty");
    size_t n = strlen(dir);
    FDX_CHECK(n < 480, FDX_ERR_INVALID, "output: the directory name is too long (%zu characters)", n);
    struct stat st;
    if (stat(dir, &st) == 0) {
        FDX_CHECK(S_ISDIR(st.st_mode), FDX_ERR_INVALID, "output: '%s' exists and is not a directory", dir);
        FDX_CHECK(access(dir, W_OK | X_OK) == 0, FDX_ERR_INVALID, "output: directory '%s' is not writable: %s", dir,
                  strerror(errno));
        claim_scan c;
        FDX_TRY(scan_run_files(dir, -1, 0, 0, &c));
        FDX_CHECK(c.found == 0 || overwrite || fdx_sim_same_dir(dir, restart), FDX_ERR_INVALID,
                  "output: '%s' holds the files of another run (%s%s); pass --overwrite to replace them, --restart "
                  "%s to continue that run, or choose another directory",
                  dir, c.first, c.found > 1 ? " and more" : "", dir);
        return FDX_OK;
    }
    /* A new directory: its nearest existing ancestor must be a writable one. */
    char up[512];
    snprintf(up, sizeof up, "%s", dir);
    for (;;) {
        char *slash = strrchr(up, '/');
        if (!slash) {
            snprintf(up, sizeof up, ".");
            break;
        }
        if (slash == up) {
            up[1] = '\0';
            break;
        }
        *slash = '\0';
        if (stat(up, &st) == 0) break;
    }
    FDX_CHECK(stat(up, &st) == 0 && S_ISDIR(st.st_mode), FDX_ERR_INVALID,
              "output: cannot create '%s': '%s' is not a directory", dir, up);
    FDX_CHECK(access(up, W_OK | X_OK) == 0, FDX_ERR_INVALID, "output: cannot create '%s' in '%s': %s", dir, up,
              strerror(errno));
    return FDX_OK;
}

fdx_status fdx_sim_output_claim(const char *dir, const char *restart, int overwrite)
{
    FDX_TRY(fdx_sim_check_output(dir, restart, overwrite));
    if (!overwrite || fdx_sim_same_dir(dir, restart)) return FDX_OK;
    claim_scan c;
    return scan_run_files(dir, -1, 0, 1, &c);
}

fdx_status fdx_sim_remove_after(const char *dir, int64_t after, int64_t field_every)
{
    claim_scan c;
    return scan_run_files(dir, after, field_every, 1, &c);
}
