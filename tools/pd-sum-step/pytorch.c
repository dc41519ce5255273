/* pd-sum-step for PyTorch roots (Kineto traces, the legacy autograd
 * exporter): one pd.step per trace.
 *
 * Reads: the trace of the root, streamed once.
 * Keeps: the ProfilerStep#N windows (CPU side), and the intervals of
 * compute kernels, communication kernels (share/comm-patterns.txt plus
 * -p FILE), memcpys, memsets and CPU ops, 24 bytes each, in a pd_xsort
 * by start (1 MiB in memory, the rest in sorted runs in a temporary
 * file); an interval that starts inside the last one of its class is
 * folded into it first (nested operators, back-to-back kernels).
 * Then one sweep in time order over the sorted intervals builds the union
 * of each class and adds each of its pieces, clipped, to the windows it
 * overlaps: per step (and the two windows a trace without steps may use)
 * the union of each class, the overlap of compute and communication and
 * the union of the device classes, and the same over the whole trace;
 * 72 bytes per window (HTA's temporal-breakdown and comm/comp-overlap
 * definitions, per step and on integer ns).
 * Writes: per step those numbers; then the whole trace's in "gpu". A trace
 * without ProfilerStep gives one step (null) spanning the trace; an
 * Nsight Systems export, one spanning its device activity. */
#include "record.h"
#include "sum_step.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_formats.h"
#include "pd_kineto.h"
#include "pd_msort.h"
#include "pd_patterns.h"
#include "pd_rec.h"
#include "pd_xsort.h"

enum { C_COMP, C_COMM, C_MEMCPY, C_MEMSET, C_CPU, C_N };
#define GPU_MASK ((1 << C_COMP) | (1 << C_COMM) | (1 << C_MEMCPY) | \
	(1 << C_MEMSET))

/* An interval [s, e) of class c, as sorted. */
struct ivl {
	int64_t s, e;
	int32_t c;
};

/* The sums of a window [s, e): the union of each class in it, the
 * overlap of compute and communication, the union of the device classes
 * (busy). The whole trace is one more, from INT64_MIN to INT64_MAX. */
enum { W_OVL = C_N, W_BUSY, W_N };
struct win {
	int64_t s, e;
	int64_t v[W_N];
};

struct acc {
	const char *path;
	const struct pd_patterns *comm;
	struct pd_ksteps steps;
	struct pd_xsort iv;	/* the intervals, by start */
	struct ivl last[C_N];	/* of each class, not yet in iv */
	int has[C_N];		/* a class has a nonempty interval */
	int64_t gs[C_N], ge[C_N];	/* and its first start, last end */
	struct win *w;		/* the windows, by (s, e), distinct */
	size_t nw;
	struct win all;		/* the whole trace */
	int ioerr;		/* errno of a failed temporary file */
	uint64_t gpu, bad;
	int64_t lo, hi;		/* hull of the timed events */
};

static int
ivl_cmp(const void *x, const void *y)
{
	const struct ivl *a = x, *b = y;

	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	if (a->e != b->e)
		return a->e < b->e ? -1 : 1;
	return (a->c > b->c) - (a->c < b->c);
}

/* (ties are the same span of the same class: either order) */
#define IVL_LE(a, b) (ivl_cmp((a), (b)) <= 0)
PD_MSORT(sort_ivls, struct ivl, IVL_LE, 1)

/* [s, e) of class c: an empty one is left out (it adds nothing to a
 * union); one that starts inside the last of its class widens it; else
 * the last goes to the sorter. 0, or 1 when a temporary file failed. */
static int
add(struct acc *a, int c, int64_t s, int64_t e)
{
	struct ivl *l = &a->last[c], *v;

	if (e <= s)
		return 0;
	if (!a->has[c] || s < a->gs[c])
		a->gs[c] = s;
	if (!a->has[c] || e > a->ge[c])
		a->ge[c] = e;
	if (a->has[c] && s >= l->s && s <= l->e) {
		if (e > l->e)
			l->e = e;
		return 0;
	}
	if (a->has[c]) {
		if (!(v = pd_xsort_slot(&a->iv))) {
			a->ioerr = a->iv.err;
			return 1;
		}
		memset(v, 0, sizeof *v);
		*v = *l;
	}
	a->has[c] = 1;
	l->s = s;
	l->e = e;
	l->c = c;
	return 0;
}

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
			c = pd_patterns_match_ev(a->comm, ev) ? C_COMM :
			    C_COMP;
		return add(a, c, ev->ts_ns, ev->ts_ns + ev->dur_ns);
	}
	if (!pd_kineto_is_cpu_range(k))
		return 0;
	if ((n = pd_kineto_step_num(ev->name)) >= 0) {
		pd_ksteps_add(&a->steps, n, ev->ts_ns, ev->ts_ns + ev->dur_ns);
		return 0;
	}
	if (k == PD_KC_CPU_OP && !pd_kineto_is_dataloader(ev->name))
		return add(a, C_CPU, ev->ts_ns, ev->ts_ns + ev->dur_ns);
	return 0;
}

/* The span of the device activity (first start to last end); 0 if none. */
static int
gpu_hull(struct acc *a, int64_t *s, int64_t *e)
{
	int k;

	*s = INT64_MAX;
	*e = INT64_MIN;
	for (k = C_COMP; k <= C_MEMSET; k++) {
		if (!a->has[k])
			continue;
		if (a->gs[k] < *s)
			*s = a->gs[k];
		if (a->ge[k] > *e)
			*e = a->ge[k];
	}
	return *s <= *e;
}

/* Windows by (s, e). */
static int
win_cmp(const void *x, const void *y)
{
	const struct win *a = x, *b = y;

	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	return (a->e > b->e) - (a->e < b->e);
}

static void
win_add(struct acc *a, size_t *cap, int64_t s, int64_t e)
{
	if (a->nw == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		a->w = pd_xrealloc(a->w, *cap * sizeof *a->w);
	}
	memset(&a->w[a->nw], 0, sizeof *a->w);
	a->w[a->nw].s = s;
	a->w[a->nw++].e = e;
}

/* The sweep's state: the open windows (indices into a->w) and the next
 * one to open. */
struct sweep {
	size_t *open, nopen, next;
};

/* [x, y) is covered by exactly the classes of mask (x < y; segments come
 * in time order): into the whole trace and every window it overlaps. */
static void
seg(struct acc *a, struct sweep *sw, int64_t x, int64_t y, int mask)
{
	int64_t d[W_N];
	size_t i;
	int c;

	for (c = 0; c < C_N; c++)
		d[c] = mask & (1 << c) ? 1 : 0;
	d[W_OVL] = (mask & (1 << C_COMP)) && (mask & (1 << C_COMM));
	d[W_BUSY] = (mask & GPU_MASK) != 0;
	for (c = 0; c < W_N; c++)
		a->all.v[c] += d[c] * (y - x);
	while (sw->next < a->nw && a->w[sw->next].s < y)
		sw->open[sw->nopen++] = sw->next++;
	for (i = 0; i < sw->nopen; ) {
		struct win *w = &a->w[sw->open[i]];
		int64_t s = x > w->s ? x : w->s, e = y < w->e ? y : w->e;
		if (w->e <= x) {	/* no later segment reaches it */
			sw->open[i] = sw->open[--sw->nopen];
			continue;
		}
		if (e > s)
			for (c = 0; c < W_N; c++)
				w->v[c] += d[c] * (e - s);
		i++;
	}
}

/* Everything before t is known: the open piece of each class (open[c],
 * up to end[c]) covers [*now, min(end, t)). Cut that stretch where pieces
 * end, and close the pieces that end by t. */
static void
advance(struct acc *a, struct sweep *sw, int64_t *now, int64_t t,
    const int *open, int64_t *end, int *closed)
{
	int c, mask;

	while (*now < t) {
		int64_t y = t;
		mask = 0;
		for (c = 0; c < C_N; c++)
			if (open[c] && end[c] > *now) {
				mask |= 1 << c;
				if (end[c] < y)
					y = end[c];
			}
		if (!mask) {	/* nothing open: on to t */
			*now = t;
			break;
		}
		seg(a, sw, *now, y, mask);
		*now = y;
	}
	for (c = 0; c < C_N; c++)
		closed[c] = open[c] && end[c] <= t;
}

/* After reading: the windows (the steps, the hull of the timed events,
 * the device's active span), then one sweep over the sorted intervals
 * into them. 0, or -1 when a temporary file failed (a->ioerr). */
static int
sweep(struct acc *a)
{
	struct sweep sw;
	const struct ivl *v;
	int64_t now = INT64_MIN, end[C_N], gs, ge;
	int open[C_N], closed[C_N], c, started = 0;
	size_t i, cap = 0, k;

	for (c = 0; c < C_N; c++) {
		struct ivl *l;
		if (!a->has[c])
			continue;
		if (!(l = pd_xsort_slot(&a->iv))) {
			a->ioerr = a->iv.err;
			return -1;
		}
		memset(l, 0, sizeof *l);
		*l = a->last[c];
	}
	for (i = 0; i < a->steps.n; i++)
		win_add(a, &cap, a->steps.v[i].s, a->steps.v[i].e);
	if (a->lo <= a->hi)
		win_add(a, &cap, a->lo, a->hi);
	if (gpu_hull(a, &gs, &ge))
		win_add(a, &cap, gs, ge);
	if (a->nw > 1)
		qsort(a->w, a->nw, sizeof *a->w, win_cmp);
	for (i = k = 0; i < a->nw; i++)
		if (k == 0 || win_cmp(&a->w[k - 1], &a->w[i]) != 0)
			a->w[k++] = a->w[i];
	a->nw = k;
	memset(&sw, 0, sizeof sw);
	sw.open = pd_xmalloc((a->nw + 1) * sizeof *sw.open);
	memset(open, 0, sizeof open);
	memset(end, 0, sizeof end);
	if (pd_xsort_finish(&a->iv) < 0)
		goto fail;
	for (; (v = pd_xsort_peek(&a->iv)); pd_xsort_next(&a->iv)) {
		if (!started)
			now = v->s, started = 1;
		advance(a, &sw, &now, v->s, open, end, closed);
		for (c = 0; c < C_N; c++)
			if (closed[c])
				open[c] = 0;
		if (open[v->c]) {
			if (v->e > end[v->c])
				end[v->c] = v->e;
		} else {
			open[v->c] = 1;
			end[v->c] = v->e;
		}
	}
	if (a->iv.err)
		goto fail;
	advance(a, &sw, &now, INT64_MAX, open, end, closed);
	free(sw.open);
	pd_xsort_free(&a->iv);
	return 0;
fail:
	a->ioerr = a->iv.err;
	free(sw.open);
	return -1;
}

/* The sums of the window [s, e) (one of those sweep() made). */
static const struct win *
win_find(const struct acc *a, int64_t s, int64_t e)
{
	struct win key;

	key.s = s;
	key.e = e;
	return bsearch(&key, a->w, a->nw, sizeof *a->w, win_cmp);
}

/* The values of the step [s, e): the wall time, then, with GPU activity
 * in the trace, each class's union in the window, and with CPU ops, theirs. */
static void
window(struct acc *a, int64_t s, int64_t e, struct stepval *v)
{
	const struct win *w = win_find(a, s, e);
	int64_t comm, ovl, busy;

	stepval_set(v, SV_STEP, e - s);
	if (!w)		/* every window is one of sweep()'s */
		return;
	if (a->gpu > 0) {
		comm = w->v[C_COMM];
		ovl = w->v[W_OVL];
		busy = w->v[W_BUSY];
		stepval_set(v, SV_COMP, w->v[C_COMP]);
		stepval_set(v, SV_CNO, comm - ovl);
		stepval_set(v, SV_OVL, ovl);
		stepval_set(v, SV_COMM, comm);
		stepval_set(v, SV_FREE, e - s - busy);
		stepval_set(v, SV_MEMCPY, w->v[C_MEMCPY]);
		stepval_set(v, SV_MEMSET, w->v[C_MEMSET]);
		stepval_set(v, SV_BUSY, busy);
	}
	if (a->has[C_CPU])
		stepval_set(v, SV_CPU, w->v[C_CPU]);
}

/* HTA's per-rank temporal breakdown and comm/comp overlap, whole trace
 * (the device's busy time all lies in its active span). */
static void
gpu_fill(struct acc *a, struct stepgpu *g)
{
	int64_t s, e;

	if (!gpu_hull(a, &s, &e))
		return;
	g->have = 1;
	g->span = e - s;
	g->idle = g->span - a->all.v[W_BUSY];
	g->compute = a->all.v[C_COMP];
	g->comm = a->all.v[C_COMM];
	g->overlap = a->all.v[W_OVL];
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
	struct pd_trace_cb cb = { &a, on_event, NULL, want, NULL };
	struct pd_kineto_info info;
	struct pd_trace_stats st;
	int rc;

	memset(&a, 0, sizeof a);
	a.lo = 1;
	a.hi = 0;
	if (!(a.path = pd_kineto_trace_path(root)))
		return 0;
	if (!(a.comm = pd_patterns_comm(t->patterns)))
		return PD_EXIT_CONFIG;
	pd_xsort_init(&a.iv, sizeof(struct ivl), ivl_cmp);
	pd_xsort_set_sort(&a.iv, sort_ivls_any);
	rc = pd_kineto_read(root, a.path, &cb, &info, &st);
	if (rc >= 0 && (a.ioerr || sweep(&a) < 0)) {
		pd_error(a.path, 0, "cannot sort its events in a temporary "
		    "file in %s: %s", pd_diag_quote(pd_xsort_dir(), (size_t)-1),
		    strerror(a.ioerr));
		rc = -1;
	}
	if (rc >= 0)
		emit(root, &a, &info, &st, rc == 1);
	pd_kineto_info_free(&info);
	pd_ksteps_free(&a.steps);
	pd_xsort_free(&a.iv);
	free(a.w);
	return rc < 0 ? PD_EXIT_SYSTEM : 0;
}
