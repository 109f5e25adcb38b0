/* fdx_json (internal, for friends: see fdx/internal/error.h): a small
   writer for benchmark records (one JSON object per line). */
#ifndef FDX_INTERNAL_JSON_H
#define FDX_INTERNAL_JSON_H

#include "fdx/internal/error.h"
#include "fdx/internal/sb.h"
#include "fdx/metrics.h"

#include <stdint.h>
#include <stdio.h>

typedef struct fdx_json {
    fdx_sb text; /* text.failed: out of memory at some point, incomplete */
    int need_comma;
} fdx_json;

FDX_HIDDEN void fdx_json_init(fdx_json *j);
FDX_HIDDEN void fdx_json_free(fdx_json *j);
FDX_HIDDEN void fdx_json_begin(fdx_json *j, const char *key);       /* key NULL at top level or in arrays */
FDX_HIDDEN void fdx_json_end(fdx_json *j);
FDX_HIDDEN void fdx_json_begin_array(fdx_json *j, const char *key);
FDX_HIDDEN void fdx_json_end_array(fdx_json *j);
FDX_HIDDEN void fdx_json_str(fdx_json *j, const char *key, const char *value);
/* Full precision: integral values below 2^53 as integers, others with 17
   significant digits (they read back as the same double); NaN/inf -> null. */
FDX_HIDDEN void fdx_json_num(fdx_json *j, const char *key, double value);
FDX_HIDDEN void fdx_json_int(fdx_json *j, const char *key, int64_t value);
FDX_HIDDEN void fdx_json_bool(fdx_json *j, const char *key, int value);
/* The head of every benchmark record (../shared/DESIGN.md): opens the object
   and writes fdx_version, case, backend, device, precision and shape. */
FDX_HIDDEN void fdx_json_record_head(fdx_json *j, const char *case_name, const char *backend,
                                     const char *device, const char *precision, int rank,
                                     const int64_t *shape);
/* "time_ms": {"median", "min", "max", "reps"}. */
FDX_HIDDEN void fdx_json_time_ms(fdx_json *j, const fdx_time_stats *t);
/* A timed kernel's traffic: "<key>": {"fetch", "write"} in bytes, then
   "effective_gbps" (eff), "copy_gbps" and "ratio_to_copy" (eff / copy). */
FDX_HIDDEN void fdx_json_traffic(fdx_json *j, const char *key, double fetch, double write, double eff,
                                 double copy_gbps);
/* The text so far ("" when empty); FDX_ERR_NOMEM from fdx_json_status if
   the writer ran out of memory. */
FDX_HIDDEN const char *fdx_json_text(const fdx_json *j);
FDX_HIDDEN fdx_status fdx_json_status(const fdx_json *j);
/* Writes the text and a newline; FDX_ERR_NOMEM if the writer ran out. */
FDX_HIDDEN fdx_status fdx_json_print(fdx_json *j, FILE *f);
/* The end of a record: closes its object, prints it (fdx_json_print) and
   frees the writer. */
FDX_HIDDEN fdx_status fdx_json_finish(fdx_json *j, FILE *f);

#endif
