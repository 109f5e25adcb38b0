/* cli: what every fdx subcommand shares: declarative flags, the global
   options of the options table, exit statuses and error lines. */
#ifndef FDX_CLI_H
#define FDX_CLI_H

#include "fdx/internal/clock.h"
#include "fdx/internal/error.h"
#include "fdx.h"

#include <stddef.h>
#include <stdint.h>

/* Exit statuses of the fdx tool (documented in --help and the README). */
enum {
    CLI_OK = 0,
    CLI_VERIFY_FAILED = 1, /* ran, but the result did not verify */
    CLI_USAGE = 2,         /* bad command line: nothing was run or written */
    CLI_RUNTIME = 3        /* a run-time failure (device, compiler, I/O) */
};

typedef struct cli_flag {
    const char *name;    /* without the leading "--" */
    const char *metavar; /* NULL for a switch */
    const char *help;
    const char **value;  /* where the value goes ("1" for a switch) */
} cli_flag;

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} cli_command;

/* Parses argv[1..] (argv[0] is the command name) into flags and the global
   options.  Returns -1 to go on, or an exit status (0 after --help). */
int cli_parse(int argc, char **argv, const char *cmd, const char *usage, const cli_flag *flags,
              fdx_options *opts);

/* The start of every command: the options (defaults and the FDX_*
   environment) into *opts, then argv parsed into them (cli_parse).  Returns
   -1 to go on, or an exit status; the caller destroys *opts either way (NULL
   when it could not be created). */
int cli_start(int argc, char **argv, const char *cmd, const char *usage, const cli_flag *flags, fdx_options **opts);

/* Error lines are cut to this many characters of message. */
#define CLI_MAX_MESSAGE 600
/* The most flags one command line may give. */
#define CLI_MAX_FLAGS_GIVEN 64

/* Prints "fdx CMD: error: MSG HINT" as one line (control characters as '?',
   cut at CLI_MAX_MESSAGE); cmd NULL: "fdx: error: ...". */
void cli_error_line(const char *cmd, const char *msg, const char *hint);
/* s itself if shorter than cap, else its start and its length written into buf:
   for messages that quote what the user typed. */
const char *cli_clip(const char *s, char *buf, size_t cap);
/* Prints "fdx CMD: error: ..." on stderr and returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "fdx CMD: error: ..." on stderr and returns CLI_VERIFY_FAILED: a
   run whose result did not verify. */
int cli_verify_failed(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "fdx CMD: <message of st>" and returns the exit status for st. */
int cli_fail(const char *cmd, fdx_status st);

/* "NXxNY[xNZ]": 2 or 3 integers >= min_extent. */
fdx_status cli_parse_shape(const char *s, int min_rank, int max_rank, int64_t min_extent, int *rank,
                           int64_t *shape);
/* The same, for a flag of another name (--shape): messages name `flag`. */
fdx_status cli_parse_shape_flag(const char *flag, const char *s, int min_rank, int max_rank, int64_t min_extent,
                                int *rank, int64_t *shape);
/* 1 when a launcher (mpirun) started this process as one of several: a
   command that is not distributed would then run once per process. */
int cli_under_mpirun(void);
/* 1 when the expert environment variable `env` ("FDX_BC_FOLD", a name of
   src/core/fdx_knobs.def, read as the library reads it) is set to exactly
   `value`.  The CLI reads FDX_* variables only through here (checked by
   tests/cli_docs.sh against the tables). */
int cli_knob_is(const char *env, const char *value);
fdx_status cli_parse_int(const char *flag, const char *s, long lo, long hi, long *out);
/* A plain decimal number (no hex, inf or nan) strictly between lo and hi. */
fdx_status cli_parse_real(const char *flag, const char *s, double lo, double hi, double *out);
/* s as the index of one of n names; otherwise FDX_ERR_INVALID with
   "FLAG 'S' is not A, B or C". */
fdx_status cli_parse_choice(const char *flag, const char *s, const char *const *names, int n, int *index);

/* The commands (commands.def lists them once). */
#define CLI_COMMAND(name, fn, summary) int fn(int argc, char **argv);
#include "commands.def"
#undef CLI_COMMAND

#endif
