/* fdx_io_ckpt: checkpoint files: a little-endian header (magic, step, time,
   element type, shape, config text), named fields, an FNV-1a checksum; written
   atomically so a crash leaves the previous checkpoint intact. */
#include "core/fdx_error.h"
#include "fdx/array.h"
#include "fdx/io.h"
#include "io/fdx_afile.h"

#include <stdlib.h>
#include <string.h>

#define MAGIC "FDXCKPT1"
#define NAME_LEN 32
#define MAX_FIELDS 16
#define MAX_CONFIG (1 << 20)

struct fdx_ckpt {
    fdx_ckpt_info info;
    char *blob;
    int nfields;
    char names[MAX_FIELDS][NAME_LEN];
    const void *data[MAX_FIELDS];
};

typedef struct header {
    char magic[8];
    int64_t step;
    double time;
    int32_t type, rank;
    int64_t shape[3];
    int32_t nfields, config_len;
} header;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

static const uint64_t FNV0 = 0xcbf29ce484222325ULL;

static size_t field_bytes(const header *h)
{
    size_t n = fdx_dtype_size((fdx_dtype)h->type);
    for (int d = 0; d < h->rank; d++) n *= (size_t)h->shape[d];
    return n;
}

fdx_status fdx_ckpt_write(const char *path, const fdx_ckpt_info *info, const fdx_ckpt_field *fields, int nfields)
{
    FDX_CHECK(path && path[0] && info && fields, FDX_ERR_INVALID, "fdx_ckpt_write: NULL or empty argument");
    FDX_CHECK(nfields >= 1 && nfields <= MAX_FIELDS, FDX_ERR_INVALID, "checkpoint has %d fields (1..%d)", nfields,
              MAX_FIELDS);
    FDX_CHECK(info->rank >= 1 && info->rank <= 3, FDX_ERR_INVALID, "checkpoint rank %d must be 1..3", info->rank);
    header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MAGIC, 8);
    h.step = info->step;
    h.time = info->time;
    h.type = (int32_t)info->type;
    h.rank = info->rank;
    for (int d = 0; d < 3; d++) h.shape[d] = d < info->rank ? info->shape[d] : 1;
    FDX_TRY(fdx_shape_check(info->rank, info->shape, 1, fdx_dtype_size(info->type)));
    h.nfields = nfields;
    size_t clen = info->config ? strlen(info->config) : 0;
    FDX_CHECK(clen < MAX_CONFIG, FDX_ERR_INVALID, "checkpoint config text is too long");
    h.config_len = (int32_t)clen;
    size_t bytes = field_bytes(&h);
    for (int i = 0; i < nfields; i++) {
        FDX_CHECK(fields[i].name && fields[i].name[0], FDX_ERR_INVALID, "checkpoint field %d has no name", i);
        FDX_CHECK(strlen(fields[i].name) < NAME_LEN, FDX_ERR_INVALID, "checkpoint field name '%s' is longer than %d",
                  fields[i].name, NAME_LEN - 1);
        FDX_CHECK(fields[i].data, FDX_ERR_INVALID, "checkpoint field '%s' has no data", fields[i].name);
    }

    fdx_afile a;
    FDX_TRY(fdx_afile_open(&a, path));
    uint64_t sum = FNV0;
    sum = fnv(sum, &h, sizeof h);
    fdx_afile_write(&a, &h, sizeof h);
    sum = fnv(sum, info->config, clen);
    fdx_afile_write(&a, info->config, clen);
    for (int i = 0; i < nfields; i++) {
        char name[NAME_LEN] = {0};
        snprintf(name, sizeof name, "%s", fields[i].name);
        sum = fnv(sum, name, sizeof name);
        fdx_afile_write(&a, name, sizeof name);
        sum = fnv(sum, fields[i].data, bytes);
        fdx_afile_write(&a, fields[i].data, bytes);
    }
    fdx_afile_write(&a, &sum, sizeof sum);
    return fdx_afile_commit(&a);
}

/* Validates data and keeps it as the checkpoint's blob (owned on success). */
static fdx_status adopt(char *data, size_t size, fdx_ckpt **out)
{
    *out = NULL;
    header h;
    FDX_CHECK(size >= sizeof h + 8, FDX_ERR_INVALID, "checkpoint is truncated (%zu bytes)", size);
    memcpy(&h, data, sizeof h);
    FDX_CHECK(memcmp(h.magic, MAGIC, 8) == 0, FDX_ERR_INVALID, "not an fdx checkpoint (bad magic)");
    FDX_CHECK(h.type == FDX_FLOAT32 || h.type == FDX_FLOAT64, FDX_ERR_INVALID, "checkpoint element type %d is not float or double",
              (int)h.type);
    FDX_CHECK(h.rank >= 1 && h.rank <= 3, FDX_ERR_INVALID, "checkpoint rank %d is not 1..3", (int)h.rank);
    FDX_CHECK(h.nfields >= 1 && h.nfields <= MAX_FIELDS, FDX_ERR_INVALID, "checkpoint has %d fields", (int)h.nfields);
    FDX_CHECK(h.config_len >= 0 && h.config_len < MAX_CONFIG, FDX_ERR_INVALID, "checkpoint config length %d is bad",
              (int)h.config_len);
    fdx_status shape_ok = fdx_shape_check(h.rank, h.shape, 1, fdx_dtype_size((fdx_dtype)h.type));
    if (shape_ok != FDX_OK) return fdx_fail(FDX_ERR_INVALID, "checkpoint shape is bad: %s", fdx_last_error());
    size_t bytes = field_bytes(&h);
    size_t per = NAME_LEN + bytes;
    size_t rest = size - sizeof h - 8 - (size_t)h.config_len;
    FDX_CHECK(size - sizeof h - 8 >= (size_t)h.config_len && bytes / fdx_dtype_size((fdx_dtype)h.type) > 0 &&
                  per > bytes && rest / per == (size_t)h.nfields && rest % per == 0,
              FDX_ERR_INVALID, "checkpoint size %zu does not match its header (%d fields of %zu bytes)", size,
              (int)h.nfields, bytes);
    uint64_t sum, want = fnv(FNV0, data, size - 8);
    memcpy(&sum, (const char *)data + size - 8, 8);
    FDX_CHECK(sum == want, FDX_ERR_INVALID, "checkpoint checksum does not match (file damaged)");

    fdx_ckpt *c = calloc(1, sizeof *c);
    FDX_CHECK(c, FDX_ERR_NOMEM, "no memory for a checkpoint");
    c->blob = data;
    /* The config text is not NUL-terminated in the file: copy it out. */
    char *cfg = malloc((size_t)h.config_len + 1);
    if (!cfg) {
        free(c);
        return fdx_fail(FDX_ERR_NOMEM, "no memory for a checkpoint");
    }
    memcpy(cfg, c->blob + sizeof h, (size_t)h.config_len);
    cfg[h.config_len] = '\0';
    c->info.step = h.step;
    c->info.time = h.time;
    c->info.type = (fdx_dtype)h.type;
    c->info.rank = h.rank;
    memcpy(c->info.shape, h.shape, sizeof h.shape);
    c->info.config = cfg;
    c->nfields = h.nfields;
    const char *p = c->blob + sizeof h + h.config_len;
    for (int i = 0; i < h.nfields; i++, p += per) {
        memcpy(c->names[i], p, NAME_LEN);
        c->names[i][NAME_LEN - 1] = '\0';
        c->data[i] = p + NAME_LEN;
    }
    *out = c;
    return FDX_OK;
}

fdx_status fdx_ckpt_parse(const void *data, size_t size, fdx_ckpt **out)
{
    FDX_CHECK(out, FDX_ERR_INVALID, "fdx_ckpt_parse: out is NULL");
    *out = NULL;
    FDX_CHECK(data || size == 0, FDX_ERR_INVALID, "fdx_ckpt_parse: data is NULL");
    char *copy = malloc(size ? size : 1);
    FDX_CHECK(copy, FDX_ERR_NOMEM, "no memory for a checkpoint of %zu bytes", size);
    memcpy(copy, data, size);
    fdx_status st = adopt(copy, size, out);
    if (st != FDX_OK) free(copy);
    return st;
}

fdx_status fdx_ckpt_read(const char *path, fdx_ckpt **out)
{
    char *data;
    size_t size;
    FDX_CHECK(out, FDX_ERR_INVALID, "fdx_ckpt_read: out is NULL");
    *out = NULL;
    FDX_CHECK(path && path[0], FDX_ERR_INVALID, "fdx_ckpt_read: empty path");
    FDX_TRY(fdx_file_read(path, (size_t)1 << 40, &data, &size));
    fdx_status st = adopt(data, size, out);
    if (st != FDX_OK) {
        free(data);
        return fdx_fail(st, "checkpoint '%s': %s", path, fdx_last_error()); /* fdx_fail copies first */
    }
    return FDX_OK;
}

const fdx_ckpt_info *fdx_ckpt_get_info(const fdx_ckpt *c) { return c ? &c->info : NULL; }

const void *fdx_ckpt_get_field(const fdx_ckpt *c, const char *name)
{
    if (!c || !name) return NULL;
    for (int i = 0; i < c->nfields; i++)
        if (strcmp(c->names[i], name) == 0) return c->data[i];
    return NULL;
}

void fdx_ckpt_free(fdx_ckpt **c)
{
    if (!c || !*c) return;
    free((char *)(*c)->info.config);
    free((*c)->blob);
    free(*c);
    *c = NULL;
}
