/* tcache-check: everything pd_trace_read() hands out, for comparing a
 * read through the trace cache with one without it (test/cache.bats).
 *   tcache-check [-s N] FILE   one line per event with every pd_ev field
 *                              but raw (its length only), and first
 *                              what the lookups into its args find
 *                              for a few keys (look=; lookn=: the
 *                              same, eight at a time with
 *                              pd_kineto_args), one per on_meta
 *                              call (the value as compact JSON), then the
 *                              return code and every stats field; on
 *                              stderr, what the cache did (off, hit,
 *                              built, source). -s N: stop after N events;
 *                              -w MS: sleep MS ms at each event;
 *                              -q: the stats line only;
 *                              -f: with a filter (pd_trace_cb.want)
 *                              that declines the events whose ph is
 *                              not X, whose cat is "cuda_runtime" or
 *                              whose pid is the number 0 or the text
 *                              "Spans"; it aborts when it is shown
 *                              more than ph, name, cat and pid.
 *                              -S: with -f, a span callback too
 *                              (pd_trace_cb.span): of the events the
 *                              filter declines, those whose ph is X
 *                              and cat "cuda_runtime" count in the
 *                              stats' span (span=LO..HI, else span=-).
 *   tcache-check -m [-fs N] FILE the same, from an entry image built in
 *                              memory and replayed (pd_tcache_*_mem)
 *   tcache-check -F [-r] FILE... for each FILE, the lines of a read with
 *                              the filter of -f against those of a read
 *                              without it, in this process: the event
 *                              lines of the events the same test keeps
 *                              (applied to the whole events), every
 *                              other line (metas, stats) as it is. One
 *                              line a file: "same FILE kept=N of M
 *                              cache=U,F" (what the cache did for the
 *                              unfiltered and the filtered read), or
 *                              "differs FILE" and the first lines that
 *                              differ (exit 1). The unfiltered read
 *                              comes first; -r: the filtered one.
 *   tcache-check -3 FILE...    for each FILE, three reads in this
 *                              process: cache off, then on twice (cold,
 *                              warm); one line a file: "same FILE
 *                              cache=off,C,W" (what the cache did), or
 *                              "differs FILE" and the first lines that
 *                              differ (exit 1).
 * Every read checks the numbers a reader gives (pd_ev shape_id, name_id):
 * within a read, one number is always the same shape (ph, name, cat,
 * pid) or name; else it says so on stderr and exits 1. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pd_kineto.h"
#include "pd_tcache.h"
#include "pd_trace.h"

static long stop_after = -1, wait_ms;
static int quiet;
/* -F: the unfiltered read prints only the events keep() keeps */
static int keep_only;
static unsigned long n_kept, n_all;

/* the test of -f and -F: ph X, cat not "cuda_runtime", pid not the
 * number 0 nor the text "Spans" */
static int
keep(const struct pd_ev *e)
{
	if (e->ph != 'X' || strcmp(e->cat, "cuda_runtime") == 0)
		return 0;
	if (e->pid && e->pid_is_num && e->pid_num == 0)
		return 0;
	return !e->pid || strcmp(e->pid, "Spans") != 0;
}

static void
text(const char *what, const char *s, size_t n)
{
	printf(" %s=", what);
	if (!s) {
		printf("-");
		return;
	}
	printf("%zu:", n);
	fwrite(s, 1, n, stdout);
}

/* What each number stood for first in this read ("" when not yet). */
static char **shapes, **names;
static size_t nshapes, nnames;
static uint64_t read_no;

/* id's text in *tab must be s (a copy kept at its first sight). */
static void
same_id(char ***tab, size_t *n, uint32_t id, const char *s, const char *what)
{
	if (id == 0)
		return;
	if (id >= *n) {
		size_t nn = id * 2 + 16;
		*tab = realloc(*tab, nn * sizeof **tab);
		if (!*tab)
			abort();
		memset(*tab + *n, 0, (nn - *n) * sizeof **tab);
		*n = nn;
	}
	if (!(*tab)[id]) {
		if (!((*tab)[id] = strdup(s)))
			abort();
	} else if (strcmp((*tab)[id], s) != 0) {
		fprintf(stderr, "tcache-check: %s %u is '%s' and '%s'\n",
		    what, id, (*tab)[id], s);
		exit(1);
	}
}

static void
ids_free(void)
{
	size_t i;

	for (i = 0; i < nshapes; i++)
		free(shapes[i]);
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(shapes);
	free(names);
	shapes = names = NULL;
	nshapes = nnames = 0;
}

static void
check_ids(const struct pd_ev *e)
{
	char buf[4096];

	if (e->read_no != read_no) {
		ids_free();
		read_no = e->read_no;
	}
	snprintf(buf, sizeof buf, "%d|%s|%s|%s|%d", e->ph, e->name, e->cat,
	    e->pid ? e->pid : "-", e->pid_is_num);
	same_id(&shapes, &nshapes, e->shape_id, buf, "shape");
	same_id(&names, &nnames, e->name_id, e->name, "name");
}

/* the keys look= asks for (the fixtures' and the corpus's, one that
 * needs an escape, one never there) */
static const char *const look[] = { "a", "b", "s", "n", "k\\\"ey",
	"External id", "Ev Idx", "correlation", "Input Dims", "Bytes",
	"k31", "k32", "no such key", NULL };

static int
ev(const struct pd_ev *e, void *ctx)
{
	const char *v;
	size_t n;
	int i;

	(void)ctx;
	check_ids(e);
	if (keep_only) {
		n_all++;
		if (!keep(e))
			return 0;
		n_kept++;
	}
	if (wait_ms) {
		struct timespec t = { wait_ms / 1000, wait_ms % 1000 * 1000000L };
		nanosleep(&t, NULL);
	}
	if (quiet)
		return 0;
	printf("%" PRIu64 " ph=%d", e->index, e->ph);
	text("name", e->name, strlen(e->name));
	text("cat", e->cat, strlen(e->cat));
	text("pid", e->pid, e->pid ? strlen(e->pid) : 0);
	printf(" %d/%" PRId64, e->pid_is_num, e->pid_num);
	text("tid", e->tid, e->tid ? strlen(e->tid) : 0);
	printf(" %d/%" PRId64, e->tid_is_num, e->tid_num);
	printf(" ts=%d/%" PRId64 " dur=%d/%" PRId64, e->has_ts, e->ts_ns,
	    e->has_dur, e->dur_ns);
	/* the lookups before the text is asked for: from an entry, they
	 * read the keys and values it keeps by skeleton */
	printf(" look=");
	for (i = 0; look[i]; i++)
		if (pd_ev_arg_raw(e, look[i], &v, &n))
			printf("%s:%zu:%.*s;", look[i], n, (int)n, v);
	/* the same keys looked up eight at a time (pd_kineto_args: from
	 * an entry, all of them at once) */
	printf(" lookn=");
	for (i = 0; look[i]; i += 8) {
		const char *vv[8];
		size_t nn[8];
		int k, m = 0;

		while (m < 8 && look[i + m])
			m++;
		pd_kineto_args(e, look + i, m, vv, nn);
		for (k = 0; k < m; k++)
			if (vv[k])
				printf("%s:%zu:%.*s;", look[i + k], nn[k],
				    (int)nn[k], vv[k]);
		if (m < 8)
			break;
	}
	text("args", pd_ev_args(e), e->args_len);
	text("id", e->id, e->id_len);
	printf(" raw_len=%zu\n", e->raw_len);
	return stop_after >= 0 && (long)e->index + 1 >= stop_after;
}

static int
want(const struct pd_ev *e)
{
	if (e->tid || e->tid_num || e->tid_is_num || e->has_ts || e->has_dur ||
	    e->ts_ns || e->dur_ns || e->args || e->lazy || e->id || e->raw ||
	    e->raw_len || e->index || !e->name || !e->cat)
		abort();	/* more than the filter may look at */
	return keep(e);
}

/* -S: the span callback, asked as want is */
static int
span(const struct pd_ev *e)
{
	want(e);	/* the same checks */
	return e->ph == 'X' && strcmp(e->cat, "cuda_runtime") == 0;
}


static void
meta(const char *key, json_t *v, void *ctx)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

	(void)ctx;
	if (!quiet)
		printf("meta %s %s\n", key, s ? s : "?");
	free(s);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (cap - *len < 65536 && !(b = realloc(b, cap = cap * 2 + 65536)))
			exit(5);
		if ((n = fread(b + *len, 1, cap - *len, f)) == 0)
			break;
		*len += n;
	}
	fclose(f);
	return b;
}

static void
print_stats(int rc, const struct pd_trace_stats *st)
{
	printf("rc=%d events=%" PRIu64 " skipped=%" PRIu64 " bytes=%" PRIu64,
	    rc, st->events, st->skipped, st->bytes);
	if (st->span.any)
		printf(" span=%" PRId64 "..%" PRId64, st->span.lo, st->span.hi);
	else
		printf(" span=-");
	printf(" truncated=%d malformed=%d line=%ld format=%d err=%s\n",
	    st->truncated, st->malformed, st->err_line, st->format, st->err);
}

/* one read of FILE into a buffer: with the filter (filtered 1), or
 * without it and keep() applied to each whole event (0), or every event
 * as it comes (-1); *cache: what the cache did */
static char *
read_to_buf(const char *file, int filtered, size_t *len, int *cache)
{
	struct pd_trace_cb cb = { NULL, ev, meta, NULL, NULL };
	struct pd_trace_stats st;
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len), *saved = stdout;
	int rc;

	if (!out)
		exit(5);
	if (filtered > 0)
		cb.want = want;
	keep_only = filtered == 0;
	stdout = out;
	rc = pd_trace_read(file, &cb, &st);
	*cache = pd_tcache_last();
	print_stats(rc, &st);
	stdout = saved;
	if (fclose(out) != 0)
		exit(5);
	return buf;
}

/* the first line that differs between A and B, printed from both */
static void
first_difference(const char *a, const char *b)
{
	size_t line = 1;

	while (*a && *a == *b) {
		if (*a == '\n') {
			line++;
			a++, b++;
			continue;
		}
		a++, b++;
	}
	while (line > 1 && a[-1] != '\n')
		a--, b--;
	printf("line %zu:\n- %.*s\n+ %.*s\n", line, (int)strcspn(a, "\n"), a,
	    (int)strcspn(b, "\n"), b);
}

static int
compare_filtered(int n, char **files, int filtered_first, const char **what)
{
	int bad = 0;

	for (int i = 0; i < n; i++) {
		size_t la, lf;
		char *all, *f;
		int ca, cf;

		n_kept = n_all = 0;
		if (filtered_first) {
			f = read_to_buf(files[i], 1, &lf, &cf);
			all = read_to_buf(files[i], 0, &la, &ca);
		} else {
			all = read_to_buf(files[i], 0, &la, &ca);
			f = read_to_buf(files[i], 1, &lf, &cf);
		}
		if (la == lf && memcmp(all, f, la) == 0)
			printf("same %s kept=%lu of %lu cache=%s,%s\n", files[i],
			    n_kept, n_all, what[ca], what[cf]);
		else {
			printf("differs %s\n", files[i]);
			first_difference(all, f);
			bad = 1;
		}
		free(all);
		free(f);
	}
	return bad;
}

static int
compare_three(int n, char **files, const char **what)
{
	int bad = 0;

	for (int i = 0; i < n; i++) {
		size_t l[3];
		char *b[3];
		int c[3], k;

		for (k = 0; k < 3; k++) {
			if (k == 0)
				pd_tcache_disable();
			else
				pd_tcache_enable();
			b[k] = read_to_buf(files[i], -1, &l[k], &c[k]);
		}
		for (k = 1; k < 3; k++)
			if (l[k] != l[0] || memcmp(b[k], b[0], l[0]) != 0)
				break;
		if (k == 3)
			printf("same %s cache=%s,%s,%s\n", files[i], what[c[0]],
			    what[c[1]], what[c[2]]);
		else {
			printf("differs %s (%s)\n", files[i], k == 1 ? "cold" : "warm");
			first_difference(b[0], b[k]);
			bad = 1;
		}
		for (k = 0; k < 3; k++)
			free(b[k]);
	}
	return bad;
}

int
main(int argc, char **argv)
{
	static const char *what[] = { "off", "hit", "built", "source" };
	struct pd_trace_cb cb = { NULL, ev, meta, NULL, NULL };
	struct pd_trace_stats st;
	int c, mem = 0, rc, cmp_f = 0, rev = 0, three = 0;

	atexit(ids_free);
	while ((c = getopt(argc, argv, "3fFmqrSs:w:")) != -1) {
		if (c == '3')
			three = 1;
		else if (c == 'S')
			cb.span = span;
		else if (c == 'F')
			cmp_f = 1;
		else if (c == 'r')
			rev = 1;
		else if (c == 'f')
			cb.want = want;
		else if (c == 'm')
			mem = 1;
		else if (c == 'q')
			quiet = 1;
		else if (c == 'w')
			wait_ms = atol(optarg);
		else if (c == 's')
			stop_after = atol(optarg);
		else
			return 2;
	}
	if (three)
		return compare_three(argc - optind, argv + optind, what);
	if (cmp_f)
		return compare_filtered(argc - optind, argv + optind, rev, what);
	if (optind != argc - 1) {
		fprintf(stderr, "usage: tcache-check [-fmqS] [-s N] [-w MS] FILE | -F [-r] FILE... | -3 FILE...\n");
		return 2;
	}
	if (mem) {
		size_t len, ilen;
		char *buf = slurp(argv[optind], &len);
		void *img;

		if (!buf)
			return 5;
		if (pd_tcache_build_mem(buf, len, &img, &ilen) < 0) {
			fprintf(stderr, "tcache-check: not cacheable\n");
			free(buf);
			return 1;
		}
		rc = pd_tcache_replay_mem(img, ilen, 1, &cb, &st);
		free(img);
		free(buf);
	} else {
		rc = pd_trace_read(argv[optind], &cb, &st);
		fprintf(stderr, "cache: %s\n", what[pd_tcache_last()]);
	}
	print_stats(rc, &st);
	return 0;
}
