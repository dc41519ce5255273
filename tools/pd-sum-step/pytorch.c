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
#include "pd_stats.h"

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

static void
set_us(json_t *o, const char *key, int64_t ns, int have)
{
	if (have)
		pd_set_real(o, key, (double)ns / 1e3, 3);
	else
		pd_set_null(o, key);
}

/* The keys of one step (or of the totals) in record order. */
enum { V_STEP, V_COMP, V_CNO, V_OVL, V_COMM, V_FREE, V_MEMCPY, V_MEMSET,
	V_BUSY, V_CPU, V_N };

static int64_t
busy_in(struct acc *a, int64_t s, int64_t e)
{
	struct pd_ivl *g[4] = { &a->u[C_COMP], &a->u[C_COMM], &a->u[C_MEMCPY],
		&a->u[C_MEMSET] };

	return pd_ivl_union_len_in(g, 4, s, e);
}

static void
window(struct acc *a, int64_t s, int64_t e, int64_t v[V_N])
{
	v[V_STEP] = e - s;
	v[V_COMP] = pd_ivl_len_in(&a->u[C_COMP], s, e);
	v[V_COMM] = pd_ivl_len_in(&a->u[C_COMM], s, e);
	v[V_OVL] = pd_ivl_both_len_in(&a->u[C_COMP], &a->u[C_COMM], s, e);
	v[V_CNO] = v[V_COMM] - v[V_OVL];
	v[V_BUSY] = busy_in(a, s, e);
	v[V_FREE] = v[V_STEP] - v[V_BUSY];
	v[V_MEMCPY] = pd_ivl_len_in(&a->u[C_MEMCPY], s, e);
	v[V_MEMSET] = pd_ivl_len_in(&a->u[C_MEMSET], s, e);
	v[V_CPU] = pd_ivl_len_in(&a->u[C_CPU], s, e);
}

static json_t *
values_json(const int64_t v[V_N], int gpu, int cpu)
{
	json_t *o = json_object();

	set_us(o, "step_us", v[V_STEP], 1);
	set_us(o, "computing_us", v[V_COMP], gpu);
	set_us(o, "comm_not_overlapped_us", v[V_CNO], gpu);
	set_us(o, "overlapped_us", v[V_OVL], gpu);
	set_us(o, "comm_us", v[V_COMM], gpu);
	set_us(o, "free_us", v[V_FREE], gpu);
	pd_set_null(o, "preparing_us");
	pd_set_null(o, "bubble_us");
	pd_set_null(o, "stage_us");
	set_us(o, "memcpy_us", v[V_MEMCPY], gpu);
	set_us(o, "memset_us", v[V_MEMSET], gpu);
	set_us(o, "busy_us", v[V_BUSY], gpu);
	pd_set_null(o, "fp_bp_us");
	pd_set_null(o, "tail_us");
	set_us(o, "cpu_ops_us", v[V_CPU], cpu);
	return o;
}

static void
ratio(json_t *o, const char *key, int64_t x, int64_t total, int have)
{
	if (have && total > 0)
		pd_set_real(o, key, (double)x / (double)total, 4);
	else
		pd_set_null(o, key);
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
static json_t *
gpu_json(struct acc *a)
{
	json_t *o;
	int64_t s, e, span, idle, comp, comm, ovl;

	if (!gpu_hull(a, &s, &e))
		return json_null();
	o = json_object();
	span = e - s;
	idle = span - busy_in(a, s, e);
	comp = pd_ivl_len(&a->u[C_COMP]);
	comm = pd_ivl_len(&a->u[C_COMM]);
	ovl = pd_ivl_both_len_in(&a->u[C_COMP], &a->u[C_COMM], INT64_MIN,
	    INT64_MAX);
	set_us(o, "kernel_time_us", span, 1);
	set_us(o, "idle_us", idle, 1);
	set_us(o, "compute_us", comp, 1);
	set_us(o, "non_compute_us", span - comp - idle, 1);
	set_us(o, "comm_us", comm, 1);
	set_us(o, "overlap_us", ovl, 1);
	ratio(o, "idle_ratio", idle, span, 1);
	ratio(o, "compute_ratio", comp, span, 1);
	ratio(o, "non_compute_ratio", span - comp - idle, span, 1);
	ratio(o, "comm_comp_overlap_ratio", ovl, comm, 1);
	return o;
}

static void
emit(json_t *root, struct acc *a, const struct pd_kineto_info *info,
    const struct pd_trace_stats *st, int truncated)
{
	json_t *rec = pd_kineto_rec("pd.step", root, info, "kineto_trace");
	json_t *arr = json_array(), *tot, *sh;
	struct pd_vec sv = { 0 };
	struct pd_summary sm;
	int64_t v[V_N], sum[V_N] = { 0 };
	int gpu = a->gpu > 0, cpu = a->u[C_CPU].n > 0, k;
	const struct pd_format *f = pd_format_get(pd_rec_str(root, "format"));
	int64_t gs, ge;
	size_t i, slow = 0;

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
		json_t *o;
		window(a, s->s, s->e, v);
		for (k = 0; k < V_N; k++)
			sum[k] += v[k];
		o = json_object();
		if (s->num >= 0)
			pd_set_int(o, "step", s->num);
		else
			pd_set_null(o, "step");
		json_object_update_new(o, values_json(v, gpu, cpu));
		json_array_append_new(arr, o);
		pd_vec_push(&sv, (double)v[V_STEP] / 1e3);
		if (v[V_STEP] > a->steps.v[slow].e - a->steps.v[slow].s)
			slow = i;
	}
	pd_set(rec, "steps", arr);
	tot = values_json(sum, gpu && a->steps.n, cpu && a->steps.n);
	if (!a->steps.n)
		pd_set_null(tot, "step_us");
	pd_set(rec, "totals", tot);
	sh = json_object();
	ratio(sh, "computing_ratio", sum[V_COMP], sum[V_STEP], gpu);
	ratio(sh, "comm_not_overlapped_ratio", sum[V_CNO], sum[V_STEP], gpu);
	ratio(sh, "free_ratio", sum[V_FREE], sum[V_STEP], gpu);
	pd_set_null(sh, "preparing_ratio");
	pd_set_null(sh, "bubble_ratio");
	pd_set(rec, "shares", sh);
	if (sv.n) {
		pd_stats(&sv, &sm);
		pd_set(rec, "step_stats", pd_summary_json(&sm, 3));
	} else {
		pd_set_null(rec, "step_stats");
	}
	if (a->steps.n && a->steps.v[slow].num >= 0)
		pd_set_int(rec, "slowest_step", a->steps.v[slow].num);
	else
		pd_set_null(rec, "slowest_step");
	pd_set_int(rec, "skipped_rows", (int64_t)(a->bad + st->skipped));
	pd_set_str(rec, "path", a->path);
	pd_set_bool(rec, "truncated", truncated);
	pd_set_int(rec, "events", (int64_t)st->events);
	pd_set_int(rec, "gpu_events", (int64_t)a->gpu);
	pd_set(rec, "gpu", gpu_json(a));
	pd_rec_emit(rec);
	pd_vec_free(&sv);
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
