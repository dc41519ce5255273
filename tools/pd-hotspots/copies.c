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
 * Memory: one span per copy and the union of each device's kernels. */
#include "copies.h"

#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_kineto.h"
#include "pd_rec.h"

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
		if (c->dev[i - 1].id == id)
			return (uint32_t)(i - 1);
	if (c->ndev == c->capdev) {
		c->capdev = c->capdev ? c->capdev * 2 : 4;
		c->dev = pd_xrealloc(c->dev, c->capdev * sizeof *c->dev);
	}
	memset(&c->dev[c->ndev], 0, sizeof *c->dev);
	c->dev[c->ndev].id = id;
	return (uint32_t)c->ndev++;
}

void
copies_kernel(struct copies *c, const struct pd_ev *ev)
{
	uint32_t d;

	if (ev->dur_ns <= 0)
		return;
	d = dev_of(c, ev);	/* may move c->dev */
	pd_ivl_add(&c->dev[d].busy, ev->ts_ns, ev->ts_ns + ev->dur_ns);
}

void
copies_add(struct copies *c, const struct pd_ev *ev)
{
	struct copy_kind *k = kind_of(c, ev->name);
	int64_t bytes = -1, ns = ev->dur_ns > 0 ? ev->dur_ns : 0;
	double bw;

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
	if (ns > 0) {
		struct copy_span *p;

		if (c->nsp == c->capsp) {
			c->capsp = c->capsp ? c->capsp * 2 : 64;
			c->sp = pd_xrealloc(c->sp, c->capsp * sizeof *c->sp);
		}
		p = &c->sp[c->nsp++];
		p->s = ev->ts_ns;
		p->e = ev->ts_ns + ns;
		p->dev = dev_of(c, ev);
		p->kind = (uint32_t)(k - c->k);
	}
	if (pd_ev_arg_int(ev, "bytes", &bytes) && bytes >= 0)
		k->bytes += bytes;
	if (!pd_ev_arg_double(ev, "memory bandwidth (GB/s)", &bw)) {
		if (bytes < 0 || ev->dur_ns <= 0)
			return;
		bw = (double)bytes / (double)ev->dur_ns;	/* B/ns = GB/s */
	}
	pd_vec_push(&k->bw, bw);
	k->with_bw++;
}

void
copies_finish(struct copies *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		c->k[i].overlap_ns = 0;
	for (i = 0; i < c->nsp; i++) {
		const struct copy_span *p = &c->sp[i];

		c->k[p->kind].overlap_ns += pd_ivl_len_in(&c->dev[p->dev].busy,
		    p->s, p->e);
	}
}

static double
ratio(int64_t part, int64_t whole)
{
	return whole > 0 ? (double)part / (double)whole : 0;
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
		struct pd_summary s;

		pd_set_str(o, "kind", v[i].name);
		pd_set_int(o, "count", v[i].count);
		pd_set_int(o, "bytes", v[i].bytes);
		pd_set_real(o, "total_us", (double)v[i].total_ns / 1e3, 3);
		pd_set_int(o, "pageable", v[i].pageable);
		if (v[i].bw.n) {
			pd_stats(&v[i].bw, &s);
			pd_set_real(o, "bw_gbps_mean", s.mean, 6);
			pd_set_real(o, "bw_gbps_median", s.median, 6);
			pd_set_real(o, "bw_gbps_min", s.min, 6);
			pd_set_real(o, "bw_gbps_max", s.max, 6);
		} else {
			pd_set_null(o, "bw_gbps_mean");
			pd_set_null(o, "bw_gbps_median");
			pd_set_null(o, "bw_gbps_min");
			pd_set_null(o, "bw_gbps_max");
		}
		pd_set_int(o, "pinned", v[i].pinned);
		pd_set_real(o, "pageable_us", (double)v[i].pageable_ns / 1e3, 3);
		pd_set_real(o, "pinned_us", (double)v[i].pinned_ns / 1e3, 3);
		pd_set_real(o, "overlapped_us", (double)v[i].overlap_ns / 1e3,
		    3);
		pd_set_real(o, "exposed_us", (double)(v[i].total_ns -
		    v[i].overlap_ns) / 1e3, 3);
		pd_set_real(o, "exposed_ratio", ratio(v[i].total_ns -
		    v[i].overlap_ns, v[i].total_ns), 4);
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
	pd_set_real(o, "overlapped_us", (double)ov / 1e3, 3);
	pd_set_real(o, "exposed_us", (double)(ns - ov) / 1e3, 3);
	pd_set_real(o, "exposed_ratio", ratio(ns - ov, ns), 4);
	return o;
}

void
copies_free(struct copies *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		pd_vec_free(&c->k[i].bw);
	free(c->k);
	c->k = NULL;
	c->n = c->cap = 0;
	for (i = 0; i < c->ndev; i++)
		pd_ivl_free(&c->dev[i].busy);
	free(c->dev);
	free(c->sp);
	c->dev = NULL;
	c->sp = NULL;
	c->ndev = c->capdev = c->nsp = c->capsp = 0;
}
