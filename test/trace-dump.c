/* trace-dump: print each event the streaming reader sees, one line each:
 *   index ph pid tid ts_ns dur_ns cat|name
 * With -c: only counts and the stop reason. With -n PID: FILE is an
 * Nsight Systems export read by pd_nsys (PID -1: every process), and
 * each line ends with " args=" and the event's args. Used by
 * test/lib.bats and test/nsys.bats. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_nsys.h"
#include "pd_trace.h"

static int counts, with_args;

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
	if (with_args)
		printf(" args=%.*s", (int)e->args_len, e->args ? e->args : "");
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
	int i = 1, rc, nsys = 0;
	long long pid = -1;

	if (argc > i && strcmp(argv[i], "-c") == 0)
		counts = 1, i++;
	if (argc > i + 1 && strcmp(argv[i], "-n") == 0) {
		nsys = with_args = 1;
		pid = atoll(argv[i + 1]);
		i += 2;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: trace-dump [-c] [-n PID] FILE\n");
		return 2;
	}
	rc = nsys ? pd_nsys_read(argv[i], pid, &cb, NULL, &st) :
	    pd_trace_read(argv[i], &cb, &st);
	printf("rc=%d events=%" PRIu64 " skipped=%" PRIu64 " bytes=%" PRIu64
	    " truncated=%d malformed=%d line=%ld err=%s\n", rc, st.events,
	    st.skipped, st.bytes, st.truncated, st.malformed, st.err_line,
	    st.err);
	return rc < 0 ? 5 : rc;
}
