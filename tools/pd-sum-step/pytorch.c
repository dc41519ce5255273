/* pd-sum-step for PyTorch roots (Kineto traces, the legacy autograd
 * exporter): one pd.step per trace.
 *
 * Reads: the trace of the root, streamed once.
 * Keeps: the ProfilerStep#N windows (CPU side), and the unions of the
 * intervals of compute kernels, communication kernels (share/
 * comm-patterns.txt plus -p FILE), memcpys, memsets and CPU ops; a union
 * holds about one interval per busy stretch, never one per event.
 * Writes: per step, the union of each class clipped to the step window
 * (HTA's temporal-breakdown and comm/comp-overlap definitions, per step and
 * on integer ns); then the same over the whole trace in "gpu". A trace
 * without ProfilerStep gives one step (null) spanning the trace; an
 * Nsight Systems export, one spanning its device activity. */
#include "record.h"
#include "sum_step.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_formats.h"
#include "pd_ivl.h"
#include "pd_kineto.h"
#include "pd_patterns.h"
#include "pd_rec.h"

enum { C_COMP, C_COMM, C_MEMCPY, C_MEMSET, C_CPU, C_N };

struct acc {
	const char *path;
	const struct pd_patterns *comm;
	struct pd_ksteps steps;
	struct pd_ivl u[C_N];
	uint64_t gpu, bad;
	int64_t lo, hi;		/* hull of the timed events */
};

static void
hull(struct acc *a, int64_t s, int64_t e)
{
	if (a->lo > a->hi) {
		a->lo = s;
		a->hi = e;
		return;
	}
	if (s < a->lo)
		a->lo = s;
	if (e > a->hi)
		a->hi = e;
}

static int
on_event(const struct pd_ev *ev, void *ctx)
{
	struct acc *a = ctx;
	int k = pd_kineto_class(ev), c;
	int64_t n;

	if (k == PD_KC_OTHER || k == PD_KC_META || k == PD_KC_MEMORY ||
	    ev->ph != 'X')
		return 0;
	if (!ev->has_ts || !ev->has_dur || ev->dur_ns < 0) {
		if (pd_kineto_is_gpu(k) || pd_kineto_is_cpu_range(k))
			pd_kineto_bad_event(a->path, ev,
			    "no ts or dur, or a negative dur", &a->bad);
		return 0;
	}
	hull(a, ev->ts_ns, ev->ts_ns + ev->dur_ns);
	if (pd_kineto_is_gpu(k)) {
		a->gpu++;
		if (k == PD_KC_MEMCPY)
			c = C_MEMCPY;
		else if (k == PD_KC_MEMSET)
			c = C_MEMSET;
		else
			c = pd_patterns_match(a->comm, ev->name) ? C_COMM :
			    C_COMP;
		pd_ivl_add(&a->u[c], ev->ts_ns, ev->ts_ns + ev->dur_ns);
		return 0;
	}
	if (!pd_kineto_is_cpu_range(k))
		return 0;
	if ((n = pd_kineto_step_num(ev->name)) >= 0) {
		pd_ksteps_add(&a->steps, n, ev->ts_ns, ev->ts_ns + ev->dur_ns);
		return 0;
	}
	if (k == PD_KC_CPU_OP && !pd_kineto_is_dataloader(ev->name))
		pd_ivl_add(&a->u[C_CPU], ev->ts_ns, ev->ts_ns + ev->dur_ns);
	return 0;
}

static int64_t
busy_in(struct acc *a, int64_t s, int64_t e)
{
	struct pd_ivl *g[4] = { &a->u[C_COMP], &a->u[C_COMM], &a->u[C_MEMCPY],
		&a->u[C_MEMSET] };

	return pd_ivl_union_len_in(g, 4, s, e);
}

/* The values of the step [s, e): the wall time, then, with GPU activity
 * in the trace, each class's union in the window, and with CPU ops, theirs. */
static void
window(struct acc *a, int64_t s, int64_t e, struct stepval *v)
{
	int64_t comm, ovl, busy;

	stepval_set(v, SV_STEP, e - s);
	if (a->gpu > 0) {
		comm = pd_ivl_len_in(&a->u[C_COMM], s, e);
		ovl = pd_ivl_both_len_in(&a->u[C_COMP], &a->u[C_COMM], s, e);
		busy = busy_in(a, s, e);
		stepval_set(v, SV_COMP, pd_ivl_len_in(&a->u[C_COMP], s, e));
		stepval_set(v, SV_CNO, comm - ovl);
		stepval_set(v, SV_OVL, ovl);
		stepval_set(v, SV_COMM, comm);
		stepval_set(v, SV_FREE, e - s - busy);
		stepval_set(v, SV_MEMCPY, pd_ivl_len_in(&a->u[C_MEMCPY], s, e));
		stepval_set(v, SV_MEMSET, pd_ivl_len_in(&a->u[C_MEMSET], s, e));
		stepval_set(v, SV_BUSY, busy);
	}
	if (a->u[C_CPU].n > 0)
		stepval_set(v, SV_CPU, pd_ivl_len_in(&a->u[C_CPU], s, e));
}

/* The span of the device activity (first start to last end); 0 if none. */
static int
gpu_hull(struct acc *a, int64_t *s, int64_t *e)
{
	int64_t x, y;
	int k;

	*s = INT64_MAX;
	*e = INT64_MIN;
	for (k = C_COMP; k <= C_MEMSET; k++) {
		if (!pd_ivl_hull(&a->u[k], &x, &y))
			continue;
		if (x < *s)
			*s = x;
		if (y > *e)
			*e = y;
	}
	return *s <= *e;
}

/* HTA's per-rank temporal breakdown and comm/comp overlap, whole trace. */
static void
gpu_fill(struct acc *a, struct stepgpu *g)
{
	int64_t s, e;

	if (!gpu_hull(a, &s, &e))
		return;
	g->have = 1;
	g->span = e - s;
	g->idle = g->span - busy_in(a, s, e);
	g->compute = pd_ivl_len(&a->u[C_COMP]);
	g->comm = pd_ivl_len(&a->u[C_COMM]);
	g->overlap = pd_ivl_both_len_in(&a->u[C_COMP], &a->u[C_COMM],
	    INT64_MIN, INT64_MAX);
}

static void
emit(json_t *root, struct acc *a, const struct pd_kineto_info *info,
    const struct pd_trace_stats *st, int truncated)
{
	json_t *rec = pd_kineto_rec("pd.step", root, info, "kineto_trace");
	struct steprec sr = { 0 };
	struct stepval *v;
	const struct pd_format *f = pd_format_get(pd_rec_str(root, "format"));
	int64_t gs, ge;
	size_t i;

	pd_ksteps_sort(&a->steps);
	/* one step: the trace; a capture of the whole process (Nsight
	 * Systems) also holds its start-up and exit (context creation,
	 * MPI_Init), so there the step is the device's active span */
	if (a->steps.n == 0 && f && f->whole_process &&
	    gpu_hull(a, &gs, &ge))
		pd_ksteps_add(&a->steps, -1, gs, ge);
	else if (a->steps.n == 0 && a->lo <= a->hi)
		pd_ksteps_add(&a->steps, -1, a->lo, a->hi);
	for (i = 0; i < a->steps.n; i++) {
		struct pd_kstep *s = &a->steps.v[i];

		v = steprec_add(&sr);
		v->num = s->num;
		v->has_num = s->num >= 0;
		window(a, s->s, s->e, v);
	}
	sr.skipped = (int64_t)(a->bad + st->skipped);
	sr.path = a->path;
	sr.truncated = truncated;
	sr.events = (int64_t)st->events;
	sr.gpu_events = (int64_t)a->gpu;
	sr.has_events = 1;
	gpu_fill(a, &sr.gpu);
	steprec_write(rec, &sr);
	steprec_free(&sr);
}

/* The events on_event does anything with (pd_trace_cb.want). */
static int
want(const struct pd_ev *ev)
{
	int k = pd_kineto_class(ev);

	return ev->ph == 'X' && k != PD_KC_OTHER && k != PD_KC_META &&
	    k != PD_KC_MEMORY;
}

int
sum_step_pytorch(json_t *root, const struct pd_tool *t)
{
	struct acc a;
	struct pd_trace_cb cb = { &a, on_event, NULL, want };
	struct pd_kineto_info info;
	struct pd_trace_stats st;
	int rc, k;

	memset(&a, 0, sizeof a);
	a.lo = 1;
	a.hi = 0;
	if (!(a.path = pd_kineto_trace_path(root)))
		return 0;
	if (!(a.comm = pd_patterns_comm(t->patterns)))
		return PD_EXIT_CONFIG;
	rc = pd_kineto_read(root, a.path, &cb, &info, &st);
	if (rc >= 0)
		emit(root, &a, &info, &st, rc == 1);
	pd_kineto_info_free(&info);
	pd_ksteps_free(&a.steps);
	for (k = 0; k < C_N; k++)
		pd_ivl_free(&a.u[k]);
	return rc < 0 ? PD_EXIT_SYSTEM : 0;
}
