/* pd-sum-gaps: device idle time, launch statistics and queue length from
 * activities fed by a family reader (see gapcore.h). */
#include "gapcore.h"
#include "pd_diag.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pd_rec.h"

enum { TAG_RT = 1, TAG_PEND = 2 };

void
gaps_init(struct gaps *g)
{
	memset(g, 0, sizeof *g);
}

void
gaps_free(struct gaps *g)
{
	size_t i;

	for (i = 0; i < g->ns; i++) {
		free(g->s[i].a);
		free(g->s[i].w);
	}
	free(g->s);
	free(g->steps);
	free(g->stepnum);
	free(g->waits);
	free(g->comm_ids);
	free(g->syncs);
	for (i = 0; i < GAP_HOST_N; i++)
		free(g->host[i].v);
	free(g->d);
	free(g->dw);
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
	s = &g->s[g->ns];
	memset(s, 0, sizeof *s);
	s->dev = dev, s->dev_known = dev_known, s->id = id;
	return g->last = g->ns++;
}

static int
act_kind(const struct gap_stream *s, const struct gap_act *a)
{
	int k = (int)(a->dk >> 30);

	return k == GAP_WIDE ? s->w[(uint32_t)a->loff].kind : k;
}

static int64_t
act_end(const struct gap_stream *s, const struct gap_act *a)
{
	if (a->dk >> 30 == GAP_WIDE)
		return s->w[(uint32_t)a->loff].end;
	return a->ts + (int64_t)(a->dk & GAP_DUR_MAX);
}

/* start of the launch call; GAP_NONE when not linked */
static int64_t
act_lts(const struct gap_stream *s, const struct gap_act *a)
{
	int k = (int)(a->dk >> 30);

	if (k == GAP_WIDE)
		return s->w[(uint32_t)a->loff].lts;
	return k ? a->ts - a->loff : GAP_NONE;
}

/* Store end and the launch call (start lts, link kind; kind 0: none) of a,
 * compact when they fit, else in the wide table. end >= a->ts. */
static void
act_store(struct gap_stream *s, struct gap_act *a, int64_t end, int64_t lts,
    int kind)
{
	struct gap_wide *w;
	int64_t off = kind ? a->ts - lts : 0;

	if (a->dk >> 30 != GAP_WIDE && end - a->ts <= (int64_t)GAP_DUR_MAX &&
	    off >= INT32_MIN && off <= INT32_MAX) {
		a->dk = (uint32_t)kind << 30 | (uint32_t)(end - a->ts);
		a->loff = (int32_t)off;
		return;
	}
	if (a->dk >> 30 != GAP_WIDE) {
		if (s->nw == s->capw) {
			s->capw = s->capw ? s->capw * 2 : 16;
			s->w = pd_xrealloc(s->w, s->capw * sizeof *s->w);
		}
		if (s->nw > INT32_MAX)
			pd_oom();
		a->dk = (uint32_t)GAP_WIDE << 30;
		a->loff = (int32_t)s->nw++;
	}
	w = &s->w[(uint32_t)a->loff];
	w->end = end;
	w->lts = kind ? lts : GAP_NONE;
	w->kind = kind;
}

/* HTA kernel launch statistics, counted when an activity (ts, end) is
 * linked one to one to its launch call (lts, lend). */
static void
launch_count(struct gaps *g, int64_t ts, int64_t end, int64_t lts,
    int64_t lend)
{
	int64_t cpu = lend - lts, gpu = end - ts, delay = ts - lend;

	if (delay < 0)
		delay = 0;
	g->ln++;
	if (cpu <= GAP_SHORT_CPU_NS && gpu < cpu)
		g->lshort++;
	if (cpu > GAP_SHORT_CPU_NS)
		g->loutl++;
	if (delay > GAP_DELAY_NS)
		g->ldelayed++;
	if (delay <= (int64_t)UINT32_MAX) {
		if (g->nd == g->capd) {
			g->capd = g->capd ? g->capd * 2 : 256;
			g->d = pd_xrealloc(g->d, g->capd * sizeof *g->d);
		}
		g->d[g->nd++] = (uint32_t)delay;
	} else {
		if (g->ndw == g->capdw) {
			g->capdw = g->capdw ? g->capdw * 2 : 16;
			g->dw = pd_xrealloc(g->dw, g->capdw * sizeof *g->dw);
		}
		g->dw[g->ndw++] = delay;
	}
}

static void
link_act(struct gaps *g, struct gap_stream *s, struct gap_act *a,
    const struct pd_i64ent *rt)
{
	int64_t end = act_end(s, a);

	act_store(s, a, end, rt->v[0], rt->u ? 2 : 1);
	if (!rt->u)
		launch_count(g, a->ts, end, rt->v[0], rt->v[1]);
}

void
gaps_activity(struct gaps *g, int64_t dev, int dev_known, int64_t stream,
    int64_t ts, int64_t dur, int has_corr, int64_t corr, int flags)
{
	size_t si = stream_of(g, dev, dev_known, stream);
	struct gap_stream *s = &g->s[si];
	struct gap_act *a;
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
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->a = pd_xrealloc(s->a, s->cap * sizeof *s->a);
	}
	a = &s->a[s->n];
	a->ts = ts;
	a->dk = 0;
	act_store(s, a, ts + (dur > 0 ? dur : 0), 0, 0);
	if (has_corr) {
		if ((e = pd_i64map_get(&g->link, corr, TAG_RT))) {
			link_act(g, s, a, e);
			if (!e->u)
				pd_i64map_del(&g->link, e);
		} else {
			e = pd_i64map_put(&g->link, corr, TAG_PEND);
			e->v[0] = (int64_t)si;
			e->v[1] = (int64_t)s->n;
		}
	}
	s->n++;
}

void
gaps_launch(struct gaps *g, int64_t corr, int64_t ts, int64_t dur, int multi)
{
	struct pd_i64ent *e, rt;
	int found = 0;

	memset(&rt, 0, sizeof rt);
	rt.v[0] = ts;
	rt.v[1] = ts + (dur > 0 ? dur : 0);
	rt.u = multi ? 1 : 0;
	while ((e = pd_i64map_get(&g->link, corr, TAG_PEND))) {
		link_act(g, &g->s[e->v[0]], &g->s[e->v[0]].a[e->v[1]], &rt);
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

void
gaps_sync(struct gaps *g, int64_t ts, int64_t dur)
{
	span_push(&g->syncs, &g->nsyncs, &g->capsyncs, ts, dur);
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
	struct gap_lane *l = &g->host[lane];
	struct gap_span *last = l->n ? &l->v[l->n - 1] : NULL;

	if (last && ts >= last->ts && ts <= last->end) {
		if (ts + (dur > 0 ? dur : 0) > last->end)
			last->end = ts + (dur > 0 ? dur : 0);
		return;
	}
	span_push(&l->v, &l->n, &l->cap, ts, dur);
}

/* the stream being sorted (qsort has no context argument in C99) */
static const struct gap_stream *cmp_s;

static int
cmp_act(const void *x, const void *y)
{
	const struct gap_act *a = x, *b = y;
	int64_t ea, eb;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	ea = act_end(cmp_s, a), eb = act_end(cmp_s, b);
	return (ea > eb) - (ea < eb);
}

/* Sort the activities of s by start, then end; Kineto files are mostly
 * in order already, so check first. */
static void
sort_stream(struct gap_stream *s)
{
	size_t i;

	cmp_s = s;
	for (i = 1; i < s->n; i++)
		if (cmp_act(&s->a[i - 1], &s->a[i]) > 0)
			break;
	if (i < s->n)
		qsort(s->a, s->n, sizeof *s->a, cmp_act);
	cmp_s = NULL;
}

static int
cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* launch times are mostly in order already */
static void
sort_i64(int64_t *v, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (v[i - 1] > v[i])
			break;
	if (i < n)
		qsort(v, n, sizeof *v, cmp_i64);
}

static int
cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return (a > b) - (a < b);
}

/* LSD radix sort, 3 passes of 11 bits (a temporary copy of v). */
static void
sort_u32(uint32_t *v, size_t n)
{
	uint32_t *t, *src = v, *dst, *x;
	size_t cnt[2048], i, sum;
	int pass;

	if (n < 256) {
		if (n)
			qsort(v, n, sizeof *v, cmp_u32);
		return;
	}
	t = pd_xrealloc(NULL, n * sizeof *t);
	dst = t;
	for (pass = 0; pass < 3; pass++) {
		int sh = pass * 11;

		memset(cnt, 0, sizeof cnt);
		for (i = 0; i < n; i++)
			cnt[src[i] >> sh & 2047]++;
		for (i = 0, sum = 0; i < 2048; i++) {
			size_t c = cnt[i];

			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[src[i] >> sh & 2047]++] = src[i];
		x = src, src = dst, dst = x;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
	free(t);
}

static double
us(int64_t ns)
{
	return (double)ns / 1000.0;
}

/* Per-stream idle breakdown as HTA's idle time analysis: each gap between
 * the end of what ran before on the stream and the next activity goes
 * whole to host wait (the next launch call started after that end),
 * kernel wait (gap < 30 us) or other. */
static json_t *
stream_json(struct gap_stream *s)
{
	json_t *o = json_object();
	int64_t busy = 0, idle = 0, hw = 0, kw = 0, other = 0, maxend, cur;
	int64_t *lq, qlen = 0, qmax = 0;
	double qsum = 0;
	size_t i, j, nl = 0, nq = 0;
	int linked = 0;

	maxend = act_end(s, &s->a[0]);
	busy = maxend - s->a[0].ts;
	for (i = 0; i < s->n; i++)
		if (act_kind(s, &s->a[i]))
			linked = 1;
	for (i = 1; i < s->n; i++) {
		struct gap_act *a = &s->a[i];
		int64_t end = act_end(s, a);

		if (a->ts > maxend) {
			int64_t gap = a->ts - maxend;

			idle += gap;
			if (act_lts(s, a) != GAP_NONE && act_lts(s, a) > maxend)
				hw += gap;
			else if (gap < GAP_KERNEL_WAIT_NS)
				kw += gap;
			else
				other += gap;
			busy += end - a->ts;
			maxend = end;
		} else if (end > maxend) {
			busy += end - maxend;
			maxend = end;
		}
	}
	/* queue length: +1 at each launch, -1 when its activity starts */
	lq = pd_xrealloc(NULL, s->n * sizeof *lq);
	for (i = 0; i < s->n; i++)
		if (act_kind(s, &s->a[i]) == 1)
			lq[nl++] = act_lts(s, &s->a[i]);
	sort_i64(lq, nl);
	for (i = j = 0; i < nl || j < s->n;) {
		if (j < s->n && act_kind(s, &s->a[j]) != 1) {
			j++;
			continue;
		}
		if (i < nl && (j >= s->n || lq[i] <= s->a[j].ts))
			cur = 1, i++;
		else
			cur = -1, j++;
		qlen += cur;
		if (qlen > qmax)
			qmax = qlen;
		qsum += (double)qlen;
		nq++;
	}
	free(lq);

	pd_set_int(o, "stream", s->id);
	pd_set_real(o, "busy_us", us(busy), 3);
	pd_set_real(o, "idle_us", us(idle), 3);
	if (linked)
		pd_set_real(o, "host_wait_us", us(hw), 3);
	else
		pd_set_null(o, "host_wait_us");
	pd_set_real(o, "kernel_wait_us", us(kw), 3);
	pd_set_real(o, "other_us", us(other), 3);
	if (s->dev_known)
		pd_set_int(o, "device", s->dev);
	else
		pd_set_null(o, "device");
	pd_set_int(o, "activities", (int64_t)s->n);
	pd_set_real(o, "span_us", us(maxend - s->a[0].ts), 3);
	if (nq) {
		pd_set_int(o, "queue_max", qmax);
		pd_set_real(o, "queue_mean", qsum / (double)nq, 3);
	} else {
		pd_set_null(o, "queue_max");
		pd_set_null(o, "queue_mean");
	}
	return o;
}

/* Union of the activities of the streams accepted by want (all when
 * dev_only is 0): busy time, first start, last end; gaps longer than
 * GAP_LARGE_NS appended to large. A k-way merge of the sorted streams. */
static int64_t
sweep(struct gaps *g, int dev_only, int64_t dev, int64_t *first,
    int64_t *last, json_t *large, int64_t *nlarge)
{
	size_t *pos = pd_xrealloc(NULL, g->ns * sizeof *pos), i, best;
	int64_t busy = 0, maxend = GAP_NONE;
	int started = 0;

	memset(pos, 0, g->ns * sizeof *pos);
	*first = *last = GAP_NONE;
	for (;;) {
		struct gap_act *a;
		int64_t end;

		best = g->ns;
		for (i = 0; i < g->ns; i++) {
			if (dev_only && g->s[i].dev != dev)
				continue;
			if (pos[i] < g->s[i].n && (best == g->ns ||
			    g->s[i].a[pos[i]].ts < g->s[best].a[pos[best]].ts))
				best = i;
		}
		if (best == g->ns)
			break;
		a = &g->s[best].a[pos[best]++];
		end = act_end(&g->s[best], a);
		if (!started) {
			*first = a->ts;
			maxend = end;
			busy = end - a->ts;
			started = 1;
			continue;
		}
		if (a->ts > maxend) {
			if (large && a->ts - maxend > GAP_LARGE_NS) {
				json_t *o = json_object();

				pd_set_null(o, "stream");
				pd_set_int(o, "start_ns", maxend);
				pd_set_real(o, "dur_us", us(a->ts - maxend), 3);
				if (g->s[best].dev_known)
					pd_set_int(o, "device", dev);
				else
					pd_set_null(o, "device");
				json_array_append_new(large, o);
				(*nlarge)++;
			}
			busy += end - a->ts;
			maxend = end;
		} else if (end > maxend) {
			busy += end - maxend;
			maxend = end;
		}
	}
	*last = maxend;
	free(pos);
	return busy;
}

static int
cmp_gapjson(const void *x, const void *y)
{
	json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;
	double da = json_real_value(json_object_get(a, "dur_us"));
	double db = json_real_value(json_object_get(b, "dur_us"));
	json_int_t sa = json_integer_value(json_object_get(a, "start_ns"));
	json_int_t sb = json_integer_value(json_object_get(b, "start_ns"));

	if (da != db)
		return da > db ? -1 : 1;
	return (sa > sb) - (sa < sb);
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
static json_t *
chunks_json(struct gaps *g, int64_t first, int64_t last)
{
	int64_t len = last - first, b[GAP_CHUNKS + 1], in[GAP_CHUNKS];
	json_t *arr = json_array();
	size_t i, k;
	int c;

	if (len <= 0)
		return arr;
	for (c = 0; c <= GAP_CHUNKS; c++)
		b[c] = first + (len / GAP_CHUNKS) * c +
		    (len % GAP_CHUNKS) * c / GAP_CHUNKS;
	memset(in, 0, sizeof in);
	for (k = 0; k < g->ns; k++)
		for (i = 0; i < g->s[k].n; i++) {
			struct gap_act *a = &g->s[k].a[i];
			int64_t end = act_end(&g->s[k], a);

			c = (int)((double)(a->ts - first) / (double)len * GAP_CHUNKS);
			if (c >= GAP_CHUNKS)
				c = GAP_CHUNKS - 1;
			while (c > 0 && b[c] > a->ts)
				c--;
			while (c < GAP_CHUNKS - 1 && b[c + 1] <= a->ts)
				c++;
			for (; c < GAP_CHUNKS && b[c] < end; c++) {
				int64_t s = a->ts > b[c] ? a->ts : b[c];
				int64_t e = end < b[c + 1] ? end : b[c + 1];

				if (e > s)
					in[c] += e - s;
			}
		}
	for (c = 0; c < GAP_CHUNKS; c++) {
		double r;

		if (b[c + 1] <= b[c])
			continue;
		r = (double)in[c] / (double)(b[c + 1] - b[c]);
		if (r < GAP_LOW_UTIL) {
			json_t *o = json_object();

			pd_set_int(o, "index", c);
			pd_set_real(o, "util_ratio", r, 4);
			json_array_append_new(arr, o);
		}
	}
	return arr;
}

/* the i-th launch delay in increasing order (us); d and dw sorted */
static double
delay_at(const struct gaps *g, size_t i)
{
	return i < g->nd ? us((int64_t)g->d[i]) : us(g->dw[i - g->nd]);
}

/* pd_quantile_sorted over the launch delays */
static double
delay_quantile(const struct gaps *g, double q)
{
	size_t n = g->nd + g->ndw, i;
	double pos = q * (double)(n - 1), frac;

	i = (size_t)floor(pos);
	frac = pos - (double)i;
	if (i + 1 >= n)
		return delay_at(g, n - 1);
	return delay_at(g, i) + (delay_at(g, i + 1) - delay_at(g, i)) * frac;
}

/* The median and 90th percentile of the launch delays into g->p50 and
 * g->p90; the delays are freed (room for the queue pass). */
static void
delay_fill(struct gaps *g)
{
	if (g->ln) {
		sort_u32(g->d, g->nd);
		if (g->ndw)
			qsort(g->dw, g->ndw, sizeof *g->dw, cmp_i64);
		g->p50 = delay_quantile(g, 0.5);
		g->p90 = delay_quantile(g, 0.9);
	}
	free(g->d);
	free(g->dw);
	g->d = NULL, g->dw = NULL;
	g->nd = g->capd = g->ndw = g->capdw = 0;
}

/* HTA kernel launch statistics over activities linked one-to-one to their
 * launch call (counted by launch_count). */
static json_t *
launch_json(struct gaps *g)
{
	json_t *o = json_object();
	int64_t unlinked = 0;
	size_t k, i;

	for (k = 0; k < g->ns; k++)
		for (i = 0; i < g->s[k].n; i++)
			if (act_kind(&g->s[k], &g->s[k].a[i]) == 0)
				unlinked++;
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

static void
sync_fill(struct gaps *g, json_t *rec)
{
	int64_t n = 0, ns = 0;
	size_t i, j;

	if (!g->nsteps) {
		pd_set_null(rec, "sync_in_step");
		return;
	}
	for (i = 0; i < g->nsyncs; i++)
		for (j = 0; j < g->nsteps; j++)
			if (g->syncs[i].ts >= g->steps[j].ts &&
			    g->syncs[i].ts < g->steps[j].end) {
				n++;
				ns += g->syncs[i].end - g->syncs[i].ts;
				break;
			}
	pd_set_int(rec, "sync_in_step", n);
	g->sync_ns = ns;
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

/* [ts, end) clipped to [w0, w1), kept when it meets the window; zero
 * length spans (launch instants) are kept as points. */
static void
lane_add(struct lane *l, int64_t ts, int64_t end, int64_t w0, int64_t w1)
{
	if (end < ts || ts >= w1 || end < w0 || (end == w0 && end > ts))
		return;
	if (ts < w0)
		ts = w0;
	if (end > w1)
		end = w1;
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

/* Take the disjoint, sorted spans of w out of the disjoint, sorted spans
 * of l (a stream's wait tasks out of its activity); busy again. */
static void
lane_minus(struct lane *l, const struct lane *w)
{
	struct gap_span *out = NULL;
	size_t i, j = 0, n = 0, cap = 0;

	for (i = 0; i < l->n; i++) {
		int64_t a = l->v[i].ts, b = l->v[i].end;

		while (j < w->n && w->v[j].end <= a)
			j++;
		for (size_t k = j; k < w->n && w->v[k].ts < b; k++) {
			if (w->v[k].ts > a)
				span_push(&out, &n, &cap, a, w->v[k].ts - a);
			if (w->v[k].end > a)
				a = w->v[k].end;
		}
		if (a < b || (a == b && l->v[i].ts == b))
			span_push(&out, &n, &cap, a, b - a);
	}
	free(l->v);
	l->v = out, l->n = n, l->cap = cap;
	l->busy = 0;
	for (i = 0; i < n; i++)
		l->busy += out[i].end - out[i].ts;
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

/* Stream si's lane in [w0, w1): its activities less its wait tasks, their
 * launch calls' starts added to launch; 0 when nothing of it is there. */
static int
device_lane(const struct gaps *g, size_t si, struct lane *l,
    struct lane *launch, int64_t w0, int64_t w1)
{
	const struct gap_stream *s = &g->s[si];
	struct lane w;
	size_t j;

	memset(l, 0, sizeof *l);
	l->stream = si;
	for (j = 0; j < s->n; j++) {
		int64_t lts = act_lts(s, &s->a[j]);

		lane_add(l, s->a[j].ts, act_end(s, &s->a[j]), w0, w1);
		if (lts != GAP_NONE)
			lane_add(launch, lts, lts, w0, w1);
	}
	if (!l->n) {
		free(l->v);
		return 0;
	}
	l->kind = s->comm_ns * 2 > s->all_ns || comm_named(g, s) ?
	    "communication" : "device";
	if (s->dev_known)
		snprintf(l->name, sizeof l->name, "device %lld stream %lld",
		    (long long)s->dev, (long long)s->id);
	else
		snprintf(l->name, sizeof l->name, "stream %lld",
		    (long long)s->id);
	lane_union(l);
	memset(&w, 0, sizeof w);
	for (j = 0; j < g->nwaits; j++)
		if (g->waits[j].stream == si)
			lane_add(&w, g->waits[j].ts, g->waits[j].end, w0, w1);
	lane_union(&w);
	if (w.n)
		lane_minus(l, &w);
	l->wait = w.busy;
	free(w.v);
	return 1;
}

static json_t *
strip_json(struct gaps *g, int64_t first, int64_t last)
{
	struct lane host[NHOST], *dl;
	json_t *o, *lanes;
	int64_t w0, w1, res;
	size_t i, j, nd = 0, kept, ordinal = 0, m = 0;

	if (g->nsteps) {
		m = median_step(g);

		w0 = g->steps[m].ts, w1 = g->steps[m].end;
		for (i = 0; i < g->nsteps; i++)
			if (g->steps[i].ts < w0 || (g->steps[i].ts == w0 &&
			    i <= m))
				ordinal++;
	} else if (first != GAP_NONE) {
		w0 = first, w1 = last;
	} else
		return json_null();
	if (w1 <= w0)
		return json_null();
	res = (w1 - w0) / GAP_STRIP_FINE;
	if (res < 1)
		res = 1;
	memset(host, 0, sizeof host);
	for (i = 0; i < NHOST; i++) {
		host[i].kind = host_lanes[i].kind;
		strcpy(host[i].name, host_lanes[i].name);
	}
	dl = pd_xrealloc(NULL, (g->ns ? g->ns : 1) * sizeof *dl);
	for (i = 0; i < g->ns; i++)
		if (device_lane(g, i, &dl[nd], &host[H_LAUNCH], w0, w1))
			lane_draw(&dl[nd++], res);
	for (i = 0; i < g->nsyncs; i++)
		lane_add(&host[H_SYNC], g->syncs[i].ts, g->syncs[i].end, w0, w1);
	for (i = 0; i < NHOST; i++) {
		const struct gap_lane *gl = host_lanes[i].lane < 0 ? NULL :
		    &g->host[host_lanes[i].lane];

		for (j = 0; gl && j < gl->n; j++)
			lane_add(&host[i], gl->v[j].ts, gl->v[j].end, w0, w1);
		host[i].wait = -1;
		lane_union(&host[i]);
		lane_draw(&host[i], res);
	}
	qsort(dl, nd, sizeof *dl, cmp_lane_busy);
	kept = nd < GAP_STRIP_LANES ? nd : GAP_STRIP_LANES;
	cmp_g = g;
	qsort(dl, kept, sizeof *dl, cmp_lane_stream);
	cmp_g = NULL;
	o = json_object();
	pd_set_str(o, "window", g->nsteps ? "median step" : "trace");
	if (g->nsteps) {
		pd_set_int(o, "step", (int64_t)ordinal);
		pd_set_int(o, "steps", (int64_t)g->nsteps);
		if (g->stepnum[m] >= 0)
			pd_set_int(o, "step_num", g->stepnum[m]);
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
	for (i = 0; i < NHOST; i++)
		free(host[i].v);
	for (i = 0; i < nd; i++)
		free(dl[i].v);
	free(dl);
	return o;
}

void
gaps_fill(struct gaps *g, json_t *rec, int topn)
{
	json_t *streams = json_array(), *large = json_array();
	int64_t busy, first, last, nlarge = 0, nact = 0;
	size_t i, j;

	delay_fill(g);
	for (i = 0; i < g->ns; i++) {
		sort_stream(&g->s[i]);
		nact += (int64_t)g->s[i].n;
	}
	busy = sweep(g, 0, 0, &first, &last, NULL, NULL);
	for (i = 0; i < g->ns; i++) {
		for (j = 0; j < i; j++)
			if (g->s[j].dev == g->s[i].dev)
				break;
		if (j == i) {
			int64_t f, l;

			sweep(g, 1, g->s[i].dev, &f, &l, large, &nlarge);
		}
		json_array_append_new(streams, stream_json(&g->s[i]));
	}
	if (nact) {
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
	pd_set(rec, "large_gaps", sorted_top(large, topn, cmp_gapjson));
	pd_set(rec, "low_util_chunks", nact ? chunks_json(g, first, last) :
	    json_array());
	pd_set(rec, "launch", launch_json(g));
	sync_fill(g, rec);
	if (nact && !g->no_pageable)
		pd_set_int(rec, "pageable_memcpy", g->pageable_n);
	else
		pd_set_null(rec, "pageable_memcpy");
	/* extra keys (documented in pd-record.5) */
	pd_set_int(rec, "large_gaps_total", nlarge);
	pd_set_int(rec, "sync_calls", (int64_t)g->nsyncs);
	if (g->nsteps)
		pd_set_real(rec, "sync_in_step_us", us(g->sync_ns), 3);
	else
		pd_set_null(rec, "sync_in_step_us");
	if (nact && !g->no_pageable)
		pd_set_real(rec, "pageable_memcpy_us", us(g->pageable_ns), 3);
	else
		pd_set_null(rec, "pageable_memcpy_us");
	pd_set_int(rec, "steps", (int64_t)g->nsteps);
	pd_set(rec, "strip", strip_json(g, nact ? first : GAP_NONE, last));
}
