/* pd-hotspots for pytorch roots (Kineto and legacy autograd traces).
 *
 * Reads: the trace of the root, streamed once. GPU activities (kernel,
 * gpu_memcpy, gpu_memset; 2021 Kernel/Memcpy/Memset) are summed per name
 * and per class (compute, communication by the share/comm-patterns.txt
 * list plus -p FILE, memcpy, memset); communication is kept out of the
 * top list and total_us (pd-sum-comm covers it), as for Ascend; launch calls (cuda_runtime,
 * cuda_driver) are summed per name and linked to their activity by
 * args.correlation for HTA's short-kernel test; CPU ops (cpu_op, 2021
 * Operator, autograd "CPU functions") are kept per thread as (start, end,
 * name) and their self time is computed at the end.
 * Writes: one pd.hotspot record.
 * Memory: one entry per distinct name, the open CPU ops of each thread,
 * and the launch calls not yet linked to their activity. A thread whose
 * ops are not in start order makes a second reading (CPU ops only) that
 * keeps that thread's ops whole. */
#include "hotspots.h"
#include "copies.h"
#include "critpath.h"
#include "sequences.h"
#include "flops.h"
#include "counters.h"
#include "record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_formats.h"
#include "pd_i64map.h"
#include "pd_kineto.h"
#include "pd_patterns.h"
#include "pd_rec.h"
#include "pd_trace.h"

enum { C_COMPUTE, C_COMM, C_MEMCPY, C_MEMSET, NCLASS };
static const char *class_name[NCLASS] = {
	"compute", "communication", "memcpy", "memset"
};

#define SHORT_CPU_NS 50000	/* HTA runtime_cutoff */

enum { TAG_RT = 1, TAG_PEND = 2 };

struct agg {
	char *name;
	int cls;		/* kern: its class; api: a launch call */
	int64_t count, total_ns;
};

struct table {
	json_t *index;		/* name -> integer index into a */
	struct pd_idmemo ids;	/* ev->name_id -> index into a */
	struct agg *a;
	size_t n, cap;
};

struct cpuop {
	int64_t ts, end;
	uint32_t name;
	uint32_t seq;		/* file order: the outer of two equal spans */
};

/* An op still open on a thread's stack, with the time of its children. */
struct open {
	struct cpuop op;
	int64_t child;
};

/* CPU ops of one thread. Kineto writes a thread's ops in start order, so
 * they go through the stack as they come: only ops with the same start
 * wait in pend (to be sorted outer first). A thread whose ops come out of
 * order (unordered) is buffered whole on a second reading. */
struct thread {
	int64_t pid, tid;
	struct cpuop *pend;
	size_t n, cap;
	struct open *st;
	size_t sp, stcap;
	int64_t last_ts;
	int unordered;
};

struct hot {
	json_t *root;
	const char *path;
	const struct pd_patterns *comm;
	struct table kern, api, cpu;
	struct thread *th;
	size_t nth, capth, lastth;
	int cpu_pass;		/* second reading: CPU ops only */
	struct cp *cp;		/* NULL for an nsys root */
	int reread;		/* a thread was out of order */
	struct pd_i64map link;
	int64_t cls_n[NCLASS], cls_ns[NCLASS], total_ns, kernels;
	int64_t linked, shrt;
	uint64_t missing;
	struct copies copies;
	struct seqs *seqs;
	struct flops *fl;	/* shapes recorded: FLOPs (flops.c) */
	struct counters *ctr;	/* CUPTI range counters (counters.c) */
};

static struct agg *
intern(struct table *t, const char *name, size_t *idx)
{
	json_t *v = json_object_get(t->index, name);
	size_t i;

	if (v) {
		i = (size_t)json_integer_value(v);
	} else {
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 64;
			t->a = pd_xrealloc(t->a, t->cap * sizeof *t->a);
		}
		i = t->n++;
		memset(&t->a[i], 0, sizeof t->a[i]);
		t->a[i].name = strdup(name);
		if (!t->a[i].name)
			pd_oom();
		json_object_set_new_nocheck(t->index, name,
		    json_integer((json_int_t)i));
	}
	if (idx)
		*idx = i;
	return &t->a[i];
}

/* intern(ev->name), by the number the reader gave the name when it did */
static struct agg *
intern_ev(struct table *t, const struct pd_ev *ev, size_t *idx)
{
	int32_t i = pd_idmemo_get(&t->ids, ev, ev->name_id);
	size_t k;
	struct agg *a;

	if (i >= 0) {
		if (idx)
			*idx = (size_t)i;
		return &t->a[i];
	}
	a = intern(t, ev->name, &k);
	if (k < INT32_MAX)
		pd_idmemo_set(&t->ids, ev, ev->name_id, (int32_t)k);
	if (idx)
		*idx = k;
	return a;
}

static void
table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->a[i].name);
	free(t->a);
	json_decref(t->index);
	pd_idmemo_free(&t->ids);
}

static int
kclass(struct hot *h, int kc, const char *name)
{
	if (kc == PD_KC_MEMCPY)
		return C_MEMCPY;
	if (kc == PD_KC_MEMSET)
		return C_MEMSET;
	return pd_patterns_match(h->comm, name) ? C_COMM : C_COMPUTE;
}

/* HTA: a short kernel ran for less time than its launch call took, and
 * that call took at most 50 us. */
static void
link_short(struct hot *h, int64_t cpu_ns, int64_t gpu_ns)
{
	h->linked++;
	if (cpu_ns <= SHORT_CPU_NS && gpu_ns < cpu_ns)
		h->shrt++;
}

static void
on_gpu(struct hot *h, const struct pd_ev *ev, int kc)
{
	size_t idx;
	struct agg *a = intern_ev(&h->kern, ev, &idx);
	struct pd_i64ent *e;
	int64_t corr;

	if (a->count == 0)
		a->cls = kclass(h, kc, ev->name);
	if (kc == PD_KC_KERNEL && a->cls == C_COMPUTE)
		seqs_kernel(h->seqs, ev, (uint32_t)idx);
	a->count++;
	a->total_ns += ev->dur_ns;
	if (kc == PD_KC_MEMCPY || kc == PD_KC_MEMSET)
		copies_add(&h->copies, ev);
	else
		copies_kernel(&h->copies, ev);
	h->cls_n[a->cls]++;
	h->cls_ns[a->cls] += ev->dur_ns;
	if (a->cls != C_COMM) {	/* communication is kept out, as for Ascend */
		h->total_ns += ev->dur_ns;
		h->kernels++;
	}
	if (!pd_ev_arg_int(ev, "correlation", &corr))
		return;
	if ((e = pd_i64map_get(&h->link, corr, TAG_RT))) {
		link_short(h, e->v[0], ev->dur_ns);
		pd_i64map_del(&h->link, e);
	} else {
		e = pd_i64map_put(&h->link, corr, TAG_PEND);
		e->v[0] = ev->dur_ns;
	}
}

static const char *const launches[] = {
	"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel",
	"cuLaunchKernelEx", "cudaLaunchCooperativeKernel", "cudaMemcpyAsync",
	"cudaMemsetAsync", "hipLaunchKernel", "hipExtLaunchKernel",
	"hipModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync",
	"hipMemcpyWithStream", NULL
};

static void
on_runtime(struct hot *h, const struct pd_ev *ev)
{
	struct agg *a = intern_ev(&h->api, ev, NULL);
	struct pd_i64ent *e;
	const char *const *l;
	int64_t corr;

	if (a->count == 0)
		for (l = launches; *l; l++)
			if (strcmp(*l, ev->name) == 0)
				a->cls = 1;
	a->count++;
	a->total_ns += ev->dur_ns;
	if (!a->cls || !pd_ev_arg_int(ev, "correlation", &corr))
		return;
	seqs_launch(h->seqs, ev, corr);
	if ((e = pd_i64map_get(&h->link, corr, TAG_PEND))) {
		link_short(h, ev->dur_ns, e->v[0]);
		pd_i64map_del(&h->link, e);
	} else {
		e = pd_i64map_put(&h->link, corr, TAG_RT);
		e->v[0] = ev->dur_ns;
	}
}

static int
cmp_op(const void *x, const void *y)
{
	const struct cpuop *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;	/* outer first */
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static void
pop(struct hot *h, struct thread *t)
{
	struct open *o = &t->st[--t->sp];
	int64_t self = o->op.end - o->op.ts - o->child;

	h->cpu.a[o->op.name].total_ns += self > 0 ? self : 0;
}

/* Self time: an op's duration minus that of the ops directly nested in it
 * on the same thread (in start order, outer first; a stack of open ops).
 * An op that starts inside another but ends after it counts as nested for
 * the part inside. The cpu table's total_ns becomes the self time. */
static void
push(struct hot *h, struct thread *t, const struct cpuop *op)
{
	while (t->sp > 0 && op->ts >= t->st[t->sp - 1].op.end)
		pop(h, t);
	if (t->sp > 0) {
		struct open *p = &t->st[t->sp - 1];

		p->child += (op->end < p->op.end ? op->end : p->op.end) - op->ts;
	}
	if (t->sp == t->stcap) {
		t->stcap = t->stcap ? t->stcap * 2 : 16;
		t->st = pd_xrealloc(t->st, t->stcap * sizeof *t->st);
	}
	t->st[t->sp].op = *op;
	t->st[t->sp++].child = 0;
}

/* Feed the pending ops (all with one start, or a whole unordered thread)
 * to the stack. */
static void
flush(struct hot *h, struct thread *t)
{
	size_t i;

	if (t->n > 1)
		qsort(t->pend, t->n, sizeof *t->pend, cmp_op);
	for (i = 0; i < t->n; i++)
		push(h, t, &t->pend[i]);
	t->n = 0;
}

static void
self_times(struct hot *h)
{
	size_t i;

	for (i = 0; i < h->nth; i++) {
		flush(h, &h->th[i]);
		while (h->th[i].sp > 0)
			pop(h, &h->th[i]);
	}
}

static void
on_cpu(struct hot *h, const struct pd_ev *ev)
{
	int64_t pid = pd_ev_pid_key(ev);
	int64_t tid = pd_ev_tid_key(ev);
	struct thread *t;
	struct cpuop op;
	size_t i, idx;

	if (h->lastth < h->nth && h->th[h->lastth].pid == pid &&
	    h->th[h->lastth].tid == tid) {
		i = h->lastth;
	} else {
		for (i = 0; i < h->nth; i++)
			if (h->th[i].pid == pid && h->th[i].tid == tid)
				break;
		if (i == h->nth) {
			if (h->nth == h->capth) {
				h->capth = h->capth ? h->capth * 2 : 8;
				h->th = pd_xrealloc(h->th, h->capth * sizeof *h->th);
			}
			memset(&h->th[i], 0, sizeof h->th[i]);
			h->th[i].pid = pid, h->th[i].tid = tid;
			h->nth++;
		}
		h->lastth = i;
	}
	t = &h->th[i];
	idx = 0;
	if (h->cpu_pass)
		idx = (size_t)json_integer_value(json_object_get(h->cpu.index,
		    ev->name));
	else {
		intern_ev(&h->cpu, ev, &idx)->count++;
		seqs_op(h->seqs, ev, (uint32_t)idx);
	}
	op.ts = ev->ts_ns;
	op.end = ev->ts_ns + (ev->dur_ns > 0 ? ev->dur_ns : 0);
	op.name = (uint32_t)idx;
	op.seq = (uint32_t)ev->index;
	if (t->n && !t->unordered) {
		if (op.ts < t->last_ts) {
			if (!h->cpu_pass)
				h->reread = 1;
			t->unordered = 1;
		} else if (op.ts > t->last_ts) {
			flush(h, t);
		}
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->pend = pd_xrealloc(t->pend, t->cap * sizeof *t->pend);
	}
	t->pend[t->n++] = op;
	if (op.ts > t->last_ts || t->n == 1)
		t->last_ts = op.ts;
}

static int
on_event(const struct pd_ev *ev, void *ctx)
{
	struct hot *h = ctx;
	int kc;

	if (ev->ph != 'X')
		return 0;
	kc = pd_kineto_class(ev);
	if (h->cp && !h->cpu_pass)
		cp_add(h->cp, ev, kc);
	if (!h->cpu_pass && ev->has_ts && ev->has_dur)
		flops_event(h->fl, ev, kc);
	if (!h->cpu_pass && kc == PD_KC_OTHER)
		counters_event(h->ctr, ev);
	if (!pd_kineto_is_gpu(kc) && kc != PD_KC_RUNTIME && kc != PD_KC_CPU_OP)
		return 0;
	if (!ev->has_ts || !ev->has_dur) {
		if (!h->cpu_pass)
			pd_kineto_bad_event(h->path, ev, "no ts or dur",
			    &h->missing);
		return 0;
	}
	if (h->cpu_pass) {
		if (kc == PD_KC_CPU_OP && pd_kineto_step_num(ev->name) < 0)
			on_cpu(h, ev);
		return 0;
	}
	if (pd_kineto_is_gpu(kc))
		on_gpu(h, ev, kc);
	else if (kc == PD_KC_RUNTIME)
		on_runtime(h, ev);
	else if (pd_kineto_step_num(ev->name) < 0)	/* 2021 steps are ops */
		on_cpu(h, ev);
	return 0;
}

static struct table *sort_tab;

static int
cmp_agg(const void *x, const void *y)
{
	const struct agg *a = &sort_tab->a[*(const size_t *)x];
	const struct agg *b = &sort_tab->a[*(const size_t *)y];

	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	return strcmp(a->name, b->name);
}

static size_t *
sorted(struct table *t)
{
	size_t *v = pd_xrealloc(NULL, t->n * sizeof *v), i;

	for (i = 0; i < t->n; i++)
		v[i] = i;
	sort_tab = t;
	qsort(v, t->n, sizeof *v, cmp_agg);
	return v;
}

static double
us(int64_t ns)
{
	return (double)ns / 1000.0;
}

static double
ratio(int64_t part, int64_t whole)
{
	return whole > 0 ? (double)part / (double)whole : 0;
}

static void
fill_top(struct hot *h, struct hslist *l, int topn)
{
	size_t *v = sorted(&h->kern), i;

	l->have = 1;
	for (i = 0; i < h->kern.n && (int)l->n < topn; i++) {
		struct agg *a = &h->kern.a[v[i]];
		struct hsent *e;

		if (a->cls == C_COMM)
			continue;
		e = hslist_add(l);
		e->name = a->name;
		e->type = class_name[a->cls];
		e->count = a->count;
		e->us = us(a->total_ns);
		e->mean_us = us(a->total_ns) / (double)a->count;
		e->ratio = ratio(a->total_ns, h->total_ns);
	}
	free(v);
}

static void
fill_by_type(struct hot *h, struct hslist *l)
{
	int order[NCLASS], i, j, k;

	l->have = 1;
	for (i = 0; i < NCLASS; i++)
		order[i] = i;
	for (i = 1; i < NCLASS; i++)	/* by total desc, then name */
		for (j = i; j > 0; j--) {
			int a = order[j - 1], b = order[j];

			if (h->cls_ns[b] > h->cls_ns[a] || (h->cls_ns[b] ==
			    h->cls_ns[a] && strcmp(class_name[b],
			    class_name[a]) < 0)) {
				order[j - 1] = b;
				order[j] = a;
			}
		}
	for (i = 0; i < NCLASS; i++) {
		struct hsent *e;

		k = order[i];
		if (!h->cls_n[k] || k == C_COMM)
			continue;
		e = hslist_add(l);
		e->name = class_name[k];
		e->count = h->cls_n[k];
		e->us = us(h->cls_ns[k]);
		e->ratio = ratio(h->cls_ns[k], h->total_ns);
	}
}

/* The first topn of a table (null without entries). */
static void
fill_list(struct table *t, struct hslist *l, int topn)
{
	size_t *v, i;

	if (!t->n)
		return;
	v = sorted(t);
	l->have = 1;
	for (i = 0; i < t->n && (int)i < topn; i++) {
		struct agg *a = &t->a[v[i]];
		struct hsent *e = hslist_add(l);

		e->name = a->name;
		e->count = a->count;
		e->us = us(a->total_ns);
	}
	free(v);
}

/* What a list cut at topn leaves out: the count and time of the entries
 * past the cut (communication kept out of top is not counted), so that a
 * reader tells an operator below the cut from one that is absent. */
static void
fill_rest(struct table *t, struct hsrest *r, int topn, int skip_comm)
{
	size_t *v = sorted(t), i;
	int64_t n = 0, ns = 0, listed = 0;

	for (i = 0; i < t->n; i++) {
		struct agg *a = &t->a[v[i]];

		if (skip_comm && a->cls == C_COMM)
			continue;
		if (listed < topn) {
			listed++;
			continue;
		}
		n++;
		ns += a->total_ns;
	}
	free(v);
	r->have = 1;
	r->count = n;
	r->us = us(ns);
}

static const char *
seq_name(void *ctx, int which, uint32_t idx)
{
	struct hot *h = ctx;

	return which == 'k' ? h->kern.a[idx].name : h->cpu.a[idx].name;
}

static void
fill(struct hot *h, struct hsrec *r, int topn)
{
	int err;

	r->total_us = NAN;
	if (h->kernels || h->cls_n[C_COMM]) {
		r->total_us = us(h->total_ns);
		fill_top(h, &r->top, topn);
		fill_by_type(h, &r->by_type);
		r->classes.have = 1;
		r->classes.compute_us = us(h->cls_ns[C_COMPUTE]);
		r->classes.comm_us = us(h->cls_ns[C_COMM]);
		r->classes.memcpy_us = us(h->cls_ns[C_MEMCPY]);
		r->classes.memset_us = us(h->cls_ns[C_MEMSET]);
	} else
		r->top.have = r->by_type.have = 1;	/* [] */
	if ((err = copies_finish(&h->copies)))
		pd_warn(h->path, 0, "the copies and kernels could not be kept in "
		    "a temporary file (%s); the copies' bandwidth and overlap "
		    "figures are null", strerror(err));
	r->copies = copies_json(&h->copies);
	r->copy_overlap = copies_overlap_json(&h->copies);
	r->kernel_sequences = seqs_json(h->seqs, seq_name, h, topn,
	    h->total_ns);
	r->short_ratio = NAN;
	if (h->linked) {
		r->short_ops = h->shrt;
		r->has_short_ops = 1;
		r->short_ratio = ratio(h->shrt, h->linked);
	}
	fill_list(&h->api, &r->host_api, topn);
	fill_list(&h->cpu, &r->cpu_ops, topn);
	r->kernels = h->kernels;
	r->has_kernels = 1;
	r->short_threshold_us = SHORT_CPU_NS / 1000.0;
	r->linked_kernels = h->linked;
	r->has_linked_kernels = 1;
	fill_rest(&h->kern, &r->top_rest, topn, 1);
	if (h->cpu.n)
		fill_rest(&h->cpu, &r->cpu_ops_rest, topn, 0);
}

/* The host's runtime time by what the calls do (pd_kineto_api_kind),
 * over every call, not only the listed ones; null without calls. */
static json_t *
api_kinds_json(const struct table *api)
{
	int64_t ns[PD_API_NKINDS] = { 0 };
	char key[24];
	json_t *o;
	size_t i;
	int k;

	if (!api->n)
		return json_null();
	for (i = 0; i < api->n; i++)
		ns[pd_kineto_api_kind(api->a[i].name)] += api->a[i].total_ns;
	o = json_object();
	for (k = 0; k < PD_API_NKINDS; k++) {
		snprintf(key, sizeof key, "%s_us", pd_kineto_api_kind_name(k));
		pd_set_real(o, key, us(ns[k]), 3);
	}
	return o;
}

/* The root's format has no call stacks of CPU operators (pd_formats.h). */
static int
no_call_stacks(json_t *root)
{
	const struct pd_format *f = pd_format_get(pd_rec_str(root, "format"));

	return f && f->no_call_stacks;
}

/* PD_SEQ_MIN_COUNT: the fewest occurrences of a listed kernel sequence
 * (2 or more; unset or anything else: 3). */
static int64_t
seq_min_count(void)
{
	const char *s = getenv("PD_SEQ_MIN_COUNT");
	char *end;
	long long v;

	if (!s || !*s)
		return 3;
	v = strtoll(s, &end, 10);
	return *end || v < 2 ? 3 : v;
}

/* PD_CRITPATH_MAX_EVENTS and PD_CRITPATH_STEP_EVENTS bound the events
 * the critical path keeps (0 or unset: the default). */
static uint64_t
cp_env(const char *name)
{
	const char *s = getenv(name);

	return s ? strtoull(s, NULL, 10) : 0;
}

static void
hot_free(struct hot *h)
{
	size_t i;

	table_free(&h->kern);
	table_free(&h->api);
	table_free(&h->cpu);
	for (i = 0; i < h->nth; i++) {
		free(h->th[i].pend);
		free(h->th[i].st);
	}
	free(h->th);
	pd_i64map_free(&h->link);
	copies_free(&h->copies);
	seqs_free(h->seqs);
	cp_free(h->cp);
	flops_free(h->fl);
	counters_free(h->ctr);
}

/* Some thread's ops came out of start order: read the file again for the
 * CPU ops alone, buffering those threads whole (sorted at the end) and
 * streaming the others as before. Self times start over. */
static void
reread_cpu(struct hot *h, const struct pd_trace_cb *cb)
{
	struct pd_kineto_info info;
	struct pd_trace_stats st;
	size_t i;
	int rc;

	for (i = 0; i < h->cpu.n; i++)
		h->cpu.a[i].total_ns = 0;
	for (i = 0; i < h->nth; i++) {
		h->th[i].n = h->th[i].sp = 0;
		h->th[i].last_ts = 0;
	}
	h->cpu_pass = 1;
	rc = pd_kineto_read(h->root, h->path, cb, &info, &st);
	pd_kineto_info_free(&info);
	if (rc != 0)
		pd_warn(h->path, 0, "could not be read again for the CPU ops "
		    "out of order; their self times are partial");
	self_times(h);
}

/* The events on_event does anything with (pd_trace_cb.want). */
static int
want(const struct pd_ev *ev)
{
	return ev->ph == 'X';
}

int
hotspots_pytorch(json_t *root, const struct pd_tool *t)
{
	struct pd_trace_cb cb = { NULL, on_event, NULL, want, NULL };
	struct pd_kineto_info info;
	struct pd_trace_stats st;
	struct hot h;
	struct hsrec r;
	int rc;

	memset(&h, 0, sizeof h);
	h.root = root;
	if (!(h.path = pd_kineto_trace_path(root)))
		return 0;
	if (!(h.comm = pd_patterns_comm(t->patterns)))
		return PD_EXIT_CONFIG;
	h.kern.index = json_object();
	h.api.index = json_object();
	h.cpu.index = json_object();
	if (!no_call_stacks(root))
		h.cp = cp_new(h.comm, cp_env("PD_CRITPATH_MAX_EVENTS"),
		    cp_env("PD_CRITPATH_STEP_EVENTS"));
	h.seqs = seqs_new(seq_min_count());
	h.fl = flops_new();
	h.ctr = counters_new();
	cb.ctx = &h;
	rc = pd_kineto_read(root, h.path, &cb, &info, &st);
	if (rc < 0) {
		hot_free(&h);
		pd_kineto_info_free(&info);
		return PD_EXIT_SYSTEM;
	}
	self_times(&h);
	if (rc == 0 && h.reread)
		reread_cpu(&h, &cb);
	if (rc == 0 && h.cp)
		cp_end(h.cp);
	memset(&r, 0, sizeof r);
	fill(&h, &r, t->topn);
	r.cp = h.cp;
	r.path = h.path;
	r.topn = t->topn;
	r.flops = flops_json(h.fl, &info, h.total_ns, t->topn);
	r.counters = counters_json(h.ctr, t->topn);
	r.gpu = pd_kineto_gpu_json(&info);
	r.host_api_kinds = api_kinds_json(&h.api);
	r.events = (int64_t)st.events;
	r.skipped_events = (int64_t)(st.skipped + h.missing);
	r.has_events = 1;
	r.truncated = rc == 1;
	hsrec_write(pd_kineto_rec("pd.hotspot", root, &info, "kineto_trace"),
	    &r);
	hot_free(&h);
	pd_kineto_info_free(&info);
	return rc == 1 || h.missing || st.skipped ? PD_EXIT_INPUT : 0;
}
