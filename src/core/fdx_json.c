/* fdx_json: append-only JSON text with comma bookkeeping. */
#include "fdx/internal/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void fdx_json_init(fdx_json *j) { memset(j, 0, sizeof *j); }
void fdx_json_free(fdx_json *j)
{
    fdx_sb_free(&j->text);
    memset(j, 0, sizeof *j);
}

#define put(j, ...) fdx_sb_printf(&(j)->text, __VA_ARGS__)

static void put_string(fdx_json *j, const char *s)
{
    put(j, "\"");
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\') put(j, "\\%c", *p);
        else if (*p < 0x20) put(j, "\\u%04x", *p);
        else put(j, "%c", *p);
    }
    put(j, "\"");
}

static void key(fdx_json *j, const char *k)
{
    if (j->need_comma) put(j, ", ");
    if (k) {
        put_string(j, k);
        put(j, ": ");
    }
    j->need_comma = 1;
}

/* An object or array opens ("{", "[") after its key and closes ("}", "]"). */
static void open_bracket(fdx_json *j, const char *k, const char *bracket)
{
    key(j, k);
    put(j, bracket);
    j->need_comma = 0;
}
static void close_bracket(fdx_json *j, const char *bracket)
{
    put(j, bracket);
    j->need_comma = 1;
}
void fdx_json_begin(fdx_json *j, const char *k) { open_bracket(j, k, "{"); }
void fdx_json_end(fdx_json *j) { close_bracket(j, "}"); }
void fdx_json_begin_array(fdx_json *j, const char *k) { open_bracket(j, k, "["); }
void fdx_json_end_array(fdx_json *j) { close_bracket(j, "]"); }
void fdx_json_str(fdx_json *j, const char *k, const char *v)
{
    key(j, k);
    put_string(j, v);
}
void fdx_json_num(fdx_json *j, const char *k, double v)
{
    key(j, k);
    if (!isfinite(v)) put(j, "null");
    else if (v == trunc(v) && fabs(v) < 9007199254740992.0) put(j, "%.0f", v);
    else put(j, "%.17g", v);
}
void fdx_json_int(fdx_json *j, const char *k, int64_t v)
{
    key(j, k);
    put(j, "%lld", (long long)v);
}
void fdx_json_bool(fdx_json *j, const char *k, int v)
{
    key(j, k);
    put(j, v ? "true" : "false");
}

void fdx_json_record_head(fdx_json *j, const char *case_name, const char *backend, const char *device,
                          const char *precision, int rank, const int64_t *shape)
{
    fdx_json_begin(j, NULL);
    fdx_json_str(j, "fdx_version", FDX_VERSION_STRING);
    fdx_json_str(j, "case", case_name);
    fdx_json_str(j, "backend", backend);
    fdx_json_str(j, "device", device);
    fdx_json_str(j, "precision", precision);
    fdx_json_begin_array(j, "shape");
    for (int a = 0; a < rank; a++) fdx_json_int(j, NULL, shape[a]);
    fdx_json_end_array(j);
}

void fdx_json_time_ms(fdx_json *j, const fdx_time_stats *t)
{
    fdx_json_begin(j, "time_ms");
    fdx_json_num(j, "median", t->median_ms);
    fdx_json_num(j, "min", t->min_ms);
    fdx_json_num(j, "max", t->max_ms);
    fdx_json_int(j, "reps", t->reps);
    fdx_json_end(j);
}

void fdx_json_traffic(fdx_json *j, const char *key, double fetch, double write, double eff, double copy_gbps)
{
    fdx_json_begin(j, key);
    fdx_json_num(j, "fetch", fetch);
    fdx_json_num(j, "write", write);
    fdx_json_end(j);
    fdx_json_num(j, "effective_gbps", eff);
    fdx_json_num(j, "copy_gbps", copy_gbps);
    fdx_json_num(j, "ratio_to_copy", eff / copy_gbps);
}

const char *fdx_json_text(const fdx_json *j) { return fdx_sb_str(&j->text); }
fdx_status fdx_json_status(const fdx_json *j) { return fdx_sb_status(&j->text, "a JSON record"); }

fdx_status fdx_json_print(fdx_json *j, FILE *f)
{
    FDX_TRY(fdx_json_status(j));
    if (fprintf(f, "%s\n", fdx_json_text(j)) < 0 || fflush(f) != 0)
        return fdx_fail(FDX_ERR_IO, "cannot write the JSON record");
    return FDX_OK;
}

fdx_status fdx_json_finish(fdx_json *j, FILE *f)
{
    fdx_json_end(j);
    fdx_status st = fdx_json_print(j, f);
    fdx_json_free(j);
    return st;
}
