/* trace-dump: print each event the streaming reader sees, one line each:
 *   index ph pid tid ts_ns dur_ns cat|name
 * With -c: only counts and the stop reason. Used by test/lib.bats. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pd_trace.h"

static int counts;

static int
ev(const struct pd_ev *e, void *ctx)
{
	(void)ctx;
	if (counts)
		return 0;
	printf("%" PRIu64 " %c %s %s ", e->index, e->ph ? e->ph : '-',
	    e->pid ? e->pid : "-", e->tid ? e->tid : "-");
	if (e->has_ts)
		printf("%" PRId64, e->ts_ns);
	else
		printf("-");
	if (e->has_dur)
		printf(" %" PRId64, e->dur_ns);
	else
		printf(" -");
	printf(" %s|%s", e->cat, e->name);
	if (e->id)
		printf(" id=%.*s", (int)e->id_len, e->id);
	putchar('\n');
	return 0;
}

static void
meta(const char *key, json_t *v, void *ctx)
{
	(void)v;
	(void)ctx;
	if (!counts)
		printf("meta %s\n", key);
}

int
main(int argc, char **argv)
{
	struct pd_trace_cb cb = { NULL, ev, meta, NULL, NULL };
	struct pd_trace_stats st;
	int i = 1, rc;

	if (argc > 1 && strcmp(argv[1], "-c") == 0)
		counts = 1, i++;
	if (i >= argc) {
		fprintf(stderr, "usage: trace-dump [-c] FILE\n");
		return 2;
	}
	rc = pd_trace_read(argv[i], &cb, &st);
	printf("rc=%d events=%" PRIu64 " skipped=%" PRIu64 " bytes=%" PRIu64
	    " truncated=%d malformed=%d line=%ld err=%s\n", rc, st.events,
	    st.skipped, st.bytes, st.truncated, st.malformed, st.err_line,
	    st.err);
	return rc < 0 ? 5 : rc;
}
