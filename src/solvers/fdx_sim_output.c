/* fdx_sim_output: pictures, fields and traces written by a worker thread. */
#include "solvers/fdx_sim_output.h"

#include "fdx/io.h"
#include "solvers/fdx_pinned.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define QUEUE 4

typedef struct job {
    int kind; /* 1 picture, 2 field */
    int64_t step;
    double time;
    double *slice; /* picture: nx * ny doubles (owned) */
} job;

struct fdx_sim_output {
    fdx_sim *s;
    char dir[512];
    pthread_t thread;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    job q[QUEUE];
    int head, count, stop, busy_field;
    char error[600];
    fdx_status error_status;
    double wait_s;
    /* Pictures. */
    fdx_gif *gif;
    unsigned char palette[768];
    int scale;
    int gif_frames;
    /* receivers.csv: started by this process, and the last step on disk. */
    int csv_started;
    int64_t csv_step;
    /* Fields: spare device copy, pinned host copy, the worker's stream. */
    void *spare, *host, *wstream;
    fdx_xdmf_entry *entries;
    int nentries, capentries;
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int64_t fdx_sim_slice_k(const fdx_sim *s)
{
    if (s->rank < 3) return 0;
    if (s->kind == FDX_SIM_WAVE) return s->src / (s->n[0] * s->n[1]);
    return s->n[2] / 2;
}

static void record_error(fdx_sim_output *o, fdx_status st)
{
    pthread_mutex_lock(&o->mu);
    if (o->error_status == FDX_OK) {
        o->error_status = st;
        snprintf(o->error, sizeof o->error, "%s", fdx_last_error());
    }
    pthread_mutex_unlock(&o->mu);
}

static fdx_status write_picture(fdx_sim_output *o, const job *j)
{
    fdx_sim *s = o->s;
    int nx = (int)s->n[0], ny = (int)s->n[1];
    double lo = s->range[0], hi = s->range[1];
    if (s->kind != FDX_SIM_HEAT) {
        double mn = INFINITY, mx = -INFINITY;
        for (int64_t i = 0; i < (int64_t)nx * ny; i++) {
            if (j->slice[i] < mn) mn = j->slice[i];
            if (j->slice[i] > mx) mx = j->slice[i];
        }
        if (s->kind == FDX_SIM_WAVE) {
            /* Symmetric about zero so the diverging map's white is u = 0. */
            double m = fmax(fabs(mn), fabs(mx));
            if (!(m > 1e-30)) m = 1e-30;
            lo = -m;
            hi = m;
        } else {
            lo = mn;
            hi = mx > mn ? mx : mn + 1;
        }
    }
    if (!(hi > lo)) hi = lo + 1;
    fdx_image idx, rgb;
    FDX_TRY(fdx_image_from_field(j->slice, nx, ny, lo, hi, o->scale, &idx));
    fdx_status st = FDX_OK;
    if (!o->gif) {
        char path[700];
        snprintf(path, sizeof path, "%s/animation.gif", o->dir);
        st = fdx_gif_open(path, idx.width, idx.height, o->palette, 8, &o->gif);
    }
    if (st == FDX_OK) st = fdx_gif_add(o->gif, &idx);
    if (st == FDX_OK) st = fdx_image_to_rgb(&idx, o->palette, &rgb);
    if (st == FDX_OK) {
        char path[700];
        snprintf(path, sizeof path, "%s/frames/frame_%08lld.png", o->dir, (long long)j->step);
        st = fdx_png_write(path, &rgb);
        fdx_image_free(&rgb);
    }
    fdx_image_free(&idx);
    return st;
}

/* One more field file in the XDMF time series; a file already listed (the
   final field of a run restarted after it finished) is listed once. */
static fdx_status add_entry(fdx_sim_output *o, double time, const char *file)
{
    for (int i = 0; i < o->nentries; i++)
        if (strcmp(o->entries[i].file, file) == 0) {
            o->entries[i].time = time;
            return FDX_OK;
        }
    if (o->nentries == o->capentries) {
        int cap = o->capentries ? 2 * o->capentries : 16;
        fdx_xdmf_entry *e = realloc(o->entries, (size_t)cap * sizeof *e);
        FDX_CHECK(e, FDX_ERR_NOMEM, "no memory for the XDMF index");
        o->entries = e;
        o->capentries = cap;
    }
    fdx_xdmf_entry *e = &o->entries[o->nentries++];
    memset(e, 0, sizeof *e);
    e->time = time;
    snprintf(e->file, sizeof e->file, "%s", file);
    snprintf(e->dataset, sizeof e->dataset, "u");
    return FDX_OK;
}

static fdx_status write_field(fdx_sim_output *o, const job *j)
{
    fdx_sim *s = o->s;
    size_t bytes = (size_t)s->count * fdx_dtype_size(s->type);
    FDX_TRY(s->be->copy(o->host, o->spare, bytes, FDX_COPY_D2H, o->wstream));
    FDX_TRY(s->be->stream_sync(o->wstream));
    pthread_mutex_lock(&o->mu);
    o->busy_field = 0; /* the spare device buffer may take the next field */
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
    char name[64], path[700];
    snprintf(name, sizeof name, "fields/u_%08lld.h5", (long long)j->step);
    snprintf(path, sizeof path, "%s/%s", o->dir, name);
    /* Always 3D (a 2D field is 1 x NY x NX): the layout the XDMF index
       needs for ParaView to show a 2D field in the XY plane. */
    FDX_TRY(fdx_h5_write_field(path, "u", o->host, s->type, 3, s->n, j->time, j->step));
    FDX_TRY(add_entry(o, j->time, name));
    double h[3] = {s->h, s->h, s->h};
    snprintf(path, sizeof path, "%s/fields.xdmf", o->dir);
    return fdx_xdmf_write(path, "u", s->type, s->rank, s->n, h, o->entries, o->nentries);
}

static void *worker(void *arg)
{
    fdx_sim_output *o = arg;
    const fdx_device_info *dev = fdx_ctx_device(o->s->ctx);
    if (o->s->be->set_device) o->s->be->set_device(dev->ordinal);
    for (;;) {
        pthread_mutex_lock(&o->mu);
        while (o->count == 0 && !o->stop) pthread_cond_wait(&o->cv, &o->mu);
        if (o->count == 0 && o->stop) {
            pthread_mutex_unlock(&o->mu);
            return NULL;
        }
        job j = o->q[o->head];
        pthread_mutex_unlock(&o->mu);
        fdx_status st = j.kind == 1 ? write_picture(o, &j) : write_field(o, &j);
        if (st != FDX_OK) record_error(o, st);
        free(j.slice);
        pthread_mutex_lock(&o->mu);
        if (j.kind == 2) o->busy_field = 0;
        o->head = (o->head + 1) % QUEUE;
        o->count--;
        pthread_cond_broadcast(&o->cv);
        pthread_mutex_unlock(&o->mu);
    }
}

/* Waits (timed) until the queue has room and, for fields, the spare is free. */
static fdx_status submit(fdx_sim_output *o, job *j)
{
    double t0 = now_s();
    pthread_mutex_lock(&o->mu);
    while (o->count == QUEUE || (j->kind == 2 && o->busy_field)) pthread_cond_wait(&o->cv, &o->mu);
    o->q[(o->head + o->count) % QUEUE] = *j;
    o->count++;
    if (j->kind == 2) o->busy_field = 1;
    fdx_status st = o->error_status;
    char msg[600];
    snprintf(msg, sizeof msg, "%s", o->error);
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
    o->wait_s += now_s() - t0;
    return st == FDX_OK ? FDX_OK : fdx_fail(st, "%s", msg);
}

/* The spare device buffer, the pinned host buffer and the worker's stream:
   pinning half a gigabyte takes a tenth of a second, so runs that write
   fields during the loop get them before it starts. */
static fdx_status field_buffers(fdx_sim_output *o)
{
    fdx_sim *s = o->s;
    if (o->spare) return FDX_OK;
    size_t bytes = (size_t)s->count * fdx_dtype_size(s->type);
    FDX_TRY(s->be->alloc(bytes, &o->spare));
    FDX_TRY(fdx_pinned_alloc(s->ctx, bytes, &o->host));
    if (s->stream) FDX_TRY(s->be->stream_create(&o->wstream));
    return FDX_OK;
}

/* ---- the files of a run in its directory --------------------------------- */

/* The single files a run writes in DIR, and its numbered series. */
static const char *const RUN_FILES[] = {"checkpoint.fdx", "summary.json", "animation.gif", "seismogram.png",
                                        "receivers.csv", "fields.xdmf", NULL};
typedef struct series {
    const char *sub, *prefix, *suffix;
} series;
static const series SERIES[] = {{"fields", "u_", ".h5"}, {"frames", "frame_", ".png"}};

/* The step of a series file name (prefix, digits, suffix), or -1. */
static int64_t series_step(const series *se, const char *name)
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

/* Calls fn for each entry of dir/sub (sub may be ""); stops at an error. */
static fdx_status each_entry(const char *dir, const char *sub, fdx_status (*fn)(const char *path, const char *name,
                                                                                 void *arg),
                             void *arg)
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
    const series *se; /* NULL: DIR itself */
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
        int64_t k = series_step(c->se, name);
        run = k >= 0 && k > c->after;
    } else if (!mine) {
        for (int i = 0; RUN_FILES[i]; i++) run |= c->after < 0 && strcmp(name, RUN_FILES[i]) == 0;
    }
    /* Restart: a field off the schedule at or before the checkpoint is the
       final field of an earlier, shorter run; the continued run ends later. */
    if (!mine && c->se == &SERIES[0] && c->after >= 0) {
        int64_t k = series_step(c->se, name);
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
    FDX_TRY(each_entry(dir, "", on_entry, c));
    for (size_t i = 0; i < sizeof SERIES / sizeof SERIES[0]; i++) {
        c->se = &SERIES[i];
        FDX_TRY(each_entry(dir, SERIES[i].sub, on_entry, c));
    }
    return FDX_OK;
}

static int same_dir(const char *a, const char *b)
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
        FDX_CHECK(c.found == 0 || overwrite || same_dir(dir, restart), FDX_ERR_INVALID,
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
    if (!overwrite || same_dir(dir, restart)) return FDX_OK;
    claim_scan c;
    return scan_run_files(dir, -1, 0, 1, &c);
}

/* ---- continuing a run's outputs after a restart ---------------------------- */

typedef struct index_scan {
    fdx_sim_output *o;
    int64_t upto;
} index_scan;

static fdx_status add_entry(fdx_sim_output *o, double time, const char *file);

static fdx_status on_field(const char *path, const char *name, void *arg)
{
    (void)path;
    index_scan *x = arg;
    int64_t k = series_step(&SERIES[0], name);
    if (k < 0 || k > x->upto) return FDX_OK;
    char file[300];
    snprintf(file, sizeof file, "fields/%s", name);
    return add_entry(x->o, (double)k * x->o->s->dt, file);
}

static int by_time(const void *a, const void *b)
{
    double x = ((const fdx_xdmf_entry *)a)->time, y = ((const fdx_xdmf_entry *)b)->time;
    return x < y ? -1 : x > y;
}

/* The fields already written up to `upto` stay in the XDMF index, in step order. */
static fdx_status index_kept_fields(fdx_sim_output *o, int64_t upto)
{
    index_scan x = {o, upto};
    FDX_TRY(each_entry(o->dir, "fields", on_field, &x));
    if (o->nentries > 1) qsort(o->entries, (size_t)o->nentries, sizeof *o->entries, by_time);
    return FDX_OK;
}

/* The animation restarts with the frames kept as PNGs (steps 0, E, 2E, ...
   up to `upto`), mapped back to the palette's indices. */
static fdx_status gif_kept_frames(fdx_sim_output *o, int64_t upto)
{
    fdx_sim *s = o->s;
    /* Colour -> index: an open-addressed table of the 256 palette colours. */
    int32_t key[1024];
    unsigned char val[1024];
    memset(key, 0xff, sizeof key);
    for (int i = 255; i >= 0; i--) {
        int32_t c = o->palette[3 * i] << 16 | o->palette[3 * i + 1] << 8 | o->palette[3 * i + 2];
        unsigned h = ((uint32_t)c * 2654435761u) >> 22;
        while (key[h] != -1 && key[h] != c) h = (h + 1) & 1023;
        key[h] = c;
        val[h] = (unsigned char)i;
    }
    fdx_status st = FDX_OK;
    for (int64_t k = 0; st == FDX_OK && k <= upto; k += s->snapshot_every) {
        char path[700];
        snprintf(path, sizeof path, "%s/frames/frame_%08lld.png", o->dir, (long long)k);
        if (access(path, R_OK) != 0) continue; /* removed by the user: nothing to continue from */
        fdx_image rgb, idx;
        FDX_TRY(fdx_png_read(path, &rgb));
        st = fdx_image_create(rgb.width, rgb.height, 1, &idx);
        for (size_t p = 0; st == FDX_OK && p < (size_t)rgb.width * (size_t)rgb.height; p++) {
            const unsigned char *q = rgb.pixels + 3 * p;
            int32_t c = q[0] << 16 | q[1] << 8 | q[2];
            unsigned h = ((uint32_t)c * 2654435761u) >> 22;
            while (key[h] != -1 && key[h] != c) h = (h + 1) & 1023;
            if (key[h] != c) st = fdx_fail(FDX_ERR_INVALID, "restart: '%s' has colours that are not the run's palette", path);
            else idx.pixels[p] = val[h];
        }
        if (st == FDX_OK && !o->gif) {
            char gif[700];
            snprintf(gif, sizeof gif, "%s/animation.gif", o->dir);
            st = fdx_gif_open(gif, idx.width, idx.height, o->palette, 8, &o->gif);
        }
        if (st == FDX_OK) st = fdx_gif_add(o->gif, &idx);
        if (st == FDX_OK) o->gif_frames++;
        fdx_image_free(&idx);
        fdx_image_free(&rgb);
    }
    return st;
}

/* The receivers' rows 1..upto come back from receivers.csv into the device
   buffer (the same text is written again: %.9g reads back to a value that
   prints the same); steps missing from the file are NaN. */
static fdx_status receivers_kept_rows(fdx_sim_output *o, int64_t upto)
{
    fdx_sim *s = o->s;
    if (s->nrec == 0 || upto == 0) return FDX_OK;
    char path[700], *text;
    size_t size;
    snprintf(path, sizeof path, "%s/receivers.csv", o->dir);
    if (access(path, F_OK) != 0) return FDX_OK; /* this run's rows start after the checkpoint */
    FDX_TRY(fdx_file_read(path, (size_t)1 << 40, &text, &size));
    size_t es = fdx_dtype_size(s->type), rows = (size_t)upto, nrec = (size_t)s->nrec;
    char *vals = malloc(rows * nrec * es);
    fdx_status st = vals ? FDX_OK : fdx_fail(FDX_ERR_NOMEM, "no memory for the receivers' rows");
    for (size_t q = 0; st == FDX_OK && q < rows * nrec; q++) {
        if (es == 8) ((double *)vals)[q] = NAN;
        else ((float *)vals)[q] = NAN;
    }
    char *line = text, *next;
    int header = 1;
    for (; st == FDX_OK && line < text + size && *line; line = next) {
        next = strchr(line, '\n');
        if (!next) break; /* a last line without its newline was cut short */
        *next++ = '\0';
        if (header) {
            int cols = 1;
            for (char *c = line; *c; c++) cols += *c == ',';
            if (strncmp(line, "step,time", 9) != 0 || cols != s->nrec + 2)
                st = fdx_fail(FDX_ERR_INVALID, "restart: '%s' has %d columns, not step, time and %d receivers", path,
                              cols, s->nrec);
            header = 0;
            continue;
        }
        char *p = line, *end;
        long long step = strtoll(p, &end, 10);
        if (end == p || *end != ',' || step < 1 || step > (long long)upto) continue;
        p = strchr(end + 1, ',');
        double row[FDX_SIM_MAX_REC];
        int i = 0;
        while (p && i < s->nrec) {
            row[i] = strtod(p + 1, &end);
            if (end == p + 1) break;
            i++;
            p = *end == ',' ? end : NULL;
        }
        if (i != s->nrec) continue; /* a damaged row stays unknown (NaN) */
        for (i = 0; i < s->nrec; i++) {
            size_t q = (size_t)(step - 1) * nrec + (size_t)i;
            if (es == 8) ((double *)vals)[q] = row[i];
            else ((float *)vals)[q] = (float)row[i];
        }
    }
    free(text);
    /* Device layout: step-major, step k at k * nrec. */
    if (st == FDX_OK)
        st = s->be->copy((char *)s->rec_buf_dev + nrec * es, vals, rows * nrec * es, FDX_COPY_H2D, s->stream);
    if (st == FDX_OK) st = s->be->stream_sync(s->stream);
    if (st == FDX_OK) s->rec_first = 0;
    free(vals);
    return st;
}

fdx_status fdx_sim_output_create(fdx_sim *s, const char *dir, const char *restart, int64_t first_step,
                                 fdx_sim_output **out)
{
    *out = NULL;
    fdx_sim_output *o = calloc(1, sizeof *o);
    FDX_CHECK(o, FDX_ERR_NOMEM, "no memory for the output writer");
    o->s = s;
    snprintf(o->dir, sizeof o->dir, "%s", dir);
    pthread_mutex_init(&o->mu, NULL);
    pthread_cond_init(&o->cv, NULL);
    fdx_cmap_palette(s->kind == FDX_SIM_WAVE ? FDX_CMAP_DIVERGING : FDX_CMAP_SEQUENTIAL, o->palette);
    o->scale = (int)atoi(fdx_sim_config_get(s->cfg, "scale"));
    if (o->scale == 0) {
        /* About 512 pixels wide, at most 8 per cell. */
        int64_t big = s->n[0] > s->n[1] ? s->n[0] : s->n[1];
        o->scale = big >= 512 ? 1 : (int)(512 / big) > 8 ? 8 : (int)(512 / big);
    }
    fdx_status st = FDX_OK;
    char sub[700];
    if (s->snapshot_every > 0) {
        snprintf(sub, sizeof sub, "%s/frames", dir);
        st = fdx_dir_prepare(sub);
    }
    if (st == FDX_OK) {
        snprintf(sub, sizeof sub, "%s/fields", dir);
        st = fdx_dir_prepare(sub);
    }
    if (st == FDX_OK && first_step > 0 && same_dir(dir, restart)) {
        claim_scan c;
        st = scan_run_files(dir, first_step, s->field_every, 1, &c);
        if (st == FDX_OK) st = index_kept_fields(o, first_step);
        if (st == FDX_OK && s->snapshot_every > 0) st = gif_kept_frames(o, first_step);
        if (st == FDX_OK) st = receivers_kept_rows(o, first_step);
    }
    if (st == FDX_OK && s->field_every > 0 && s->field_every < s->steps) st = field_buffers(o);
    if (st == FDX_OK && pthread_create(&o->thread, NULL, worker, o) != 0)
        st = fdx_fail(FDX_ERR_INTERNAL, "cannot start the output thread");
    if (st != FDX_OK) {
        fdx_sim_output_destroy(&o);
        return st;
    }
    o->started = 1;
    *out = o;
    return FDX_OK;
}

fdx_status fdx_sim_output_snapshot(fdx_sim_output *o)
{
    fdx_sim *s = o->s;
    size_t plane = (size_t)s->n[0] * (size_t)s->n[1], es = fdx_dtype_size(s->type);
    void *raw = malloc(plane * es);
    double *slice = malloc(plane * sizeof(double));
    if (!raw || !slice) {
        free(raw);
        free(slice);
        return fdx_fail(FDX_ERR_NOMEM, "no memory for a picture");
    }
    /* Only the drawn plane leaves the device: contiguous, small. */
    const char *src = (const char *)fdx_array_device(s->cur) + (size_t)fdx_sim_slice_k(s) * plane * es;
    fdx_status st = s->be->copy(raw, src, plane * es, FDX_COPY_D2H, s->stream);
    if (st == FDX_OK) st = s->be->stream_sync(s->stream);
    for (size_t i = 0; st == FDX_OK && i < plane; i++) slice[i] = es == 8 ? ((double *)raw)[i] : ((float *)raw)[i];
    free(raw);
    if (st != FDX_OK) {
        free(slice);
        return st;
    }
    job j = {1, s->step, fdx_sim_time(s), slice};
    return submit(o, &j);
}

fdx_status fdx_sim_output_field(fdx_sim_output *o)
{
    fdx_sim *s = o->s;
    /* Wait for the spare, copy on the compute stream, then hand it over. */
    double t0 = now_s();
    pthread_mutex_lock(&o->mu);
    while (o->busy_field) pthread_cond_wait(&o->cv, &o->mu);
    pthread_mutex_unlock(&o->mu);
    o->wait_s += now_s() - t0;
    size_t bytes = (size_t)s->count * fdx_dtype_size(s->type);
    FDX_TRY(field_buffers(o));
    FDX_TRY(s->be->copy(o->spare, fdx_array_device(s->cur), bytes, FDX_COPY_D2D, s->stream));
    FDX_TRY(s->be->stream_sync(s->stream));
    job j = {2, s->step, fdx_sim_time(s), NULL};
    return submit(o, &j);
}

/* Appends to an existing file, then flushes it to the disk. */
static fdx_status append_synced(const char *path, const char *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    FDX_CHECK(fd >= 0, FDX_ERR_IO, "cannot open '%s' to append: %s", path, strerror(errno));
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            close(fd);
            return fdx_fail(FDX_ERR_IO, "cannot append to '%s': %s", path, strerror(e));
        }
        data += n;
        size -= (size_t)n;
    }
    int ok = fsync(fd) == 0, e = errno;
    close(fd);
    FDX_CHECK(ok, FDX_ERR_IO, "cannot flush '%s' to the disk: %s", path, strerror(e));
    return FDX_OK;
}

/* receivers.csv grows with the run: before each checkpoint and at the end
   the rows not on disk yet are appended (and fsynced), so the cost is the
   new rows only.  A process's first write (a new file, or the rows read
   back after a restart) replaces the file atomically; a row cut short by a
   crash is dropped when the next restart reads the file back. */
static fdx_status csv_update(fdx_sim_output *o)
{
    fdx_sim *s = o->s;
    int64_t to = s->step < s->steps ? s->step : s->steps, from = o->csv_started ? o->csv_step : s->rec_first;
    if (s->nrec == 0 || to <= from) return FDX_OK;
    FDX_TRY(fdx_sim_pull(s));
    size_t es = fdx_dtype_size(s->type), nrec = (size_t)s->nrec, rows = (size_t)(to - from);
    size_t cap = 64 + nrec * 12 + rows * (nrec + 1) * 26, k = 0;
    char *raw = malloc(rows * nrec * es), *csv = malloc(cap);
    fdx_status st = raw && csv ? FDX_OK : fdx_fail(FDX_ERR_NOMEM, "no memory for receivers.csv");
    /* Device layout: step-major, step k at k * nrec. */
    if (st == FDX_OK)
        st = s->be->copy(raw, (char *)s->rec_buf_dev + (size_t)(from + 1) * nrec * es, rows * nrec * es, FDX_COPY_D2H,
                         s->stream);
    if (st == FDX_OK) st = s->be->stream_sync(s->stream);
    if (st == FDX_OK && !o->csv_started) {
        k += (size_t)snprintf(csv + k, cap - k, "step,time");
        for (int i = 0; i < s->nrec; i++) k += (size_t)snprintf(csv + k, cap - k, ",r%d", i);
        k += (size_t)snprintf(csv + k, cap - k, "\n");
    }
    for (size_t r = 0; st == FDX_OK && r < rows; r++) {
        int64_t step = from + 1 + (int64_t)r;
        k += (size_t)snprintf(csv + k, cap - k, "%lld,%.9g", (long long)step, (double)step * s->dt);
        for (size_t i = 0; i < nrec; i++) {
            size_t q = r * nrec + i;
            k += (size_t)snprintf(csv + k, cap - k, ",%.9g", es == 8 ? ((double *)raw)[q] : (double)((float *)raw)[q]);
        }
        k += (size_t)snprintf(csv + k, cap - k, "\n");
    }
    char path[700];
    snprintf(path, sizeof path, "%s/receivers.csv", o->dir);
    if (st == FDX_OK) st = o->csv_started ? append_synced(path, csv, k) : fdx_file_write_atomic(path, csv, k);
    if (st == FDX_OK) {
        o->csv_started = 1;
        o->csv_step = to;
    }
    free(raw);
    free(csv);
    return st;
}

/* receivers.csv up to the current step, and with `picture` the seismogram
   drawn from all the traces. */
static fdx_status write_receivers(fdx_sim_output *o, int picture)
{
    fdx_sim *s = o->s;
    FDX_TRY(csv_update(o));
    if (!picture) return FDX_OK;
    int nrec;
    int64_t nsteps;
    const double *t;
    FDX_TRY(fdx_sim_receivers(s, &nrec, &nsteps, &t));
    if (nrec == 0 || nsteps == 0) return FDX_OK;
    double m = 1e-30;
    for (size_t q = 0; q < (size_t)nrec * (size_t)nsteps; q++)
        if (fabs(t[q]) > m) m = fabs(t[q]); /* false for NaN: rows lost before a restart */
    char path[700];
    fdx_status st;
    /* Seismogram: receivers across, time downward, diverging map; clipped
       at a third of the peak so late, weaker arrivals show. */
    int w = nrec * 8, h = nsteps > 1024 ? 1024 : (int)nsteps;
    double *img = malloc((size_t)nrec * (size_t)h * sizeof(double));
    FDX_CHECK(img, FDX_ERR_NOMEM, "no memory for the seismogram");
    for (int y = 0; y < h; y++)
        for (int i = 0; i < nrec; i++) {
            int64_t n = (int64_t)y * nsteps / h;
            double v = t[(size_t)i * (size_t)nsteps + (size_t)n];
            img[i + (size_t)nrec * (size_t)(h - 1 - y)] = isfinite(v) ? v : 0;
        }
    fdx_image idx, rgb;
    unsigned char pal[768];
    fdx_cmap_palette(FDX_CMAP_DIVERGING, pal);
    st = fdx_image_from_field(img, nrec, h, -m / 3, m / 3, 1, &idx);
    free(img);
    FDX_TRY(st);
    /* Widen each receiver column to 8 pixels. */
    fdx_image wide;
    st = fdx_image_create(w, h, 1, &wide);
    for (int y = 0; st == FDX_OK && y < h; y++)
        for (int x = 0; x < w; x++) wide.pixels[(size_t)y * w + x] = idx.pixels[(size_t)y * nrec + x / 8];
    fdx_image_free(&idx);
    if (st == FDX_OK) st = fdx_image_to_rgb(&wide, pal, &rgb);
    fdx_image_free(&wide);
    if (st == FDX_OK) {
        snprintf(path, sizeof path, "%s/seismogram.png", o->dir);
        st = fdx_png_write(path, &rgb);
        fdx_image_free(&rgb);
    }
    return st;
}

fdx_status fdx_sim_output_finish(fdx_sim_output *o, int abort)
{
    pthread_mutex_lock(&o->mu);
    o->stop = 1;
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
    if (o->started) pthread_join(o->thread, NULL);
    o->started = 0;
    if (o->error_status != FDX_OK) {
        fdx_gif_abort(&o->gif);
        return fdx_fail(o->error_status, "%s", o->error);
    }
    if (abort) {
        fdx_gif_abort(&o->gif);
        return FDX_OK;
    }
    FDX_TRY(fdx_gif_close(&o->gif));
    return write_receivers(o, 1);
}

fdx_status fdx_sim_output_sync(fdx_sim_output *o)
{
    if (!o) return FDX_OK;
    double t0 = now_s();
    pthread_mutex_lock(&o->mu);
    while (o->count > 0) pthread_cond_wait(&o->cv, &o->mu);
    fdx_status st = o->error_status;
    char msg[600];
    snprintf(msg, sizeof msg, "%s", o->error);
    pthread_mutex_unlock(&o->mu);
    o->wait_s += now_s() - t0;
    if (st != FDX_OK) return fdx_fail(st, "%s", msg);
    return write_receivers(o, 0);
}

double fdx_sim_output_wait_s(const fdx_sim_output *o) { return o->wait_s; }

void fdx_sim_output_destroy(fdx_sim_output **po)
{
    fdx_sim_output *o = po ? *po : NULL;
    if (!o) return;
    if (o->started) fdx_sim_output_finish(o, 1);
    fdx_gif_abort(&o->gif);
    if (o->spare) o->s->be->free(o->spare);
    fdx_pinned_free(o->s->ctx, o->host);
    if (o->wstream) o->s->be->stream_destroy(o->wstream);
    free(o->entries);
    pthread_mutex_destroy(&o->mu);
    pthread_cond_destroy(&o->cv);
    free(o);
    *po = NULL;
}
