/* pd_diag: the one place that prints diagnostics and decides exit codes.
 *
 * Every message has the same shape:
 *   prog: level: [file[:line]: ]message
 * The exit status of a run is the worst code recorded with pd_diag_status(). */
#ifndef PD_DIAG_H
#define PD_DIAG_H

#include <stdio.h>

enum {
	PD_EXIT_OK = 0,
	PD_EXIT_FOUND = 1,	/* the tool's documented answer, only with -e */
	PD_EXIT_USAGE = 2,
	PD_EXIT_INPUT = 3,	/* some input rejected, output still produced */
	PD_EXIT_CONFIG = 4,	/* bad rules or configuration */
	PD_EXIT_SYSTEM = 5	/* system or I/O error, failing to write stdout */
};

void pd_diag_init(const char *argv0);
const char *pd_diag_prog(void);

/* file may be NULL; line <= 0 means no line number. The message text (fmt
 * and its arguments) is cut at PD_MSG_MAX bytes, on a UTF-8 boundary, and
 * ends in "... (message of N bytes cut)" then: input belongs in a message
 * only through pd_diag_quote(). */
#define PD_MSG_MAX 4096
void pd_warn(const char *file, long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void pd_error(const char *file, long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void pd_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Record an exit code; the highest one wins (PD_EXIT_FOUND only when nothing
 * worse happened). */
void pd_diag_status(int code);
int pd_diag_get_status(void);

/* Print usage text and exit: to stdout with 0 for -h, to stderr with 2. */
void pd_usage_exit(const char *usage, int code) __attribute__((noreturn));

/* Out of memory (or past a size the program cannot represent): say so and
 * exit 5. Every allocation that cannot be done without goes through it:
 * the pd_x* allocators below, and jansson's (set by pd_diag_init). */
void pd_oom(void) __attribute__((noreturn));
void *pd_xmalloc(size_t n);
void *pd_xcalloc(size_t n, size_t size);
void *pd_xrealloc(void *p, size_t n);
char *pd_xstrdup(const char *s);	/* NULL stays NULL */

/* Flush and close stdout, check for write errors, exit with the recorded
 * status (5 if stdout failed). */
int pd_diag_finish(void);

/* Input quoted into a message: in single quotes, at most PD_QUOTE_MAX bytes
 * of s (n bytes; n == (size_t)-1: up to its NUL; never half a UTF-8
 * sequence), an ellipsis and the full size when longer; control, quote,
 * backslash and bytes that are not UTF-8 as \xHH (a quote or backslash
 * with a backslash). Every message that shows input (a field, a value, a
 * name read from a file or the command line) quotes it with this. The
 * text lives in one of 8 rotating buffers (so a message may quote up to 8
 * things). */
#define PD_QUOTE_MAX 64
const char *pd_diag_quote(const char *s, size_t n);

/* Quiet mode suppresses warnings (not errors); set with PD_QUIET=1 too. */
void pd_diag_quiet(int on);

#endif
