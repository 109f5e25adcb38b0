/* The string builder (fdx_sb) and the JSON writer on it: appends that grow
   the buffer many times, indented lines, taking the text; JSON numbers with
   full precision (every double reads back as itself, integral values as
   integers), NaN/inf as null. */
#include "fdx/internal/json.h"
#include "fdx/internal/sb.h"
#include "fdx_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_sb(void)
{
    fdx_sb b = FDX_SB_INIT;
    CHECK(strcmp(fdx_sb_str(&b), "") == 0, "empty builder reads as \"\"");
    /* Many appends, longer than any initial capacity. */
    for (int i = 0; i < 5000; i++) fdx_sb_printf(&b, "%d,", i % 10);
    CHECK(b.len == 10000, "length after 5000 appends: %zu", b.len);
    int ok = 1;
    for (size_t i = 0; i < b.len; i += 2) ok &= b.s[i] == (char)('0' + (i / 2) % 10) && b.s[i + 1] == ',';
    CHECK(ok && b.s[b.len] == '\0', "appended text intact and terminated");
    /* One append far longer than the buffer. */
    fdx_sb_clear(&b);
    char big[70000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    fdx_sb_printf(&b, "<%s>", big);
    CHECK(b.len == sizeof big + 1 && b.s[0] == '<' && b.s[b.len - 1] == '>', "a long append: %zu", b.len);
    /* Indented lines. */
    fdx_sb_clear(&b);
    fdx_sb_line(&b, "a {");
    b.indent++;
    fdx_sb_line(&b, "b = %d;", 7);
    b.indent--;
    fdx_sb_line(&b, "}");
    fdx_sb_puts(&b, "tail");
    CHECK(strcmp(fdx_sb_str(&b), "a {\n    b = 7;\n}\ntail") == 0, "indented lines: %s", fdx_sb_str(&b));
    char *text = NULL;
    CHECK_OK(fdx_sb_take(&b, "test text", &text));
    CHECK(text && strcmp(text, "a {\n    b = 7;\n}\ntail") == 0, "taken text");
    CHECK(b.s == NULL && b.len == 0, "builder empty after take");
    free(text);
    /* A builder that ran out of memory reports it once, at the end. */
    fdx_sb bad = FDX_SB_INIT;
    bad.failed = 1;
    fdx_sb_printf(&bad, "ignored");
    CHECK(bad.len == 0, "no appends after a failure");
    CHECK_FAILS(fdx_sb_status(&bad, "test text"), FDX_ERR_NOMEM);
    CHECK_FAILS(fdx_sb_take(&bad, "test text", &text), FDX_ERR_NOMEM);
    CHECK(text == NULL, "nothing handed out from a failed builder");
    fdx_sb_free(&b);
}

/* The number as the writer prints it. */
static void num_text(double v, char *out, size_t n)
{
    fdx_json j;
    fdx_json_init(&j);
    fdx_json_num(&j, NULL, v);
    snprintf(out, n, "%s", fdx_json_text(&j));
    fdx_json_free(&j);
}

static void test_json_numbers(void)
{
    char t[64];
    static const struct {
        double v;
        const char *want;
    } exact[] = {
        {0.0, "0"},       {1.0, "1"},         {-3.0, "-3"},         {1e15, "1000000000000000"},
        {0.5, "0.5"},     {0.1, "0.10000000000000001"}, {1.0 / 3.0, "0.33333333333333331"},
        {1e300, "1.0000000000000001e+300"}, {9007199254740992.0, "9007199254740992"},
    };
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++) {
        num_text(exact[i].v, t, sizeof t);
        CHECK(strcmp(t, exact[i].want) == 0, "%.17g printed as %s, want %s", exact[i].v, t, exact[i].want);
    }
    num_text(NAN, t, sizeof t);
    CHECK(strcmp(t, "null") == 0, "NaN printed as %s", t);
    num_text(-INFINITY, t, sizeof t);
    CHECK(strcmp(t, "null") == 0, "-inf printed as %s", t);
    /* Round trip: random doubles over many magnitudes read back exactly
       (10 significant digits, as before, lose most of them). */
    unsigned long long s = 0x9e3779b97f4a7c15ull;
    int bad = 0;
    for (int i = 0; i < 20000; i++) {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        double v = ldexp((double)(s >> 11) / 9007199254740992.0, (int)(s % 200) - 100) * (s & 1 ? -1 : 1);
        num_text(v, t, sizeof t);
        if (strtod(t, NULL) != v && bad++ < 5) CHECK(0, "%a printed as %s does not read back", v, t);
    }
    CHECK(bad == 0, "%d of 20000 doubles do not read back", bad);
    /* Integers stay integers in a record. */
    fdx_json j;
    fdx_json_init(&j);
    fdx_json_begin(&j, NULL);
    fdx_json_num(&j, "gbps", 1234.5678901234567);
    fdx_json_num(&j, "points", 134217728.0);
    fdx_json_int(&j, "reps", 20);
    fdx_json_end(&j);
    CHECK(strcmp(fdx_json_text(&j), "{\"gbps\": 1234.5678901234567, \"points\": 134217728, \"reps\": 20}") == 0,
          "record: %s", fdx_json_text(&j));
    CHECK_OK(fdx_json_status(&j));
    fdx_json_free(&j);
}

int main(void)
{
    test_sb();
    test_json_numbers();
    return fdx_test_finish("test_json");
}
