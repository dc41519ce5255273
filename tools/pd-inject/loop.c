/* Finding the step loop of a Python script and the bytes to edit: the
 * iterable of its for header (wrapped in the profiler's step generator)
 * and the line before the first statement (where the prologue goes). */
#include "pd-inject/inject.h"
#include "pd_diag.h"
#include "pd_pyscan.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define starts pd_pyscan_starts
#define tok pd_pyscan_tok

static int
is_import(const char *c)
{
	return starts(c, "import") || starts(c, "from");
}

/* A launcher's variable read with no default: os.environ["LOCAL_RANK"]
 * (not an assignment to it), os.environ.get("RANK") or
 * os.getenv("WORLD_SIZE") with no second argument. A read with a default
 * or a test ("LOCAL_RANK" in os.environ) runs without a launcher too. */
static int
needs_launch_var(const char *s)
{
	static const char *vars[] = { "LOCAL_RANK", "RANK", "WORLD_SIZE",
	    "LOCAL_WORLD_SIZE", NULL };
	const char *p, *q, *a;
	int i;

	for (i = 0; vars[i]; i++)
		for (p = s; (p = strstr(p, vars[i])) != NULL; p++) {
			size_t n = strlen(vars[i]);

			if (p == s || (p[-1] != '"' && p[-1] != '\'') ||
			    p[n] != p[-1])
				continue;
			for (a = p - 1; a > s && a[-1] == ' '; a--)
				;
			q = p + n + 1;
			while (*q == ' ')
				q++;
			if (a > s && a[-1] == '[' && a - s >= 8 &&
			    strncmp(a - 8, "environ[", 8) == 0 && *q == ']') {
				for (q++; *q == ' '; q++)
					;
				if (q[0] != '=' || q[1] == '=')
					return 1;
			} else if (*q == ')' && a > s && a[-1] == '(' &&
			    ((a - s >= 12 && strncmp(a - 12, "environ.get(",
			    12) == 0) || (a - s >= 7 && strncmp(a - 7,
			    "getenv(", 7) == 0)))
				return 1;
		}
	return 0;
}

/* Line j runs under an if, elif, else or try of its own (not the
 * __main__ guard), within its function. */
static int
conditional(const struct pd_pylines *ls, size_t j)
{
	int thr = ls->l[j].indent;
	size_t k;

	for (k = j; k-- > 0 && thr > 0;) {
		const char *c = ls->l[k].c;

		if (ls->l[k].indent >= thr)
			continue;
		if (starts(c, "def") || starts(c, "class") ||
		    starts(c, "async"))
			return 0;
		if ((starts(c, "if") && !strstr(ls->l[k].s, "__main__")) ||
		    starts(c, "elif") || starts(c, "else") ||
		    starts(c, "try") || starts(c, "except"))
			return 1;
		thr = ls->l[k].indent;
	}
	return 0;
}

/* A launcher is needed (torchrun, not python3) when the script calls
 * init_process_group( outside any condition or reads a launcher's
 * variable with no default, and does not start its own workers with
 * multiprocessing spawn. */
static void
stack_and_launch(const struct pd_pylines *ls, struct inj_plan *p)
{
	int seen[INJ_NSTACK] = { 0 }, need = 0, spawns = 0;
	size_t i;

	for (i = 0; i < ls->n; i++) {
		const char *c = ls->l[i].c, *s = ls->l[i].s;

		if (is_import(c)) {
			if (tok(c, "torch_npu", 1))
				seen[INJ_NPU] = 1;
			if (tok(c, "mindspore", 1))
				seen[INJ_MS] = 1;
			if (tok(c, "torch", 1))
				seen[INJ_TORCH] = 1;
		}
		if ((strstr(c, "init_process_group(") && !starts(c, "def") &&
		    !conditional(ls, i)) || needs_launch_var(s))
			need = 1;
		if (strstr(c, "mp.spawn(") ||
		    strstr(c, "multiprocessing.spawn(") ||
		    strstr(c, "start_processes("))
			spawns = 1;
		if (tok(c, "_pd_inject_steps", 1))	/* comments are gone */
			p->instrumented = 1;
	}
	p->distributed = need && !spawns;
	p->stack = seen[INJ_NPU] ? INJ_NPU : seen[INJ_MS] ? INJ_MS :
	    seen[INJ_TORCH] ? INJ_TORCH : -1;
}

/* "for" header (not async for: a generator cannot wrap an async
 * iterable), with "in" found; returns the text after "in". */
static const char *
for_iter(const struct pd_pyline *l)
{
	const char *in;

	if (!starts(l->c, "for") || l->c[l->n - 1] != ':')
		return NULL;
	if (!(in = tok(l->c, " in", 1)) && !(in = tok(l->c, ")in", 1)))
		return NULL;
	return in + 3;
}

static int
loaderish(const char *s, size_t n, char **names, size_t nn)
{
	char *it = strndup(s, n), *p;
	size_t i;
	int r = 0;

	if (!it)
		pd_oom();
	for (p = it; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (strstr(it, "loader") || strstr(it, "create_dict_iterator") ||
	    strstr(it, "create_tuple_iterator") || tok(it, "dl", 1) ||
	    strstr(it, "_dl"))
		r = 1;
	free(it);
	for (i = 0; i < nn && !r; i++) {
		const char *t = tok(s, names[i], 1);

		r = t && t < s + n;
	}
	return r;
}

/* Names assigned from DataLoader(...). */
static size_t
loader_names(const struct pd_pylines *ls, char **names, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < ls->n && n < max; i++) {
		const char *c = ls->l[i].c, *d = tok(c, "DataLoader(", 0),
		    *eq = strchr(c, '='), *t = c;

		if (!d || !eq || eq > d || eq[1] == '=')
			continue;
		while (pd_pyscan_ident(*t) || *t == '.')
			t++;
		if (t > c && (names[n] = strndup(c, (size_t)(t - c))))
			n++;
	}
	return n;
}

/* Index of the innermost loop header above line j, or -1. */
static long
enclosing_loop(const struct pd_pylines *ls, size_t j)
{
	int thr = ls->l[j].indent;
	size_t k;

	for (k = j; k-- > 0 && thr > 0;) {
		const struct pd_pyline *h = &ls->l[k];

		if (h->indent >= thr)
			continue;
		if (pd_pyscan_loop_header(h))
			return (long)k;
		if (starts(h->c, "def") || starts(h->c, "class") ||
		    starts(h->c, "async"))
			return -1;
		thr = h->indent;
	}
	return -1;
}

/* The loop to instrument: the innermost for loop around the first
 * backward() or optimizer step, else the first loop over a data loader
 * with no such loop in its body. */
static long
choose(const struct pd_pylines *ls, const char **why)
{
	char *names[64];
	size_t nn = loader_names(ls, names, 64), i, j;
	long k, r = -1;
	const char *it;

	for (i = 0; i < ls->n && r < 0; i++)
		if (pd_pyscan_train_step(ls->l[i].c) &&
		    (k = enclosing_loop(ls, i)) >= 0 && for_iter(&ls->l[k]))
			r = k, *why = "train_step";
	for (i = 0; i < ls->n && r < 0; i++) {
		const struct pd_pyline *l = &ls->l[i];
		int inner = 0;

		if (!(it = for_iter(l)) ||
		    !loaderish(it, (size_t)(l->c + l->n - it), names, nn))
			continue;
		for (j = i + 1; j < ls->n && ls->l[j].indent > l->indent; j++)
			if ((it = for_iter(&ls->l[j])) && loaderish(it,
			    (size_t)(ls->l[j].c + ls->l[j].n - it), names, nn))
				inner = 1;
		if (!inner)
			r = (long)i, *why = "loader";
	}
	for (i = 0; i < nn; i++)
		free(names[i]);
	return r;
}

/* Skip a string literal starting at b[i] (a quote); index after it. */
static size_t
skip_str(const char *b, size_t len, size_t i)
{
	char q = b[i];
	int triple = i + 2 < len && b[i + 1] == q && b[i + 2] == q;

	i += triple ? 3 : 1;
	while (i < len) {
		if (b[i] == '\\')
			i += 2;
		else if (b[i] == q && (!triple || (i + 2 < len &&
		    b[i + 1] == q && b[i + 2] == q)))
			return i + (triple ? 3 : 1);
		else if (b[i] == '\n' && !triple)
			return i;
		else
			i++;
	}
	return len;
}

/* The newline at b[i] follows a backslash (a continuation line). */
static int
continued(const char *b, size_t i)
{
	if (i > 0 && b[i - 1] == '\r')
		i--;
	return i > 0 && b[i - 1] == '\\';
}

/* In the raw header from b[i] ("for ..."): the iterable between the "in"
 * at bracket depth 0 and the ':' that ends the header. */
static int
header(const char *b, size_t len, size_t i, struct inj_plan *p)
{
	size_t beg = 0;
	int depth = 0;

	i += 3;
	while (i < len) {
		char c = b[i];

		if (c == '\'' || c == '"') {
			i = skip_str(b, len, i);
			continue;
		}
		if (c == '#') {
			while (i < len && b[i] != '\n')
				i++;
			continue;
		}
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == ')' || c == ']' || c == '}') && depth)
			depth--;
		else if (depth == 0 && c == '\n' && !continued(b, i))
			return -1;
		else if (depth == 0 && !beg && c == 'i' && i + 2 < len &&
		    b[i + 1] == 'n' && !pd_pyscan_ident(b[i - 1]) &&
		    !pd_pyscan_ident(b[i + 2])) {
			for (beg = i + 2; beg < len && (b[beg] == ' ' ||
			    b[beg] == '\t'); beg++)
				;
			i = beg;
			continue;
		} else if (depth == 0 && beg && c == ':' &&
		    (i + 1 >= len || b[i + 1] != '=')) {
			while (i > beg && strchr(" \t\r\n\\", b[i - 1]))
				i--;
			if (i <= beg)
				return -1;
			p->iter_beg = beg;
			p->iter_end = i;
			return 0;
		}
		i++;
	}
	return -1;
}

/* Offset of the start of physical line n (1-based). */
static size_t
line_off(const char *b, size_t len, long n)
{
	size_t i = 0;

	while (--n > 0 && i < len) {
		const char *e = memchr(b + i, '\n', len - i);

		if (!e)
			return len;
		i = (size_t)(e - b) + 1;
	}
	return i;
}

static int
docstring(const char *c)
{
	while (strchr("rRbBuUfF", *c) && *c)
		c++;
	return *c == '"' || *c == '\'';
}

/* Before the first statement that is not the module docstring or a
 * __future__ import. */
static size_t
prologue_off(const struct pd_pylines *ls, const char *b, size_t len)
{
	size_t i;

	for (i = 0; i < ls->n; i++) {
		const struct pd_pyline *l = &ls->l[i];

		if (l->indent > 0 || (i == 0 && docstring(l->c)) ||
		    (starts(l->c, "from") && strstr(l->c, "__future__")))
			continue;
		return line_off(b, len, l->line);
	}
	return len;
}

static char *
collapse(const char *s, size_t n)
{
	char *o = malloc(n + 1);
	size_t i, k = 0;

	if (!o)
		pd_oom();
	for (i = 0; i < n; i++) {
		if (s[i] == '\'' || s[i] == '"') {
			size_t e = skip_str(s, n, i);

			memcpy(o + k, s + i, e - i);
			k += e - i;
			i = e - 1;
			continue;
		}
		if (s[i] == '#') {	/* a comment inside brackets */
			while (i + 1 < n && s[i + 1] != '\n')
				i++;
			continue;
		}
		if (s[i] == '\\' && i + 1 < n && (s[i + 1] == '\n' ||
		    s[i + 1] == '\r'))
			continue;
		if (isspace((unsigned char)s[i])) {
			if (k && o[k - 1] != ' ')
				o[k++] = ' ';
			continue;
		}
		o[k++] = s[i];
	}
	while (k && o[k - 1] == ' ')
		k--;
	o[k] = '\0';
	return o;
}

int
inj_plan(const char *buf, size_t len, struct inj_plan *p)
{
	struct pd_pylines ls;
	const char *why = NULL;
	long k;
	int r = -1;

	memset(p, 0, sizeof *p);
	pd_pyscan_all(buf, len, &ls);
	stack_and_launch(&ls, p);
	if ((k = choose(&ls, &why)) >= 0) {
		size_t off = line_off(buf, len, ls.l[k].line);

		while (off < len && (buf[off] == ' ' || buf[off] == '\t' ||
		    buf[off] == '\f'))
			off++;
		if (header(buf, len, off, p) == 0) {
			p->loop_line = ls.l[k].line;
			p->why = why;
			p->prologue_off = prologue_off(&ls, buf, len);
			if (p->prologue_off > off)
				p->prologue_off = line_off(buf, len,
				    ls.l[k].line);
			p->iterable = collapse(buf + p->iter_beg,
			    p->iter_end - p->iter_beg);
			r = 0;
		}
	}
	pd_pyscan_free(&ls);
	return r;
}

void
inj_plan_free(struct inj_plan *p)
{
	free(p->iterable);
	p->iterable = NULL;
}
