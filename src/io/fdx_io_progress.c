/* fdx_io_progress: a progress bar (step, rate, ETA) redrawn in place on a
   terminal; on a file or pipe, a plain log line every tenth of the run.
   Work before the first step (compiling and tuning kernels) is a phase of
   its own: shown by name, and kept out of the rate, so the ETA counts
   stepping only. */
#include "core/fdx_error.h"
#include "core/fdx_file.h"
#include "fdx/internal/clock.h"
#include "core/fdx_knob.h"
#include "fdx/internal/io.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fdx_progress {
    FILE *out;
    char what[64], phase[64];
    int64_t total, last_tenth;
    int tty;
    double last_draw, phase_t0;
    /* The rate is measured from the first step reported (the first call of
       fdx_progress_update after creation or a phase): whatever the first
       step paid for before it (compiling, tuning) is not stepping. */
    int have_base;
    int64_t done0;
    double t0;
};

fdx_status fdx_progress_create(FILE *out, const char *what, int64_t total, fdx_progress **p)
{
    *p = calloc(1, sizeof **p);
    FDX_CHECK(*p, FDX_ERR_NOMEM, "no memory for a progress bar");
    (*p)->out = out;
    snprintf((*p)->what, sizeof (*p)->what, "%s", what);
    (*p)->total = total > 0 ? total : 1;
    (*p)->tty = out && isatty(fileno(out)) && !fdx_knob(FDX_KNOB_NO_TTY);
    (*p)->t0 = (*p)->last_draw = fdx_now_s();
    (*p)->last_tenth = -1;
    return FDX_OK;
}

void fdx_progress_phase(fdx_progress *p, const char *phase)
{
    if (!p || !p->out) return;
    snprintf(p->phase, sizeof p->phase, "%s", phase && phase[0] ? phase : "preparing");
    p->phase_t0 = fdx_now_s();
    p->have_base = 0;
    if (p->tty) fprintf(p->out, "\r%s: %s ...", p->what, p->phase);
    else fprintf(p->out, "%s: %s\n", p->what, p->phase);
    fflush(p->out);
}

static void eta_text(double s, char *buf, size_t cap)
{
    if (!(s >= 0) || s > 1e7) snprintf(buf, cap, "--:--");
    else if (s >= 3600) snprintf(buf, cap, "%d:%02d:%02d", (int)s / 3600, (int)s / 60 % 60, (int)s % 60);
    else snprintf(buf, cap, "%02d:%02d", (int)s / 60, (int)s % 60);
}

static void draw(fdx_progress *p, int64_t done, int final)
{
    double t = fdx_now_s(), el = t - p->t0;
    double rate = el > 0 && done > p->done0 ? (double)(done - p->done0) / el : 0;
    char eta[32];
    eta_text(rate > 0 ? (double)(p->total - done) / rate : -1, eta, sizeof eta);
    double f = (double)done / (double)p->total;
    if (p->tty) {
        char bar[31];
        int fill = (int)(f * 30);
        for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '.';
        bar[30] = '\0';
        fprintf(p->out, "\r%s [%s] %3.0f%% step %lld/%lld %.1f steps/s ETA %s%s", p->what, bar, 100 * f,
                (long long)done, (long long)p->total, rate, eta, final ? "\n" : "  ");
    } else {
        fprintf(p->out, "%s: step %lld/%lld (%.0f%%), %.1f steps/s, ETA %s\n", p->what, (long long)done,
                (long long)p->total, 100 * f, rate, eta);
    }
    fflush(p->out);
    p->last_draw = t;
}

/* The first step after creation or a phase: the phase ends (its time is
   said once) and the rate starts counting here. */
static void first_step(fdx_progress *p, int64_t done)
{
    double t = fdx_now_s();
    if (p->phase[0]) {
        if (p->tty) fprintf(p->out, "\r%s: %s %.2f s\n", p->what, p->phase, t - p->phase_t0);
        else fprintf(p->out, "%s: %s took %.2f s\n", p->what, p->phase, t - p->phase_t0);
        fflush(p->out);
        p->phase[0] = '\0';
    }
    p->have_base = 1;
    p->done0 = done;
    p->t0 = t;
}

void fdx_progress_update(fdx_progress *p, int64_t done)
{
    if (!p || !p->out) return;
    if (!p->have_base) first_step(p, done);
    if (p->tty) {
        if (fdx_now_s() - p->last_draw >= 0.1) draw(p, done, 0);
        return;
    }
    int64_t tenth = done * 10 / p->total;
    if (tenth != p->last_tenth && done < p->total) {
        p->last_tenth = tenth;
        draw(p, done, 0);
    }
}

void fdx_progress_finish(fdx_progress *p, int64_t done)
{
    if (!p || !p->out) return;
    if (!p->have_base) first_step(p, done);
    draw(p, done, 1);
}

void fdx_progress_destroy(fdx_progress **p)
{
    if (!p) return;
    free(*p);
    *p = NULL;
}

void fdx_progress_lines(fdx_progress *p)
{
    if (p) p->tty = 0;
}
