/* tcache-check: everything pd_trace_read() hands out, for comparing a
 * read through the trace cache with one without it (test/cache.bats).
 *   tcache-check [-s N] FILE   one line per event with every pd_ev field
 *                              but raw (its length only), one per on_meta
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
 *   tcache-check -m [-fs N] FILE the same, from an entry image built in
 *                              memory and replayed (pd_tcache_*_mem) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pd_tcache.h"
#include "pd_trace.h"

static long stop_after = -1, wait_ms;
static int quiet;

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

static int
ev(const struct pd_ev *e, void *ctx)
{
	(void)ctx;
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
	text("args", e->args, e->args_len);
	text("id", e->id, e->id_len);
	printf(" raw_len=%zu\n", e->raw_len);
	return stop_after >= 0 && (long)e->index + 1 >= stop_after;
}

static int
want(const struct pd_ev *e)
{
	if (e->tid || e->tid_num || e->tid_is_num || e->has_ts || e->has_dur ||
	    e->ts_ns || e->dur_ns || e->args || e->id || e->raw ||
	    e->raw_len || e->index || !e->name || !e->cat)
		abort();	/* more than the filter may look at */
	if (e->ph != 'X' || strcmp(e->cat, "cuda_runtime") == 0)
		return 0;
	if (e->pid && e->pid_is_num && e->pid_num == 0)
		return 0;
	return !e->pid || strcmp(e->pid, "Spans") != 0;
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

int
main(int argc, char **argv)
{
	static const char *what[] = { "off", "hit", "built", "source" };
	struct pd_trace_cb cb = { NULL, ev, meta, NULL };
	struct pd_trace_stats st;
	int c, mem = 0, rc;

	while ((c = getopt(argc, argv, "fmqs:w:")) != -1) {
		if (c == 'f')
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
	if (optind != argc - 1) {
		fprintf(stderr, "usage: tcache-check [-fmq] [-s N] [-w MS] FILE\n");
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
	printf("rc=%d events=%" PRIu64 " skipped=%" PRIu64 " bytes=%" PRIu64
	    " truncated=%d malformed=%d line=%ld format=%d err=%s\n", rc,
	    st.events, st.skipped, st.bytes, st.truncated, st.malformed,
	    st.err_line, st.format, st.err);
	return 0;
}
