/* The budgeted tuner (fdx_stencil_tune_step), driven through its documented
   trial interface by a deterministic fake timer (a hash of the
   configuration; some configurations "cannot run"), for an H100-like device
   and the CPU on the benchmark cases: a first run measures at most the
   budget (the model's candidates, default first), every later run at most
   the budget of new configurations, and the runs converge to exactly the
   choice of the unlimited search (today's exhaustive one) with the same
   times.  Then the journal's round trip through the signed .tune file. */
#include "fake_device.h"
#include "fdx_test.h"
#include "core/fdx_cache.h"
#include "stencil/fdx_stencil_cache.h"
#include "stencil/fdx_stencil_tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct fake {
    unsigned seed;
    int calls;                   /* trial calls in this run */
    fdx_stencil_cfg seen[512];   /* distinct configurations timed in this run */
    int nseen;
} fake;

static fdx_status fake_trial(void *arg, const fdx_stencil_cfg *cfg, double *ms)
{
    fake *f = arg;
    f->calls++;
    int known = 0;
    for (int i = 0; i < f->nseen && !known; i++) known = memcmp(&f->seen[i], cfg, sizeof *cfg) == 0;
    if (!known && f->nseen < 512) f->seen[f->nseen++] = *cfg;
    unsigned h = 2166136261u ^ f->seed;
    const unsigned char *p = (const unsigned char *)cfg;
    for (size_t i = 0; i < sizeof *cfg; i++) h = (h ^ p[i]) * 16777619u;
    if (h % 23 == 0) return fdx_fail(FDX_ERR_CUDA, "fake: this configuration cannot run");
    *ms = 1.0 + (h % 10007) / 10007.0;
    return FDX_OK;
}

static int prepared; /* configurations handed to the batch compiler */
static void fake_prepare(void *arg, const fdx_stencil_cfg *cfgs, int n)
{
    (void)arg, (void)cfgs;
    prepared += n;
}

static void text(const fdx_stencil_cfg *c, int cuda, char *buf) { fdx_stencil_cfg_text(c, cuda, buf, 96); }

/* Per budget: the most runs any case needed, the most configurations its
   journal held, and the most the unlimited search timed. */
static int most_runs[64], most_journal[64], most_full[64];

/* One case: the unlimited search's choice, then budgeted runs from an empty
   journal until it is complete. */
static void one_case(const fdx_device_info *dev, int cuda, const fdx_stencil_kspec *ks, const int64_t shape[3],
                     int rank, unsigned seed, int budget)
{
    int64_t n3[3];
    fdx_stencil_shape3(rank, shape, n3);
    fake f = {seed, 0, {{0}}, 0};
    fdx_stencil_cfg exhaustive;
    fdx_status st = fdx_stencil_tune(ks, dev, cuda, n3, fake_trial, &f, &exhaustive);
    fdx_clear_error();
    int exhaustive_n = f.nseen;
    fdx_stencil_journal *j = calloc(1, sizeof *j);
    CHECK(j != NULL, "no memory");
    if (!j) return;
    fdx_stencil_tuner t = {fake_trial, fake_prepare, &f, budget};
    fdx_stencil_cfg best;
    int run = 0;
    for (; run < 200 && !j->complete; run++) {
        memset(&f, 0, sizeof f);
        f.seed = seed;
        int measured = -1, before = j->n;
        fdx_status s = fdx_stencil_tune_step(ks, dev, cuda, n3, &t, j, &best, &measured);
        fdx_clear_error();
        if (s != FDX_OK) {
            CHECK(st != FDX_OK, "budgeted run %d failed (status %d) where the unlimited search did not", run, s);
            break;
        }
        CHECK(measured <= budget, "run %d measured %d configurations, budget %d", run, measured, budget);
        CHECK(f.nseen == measured && j->n - before == measured, "run %d: %d distinct timed, %d journaled, %d reported",
              run, f.nseen, j->n - before, measured);
        CHECK(f.calls <= measured + 1, "run %d: %d trial calls for %d configurations (one warm-up allowed)", run,
              f.calls, measured);
        CHECK(j->complete || measured >= 1, "run %d measured nothing and left the search incomplete", run);
        /* Until complete, the choice is the fastest measured so far. */
        if (!j->complete) {
            double best_ms = INFINITY;
            for (int i = 0; i < j->n; i++)
                if (j->ms[i] < best_ms) best_ms = j->ms[i];
            int at = -1;
            for (int i = 0; i < j->n && at < 0; i++)
                if (memcmp(&j->cfg[i], &best, sizeof best) == 0) at = i;
            CHECK(best_ms == INFINITY || (at >= 0 && j->ms[at] == best_ms),
                  "run %d: the partial choice is not the fastest measured", run);
        }
        if (run == 0) {
            fdx_stencil_cfg d;
            fdx_stencil_default_cfg(ks, dev, cuda, n3, &d);
            CHECK(j->n >= 1 && memcmp(&j->cfg[0], &d, sizeof d) == 0, "the first run did not measure the default first");
        }
    }
    if (st == FDX_OK) {
        char a[96], b[96];
        text(&exhaustive, cuda, a);
        text(&best, cuda, b);
        CHECK(j->complete, "not complete after %d runs of budget %d (%d measured; the full search times %d)", run,
              budget, j->n, exhaustive_n);
        CHECK(memcmp(&best, &exhaustive, sizeof best) == 0, "budget %d, %d runs: converged to %s, the full search chose %s",
              budget, run, b, a);
        CHECK(memcmp(&j->best, &exhaustive, sizeof best) == 0, "the journal's choice differs");
        /* A complete journal measures nothing more. */
        memset(&f, 0, sizeof f);
        int measured = -1;
        CHECK_OK(fdx_stencil_tune_step(ks, dev, cuda, n3, &t, j, &best, &measured));
        CHECK(measured == 0 && f.calls == 0 && memcmp(&best, &exhaustive, sizeof best) == 0,
              "a complete journal measured %d more", measured);
    }
    if (run > most_runs[budget]) most_runs[budget] = run;
    if (j->n > most_journal[budget]) most_journal[budget] = j->n;
    if (exhaustive_n > most_full[budget]) most_full[budget] = exhaustive_n;
    free(j);
}

/* The journal through the signed .tune file, partial and complete.  This
   process remembers what it stored, so the file is read back under a
   second key (its bytes re-signed for that name, as another process's
   file would be). */
static int read_back(const char *key, const char *other, fdx_stencil_cfg *got, fdx_stencil_journal *back)
{
    void *data = NULL;
    size_t n = 0;
    if (fdx_cache_load(key, ".tune", &data, &n) != FDX_OK) return -1;
    fdx_status st = fdx_cache_store(other, ".tune", data, n);
    free(data);
    return st == FDX_OK ? fdx_stencil_tuned_find(other, 0, got, back) : -1;
}

static void file_round_trip(void)
{
    char dir[256], cmd[300];
    snprintf(dir, sizeof dir, "/tmp/fdx-test-tune-budget-%ld", (long)getpid());
    CHECK_OK(fdx_cache_set_dir(dir));
    fdx_stencil_journal *j = calloc(1, sizeof *j), *back = calloc(1, sizeof *back);
    CHECK(j && back, "no memory");
    if (!j || !back) return;
    fdx_device_info dev = {.name = "file test", .sm_count = 4};
    fdx_stencil_kspec ks = {1, 3, 1, FDX_UPDATE_APPLY, 0, 0, 0};
    int64_t n3[3] = {256, 128, 130};
    fdx_stencil_cfg d, got;
    fdx_stencil_default_cfg(&ks, &dev, 0, n3, &d);
    for (int i = 0; i < 5; i++) {
        j->cfg[i] = d;
        j->cfg[i].by = 1 << i;
        j->ms[i] = i == 3 ? INFINITY : 0.1 + 0.0123456789012345 * i;
    }
    j->n = 5;
    char key[33] = "0123456789abcdef0123456789abcdef", other[33] = "fedcba9876543210fedcba9876543210";
    fdx_stencil_tuned_store(key, &j->cfg[1], j);
    CHECK(fdx_stencil_tuned_find(key, 1, &got, NULL) == 1 && memcmp(&got, &j->cfg[1], sizeof got) == 0,
          "the in-process choice was not remembered");
    /* Partial: not found, the journal comes back entry for entry. */
    CHECK(read_back(key, other, &got, back) == 0, "a partial search was taken as a final choice");
    CHECK(back->n == 5 && !back->complete, "partial journal read back with %d entries, complete %d", back->n,
          back->complete);
    for (int i = 0; i < 5 && back->n == 5; i++)
        CHECK(memcmp(&back->cfg[i], &j->cfg[i], sizeof d) == 0 && (back->ms[i] == j->ms[i]),
              "journal entry %d read back as %g ms, written %g", i, back->ms[i], j->ms[i]);
    /* Complete: found, the choice returned. */
    j->complete = 1;
    j->best = j->cfg[2];
    fdx_stencil_tuned_store(key, &j->cfg[2], j);
    char third[33] = "00112233445566778899aabbccddeeff";
    CHECK(read_back(key, third, &got, back) == 1 && memcmp(&got, &j->cfg[2], sizeof got) == 0,
          "a complete search was not read back as the choice");
    /* A version 5 file (one line, today's exhaustive result) is complete. */
    char v5[200], fields[160], fourth[33] = "ffeeddccbbaa99887766554433221100";
    fdx_stencil_cfg_format(&j->cfg[4], fields, sizeof fields);
    int n = snprintf(v5, sizeof v5, "fdx-tune 5 %s\n", fields);
    CHECK_OK(fdx_cache_store(fourth, ".tune", v5, (size_t)n));
    CHECK(fdx_stencil_tuned_find(fourth, 0, &got, back) == 1 && memcmp(&got, &j->cfg[4], sizeof got) == 0,
          "a version 5 tuning file was not taken as complete");
    fdx_clear_error();
    free(j);
    free(back);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* Odd widths at high orders (session 7): a first run of the float order-12
   stencil on rows no multiple of any vector measures the asynchronous march
   with whole-vector lanes on unaligned rows (win) at vec 4 and vec 2;
   FDX_STENCIL_WIN=0 leaves it out (the A/B of the GPU check), and aligned
   rows never get it. */
static void win_first_batch(const fdx_device_info *h100)
{
    static const struct {
        int64_t nx;
        const char *knob;
        int want;
    } runs[] = {{137, NULL, 2}, {137, "0", 0}, {136, NULL, 0}, {138, NULL, 1}};
    for (int r = 0; r < 4; r++) {
        fdx_stencil_kspec ks = {0, 3, 6, FDX_UPDATE_WAVE, 0, 0, 0};
        int64_t n3[3] = {runs[r].nx, 87, 249};
        fdx_stencil_journal *j = calloc(1, sizeof *j);
        if (!j) return;
        if (runs[r].knob) setenv("FDX_STENCIL_WIN", runs[r].knob, 1);
        fake f = {1, 0, {{0}}, 0};
        fdx_stencil_tuner t = {fake_trial, NULL, &f, 8};
        fdx_stencil_cfg best;
        int measured = 0, found = 0;
        CHECK_OK(fdx_stencil_tune_step(&ks, h100, 1, n3, &t, j, &best, &measured));
        unsetenv("FDX_STENCIL_WIN");
        for (int i = 0; i < j->n; i++)
            if (j->cfg[i].variant == FDX_SV_ASYNC && j->cfg[i].win) {
                found += !j->cfg[i].zh && !j->cfg[i].ys; /* the one-row tiles (zh's, ys's: *_first_batch) */
                CHECK(fdx_stencil_cfg_fits(&ks, &j->cfg[i], n3) && j->cfg[i].vec > 1 && n3[0] % j->cfg[i].vec,
                      "nx %lld: a win candidate that does not fit or needs no window", (long long)n3[0]);
            }
        CHECK(found == runs[r].want && measured <= 8, "nx %lld, FDX_STENCIL_WIN=%s: %d win candidates in the first "
              "batch (%d measured), want %d", (long long)n3[0], runs[r].knob ? runs[r].knob : "unset", found, measured,
              runs[r].want);
        free(j);
    }
}

/* The model's first batch holds the H100 rounds' winners (notes/stencil.md):
   the 7-point 512^3 f64's one 2-plane group 32x8 at vec 2, and the
   25-point's asynchronous march two planes ahead capped at 3 blocks. */
static void model_first_batch(const fdx_device_info *h100)
{
    static const struct {
        int order, variant, pd, minb;
    } want[] = {{2, FDX_SV_UNROLL, 2, 0}, {8, FDX_SV_ASYNC, 2, 3}};
    for (int w = 0; w < 2; w++) {
        fdx_stencil_kspec ks = {1, 3, want[w].order / 2, FDX_UPDATE_APPLY, 0, 0, 0};
        int64_t n3[3] = {512, 512, 512};
        fdx_stencil_journal *j = calloc(1, sizeof *j);
        if (!j) return;
        fake f = {1, 0, {{0}}, 0};
        fdx_stencil_tuner t = {fake_trial, NULL, &f, 8};
        fdx_stencil_cfg best;
        int measured = 0, found = 0;
        CHECK_OK(fdx_stencil_tune_step(&ks, h100, 1, n3, &t, j, &best, &measured));
        for (int i = 0; i < j->n && !found; i++)
            found = j->cfg[i].variant == want[w].variant && j->cfg[i].pd == want[w].pd &&
                    j->cfg[i].minb == want[w].minb && fdx_stencil_cfg_fits(&ks, &j->cfg[i], n3) &&
                    (want[w].variant != FDX_SV_UNROLL || (j->cfg[i].chunk == 2 && j->cfg[i].vec == 2));
        CHECK(found && measured <= 8, "order %d: the first batch (%d measured) lacks the known winner", want[w].order,
              measured);
        free(j);
    }
}

/* High orders (session 8): with FDX_STENCIL_PLANE=1 a first run measures
   the plane tile at its two model tiles (radius >= 3, rank 3 and 2), and on
   rows no multiple of a vector (always) also
   the plain marches at vec 1 beside win (the H100's A/B: neither wins
   everywhere); a complete search reaches the plane stage's other tiles. */
/* A tuner knob's candidates in first runs and the search: on each case
   (rank 3, or rank 2 where n[1] is 1) `want` of them (field(cfg) counts a
   configuration as one) in the first batch with the knob on, more in the
   complete search; none with it off.  `on`: the knob's default. */
typedef struct knob_case {
    int dbl, order;
    int64_t n[3];
    int want;
} knob_case;
static int zh_of(const fdx_stencil_cfg *c) { return c->zh; }
static int ys_of(const fdx_stencil_cfg *c) { return c->ys; }
static int async_of(const fdx_stencil_cfg *c) { return c->variant == FDX_SV_ASYNC; }
static int uz_of(const fdx_stencil_cfg *c) { return c->uz; }
static int tm_of(const fdx_stencil_cfg *c) { return c->tm; }
static void knob_first_batch(const fdx_device_info *h100, const char *knob, int on, int (*field)(const fdx_stencil_cfg *),
                             const knob_case *runs, int nruns)
{
    /* k 2: unset (the default) */
    for (int k = 2; k >= 0; k--) {
        if (k == 2) unsetenv(knob);
        else setenv(knob, k ? "1" : "0", 1);
        int wanted = k == 2 ? on : k;
        for (int r = 0; r < nruns; r++) {
            fdx_stencil_kspec ks = {runs[r].dbl, runs[r].n[1] > 1 ? 3 : 2, runs[r].order / 2, FDX_UPDATE_APPLY, 0, 0, 0};
            fdx_stencil_journal *j = calloc(1, sizeof *j);
            if (!j) return;
            fake f = {1, 0, {{0}}, 0};
            fdx_stencil_tuner t = {fake_trial, NULL, &f, 8};
            fdx_stencil_cfg best;
            int measured = 0, first = 0, all = 0;
            CHECK_OK(fdx_stencil_tune_step(&ks, h100, 1, runs[r].n, &t, j, &best, &measured));
            for (int i = 0; i < j->n; i++) {
                CHECK(fdx_stencil_cfg_fits(&ks, &j->cfg[i], runs[r].n), "a first-run candidate that does not fit");
                first += field(&j->cfg[i]);
            }
            int w = wanted ? runs[r].want : 0;
            CHECK(first == w && measured <= 8, "%s=%d, order %d %s %lldx%lldx%lld: first batch of %d has %d of its "
                  "candidates (want %d)", knob, k, runs[r].order, runs[r].dbl ? "f64" : "f32", (long long)runs[r].n[0],
                  (long long)runs[r].n[1], (long long)runs[r].n[2], measured, first, w);
            t.budget = 0;
            CHECK_OK(fdx_stencil_tune_step(&ks, h100, 1, runs[r].n, &t, j, &best, &measured));
            for (int i = 0; i < j->n; i++) all += field(&j->cfg[i]);
            CHECK(j->complete && (w ? all > first : all == 0),
                  "%s=%d, order %d: the complete search timed %d of its configurations (%d in the first run)", knob, k,
                  runs[r].order, all, first);
            free(j);
        }
    }
    unsetenv(knob);
}

/* Session 9: a first run of a high order (rank 3, radius >= 3) also times
   the asynchronous march with the column's upper half from the stages on
   64x16-point tiles (zh: zh's taller tile; on unaligned rows the vec 4 win
   tile with zh and the vec 2 one's taller zh tile); lower radii and runs
   with FDX_STENCIL_ZH=0 time none, first run or search.  Session 10: with
   FDX_STENCIL_YS=1 (default off) ys's 64x16-point tiles (two rows a thread
   sharing their y rows, the column carried): on aligned rows at the widest
   vector and, for f32 vec 4, at vec 2; on unaligned rows the vec 2 win
   tile's.  With FDX_STENCIL_ASYNC2=1 (the default since session 10) a 2D high order's first
   run times the asynchronous march's rows of 128 and 256 threads. */
static void knob_first_batches(const fdx_device_info *h100)
{
    static const knob_case zh[] = {{0, 12, {400, 400, 400}, 1}, {0, 12, {137, 87, 249}, 2}, {1, 8, {512, 512, 512}, 1},
                                   {0, 6, {700, 500, 400}, 1},  {0, 4, {400, 400, 400}, 0}};
    static const knob_case ys[] = {{0, 12, {400, 400, 400}, 2}, {0, 12, {137, 87, 249}, 1}, {1, 8, {512, 512, 512}, 1},
                                   {0, 6, {700, 500, 400}, 2},  {0, 4, {400, 400, 400}, 0}};
    static const knob_case a2[] = {{0, 12, {16209, 1, 16343}, 2}, {1, 10, {4096, 1, 4096}, 2}, {0, 4, {4097, 1, 4096}, 0}};
    knob_first_batch(h100, "FDX_STENCIL_ZH", 1, zh_of, zh, 5);
    knob_first_batch(h100, "FDX_STENCIL_YS", 0, ys_of, ys, 5);
    knob_first_batch(h100, "FDX_STENCIL_ASYNC2", 1, async_of, a2, 3);
    /* Session 11: with FDX_STENCIL_UZ=1 every asynchronous candidate of a
       first run (all of them fit unrolled here: as many as the batch's
       asynchronous candidates) has its plane loop unrolled, and the search
       times more; without it none. */
    static const knob_case uz[] = {{0, 12, {400, 400, 400}, 2}, {0, 12, {137, 87, 249}, 5}, {1, 8, {512, 512, 512}, 2},
                                   {0, 6, {700, 500, 400}, 2},  {0, 12, {16209, 1, 16343}, 2}};
    setenv("FDX_STENCIL_CU", "0", 1); /* its unrolled candidate would count here */
    knob_first_batch(h100, "FDX_STENCIL_UZ", 0, uz_of, uz, 5);
    unsetenv("FDX_STENCIL_CU");
    /* Session 12: by default (FDX_STENCIL_CU) a first run of radius 5-6
       on aligned rows also times the carried column on 16x16-thread tiles
       unrolled (vec 4 floats, vec 2 doubles, uz); odd widths and radius
       <= 4 none (FDX_STENCIL_UZ is off: uz counts it). */
    static const knob_case cu[] = {{0, 12, {400, 400, 400}, 1}, {0, 12, {137, 87, 249}, 0}, {1, 8, {512, 512, 512}, 0},
                                   {0, 6, {700, 500, 400}, 0},  {0, 4, {400, 400, 400}, 0}, {1, 10, {512, 512, 512}, 1},
                                   {0, 10, {512, 384, 320}, 1}};
    knob_first_batch(h100, "FDX_STENCIL_CU", 1, uz_of, cu, 7);
    /* Session 13: with FDX_STENCIL_TM=1 (default off) every rank-3
       asynchronous candidate of a first run on rows of 16-byte multiples has
       its rows copied by tensor copies (tm), and the search times more;
       unaligned rows and rank 2 none. */
    static const knob_case tm[] = {{0, 12, {400, 400, 400}, 3}, {0, 12, {137, 87, 249}, 0}, {1, 8, {512, 512, 512}, 2},
                                   {0, 12, {16209, 1, 16343}, 0}};
    knob_first_batch(h100, "FDX_STENCIL_TM", 0, tm_of, tm, 4);

    /* With FDX_STENCIL_R2A=1 (default off) a first run of a rank-3 radius-2
       stencil times one asynchronous march (64x8 points, unrolled; win on
       odd widths); without it none in the first batch. */
    static const struct {
        int dbl;
        int64_t n[3];
    } r2[] = {{1, {455, 1545, 1250}}, {0, {400, 400, 400}}, {0, {291, 183, 217}}};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 3; i++) {
            if (k) setenv("FDX_STENCIL_R2A", "1", 1);
            else unsetenv("FDX_STENCIL_R2A");
            fdx_stencil_kspec ks = {r2[i].dbl, 3, 2, FDX_UPDATE_HEAT, 0, 0, 0};
            fdx_stencil_journal *j = calloc(1, sizeof *j);
            if (!j) break;
            fake f = {1, 0, {{0}}, 0};
            fdx_stencil_tuner t = {fake_trial, NULL, &f, 8};
            fdx_stencil_cfg best;
            int measured = 0, asyncs = 0, win = 0;
            CHECK_OK(fdx_stencil_tune_step(&ks, h100, 1, r2[i].n, &t, j, &best, &measured));
            for (int q = 0; q < j->n; q++)
                asyncs += j->cfg[q].variant == FDX_SV_ASYNC && j->cfg[q].uz, win += j->cfg[q].variant == FDX_SV_ASYNC && j->cfg[q].win;
            CHECK(asyncs == k && win == (k && r2[i].n[0] % (r2[i].dbl ? 2 : 4) != 0),
                  "FDX_STENCIL_R2A=%d, %lldx%lldx%lld: %d asynchronous candidates (%d win) in the first batch", k,
                  (long long)r2[i].n[0], (long long)r2[i].n[1], (long long)r2[i].n[2], asyncs, win);
            free(j);
        }
    unsetenv("FDX_STENCIL_R2A");
    /* ... but not for the wave update (the H100 measured it slower). */
    setenv("FDX_STENCIL_UZ", "1", 1);
    fdx_stencil_kspec wave = {0, 3, 4, FDX_UPDATE_WAVE, 0, 0, 0};
    int64_t n3[3] = {581, 525, 197};
    fdx_stencil_journal *j = calloc(1, sizeof *j);
    if (j) {
        fake f = {1, 0, {{0}}, 0};
        fdx_stencil_tuner t = {fake_trial, NULL, &f, 0};
        fdx_stencil_cfg best;
        int measured = 0, uzs = 0, asyncs = 0;
        CHECK_OK(fdx_stencil_tune_step(&wave, h100, 1, n3, &t, j, &best, &measured));
        for (int i = 0; i < j->n; i++) uzs += j->cfg[i].uz, asyncs += j->cfg[i].variant == FDX_SV_ASYNC;
        CHECK(j->complete && asyncs > 0 && uzs == 0, "FDX_STENCIL_UZ=1, wave: %d of %d async candidates unrolled", uzs,
              asyncs);
        free(j);
    }
    unsetenv("FDX_STENCIL_UZ");
}

static void plane_first_batch(const fdx_device_info *h100)
{
    setenv("FDX_STENCIL_PLANE", "1", 1); /* off by default since the H100 measured it */
    setenv("FDX_STENCIL_YS", "0", 1);    /* its candidates would take the budget's last places */
    setenv("FDX_STENCIL_ASYNC2", "0", 1); /* so would rank 2's asynchronous rows (win on odd widths) */
    static const struct {
        int dbl, order;
        int64_t n[3]; /* (nx, ny, nm): rank 2 has ny 1 */
        int planes, plain, win;
    } runs[] = {{0, 12, {400, 400, 400}, 2, 0, 0},  {0, 12, {137, 87, 249}, 2, 2, 2}, {1, 12, {179, 187, 226}, 2, 2, 1},
                {0, 6, {700, 500, 400}, 2, 0, 0},   {0, 4, {400, 400, 400}, 0, 0, 0}, {0, 12, {16209, 1, 16343}, 2, -1, 0},
                {1, 4, {4096, 1, 4096}, 0, -1, 0}};
    for (int r = 0; r < 7; r++) {
        fdx_stencil_kspec ks = {runs[r].dbl, runs[r].n[1] > 1 ? 3 : 2, runs[r].order / 2, FDX_UPDATE_APPLY, 0, 0, 0};
        fdx_stencil_journal *j = calloc(1, sizeof *j);
        if (!j) return;
        fake f = {1, 0, {{0}}, 0};
        fdx_stencil_tuner t = {fake_trial, NULL, &f, 8};
        fdx_stencil_cfg best;
        int measured = 0, planes = 0, plain = 0, win = 0;
        CHECK_OK(fdx_stencil_tune_step(&ks, h100, 1, runs[r].n, &t, j, &best, &measured));
        for (int i = 0; i < j->n; i++) {
            const fdx_stencil_cfg *c = &j->cfg[i];
            CHECK(fdx_stencil_cfg_fits(&ks, c, runs[r].n), "order %d: a first-run candidate that does not fit",
                  runs[r].order);
            planes += c->variant == FDX_SV_PLANE;
            plain += c->variant <= FDX_SV_DIRECT && c->vec == 1;
            win += c->variant == FDX_SV_ASYNC && c->win && !c->zh && !c->ys; /* zh's, ys's: *_first_batch */
        }
        CHECK(planes == runs[r].planes && (runs[r].plain < 0 || plain == runs[r].plain) && win == runs[r].win &&
                  measured <= 8,
              "order %d %s %lldx%lldx%lld: first batch of %d has %d plane, %d plain, %d win candidates (want %d, %d, %d)",
              runs[r].order, runs[r].dbl ? "f64" : "f32", (long long)runs[r].n[0], (long long)runs[r].n[1],
              (long long)runs[r].n[2], measured, planes, plain, win, runs[r].planes, runs[r].plain, runs[r].win);
        /* The whole search: the plane stage's tiles and its refinement. */
        t.budget = 0;
        CHECK_OK(fdx_stencil_tune_step(&ks, h100, 1, runs[r].n, &t, j, &best, &measured));
        int all = 0, ahead = 0;
        for (int i = 0; i < j->n; i++) {
            all += j->cfg[i].variant == FDX_SV_PLANE;
            ahead += j->cfg[i].variant == FDX_SV_PLANE && j->cfg[i].pd != 2;
        }
        CHECK(j->complete && (runs[r].planes ? all >= (ks.rank == 3 ? 6 : 4) && ahead >= 1 : all == 0),
              "order %d: the complete search timed %d plane tiles (%d not two planes ahead)", runs[r].order, all,
              ahead);
        free(j);
    }
    unsetenv("FDX_STENCIL_PLANE");
    unsetenv("FDX_STENCIL_YS");
    unsetenv("FDX_STENCIL_ASYNC2");
    /* Without the knob no plane tile is timed, first run or search. */
    fdx_stencil_kspec o12 = {0, 3, 6, FDX_UPDATE_APPLY, 0, 0, 0};
    int64_t n3[3] = {400, 400, 400};
    fdx_stencil_journal *j = calloc(1, sizeof *j);
    if (!j) return;
    fake f = {1, 0, {{0}}, 0};
    fdx_stencil_tuner t = {fake_trial, NULL, &f, 0};
    fdx_stencil_cfg best;
    int measured = 0, planes = 0;
    CHECK_OK(fdx_stencil_tune_step(&o12, h100, 1, n3, &t, j, &best, &measured));
    for (int i = 0; i < j->n; i++) planes += j->cfg[i].variant == FDX_SV_PLANE;
    CHECK(j->complete && planes == 0, "without FDX_STENCIL_PLANE the search timed %d plane tiles", planes);
    free(j);
}

static const int budgets[] = {1, 3, 8, 20};

int main(void)
{
    fdx_device_info h100 = fake_h100("fake H100");
    fdx_device_info cpu = {.name = "fake CPU", .sm_count = 16, .max_threads_per_block = 1};
    static const struct {
        int rank, order, update, coef, dbl;
        int64_t n[3];
    } cases[] = {
        {3, 2, FDX_UPDATE_APPLY, 0, 1, {512, 512, 512}},    {3, 2, FDX_UPDATE_APPLY, 0, 1, {1024, 1024, 1024}},
        {3, 2, FDX_UPDATE_APPLY, 0, 0, {513, 257, 255}},    {3, 8, FDX_UPDATE_APPLY, 0, 1, {512, 512, 512}},
        {2, 8, FDX_UPDATE_WAVE, 0, 0, {16384, 16384, 1}},   {3, 4, FDX_UPDATE_HEAT, 1, 0, {512, 512, 512}},
        {3, 8, FDX_UPDATE_WAVE, 1, 0, {512, 512, 512}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int cuda = 0; cuda < 2; cuda++)
            for (int b = 0; b < 4; b++)
                for (unsigned seed = 1; seed <= 3; seed++) {
                    fdx_stencil_kspec ks = {cases[i].dbl, cases[i].rank, cases[i].order / 2, cases[i].update,
                                            cases[i].coef, 0, 0};
                    one_case(cuda ? &h100 : &cpu, cuda, &ks, cases[i].n, cases[i].rank, seed * 7919u + (unsigned)i,
                             budgets[b]);
                }
    CHECK(prepared > 0, "the batch compiler was never asked for anything");
    model_first_batch(&h100);
    win_first_batch(&h100);
    plane_first_batch(&h100);
    knob_first_batches(&h100);
    /* Small problems are tuned from 2^20 points at high orders on CUDA. */
    fdx_stencil_kspec o12 = {0, 3, 6, FDX_UPDATE_APPLY, 0, 0, 0}, o4 = {0, 3, 2, FDX_UPDATE_APPLY, 0, 0, 0};
    CHECK(fdx_stencil_tune_min_default(&o12, 1) == 1 << 20 && fdx_stencil_tune_min_default(&o12, 0) == 1 << 22 &&
              fdx_stencil_tune_min_default(&o4, 1) == 1 << 22,
          "the tuning line: %lld (order 12, CUDA), %lld (CPU), %lld (order 4)",
          (long long)fdx_stencil_tune_min_default(&o12, 1), (long long)fdx_stencil_tune_min_default(&o12, 0),
          (long long)fdx_stencil_tune_min_default(&o4, 1));
    for (int b = 0; b < 4; b++)
        printf("budget %2d: converged in at most %d runs, journals of at most %d configurations (the full search times "
               "at most %d)\n", budgets[b], most_runs[budgets[b]], most_journal[budgets[b]], most_full[budgets[b]]);
    file_round_trip();
    return fdx_test_finish("test_stencil_tune_budget");
}
