/* libFuzzer target for the hand-written trace scanner (make fuzz).
 * Besides crashes and sanitizer reports, it checks that every event handed
 * out has a raw span inside the input, args and id spans inside that, a
 * numeric pid/tid equal to what pd_num reads in its text, and that args
 * lookups stay inside. Then it reads the input again with a filter
 * (pd_trace_cb.want, and span) and checks that the events handed out are
 * those of the first read that the filter wants, the same in every field,
 * and that the stats are the same, the span that of the first read's
 * events the filter declines and span keeps. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pd_num.h"
#include "pd_trace.h"

/* The events of a read, each as a hash of every field (the args and id
 * as offsets into the event's text, which is hashed too: the reader reads
 * a copy of the input). */
struct seen {
	uint64_t *h;
	size_t n, cap;
	int all;	/* an unfiltered read: note what the filter wants, */
	struct pd_tspan sp;	/* and the span of those it keeps the
				 * time of */
};

static uint64_t
mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--)
		h = (h ^ *s++) * 1099511628211ULL;
	return h;
}

static uint64_t
mixs(uint64_t h, const char *s)
{
	return s ? mix(h, s, strlen(s) + 1) : mix(h, "-", 1);
}

static uint64_t
ev_hash(const struct pd_ev *e)
{
	uint64_t h = 1469598103934665603ULL;
	int64_t v[8];

	h = mix(h, &e->ph, 1);
	h = mixs(h, e->name);
	h = mixs(h, e->cat);
	h = mixs(h, e->pid);
	h = mixs(h, e->tid);
	v[0] = e->pid_is_num ? e->pid_num : -1;
	v[1] = e->tid_is_num ? e->tid_num : -1;
	v[2] = e->has_ts ? e->ts_ns : -1;
	v[3] = e->has_dur ? e->dur_ns : -1;
	v[4] = e->args ? e->args - e->raw : -1;
	v[5] = e->args ? (int64_t)e->args_len : -1;
	v[6] = e->id ? e->id - e->raw : -1;
	v[7] = e->id ? (int64_t)e->id_len : -1;
	h = mix(h, v, sizeof v);
	h = mix(h, e->raw, e->raw_len);
	return mix(h, &e->index, sizeof e->index);
}

static int want(const struct pd_ev *);
static int span(const struct pd_ev *);

static void
note(struct seen *s, const struct pd_ev *e)
{
	static const struct pd_trace_cb fcb = { NULL, NULL, NULL, want, span };
	int a = s->all ? pd_trace_answer(&fcb, e) : PD_WANT;

	if (a == PD_SPAN)
		pd_tspan_add(&s->sp, e->has_ts, e->ts_ns, e->has_dur,
		    e->dur_ns);
	if (a != PD_WANT)
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		if (!(s->h = realloc(s->h, s->cap * sizeof *s->h)))
			abort();
	}
	s->h[s->n++] = ev_hash(e);
}

/* An arbitrary filter that looks at every field it may see, and a span
 * callback keeping some of what it declines. */
static unsigned
filter_hash(const struct pd_ev *e)
{
	unsigned x = (unsigned char)e->ph;

	if (e->tid || e->has_ts || e->has_dur || e->args || e->id || e->raw)
		abort();	/* more than a filter is shown */
	x += (unsigned char)e->name[0] + 3u * (unsigned char)e->cat[0];
	if (e->pid)
		x += (unsigned char)e->pid[0] + (e->pid_is_num ?
		    (unsigned)e->pid_num : 7u);
	return x;
}

static int
want(const struct pd_ev *e)
{
	return filter_hash(e) % 3 != 0;
}

static int
span(const struct pd_ev *e)
{
	return filter_hash(e) / 3 % 2 == 0;
}

static int
ev(const struct pd_ev *e, void *ctx)
{
	char buf[64];
	int64_t v;
	double d;

	if (e->raw_len == 0 || e->raw[0] != '{' || e->raw[e->raw_len - 1] != '}')
		abort();
	/* a skipped value only counts brackets: "{...]" closes too */
	if (e->args && (e->args <= e->raw || e->args + e->args_len >
	    e->raw + e->raw_len || e->args[0] != '{' ||
	    (e->args[e->args_len - 1] != '}' &&
	    e->args[e->args_len - 1] != ']')))
		abort();
	if (e->id && (e->id <= e->raw || e->id + e->id_len >
	    e->raw + e->raw_len))
		abort();
	/* a pid/tid the scanner read as a number is the number pd_num
	 * reads in its text */
	if (e->pid_is_num && (pd_num_int(e->pid, strlen(e->pid), &v) !=
	    PD_NUM_OK || v != e->pid_num))
		abort();
	if (e->tid_is_num && (pd_num_int(e->tid, strlen(e->tid), &v) !=
	    PD_NUM_OK || v != e->tid_num))
		abort();
	pd_ev_arg_int(e, "correlation", &v);
	pd_ev_arg_double(e, "Bytes", &d);
	pd_ev_arg_str(e, "name", buf, sizeof buf);
	json_decref(pd_ev_args_json(e));
	note(ctx, e);
	return 0;
}

static void
meta(const char *key, json_t *v, void *ctx)
{
	(void)key;
	(void)v;
	(void)ctx;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen all = { NULL, 0, 0, 1, { 0 } },
	    some = { NULL, 0, 0, 0, { 0 } };
	struct pd_trace_cb cb = { &all, ev, meta, NULL, NULL };
	struct pd_trace_stats st, fst;
	int rc, frc;

	rc = pd_trace_read_mem((const char *)data, size, &cb, &st);
	/* again with the filter: the events it wants, the same in every
	 * field, in the same order, and the same stats, with the span of
	 * those it keeps the time of */
	st.span.any = all.sp.any;	/* member by member: st's padding */
	st.span.lo = all.sp.lo;		/* stays the reader's zeros */
	st.span.hi = all.sp.hi;
	cb.ctx = &some;
	cb.want = want;
	cb.span = span;
	frc = pd_trace_read_mem((const char *)data, size, &cb, &fst);
	if (rc != frc || memcmp(&st, &fst, sizeof st) != 0 ||
	    all.n != some.n || (all.n && memcmp(all.h, some.h,
	    all.n * sizeof *all.h) != 0))
		abort();
	free(some.h);
	free(all.h);
	return 0;
}
