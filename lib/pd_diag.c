#include "pd_diag.h"

#include "pd_archive.h"
#include "pd_rec.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prog = "pd";
static int status;
static int quiet;

void
pd_diag_init(const char *argv0)
{
	const char *s = strrchr(argv0, '/');
	const char *q = getenv("PD_QUIET");

	prog = s ? s + 1 : argv0;
	if (q && *q && strcmp(q, "0") != 0)
		quiet = 1;
	/* jansson's allocations too: a record never silently loses a value */
	json_set_alloc_funcs(pd_xmalloc, free);
}

const char *
pd_diag_prog(void)
{
	return prog;
}

void
pd_diag_quiet(int on)
{
	quiet = on;
}

/* The end of the longest prefix of s[0..n) that does not split a UTF-8
 * sequence: s[n] is read (a continuation byte there moves the cut back
 * before its lead). */
static size_t
utf8_cut(const char *s, size_t n)
{
	size_t k = n;

	while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80 && n - k < 3)
		k--;
	return k;
}

/* A message names an archive member as ARCHIVE//MEMBER, never by the
 * private copy that is read (pd_archive.h). Its text is cut at
 * PD_MSG_MAX bytes: a caller that put input in it without
 * pd_diag_quote() cannot flood stderr with it. */
static void
vmsg(const char *level, const char *file, long line, const char *fmt, va_list ap)
{
	char m[PD_MSG_MAX + 2];	/* one byte past the cut, to see a split */
	char *f = NULL, *um = NULL, *buf = NULL;
	size_t n = 0;
	FILE *out;
	int len = vsnprintf(m, sizeof m, fmt, ap);

	if (len > PD_MSG_MAX)
		m[utf8_cut(m, PD_MSG_MAX)] = '\0';
	if (pd_archive_active()) {
		f = file ? pd_archive_unmap(file) : NULL;
		um = pd_archive_unmap(m);
	}
	if (f)
		file = f;
	/* The line is written with one write(2) (stderr is unbuffered): the
	 * stages of a pipeline share a terminal or a log, and a message
	 * written in pieces could interleave with another stage's. */
	if (!(out = open_memstream(&buf, &n)))
		out = stderr;
	fprintf(out, "%s: ", prog);
	if (level)
		fprintf(out, "%s: ", level);
	if (file && line > 0)
		fprintf(out, "%s:%ld: ", file, line);
	else if (file)
		fprintf(out, "%s: ", file);
	fputs(um ? um : len < 0 ? "(message not formatted)" : m, out);
	if (len > PD_MSG_MAX)
		fprintf(out, "... (message of %d bytes cut)", len);
	fputc('\n', out);
	if (out != stderr) {
		if (fclose(out) == 0)
			fwrite(buf, 1, n, stderr);
		free(buf);
	}
	free(f);
	free(um);
}

void
pd_warn(const char *file, long line, const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vmsg("warning", file, line, fmt, ap);
	va_end(ap);
}

void
pd_error(const char *file, long line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", file, line, fmt, ap);
	va_end(ap);
}

void
pd_note(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vmsg(NULL, NULL, 0, fmt, ap);
	va_end(ap);
}

const char *
pd_diag_quote(const char *s, size_t n)
{
	static char ring[8][4 * PD_QUOTE_MAX + 48];
	static unsigned next;
	char *b = ring[next++ % 8];
	size_t i = 0, j = 0, k;

	if (!s)
		return "(null)";
	if (n == (size_t)-1)
		n = strlen(s);
	b[j++] = '\'';
	while (i < n) {
		unsigned char c = (unsigned char)s[i];

		k = pd_utf8_seq(s + i, n - i);
		if (i + (k ? k : 1) > PD_QUOTE_MAX)
			break;	/* no sequence is split */
		if (k > 1 || (k == 1 && c >= 0x20 && c != 0x7F && c != '\'' &&
		    c != '\\')) {
			memcpy(b + j, s + i, k);
			j += k;
			i += k;
			continue;
		}
		if (c == '\'' || c == '\\') {
			b[j++] = '\\';
			b[j++] = (char)c;
		} else {
			j += (size_t)sprintf(b + j, "\\x%02X", c);
		}
		i++;
	}
	b[j++] = '\'';
	if (i < n)
		j += (size_t)snprintf(b + j, 40, "... (%zu bytes)", n);
	b[j] = 0;
	return b;
}

void
pd_diag_status(int code)
{
	if (code < 0 || code > PD_EXIT_SYSTEM)	/* no such status: a bug */
		code = PD_EXIT_SYSTEM;
	if (code == PD_EXIT_FOUND) {
		if (status == PD_EXIT_OK)
			status = code;
		return;
	}
	if (code > status)
		status = code;
}

int
pd_diag_get_status(void)
{
	return status;
}

void
pd_usage_exit(const char *usage, int code)
{
	FILE *f = code == 0 ? stdout : stderr;

	fputs(usage, f);
	if (code == 0)
		exit(pd_diag_finish());
	exit(code);
}

void
pd_oom(void)
{
	/* no allocation here: stderr is unbuffered */
	fputs(prog, stderr);
	fputs(": error: out of memory\n", stderr);
	exit(PD_EXIT_SYSTEM);
}

void *
pd_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		pd_oom();
	return p;
}

void *
pd_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		pd_oom();
	return p;
}

void *
pd_xrealloc(void *p, size_t n)
{
	if (!(p = realloc(p, n ? n : 1)))
		pd_oom();
	return p;
}

char *
pd_xstrdup(const char *s)
{
	char *d;

	if (!s)
		return NULL;
	if (!(d = strdup(s)))
		pd_oom();
	return d;
}

int
pd_diag_finish(void)
{
	int bad = 0;

	if (fflush(stdout) != 0 || ferror(stdout))
		bad = errno ? errno : EIO;
	if (fclose(stdout) != 0 && !bad)
		bad = errno ? errno : EIO;
	if (bad) {
		fprintf(stderr, "%s: error: write error on standard output: %s\n",
		    prog, strerror(bad));
		pd_diag_status(PD_EXIT_SYSTEM);
	}
	return status;
}
