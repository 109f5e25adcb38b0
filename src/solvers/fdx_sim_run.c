/* fdx_sim_run: the whole run: restart from a checkpoint, the step loop with
   progress, pictures, fields and checkpoints on their schedules, the stop
   request of a signal, and the JSON summary. */
#include "core/fdx_file.h"
#include "fdx/internal/clock.h"
#include "fdx/internal/json.h"
#include "core/fdx_log.h"
#include "solvers/fdx_fieldstats.h"
#include "fdx/internal/io.h"
#include "fdx/metrics.h"
#include "solvers/fdx_sim_output.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted;
/* Set once a run has begun writing: from then on a signal asks for a
   checkpoint and a clean stop; before it there is nothing to save. */
static volatile sig_atomic_t writing;

void fdx_sim_interrupt(void) { interrupted = 1; }

/* Before any output exists (config, allocation, the first kernel compile
   and tuning, which can take many seconds) there is nothing to save: the
   run stops at once when the compile ends (the compiler, in the same process
   group, got the signal too and its temporaries are cleaned up); if it has
   not within 2 s (a long in-process compile or tuning), or at a second
   signal, the process ends with the status of an interrupt. */
static void on_alarm(int sig)
{
    (void)sig;
    _exit(130);
}

static void on_signal(int sig)
{
    (void)sig;
    if (!writing) {
        if (interrupted) _exit(130);
        alarm(2);
    }
    interrupted = 1;
}

fdx_status fdx_sim_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    struct sigaction al = sa;
    al.sa_handler = on_alarm;
    FDX_CHECK(sigaction(SIGINT, &sa, NULL) == 0 && sigaction(SIGTERM, &sa, NULL) == 0 &&
                  sigaction(SIGALRM, &al, NULL) == 0,
              FDX_ERR_INTERNAL, "cannot install the signal handlers");
    /* A file-size limit (ulimit -f) makes write() fail with EFBIG, reported
       as an I/O error with the temporary file removed, instead of killing
       the process with SIGXFSZ and leaving it behind. */
    signal(SIGXFSZ, SIG_IGN);
    return FDX_OK;
}

static void ckpt_path(const char *dir, char *path, size_t cap) { snprintf(path, cap, "%s/checkpoint.fdx", dir); }

fdx_status fdx_sim_config_from_checkpoint(fdx_sim_config *cfg, const char *dir)
{
    FDX_CHECK(cfg && dir, FDX_ERR_INVALID, "fdx_sim_config_from_checkpoint: %s is NULL", cfg ? "dir" : "the config");
    FDX_CHECK(dir[0], FDX_ERR_INVALID, "restart: the directory name is empty (write --restart DIR)");
    FDX_CHECK(strlen(dir) < 480, FDX_ERR_INVALID, "restart: the directory name is too long");
    char path[700];
    ckpt_path(dir, path, sizeof path);
    struct stat sb;
    errno = 0;
    FDX_CHECK(stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode), FDX_ERR_INVALID, "restart: '%s' is not a directory%s", dir,
              errno == ENOENT ? " (it does not exist)" : "");
    FDX_CHECK(stat(path, &sb) == 0 && S_ISREG(sb.st_mode), FDX_ERR_INVALID,
              "restart: '%s' holds no checkpoint.fdx file to resume from", dir);
    fdx_ckpt *c;
    FDX_TRY(fdx_ckpt_read(path, &c));
    const char *text = fdx_ckpt_get_info(c)->config;
    fdx_status st = fdx_sim_config_parse(cfg, text, strlen(text), path);
    if (st == FDX_OK) st = fdx_sim_config_set(cfg, "restart", dir);
    if (st == FDX_OK) st = fdx_sim_config_set(cfg, "output", dir);
    fdx_ckpt_free(&c);
    return st;
}

/* The fields that make the state: the current field, and the previous one
   for the two-level wave scheme. */
static fdx_status write_checkpoint(fdx_sim *s, const char *dir)
{
    size_t bytes = (size_t)s->count * fdx_dtype_size(s->type);
    void *a = malloc(bytes), *b = s->prev ? malloc(bytes) : NULL, *extra = NULL;
    char *text = fdx_sim_config_text(s->cfg);
    fdx_status st = a && (b || !s->prev) && text ? FDX_OK : fdx_fail(FDX_ERR_NOMEM, "no memory for a checkpoint");
    if (st == FDX_OK) st = fdx_sim_pull(s);
    if (st == FDX_OK) st = s->be->stream_sync(s->stream);
    if (st == FDX_OK) st = fdx_sim_download_raw(s, s->cur, a);
    if (st == FDX_OK && b) st = fdx_sim_download_raw(s, s->prev, b);
    if (st == FDX_OK) {
        fdx_ckpt_info info = {s->step, fdx_sim_time(s), s->type, s->rank, {s->n[0], s->n[1], s->n[2]}, text};
        fdx_ckpt_field f[2 + FDX_SIM_MAX_STATE] = {{"u", a}, {"u_prev", b}};
        int nf = b ? 2 : 1;
        st = fdx_sim_state_save(s, f, &nf, &extra); /* the physics' own state (the PML's memory) */
        char path[700];
        ckpt_path(dir, path, sizeof path);
        if (st == FDX_OK) st = fdx_ckpt_write(path, &info, f, nf);
    }
    free(extra);
    free(a);
    free(b);
    free(text);
    return st;
}

/* A restart continues the checkpoint's run: every key but the run length and
   the places things go must be the checkpoint's. */
static fdx_status restart_same_config(const fdx_sim *s, const char *text, const char *path)
{
    fdx_sim_config *old;
    FDX_TRY(fdx_sim_config_create(s->kind, &old));
    fdx_status st = fdx_sim_config_parse(old, text, strlen(text), path);
    const char *now = NULL, *then = NULL, *key = st == FDX_OK ? fdx_sim_config_restart_diff(s->cfg, old, &now, &then) : NULL;
    if (key)
        st = fdx_fail(FDX_ERR_INVALID,
                      "restart: %s = '%s' differs from the checkpoint's %s = '%s' in '%s'; a restart continues the same "
                      "run (start a new run in another directory to change it)",
                      key, now, key, then, path);
    fdx_sim_config_destroy(&old);
    return st;
}

static fdx_status load_checkpoint(fdx_sim *s, const char *dir)
{
    char path[700];
    ckpt_path(dir, path, sizeof path);
    fdx_ckpt *c;
    FDX_TRY(fdx_ckpt_read(path, &c));
    const fdx_ckpt_info *in = fdx_ckpt_get_info(c);
    fdx_status st = restart_same_config(s, in->config, path);
    int same = in->rank == s->rank && in->type == s->type;
    for (int d = 0; same && d < s->rank; d++) same = in->shape[d] == s->n[d];
    const void *u = fdx_ckpt_get_field(c, "u"), *up = fdx_ckpt_get_field(c, "u_prev");
    if (st == FDX_OK && !same)
        st = fdx_fail(FDX_ERR_INVALID, "restart: '%s' holds another grid or element type than the run", path);
    else if (st == FDX_OK && (!u || (s->prev && !up)))
        st = fdx_fail(FDX_ERR_INVALID, "restart: '%s' lacks the fields of a %s run", path, fdx_sim_kind_name(s->kind));
    else if (st == FDX_OK && (in->step < 0 || in->step > s->steps))
        st = fdx_fail(FDX_ERR_INVALID, "restart: checkpoint step %lld is beyond steps = %lld", (long long)in->step,
                      (long long)s->steps);
    if (st == FDX_OK) st = fdx_sim_upload_raw(s, s->cur, u);
    /* Fixed walls: the next buffer carries the same boundary values. */
    if (st == FDX_OK) st = fdx_sim_upload_raw(s, s->next, u);
    if (st == FDX_OK && s->prev) st = fdx_sim_upload_raw(s, s->prev, up);
    s->frames_same = 0; /* the wave's temporal blocking compares them again */
    if (st == FDX_OK) st = fdx_sim_state_load(s, c, path);
    if (st == FDX_OK) fdx_sim_set_step(s, in->step);
    s->fresh = 0;
    fdx_ckpt_free(&c);
    return st;
}

/* Temporal blocking (heat, wave): the steps up to the next point where the
   run looks at the field (a picture, field, checkpoint or finiteness
   check, or the end) are one block; the first step alone (it is timed
   apart). */
static int64_t block_steps(const fdx_sim *s, int64_t check_every, int first)
{
    int64_t n = s->steps - s->step;
    const int64_t every[] = {s->snapshot_every, s->field_every, s->checkpoint_every, check_every};
    for (size_t i = 0; i < sizeof every / sizeof every[0]; i++)
        if (every[i] > 0 && every[i] - s->step % every[i] < n) n = every[i] - s->step % every[i];
    return first || n < 1 ? 1 : n;
}

static fdx_status sync_all(fdx_sim *s) { return s->drv ? s->drv->sync(s) : s->be->stream_sync(s->stream); }

static int due(int64_t step, int64_t every) { return every > 0 && step % every == 0; }

static fdx_status summarize(fdx_sim *s, fdx_sim_result *r, const char *dir)
{
    fdx_json j;
    fdx_json_init(&j);
    fdx_ctx *ctx = s->drv ? s->drv->ctx : s->ctx;
    fdx_json_record_head(&j, fdx_sim_kind_name(s->kind), fdx_backend_kind_name(fdx_ctx_backend(ctx)),
                         fdx_ctx_device_name(ctx), fdx_dtype_name(s->type), s->rank, s->n);
    fdx_json_int(&j, "gpus", s->drv ? s->drv->units : 1);
    fdx_json_int(&j, "ranks", s->drv ? s->drv->procs : 1);
    if (s->drv) fdx_json_bool(&j, "overlap", s->p.overlap);
    fdx_json_int(&j, "order", s->order);
    if (s->kind != FDX_SIM_POISSON) fdx_json_str(&j, "boundary", fdx_sim_config_get(s->cfg, "boundary"));
    if (s->kind == FDX_SIM_WAVE) fdx_json_str(&j, "absorb", fdx_sim_config_get(s->cfg, "absorb"));
    /* Steps a pass through memory of the last block (1: one step a pass). */
    if (s->ops->steps) fdx_json_int(&j, "temporal", s->p.temporal && s->depth_used > 0 ? s->depth_used : 1);
    fdx_json_int(&j, "steps", r->steps);
    fdx_json_int(&j, "steps_this_run", r->steps_this_run);
    fdx_json_bool(&j, "interrupted", r->interrupted);
    fdx_json_num(&j, "dt", s->dt);
    fdx_json_num(&j, "h", s->h);
    fdx_json_begin(&j, "time_s");
    fdx_json_num(&j, "wall", r->wall_s);
    fdx_json_num(&j, "per_step", r->step_s);
    fdx_json_num(&j, "output_wait", r->output_wait_s);
    fdx_json_end(&j);
    fdx_json_num(&j, "mcells_per_s", r->mcells_per_s);
    fdx_json_num(&j, "effective_gbps", r->effective_gbps);
    fdx_json_begin(&j, "diagnostics");
    fdx_json_num(&j, "integral", r->diag.integral);
    fdx_json_num(&j, "max_abs", r->diag.max_abs);
    if (s->kind == FDX_SIM_WAVE) fdx_json_num(&j, "energy", r->diag.energy);
    if (s->kind == FDX_SIM_POISSON) fdx_json_num(&j, "change", r->diag.change);
    fdx_json_end(&j);
    fdx_json_begin(&j, "checksum");
    fdx_json_num(&j, "sum", r->diag.sum);
    fdx_json_num(&j, "l2", r->diag.l2);
    fdx_json_end(&j);
    fdx_json_end(&j);
    fdx_status st = fdx_json_status(&j);
    if (st == FDX_OK) snprintf(r->summary, sizeof r->summary, "%s", fdx_json_text(&j));
    if (st == FDX_OK && dir[0] && !(s->drv && s->drv->quiet)) {
        char path[700];
        snprintf(path, sizeof path, "%s/summary.json", dir);
        char text[sizeof r->summary + 2];
        int n = snprintf(text, sizeof text, "%s\n", r->summary);
        st = fdx_file_write_atomic(path, text, (size_t)n);
    }
    fdx_json_free(&j);
    return st;
}

/* The field (and the wave's previous one) is finite, checked where it lives. */
static fdx_status check_state(fdx_sim *s)
{
    FDX_TRY(fdx_sim_pull(s));
    FDX_TRY(fdx_sim_check_finite(s, s->cur, "the field"));
    return s->prev ? fdx_sim_check_finite(s, s->prev, "the previous field") : FDX_OK;
}

/* The outputs up to this step are on disk, then the checkpoint: a restart
   from it finds every row, frame and field it needs. */
static fdx_status checkpoint_now(fdx_sim *s, fdx_sim_output *out, const char *dir)
{
    FDX_TRY(check_state(s));
    FDX_TRY(fdx_sim_output_sync(out, s));
    return write_checkpoint(s, dir);
}

/* Compiles (or loads) and tunes the kernel before anything is written, by a
   step into the spare buffer that the first real step overwrites: an
   interrupt here leaves nothing behind. */
static fdx_status warm_up(fdx_sim *s)
{
    if (s->drv) return FDX_OK;
    fdx_array *next = s->next;
    int wave = s->kind == FDX_SIM_WAVE;
    FDX_TRY(fdx_stencil_apply(s->stencil, next, s->cur, wave ? s->prev : NULL, wave ? s->coef : NULL, s->stream));
    return s->be->stream_sync(s->stream);
}

/* The output directory claimed and the writer started: nothing of the run
   is on disk before this. */
static fdx_status open_outputs(fdx_sim *s, int64_t first, fdx_sim_output **out)
{
    const char *dir = s->output, *restart = s->p.restart;
    FDX_TRY(fdx_sim_output_claim(dir, restart, s->p.overwrite));
    /* A directory that cannot be made (a read-only or pseudo file system)
       is a bad --output. */
    if (fdx_dir_prepare(dir) != FDX_OK) {
        char why[600];
        snprintf(why, sizeof why, "%s", fdx_last_error());
        return fdx_fail(FDX_ERR_INVALID, "output: %s", why);
    }
    return fdx_sim_output_create(s, dir, restart[0] ? restart : NULL, first, out);
}

/* Steps, time and rates of this call's steps (the first one, which may
   compile and tune, is not timed). */
static void rates(const fdx_sim *s, fdx_sim_result *r, int64_t first, double wall)
{
    r->steps = s->step;
    r->steps_this_run = s->step - first;
    r->wall_s = wall;
    r->step_s = r->steps_this_run > 1 ? r->wall_s / (double)(r->steps_this_run - 1) : 0;
    r->mcells_per_s = r->step_s > 0 ? (double)s->count / r->step_s / 1e6 : 0;
    double fetch = 0, write = 0;
    fdx_stencil_traffic(s->stencil, s->n, &fetch, &write);
    r->effective_gbps = r->step_s > 0 ? (fetch + write) / r->step_s / 1e9 : 0;
}

static fdx_status run(fdx_sim *s, FILE *progress, fdx_sim_result *r);

fdx_status fdx_sim_run(fdx_sim *s, FILE *progress, fdx_sim_result *r)
{
    FDX_CHECK(s && r, FDX_ERR_INVALID, "fdx_sim_run: %s is NULL", s ? "the result" : "the simulation");
    memset(r, 0, sizeof *r);
    FDX_CHECK(s->output[0] || (s->snapshot_every == 0 && s->field_every == 0 && s->checkpoint_every == 0), FDX_ERR_INVALID,
              "snapshot-every, field-every and checkpoint-every need output = DIR");
    /* An interrupt that came before this call (during fdx_sim_create, say)
       counts; the flag is cleared when the run ends. */
    fdx_status rs = run(s, progress, r);
    interrupted = 0;
    return rs;
}

static fdx_status run(fdx_sim *s, FILE *progress, fdx_sim_result *r)
{
    const char *dir = s->output, *restart = s->p.restart;
    if (restart[0]) FDX_TRY(load_checkpoint(s, restart));
    if (s->drv) {
        FDX_TRY(s->drv->push(s));
        s->drv->pulled = s->step;
    }
    FDX_TRY(check_state(s));
    int quiet = s->drv && s->drv->quiet;
    int64_t first = s->step;
    /* The first kernel compile and tuning: before any output exists.  An
       interrupt here (the compile may fail with its compiler killed) ends
       the run with nothing written. */
    fdx_status st = interrupted ? FDX_OK : warm_up(s);
    if (interrupted) {
        r->interrupted = 1;
        r->steps = s->step;
        return summarize(s, r, "");
    }
    FDX_TRY(st);
    /* From here a signal asks for a checkpoint and a clean stop. */
    writing = 1;
    alarm(0);
    fdx_sim_output *out = NULL;
    if (dir[0] && !quiet) FDX_TRY(open_outputs(s, first, &out));
    fdx_progress *bar = NULL;
    if (progress && s->p.progress != FDX_SIM_PROGRESS_OFF) {
        char what[64];
        snprintf(what, sizeof what, "fdx %s", fdx_sim_kind_name(s->kind));
        st = fdx_progress_create(progress, what, s->steps, &bar);
        if (s->p.progress == FDX_SIM_PROGRESS_LINES) fdx_progress_lines(bar);
        fdx_progress_phase(bar, "compiling/tuning"); /* the first step loads or tunes the kernels */
    }
    /* Step 0: the first picture and, when fields are asked for, the first field. */
    if (st == FDX_OK && out && first == 0 && s->snapshot_every > 0) st = fdx_sim_output_snapshot(out, s);
    if (st == FDX_OK && out && first == 0 && s->field_every > 0) st = fdx_sim_output_field(out, s, 0);
    /* The finiteness check at every progress point: a tenth of the run, at
       most 1000 steps apart, and before every output. */
    int64_t check_every = s->steps / 10 < 1 ? 1 : s->steps / 10 > 1000 ? 1000 : s->steps / 10;
    FDX_DEBUG("sim: stepping from step %lld", (long long)s->step);
    /* The clock starts after the first step of this call. */
    double t0 = fdx_now_s();
    int64_t timed_from = s->step + 1;
    while (st == FDX_OK && s->step < s->steps) {
        if (s->drv) st = s->drv->step(s);
        else if (s->p.temporal && s->ops->steps) st = s->ops->steps(s, block_steps(s, check_every, s->step < timed_from));
        else st = fdx_sim_step(s);
        if (st != FDX_OK) break;
        if (s->step == timed_from) {
            if ((st = sync_all(s)) != FDX_OK) break;
            t0 = fdx_now_s();
        }
        /* Every rank of a distributed run pulls at the same steps (the
           gather is collective); only the one with `out` writes. */
        int snap = due(s->step, s->snapshot_every), field = due(s->step, s->field_every) && s->step < s->steps;
        int ckpt = due(s->step, s->checkpoint_every);
        if (dir[0] && (snap || field || ckpt)) st = fdx_sim_pull(s);
        /* Distributed runs hold the global field only when pulled. */
        if (st == FDX_OK && ((!s->drv && s->step % check_every == 0) || (dir[0] && (snap || field || ckpt))))
            st = check_state(s);
        if (st == FDX_OK && out && snap) st = fdx_sim_output_snapshot(out, s);
        if (st == FDX_OK && out && field) st = fdx_sim_output_field(out, s, 0);
        if (st == FDX_OK && out && ckpt) st = checkpoint_now(s, out, dir);
        int stop = 0;
        if (st == FDX_OK && s->ops->converged && (st = s->ops->converged(s, &stop)) == FDX_OK && stop) break;
        fdx_progress_update(bar, s->step);
        if (interrupted) {
            r->interrupted = 1;
            break;
        }
    }
    if (st == FDX_OK) st = sync_all(s);
    double t1 = fdx_now_s();
    FDX_DEBUG("sim: stepping done at step %lld", (long long)s->step);
    if (st == FDX_OK) st = check_state(s);
    fdx_progress_finish(st == FDX_OK ? bar : NULL, s->step);
    fdx_progress_destroy(&bar);
    if (st == FDX_OK && out && !r->interrupted) st = fdx_sim_output_field(out, s, 1);
    /* A blown-up run keeps what it wrote up to the last good check (frames,
       the GIF, receivers); the last checkpoint stays the last good state. */
    int blew_up = st == FDX_ERR_VERIFY;
    char why[700];
    snprintf(why, sizeof why, "%s", st != FDX_OK ? fdx_last_error() : "");
    if (out) {
        fdx_status fst = fdx_sim_output_finish(out, s, st != FDX_OK && !blew_up);
        if (st == FDX_OK) st = fst;
        r->output_wait_s = fdx_sim_output_wait_s(out);
    }
    if (st == FDX_OK && out && (r->interrupted || s->checkpoint_every > 0)) st = write_checkpoint(s, dir);
    fdx_sim_output_destroy(&out);
    if (blew_up) return fdx_fail(FDX_ERR_VERIFY, "%s", why);
    if (st != FDX_OK) return st;
    rates(s, r, first, t1 - t0);
    FDX_DEBUG("sim: outputs done");
    FDX_TRY(fdx_sim_diagnose(s, &r->diag));
    FDX_DEBUG("sim: diagnostics done");
    return summarize(s, r, dir);
}
