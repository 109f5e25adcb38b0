/* test_solvers_trust: the simulation API refuses what would crash it or give
   a silent wrong answer: the NULL / out-of-range table of every sim function,
   the finiteness reduction against a reference on random fields with
   poisoned points, blow-up detection (exit-1 status naming the step, Poisson
   never "converged" on NaN), inputs that are not finite in the run's
   precision, meaningless parameters, runs that do not fit in memory, and a
   restart whose config differs from its checkpoint's. */
#include "fdx/internal/io.h"
#include "fdx_test.h"
#include "sim_make.h"
#include "solvers_trust_check.h"

#include <string.h>
#include <unistd.h>

static fdx_ctx *ctx;

static int message_has(const char *word) { return strstr(fdx_last_error(), word) != NULL; }

/* Every status-returning function of include/fdx/solvers.h with a NULL or
   out-of-range argument: FDX_ERR_INVALID and a message, never a crash. */
static void null_table(void)
{
    const char *kv[] = {"size", "24x20", "steps", "4", "sponge", "2", "progress", "off", NULL};
    fdx_sim_config *c = sim_config(FDX_SIM_WAVE, kv);
    fdx_sim *s = sim_make(ctx, FDX_SIM_WAVE, kv);
    if (!c || !s) return;
    fdx_sim_config *none = NULL;
    fdx_sim_result r;
    fdx_sim_diag d;
    double buf[24 * 20];
    int count;
    int64_t steps;
    const double *traces;
    const char *a, *b, *e, *f;

    CHECK_FAILS(fdx_sim_config_create(FDX_SIM_HEAT, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_config_create((fdx_sim_kind)7, &none), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_config_create((fdx_sim_kind)-1, &none), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_config_set(NULL, "steps", "3"), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_config_set(c, NULL, "3"), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_config_set(c, "steps", NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_config_set(c, "no-such-key", "3"), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_config_set(c, "steps", "0"), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_config_set(c, "order", "14"), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_config_set(c, "velocity", "nan"), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_config_set(c, "overwrite", "maybe"), FDX_ERR_INVALID);
    CHECK(fdx_sim_config_get(NULL, "steps") == NULL, "config_get(NULL) is not NULL");
    CHECK(fdx_sim_config_get(c, NULL) == NULL, "config_get(c, NULL) is not NULL");
    CHECK_FAILS(fdx_sim_config_parse(NULL, "steps = 3\n", 10, "t"), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_config_parse(c, NULL, 10, "t"), FDX_ERR_INVALID);
    CHECK_OK(fdx_sim_config_parse(c, NULL, 0, NULL));
    CHECK_FAILS(fdx_sim_config_load(NULL, "x.ini"), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_config_load(c, NULL), FDX_ERR_INVALID);
    CHECK(fdx_sim_config_text(NULL) == NULL, "config_text(NULL) is not NULL");
    CHECK(fdx_sim_config_key(FDX_SIM_HEAT, -1, &a, &b, &e, &f) == 0, "config_key(-1)");
    CHECK(fdx_sim_config_key((fdx_sim_kind)9, 0, &a, &b, &e, &f) == 0, "config_key(kind 9)");
    CHECK(fdx_sim_config_key(FDX_SIM_HEAT, 0, NULL, &b, &e, &f) == 0, "config_key(NULL name)");
    CHECK(fdx_sim_config_key(FDX_SIM_HEAT, 100000, &a, &b, &e, &f) == 0, "config_key(100000)");
    CHECK_FAILS(fdx_sim_config_from_checkpoint(NULL, "dir"), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_config_from_checkpoint(c, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_config_from_checkpoint(c, ""), FDX_ERR_INVALID);

    fdx_sim *out = NULL;
    CHECK_FAILS(fdx_sim_create(NULL, c, &out), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_create(ctx, NULL, &out), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_create(ctx, c, NULL), FDX_ERR_INVALID);
    CHECK(out == NULL, "a failed create left a simulation");
    CHECK_FAILS(fdx_sim_step(NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_step_arrays(NULL, NULL, NULL, NULL, 0, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_step_arrays(s, NULL, NULL, NULL, 0, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_run(NULL, NULL, &r), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_run(s, NULL, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_run_dist(NULL, NULL, 1, 0, NULL, &r), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_get_field(NULL, buf), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_get_field(s, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_set_field(NULL, buf, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_set_field(s, NULL, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_diagnose(NULL, &d), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_diagnose(s, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_receivers(NULL, &count, &steps, &traces), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_receivers(s, NULL, &steps, &traces), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_receivers(s, &count, NULL, &traces), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_receivers(s, &count, &steps, NULL), FDX_ERR_INVALID);
    CHECK(fdx_sim_steps_done(NULL) == -1, "steps_done(NULL)");
    CHECK(isnan(fdx_sim_time(NULL)) && isnan(fdx_sim_dt(NULL)), "time/dt of NULL");
    CHECK(fdx_sim_rank(NULL) == 0 && fdx_sim_shape(NULL) == NULL, "rank/shape of NULL");
    CHECK(strcmp(fdx_sim_kind_name((fdx_sim_kind)42), "?") == 0, "kind_name(42)");
    fdx_sim_destroy(NULL);
    fdx_sim_destroy(&out);
    fdx_sim_config_destroy(NULL);
    fdx_sim_config_destroy(&none);
    /* The simulation still works after all that. */
    CHECK_OK(fdx_sim_step(s));
    CHECK(fdx_sim_steps_done(s) == 1, "steps_done %lld", (long long)fdx_sim_steps_done(s));
    fdx_sim_config_destroy(&c);
    fdx_sim_destroy(&s);
}

/* A field of +-FLT_MAX stripes: finite as float, but the Laplacian of the
   first step overflows; the run stops with FDX_ERR_VERIFY naming the step. */
static void blow_up(fdx_sim_kind kind, const char *steps, const char *at)
{
    const char *kv[] = {"size", "32x24", "steps", steps, "precision", "float", "progress", "off", NULL};
    fdx_sim_config *c = sim_config(kind, kv);
    if (c && kind == FDX_SIM_WAVE) CHECK_OK(fdx_sim_config_set(c, "sponge", "2"));
    fdx_sim *s = NULL;
    if (c) CHECK_OK(fdx_sim_create(ctx, c, &s));
    fdx_sim_config_destroy(&c);
    if (!s) return;
    double *u = malloc(32 * 24 * sizeof(double));
    for (int i = 0; i < 32 * 24; i++) u[i] = (i % 2 ? 1 : -1) * 3.4e38;
    CHECK_OK(fdx_sim_set_field(s, u, u));
    fdx_sim_result r;
    CHECK_FAILS(fdx_sim_run(s, NULL, &r), FDX_ERR_VERIFY);
    CHECK(message_has("not finite") && message_has(at), "%s blow-up message lacks '%s': %s", fdx_sim_kind_name(kind),
          at, fdx_last_error());
    free(u);
    fdx_sim_destroy(&s);
}

/* Values are checked after conversion: 1e39 is Inf as a float. */
static void inputs_in_precision(void)
{
    const char *kvf[] = {"size", "24x20", "steps", "2", "precision", "float", "progress", "off", NULL};
    const char *kvd[] = {"size", "24x20", "steps", "2", "precision", "double", "progress", "off", NULL};
    fdx_sim *f = sim_make(ctx, FDX_SIM_HEAT, kvf), *d = sim_make(ctx, FDX_SIM_HEAT, kvd);
    if (!f || !d) return;
    double u[24 * 20];
    for (int i = 0; i < 24 * 20; i++) u[i] = 0.5;
    u[24 * 3 + 5] = 1e39;
    CHECK_FAILS(fdx_sim_set_field(f, u, NULL), FDX_ERR_INVALID);
    CHECK(message_has("5,3") && message_has("float"), "1e39 as float: %s", fdx_last_error());
    CHECK_OK(fdx_sim_set_field(d, u, NULL));
    u[7] = NAN;
    CHECK_FAILS(fdx_sim_set_field(d, u, NULL), FDX_ERR_INVALID);
    fdx_sim_destroy(&f);
    fdx_sim_destroy(&d);
}

static void refused(fdx_sim_kind kind, const char *const *kv, const char *word)
{
    fdx_sim_config *c = sim_config(kind, kv);
    fdx_sim *s = NULL;
    if (!c) return;
    CHECK_FAILS(fdx_sim_create(ctx, c, &s), FDX_ERR_INVALID);
    CHECK(message_has(word), "%s: message lacks '%s': %s", kv[1], word, fdx_last_error());
    CHECK(s == NULL, "a refused run left a simulation");
    fdx_sim_config_destroy(&c);
}

static void meaningless_parameters(void)
{
    const char *fast[] = {"size", "32x32", "velocity", "1e30", NULL};
    const char *slow[] = {"size", "32x32", "velocity", "1e-30", NULL};
    const char *alias[] = {"size", "32x32", "f0", "1e6", NULL};
    const char *tiny[] = {"size", "32x32", "length", "1e-30", NULL};
    const char *huge[] = {"size", "4000x4000x4000", NULL};
    const char *traces[] = {"size", "48x48", "steps", "1000000000", NULL};
    refused(FDX_SIM_WAVE, fast, "velocity");
    refused(FDX_SIM_WAVE, slow, "velocity");
    refused(FDX_SIM_WAVE, alias, "aliased");
    refused(FDX_SIM_HEAT, tiny, "1/h^2");
    refused(FDX_SIM_HEAT, huge, "GiB");
    refused(FDX_SIM_WAVE, traces, "receiver traces");
    /* In double c^2 fits, but dt ~ 1e-32 s: the time scale is meaningless. */
    const char *fast_double[] = {"size", "32x32", "velocity", "1e30", "precision", "double", "sponge", "4", NULL};
    const char *kappa_big[] = {"size", "24x16", "kappa", "1e30", NULL};
    const char *kappa_small[] = {"size", "24x16", "kappa", "1e-300", NULL};
    const char *oversize[] = {"size", "2000000000x2000000000x2000000000", NULL};
    refused(FDX_SIM_WAVE, fast_double, "time step");
    refused(FDX_SIM_HEAT, kappa_big, "time step");
    refused(FDX_SIM_HEAT, kappa_small, "time step");
    refused(FDX_SIM_HEAT, oversize, "size");
    /* Keys the chosen mode never reads. */
    const char *idle_text[] = {"size", "24x16", "init", "gaussian", "text", "abc", NULL};
    const char *idle_input[] = {"size", "24x16", "input", "x.h5", NULL};
    const char *idle_overlap[] = {"size", "24x16", "overlap", "off", NULL};
    const char *idle_model[] = {"size", "32x32", "model-shape", "32x32", NULL};
    refused(FDX_SIM_HEAT, idle_text, "no effect");
    refused(FDX_SIM_HEAT, idle_input, "no effect");
    refused(FDX_SIM_HEAT, idle_overlap, "no effect");
    refused(FDX_SIM_WAVE, idle_model, "no effect");
}

/* A restart must continue the checkpoint's run: order, precision, size and
   physics are refused by name; steps may grow. */
static void restart_mismatch(void)
{
    char dir[128];
    snprintf(dir, sizeof dir, "/tmp/fdx_test_trust.%ld", (long)getpid());
    const char *kv[] = {"size", "24x20", "steps", "6", "output", dir, "checkpoint-every", "3", "progress", "off", NULL};
    fdx_sim *s = sim_make(ctx, FDX_SIM_HEAT, kv);
    fdx_sim_result r;
    if (s) CHECK_OK(fdx_sim_run(s, NULL, &r));
    fdx_sim_destroy(&s);
    const char *keys[][2] = {{"order", "4"}, {"precision", "double"}, {"kappa", "2"}, {"boundary", "fixed"},
                             {"snapshot-every", "2"}};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        fdx_sim_config *c = NULL;
        CHECK_OK(fdx_sim_config_create(FDX_SIM_HEAT, &c));
        CHECK_OK(fdx_sim_config_from_checkpoint(c, dir));
        CHECK_OK(fdx_sim_config_set(c, "steps", "9"));
        CHECK_OK(fdx_sim_config_set(c, keys[k][0], keys[k][1]));
        if (c) CHECK_OK(fdx_sim_create(ctx, c, &s));
        if (s) CHECK_FAILS(fdx_sim_run(s, NULL, &r), FDX_ERR_INVALID);
        CHECK(message_has(keys[k][0]) && message_has("differs"), "restart with %s changed: %s", keys[k][0],
              fdx_last_error());
        fdx_sim_destroy(&s);
        fdx_sim_config_destroy(&c);
    }
    /* Only the length changes: accepted. */
    fdx_sim_config *c = NULL;
    CHECK_OK(fdx_sim_config_create(FDX_SIM_HEAT, &c));
    CHECK_OK(fdx_sim_config_from_checkpoint(c, dir));
    CHECK_OK(fdx_sim_config_set(c, "steps", "9"));
    if (c) CHECK_OK(fdx_sim_create(ctx, c, &s));
    if (s) CHECK_OK(fdx_sim_run(s, NULL, &r));
    CHECK(r.steps == 9 && r.steps_this_run == 3, "restart ran to %lld (%lld here)", (long long)r.steps,
          (long long)r.steps_this_run);
    fdx_sim_destroy(&s);
    fdx_sim_config_destroy(&c);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* `test_solvers_trust gif-frames FILE` prints the frame count of a GIF
   (for cli_sim_trust.sh), after a strict decode. */
static int gif_frames(const char *path)
{
    char *data = NULL;
    size_t n = 0;
    int w, h, frames = -1;
    if (fdx_file_read(path, (size_t)1 << 30, &data, &n) != FDX_OK ||
        fdx_gif_decode((unsigned char *)data, n, &w, &h, &frames, NULL) != FDX_OK) {
        fprintf(stderr, "%s\n", fdx_last_error());
        free(data);
        return 1;
    }
    printf("%d\n", frames);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "gif-frames") == 0) return gif_frames(argv[2]);
    ctx = fdx_test_ctx("cpu");
    if (!ctx) return fdx_test_skip("test_solvers_trust", "no CPU context");
    null_table();
    first_nonfinite(ctx, "cpu");
    blow_up(FDX_SIM_HEAT, "40", "at step 4,");
    blow_up(FDX_SIM_WAVE, "40", "at step 4,");
    blow_up(FDX_SIM_POISSON, "40", "at step 4,");
    /* Checks 101 steps apart: Poisson's convergence test (every 100 sweeps)
       meets the NaN first and must not call it converged. */
    blow_up(FDX_SIM_POISSON, "1010", "at step 101,");
    inputs_in_precision();
    meaningless_parameters();
    restart_mismatch();
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_solvers_trust");
}
