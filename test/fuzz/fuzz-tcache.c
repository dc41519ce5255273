/* libFuzzer target for the trace cache's entries (make fuzz).
 *
 * An input that starts with the entry magic is replayed as an entry with
 * the checksum not checked, so that the structural checks alone stand
 * between it and the callbacks: nothing may crash or read outside it.
 * Any other input is parsed as a trace; its entry is built in memory and
 * replayed, which must hand out exactly what the parse did (every event
 * field, on_meta call and stats field, through a running hash). Then one
 * byte of the entry, chosen from the input, is changed: with the checksums
 * checked the entry must be refused, or its replay stop at the window
 * that holds the change (from memory there is no trace to go on with: a
 * malformed read); without them the replay must not crash; and the entry
 * cut short must be refused either way. With a filter (pd_trace_cb.want)
 * the replay must hand out what the parse with that filter does, and so
 * with a span callback too (the stats' span included). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pd_tcache.h"
#include "pd_trace.h"

static uint64_t h;

static void
mix(const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--)
		h = (h ^ *s++) * 1099511628211ULL;
}

static void
mixs(const char *s)
{
	if (s)
		mix(s, strlen(s) + 1);
	else
		mix("\377", 1);
}

static int
ev(const struct pd_ev *e, void *ctx)
{
	static const char *const keys[] = { "a", "b", "External id",
	    "k\\\"", NULL };
	char buf[64];
	const char *a;
	size_t n;
	int64_t v;
	double d;
	uint64_t ix = e->index;
	int i;

	(void)ctx;
	mix(&e->ph, 1);
	mixs(e->name);
	mixs(e->cat);
	mixs(e->pid);
	mixs(e->tid);
	mix(&e->pid_num, 8);
	mix(&e->tid_num, 8);
	mix(&e->pid_is_num, sizeof e->pid_is_num);
	mix(&e->tid_is_num, sizeof e->tid_is_num);
	mix(&e->ts_ns, 8);
	mix(&e->dur_ns, 8);
	mix(&e->has_ts, sizeof e->has_ts);
	mix(&e->has_dur, sizeof e->has_dur);
	mix(&ix, 8);
	mix(&e->raw_len, sizeof e->raw_len);
	/* the lookups before the text (a replay: by skeleton, without it) */
	for (i = 0; keys[i]; i++) {
		if (pd_ev_arg_raw(e, keys[i], &a, &n))
			mix(a, n);
		else
			mix("\375", 1);
	}
	if (pd_ev_args(e))
		mix(pd_ev_args(e), e->args_len);
	else
		mix("\376", 1);
	if (e->id)
		mix(e->id, e->id_len);
	else
		mix("\376", 1);
	pd_ev_arg_int(e, "correlation", &v);
	pd_ev_arg_double(e, "Bytes", &d);
	pd_ev_arg_str(e, "name", buf, sizeof buf);
	json_decref(pd_ev_args_json(e));
	return 0;
}

/* A filter on every field it may look at. */
static int
want(const struct pd_ev *e)
{
	if (e->ph == 'X' || (e->pid && e->pid_is_num && e->pid_num == 1))
		return 1;
	return e->name[0] == 'a' || strcmp(e->cat, "c") == 0;
}

/* Of the events want declines, those kept for their time. */
static int
span(const struct pd_ev *e)
{
	return e->ph == 'i' || e->cat[0] == 's';
}

static void
meta(const char *key, json_t *v, void *ctx)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

	(void)ctx;
	mixs(key);
	mixs(s);
	free(s);
}

static uint64_t
stats_hash(int rc, const struct pd_trace_stats *st)
{
	mix(&rc, sizeof rc);
	mix(&st->events, 8);
	mix(&st->skipped, 8);
	mix(&st->bytes, 8);
	mix(&st->truncated, sizeof st->truncated);
	mix(&st->malformed, sizeof st->malformed);
	mix(&st->err_line, sizeof st->err_line);
	mixs(st->err);
	mix(&st->format, sizeof st->format);
	mix(&st->span.any, sizeof st->span.any);
	if (st->span.any) {
		mix(&st->span.lo, 8);
		mix(&st->span.hi, 8);
	}
	return h;
}

/* The replay of img (len bytes, built from the trace data) hands out
 * what parsing data does with cb, its stats (span included) too. */
static void
same_read(const uint8_t *data, size_t size, const void *img, size_t len,
    const struct pd_trace_cb *cb)
{
	struct pd_trace_stats st;
	uint64_t parsed;
	int rc;

	h = 1469598103934665603ULL;
	rc = pd_trace_read_mem((const char *)data, size, cb, &st);
	parsed = stats_hash(rc, &st);
	h = 1469598103934665603ULL;
	rc = pd_tcache_replay_mem(img, len, 1, cb, &st);
	if (rc == -2 || stats_hash(rc, &st) != parsed)
		abort();	/* the replay differs from the parse */
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_trace_cb cb = { NULL, ev, meta, NULL, NULL };
	struct pd_trace_stats st;
	void *img;
	char *bad;
	size_t len, at;
	int rc;

	if (size >= 8 && memcmp(data, "PDTCACHE", 8) == 0) {
		pd_tcache_replay_mem(data, size, 0, &cb, &st);
		return 0;
	}
	if (pd_tcache_build_mem((const char *)data, size, &img, &len) < 0)
		return 0;
	same_read(data, size, img, len, &cb);
	cb.want = want;
	same_read(data, size, img, len, &cb);	/* filtered */
	cb.span = span;
	same_read(data, size, img, len, &cb);	/* with a span too */
	cb.want = NULL;
	cb.span = NULL;
	/* one byte changed, where the input says */
	at = 0;
	for (size_t i = 0; i < size; i++)
		at = at * 31 + data[i];
	at %= len;
	if (!(bad = malloc(len)))
		abort();
	memcpy(bad, img, len);
	bad[at] ^= (char)(1 + (size & 0x7f));
	rc = pd_tcache_replay_mem(bad, len, 1, &cb, &st);
	if (rc != -2 && !(rc == 1 && st.malformed &&
	    strncmp(st.err, "corrupt trace cache entry", 25) == 0))
		abort();	/* a changed entry was used */
	pd_tcache_replay_mem(bad, len, 0, &cb, &st);
	if (pd_tcache_replay_mem(img, at & ~(size_t)7, 0, &cb, &st) != -2)
		abort();	/* a cut entry was not refused */
	free(bad);
	free(img);
	return 0;
}
