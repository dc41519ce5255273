/* pd_pyscan: the Python line scanner (see pd_pyscan.h). */
#include "pd_pyscan.h"
#include "pd_diag.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct sbuf {
	char *s;
	size_t n, cap;
};

static void
put(struct sbuf *b, char c)
{
	if (b->n + 1 >= b->cap) {
		b->cap = b->cap ? 2 * b->cap : 256;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			pd_oom();
	}
	b->s[b->n++] = c ? c : ' ';	/* a NUL byte would cut the line short */
	b->s[b->n] = '\0';
}

int
pd_pyscan_ident(int c)
{
	return isalnum((unsigned char)c) || c == '_';
}

const char *
pd_pyscan_tok(const char *s, const char *pat, int whole)
{
	size_t n = strlen(pat);
	const char *p = s;

	while ((p = strstr(p, pat)) != NULL) {
		if ((!pd_pyscan_ident(pat[0]) || p == s ||
		    !pd_pyscan_ident(p[-1])) &&
		    (!whole || !pd_pyscan_ident(p[n])))
			return p;
		p++;
	}
	return NULL;
}

int
pd_pyscan_starts(const char *s, const char *w)
{
	size_t n = strlen(w);

	return strncmp(s, w, n) == 0 && !pd_pyscan_ident(s[n]);
}

/* One logical line from b[i]; returns the index after it. */
static size_t
logical(const char *b, size_t len, size_t i, struct sbuf *o, long *line)
{
	int depth = 0, triple = 0;
	char q = 0;

	while (i < len) {
		char c = b[i];

		if (q) {
			if (c == '\\' && i + 1 < len) {
				put(o, triple ? ' ' : c);
				if (b[i + 1] == '\n') {
					put(o, '\n');
					++*line;
				} else
					put(o, triple ? ' ' : b[i + 1]);
				i += 2;
				continue;
			}
			if (c == q && (!triple || (i + 2 < len &&
			    b[i + 1] == q && b[i + 2] == q))) {
				put(o, q);
				if (triple)
					put(o, q), put(o, q), i += 2;
				i++;
				q = 0;
				triple = 0;
				continue;
			}
			if (c == '\n' && triple) {
				put(o, '\n');
				++*line;
				i++;
				continue;
			}
			if (c != '\n') {
				put(o, triple ? ' ' : c);
				i++;
				continue;
			}
			q = 0;	/* unterminated string: ends with the line */
		}
		switch (c) {
		case '#':
			while (i < len && b[i] != '\n')
				i++;
			continue;
		case '\'':
		case '"':
			q = c;
			put(o, c);
			if (i + 2 < len && b[i + 1] == c && b[i + 2] == c) {
				triple = 1;
				put(o, c), put(o, c), i += 2;
			}
			i++;
			continue;
		case '(': case '[': case '{':
			depth++;
			break;
		case ')': case ']': case '}':
			if (depth)
				depth--;
			break;
		case '\\':
			if (i + 1 < len && b[i + 1] == '\n') {
				put(o, '\n');
				++*line;
				i += 2;
				continue;
			}
			break;
		case '\r':
			i++;
			continue;
		case '\n':
			++*line;
			i++;
			if (depth == 0)
				return i;
			put(o, '\n');
			continue;
		}
		put(o, c);
		i++;
	}
	return i;
}

/* A copy of s with the contents of string literals blanked. */
static char *
blank_strings(const char *s, size_t n)
{
	char *c = malloc(n + 1), q = 0;
	size_t i;

	if (!c)
		pd_oom();
	memcpy(c, s, n + 1);
	for (i = 0; i < n; i++) {
		if (!q) {
			if (c[i] == '\'' || c[i] == '"')
				q = c[i];
			continue;
		}
		if (c[i] == q) {
			q = 0;
			continue;
		}
		if (c[i] == '\\' && i + 1 < n && c[i + 1] != '\n')
			c[i++] = ' ';
		if (c[i] != '\n')
			c[i] = ' ';
	}
	return c;
}

void
pd_pyscan_lines(const char *b, size_t len,
    void (*cb)(const struct pd_pyline *, void *), void *ctx)
{
	struct sbuf o = { NULL, 0, 0 };
	size_t i = 0;
	long line = 1;

	while (i < len) {
		struct pd_pyline l;
		int ind = 0;

		while (i < len && (b[i] == ' ' || b[i] == '\t' ||
		    b[i] == '\f' || b[i] == '\r')) {
			if (b[i] == '\t')
				ind = (ind / 8 + 1) * 8;
			else if (b[i] == ' ')
				ind++;
			i++;
		}
		if (i >= len)
			break;
		if (b[i] == '\n') {
			line++;
			i++;
			continue;
		}
		if (b[i] == '#') {
			while (i < len && b[i] != '\n')
				i++;
			continue;
		}
		l.line = line;
		l.indent = ind;
		o.n = 0;
		put(&o, ' ');	/* keeps o.s non-NULL */
		o.n = 0;
		i = logical(b, len, i, &o, &line);
		while (o.n && (o.s[o.n - 1] == ' ' || o.s[o.n - 1] == '\t' ||
		    o.s[o.n - 1] == '\n'))
			o.s[--o.n] = '\0';
		if (o.n == 0)
			continue;
		l.s = o.s;
		l.n = o.n;
		l.c = blank_strings(o.s, o.n);
		cb(&l, ctx);
		free(l.c);
	}
	free(o.s);
}

static void
keep_line(const struct pd_pyline *l, void *ctx)
{
	struct pd_pylines *ls = ctx;

	if (ls->n == ls->cap) {
		ls->cap = ls->cap ? 2 * ls->cap : 256;
		ls->l = realloc(ls->l, ls->cap * sizeof *ls->l);
		if (!ls->l)
			pd_oom();
	}
	ls->l[ls->n] = *l;
	ls->l[ls->n].s = strdup(l->s);
	ls->l[ls->n].c = strdup(l->c);
	if (!ls->l[ls->n].s || !ls->l[ls->n].c)
		pd_oom();
	ls->n++;
}

void
pd_pyscan_all(const char *buf, size_t len, struct pd_pylines *out)
{
	out->l = NULL;
	out->n = out->cap = 0;
	pd_pyscan_lines(buf, len, keep_line, out);
}

void
pd_pyscan_free(struct pd_pylines *ls)
{
	size_t i;

	for (i = 0; i < ls->n; i++) {
		free(ls->l[i].s);
		free(ls->l[i].c);
	}
	free(ls->l);
	ls->l = NULL;
	ls->n = ls->cap = 0;
}

long
pd_pyscan_line_at(const struct pd_pyline *l, const char *p)
{
	long n = l->line;
	const char *s = p >= l->c && p <= l->c + l->n ? l->c : l->s;

	for (; s < p; s++)
		if (*s == '\n')
			n++;
	return n;
}

const char *
pd_pyscan_optim_step(const char *s)
{
	const char *p = s;

	while ((p = strstr(p, ".step(")) != NULL) {
		const char *b = p;

		while (b > s && pd_pyscan_ident(b[-1]))
			b--;
		if ((p - b >= 3 && strncmp(b, "opt", 3) == 0) ||
		    (p - b >= 6 && strncmp(p - 6, "scaler", 6) == 0) ||
		    memmem(b, (size_t)(p - b), "optim", 5))
			return p;
		p++;
	}
	return NULL;
}

int
pd_pyscan_train_step(const char *c)
{
	return strstr(c, ".backward(") || pd_pyscan_optim_step(c);
}

int
pd_pyscan_loop_header(const struct pd_pyline *l)
{
	const char *p = l->c;

	if (pd_pyscan_starts(p, "async"))
		p += 5;
	while (*p == ' ')
		p++;
	return (pd_pyscan_starts(p, "for") || pd_pyscan_starts(p, "while")) &&
	    l->c[l->n - 1] == ':';
}
