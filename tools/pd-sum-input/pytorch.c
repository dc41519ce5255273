/* pd-sum-input for PyTorch roots (Kineto traces, the legacy autograd
 * exporter): one pd.input per trace.
 *
 * Reads: the trace of the root, streamed once.
 * Input time = the CPU spans "enumerate(DataLoader)#<iterator>.__next__"
 * (the single-process and the multi-process iterators alike; what
 * torch-tb-profiler calls DataLoader), as their union clipped to each step.
 * Steps: the ProfilerStep#N windows; a trace without them is cut into
 * iterations at each DataLoader call (step null); a trace with neither is
 * one window (step null).
 * Keeps: the step windows and one span per DataLoader call.
 * Writes: per step input_us, step_us, input_ratio; the share over all
 * steps and its class: "highly" >= 20 %, "moderately" 5-20 %, "not" < 5 %
 * (TensorFlow's input-pipeline analyzer); null when the trace has no
 * DataLoader calls (absent evidence). */
#include "record.h"
#include "sum_input.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_ivl.h"
#include "pd_kineto.h"
#include "pd_rec.h"

struct acc {
	const char *path;
	struct pd_ksteps steps;
	struct pd_span *dl;	/* DataLoader calls */
	size_t ndl, capdl;
	char iter[128];		/* the iterator of the first call */
	int mixed;
	struct pd_tspan span;	/* the trace's, of what on_event sees */
	uint64_t bad;
};

static int
on_event(const struct pd_ev *ev, void *ctx)
{
	struct acc *a = ctx;
	int k = pd_kineto_class(ev);
	int64_t n, e;

	if (ev->ph != 'X' || k == PD_KC_META || k == PD_KC_OTHER)
		return 0;
	if (!ev->has_ts || !ev->has_dur || ev->dur_ns < 0) {
		if (pd_kineto_is_cpu_range(k) &&
		    (pd_kineto_step_num(ev->name) >= 0 ||
		    pd_kineto_is_dataloader(ev->name)))
			pd_kineto_bad_event(a->path, ev, "no ts or dur, or a "
			    "negative dur", &a->bad);
		return 0;
	}
	e = ev->ts_ns + ev->dur_ns;
	pd_tspan_add(&a->span, 1, ev->ts_ns, 1, ev->dur_ns);
	if (!pd_kineto_is_cpu_range(k))
		return 0;
	if ((n = pd_kineto_step_num(ev->name)) >= 0) {
		pd_ksteps_add(&a->steps, n, ev->ts_ns, e);
	} else if (pd_kineto_is_dataloader(ev->name)) {
		const char *it = strchr(ev->name, '#') + 1;
		size_t len = strlen(it) - strlen(".__next__");
		if (a->ndl == 0)
			snprintf(a->iter, sizeof a->iter, "%.*s", (int)len, it);
		else if (strlen(a->iter) != len ||
		    strncmp(a->iter, it, len) != 0)
			a->mixed = 1;
		if (a->ndl == a->capdl) {
			a->capdl = a->capdl ? a->capdl * 2 : 64;
			a->dl = realloc(a->dl, a->capdl * sizeof *a->dl);
			if (!a->dl)
				pd_oom();
		}
		a->dl[a->ndl].s = ev->ts_ns;
		a->dl[a->ndl++].e = e;
	}
	return 0;
}

static int
span_cmp(const void *x, const void *y)
{
	const struct pd_span *a = x, *b = y;

	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	return (a->e > b->e) - (a->e < b->e);
}

/* Steps from the DataLoader calls when the trace has no ProfilerStep. */
static const char *
windows(struct acc *a)
{
	size_t i;

	if (a->steps.n) {
		pd_ksteps_sort(&a->steps);
		return "profiler_step";
	}
	if (a->ndl) {
		for (i = 0; i < a->ndl; i++)
			pd_ksteps_add(&a->steps, -1 - (int64_t)i, a->dl[i].s,
			    i + 1 < a->ndl ? a->dl[i + 1].s : a->span.hi);
		return "dataloader";
	}
	if (a->span.any)
		pd_ksteps_add(&a->steps, -1, a->span.lo, a->span.hi);
	return "trace";
}

static void
emit(json_t *root, struct acc *a, const struct pd_kineto_info *info,
    const struct pd_trace_stats *st, int truncated)
{
	json_t *rec = pd_kineto_rec("pd.input", root, info, "kineto_trace");
	char name[sizeof a->iter + 40];
	struct inputrec r = { 0 };
	struct pd_ivl u = { 0 };
	int64_t in_sum = 0, step_sum = 0;
	int have = a->ndl > 0;
	size_t i, slow = 0, j = 0;

	if (a->ndl > 1)
		qsort(a->dl, a->ndl, sizeof *a->dl, span_cmp);
	for (i = 0; i < a->ndl; i++) {
		pd_ivl_add(&u, a->dl[i].s, a->dl[i].e);
		if (a->dl[i].e - a->dl[i].s > a->dl[slow].e - a->dl[slow].s)
			slow = i;
	}
	r.steps_from = windows(a);
	for (i = 0; i < a->steps.n; i++) {
		struct pd_kstep *s = &a->steps.v[i];
		struct inputstep *e = inputrec_step(&r);
		int64_t in = pd_ivl_len_in(&u, s->s, s->e), calls = 0;

		while (j < a->ndl && a->dl[j].s < s->s)
			j++;
		while (j + calls < a->ndl && a->dl[j + calls].s < s->e)
			calls++;
		e->step = s->num;
		e->has_step = s->num >= 0;
		if (have)
			e->input_us = (double)in / 1e3;
		e->step_us = (double)(s->e - s->s) / 1e3;
		if (have && s->e > s->s)
			e->input_ratio = (double)in / (double)(s->e - s->s);
		e->calls = calls;
		e->has_calls = 1;
		in_sum += in;
		step_sum += s->e - s->s;
	}
	r.input_us_mean = have && a->steps.n ? (double)in_sum / 1e3 /
	    (double)a->steps.n : NAN;
	r.input_ratio = have && step_sum > 0 ? (double)in_sum /
	    (double)step_sum : NAN;
	r.queue_empty_ratio = NAN;
	r.dataloader_spans = (int64_t)u.n;
	for (i = 0, j = 0; i < a->ndl; i++)
		if (a->dl[i].e - a->dl[i].s >= SLOW_LOADER_NS)
			j++;
	r.slow_dataloader_calls = (int64_t)j;
	if (have) {
		long k = pd_ksteps_find(&a->steps, a->dl[slow].s);
		snprintf(name, sizeof name, "enumerate(DataLoader)#%s.__next__",
		    a->iter);
		r.has_slowest_call = 1;
		r.slowest_call.name = name;
		r.slowest_call.dur_us =
		    (double)(a->dl[slow].e - a->dl[slow].s) / 1e3;
		r.slowest_call.has_step = k >= 0 && a->steps.v[k].num >= 0;
		r.slowest_call.step = r.slowest_call.has_step ?
		    a->steps.v[k].num : 0;
		r.slowest_call.start_ns = a->dl[slow].s;
	}
	r.iterator = !have ? NULL : a->mixed ? "mixed" : a->iter;
	r.calls = (int64_t)a->ndl;
	r.has_calls = 1;
	r.first_call_us = have ? (double)(a->dl[0].e - a->dl[0].s) / 1e3 : NAN;
	r.getnext_empty_ratio = NAN;
	r.tick_mhz = NAN;
	r.skipped = (int64_t)(a->bad + st->skipped);
	r.path = a->path;
	r.truncated = truncated;
	inputrec_write(rec, &r);
	pd_ivl_free(&u);
}

/* The events on_event reads more of than their time (pd_trace_cb.want):
 * the CPU ranges of steps and DataLoader calls; */
static int
want(const struct pd_ev *ev)
{
	int k = pd_kineto_class(ev);

	return ev->ph == 'X' && pd_kineto_is_cpu_range(k) &&
	    (pd_kineto_step_num(ev->name) >= 0 ||
	    pd_kineto_is_dataloader(ev->name));
}

/* and those it reads only the time of, for the trace's span (the
 * windows without steps): the reader keeps their earliest start and
 * latest end (pd_trace_cb.span) */
static int
span(const struct pd_ev *ev)
{
	int k = pd_kineto_class(ev);

	return ev->ph == 'X' && k != PD_KC_META && k != PD_KC_OTHER;
}

int
sum_input_pytorch(json_t *root, const struct pd_tool *t)
{
	struct acc a;
	struct pd_trace_cb cb = { &a, on_event, NULL, want, span };
	struct pd_kineto_info info;
	struct pd_trace_stats st;
	int rc;

	(void)t;
	memset(&a, 0, sizeof a);
	if (!(a.path = pd_kineto_trace_path(root)))
		return 0;
	rc = pd_kineto_read(root, a.path, &cb, &info, &st);
	pd_tspan_join(&a.span, &st.span);	/* of the events kept for it */
	if (rc >= 0)
		emit(root, &a, &info, &st, rc == 1);
	pd_kineto_info_free(&info);
	pd_ksteps_free(&a.steps);
	free(a.dl);
	return rc < 0 ? PD_EXIT_SYSTEM : 0;
}
