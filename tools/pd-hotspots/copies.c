/* Copies and memsets by kind, as HTA's memory_bw_summary groups them:
 * the kind is the event name before its " (Pinned -> Device)" part; the
 * bandwidth of an event is Kineto's own args "memory bandwidth (GB/s)"
 * (computed by the profiler from nanosecond times: HTA reads it too),
 * else bytes over the duration in ns (an Nsight Systems export, an older
 * trace). */
#include "copies.h"

#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
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

void
copies_add(struct copies *c, const struct pd_ev *ev)
{
	struct copy_kind *k = kind_of(c, ev->name);
	int64_t bytes = -1;
	double bw;

	k->count++;
	k->total_ns += ev->dur_ns > 0 ? ev->dur_ns : 0;
	if (strstr(ev->name, "Pageable"))
		k->pageable++;
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
		json_array_append_new(a, o);
	}
	free(v);
	return a;
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
}
