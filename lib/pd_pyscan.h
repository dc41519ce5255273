/* pd_pyscan: a line scanner for Python source, no parser.
 *
 * A logical line is a statement's text with brackets and backslash
 * continuations joined (the newlines kept, so an offset maps back to its
 * physical line), comments dropped, carriage returns dropped, NUL bytes
 * read as spaces (so strlen(s) == n always), and the
 * inside of triple-quoted strings blanked. The scanner never fails: any
 * bytes give some lines. Shared by pd-find-context and pd-inject. */
#ifndef PD_PYSCAN_H
#define PD_PYSCAN_H
#include <stddef.h>

struct pd_pyline {
	long line;		/* first physical line, 1-based */
	int indent;		/* columns; a tab goes to the next multiple of 8 */
	char *s;		/* the logical line, NUL-terminated */
	char *c;		/* the same with string contents blanked */
	size_t n;		/* strlen(s) == strlen(c) */
};

/* Calls cb for each non-empty logical line of buf[0..len); the line's
 * strings are valid only during the call. */
void pd_pyscan_lines(const char *buf, size_t len,
    void (*cb)(const struct pd_pyline *, void *), void *ctx);

/* All logical lines, as copies the caller frees with pd_pyscan_free. */
struct pd_pylines {
	struct pd_pyline *l;
	size_t n, cap;
};
void pd_pyscan_all(const char *buf, size_t len, struct pd_pylines *out);
void pd_pyscan_free(struct pd_pylines *ls);

/* Physical line of p, a pointer into l->s or l->c. */
long pd_pyscan_line_at(const struct pd_pyline *l, const char *p);
int pd_pyscan_ident(int c);
/* First occurrence of pat in s with no identifier char before it (when pat
 * starts with one) and, when whole is set, none after it. */
const char *pd_pyscan_tok(const char *s, const char *pat, int whole);
/* s starts with the word w (no identifier char after it). */
int pd_pyscan_starts(const char *s, const char *w);
/* ".step(" on something whose name says optimizer or scaler, or NULL. */
const char *pd_pyscan_optim_step(const char *s);
/* A training step: .backward( or an optimizer step. */
int pd_pyscan_train_step(const char *c);
/* A for or while header (async for too), ending in ':'. */
int pd_pyscan_loop_header(const struct pd_pyline *l);

#endif
