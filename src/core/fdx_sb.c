/* fdx_sb: a growing string with printf-append and indented lines. */
#include "fdx/internal/sb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for `more` bytes past the text and its NUL; 0 after a failure. */
static int reserve(fdx_sb *b, size_t more)
{
    if (b->failed) return 0;
    if (b->s && b->len + more < b->cap) return 1;
    size_t cap = (b->cap ? b->cap * 2 : 256) + more;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = 1;
        return 0;
    }
    if (!b->s) s[0] = '\0';
    b->s = s;
    b->cap = cap;
    return 1;
}

void fdx_sb_vprintf(fdx_sb *b, const char *fmt, va_list ap)
{
    if (b->failed) return;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
    if (n < 0) {
        b->failed = 1;
    } else if (b->s && b->len + (size_t)n < b->cap) {
        b->len += (size_t)n;
    } else if (reserve(b, (size_t)n)) {
        vsnprintf(b->s + b->len, b->cap - b->len, fmt, again);
        b->len += (size_t)n;
    }
    va_end(again);
}

void fdx_sb_printf(fdx_sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fdx_sb_vprintf(b, fmt, ap);
    va_end(ap);
}

void fdx_sb_puts(fdx_sb *b, const char *s)
{
    size_t n = strlen(s);
    if (!reserve(b, n)) return;
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

void fdx_sb_line(fdx_sb *b, const char *fmt, ...)
{
    for (int i = 0; i < b->indent; i++) fdx_sb_puts(b, "    ");
    va_list ap;
    va_start(ap, fmt);
    fdx_sb_vprintf(b, fmt, ap);
    va_end(ap);
    fdx_sb_puts(b, "\n");
}

const char *fdx_sb_str(const fdx_sb *b) { return b->s ? b->s : ""; }

void fdx_sb_clear(fdx_sb *b)
{
    b->len = 0;
    if (b->s) b->s[0] = '\0';
}

void fdx_sb_free(fdx_sb *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

fdx_status fdx_sb_status(const fdx_sb *b, const char *what)
{
    FDX_CHECK(!b->failed, FDX_ERR_NOMEM, "out of memory writing %s", what);
    return FDX_OK;
}

fdx_status fdx_sb_take(fdx_sb *b, const char *what, char **out)
{
    *out = NULL;
    if (b->failed) {
        fdx_sb_free(b);
        return fdx_fail(FDX_ERR_NOMEM, "out of memory writing %s", what);
    }
    if (!reserve(b, 0)) return fdx_fail(FDX_ERR_NOMEM, "out of memory writing %s", what);
    *out = b->s;
    memset(b, 0, sizeof *b);
    return FDX_OK;
}
