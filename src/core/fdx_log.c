/* fdx_log: leveled messages on stderr; the level comes from FDX_LOG, the
   --log flag or fdx_log_set_level. */
#include "fdx_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int current_level = -1; /* -1: not yet read from the environment */

fdx_status fdx_log_level_parse(const char *s, fdx_log_level *out)
{
    static const char *names[] = {"debug", "info", "warn", "error", "off"};
    FDX_CHECK(out, FDX_ERR_INVALID, "fdx_log_level_parse: out is NULL");
    for (int i = 0; i < 5; i++)
        if (s && strcasecmp(s, names[i]) == 0) {
            *out = (fdx_log_level)i;
            return FDX_OK;
        }
    return fdx_fail(FDX_ERR_INVALID, "unknown log level '%s' (expected debug, info, warn, error or off)",
                    s ? s : "(null)");
}

fdx_log_level fdx_log_get_level(void)
{
    if (current_level < 0) {
        fdx_log_level lv = FDX_LOG_WARN;
        const char *env = getenv("FDX_LOG");
        if (env && *env && fdx_log_level_parse(env, &lv) != FDX_OK) {
            fprintf(stderr, "fdx: warning: ignoring FDX_LOG='%s' (expected debug, info, warn, error or off)\n", env);
            lv = FDX_LOG_WARN;
        }
        current_level = (int)lv;
    }
    return (fdx_log_level)current_level;
}

void fdx_log_set_level(fdx_log_level level)
{
    if ((int)level >= FDX_LOG_DEBUG && level <= FDX_LOG_OFF) current_level = (int)level;
}

void fdx_log(fdx_log_level level, const char *fmt, ...)
{
    static const char *tags[] = {"debug", "info", "warning", "error"};
    if (level < fdx_log_get_level() || level >= FDX_LOG_OFF || (int)level < 0 || !fmt) return;
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "fdx: %s: %s\n", tags[level], line);
}
