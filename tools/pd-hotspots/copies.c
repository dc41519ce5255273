/* Copies and memsets by kind, as HTA's memory_bw_summary groups them:
 * the kind is the event name before its " (Pinned -> Device)" part; the
 * bandwidth of an event is Kineto's own args "memory bandwidth (GB/s)"
 * (computed by the profiler from nanosecond times: HTA reads it too),
 * else bytes over the duration in ns (an Nsight Systems export, an older
 * trace).
 *
 * Overlap: each copy's time inside the union of the kernels (compute and
 * communication, any stream) of its device is overlapped, the rest is
 * exposed: the device moved data and computed nothing. The device of a
 * GPU event is its pid (Kineto's and the Nsight reader's GPU lanes).
 *
 * Memory stays flat with the trace: the kernels, the copies and the
 * bandwidths are sorted in bounded memory (pd_xsort), then read back once:
 * each device's kernels by start merge into its busy pieces, and a copy
 * (by start beside them) sums its time inside the pieces its span meets,
 * holding only the pieces from its start on; the bandwidths come back in
 * order, kind by kind, for pd_stats' mean, median, min and max. */
#include "copies.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_ivl.h"
#include "pd_kineto.h"
#include "pd_rec.h"
#include "pd_stats.h"

/* A kernel or a copy on a device's timeline (kind: the copy's; 0 for a
 * kernel), and a copy's bandwidth. Equal records are the same record:
 * the sorts' orders are total. */
struct span {
	int64_t s, e;
	uint32_t dev, kind;
};

struct bwrec {
	double bw;
	uint32_t kind, pad;
};

static int
span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	if (x->e != y->e)
		return x->e < y->e ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

static int
bw_cmp(const void *a, const void *b)
{
	const struct bwrec *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return (x->bw > y->bw) - (x->bw < y->bw);
}

static void
setup(struct copies *c)
{
	if (c->init)
		return;
	pd_xsort_init(&c->ks, sizeof(struct span), span_cmp);
	pd_xsort_init(&c->cs, sizeof(struct span), span_cmp);
	pd_xsort_init(&c->bs, sizeof(struct bwrec), bw_cmp);
	c->init = 1;
}

/* Room for a record in x, NULL after a temporary file failed (noted). */
static void *
slot(struct copies *c, struct pd_xsort *x)
{
	void *r;

	if (c->err)
		return NULL;
	if (!(r = pd_xsort_slot(x)))
		c->err = x->err ? x->err : EIO;
	return r;
}

static struct copy_kind *
kind_of(struct copies *c, const char *name)
{
	const char *p = strstr(name, " (");
	size_t len = p ? (size_t)(p - name) : strlen(name), i;
	struct copy_kind *k;

	if (len >= sizeof c->k->name)
		len = sizeof c->k->name - 1;
	for (i = 0; i < c->n; i++)
		if (strlen(c->k[i].name) == len &&
		    !memcmp(c->k[i].name, name, len))
			return &c->k[i];
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 4;
		c->k = pd_xrealloc(c->k, c->cap * sizeof *c->k);
	}
	k = &c->k[c->n++];
	memset(k, 0, sizeof *k);
	memcpy(k->name, name, len);
	k->name[len] = '\0';
	return k;
}

static uint32_t
dev_of(struct copies *c, const struct pd_ev *ev)
{
	int64_t id = pd_ev_pid_key(ev);
	size_t i;

	for (i = c->ndev; i > 0; i--)	/* few devices: the last one first */
		if (c->dev[i - 1] == id)
			return (uint32_t)(i - 1);
	if (c->ndev == c->capdev) {
		c->capdev = c->capdev ? c->capdev * 2 : 4;
		c->dev = pd_xrealloc(c->dev, c->capdev * sizeof *c->dev);
	}
	c->dev[c->ndev] = id;
	return (uint32_t)c->ndev++;
}

void
copies_kernel(struct copies *c, const struct pd_ev *ev)
{
	struct span *p;

	if (ev->dur_ns <= 0)
		return;
	setup(c);
	if ((p = slot(c, &c->ks)))
		*p = (struct span){ ev->ts_ns, ev->ts_ns + ev->dur_ns,
		    dev_of(c, ev), 0 };
}

void
copies_add(struct copies *c, const struct pd_ev *ev)
{
	struct copy_kind *k = kind_of(c, ev->name);
	int64_t bytes = -1, ns = ev->dur_ns > 0 ? ev->dur_ns : 0;
	struct span *p;
	struct bwrec *b;
	double bw;

	setup(c);
	if (!k->count)
		k->memcpy = pd_kineto_class(ev) == PD_KC_MEMCPY;
	k->count++;
	k->total_ns += ns;
	if (strstr(ev->name, "Pageable")) {
		k->pageable++;
		k->pageable_ns += ns;
	} else if (strstr(ev->name, "Pinned")) {
		k->pinned++;
		k->pinned_ns += ns;
	}
	if (ns > 0 && (p = slot(c, &c->cs)))
		*p = (struct span){ ev->ts_ns, ev->ts_ns + ns, dev_of(c, ev),
		    (uint32_t)(k - c->k) };
	if (pd_ev_arg_int(ev, "bytes", &bytes) && bytes >= 0)
		k->bytes += bytes;
	if (!pd_ev_arg_double(ev, "memory bandwidth (GB/s)", &bw)) {
		if (bytes < 0 || ev->dur_ns <= 0)
			return;
		bw = (double)bytes / (double)ev->dur_ns;	/* B/ns = GB/s */
	}
	if ((b = slot(c, &c->bs)))
		*b = (struct bwrec){ bw, (uint32_t)(k - c->k), 0 };
	k->with_bw++;
}

/* The busy pieces of one device, read from the kernels sorted by device
 * and start, and the pieces a copy may still meet. */
struct busy {
	struct pd_xsort *ks;
	uint32_t dev;
	int done;		/* no more pieces for dev */
	struct pd_span *q;	/* pieces, by start, from qh on */
	size_t qh, qn, qcap;
};

/* The next piece of b->dev into the queue; 0 when there is none. */
static int
busy_next(struct busy *b)
{
	const struct span *k;
	struct pd_span cur;

	while ((k = pd_xsort_peek(b->ks)) && k->dev < b->dev)
		pd_xsort_next(b->ks);	/* a device without copies */
	if (!k || k->dev != b->dev) {
		b->done = 1;
		return 0;
	}
	cur.s = k->s;
	cur.e = k->e;
	pd_xsort_next(b->ks);
	while ((k = pd_xsort_peek(b->ks)) && k->dev == b->dev &&
	    k->s <= cur.e) {
		if (k->e > cur.e)
			cur.e = k->e;
		pd_xsort_next(b->ks);
	}
	if (b->qh == b->qn) {
		b->qh = b->qn = 0;
	} else if (b->qn == b->qcap && b->qh) {
		memmove(b->q, b->q + b->qh, (b->qn - b->qh) * sizeof *b->q);
		b->qn -= b->qh;
		b->qh = 0;
	}
	if (b->qn == b->qcap) {
		b->qcap = b->qcap ? b->qcap * 2 : 64;
		b->q = pd_xrealloc(b->q, b->qcap * sizeof *b->q);
	}
	b->q[b->qn++] = cur;
	return 1;
}

/* The time of [s, e) on dev's busy pieces: s never less than the last
 * call's for the device. */
static int64_t
busy_in(struct busy *b, uint32_t dev, int64_t s, int64_t e)
{
	int64_t sum = 0;
	size_t i;

	if (dev != b->dev) {
		b->dev = dev;
		b->done = 0;
		b->qh = b->qn = 0;
	}
	while (b->qh < b->qn && b->q[b->qh].e <= s)
		b->qh++;	/* ends before this copy and all later ones */
	while (!b->done && (b->qh == b->qn || b->q[b->qn - 1].s < e))
		busy_next(b);
	for (i = b->qh; i < b->qn && b->q[i].s < e; i++) {
		int64_t a = b->q[i].s > s ? b->q[i].s : s;
		int64_t z = b->q[i].e < e ? b->q[i].e : e;

		if (z > a)
			sum += z - a;
	}
	return sum;
}

/* Each kind's bandwidths, in order: pd_stats' mean (summed in that
 * order), median, min and max. */
static void
bw_stats(struct copies *c)
{
	const struct bwrec *r;
	size_t i;

	while ((r = pd_xsort_peek(&c->bs))) {
		struct copy_kind *k = &c->k[r->kind];
		uint32_t kind = r->kind;
		struct pd_squant med;
		double sum = 0;

		pd_squant_init(&med, (size_t)k->with_bw, 0.5);
		k->bw_min = r->bw;
		for (i = 0; (r = pd_xsort_peek(&c->bs)) && r->kind == kind;
		    i++) {
			sum += r->bw;
			pd_squant_see(&med, i, r->bw);
			k->bw_max = r->bw;
			pd_xsort_next(&c->bs);
		}
		k->bw_mean = sum / (double)i;
		k->bw_median = pd_squant_value(&med);
	}
}

/* The first error of the three sorts, else 0. */
static int
sorts_err(const struct copies *c)
{
	return c->ks.err ? c->ks.err : c->cs.err ? c->cs.err : c->bs.err;
}

int
copies_finish(struct copies *c)
{
	struct busy b;
	const struct span *p;
	size_t i;

	for (i = 0; i < c->n; i++)
		c->k[i].overlap_ns = 0;
	if (!c->init || c->err)
		return c->err;
	if (pd_xsort_finish(&c->ks) < 0 || pd_xsort_finish(&c->cs) < 0 ||
	    pd_xsort_finish(&c->bs) < 0)
		return c->err = sorts_err(c) ? sorts_err(c) : EIO;
	memset(&b, 0, sizeof b);
	b.ks = &c->ks;
	b.dev = UINT32_MAX;
	while ((p = pd_xsort_peek(&c->cs))) {
		c->k[p->kind].overlap_ns += busy_in(&b, p->dev, p->s, p->e);
		pd_xsort_next(&c->cs);
	}
	free(b.q);
	bw_stats(c);
	return c->err = sorts_err(c);
}

static double
ratio(int64_t part, int64_t whole)
{
	return whole > 0 ? (double)part / (double)whole : 0;
}

/* overlapped_us, exposed_us and exposed_ratio of total_ns of copies,
 * overlap_ns of it beside kernels; null when the spans were not all kept
 * (err). */
static void
set_overlap(json_t *o, int64_t total_ns, int64_t overlap_ns, int err)
{
	if (err) {
		pd_set_null(o, "overlapped_us");
		pd_set_null(o, "exposed_us");
		pd_set_null(o, "exposed_ratio");
		return;
	}
	pd_set_real(o, "overlapped_us", (double)overlap_ns / 1e3, 3);
	pd_set_real(o, "exposed_us", (double)(total_ns - overlap_ns) / 1e3, 3);
	pd_set_real(o, "exposed_ratio", ratio(total_ns - overlap_ns,
	    total_ns), 4);
}

static int
by_time(const void *a, const void *b)
{
	const struct copy_kind *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

json_t *
copies_json(const struct copies *c)
{
	struct copy_kind *v = pd_xcalloc(c->n, sizeof *v);
	json_t *a = json_array();
	size_t i;

	if (c->n) {	/* no kinds: c->k is NULL */
		memcpy(v, c->k, c->n * sizeof *v);
		qsort(v, c->n, sizeof *v, by_time);
	}
	for (i = 0; i < c->n; i++) {
		json_t *o = json_object();

		pd_set_str(o, "kind", v[i].name);
		pd_set_int(o, "count", v[i].count);
		pd_set_int(o, "bytes", v[i].bytes);
		pd_set_real(o, "total_us", (double)v[i].total_ns / 1e3, 3);
		pd_set_int(o, "pageable", v[i].pageable);
		if (v[i].with_bw && !c->err) {
			pd_set_real(o, "bw_gbps_mean", v[i].bw_mean, 6);
			pd_set_real(o, "bw_gbps_median", v[i].bw_median, 6);
			pd_set_real(o, "bw_gbps_min", v[i].bw_min, 6);
			pd_set_real(o, "bw_gbps_max", v[i].bw_max, 6);
		} else {
			pd_set_null(o, "bw_gbps_mean");
			pd_set_null(o, "bw_gbps_median");
			pd_set_null(o, "bw_gbps_min");
			pd_set_null(o, "bw_gbps_max");
		}
		pd_set_int(o, "pinned", v[i].pinned);
		pd_set_real(o, "pageable_us", (double)v[i].pageable_ns / 1e3, 3);
		pd_set_real(o, "pinned_us", (double)v[i].pinned_ns / 1e3, 3);
		set_overlap(o, v[i].total_ns, v[i].overlap_ns, c->err);
		json_array_append_new(a, o);
	}
	free(v);
	return a;
}

json_t *
copies_overlap_json(const struct copies *c)
{
	int64_t n = 0, ns = 0, ov = 0;
	json_t *o;
	size_t i;

	for (i = 0; i < c->n; i++) {
		if (!c->k[i].memcpy)
			continue;
		n += c->k[i].count;
		ns += c->k[i].total_ns;
		ov += c->k[i].overlap_ns;
	}
	if (!n)
		return json_null();
	o = json_object();
	pd_set_int(o, "copies", n);
	pd_set_real(o, "total_us", (double)ns / 1e3, 3);
	set_overlap(o, ns, ov, c->err);
	return o;
}

void
copies_free(struct copies *c)
{
	free(c->k);
	free(c->dev);
	if (c->init) {
		pd_xsort_free(&c->ks);
		pd_xsort_free(&c->cs);
		pd_xsort_free(&c->bs);
	}
	memset(c, 0, sizeof *c);
}
