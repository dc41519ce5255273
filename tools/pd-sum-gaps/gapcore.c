/* pd-sum-gaps: device idle time, launch statistics and queue length from
 * activities fed by a family reader (see gapcore.h). */
#include "gapcore.h"
#include "pd_diag.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pd_msort.h"
#include "pd_rec.h"
#include "pd_stats.h"

enum { TAG_RT = 1, TAG_PEND = 2 };
enum { LOG_SYNC = GAP_HOST_N };	/* hlog tags: GAP_HOST_*, then this */
#define LOG_MAX	21		/* bytes of a hlog record at most */

/* sorted order of the activities: start, stream, end, order seen (the
 * order the per-stream sort and merge of streams gave them) */
static int
cmp_rec(const void *x, const void *y)
{
	const struct gap_rec *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

#define REC_LE(a, b) (cmp_rec((a), (b)) <= 0)
PD_MSORT(sort_recs, struct gap_rec, REC_LE, 1)	/* seq: a total order */

/* a launch start of an activity linked one to one */
struct gap_lq {
	int64_t lts;
	uint64_t stream;
};

static int
cmp_lq(const void *x, const void *y)
{
	const struct gap_lq *a = x, *b = y;

	if (a->lts != b->lts)
		return a->lts < b->lts ? -1 : 1;
	return (a->stream > b->stream) - (a->stream < b->stream);
}

static int
cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* LSD radix sorts of the delays and launch starts (a run of them at a
 * time, for pd_xsort): 11 bits a pass, only as many passes as the largest
 * key needs, through a temporary copy; the order cmp_i64 and cmp_lq give,
 * at a fraction of qsort's cost. */
#define RADIX_BITS	11
#define RADIX_N		(1u << RADIX_BITS)

/* One stable pass over n records of size bytes by digit (key >> sh). */
#define RADIX_PASS(T, src, dst, n, KEY, sh) do {			\
	size_t cnt_[RADIX_N], i_, sum_;					\
	memset(cnt_, 0, sizeof cnt_);					\
	for (i_ = 0; i_ < (n); i_++)					\
		cnt_[(KEY((src)[i_])) >> (sh) & (RADIX_N - 1)]++;	\
	for (i_ = 0, sum_ = 0; i_ < RADIX_N; i_++) {			\
		size_t c_ = cnt_[i_];					\
		cnt_[i_] = sum_;					\
		sum_ += c_;						\
	}								\
	for (i_ = 0; i_ < (n); i_++)					\
		(dst)[cnt_[(KEY((src)[i_])) >> (sh) & (RADIX_N - 1)]++] =	\
		    (src)[i_];						\
} while (0)

#define KEY_DELAY(x)	((uint64_t)(x))

/* delays: int64_t, never negative */
static void
sort_delays(void *buf, size_t n)
{
	int64_t *v = buf, *t, *src = v, *dst, *x;
	uint64_t max = 0;
	size_t i;
	int sh;

	for (i = 0; i < n; i++)
		if ((uint64_t)v[i] > max)
			max = (uint64_t)v[i];
	dst = t = pd_xrealloc(NULL, n * sizeof *t);
	for (sh = 0; sh < 64 && (sh == 0 || max >> sh); sh += RADIX_BITS) {
		RADIX_PASS(int64_t, src, dst, n, KEY_DELAY, sh);
		x = src, src = dst, dst = x;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
	free(t);
}

static int64_t radix_min;	/* the smallest lts of the run being sorted */
#define KEY_STREAM(r)	((r).stream)
#define KEY_LTS(r)	((uint64_t)(r).lts - (uint64_t)radix_min)

/* launch starts: by lts, then stream (the stream's digits first) */
static void
sort_lq(void *buf, size_t n)
{
	struct gap_lq *v = buf, *t, *src = v, *dst, *x;
	uint64_t maxs = 0, maxk = 0;
	size_t i;
	int sh;

	radix_min = v[0].lts;
	for (i = 0; i < n; i++) {
		if (v[i].stream > maxs)
			maxs = v[i].stream;
		if (v[i].lts < radix_min)
			radix_min = v[i].lts;
	}
	for (i = 0; i < n; i++)
		if (KEY_LTS(v[i]) > maxk)
			maxk = KEY_LTS(v[i]);
	dst = t = pd_xrealloc(NULL, n * sizeof *t);
	for (sh = 0; sh < 64 && maxs >> sh; sh += RADIX_BITS) {
		RADIX_PASS(struct gap_lq, src, dst, n, KEY_STREAM, sh);
		x = src, src = dst, dst = x;
	}
	for (sh = 0; sh < 64 && (sh == 0 || maxk >> sh); sh += RADIX_BITS) {
		RADIX_PASS(struct gap_lq, src, dst, n, KEY_LTS, sh);
		x = src, src = dst, dst = x;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
	free(t);
}

void
gaps_init(struct gaps *g)
{
	const char *e = getenv("PD_SORT_MEM");

	memset(g, 0, sizeof *g);
	pd_xsort_init(&g->acts, sizeof(struct gap_rec), cmp_rec);
	pd_xsort_init(&g->lq, sizeof(struct gap_lq), cmp_lq);
	pd_xsort_init(&g->delays, sizeof(int64_t), cmp_i64);
	pd_xsort_set_sort(&g->acts, sort_recs_any);
	pd_xsort_set_sort(&g->lq, sort_lq);
	pd_xsort_set_sort(&g->delays, sort_delays);
	/* the host log spills past 256 KiB, or the sorts' bound when one
	 * is set */
	if (e && *e) {
		char *end;
		unsigned long long v = strtoull(e, &end, 10);

		if (*end == '\0' && v > 0)
			g->hlog.limit = v < LOG_MAX ? LOG_MAX :
			    v > (1u << 30) ? (1u << 30) : (size_t)v;
	}
	g->first = g->lastend = GAP_NONE;
}

void
gaps_free(struct gaps *g)
{
	free(g->s);
	free(g->steps);
	free(g->stepnum);
	free(g->waits);
	free(g->comm_ids);
	pd_spill_free(&g->hlog);
	/* a zeroed struct gaps (never initialized) has no sorts: size 0 */
	if (g->acts.size)
		pd_xsort_free(&g->acts);
	if (g->lq.size)
		pd_xsort_free(&g->lq);
	if (g->delays.size)
		pd_xsort_free(&g->delays);
	pd_i64map_free(&g->link);
	memset(g, 0, sizeof *g);
}

static size_t
stream_of(struct gaps *g, int64_t dev, int dev_known, int64_t id)
{
	struct gap_stream *s;
	size_t i;

	if (g->last < g->ns && g->s[g->last].dev == dev && g->s[g->last].id == id)
		return g->last;
	for (i = 0; i < g->ns; i++)
		if (g->s[i].dev == dev && g->s[i].id == id)
			return g->last = i;
	if (g->ns == g->caps) {
		g->caps = g->caps ? g->caps * 2 : 8;
		g->s = pd_xrealloc(g->s, g->caps * sizeof *g->s);
	}
	if (g->ns >= UINT32_MAX)
		pd_oom();
	s = &g->s[g->ns];
	memset(s, 0, sizeof *s);
	s->dev = dev, s->dev_known = dev_known, s->id = id;
	return g->last = g->ns++;
}

static void
io_check(struct gaps *g, const struct pd_xsort *x)
{
	if (x->err && !g->ioerr)
		g->ioerr = x->err;
}

/* Add a copy of r to the sort x (nothing after an I/O error). */
static void
sort_add(struct gaps *g, struct pd_xsort *x, const void *r)
{
	void *p = pd_xsort_slot(x);

	if (p)
		memcpy(p, r, x->size);
	else
		io_check(g, x);
}

/* HTA kernel launch statistics, counted when an activity (ts, end) of
 * stream si is linked one to one to its launch call (lts, lend). */
static void
launch_count(struct gaps *g, uint32_t si, int64_t ts, int64_t end,
    int64_t lts, int64_t lend)
{
	int64_t cpu = lend - lts, gpu = end - ts, delay = ts - lend;
	struct gap_lq q;

	if (delay < 0)
		delay = 0;
	g->ln++;
	if (cpu <= GAP_SHORT_CPU_NS && gpu < cpu)
		g->lshort++;
	if (cpu > GAP_SHORT_CPU_NS)
		g->loutl++;
	if (delay > GAP_DELAY_NS)
		g->ldelayed++;
	sort_add(g, &g->delays, &delay);
	memset(&q, 0, sizeof q);
	q.lts = lts;
	q.stream = si;
	sort_add(g, &g->lq, &q);
}

/* r linked to the launch call rt (v[0] start, v[1] end, u multi) */
static void
link_act(struct gaps *g, struct gap_rec *r, const struct pd_i64ent *rt)
{
	r->kind = rt->u ? 2 : 1;
	r->lts = rt->v[0];
	if (!rt->u)
		launch_count(g, r->stream, r->ts, r->end, rt->v[0], rt->v[1]);
}

void
gaps_activity(struct gaps *g, int64_t dev, int dev_known, int64_t stream,
    int64_t ts, int64_t dur, int has_corr, int64_t corr, int flags)
{
	size_t si = stream_of(g, dev, dev_known, stream);
	struct gap_stream *s = &g->s[si];
	struct gap_rec r;
	struct pd_i64ent *e;

	if (dur > 0) {
		s->all_ns += dur;
		if (flags & GAP_ACT_COMM)
			s->comm_ns += dur;
	}
	if ((flags & GAP_ACT_WAIT) && dur > 0) {
		if (g->nwaits == g->capwaits) {
			g->capwaits = g->capwaits ? g->capwaits * 2 : 16;
			g->waits = pd_xrealloc(g->waits, g->capwaits *
			    sizeof *g->waits);
		}
		g->waits[g->nwaits].stream = si;
		g->waits[g->nwaits].ts = ts;
		g->waits[g->nwaits++].end = ts + dur;
	}
	memset(&r, 0, sizeof r);
	r.ts = ts;
	r.end = ts + (dur > 0 ? dur : 0);
	r.lts = GAP_NONE;
	r.seq = g->nact++;
	r.stream = (uint32_t)si;
	s->n++;
	if (g->first == GAP_NONE || ts < g->first)
		g->first = ts;
	if (g->lastend == GAP_NONE || r.end > g->lastend)
		g->lastend = r.end;
	if (has_corr) {
		if ((e = pd_i64map_get(&g->link, corr, TAG_RT))) {
			link_act(g, &r, e);
			if (!e->u)
				pd_i64map_del(&g->link, e);
		} else {
			/* kept here until its launch call is seen */
			e = pd_i64map_put(&g->link, corr, TAG_PEND);
			e->v[0] = r.ts;
			e->v[1] = r.end;
			e->v[2] = (int64_t)r.seq;
			e->u = r.stream;
			return;
		}
	}
	sort_add(g, &g->acts, &r);
}

/* The activity a TAG_PEND entry holds. */
static void
pend_rec(const struct pd_i64ent *e, struct gap_rec *r)
{
	memset(r, 0, sizeof *r);
	r->ts = e->v[0];
	r->end = e->v[1];
	r->lts = GAP_NONE;
	r->seq = (uint64_t)e->v[2];
	r->stream = e->u;
}

void
gaps_launch(struct gaps *g, int64_t corr, int64_t ts, int64_t dur, int multi)
{
	struct pd_i64ent *e, rt;
	struct gap_rec r;
	int found = 0;

	memset(&rt, 0, sizeof rt);
	rt.v[0] = ts;
	rt.v[1] = ts + (dur > 0 ? dur : 0);
	rt.u = multi ? 1 : 0;
	while ((e = pd_i64map_get(&g->link, corr, TAG_PEND))) {
		pend_rec(e, &r);
		link_act(g, &r, &rt);
		sort_add(g, &g->acts, &r);
		pd_i64map_del(&g->link, e);
		found = 1;
	}
	if (found && !multi)
		return;
	e = pd_i64map_put(&g->link, corr, TAG_RT);
	e->v[0] = rt.v[0], e->v[1] = rt.v[1], e->u = rt.u;
}

static void
span_push(struct gap_span **v, size_t *n, size_t *cap, int64_t ts, int64_t dur)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = pd_xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[*n].ts = ts;
	(*v)[*n].end = ts + (dur > 0 ? dur : 0);
	(*n)++;
}

void
gaps_step(struct gaps *g, int64_t ts, int64_t dur, int64_t num)
{
	size_t cap = g->capsteps;

	span_push(&g->steps, &g->nsteps, &g->capsteps, ts, dur);
	if (g->capsteps != cap)
		g->stepnum = pd_xrealloc(g->stepnum, g->capsteps *
		    sizeof *g->stepnum);
	g->stepnum[g->nsteps - 1] = num;
}

/* A host span or synchronize call (tag) to the log: the tag, the start
 * as a difference to the one before, the length. */
static void
log_span(struct gaps *g, int tag, int64_t ts, int64_t end)
{
	unsigned char *p = pd_spill_reserve(&g->hlog, LOG_MAX), *q = p;

	*q++ = (unsigned char)tag;
	q = pd_spill_put_d(q, ts, g->hprev);
	q = pd_spill_put_u(q, (uint64_t)(end - ts));
	pd_spill_commit(&g->hlog, q);
	g->hprev = ts;
}

void
gaps_sync(struct gaps *g, int64_t ts, int64_t dur)
{
	log_span(g, LOG_SYNC, ts, ts + (dur > 0 ? dur : 0));
	g->nsyncs++;
}

void
gaps_comm_stream(struct gaps *g, int64_t stream)
{
	size_t i;

	for (i = 0; i < g->ncomm_ids; i++)
		if (g->comm_ids[i] == stream)
			return;
	if (g->ncomm_ids == g->capcomm_ids) {
		g->capcomm_ids = g->capcomm_ids ? g->capcomm_ids * 2 : 8;
		g->comm_ids = pd_xrealloc(g->comm_ids, g->capcomm_ids *
		    sizeof *g->comm_ids);
	}
	g->comm_ids[g->ncomm_ids++] = stream;
}

/* Whether stream s is named a communication stream (gaps_comm_stream). */
static int
comm_named(const struct gaps *g, const struct gap_stream *s)
{
	size_t i;

	for (i = 0; !s->dev_known && i < g->ncomm_ids; i++)
		if (g->comm_ids[i] == s->id)
			return 1;
	return 0;
}

void
gaps_host(struct gaps *g, int lane, int64_t ts, int64_t dur)
{
	struct gap_span *last = &g->hlast[lane];
	int64_t end = ts + (dur > 0 ? dur : 0);

	if (g->hhave[lane] && ts >= last->ts && ts <= last->end) {
		if (end > last->end)
			last->end = end;
		return;
	}
	if (g->hhave[lane])
		log_span(g, lane, last->ts, last->end);
	last->ts = ts;
	last->end = end;
	g->hhave[lane] = 1;
}

static double
us(int64_t ns)
{
	return (double)ns / 1000.0;
}

/* What the pass over the sorted activities keeps per stream. */
struct sstate {
	int64_t busy, idle, hw, kw, other, first, maxend;
	int64_t qlen, qmax;	/* the launch queue */
	double qsum;
	size_t nq;
	int started, linked;
	size_t dev;		/* its device's index in the pass's devices */
};

/* Per-stream idle breakdown as HTA's idle time analysis: each gap between
 * the end of what ran before on the stream and the next activity goes
 * whole to host wait (the next launch call started after that end),
 * kernel wait (gap < 30 us) or other. The queue length: +1 at each
 * launch, -1 when its activity starts. */
static void
stream_step(struct sstate *t, const struct gap_rec *a)
{
	if (a->kind)
		t->linked = 1;
	if (!t->started) {
		t->started = 1;
		t->first = a->ts;
		t->maxend = a->end;
		t->busy = a->end - a->ts;
	} else if (a->ts > t->maxend) {
		int64_t gap = a->ts - t->maxend;

		t->idle += gap;
		if (a->lts != GAP_NONE && a->lts > t->maxend)
			t->hw += gap;
		else if (gap < GAP_KERNEL_WAIT_NS)
			t->kw += gap;
		else
			t->other += gap;
		t->busy += a->end - a->ts;
		t->maxend = a->end;
	} else if (a->end > t->maxend) {
		t->busy += a->end - t->maxend;
		t->maxend = a->end;
	}
}

static void
queue_step(struct sstate *t, int64_t cur)
{
	t->qlen += cur;
	if (t->qlen > t->qmax)
		t->qmax = t->qlen;
	t->qsum += (double)t->qlen;
	t->nq++;
}

static json_t *
stream_json(const struct gap_stream *s, const struct sstate *t)
{
	json_t *o = json_object();

	pd_set_int(o, "stream", s->id);
	pd_set_real(o, "busy_us", us(t->busy), 3);
	pd_set_real(o, "idle_us", us(t->idle), 3);
	if (t->linked)
		pd_set_real(o, "host_wait_us", us(t->hw), 3);
	else
		pd_set_null(o, "host_wait_us");
	pd_set_real(o, "kernel_wait_us", us(t->kw), 3);
	pd_set_real(o, "other_us", us(t->other), 3);
	if (s->dev_known)
		pd_set_int(o, "device", s->dev);
	else
		pd_set_null(o, "device");
	pd_set_int(o, "activities", (int64_t)s->n);
	pd_set_real(o, "span_us", us(t->maxend - t->first), 3);
	if (t->nq) {
		pd_set_int(o, "queue_max", t->qmax);
		pd_set_real(o, "queue_mean", t->qsum / (double)t->nq, 3);
	} else {
		pd_set_null(o, "queue_max");
		pd_set_null(o, "queue_mean");
	}
	return o;
}

/* The union of activities (all, or those of one device): busy time. */
struct usweep {
	int64_t busy, maxend;
	int started;
};

/* a into u; the idle gap it ends, 0 when none */
static int64_t
usweep_step(struct usweep *u, const struct gap_rec *a)
{
	int64_t gap = 0;

	if (!u->started) {
		u->started = 1;
		u->maxend = a->end;
		u->busy = a->end - a->ts;
	} else if (a->ts > u->maxend) {
		gap = a->ts - u->maxend;
		u->busy += a->end - a->ts;
		u->maxend = a->end;
	} else if (a->end > u->maxend) {
		u->busy += a->end - u->maxend;
		u->maxend = a->end;
	}
	return gap;
}

/* A gap longer than GAP_LARGE_NS in the union of one device's streams. */
struct large {
	int64_t dur, start, dev;
	size_t devi;		/* the device's index: devices in stream order */
	uint64_t seq;		/* found: in time order per device */
	int dev_known;		/* of the stream of the activity after it */
};

/* the longest first, then the earliest, then as the per-device sweeps in
 * device order found them */
static int
cmp_large(const void *x, const void *y)
{
	const struct large *a = x, *b = y;

	if (a->dur != b->dur)
		return a->dur > b->dur ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->devi != b->devi)
		return a->devi < b->devi ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static json_t *
large_json(const struct large *l)
{
	json_t *o = json_object();

	pd_set_null(o, "stream");
	pd_set_int(o, "start_ns", l->start);
	pd_set_real(o, "dur_us", us(l->dur), 3);
	if (l->dev_known)
		pd_set_int(o, "device", l->dev);
	else
		pd_set_null(o, "device");
	return o;
}

static json_t *
sorted_top(json_t *arr, int topn, int (*cmp)(const void *, const void *))
{
	size_t n = json_array_size(arr), i;
	json_t **v = pd_xrealloc(NULL, n * sizeof *v), *out = json_array();

	for (i = 0; i < n; i++)
		v[i] = json_array_get(arr, i);
	qsort(v, n, sizeof *v, cmp);
	for (i = 0; i < n && (int)i < topn; i++)
		json_array_append(out, v[i]);
	free(v);
	json_decref(arr);
	return out;
}

/* nsys gpu_time_util: activity time inside each of 30 equal chunks of the
 * span over the chunk length (concurrent activities add up). */
struct chunks {
	int64_t first, len, b[GAP_CHUNKS + 1], in[GAP_CHUNKS];
};

static void
chunks_init(struct chunks *k, int64_t first, int64_t last)
{
	int c;

	memset(k, 0, sizeof *k);
	k->first = first;
	k->len = last - first;
	for (c = 0; c <= GAP_CHUNKS; c++)
		k->b[c] = first + (k->len / GAP_CHUNKS) * c +
		    (k->len % GAP_CHUNKS) * c / GAP_CHUNKS;
}

static void
chunks_add(struct chunks *k, const struct gap_rec *a)
{
	const int64_t *b = k->b;
	int c;

	if (k->len <= 0)
		return;
	c = (int)((double)(a->ts - k->first) / (double)k->len * GAP_CHUNKS);
	if (c >= GAP_CHUNKS)
		c = GAP_CHUNKS - 1;
	while (c > 0 && b[c] > a->ts)
		c--;
	while (c < GAP_CHUNKS - 1 && b[c + 1] <= a->ts)
		c++;
	for (; c < GAP_CHUNKS && b[c] < a->end; c++) {
		int64_t s = a->ts > b[c] ? a->ts : b[c];
		int64_t e = a->end < b[c + 1] ? a->end : b[c + 1];

		if (e > s)
			k->in[c] += e - s;
	}
}

static json_t *
chunks_json(const struct chunks *k)
{
	json_t *arr = json_array();
	int c;

	if (k->len <= 0)
		return arr;
	for (c = 0; c < GAP_CHUNKS; c++) {
		double r;

		if (k->b[c + 1] <= k->b[c])
			continue;
		r = (double)k->in[c] / (double)(k->b[c + 1] - k->b[c]);
		if (r < GAP_LOW_UTIL) {
			json_t *o = json_object();

			pd_set_int(o, "index", c);
			pd_set_real(o, "util_ratio", r, 4);
			json_array_append_new(arr, o);
		}
	}
	return arr;
}

/* The median and 90th percentile of the launch delays (pd_quantile_sorted
 * over them, in us) into g->p50 and g->p90, read in increasing order from
 * their sort; the sort is freed. -1 after an I/O error. */
static int
delay_fill(struct gaps *g)
{
	struct pd_squant q[2];
	const int64_t *d;
	size_t i;

	if (!g->ln) {
		pd_xsort_free(&g->delays);
		return 0;
	}
	pd_squant_init(&q[0], (size_t)g->ln, 0.5);
	pd_squant_init(&q[1], (size_t)g->ln, 0.9);
	if (pd_xsort_finish(&g->delays) < 0) {
		io_check(g, &g->delays);
		return -1;
	}
	for (i = 0; (d = pd_xsort_peek(&g->delays)); i++) {
		pd_squant_see(&q[0], i, us(*d));
		pd_squant_see(&q[1], i, us(*d));
		if (i >= q[1].hi)
			break;
		pd_xsort_next(&g->delays);
	}
	io_check(g, &g->delays);
	pd_xsort_free(&g->delays);
	if (g->ioerr)
		return -1;
	g->p50 = pd_squant_value(&q[0]);
	g->p90 = pd_squant_value(&q[1]);
	return 0;
}

/* HTA kernel launch statistics over activities linked one-to-one to their
 * launch call (counted by launch_count). */
static json_t *
launch_json(struct gaps *g, int64_t unlinked)
{
	json_t *o = json_object();

	if (g->no_launch)
		pd_set_null(o, "kernels");
	else
		pd_set_int(o, "kernels", g->ln);
	if (g->ln) {
		pd_set_int(o, "short_kernels", g->lshort);
		pd_set_real(o, "short_ratio", (double)g->lshort / (double)g->ln,
		    4);
		pd_set_real(o, "launch_delay_p50_us", g->p50, 3);
		pd_set_real(o, "launch_delay_p90_us", g->p90, 3);
		pd_set_int(o, "delayed_launches", g->ldelayed);
		pd_set_int(o, "runtime_outliers", g->loutl);
	} else {
		pd_set_null(o, "short_kernels");
		pd_set_null(o, "short_ratio");
		pd_set_null(o, "launch_delay_p50_us");
		pd_set_null(o, "launch_delay_p90_us");
		pd_set_null(o, "delayed_launches");
		pd_set_null(o, "runtime_outliers");
	}
	pd_set_int(o, "unlinked", unlinked);
	return o;
}

static int
cmp_stream(const void *x, const void *y)
{
	json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;
	double ba = json_real_value(json_object_get(a, "busy_us"));
	double bb = json_real_value(json_object_get(b, "busy_us"));
	json_int_t da = json_integer_value(json_object_get(a, "device"));
	json_int_t db = json_integer_value(json_object_get(b, "device"));
	json_int_t sa = json_integer_value(json_object_get(a, "stream"));
	json_int_t sb = json_integer_value(json_object_get(b, "stream"));

	if (ba != bb)
		return ba > bb ? -1 : 1;
	if (da != db)
		return da < db ? -1 : 1;
	return (sa > sb) - (sa < sb);
}

/* The timeline strip: what ran in one representative step (the median
 * step by duration; the whole device span when there are no steps), lane
 * by lane, as spans relative to the window's start. */
struct lane {
	const char *kind;
	char name[48];
	struct gap_span *v;
	size_t n, cap;
	int64_t count, busy;
	int64_t wait;		/* device lanes: wait tasks' time, -1 others */
	size_t stream;		/* device lanes: index in g->s */
};

/* A span of the strip's lane (host lanes first, then a lane per stream),
 * kept in a pd_xsort until the strip is drawn: by lane, start, end. */
struct strip_sp {
	int64_t ts, end;
	uint32_t lane, pad;
};

static int
cmp_sp(const void *x, const void *y)
{
	const struct strip_sp *a = x, *b = y;

	if (a->lane != b->lane)
		return a->lane < b->lane ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return (a->end > b->end) - (a->end < b->end);
}

/* (equal spans of a lane are the same record: a total order) */
#define SP_LE(a, b) (cmp_sp((a), (b)) <= 0)
PD_MSORT(sort_sps, struct strip_sp, SP_LE, 1)

/* [*ts, *end) clipped to [w0, w1): 0 when it does not meet the window;
 * zero length spans (launch instants) are kept as points. */
static inline int
clip(int64_t *ts, int64_t *end, int64_t w0, int64_t w1)
{
	if (*end < *ts || *ts >= w1 || *end < w0 || (*end == w0 && *end > *ts))
		return 0;
	if (*ts < w0)
		*ts = w0;
	if (*end > w1)
		*end = w1;
	return 1;
}

/* [ts, end) clipped to [w0, w1), kept when it meets the window. */
static void
lane_add(struct lane *l, int64_t ts, int64_t end, int64_t w0, int64_t w1)
{
	if (!clip(&ts, &end, w0, w1))
		return;
	span_push(&l->v, &l->n, &l->cap, ts, end - ts);
	l->count++;
}

static int
cmp_span(const void *x, const void *y)
{
	const struct gap_span *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return (a->end > b->end) - (a->end < b->end);
}

/* Sort and make the spans disjoint (their union: busy time exact), counting
 * host operators, which nest, as the stretches of their union. */
static void
lane_union(struct lane *l)
{
	size_t i, k;

	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof *l->v, cmp_span);
	for (i = 1, k = 0; i < l->n; i++) {
		if (l->v[i].ts <= l->v[k].end) {
			if (l->v[i].end > l->v[k].end)
				l->v[k].end = l->v[i].end;
		} else
			l->v[++k] = l->v[i];
	}
	l->n = k + 1;
	l->busy = 0;
	for (i = 0; i < l->n; i++)
		l->busy += l->v[i].end - l->v[i].ts;
	if (l->kind && strcmp(l->kind, "host") == 0)
		l->count = (int64_t)l->n;
}

/* For drawing: merge spans closer than res, doubling res until at most
 * GAP_STRIP_SPANS are left. */
static void
lane_draw(struct lane *l, int64_t res)
{
	size_t i, k;

	if (!l->n)
		return;
	for (;; res *= 2) {
		for (i = 1, k = 0; i < l->n; i++) {
			if (l->v[i].ts - l->v[k].end < res) {
				if (l->v[i].end > l->v[k].end)
					l->v[k].end = l->v[i].end;
			} else
				l->v[++k] = l->v[i];
		}
		l->n = k + 1;
		if (l->n <= GAP_STRIP_SPANS)
			break;
	}
}

/* A span of a lane as drawn, in order: merged into the last one when
 * closer than *res; past twice the spans drawn, *res doubles and they
 * are merged again (gaps closed below res and then below 2 res are those
 * closed below 2 res: the same spans lane_draw gives the whole lane). */
static void
draw_push(struct lane *l, int64_t *res, int64_t ts, int64_t end)
{
	if (l->n && ts - l->v[l->n - 1].end < *res) {
		if (end > l->v[l->n - 1].end)
			l->v[l->n - 1].end = end;
	} else
		span_push(&l->v, &l->n, &l->cap, ts, end - ts);
	if (l->n > 2 * GAP_STRIP_SPANS) {
		*res *= 2;
		lane_draw(l, *res);
	}
}

/* Filling a lane from the strip's sort (lane_fill). */
struct fill {
	struct lane *l;
	const struct lane *w;	/* the wait tasks taken out; NULL: none */
	size_t j;		/* the first of them that may still matter */
	int64_t res, busy, nunion;
};

/* A stretch [a, b) of the lane's union, in order: less the wait tasks,
 * counted and drawn. */
static void
stretch(struct fill *f, int64_t a, int64_t b)
{
	const struct lane *w = f->w;
	int64_t p = a;
	size_t k;

	f->nunion++;
	if (w) {
		while (f->j < w->n && w->v[f->j].end <= a)
			f->j++;
		for (k = f->j; k < w->n && w->v[k].ts < b; k++) {
			if (w->v[k].ts > p) {
				f->busy += w->v[k].ts - p;
				draw_push(f->l, &f->res, p, w->v[k].ts);
			}
			if (w->v[k].end > p)
				p = w->v[k].end;
		}
		/* a point (launch instant) stays where no wait covers it */
		if (!(p < b || (p == b && a == b)))
			return;
	}
	f->busy += b - p;
	draw_push(f->l, &f->res, p, b);
}

/* The spans of a lane, in order (start, end): from the strip's sort
 * (sp, when all went there: lane id's run of it), else from the lane's
 * own array (v, n; sorted first). */
struct spsrc {
	struct pd_xsort *sp;
	uint32_t id;
	struct gap_span *v;
	size_t n, i;
};

static int
src_next(struct spsrc *c, int64_t *ts, int64_t *end)
{
	const struct strip_sp *x;

	if (!c->sp) {
		if (c->i >= c->n)
			return 0;
		*ts = c->v[c->i].ts, *end = c->v[c->i].end;
		c->i++;
		return 1;
	}
	if (!(x = pd_xsort_peek(c->sp)) || x->lane != c->id)
		return 0;
	*ts = x->ts, *end = x->end;
	pd_xsort_next(c->sp);
	return 1;
}

/* Lane l (number id; its spans in sp when they went there, else in its
 * array): its spans' union (busy time exact; host operators,
 * which nest, counted as its stretches), less the disjoint, sorted spans
 * of w (a stream's wait tasks; NULL: none), drawn as they come
 * (lane_draw): l->v then holds the spans drawn. */
static void
lane_fill(struct pd_xsort *sp, struct lane *l, uint32_t id,
    const struct lane *w, int64_t res)
{
	struct fill f = { l, w, 0, res, 0, 0 };
	struct spsrc c = { sp, id, l->v, l->n, 0 };
	int64_t a = 0, b = 0, ts = 0, end = 0;
	int have = 0, more;

	if (!c.sp && c.n)
		qsort(c.v, c.n, sizeof *c.v, cmp_span);
	l->v = NULL;
	l->n = l->cap = 0;
	for (;;) {
		more = src_next(&c, &ts, &end);
		if (more && have && ts <= b) {
			if (end > b)
				b = end;
			continue;
		}
		if (have)
			stretch(&f, a, b);
		if (!more)
			break;
		a = ts, b = end, have = 1;
	}
	free(c.v);
	l->busy = f.busy;
	if (l->kind && strcmp(l->kind, "host") == 0)
		l->count = f.nunion;
	lane_draw(l, f.res);
}

static json_t *
lane_json(const struct lane *l, int64_t w0)
{
	json_t *o = json_object(), *a = json_array();
	size_t i;

	pd_set_str(o, "name", l->name);
	pd_set_str(o, "kind", l->kind);
	pd_set_int(o, "count", l->count);
	pd_set_real(o, "busy_us", us(l->busy), 3);
	if (l->wait >= 0)
		pd_set_real(o, "wait_us", us(l->wait), 3);
	else
		pd_set_null(o, "wait_us");
	for (i = 0; i < l->n; i++) {
		json_t *p = json_array();

		json_array_append_new(p, pd_real(us(l->v[i].ts - w0), 3));
		json_array_append_new(p, pd_real(us(l->v[i].end -
		    l->v[i].ts), 3));
		json_array_append_new(a, p);
	}
	pd_set(o, "spans", a);
	return o;
}

static int
cmp_lane_busy(const void *x, const void *y)
{
	const struct lane *a = x, *b = y;

	if (a->busy != b->busy)
		return a->busy > b->busy ? -1 : 1;
	return (a->stream > b->stream) - (a->stream < b->stream);
}

/* device lanes in the order of their streams, by device then stream */
static const struct gaps *cmp_g;

static int
cmp_lane_stream(const void *x, const void *y)
{
	const struct gap_stream *a = &cmp_g->s[((const struct lane *)x)->stream];
	const struct gap_stream *b = &cmp_g->s[((const struct lane *)y)->stream];

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

/* The median step by duration (the lower one of an even count, the
 * earlier of equal ones): its index in g->steps. */
struct stepkey {
	int64_t dur, ts;
	size_t i;
};

static int
cmp_stepkey(const void *x, const void *y)
{
	const struct stepkey *a = x, *b = y;

	if (a->dur != b->dur)
		return a->dur < b->dur ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static size_t
median_step(const struct gaps *g)
{
	struct stepkey *k = pd_xrealloc(NULL, g->nsteps * sizeof *k);
	size_t i, m;

	for (i = 0; i < g->nsteps; i++) {
		k[i].dur = g->steps[i].end - g->steps[i].ts;
		k[i].ts = g->steps[i].ts;
		k[i].i = i;
	}
	qsort(k, g->nsteps, sizeof *k, cmp_stepkey);
	m = k[(g->nsteps - 1) / 2].i;
	free(k);
	return m;
}

/* The host lanes, in drawing order: the step's host side top down, then
 * what it waits on. lane: the g->host list that feeds it, -1 none. */
enum { H_INPUT, H_OPS, H_LAUNCH, H_SYNC, H_COMM, NHOST };
static const struct {
	const char *name, *kind;
	int lane;
} host_lanes[NHOST] = {
	{ "data loading", "input", GAP_HOST_INPUT },
	{ "host operators", "host", GAP_HOST_OPS },
	{ "host launch calls", "launch", -1 },
	{ "host synchronize", "sync", -1 },
	{ "collectives", "communication", GAP_HOST_COMM },
};

/* The strip being drawn: its window [w0, w1), the host lanes, a device
 * lane per stream (filled as the activities are read in order). */
struct strip {
	int on;			/* there is a window */
	int64_t w0, w1;
	size_t m, ordinal;	/* the median step, its place by start */
	size_t ns;		/* streams: lanes NHOST.. */
	struct lane host[NHOST];
	struct lane *dl;	/* per stream */
	/* the lanes' spans: in each lane's array while they fit in the
	 * memory of a sort (held of sp.max), then all in sp (spilled) */
	struct pd_xsort sp;	/* struct strip_sp, by lane, start, end */
	size_t held;
	int spilled;
	int err;		/* the sort failed (sp.err) */
};

static struct lane *
strip_lane(struct strip *st, size_t id)
{
	return id < NHOST ? &st->host[id] : &st->dl[id - NHOST];
}

/* [ts, end) of lane id into the sort. */
static void
sp_add(struct strip *st, size_t id, int64_t ts, int64_t end)
{
	struct strip_sp *x;

	if (!(x = pd_xsort_slot(&st->sp))) {
		st->err = 1;
		return;
	}
	memset(x, 0, sizeof *x);
	x->ts = ts;
	x->end = end;
	x->lane = (uint32_t)id;
}

static void strip_spill(struct strip *st);

/* A span of lane id in the window: counted, and kept in the lane's array
 * while all the lanes' spans fit in what a sort holds in memory; past
 * that, every lane's spans go to the sort, and the later ones after
 * them. */
static void
strip_keep(struct strip *st, size_t id, int64_t ts, int64_t end)
{
	struct lane *l = strip_lane(st, id);

	l->count++;
	if (!st->spilled && st->held < st->sp.max) {
		span_push(&l->v, &l->n, &l->cap, ts, end - ts);
		st->held++;
		return;
	}
	if (!st->spilled)
		strip_spill(st);
	sp_add(st, id, ts, end);
}

/* A span on lane id (host lanes first, then one a stream), clipped to
 * the window as lane_add does (most spans are outside it: tested here,
 * inline), then kept. */
static inline void
strip_put(struct strip *st, size_t id, int64_t ts, int64_t end)
{
	if (clip(&ts, &end, st->w0, st->w1))
		strip_keep(st, id, ts, end);
}

/* Every lane's spans from its array into the sort. */
static void
strip_spill(struct strip *st)
{
	size_t i, j;

	for (i = 0; i < NHOST + st->ns; i++) {
		struct lane *m = strip_lane(st, i);

		for (j = 0; j < m->n; j++)
			sp_add(st, i, m->v[j].ts, m->v[j].end);
		free(m->v);
		m->v = NULL;
		m->n = m->cap = 0;
	}
	st->spilled = 1;
}

/* The window: the median step, else the span of the activities; none
 * when there are neither or it is empty. */
static void
strip_init(struct gaps *g, struct strip *st)
{
	size_t i;

	memset(st, 0, sizeof *st);
	pd_xsort_init(&st->sp, sizeof(struct strip_sp), cmp_sp);
	pd_xsort_set_sort(&st->sp, sort_sps_any);
	if (g->nsteps) {
		st->m = median_step(g);
		st->w0 = g->steps[st->m].ts, st->w1 = g->steps[st->m].end;
		for (i = 0; i < g->nsteps; i++)
			if (g->steps[i].ts < st->w0 || (g->steps[i].ts == st->w0 &&
			    i <= st->m))
				st->ordinal++;
	} else if (g->nact) {
		st->w0 = g->first, st->w1 = g->lastend;
	} else
		return;
	if (st->w1 <= st->w0)
		return;
	st->on = 1;
	for (i = 0; i < NHOST; i++) {
		st->host[i].kind = host_lanes[i].kind;
		strcpy(st->host[i].name, host_lanes[i].name);
	}
	st->ns = g->ns;
	st->dl = pd_xrealloc(NULL, (g->ns ? g->ns : 1) * sizeof *st->dl);
	memset(st->dl, 0, (g->ns ? g->ns : 1) * sizeof *st->dl);
	for (i = 0; i < g->ns; i++)
		st->dl[i].stream = i;
}

/* Activity a on the strip: its span on its stream's lane, its launch
 * call's start on the launch lane. */
static void
strip_add(struct strip *st, const struct gap_rec *a)
{
	if (!st->on)
		return;
	strip_put(st, NHOST + a->stream, a->ts, a->end);
	if (a->lts != GAP_NONE)
		strip_put(st, H_LAUNCH, a->lts, a->lts);
}

/* Stream si's lane, all its activities in: less its wait tasks; 0 when
 * nothing of it is in the window. */
static int
device_lane(const struct gaps *g, struct strip *st, size_t si,
    struct lane *l, int64_t res)
{
	const struct gap_stream *s = &g->s[si];
	struct lane w;
	size_t j;

	if (!l->count)
		return 0;
	l->kind = s->comm_ns * 2 > s->all_ns || comm_named(g, s) ?
	    "communication" : "device";
	if (s->dev_known)
		snprintf(l->name, sizeof l->name, "device %lld stream %lld",
		    (long long)s->dev, (long long)s->id);
	else
		snprintf(l->name, sizeof l->name, "stream %lld",
		    (long long)s->id);
	memset(&w, 0, sizeof w);
	for (j = 0; j < g->nwaits; j++)
		if (g->waits[j].stream == si)
			lane_add(&w, g->waits[j].ts, g->waits[j].end, st->w0,
			    st->w1);
	lane_union(&w);
	lane_fill(st->spilled ? &st->sp : NULL, l, (uint32_t)(NHOST + si),
	    w.n ? &w : NULL, res);
	l->wait = w.busy;
	free(w.v);
	return 1;
}

static json_t *
strip_json(struct gaps *g, struct strip *st)
{
	struct lane *host = st->host, *dl = st->dl;
	json_t *o, *lanes;
	int64_t w0 = st->w0, w1 = st->w1, res;
	size_t i, nd = 0, kept;

	if (!st->on)
		return json_null();
	if (st->err || (st->spilled && pd_xsort_finish(&st->sp) < 0))
		return NULL;
	res = (w1 - w0) / GAP_STRIP_FINE;
	if (res < 1)
		res = 1;
	/* the lanes in the sort's order: the host lanes, then the streams */
	for (i = 0; i < NHOST; i++) {
		host[i].wait = -1;
		lane_fill(st->spilled ? &st->sp : NULL, &host[i], (uint32_t)i,
		    NULL, res);
	}
	for (i = 0; i < g->ns; i++) {
		struct lane l = dl[i];

		dl[i].v = NULL;
		if (device_lane(g, st, i, &l, res))
			dl[nd++] = l;
		else
			free(l.v);
	}
	if (st->sp.err)
		return NULL;
	qsort(dl, nd, sizeof *dl, cmp_lane_busy);
	kept = nd < GAP_STRIP_LANES ? nd : GAP_STRIP_LANES;
	cmp_g = g;
	qsort(dl, kept, sizeof *dl, cmp_lane_stream);
	cmp_g = NULL;
	o = json_object();
	pd_set_str(o, "window", g->nsteps ? "median step" : "trace");
	if (g->nsteps) {
		pd_set_int(o, "step", (int64_t)st->ordinal);
		pd_set_int(o, "steps", (int64_t)g->nsteps);
		if (g->stepnum[st->m] >= 0)
			pd_set_int(o, "step_num", g->stepnum[st->m]);
		else
			pd_set_null(o, "step_num");
	} else {
		pd_set_null(o, "step");
		pd_set_null(o, "step_num");
		pd_set_null(o, "steps");
	}
	pd_set_int(o, "start_ns", w0);
	pd_set_real(o, "dur_us", us(w1 - w0), 3);
	lanes = json_array();
	for (i = 0; i < NHOST; i++)
		if (host[i].n)
			json_array_append_new(lanes, lane_json(&host[i], w0));
	for (i = 0; i < kept; i++)
		json_array_append_new(lanes, lane_json(&dl[i], w0));
	pd_set(o, "lanes", lanes);
	pd_set_int(o, "lanes_left_out", (int64_t)(nd - kept));
	for (i = 0; i < nd; i++) {
		free(dl[i].v);
		dl[i].v = NULL;
	}
	return o;
}

static void
strip_free(struct strip *st, size_t ns)
{
	size_t i;

	for (i = 0; i < NHOST; i++)
		free(st->host[i].v);
	for (i = 0; st->dl && i < ns; i++)
		free(st->dl[i].v);
	free(st->dl);
	pd_xsort_free(&st->sp);
}

/* Whether t is inside a step: the steps' starts in order, each with the
 * largest end up to it. */
struct stepidx {
	int64_t *start, *maxend;
	size_t n;
};

static void
stepidx_init(struct stepidx *x, const struct gaps *g)
{
	struct gap_span *v = pd_xrealloc(NULL, (g->nsteps + 1) * sizeof *v);
	size_t i;

	memcpy(v, g->steps, g->nsteps * sizeof *v);
	qsort(v, g->nsteps, sizeof *v, cmp_span);
	x->n = g->nsteps;
	x->start = pd_xrealloc(NULL, (x->n + 1) * sizeof *x->start);
	x->maxend = pd_xrealloc(NULL, (x->n + 1) * sizeof *x->maxend);
	for (i = 0; i < x->n; i++) {
		x->start[i] = v[i].ts;
		x->maxend[i] = i && x->maxend[i - 1] > v[i].end ?
		    x->maxend[i - 1] : v[i].end;
	}
	free(v);
}

static int
stepidx_in(const struct stepidx *x, int64_t t)
{
	size_t lo = 0, hi = x->n;

	while (lo < hi) {	/* the first start > t */
		size_t mid = lo + (hi - lo) / 2;

		if (x->start[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && x->maxend[lo - 1] > t;
}

/* Reading the host log back: synchronize calls inside steps, the strip's
 * host lanes. */
struct replay {
	struct gaps *g;
	struct strip *st;
	struct stepidx steps;
	int64_t prev, nsync;
};

static const unsigned char *
replay_one(const unsigned char *p, const unsigned char *end, void *ctx)
{
	struct replay *r = ctx;
	int tag = *p++, i;
	int64_t ts = pd_spill_get_d(&p, end, r->prev);
	int64_t e = ts + (int64_t)pd_spill_get_u(&p, end);

	r->prev = ts;
	if (tag == LOG_SYNC) {
		if (r->steps.n && stepidx_in(&r->steps, ts)) {
			r->nsync++;
			r->g->sync_ns += e - ts;
		}
		if (r->st->on)
			strip_put(r->st, H_SYNC, ts, e);
		return p;
	}
	for (i = 0; r->st->on && i < NHOST; i++)
		if (host_lanes[i].lane == tag)
			strip_put(r->st, (size_t)i, ts, e);
	return p;
}

/* The pass over the activities in order. */
struct pass {
	struct sstate *t;	/* per stream */
	struct usweep all, *dev;	/* per device */
	int64_t *devv;		/* the devices' values */
	size_t ndev;
	struct pd_xtop large;
	int64_t nlarge, unlinked;
	struct chunks ck;
};

static void
pass_init(struct gaps *g, struct pass *ps, int topn)
{
	size_t i, j;

	memset(ps, 0, sizeof *ps);
	ps->t = pd_xrealloc(NULL, (g->ns + 1) * sizeof *ps->t);
	memset(ps->t, 0, (g->ns + 1) * sizeof *ps->t);
	ps->dev = pd_xrealloc(NULL, (g->ns + 1) * sizeof *ps->dev);
	memset(ps->dev, 0, (g->ns + 1) * sizeof *ps->dev);
	ps->devv = pd_xrealloc(NULL, (g->ns + 1) * sizeof *ps->devv);
	/* devices in the order of their first stream */
	for (i = 0; i < g->ns; i++) {
		for (j = 0; j < ps->ndev; j++)
			if (ps->devv[j] == g->s[i].dev)
				break;
		if (j == ps->ndev)
			ps->devv[ps->ndev++] = g->s[i].dev;
		ps->t[i].dev = j;
	}
	pd_xtop_init(&ps->large, sizeof(struct large), (size_t)topn,
	    cmp_large);
	chunks_init(&ps->ck, g->first, g->lastend);
}

static void
pass_free(struct pass *ps)
{
	free(ps->t);
	free(ps->dev);
	free(ps->devv);
	pd_xtop_free(&ps->large);
}

static void
pass_one(struct gaps *g, struct pass *ps, const struct gap_rec *a)
{
	struct sstate *t = &ps->t[a->stream];
	int64_t gap;

	stream_step(t, a);
	if (a->kind == 1)
		queue_step(t, -1);
	if (!a->kind)
		ps->unlinked++;
	usweep_step(&ps->all, a);
	gap = usweep_step(&ps->dev[t->dev], a);
	if (gap > GAP_LARGE_NS) {
		struct large l;

		memset(&l, 0, sizeof l);
		l.dur = gap;
		l.start = a->ts - gap;
		l.dev = g->s[a->stream].dev;
		l.devi = t->dev;
		l.seq = (uint64_t)ps->nlarge++;
		l.dev_known = g->s[a->stream].dev_known;
		pd_xtop_add(&ps->large, &l);
	}
	chunks_add(&ps->ck, a);
}

/* Read the activities in order, the launch starts merged in before the
 * activities that start at or after them. -1 after an I/O error. */
static int
pass_run(struct gaps *g, struct pass *ps, struct strip *st)
{
	const struct gap_rec *a;
	const struct gap_lq *q;

	if (pd_xsort_finish(&g->acts) < 0 || pd_xsort_finish(&g->lq) < 0)
		goto fail;
	while ((a = pd_xsort_peek(&g->acts))) {
		while ((q = pd_xsort_peek(&g->lq)) && q->lts <= a->ts) {
			queue_step(&ps->t[q->stream], 1);
			pd_xsort_next(&g->lq);
		}
		pass_one(g, ps, a);
		strip_add(st, a);
		pd_xsort_next(&g->acts);
	}
	while ((q = pd_xsort_peek(&g->lq))) {
		queue_step(&ps->t[q->stream], 1);
		pd_xsort_next(&g->lq);
	}
	if (!g->acts.err && !g->lq.err)
		return 0;
fail:
	io_check(g, &g->acts);
	io_check(g, &g->lq);
	return -1;
}

/* The activities still waiting for their launch call, unlinked; the last
 * span of each host lane. */
static void
flush_pending(struct gaps *g)
{
	size_t i;

	for (i = 0; i < g->link.cap; i++)
		if (g->link.e[i].tag == TAG_PEND) {
			struct gap_rec r;

			pend_rec(&g->link.e[i], &r);
			sort_add(g, &g->acts, &r);
		}
	pd_i64map_free(&g->link);
	for (i = 0; i < GAP_HOST_N; i++)
		if (g->hhave[i]) {
			log_span(g, (int)i, g->hlast[i].ts, g->hlast[i].end);
			g->hhave[i] = 0;
		}
}

int
gaps_fill(struct gaps *g, json_t *rec, int topn)
{
	json_t *streams = json_array(), *large = json_array(), *strip;
	struct strip st;
	struct pass ps;
	struct replay rp;
	size_t i, n;
	int rc = -1, e;

	flush_pending(g);
	strip_init(g, &st);
	pass_init(g, &ps, topn);
	memset(&rp, 0, sizeof rp);
	rp.g = g;
	rp.st = &st;
	if (g->nsteps)
		stepidx_init(&rp.steps, g);
	e = pd_spill_each(&g->hlog, LOG_MAX, replay_one, &rp);
	free(rp.steps.start);
	free(rp.steps.maxend);
	if (e) {
		if (!g->ioerr)
			g->ioerr = e;
		goto out;
	}
	if (g->ioerr || delay_fill(g) < 0 || pass_run(g, &ps, &st) < 0)
		goto out;
	for (i = 0; i < g->ns; i++)
		json_array_append_new(streams, stream_json(&g->s[i], &ps.t[i]));
	n = pd_xtop_finish(&ps.large);
	for (i = 0; i < n; i++)
		json_array_append_new(large, large_json((const struct large *)
		    (void *)(ps.large.buf + i * sizeof(struct large))));
	if (g->nact) {
		int64_t first = g->first, last = g->lastend, busy = ps.all.busy;

		pd_set_real(rec, "span_us", us(last - first), 3);
		pd_set_real(rec, "busy_us", us(busy), 3);
		pd_set_real(rec, "idle_us", us(last - first - busy), 3);
		pd_set_real(rec, "idle_ratio", last > first ?
		    (double)(last - first - busy) / (double)(last - first) : 0, 4);
	} else {
		pd_set_null(rec, "span_us");
		pd_set_null(rec, "busy_us");
		pd_set_null(rec, "idle_us");
		pd_set_null(rec, "idle_ratio");
	}
	pd_set(rec, "streams", sorted_top(streams, 1 << 30, cmp_stream));
	pd_set(rec, "large_gaps", large);
	pd_set(rec, "low_util_chunks", g->nact ? chunks_json(&ps.ck) :
	    json_array());
	pd_set(rec, "launch", launch_json(g, ps.unlinked));
	if (g->nsteps)
		pd_set_int(rec, "sync_in_step", rp.nsync);
	else
		pd_set_null(rec, "sync_in_step");
	if (g->nact && !g->no_pageable)
		pd_set_int(rec, "pageable_memcpy", g->pageable_n);
	else
		pd_set_null(rec, "pageable_memcpy");
	/* extra keys (documented in pd-record.5) */
	pd_set_int(rec, "large_gaps_total", ps.nlarge);
	pd_set_int(rec, "sync_calls", (int64_t)g->nsyncs);
	if (g->nsteps)
		pd_set_real(rec, "sync_in_step_us", us(g->sync_ns), 3);
	else
		pd_set_null(rec, "sync_in_step_us");
	if (g->nact && !g->no_pageable)
		pd_set_real(rec, "pageable_memcpy_us", us(g->pageable_ns), 3);
	else
		pd_set_null(rec, "pageable_memcpy_us");
	pd_set_int(rec, "steps", (int64_t)g->nsteps);
	if (!(strip = strip_json(g, &st))) {
		io_check(g, &st.sp);
		if (!g->ioerr)
			g->ioerr = EIO;
		goto out;
	}
	pd_set(rec, "strip", strip);
	streams = large = NULL;
	rc = 0;
out:
	json_decref(streams);
	json_decref(large);
	strip_free(&st, g->ns);
	pass_free(&ps);
	return rc;
}
