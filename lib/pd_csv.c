#include "pd_csv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pd_diag.h"
#include "pd_file.h"
#include "pd_num.h"

struct pd_csv {
	FILE *f;
	const char *mem;
	size_t mlen, mpos;
	char *name;
	long line, rec_line;
	int first;
	int cut;	/* the current record ended at EOF, with no line end */
	/* current record: field text packed in buf, offsets in off/len */
	char *buf;
	size_t bcap, blen;
	size_t *off, *len;
	int nf, fcap;
	/* header */
	char **hdr;
	int nh;
};

static struct pd_csv *
alloc(const char *name)
{
	struct pd_csv *c = calloc(1, sizeof *c);

	if (!c)
		return NULL;
	c->name = strdup(name ? name : "-");
	c->line = 1;
	c->first = 1;
	return c;
}

struct pd_csv *
pd_csv_open(const char *path)
{
	FILE *f = pd_file_fopen(path);
	struct pd_csv *c;

	if (!f)
		return NULL;
	c = alloc(path);
	if (!c) {
		fclose(f);
		return NULL;
	}
	c->f = f;
	return c;
}

struct pd_csv *
pd_csv_mem(const char *buf, size_t len, const char *name)
{
	struct pd_csv *c = alloc(name);

	if (!c)
		return NULL;
	c->mem = buf;
	c->mlen = len;
	return c;
}

void
pd_csv_close(struct pd_csv *c)
{
	int i;

	if (!c)
		return;
	if (c->f)
		fclose(c->f);
	for (i = 0; i < c->nh; i++)
		free(c->hdr[i]);
	free(c->hdr);
	free(c->buf);
	free(c->off);
	free(c->len);
	free(c->name);
	free(c);
}

static int
getch(struct pd_csv *c)
{
	if (c->f)
		return getc_unlocked(c->f);
	if (c->mpos >= c->mlen)
		return EOF;
	return (unsigned char)c->mem[c->mpos++];
}

static void
ungetch(struct pd_csv *c, int ch)
{
	if (ch == EOF)
		return;
	if (c->f)
		ungetc(ch, c->f);
	else
		c->mpos--;
}

static void
put(struct pd_csv *c, int ch)
{
	if (c->blen + 1 >= c->bcap) {
		c->bcap = c->bcap ? c->bcap * 2 : 4096;
		c->buf = realloc(c->buf, c->bcap);
		if (!c->buf)
			pd_oom();
	}
	c->buf[c->blen++] = (char)ch;
}

static void
endfield(struct pd_csv *c, size_t start)
{
	size_t s = start, e = c->blen;

	/* trim blanks, TAB, CR around the value */
	while (s < e && (c->buf[s] == ' ' || c->buf[s] == '\t' ||
	    c->buf[s] == '\r'))
		s++;
	while (e > s && (c->buf[e - 1] == ' ' || c->buf[e - 1] == '\t' ||
	    c->buf[e - 1] == '\r'))
		e--;
	if (c->nf == c->fcap) {
		c->fcap = c->fcap ? c->fcap * 2 : 32;
		c->off = realloc(c->off, c->fcap * sizeof *c->off);
		c->len = realloc(c->len, c->fcap * sizeof *c->len);
		if (!c->off || !c->len)
			pd_oom();
	}
	c->off[c->nf] = s;
	c->len[c->nf] = e - s;
	c->nf++;
	if (e < c->blen)
		c->buf[e] = 0;
	put(c, 0);
}

/* A line of blanks only: not a record. */
static int
blank(struct pd_csv *c)
{
	return c->nf == 1 && c->len[0] == 0;
}

/* After a CR: a line end, of CRLF or of CR alone (old Mac files); the LF
 * of a CRLF is taken. */
static void
cr(struct pd_csv *c)
{
	int n = getch(c);

	if (n != '\n')
		ungetch(c, n);
}

int
pd_csv_next(struct pd_csv *c)
{
	int ch, inq, any;
	size_t start;

again:
	c->nf = 0;
	c->blen = 0;
	c->rec_line = c->line;
	c->cut = 0;
	inq = 0;
	any = 0;
	start = 0;
	if (c->first) {
		c->first = 0;
		ch = getch(c);
		if (ch == 0xEF) {
			int b = getch(c), d = getch(c);
			if (!(b == 0xBB && d == 0xBF)) {
				/* not a BOM: keep the bytes */
				put(c, ch);
				if (b != EOF)
					put(c, b);
				if (d != EOF)
					put(c, d);
				any = 1;
			}
		} else
			ungetch(c, ch);
	}
	for (;;) {
		ch = getch(c);
		if (ch == EOF) {
			if (c->f && ferror(c->f))
				return -1;
			if (!any && c->blen == 0 && c->nf == 0)
				return 0;
			endfield(c, start);
			if (!inq && blank(c)) {
				c->nf = 0;
				return 0;
			}
			c->cut = 1;
			return inq ? -2 : c->nf;
		}
		any = 1;
		if (inq) {
			if (ch == '"') {
				int n = getch(c);
				if (n == '"') {
					put(c, '"');
					continue;
				}
				ungetch(c, n);
				inq = 0;
				continue;
			}
			if (ch == '\r') {	/* a CR alone ends a line too */
				int n = getch(c);

				ungetch(c, n);
				c->line += n != '\n';
			}
			if (ch == '\n')
				c->line++;
			put(c, ch);
			continue;
		}
		if (ch == '"') {
			inq = 1;
			continue;
		}
		if (ch == ',') {
			endfield(c, start);
			start = c->blen;
			continue;
		}
		if (ch == '\r' || ch == '\n') {
			if (ch == '\r')
				cr(c);
			c->line++;
			endfield(c, start);
			if (blank(c))
				goto again;
			return c->nf;
		}
		put(c, ch);
	}
}

int
pd_csv_header(struct pd_csv *c)
{
	int i, n = pd_csv_next(c);

	if (n <= 0 && n != -2)
		return n;
	for (i = 0; i < c->nh; i++)
		free(c->hdr[i]);
	free(c->hdr);
	c->hdr = calloc((size_t)c->nf, sizeof *c->hdr);
	if (!c->hdr)
		pd_oom();
	c->nh = c->nf;
	for (i = 0; i < c->nf; i++)
		c->hdr[i] = strdup(c->buf + c->off[i]);
	return n > 0 && c->cut ? -3 : n;
}

void
pd_csv_header_warn(struct pd_csv *c, int r)
{
	if (r >= 0)
		return;
	pd_warn(c->name, pd_csv_line(c), "%s; file skipped", r == -3 ?
	    "file ends inside the header (no line end: cut?)" : r == -2 ?
	    "file ends inside a quoted field of the header" :
	    "cannot read the header");
	pd_diag_status(PD_EXIT_INPUT);
}

const char *
pd_csv_field(struct pd_csv *c, int i)
{
	if (i < 0 || i >= c->nf)
		return "";
	return c->buf + c->off[i];
}

size_t
pd_csv_len(struct pd_csv *c, int i)
{
	if (i < 0 || i >= c->nf)
		return 0;
	return c->len[i];
}

const char *
pd_csv_quote(struct pd_csv *c, int i)
{
	return pd_diag_quote(pd_csv_field(c, i), pd_csv_len(c, i));
}

int
pd_csv_nfields(struct pd_csv *c)
{
	return c->nf;
}

long
pd_csv_line(struct pd_csv *c)
{
	return c->rec_line;
}

const char *
pd_csv_name(struct pd_csv *c)
{
	return c->name;
}

int
pd_csv_ncols(struct pd_csv *c)
{
	return c->nh;
}

const char *
pd_csv_colname(struct pd_csv *c, int i)
{
	return i >= 0 && i < c->nh ? c->hdr[i] : NULL;
}

int
pd_csv_col(struct pd_csv *c, ...)
{
	va_list ap;
	const char *n;
	int i, found = -1;

	va_start(ap, c);
	while (found < 0 && (n = va_arg(ap, const char *))) {
		for (i = 0; i < c->nh; i++)
			if (strcmp(c->hdr[i], n) == 0) {
				found = i;
				break;
			}
		for (i = 0; found < 0 && i < c->nh; i++)
			if (strcasecmp(c->hdr[i], n) == 0)
				found = i;
	}
	va_end(ap);
	return found;
}

int
pd_csv_double(struct pd_csv *c, int i, double *v)
{
	if (i < 0 || i >= c->nf)
		return PD_NUM_MISSING;
	return pd_num_double(pd_csv_field(c, i), pd_csv_len(c, i), v);
}

int
pd_csv_us_ns(struct pd_csv *c, int i, int64_t *ns)
{
	if (i < 0 || i >= c->nf)
		return PD_NUM_MISSING;
	return pd_num_us_to_ns(pd_csv_field(c, i), pd_csv_len(c, i), ns);
}

int
pd_csv_int(struct pd_csv *c, int i, int64_t *v)
{
	if (i < 0 || i >= c->nf)
		return PD_NUM_MISSING;
	return pd_num_int(pd_csv_field(c, i), pd_csv_len(c, i), v);
}

int
pd_csv_require(const char *path, const char *const *names, const int *idx,
    int n)
{
	char buf[512] = "";
	int i, bad = 0;

	for (i = 0; i < n; i++)
		if (idx[i] < 0) {
			size_t l = strlen(buf);

			snprintf(buf + l, sizeof buf - l, "%s'%s'",
			    bad++ ? ", " : "", names[i]);
		}
	if (!bad)
		return 0;
	pd_error(path, 1, "unknown header variant: missing column%s %s",
	    bad > 1 ? "s" : "", buf);
	pd_diag_status(PD_EXIT_INPUT);
	return -1;
}

struct pd_csv *
pd_csv_open_header(const char *path)
{
	struct pd_csv *c = pd_csv_open(path);
	int r;

	if (!c) {
		pd_error(path, 0, "%s", pd_file_strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		return NULL;
	}
	if ((r = pd_csv_header(c)) <= 0) {
		pd_csv_header_warn(c, r);
		pd_csv_close(c);
		return NULL;
	}
	return c;
}
