/* pd-sum-mem for PyTorch roots: one pd.mem per memory source.
 *
 * Reads, streamed once each:
 *  - the trace (kineto_trace): the "[memory]" instant events of the
 *    caching allocator (args Addr, Bytes signed, Total Allocated, Total
 *    Reserved, Device Type 0 CPU / 1 CUDA, Device Id); capacities from
 *    deviceProperties totalGlobalMem.
 *  - the raw memory timeline (memory_timeline_raw, torch.profiler's
 *    export_memory_timeline_raw): a JSON list of [ts_ns, action, bytes,
 *    category], action 1 preexisting, 2 create, 3 increment version,
 *    4 destroy, bytes already signed; category 0..7 as below.
 * Keeps: every [memory] event (time, thread, device, bytes, totals,
 * address; 64 bytes) and every CPU range that is an operator or names a
 * phase (32 bytes) in a pd_xsort each, by time (1 MiB in memory, the
 * rest in sorted runs in a temporary file); per allocator address the
 * balance of allocations and frees, per device its first and last time
 * (order-free). At the end one sweep over both in time order gives each
 * allocation its innermost operator and phase (a stack of open ranges a
 * thread) and counts it into its device's numbers: the peaks, the
 * least-squares line, the peaks per ProfilerStep and phase, the
 * lifetimes (free paired with the open allocation of its address) and a
 * timeline of at most TL_POINTS points.
 * Traces without Total Allocated (2021) are summed in time order; without
 * Addr (2021) no block is followed.
 * Writes: pd.mem. */
#include "record.h"
#include "sum_mem.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "pd_diag.h"
#include "pd_file.h"
#include "pd_i64map.h"
#include "pd_kineto.h"
#include "pd_locate.h"
#include "pd_msort.h"
#include "pd_rec.h"
#include "pd_xsort.h"

/* Least-squares line through (t, bytes), order-free: t in s from t0. */
struct fit {
	double n, st, sa, stt, sta;
	int64_t t0;
};

static void
fit_add(struct fit *f, int64_t ts, int64_t a)
{
	double t;

	if (f->n == 0)
		f->t0 = ts;
	t = (double)(ts - f->t0) / 1e9;
	f->n++;
	f->st += t;
	f->sa += (double)a;
	f->stt += t * t;
	f->sta += t * (double)a;
}

/* The least-squares slope, bytes per s; NaN with too few points. */
static double
fit_slope(const struct fit *f)
{
	double den = f->n * f->stt - f->st * f->st;

	if (f->n >= 2 && den > 0)
		return (f->n * f->sta - f->st * f->sa) / den;
	return NAN;
}

/* Phases of a training step, from the ranges around an allocation. */
enum { PH_FORWARD, PH_BACKWARD, PH_OPTIMIZER, PH_DATALOADER, PH_OTHER,
	NPH };
static const char *const ph_names[NPH] = {
	"forward", "backward", "optimizer", "dataloader", "other"
};

#define TL_POINTS 128	/* most points of a device's timeline */
#define NO_OP UINT32_MAX

/* A [memory] event, kept to the end (in a pd_xsort: attribution needs
 * the CPU ranges of its thread up to its time, and the sums need time
 * order). */
struct mev {
	int64_t ts, bytes, ta, tr, addr;
	uint32_t th, dev, op, seq;
	uint8_t has_ta, has_tr, has_addr, phase;
};

/* A CPU range: an operator allocations are attributed to, a phase
 * range, or both (kept in a pd_xsort, by start). */
struct rng {
	int64_t s, e;
	uint32_t th, name, seq;
	uint8_t op, phase;	/* phase: NPH when none */
};

/* Peak and allocations of a step or a phase. */
struct peak {
	int64_t a, a_ts, r, allocs, alloc_bytes;
	int has_a, has_r, any;
};

struct tlpt {
	int64_t ts, a, r;
	int used;
};

/* The first and last time of a device's events, order-free (see
 * dev_span). */
struct tspan {
	int64_t min, minpos, max;
	uint8_t any, anypos;
};

struct dev {
	int64_t type, id;
	struct tspan span_all, span_ta;	/* of all events, of those with ta */
	int64_t t0, t1, sum;	/* timeline span; running sum of Bytes */
	uint64_t events, allocs, frees;
	int64_t alloc_bytes, free_bytes;
	int has_alloc, has_res, has_frag, totals;
	int64_t peak_a, peak_a_ts, peak_r, peak_r_ts, frag, res_at_peak;
	struct fit fit;
	struct peak ph[NPH];
	struct peak *st;	/* per step, as the sorted step windows */
	struct tlpt tl[TL_POINTS];
};

struct slot {
	int64_t key, bytes;	/* bytes: allocated minus freed */
	int32_t bal;
	uint8_t used;
};

struct opagg {
	char *name;
	int64_t count, bytes, life_ns;
};

struct thr {
	int64_t pid, tid;
};

struct acc {
	const char *path;
	struct dev *dv;
	size_t ndv;
	struct slot *h;
	size_t nh, caph;
	uint64_t bad, addressed;
	struct pd_xsort ms;	/* [memory] events, by time */
	struct pd_xsort rs;	/* CPU ranges, by start */
	int ioerr;		/* errno of a failed temporary file */
	struct thr *th;
	size_t nth, capth, lastth;
	json_t *index;		/* operator name -> index into op */
	/* by the reader's name numbers (ev->name_id): an operator's index,
	 * a range's phase */
	struct pd_idmemo opid, phid;
	struct opagg *op;
	size_t nop, capop;
	struct pd_ksteps steps;
	uint32_t seq;
	int64_t noop_n, noop_b;	/* allocations outside every operator */
};

static size_t
device(struct acc *a, int64_t type, int64_t id)
{
	size_t i;
	struct dev *d;

	for (i = 0; i < a->ndv; i++)
		if (a->dv[i].type == type && a->dv[i].id == id)
			return i;
	a->dv = pd_xrealloc(a->dv, (a->ndv + 1) * sizeof *a->dv);
	d = &a->dv[a->ndv];
	memset(d, 0, sizeof *d);
	d->type = type;
	d->id = id;
	return a->ndv++;
}

static uint32_t
thread(struct acc *a, const struct pd_ev *ev)
{
	int64_t pid = pd_ev_pid_key(ev);
	int64_t tid = pd_ev_tid_key(ev);
	size_t i;

	if (a->lastth < a->nth && a->th[a->lastth].pid == pid &&
	    a->th[a->lastth].tid == tid)
		return (uint32_t)a->lastth;
	for (i = 0; i < a->nth; i++)
		if (a->th[i].pid == pid && a->th[i].tid == tid)
			break;
	if (i == a->nth) {
		if (a->nth == a->capth) {
			a->capth = a->capth ? a->capth * 2 : 16;
			a->th = pd_xrealloc(a->th, a->capth * sizeof *a->th);
		}
		a->th[a->nth].pid = pid;
		a->th[a->nth++].tid = tid;
	}
	a->lastth = i;
	return (uint32_t)i;
}

static uint32_t
intern(struct acc *a, const char *name)
{
	json_t *v = json_object_get(a->index, name);
	size_t i;

	if (v)
		return (uint32_t)json_integer_value(v);
	if (a->nop == a->capop) {
		a->capop = a->capop ? a->capop * 2 : 64;
		a->op = pd_xrealloc(a->op, a->capop * sizeof *a->op);
	}
	i = a->nop++;
	memset(&a->op[i], 0, sizeof a->op[i]);
	a->op[i].name = pd_xstrdup(name);
	json_object_set_new_nocheck(a->index, name,
	    json_integer((json_int_t)i));
	return (uint32_t)i;
}

static int
has_word(const char *s, const char *w)
{
	size_t n = strlen(w), i;

	for (; *s; s++) {
		for (i = 0; i < n && s[i] &&
		    (s[i] | 0x20) == w[i]; i++)
			;
		if (i == n)
			return 1;
	}
	return 0;
}

/* The phase a range names: the optimizer's record_function
 * ("Optimizer.step#SGD.step", "Optimizer.zero_grad#..."), the autograd
 * engine's per-node ranges, the DataLoader's __next__, and user
 * annotations in the "## forward ##" style; NPH for the others. */
static int
phase_of(const char *name)
{
	if (strncmp(name, "Optimizer.", 10) == 0)
		return PH_OPTIMIZER;
	if (strncmp(name, "autograd::engine::evaluate_function", 35) == 0)
		return PH_BACKWARD;
	if (pd_kineto_is_dataloader(name))
		return PH_DATALOADER;
	if (name[0] == '#' && name[1] == '#') {
		if (has_word(name, "backward"))
			return PH_BACKWARD;
		if (has_word(name, "forward"))
			return PH_FORWARD;
		if (has_word(name, "optim"))
			return PH_OPTIMIZER;
	}
	return NPH;
}

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static void
balance(struct acc *a, int64_t key, int d, int64_t bytes)
{
	size_t i, m;

	if (a->nh * 2 >= a->caph) {
		struct slot *old = a->h;
		size_t oc = a->caph, j;
		a->caph = oc ? oc * 2 : 1024;
		a->h = pd_xcalloc(a->caph, sizeof *a->h);
		a->nh = 0;
		for (j = 0; j < oc; j++)
			if (old[j].used)
				balance(a, old[j].key, old[j].bal,
				    old[j].bytes);
		free(old);
	}
	m = a->caph - 1;
	for (i = mix((uint64_t)key) & m; a->h[i].used; i = (i + 1) & m) {
		if (a->h[i].key == key) {
			a->h[i].bal += d;
			a->h[i].bytes += bytes;
			return;
		}
	}
	a->h[i].used = 1;
	a->h[i].key = key;
	a->h[i].bal = d;
	a->h[i].bytes = bytes;
	a->nh++;
}

static int64_t
addr_key(int64_t addr, int64_t type, int64_t id)
{
	return (int64_t)(mix((uint64_t)addr) ^ ((uint64_t)type << 56) ^
	    ((uint64_t)id << 48));
}

static void
tspan_add(struct tspan *p, int64_t ts)
{
	if (!p->any || ts < p->min)
		p->min = ts;
	if (!p->any || ts > p->max)
		p->max = ts;
	if (ts > 0 && (!p->anypos || ts < p->minpos))
		p->minpos = ts, p->anypos = 1;
	p->any = 1;
}

/* 0 and the range, or 1 when a temporary file failed (reading stops). */
static int
on_range(struct acc *a, const struct pd_ev *ev, int kc)
{
	int64_t n = pd_kineto_step_num(ev->name);
	int32_t x;
	int phase, op;
	struct rng *r;

	if (n >= 0) {
		pd_ksteps_add(&a->steps, n, ev->ts_ns, ev->ts_ns + ev->dur_ns);
		return 0;
	}
	/* what the name says, worked out once a name */
	if ((phase = pd_idmemo_get(&a->phid, ev, ev->name_id)) < 0) {
		phase = phase_of(ev->name);
		pd_idmemo_set(&a->phid, ev, ev->name_id, phase);
	}
	op = kc == PD_KC_CPU_OP;
	if (!op && phase == NPH)
		return 0;
	if (!(r = pd_xsort_slot(&a->rs))) {
		a->ioerr = a->rs.err;
		return 1;
	}
	memset(r, 0, sizeof *r);	/* padding too: it goes to a file */
	r->s = ev->ts_ns;
	r->e = ev->ts_ns + ev->dur_ns;
	r->th = thread(a, ev);
	if (op) {
		if ((x = pd_idmemo_get(&a->opid, ev, ev->name_id)) < 0) {
			x = (int32_t)intern(a, ev->name);
			pd_idmemo_set(&a->opid, ev, ev->name_id, x);
		}
		r->name = (uint32_t)x;
	} else {
		r->name = 0;
	}
	r->seq = a->seq++;
	r->op = (uint8_t)op;
	r->phase = (uint8_t)phase;
	return 0;
}

static int
on_event(const struct pd_ev *ev, void *ctx)
{
	struct acc *a = ctx;
	int64_t addr = 0, bytes, type = 1, id = -1, ta = 0, tr = 0;
	struct dev *d;
	struct mev *m;
	static const char *const keys[] = { "Bytes", "Addr", "Device Type",
		"Device Id", "Total Allocated", "Total Reserved" };
	const char *v[6];
	size_t len[6];
	int kc;

	if (ev->ph == 'X') {
		kc = pd_kineto_class(ev);
		if (pd_kineto_is_cpu_range(kc) && ev->has_ts && ev->has_dur)
			return on_range(a, ev, kc);
		return 0;
	}
	/* instant events only: cheaper than classifying every event */
	if (ev->ph != 'i' || pd_kineto_class(ev) != PD_KC_MEMORY)
		return 0;
	pd_kineto_args(ev, keys, 6, v, len);
	if (!ev->has_ts || !pd_kineto_raw_int(v[0], len[0], &bytes)) {
		pd_kineto_bad_event(a->path, ev, "no ts or Bytes", &a->bad);
		return 0;
	}
	if (!(m = pd_xsort_slot(&a->ms))) {
		a->ioerr = a->ms.err;
		return 1;
	}
	memset(m, 0, sizeof *m);
	/* 2021 traces have no Addr: then only Bytes and the order tell */
	m->has_addr = (uint8_t)pd_kineto_raw_int(v[1], len[1], &addr);
	pd_kineto_raw_int(v[2], len[2], &type);
	pd_kineto_raw_int(v[3], len[3], &id);
	m->has_ta = (uint8_t)pd_kineto_raw_int(v[4], len[4], &ta);
	/* only the CUDA caching allocator reserves */
	m->has_tr = (uint8_t)(pd_kineto_raw_int(v[5], len[5], &tr) &&
	    type == 1);
	m->ts = ev->ts_ns;
	m->bytes = bytes;
	m->ta = ta;
	m->tr = tr;
	m->addr = addr;
	m->th = thread(a, ev);
	m->dev = (uint32_t)device(a, type, id);
	m->op = NO_OP;
	m->seq = a->seq++;
	d = &a->dv[m->dev];
	d->events++;
	d->totals |= m->has_ta;
	tspan_add(&d->span_all, m->ts);
	if (m->has_ta)
		tspan_add(&d->span_ta, m->ts);
	if (bytes >= 0) {
		d->allocs++;
		d->alloc_bytes += bytes;
	} else {
		d->frees++;
		d->free_bytes -= bytes;
	}
	if (m->has_addr) {
		a->addressed++;
		balance(a, addr_key(addr, type, id), bytes >= 0 ? 1 : -1,
		    bytes);
	}
	return 0;
}

static int
rng_cmp(const void *x, const void *y)
{
	const struct rng *a = x, *b = y;

	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	if (a->e != b->e)
		return a->e > b->e ? -1 : 1;	/* outer first */
	return (a->seq > b->seq) - (a->seq < b->seq);
}

#define RNG_LE(a, b) (rng_cmp((a), (b)) <= 0)
PD_MSORT(sort_rngs, struct rng, RNG_LE, 1)

static int
mev_cmp(const void *x, const void *y)
{
	const struct mev *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

#define MEV_LE(a, b) (mev_cmp((a), (b)) <= 0)
PD_MSORT(sort_mevs, struct mev, MEV_LE, 1)

/* The open ranges of one thread, innermost last (copies: as deep as
 * they nest). */
struct stk {
	struct rng *v;
	size_t n, cap;
};

/* Event m (its time's ranges of every thread pushed) gets the innermost
 * operator and phase range of its thread that holds its time (ends
 * included); without a phase range, a time inside a ProfilerStep is
 * forward, outside every step other. */
static void
attribute(struct acc *a, struct stk *st, struct mev *m)
{
	uint32_t op = NO_OP;
	int phase = NPH;
	long k;

	if (m->th < a->nth) {
		struct stk *t = &st[m->th];
		while (t->n && t->v[t->n - 1].e < m->ts)
			t->n--;
		for (k = (long)t->n - 1; k >= 0; k--) {
			const struct rng *r = &t->v[k];
			if (r->e < m->ts)
				continue;
			if (op == NO_OP && r->op)
				op = r->name;
			if (phase == NPH && r->phase != NPH)
				phase = r->phase;
			if (op != NO_OP && phase != NPH)
				break;
		}
	}
	if (phase == NPH)
		phase = pd_ksteps_find(&a->steps, m->ts) >= 0 ?
		    PH_FORWARD : PH_OTHER;
	m->op = op;
	m->phase = (uint8_t)phase;
}

/* One event into a step's or a phase's numbers; a < 0 when it has no
 * allocated value, r < 0 when no reserved one. */
static void
peak_add(struct peak *p, const struct mev *m, int64_t a, int64_t r)
{
	p->any = 1;
	if (m->bytes >= 0) {
		p->allocs++;
		p->alloc_bytes += m->bytes;
	}
	if (a >= 0 && (!p->has_a || a > p->a)) {
		p->a = a;
		p->a_ts = m->ts;
		p->has_a = 1;
	}
	if (r >= 0 && (!p->has_r || r > p->r)) {
		p->r = r;
		p->has_r = 1;
	}
}

/* Before the first event of a device: its per-step numbers, and the
 * span of its timeline. That is the first to the last time of its events
 * in time order (those with Total Allocated, where the trace has it),
 * where a first time of 0 gives way to the next later one (as a
 * timeline's first point at 0 is unset). */
static void
dev_begin(struct acc *a, struct dev *d)
{
	const struct tspan *p = d->totals ? &d->span_ta : &d->span_all;

	if (a->steps.n)
		d->st = pd_xcalloc(a->steps.n, sizeof *d->st);
	d->sum = 0;
	d->t0 = d->t1 = 0;
	if (p->any) {
		d->t0 = p->min != 0 ? p->min : p->anypos ? p->minpos : 0;
		d->t1 = p->max;
	}
}

/* One event of a device into its numbers; a device's events come in time
 * order. Allocated is Total Allocated where the trace has it, else (2021)
 * the running sum of Bytes from the start of the trace. */
static void
dev_event(struct acc *a, struct dev *d, const struct mev *e, int counted,
    struct pd_i64map *live)
{
	int64_t t0 = d->t0, t1 = d->t1, va, vr;
	long si = pd_ksteps_find(&a->steps, e->ts);
	struct pd_i64ent *ent;
	int b;

	d->sum += e->bytes;
	va = d->totals ? (e->has_ta ? e->ta : -1) : d->sum;
	vr = e->has_tr ? e->tr : -1;
	if (counted && e->bytes >= 0) {
		if (e->op != NO_OP) {
			a->op[e->op].count++;
			a->op[e->op].bytes += e->bytes;
		} else {
			a->noop_n++;
			a->noop_b += e->bytes;
		}
	}
	if (e->has_addr) {
		int64_t key = addr_key(e->addr, d->type, d->id);
		if (e->bytes >= 0) {
			ent = pd_i64map_put(live, key, 1);
			ent->v[0] = e->ts;
			ent->v[1] = e->op == NO_OP ? -1 : (int64_t)e->op;
		} else if ((ent = pd_i64map_get(live, key, 1))) {
			if (ent->v[1] >= 0 && counted)
				a->op[ent->v[1]].life_ns += e->ts -
				    ent->v[0];
			pd_i64map_del(live, ent);
		}
	}
	peak_add(&d->ph[e->phase], e, va, vr);
	if (si >= 0)
		peak_add(&d->st[si], e, va, vr);
	if (va < 0)
		return;
	fit_add(&d->fit, e->ts, va);
	if (!d->has_alloc || va > d->peak_a) {
		d->peak_a = va;
		d->peak_a_ts = e->ts;
		d->has_frag = vr >= 0;
		d->frag = vr - va;
		d->res_at_peak = vr;
	}
	d->has_alloc = 1;
	if (vr >= 0 && (!d->has_res || vr > d->peak_r)) {
		d->peak_r = vr;
		d->peak_r_ts = e->ts;
		d->has_res = 1;
	}
	/* the span cut in TL_POINTS equal slices, the highest
	 * allocated point of each kept (the peak is one of them) */
	b = t1 > t0 ? (int)((double)(e->ts - t0) * TL_POINTS /
	    ((double)(t1 - t0) + 1.0)) : 0;
	if (b < 0)
		b = 0;
	if (b >= TL_POINTS)
		b = TL_POINTS - 1;
	if (!d->tl[b].used || va > d->tl[b].a) {
		d->tl[b].ts = e->ts;
		d->tl[b].a = va;
		d->tl[b].r = vr;
		d->tl[b].used = 1;
	}
}

static void
set_int_or_null(json_t *o, const char *key, int64_t v, int have)
{
	if (have)
		pd_set_int(o, key, v);
	else
		pd_set_null(o, key);
}

static int
dev_cmp(const void *x, const void *y)
{
	const struct dev *a = x, *b = y;

	if (a->type != b->type)
		return a->type > b->type ? -1 : 1;	/* CUDA first */
	return (a->id > b->id) - (a->id < b->id);
}

static void
count_bytes(struct memcount *c, int64_t n, int64_t bytes)
{
	c->have = 1;
	c->count = n;
	c->bytes = bytes;
	c->has_bytes = 1;
}

static json_t *
peak_json(const struct peak *p)
{
	json_t *o = json_object();

	set_int_or_null(o, "peak_allocated_bytes", p->a, p->has_a);
	set_int_or_null(o, "peak_time_ns", p->a_ts, p->has_a);
	set_int_or_null(o, "peak_reserved_bytes", p->r, p->has_r);
	pd_set_int(o, "allocs", p->allocs);
	pd_set_int(o, "alloc_bytes", p->alloc_bytes);
	return o;
}

static void
dev_series(json_t *o, const struct dev *d, const struct pd_ksteps *steps)
{
	json_t *arr = json_array(), *e, *p;
	size_t i;

	for (i = 0; d->st && i < steps->n; i++) {
		if (!d->st[i].any)
			continue;
		e = json_object();
		pd_set_int(e, "step", steps->v[i].num);
		p = peak_json(&d->st[i]);
		json_object_update(e, p);
		json_decref(p);
		json_array_append_new(arr, e);
	}
	pd_set(o, "steps", arr);
	arr = json_array();
	for (i = 0; i < NPH; i++) {
		if (!d->ph[i].any)
			continue;
		e = json_object();
		pd_set_str(e, "phase", ph_names[i]);
		p = peak_json(&d->ph[i]);
		json_object_update(e, p);
		json_decref(p);
		json_array_append_new(arr, e);
	}
	pd_set(o, "phases", arr);
	arr = json_array();
	for (i = 0; i < TL_POINTS; i++) {
		if (!d->tl[i].used)
			continue;
		e = json_array();
		json_array_append_new(e, json_integer(d->tl[i].ts));
		json_array_append_new(e, json_integer(d->tl[i].a));
		json_array_append_new(e, d->tl[i].r >= 0 ?
		    json_integer(d->tl[i].r) : json_null());
		json_array_append_new(arr, e);
	}
	pd_set(o, "timeline", arr);
}

static int
op_by_bytes(const void *x, const void *y)
{
	const struct opagg *a = x, *b = y;

	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	return strcmp(a->name, b->name);
}

static int
op_by_life(const void *x, const void *y)
{
	const struct opagg *a = x, *b = y;

	if (a->life_ns != b->life_ns)
		return a->life_ns < b->life_ns ? 1 : -1;
	return strcmp(a->name, b->name);
}

/* The operators with allocations, at most topn, in cmp's order (the
 * array is sorted in place: entries without allocations sort last by
 * bytes, and are skipped). */
static void
top_ops(struct acc *a, size_t topn, int by_life, struct memrec *r)
{
	struct memop *o;
	size_t i, n = 0;

	if (a->nop > 1)
		qsort(a->op, a->nop, sizeof *a->op, by_life ? op_by_life :
		    op_by_bytes);
	if (!by_life)
		r->top.have = 1;
	else
		r->by_life.have = 1;
	for (i = 0; i < a->nop && n < topn; i++) {
		if (!a->op[i].count)
			continue;
		o = memrec_op(r, by_life);
		o->name = a->op[i].name;
		o->bytes = a->op[i].bytes;
		o->has_bytes = 1;
		o->count = a->op[i].count;
		if (a->addressed)
			o->lifetime_us = (double)a->op[i].life_ns / 1e3;
		n++;
	}
}

/* After reading: the events and the ranges, each sorted by time, in one
 * sweep: before an event every range that starts at or before its time
 * goes onto its thread's stack (those that ended before it starts come
 * off), the event is attributed, then counted into its device's numbers.
 * A thread's ranges and events meet in the same order as in a sweep of
 * that thread alone, and a device's events come in time order. 0, or -1
 * when a temporary file failed (a->ioerr). */
static int
summarize(struct acc *a)
{
	const struct mev *mj;
	const struct rng *ri;
	struct pd_i64map live;
	struct stk *st;
	size_t i;
	int any_cuda = 0, rc = 0;

	memset(&live, 0, sizeof live);
	pd_ksteps_sort(&a->steps);
	if (pd_xsort_finish(&a->rs) < 0 || pd_xsort_finish(&a->ms) < 0) {
		a->ioerr = a->ms.err ? a->ms.err : a->rs.err;
		return -1;
	}
	st = pd_xcalloc(a->nth + 1, sizeof *st);
	for (i = 0; i < a->ndv; i++) {
		any_cuda |= a->dv[i].type == 1;
		dev_begin(a, &a->dv[i]);
	}
	for (; (mj = pd_xsort_peek(&a->ms)); pd_xsort_next(&a->ms)) {
		struct mev m = *mj;
		struct dev *d = &a->dv[m.dev];

		for (; (ri = pd_xsort_peek(&a->rs)) && ri->s <= m.ts;
		    pd_xsort_next(&a->rs)) {
			struct stk *t = &st[ri->th < a->nth ? ri->th : a->nth];
			while (t->n && t->v[t->n - 1].e < ri->s)
				t->n--;
			if (t->n == t->cap) {
				t->cap = t->cap ? t->cap * 2 : 64;
				t->v = pd_xrealloc(t->v, t->cap * sizeof *t->v);
			}
			t->v[t->n++] = *ri;
		}
		attribute(a, st, &m);
		dev_event(a, d, &m, d->type == 1 || !any_cuda, &live);
	}
	if (a->ms.err || a->rs.err) {
		a->ioerr = a->ms.err ? a->ms.err : a->rs.err;
		rc = -1;
	}
	for (i = 0; i <= a->nth; i++)
		free(st[i].v);
	free(st);
	pd_i64map_free(&live);
	pd_xsort_free(&a->ms);
	pd_xsort_free(&a->rs);
	return rc;
}

static void
emit_trace(json_t *root, struct acc *a, const struct pd_kineto_info *info,
    const struct pd_trace_stats *st, int truncated, size_t topn)
{
	json_t *rec = pd_kineto_rec("pd.mem", root, info, "kineto_trace");
	json_t *arr = json_array();
	struct dev *best = NULL;
	struct memrec r;
	int64_t nr = 0, nf = 0, nrb = 0, nfb = 0, cap;
	size_t i;
	int any_cuda = 0;

	for (i = 0; i < a->ndv; i++)
		any_cuda |= a->dv[i].type == 1;
	if (a->ndv > 1)
		qsort(a->dv, a->ndv, sizeof *a->dv, dev_cmp);
	for (i = 0; i < a->ndv; i++) {
		struct dev *d = &a->dv[i];
		struct memdev md;
		json_t *o = json_object();

		memdev_init(&md);
		cap = d->type == 1 ? pd_kineto_device_mem(info, d->id) : -1;
		if (d->type == 1)
			memdev_set(&md, MD_DEVICE, d->id);
		if (d->has_alloc) {
			memdev_set(&md, MD_PEAK_ALLOC, d->peak_a);
			memdev_set(&md, MD_PEAK_TIME, d->peak_a_ts);
		}
		if (d->has_res) {
			memdev_set(&md, MD_PEAK_RES, d->peak_r);
			memdev_set(&md, MD_PEAK_RES_TIME, d->peak_r_ts);
		}
		if (cap >= 0)
			memdev_set(&md, MD_CAP, cap);
		if (d->has_frag)
			memdev_set(&md, MD_FRAG, d->frag);
		md.growth_bytes_per_s = fit_slope(&d->fit);
		if (d->has_frag && d->res_at_peak > 0)
			md.fragmentation_ratio = (double)d->frag /
			    (double)d->res_at_peak;
		dev_series(o, d, &a->steps);
		md.steps = json_incref(json_object_get(o, "steps"));
		md.phases = json_incref(json_object_get(o, "phases"));
		md.timeline = json_incref(json_object_get(o, "timeline"));
		json_decref(o);
		md.kind = d->type == 1 ? "cuda" : d->type == 0 ? "cpu" :
		    "other";
		memdev_set(&md, MD_EVENTS, (int64_t)d->events);
		memdev_set(&md, MD_ALLOCS, (int64_t)d->allocs);
		memdev_set(&md, MD_FREES, (int64_t)d->frees);
		memdev_set(&md, MD_ALLOC_BYTES, d->alloc_bytes);
		memdev_set(&md, MD_FREE_BYTES, d->free_bytes);
		md.totals_from_trace = d->totals != 0;
		o = memdev_json(&md);
		json_array_append_new(arr, o);
		if ((d->type == 1 || !any_cuda) && d->has_alloc &&
		    (!best || d->peak_a > best->peak_a))
			best = d;
	}
	for (i = 0; i < a->caph; i++) {
		if (a->h[i].used && a->h[i].bal > 0)
			nr++, nrb += a->h[i].bytes;
		else if (a->h[i].used && a->h[i].bal < 0)
			nf++, nfb -= a->h[i].bytes;
	}
	memrec_init(&r);
	r.devices = arr;
	cap = best && best->type == 1 ? pd_kineto_device_mem(info, best->id) :
	    -1;
	if (best)
		memrec_set(&r, MR_PEAK_ALLOC, best->peak_a);
	if (best && best->has_res)
		memrec_set(&r, MR_PEAK_RES, best->peak_r);
	if (cap >= 0)
		memrec_set(&r, MR_CAP, cap);
	if (best && cap > 0)
		r.peak_ratio = (double)(best->has_res ? best->peak_r :
		    best->peak_a) / (double)cap;
	if (a->ndv)
		top_ops(a, topn, 0, &r);
	/* without addresses (2021) no block can be followed */
	if (a->addressed) {
		count_bytes(&r.never_released, nr, nrb);
		count_bytes(&r.frees_without_alloc, nf, nfb);
		top_ops(a, topn, 1, &r);
	}
	if (best && best->has_frag) {
		memrec_set(&r, MR_FRAG, best->frag);
		if (best->res_at_peak > 0)
			r.fragmentation_ratio = (double)best->frag /
			    (double)best->res_at_peak;
	}
	if (a->ndv)
		count_bytes(&r.allocs_without_op, a->noop_n, a->noop_b);
	memrec_set(&r, MR_SKIPPED, (int64_t)(a->bad + st->skipped));
	r.path = a->path;
	r.truncated = truncated;
	memrec_write(rec, &r);
}

/* The events on_event does anything with (pd_trace_cb.want): CPU ranges
 * and [memory] instants. */
static int
want(const struct pd_ev *ev)
{
	int k = pd_kineto_class(ev);

	return (ev->ph == 'X' && pd_kineto_is_cpu_range(k)) ||
	    (ev->ph == 'i' && k == PD_KC_MEMORY);
}

static int
mem_trace(json_t *root, const char *path, size_t topn)
{
	struct acc a;
	struct pd_trace_cb cb = { &a, on_event, NULL, want, NULL };
	struct pd_kineto_info info;
	struct pd_trace_stats st;
	size_t i;
	int rc;

	memset(&a, 0, sizeof a);
	a.path = path;
	a.index = json_object();
	pd_xsort_init(&a.ms, sizeof(struct mev), mev_cmp);
	pd_xsort_init(&a.rs, sizeof(struct rng), rng_cmp);
	pd_xsort_set_sort(&a.ms, sort_mevs_any);	/* (seq: total orders) */
	pd_xsort_set_sort(&a.rs, sort_rngs_any);
	rc = pd_kineto_read(root, path, &cb, &info, &st);
	if (rc >= 0 && (a.ioerr || summarize(&a) < 0)) {
		pd_error(path, 0, "cannot sort its events in a temporary file "
		    "in %s: %s", pd_diag_quote(pd_xsort_dir(), (size_t)-1),
		    strerror(a.ioerr));
		rc = -1;
	}
	if (rc >= 0)
		emit_trace(root, &a, &info, &st, rc == 1, topn);
	pd_kineto_info_free(&info);
	for (i = 0; i < a.ndv; i++)
		free(a.dv[i].st);
	for (i = 0; i < a.nop; i++)
		free(a.op[i].name);
	free(a.dv);
	free(a.h);
	pd_xsort_free(&a.ms);
	pd_xsort_free(&a.rs);
	free(a.th);
	free(a.op);
	json_decref(a.index);
	pd_idmemo_free(&a.opid);
	pd_idmemo_free(&a.phid);
	pd_ksteps_free(&a.steps);
	return rc < 0 ? PD_EXIT_SYSTEM : 0;
}

/* ---- the raw memory timeline ---- */

static const char *cat_names[] = {
	"parameter", "optimizer_state", "input", "temporary", "activation",
	"gradient", "autograd_detail", "unknown"
};
#define NCAT 8

struct raw {
	int64_t sum, peak, peak_ts, cat[NCAT], at_peak[NCAT];
	struct fit fit;
	uint64_t n, bad, unordered, actions[5];
	int have;
	int64_t prev_ts;
};

static void
raw_tuple(struct raw *r, const int64_t *f, int nf)
{
	int c;

	if (nf != 4 || f[1] < 1 || f[1] > 4) {
		r->bad++;
		return;
	}
	c = f[3] >= 0 && f[3] < NCAT ? (int)f[3] : NCAT - 1;
	if (r->n && f[0] < r->prev_ts)
		r->unordered++;
	r->prev_ts = f[0];
	r->n++;
	r->actions[f[1]]++;
	r->sum += f[2];
	r->cat[c] += f[2];
	if (!r->have || r->sum > r->peak) {
		r->peak = r->sum;
		r->peak_ts = f[0];
		memcpy(r->at_peak, r->cat, sizeof r->cat);
		r->have = 1;
	}
	if (f[0] >= 0)	/* -1: preexisting, before the profile */
		fit_add(&r->fit, f[0], r->sum);
}

/* A tokenizer for [[int, int, int, int], ...]: the only shape this export
 * has. Returns 0 at the closing bracket, 1 when the input ends first or is
 * not that shape (*line, *why say where). */
static int
raw_scan(gzFile gz, struct raw *r, long *line, const char **why)
{
	char buf[65536];
	int depth = 0, nf = 0, innum = 0, neg = 0, done = 0;
	int64_t f[8], num = 0;
	int n, i;

	*line = 1;
	while (!done && (n = gzread(gz, buf, sizeof buf)) > 0) {
		for (i = 0; i < n && !done; i++) {
			char c = buf[i];
			if (c >= '0' && c <= '9' && depth == 2) {
				if (!innum)
					num = 0, innum = 1;
				num = num * 10 + (c - '0');
				continue;
			}
			if (innum) {
				if (nf < 8)
					f[nf++] = neg ? -num : num;
				innum = neg = 0;
			}
			switch (c) {
			case '\n': (*line)++; break;
			case ' ': case '\t': case '\r': case ',': break;
			case '-':
				if (depth != 2)
					goto bad;
				neg = 1;
				break;
			case '[':
				if (++depth > 2)
					goto bad;
				nf = 0;
				break;
			case ']':
				if (depth == 2)
					raw_tuple(r, f, nf);
				if (--depth == 0)
					done = 1;
				break;
			default:
				goto bad;
			}
		}
	}
	if (done)
		return 0;
	*why = "file ends inside the timeline";
	return 1;
bad:
	*why = "not a [ts, action, bytes, category] list";
	return 1;
}

static int
mem_raw(json_t *root, const char *path)
{
	int fd = pd_file_open(path, NULL);
	gzFile gz = fd >= 0 ? gzdopen(fd, "rb") : NULL;
	struct raw r;
	json_t *rec, *o;
	struct memdev md;
	struct memrec mr;
	struct memname *c;
	const char *why = NULL;
	long line;
	int rc, i, order[NCAT], j;

	if (!gz) {
		if (fd >= 0)
			close(fd);
		pd_error(path, 0, "cannot open");
		return PD_EXIT_SYSTEM;
	}
	memset(&r, 0, sizeof r);
	rc = raw_scan(gz, &r, &line, &why);
	gzclose(gz);
	if (rc) {
		pd_warn(path, line, "%s; summarized the %" PRIu64 " entries "
		    "read before it", why, r.n);
		pd_diag_status(PD_EXIT_INPUT);
	}
	if (r.bad) {
		pd_warn(path, 0, "%" PRIu64 " entries are not [ts, action 1-4, "
		    "bytes, category]; skipped", r.bad);
		pd_diag_status(PD_EXIT_INPUT);
	}
	rec = pd_rec_new("pd.mem", 1, root);
	pd_set_str(rec, "source", "memory_timeline_raw");
	memrec_init(&mr);
	memdev_init(&md);
	if (json_is_integer(json_object_get(root, "device")))
		memdev_set(&md, MD_DEVICE,
		    json_integer_value(json_object_get(root, "device")));
	if (r.have)
		memdev_set(&md, MD_PEAK_ALLOC, r.peak);
	if (r.have && r.peak_ts >= 0)
		memdev_set(&md, MD_PEAK_TIME, r.peak_ts);
	md.growth_bytes_per_s = fit_slope(&r.fit);
	memdev_set(&md, MD_EVENTS, (int64_t)r.n);
	o = memdev_json(&md);
	if (r.have) {
		mr.devices = json_array();
		json_array_append_new(mr.devices, o);
		memrec_set(&mr, MR_PEAK_ALLOC, r.peak);
	} else
		json_decref(o);
	memrec_set(&mr, MR_SKIPPED, (int64_t)r.bad);
	/* categories at the peak, largest first */
	for (i = 0; i < NCAT; i++)
		order[i] = i;
	for (i = 1; i < NCAT; i++)
		for (j = i; j > 0 && r.at_peak[order[j]] >
		    r.at_peak[order[j - 1]]; j--) {
			int x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	mr.categories.have = 1;
	for (i = 0; i < NCAT && r.have; i++) {
		c = memrec_category(&mr);
		c->name = cat_names[order[i]];
		c->bytes = r.at_peak[order[i]];
		c->has_bytes = 1;
	}
	mr.has_actions = 1;
	for (i = 0; i < 4; i++)
		mr.actions[i] = (int64_t)r.actions[i + 1];
	memrec_set(&mr, MR_UNORDERED, (int64_t)r.unordered);
	mr.path = path;
	mr.truncated = rc != 0;
	memrec_write(rec, &mr);
	return 0;
}

int
sum_mem_pytorch(json_t *root, const struct pd_tool *t)
{
	const char *p;
	size_t i;
	int rc = 0, x;

	if ((p = pd_kineto_trace_path(root)) != NULL)
		rc = mem_trace(root, p, (size_t)t->topn);
	for (i = 0; (p = pd_root_export(root, "memory_timeline_raw", i)); i++)
		if ((x = mem_raw(root, p)) > rc)
			rc = x;
	return rc;
}
