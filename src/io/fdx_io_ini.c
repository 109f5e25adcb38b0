/* fdx_io_ini: "key = value" config files, with the line of every mistake. */
#include "core/fdx_error.h"
#include "fdx/io.h"

#include <ctype.h>
#include <string.h>

#define LINE_MAX_LEN 1024

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
        /* A comment runs from '#' or ';' to the end of the line, when the
           mark starts the line or follows a blank and is not inside quotes
           (so "1,2;3,4" stays one value). */
        char quote = 0;
        for (char *p = line; *p; p++) {
            if (quote) {
                if (*p == quote) quote = 0;
            } else if (*p == '"' || *p == '\'') {
                quote = *p;
            } else if ((*p == '#' || *p == ';') && (p == line || p[-1] == ' ' || p[-1] == '\t')) {
                *p = '\0';
                break;
            }
        }
        FDX_CHECK(!quote, FDX_ERR_INVALID, "%s:%d: unbalanced quote (%c): close it, or quote the value with the other "
                  "quote character", what, lineno, quote);
        char *s = trim(line);
        if (!*s) continue;
        if (*s == '[') {
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
        char *eq = strchr(s, '=');
        FDX_CHECK(eq, FDX_ERR_INVALID, "%s:%d: expected 'key = value', found '%s'", what, lineno, s);
        *eq = '\0';
        char *key = trim(s), *value = trim(eq + 1);
        FDX_CHECK(*key, FDX_ERR_INVALID, "%s:%d: a value without a key", what, lineno);
        for (char *p = key; *p; p++)
            FDX_CHECK(isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.', FDX_ERR_INVALID,
                      "%s:%d: key '%s' has a character that keys cannot have", what, lineno, key);
        /* Quotes around a value are allowed and dropped. */
        size_t vl = strlen(value);
        if (vl >= 2 && (value[0] == '"' || value[0] == '\'') && value[vl - 1] == value[0]) {
            value[vl - 1] = '\0';
            value++;
        }
        FDX_TRY(fn(user, section, key, value, lineno));
    }
    return FDX_OK;
}
