/* fdx_io_ini: "key = value" config files, with the line of every mistake. */
#include "core/fdx_error.h"
#include "fdx/internal/io.h"

#include <ctype.h>
#include <string.h>

#define LINE_MAX_LEN 1024

static int blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Ends s at a comment: '#' or ';' that starts it or follows a blank. */
static void cut_comment(char *s)
{
    for (char *p = s; *p; p++)
        if ((*p == '#' || *p == ';') && (p == s || blank(p[-1]))) {
            *p = '\0';
            return;
        }
}

/* What may follow a closing quote: blanks, then the end or a comment. */
static int tail_ok(const char *p)
{
    const char *q = p;
    while (blank(*q)) q++;
    return !*q || ((*q == '#' || *q == ';') && q > p);
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) *--e = '\0';
    return s;
}

fdx_status fdx_ini_parse(const char *text, size_t size, const char *what, fdx_ini_fn fn, void *user)
{
    FDX_CHECK(fn && (text || size == 0), FDX_ERR_INVALID, "fdx_ini_parse: NULL argument");
    if (!what) what = "config";
    char section[64] = "", line[LINE_MAX_LEN + 1];
    size_t at = 0;
    for (int lineno = 1; at < size; lineno++) {
        size_t len = 0;
        while (at < size && text[at] != '\n') {
            char c = text[at++];
            FDX_CHECK(c != '\0', FDX_ERR_INVALID, "%s:%d: contains a NUL byte (not a text file?)", what, lineno);
            FDX_CHECK(len < LINE_MAX_LEN, FDX_ERR_INVALID, "%s:%d: line is longer than %d characters", what, lineno,
                      LINE_MAX_LEN);
            line[len++] = c;
        }
        at++; /* the newline */
        line[len] = '\0';
        char *s = trim(line);
        if (!*s || *s == '#' || *s == ';') continue;
        if (*s == '[') {
            cut_comment(s);
            s = trim(s);
            char *close = strchr(s, ']');
            FDX_CHECK(close && !*trim(close + 1), FDX_ERR_INVALID, "%s:%d: section header '%s' lacks its ']'", what,
                      lineno, s);
            *close = '\0';
            char *name = trim(s + 1);
            FDX_CHECK(*name && strlen(name) < sizeof section, FDX_ERR_INVALID, "%s:%d: section name is empty or too long",
                      what, lineno);
            strcpy(section, name);
            continue;
        }
        /* A comment before the '=' leaves a key without a value. */
        char *eq = strchr(s, '=');
        for (char *p = s + 1; eq && p < eq; p++)
            if ((*p == '#' || *p == ';') && blank(p[-1])) *p = '\0', eq = NULL;
        FDX_CHECK(eq, FDX_ERR_INVALID, "%s:%d: expected 'key = value', found '%s'", what, lineno, trim(s));
        *eq = '\0';
        char *key = trim(s), *value = eq + 1;
        FDX_CHECK(*key, FDX_ERR_INVALID, "%s:%d: a value without a key", what, lineno);
        for (char *p = key; *p; p++)
            FDX_CHECK(isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.', FDX_ERR_INVALID,
                      "%s:%d: key '%s' has a character that keys cannot have", what, lineno, key);
        while (blank(*value)) value++;
        if (*value == '"' || *value == '\'') {
            /* A quoted value ends at its first matching quote that only a
               comment or blanks follow ("1;2" # note), else at the last one
               ("a"b" as fdx writes the value a"b): quotes inside are its
               own, so what fdx writes back as "value" reads the same. */
            char q = *value, *close = strchr(value + 1, q);
            if (!close || !tail_ok(close + 1)) {
                close = NULL;
                for (char *p = value + strlen(value) - 1; p > value && !close; p--)
                    if (*p == q && tail_ok(p + 1)) close = p;
            }
            FDX_CHECK(close, FDX_ERR_INVALID, "%s:%d: unbalanced quote: the value of '%s' opens with %c but does not close it",
                      what, lineno, key, q);
            *close = '\0';
            value++;
        } else {
            /* Unquoted: a comment starts at '#' or ';' after a blank. */
            cut_comment(value);
            value = trim(value);
        }
        FDX_TRY(fn(user, section, key, value, lineno));
    }
    return FDX_OK;
}
