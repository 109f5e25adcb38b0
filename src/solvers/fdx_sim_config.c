/* fdx_sim_config: the keys of heat / wave / Poisson runs, registered once:
   the CLI flags, config files and checkpoints all go through this table, and
   every value is checked when it is set. */
#include "core/fdx_error.h"
#include "fdx/boundary.h"
#include "fdx/internal/io.h"
#include "fdx/solvers.h"
#include "solvers/fdx_sim_impl.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define H (1 << FDX_SIM_HEAT)
#define W (1 << FDX_SIM_WAVE)
#define P (1 << FDX_SIM_POISSON)
#define ALL (H | W | P)

typedef enum ktype { K_INT, K_REAL, K_ENUM, K_STR, K_SHAPE, K_POINTS, K_BOUNDARY, K_TEMPORAL } ktype;

typedef struct key_def {
    const char *name;
    unsigned kinds;
    ktype type;
    const char *metavar;
    const char *def[3]; /* heat, wave, poisson */
    double lo, hi;      /* K_INT / K_REAL range; K_REAL excludes lo when lo == 0 */
    const char *choices; /* K_ENUM: "a|b|c" */
    const char *help;
} key_def;

static const key_def KEYS[] = {
    {"size", ALL, K_SHAPE, "NXxNY[xNZ]", {"256x256", "256x256", "65x65"}, 0, 0, NULL, "grid points per axis (2D or 3D)"},
    {"steps", ALL, K_INT, "N", {"1000", "1000", "100000"}, 1, 1e9, NULL, "time steps (Poisson: at most N sweeps)"},
    {"order", ALL, K_INT, "P", {"2", "8", "2"}, 2, 12, NULL, "accuracy order of the Laplacian (even, 2..12)"},
    {"precision", ALL, K_ENUM, "P", {"float", "float", "double"}, 0, 0, "float|double", "element type"},
    {"length", ALL, K_REAL, "L", {"1", "1", "1"}, 0, 1e30, NULL, "physical length of the x axis (spacing L/(NX-1))"},
    {"cfl", ALL, K_REAL, "C", {"0.9", "0.5", "0.95"}, 0, 1, NULL, "time step as a fraction of the stable limit"},
    {"output", ALL, K_STR, "DIR", {"", "", ""}, 0, 0, NULL, "directory for pictures, fields, checkpoints, summary"},
    {"snapshot-every", ALL, K_INT, "N", {"0", "0", "0"}, 0, 1e9, NULL, "PNG frame every N steps, GIF at the end"},
    {"field-every", ALL, K_INT, "N", {"0", "0", "0"}, 0, 1e9, NULL, "HDF5 field every N steps (+ XDMF); 0: final only"},
    {"checkpoint-every", ALL, K_INT, "N", {"0", "0", "0"}, 0, 1e9, NULL, "atomic checkpoint every N steps"},
    {"restart", ALL, K_STR, "DIR", {"", "", ""}, 0, 0, NULL, "resume from DIR/checkpoint.fdx"},
    {"overwrite", ALL, K_ENUM, "no|yes", {"no", "no", "no"}, 0, 0, "no|yes",
     "replace the files of another run in the output directory (default: refuse)"},
    {"progress", ALL, K_ENUM, "MODE", {"auto", "auto", "auto"}, 0, 0, "auto|bar|lines|off", "progress display"},
    {"scale", ALL, K_INT, "N", {"0", "0", "0"}, 0, 16, NULL, "image pixels per cell (0: auto)"},
    {"kappa", H, K_REAL, "K", {"1", "", ""}, 0, 1e30, NULL, "diffusivity"},
    /* The wave's default sponge becomes 0 with conditions; periodic axes refuse one (fdx_sim_wave.c). */
    {"boundary", H | W, K_BOUNDARY, "SPEC", {"insulated", "fixed", ""}, 0, 0, NULL,
     "insulated (heat), fixed (the frame keeps its values) or conditions as fdx stencil --boundary (all=dirichlet:0,x=periodic)"},
    {"temporal", H | W, K_TEMPORAL, "off|auto|K", {"auto", "auto", ""}, 0, 0, NULL,
     "K steps a pass between outputs (temporal blocking, bit-identical; boundary fixed, one array; wave: absorb none, receivers none)"},
    {"init", H, K_ENUM, "I", {"letters", "", ""}, 0, 0, "letters|gaussian|sine|random|file", "initial temperature"},
    {"text", H, K_STR, "TEXT", {"fdx", "", ""}, 0, 0, NULL, "letters of init = letters (the default text: a Gaussian bump on grids too small for it)"},
    {"input", H, K_STR, "FILE", {"", "", ""}, 0, 0, NULL, "HDF5 initial field for init = file"},
    {"velocity", W, K_REAL, "C", {"", "1", ""}, 0, 1e30, NULL, "wave speed (the top of a model)"},
    {"model", W, K_ENUM, "M", {"", "constant", ""}, 0, 0, "constant|layered|gradient|file", "velocity model"},
    {"model-file", W, K_STR, "FILE", {"", "", ""}, 0, 0, NULL, "velocity model: HDF5, or raw float32 with --model-shape"},
    {"model-shape", W, K_SHAPE, "NXxNY[xNZ]", {"", "", ""}, 0, 0, NULL, "shape of a raw model file"},
    {"f0", W, K_REAL, "HZ", {"", "0", ""}, -1, 1e30, NULL, "Ricker source peak frequency (0: 12 points a wavelength)"},
    {"amplitude", W, K_REAL, "A", {"", "1", ""}, -1, 1e30, NULL, "source amplitude (0: no source)"},
    {"source", W, K_POINTS, "I,J[,K]", {"", "", ""}, 0, 0, NULL, "source grid point (default: centre)"},
    {"receivers", W, K_POINTS, "I,J[,K];...", {"", "", ""}, 0, 0, NULL, "receiver grid points (default: a line; none: no receivers)"},
    {"sponge", W, K_INT, "N", {"", "20", ""}, 0, 1e6, NULL, "absorbing layer width in cells (0: none; by default 0 with boundary conditions, a quarter of an axis of <= 40 points)"},
    {"absorb", W, K_ENUM, "sponge|pml|none", {"", "sponge", ""}, 0, 0, "sponge|pml|none",
     "what fills the outer `sponge` cells of each face: Cerjan's sponge, a perfectly matched layer (boundary = fixed; over units without checkpoints), or nothing"},
    {"gpus", H | W, K_INT, "K", {"0", "0", ""}, 0, 16, NULL,
     "run distributed over K units per process (GPUs; CPU units with --backend cpu), 0: one array"},
    {"overlap", H | W, K_ENUM, "on|off", {"on", "on", ""}, 0, 0, "on|off",
     "with gpus: exchange shadows while the interior is computed"},
    {"tol", P, K_REAL, "T", {"", "", "1e-10"}, -1, 1, NULL, "stop when a sweep changes u by less (relative)"},
};
#define NKEYS ((int)(sizeof KEYS / sizeof KEYS[0]))

struct fdx_sim_config {
    fdx_sim_kind kind;
    char value[NKEYS][512];
};

static int find_key(const fdx_sim_config *c, const char *key)
{
    char norm[64];
    size_t n = strlen(key);
    if (n >= sizeof norm) return -1;
    for (size_t i = 0; i <= n; i++) norm[i] = key[i] == '_' ? '-' : key[i];
    for (int i = 0; i < NKEYS; i++)
        if ((KEYS[i].kinds & (1u << c->kind)) && strcmp(KEYS[i].name, norm) == 0) return i;
    return -1;
}

const char *fdx_sim_kind_name(fdx_sim_kind k)
{
    return k == FDX_SIM_HEAT ? "heat" : k == FDX_SIM_WAVE ? "wave" : k == FDX_SIM_POISSON ? "poisson" : "?";
}

fdx_status fdx_sim_config_create(fdx_sim_kind kind, fdx_sim_config **out)
{
    FDX_CHECK(out, FDX_ERR_INVALID, "fdx_sim_config_create: out is NULL");
    *out = NULL;
    FDX_CHECK(kind >= FDX_SIM_HEAT && kind <= FDX_SIM_POISSON, FDX_ERR_INVALID, "simulation kind %d is unknown",
              (int)kind);
    fdx_sim_config *c = calloc(1, sizeof *c);
    FDX_CHECK(c, FDX_ERR_NOMEM, "no memory for a config");
    c->kind = kind;
    for (int i = 0; i < NKEYS; i++)
        if (KEYS[i].kinds & (1u << kind)) snprintf(c->value[i], sizeof c->value[i], "%s", KEYS[i].def[kind]);
    *out = c;
    return FDX_OK;
}

void fdx_sim_config_destroy(fdx_sim_config **c)
{
    if (!c) return;
    free(*c);
    *c = NULL;
}

fdx_status fdx_sim_parse_points(const char *key, const char *s, int max, int *n, int64_t (*pts)[3], int *dims)
{
    *n = 0;
    const char *p = s;
    while (*p) {
        FDX_CHECK(*n < max, FDX_ERR_INVALID, "%s: more than %d points", key, max);
        int d = 0;
        for (;;) {
            char *end;
            errno = 0;
            long long v = strtoll(p, &end, 10);
            FDX_CHECK(end != p && errno == 0 && v >= 0 && v < ((long long)1 << 40), FDX_ERR_INVALID,
                      "%s: '%s' is not a list of grid points I,J[,K] separated by ';'", key, s);
            FDX_CHECK(d < 3, FDX_ERR_INVALID, "%s: a point in '%s' has more than 3 coordinates", key, s);
            pts[*n][d++] = v;
            p = end;
            if (*p != ',') break;
            p++;
        }
        FDX_CHECK(d >= 2, FDX_ERR_INVALID, "%s: a point in '%s' has fewer than 2 coordinates", key, s);
        FDX_CHECK(*n == 0 || d == *dims, FDX_ERR_INVALID, "%s: the points in '%s' differ in dimension", key, s);
        *dims = d;
        (*n)++;
        if (*p == ';') p++;
        else FDX_CHECK(*p == '\0', FDX_ERR_INVALID, "%s: unexpected '%c' in '%s'", key, *p, s);
    }
    return FDX_OK;
}

fdx_status fdx_sim_parse_shape(const char *key, const char *s, int *rank, int64_t *shape)
{
    int r = 0;
    const char *p = s;
    FDX_CHECK(*s, FDX_ERR_INVALID, "%s: empty shape (write NXxNY or NXxNYxNZ)", key);
    while (*p) {
        FDX_CHECK(r < 3, FDX_ERR_INVALID, "%s: '%s' has more than 3 extents", key, s);
        char *end;
        errno = 0;
        FDX_CHECK(*p >= '0' && *p <= '9', FDX_ERR_INVALID, "%s: '%s' is not NXxNY[xNZ]", key, s);
        long long v = strtoll(p, &end, 10);
        FDX_CHECK(errno == 0 && v >= 1 && v <= ((long long)1 << 31), FDX_ERR_INVALID, "%s: extent %d of '%s' is out of range",
                  key, r, s);
        shape[r++] = v;
        p = end;
        if (*p == 'x' || *p == 'X') {
            p++;
            FDX_CHECK(*p, FDX_ERR_INVALID, "%s: '%s' ends with 'x'", key, s);
        } else {
            FDX_CHECK(*p == '\0', FDX_ERR_INVALID, "%s: unexpected '%c' in '%s' (write NXxNY[xNZ])", key, *p, s);
        }
    }
    FDX_CHECK(r >= 2, FDX_ERR_INVALID, "%s: '%s' needs 2 or 3 extents (NXxNY or NXxNYxNZ)", key, s);
    *rank = r;
    return FDX_OK;
}

static fdx_status check_value(const key_def *k, const char *v)
{
    char flag[72];
    snprintf(flag, sizeof flag, "%s", k->name);
    switch (k->type) {
    case K_INT: {
        char *end;
        errno = 0;
        long long x = strtoll(v, &end, 10);
        FDX_CHECK(*v && !*end && errno == 0, FDX_ERR_INVALID, "%s: '%s' is not an integer", flag, v);
        FDX_CHECK(x >= k->lo && x <= k->hi, FDX_ERR_INVALID, "%s: %lld is out of range %.0f..%.0f", flag, x, k->lo,
                  k->hi);
        if (strcmp(k->name, "order") == 0)
            FDX_CHECK(x % 2 == 0, FDX_ERR_INVALID, "order: %lld is not even (2, 4, ..., 12)", x);
        return FDX_OK;
    }
    case K_REAL: {
        char *end;
        errno = 0;
        double x = strtod(v, &end);
        FDX_CHECK(*v && !*end && errno == 0 && isfinite(x), FDX_ERR_INVALID, "%s: '%s' is not a number", flag, v);
        /* lo == 0 means "positive"; lo == -1 means "zero or positive". */
        if (k->lo == 0) FDX_CHECK(x > 0, FDX_ERR_INVALID, "%s: %g must be positive", flag, x);
        else FDX_CHECK(x >= 0, FDX_ERR_INVALID, "%s: %g must not be negative", flag, x);
        FDX_CHECK(x <= k->hi, FDX_ERR_INVALID, "%s: %g is larger than %g", flag, x, k->hi);
        return FDX_OK;
    }
    case K_ENUM: {
        size_t n = strlen(v);
        for (const char *p = k->choices; *p;) {
            const char *bar = strchr(p, '|');
            size_t len = bar ? (size_t)(bar - p) : strlen(p);
            if (n == len && strncmp(p, v, len) == 0) return FDX_OK;
            p += len + (bar ? 1 : 0);
        }
        return fdx_fail(FDX_ERR_INVALID, "%s: '%s' is not one of %s", flag, v, k->choices);
    }
    case K_SHAPE: {
        int r;
        int64_t s[3];
        return *v ? fdx_sim_parse_shape(flag, v, &r, s) : FDX_OK;
    }
    case K_POINTS: {
        int n, d;
        int64_t pts[64][3];
        if (strcmp(k->name, "receivers") == 0 && strcmp(v, "none") == 0) return FDX_OK;
        return fdx_sim_parse_points(flag, v, 64, &n, pts, &d);
    }
    case K_BOUNDARY: {
        /* The syntax only (the grid's rank is known when the run is made). */
        fdx_bc_desc bc;
        if (strcmp(v, "insulated") == 0 || strcmp(v, "fixed") == 0 || fdx_bc_parse(v, 3, &bc) == FDX_OK) return FDX_OK;
        char why[600];
        snprintf(why, sizeof why, "%s", fdx_last_error());
        return fdx_fail(FDX_ERR_INVALID, "%s: '%s' is not insulated, fixed or conditions (%s)", flag, v, why);
    }
    case K_TEMPORAL: {
        char *end;
        long x = strtol(v, &end, 10);
        FDX_CHECK(strcmp(v, "off") == 0 || strcmp(v, "auto") == 0 || (*v && !*end && x >= 1 && x <= 8),
                  FDX_ERR_INVALID, "%s: '%s' is not off, auto or a depth 1..8", flag, v);
        return FDX_OK;
    }
    case K_STR:
        /* Names and text are one line: a control character is a mistake
           (and would split the one-line error messages that quote it). */
        for (const char *p = v; *p; p++)
            FDX_CHECK((unsigned char)*p >= 32 && *p != 127, FDX_ERR_INVALID,
                      "%s: control character 0x%02x in the value", flag, (unsigned)(unsigned char)*p);
        return FDX_OK;
    }
    return FDX_OK;
}

fdx_status fdx_sim_config_set(fdx_sim_config *c, const char *key, const char *value)
{
    FDX_CHECK(c && key, FDX_ERR_INVALID, "fdx_sim_config_set: %s is NULL", c ? "the key" : "the config");
    int i = find_key(c, key);
    FDX_CHECK(i >= 0, FDX_ERR_INVALID, "unknown key '%s' for %s", key, fdx_sim_kind_name(c->kind));
    FDX_CHECK(value && strlen(value) < sizeof c->value[i], FDX_ERR_INVALID, "%s: value is missing or too long", key);
    FDX_TRY(check_value(&KEYS[i], value));
    snprintf(c->value[i], sizeof c->value[i], "%s", value);
    return FDX_OK;
}

const char *fdx_sim_config_get(const fdx_sim_config *c, const char *key)
{
    if (!c || !key) return NULL;
    int i = find_key(c, key);
    return i >= 0 ? c->value[i] : NULL;
}

int fdx_sim_config_is_default(const fdx_sim_config *c, const char *key)
{
    int i = c && key ? find_key(c, key) : -1;
    return i >= 0 && strcmp(c->value[i], KEYS[i].def[c->kind]) == 0;
}

typedef struct ini_ctx {
    fdx_sim_config *c;
    const char *what;
    unsigned char seen[NKEYS]; /* a key given twice is refused, as a flag given twice */
} ini_ctx;

static fdx_status on_pair(void *user, const char *section, const char *key, const char *value, int line)
{
    ini_ctx *x = user;
    if (section[0] && strcmp(section, fdx_sim_kind_name(x->c->kind)) != 0)
        return fdx_fail(FDX_ERR_INVALID, "%s:%d: section [%s] is not [%s]", x->what, line, section,
                        fdx_sim_kind_name(x->c->kind));
    int i = find_key(x->c, key);
    if (i >= 0 && x->seen[i]++)
        return fdx_fail(FDX_ERR_INVALID, "%s:%d: key '%s' is given twice", x->what, line, KEYS[i].name);
    if (fdx_sim_config_set(x->c, key, value) != FDX_OK) {
        char why[600];
        snprintf(why, sizeof why, "%s", fdx_last_error());
        return fdx_fail(FDX_ERR_INVALID, "%s:%d: %s", x->what, line, why);
    }
    return FDX_OK;
}

fdx_status fdx_sim_config_parse(fdx_sim_config *c, const char *text, size_t size, const char *what)
{
    FDX_CHECK(c && (text || size == 0), FDX_ERR_INVALID, "fdx_sim_config_parse: %s is NULL",
              c ? "the text" : "the config");
    if (!what) what = "config";
    if (!text) text = "";
    ini_ctx x = {c, what, {0}};
    return fdx_ini_parse(text, size, what, on_pair, &x);
}

fdx_status fdx_sim_config_load(fdx_sim_config *c, const char *path)
{
    FDX_CHECK(c && path, FDX_ERR_INVALID, "fdx_sim_config_load: %s is NULL", c ? "the path" : "the config");
    char *text;
    size_t size;
    FDX_TRY(fdx_file_read(path, 1 << 20, &text, &size));
    fdx_status st = fdx_sim_config_parse(c, text, size, path);
    free(text);
    return st;
}

char *fdx_sim_config_text(const fdx_sim_config *c)
{
    if (!c) return NULL;
    size_t cap = 64 + (size_t)NKEYS * 600, k = 0;
    char *t = malloc(cap);
    if (!t) return NULL;
    k += (size_t)snprintf(t, cap, "[%s]\n", fdx_sim_kind_name(c->kind));
    for (int i = 0; i < NKEYS; i++) {
        if (!(KEYS[i].kinds & (1u << c->kind)) || strcmp(c->value[i], KEYS[i].def[c->kind]) == 0) continue;
        if (strcmp(KEYS[i].name, "restart") == 0 || strcmp(KEYS[i].name, "overwrite") == 0) continue;
        k += (size_t)snprintf(t + k, cap - k, "%s = \"%s\"\n", KEYS[i].name, c->value[i]);
    }
    return t;
}

int fdx_sim_config_key(fdx_sim_kind kind, int i, const char **name, const char **metavar, const char **def,
                       const char **help)
{
    if (!name || !metavar || !def || !help || i < 0 || kind < FDX_SIM_HEAT || kind > FDX_SIM_POISSON) return 0;
    for (int j = 0, seen = 0; j < NKEYS; j++) {
        if (!(KEYS[j].kinds & (1u << kind))) continue;
        if (seen++ < i) continue;
        *name = KEYS[j].name;
        *metavar = KEYS[j].metavar;
        *def = KEYS[j].def[kind];
        *help = KEYS[j].help;
        return 1;
    }
    return 0;
}

fdx_sim_kind fdx_sim_config_kind(const fdx_sim_config *c) { return c->kind; }

fdx_status fdx_sim_config_copy(const fdx_sim_config *c, fdx_sim_config **out)
{
    *out = malloc(sizeof **out);
    FDX_CHECK(*out, FDX_ERR_NOMEM, "no memory for a config");
    memcpy(*out, c, sizeof *c);
    return FDX_OK;
}

/* Keys a restart may change: how long to run and where progress, output and
   checkpoints go.  Every other key (grid, order, precision, physics, model,
   source, pictures and field schedule) must equal the checkpoint's, or the
   continued run would mix two different runs. */
static int restart_may_change(const char *name)
{
    static const char *const free_keys[] = {"steps",    "output", "restart", "overwrite", "progress",
                                             "checkpoint-every", "gpus", "overlap", "tol", "temporal", NULL};
    for (int i = 0; free_keys[i]; i++)
        if (strcmp(free_keys[i], name) == 0) return 1;
    return 0;
}

/* Numbers compare by value ("0.5" equals "0.50"), the rest as text. */
static int same_value(const key_def *k, const char *a, const char *b)
{
    if (k->type == K_INT || k->type == K_REAL) return strtod(a, NULL) == strtod(b, NULL);
    return strcmp(a, b) == 0;
}

const char *fdx_sim_config_restart_diff(const fdx_sim_config *run, const fdx_sim_config *ckpt, const char **run_value,
                                        const char **ckpt_value)
{
    if (run->kind != ckpt->kind) {
        *run_value = fdx_sim_kind_name(run->kind);
        *ckpt_value = fdx_sim_kind_name(ckpt->kind);
        return "kind";
    }
    for (int i = 0; i < NKEYS; i++) {
        if (!(KEYS[i].kinds & (1u << run->kind)) || restart_may_change(KEYS[i].name)) continue;
        if (!same_value(&KEYS[i], run->value[i], ckpt->value[i])) {
            *run_value = run->value[i];
            *ckpt_value = ckpt->value[i];
            return KEYS[i].name;
        }
    }
    return NULL;
}
