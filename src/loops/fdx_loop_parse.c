/* fdx_loop_parse: reads the accessor calls A(x0, x1, ...) in a loop body to
   learn which loop index drives which axis of each array (the planner's
   input).  A light scanner, not a C parser: comments and literals are
   skipped, everything else is tokens and parentheses. */
#include "loops/fdx_loop_impl.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define UNSET (-3)
#define MIXED (-2)
#define NONE (-1)

static int is_id(int c) { return isalnum(c) || c == '_'; }

/* Skips a comment or a literal starting at s[i]; returns the new position. */
static size_t skip_noise(const char *s, size_t i)
{
    if (s[i] == '/' && s[i + 1] == '/') {
        while (s[i] && s[i] != '\n') i++;
    } else if (s[i] == '/' && s[i + 1] == '*') {
        i += 2;
        while (s[i] && !(s[i] == '*' && s[i + 1] == '/')) i++;
        if (s[i]) i += 2;
    } else if (s[i] == '"' || s[i] == '\'') {
        char q = s[i++];
        while (s[i] && s[i] != q) i += s[i] == '\\' && s[i + 1] ? 2 : 1;
        if (s[i]) i++;
    }
    return i;
}

/* Loop index named in s[b..e), NONE if none, MIXED if several. */
static int index_in(const fdx_loop *l, const char *s, size_t b, size_t e)
{
    int found = NONE;
    for (size_t i = b; i < e;) {
        if (is_id((unsigned char)s[i]) && (i == b || !is_id((unsigned char)s[i - 1]))) {
            size_t j = i;
            while (j < e && is_id((unsigned char)s[j])) j++;
            for (int d = 0; d < l->rank; d++)
                if (strlen(l->index[d]) == j - i && strncmp(s + i, l->index[d], j - i) == 0)
                    found = found == NONE || found == d ? d : MIXED;
            i = j;
        } else {
            i++;
        }
    }
    return found;
}

static void merge(int *slot, int v)
{
    if (*slot == UNSET || *slot == NONE) *slot = v;
    else if (v != NONE && v != *slot) *slot = MIXED;
}

/* An accessor argument s[b..e) of the form `index`, `index + c` or
   `index - c`: 1 with the loop index and offset; 0 when it names no loop
   index (a fixed axis, such as a component); -1 for any other form. */
static int offset_form(const fdx_loop *l, const char *s, size_t b, size_t e, int *d, long *off)
{
    while (b < e && isspace((unsigned char)s[b])) b++;
    while (e > b && isspace((unsigned char)s[e - 1])) e--;
    int which = index_in(l, s, b, e);
    if (which == NONE) return 0;
    if (which == MIXED) return -1;
    size_t n = strlen(l->index[which]);
    if (e - b < n || strncmp(s + b, l->index[which], n) != 0 || (b + n < e && is_id((unsigned char)s[b + n]))) return -1;
    size_t q = b + n;
    while (q < e && isspace((unsigned char)s[q])) q++;
    *d = which;
    *off = 0;
    if (q == e) return 1;
    if (s[q] != '+' && s[q] != '-') return -1;
    int neg = s[q++] == '-';
    while (q < e && isspace((unsigned char)s[q])) q++;
    if (q == e || !isdigit((unsigned char)s[q])) return -1;
    long v = 0;
    while (q < e && isdigit((unsigned char)s[q]) && v < 1000000) v = v * 10 + (s[q++] - '0');
    if (q != e) return -1;
    *off = neg ? -v : v;
    return 1;
}

/* In an ACROSS loop, an access to an array the loop writes must be
   star-shaped (at most one index offset) and within the declared widths:
   anything else would not give the sequential nest's result. */
static fdx_status check_across(const fdx_loop *l, const loop_arg *g, const char *s, size_t name, size_t start, size_t end,
                               int line)
{
    int nonzero = 0, bad = 0;
    char why[160] = "";
    for (size_t b = start, k = start, depth = 0; k <= end; k++) {
        char c = k < end ? s[k] : ',';
        if (c == '(' || c == '[') depth++;
        else if ((c == ')' || c == ']') && depth > 0) depth--;
        else if (c == ',' && depth == 0) {
            int d = 0;
            long off = 0;
            int f = offset_form(l, s, b, k, &d, &off);
            if (f < 0 && !bad++) snprintf(why, sizeof why, "an index expression that is not index +- constant");
            if (f > 0 && off != 0) {
                nonzero++;
                if ((off < 0 && -off > l->wlo[d]) || (off > 0 && off > l->whi[d]))
                    if (!bad++)
                        snprintf(why, sizeof why, "offset %+ld in index %s beyond the declared ACROSS widths %d:%d", off,
                                 l->index[d], l->wlo[d], l->whi[d]);
            }
            b = k + 1;
        }
    }
    if (nonzero > 1 && !bad++)
        snprintf(why, sizeof why, "offsets in %d indices at once (a box-shaped dependence; ACROSS takes one index offset at a time)",
                 nonzero);
    FDX_CHECK(!bad, FDX_ERR_INVALID, "loop '%s', body line %d: ACROSS access %.*s) to written array %s has %s", l->name,
              line, (int)(end - name), s + name, g->name, why);
    return FDX_OK;
}

/* One accessor call named at s[name] whose '(' is at s[i]; returns the
   position after ')'. */
static fdx_status read_call(const fdx_loop *l, loop_arg *g, const char *s, size_t name, size_t i, size_t *after)
{
    size_t start = i + 1;
    int depth = 0, axis = 0, line = 1;
    for (size_t q = 0; q < i; q++) line += s[q] == '\n';
    for (size_t k = start; s[k]; k++) {
        char c = s[k];
        if (c == '(' || c == '[') depth++;
        else if ((c == ')' || c == ']') && depth > 0) depth--;
        else if ((c == ',' && depth == 0) || (c == ')' && depth == 0)) {
            FDX_CHECK(axis < g->array->rank, FDX_ERR_INVALID,
                      "loop '%s', body line %d: %s has rank %d but is indexed with more indices", l->name, line,
                      g->name, g->array->rank);
            merge(&g->drive[axis], index_in(l, s, start, k));
            int d = 0;
            long off = 0;
            if (offset_form(l, s, start, k, &d, &off) != 1 || off != 0) g->exact = 0;
            axis++;
            start = k + 1;
            if (c == ')') {
                FDX_CHECK(axis == g->array->rank, FDX_ERR_INVALID,
                          "loop '%s', body line %d: %s has rank %d but is indexed with %d indices", l->name, line,
                          g->name, g->array->rank, axis);
                g->uses++;
                if (l->across && (g->access & FDX_WRITE)) FDX_TRY(check_across(l, g, s, name, i + 1, k, line));
                *after = k + 1;
                return FDX_OK;
            }
        }
    }
    return fdx_fail(FDX_ERR_INVALID, "loop '%s', body line %d: unclosed '(' after %s", l->name, line, g->name);
}

fdx_status fdx_loop_analyze(fdx_loop *l)
{
    FDX_CHECK(l->body, FDX_ERR_INVALID, "loop '%s' has no body", l->name);
    for (int a = 0; a < l->nargs; a++) {
        l->arg[a].uses = 0;
        l->arg[a].exact = 1;
        for (int x = 0; x < FDX_MAX_RANK; x++) l->arg[a].drive[x] = UNSET;
    }
    const char *s = l->body;
    for (size_t i = 0; s[i];) {
        size_t j = skip_noise(s, i);
        if (j != i) {
            i = j;
            continue;
        }
        if (!is_id((unsigned char)s[i]) || (i > 0 && is_id((unsigned char)s[i - 1]))) {
            i++;
            continue;
        }
        size_t e = i;
        while (is_id((unsigned char)s[e])) e++;
        size_t p = e;
        while (s[p] == ' ' || s[p] == '\t') p++;
        loop_arg *g = NULL;
        for (int a = 0; a < l->nargs; a++)
            if (strlen(l->arg[a].name) == e - i && strncmp(s + i, l->arg[a].name, e - i) == 0) g = &l->arg[a];
        if (g && s[p] == '(') {
            FDX_TRY(read_call(l, g, s, i, p, &i));
        } else {
            i = e;
        }
    }
    for (int a = 0; a < l->nargs; a++)
        for (int x = 0; x < FDX_MAX_RANK; x++)
            if (l->arg[a].drive[x] == UNSET) l->arg[a].drive[x] = NONE;
    l->analyzed = 1;
    return FDX_OK;
}
