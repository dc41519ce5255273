/* pd-sum-mem: the pd.mem record from a struct memrec and its devices
 * entries from a struct memdev (record.h). */
#include "record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_rec.h"

void
memdev_init(struct memdev *d)
{
	memset(d, 0, sizeof *d);
	d->growth_bytes_per_s = d->fragmentation_ratio = NAN;
	d->totals_from_trace = -1;
}

void
memdev_set(struct memdev *d, int k, int64_t v)
{
	d->v[k] = v;
	d->have |= 1u << k;
}

static void
set_v(json_t *o, const char *key, const struct memdev *d, int k)
{
	if ((d->have >> k) & 1)
		pd_set_int(o, key, d->v[k]);
	else
		pd_set_null(o, key);
}

json_t *
memdev_json(struct memdev *d)
{
	json_t *o = json_object();

	set_v(o, "device", d, MD_DEVICE);
	set_v(o, "peak_allocated_bytes", d, MD_PEAK_ALLOC);
	set_v(o, "peak_reserved_bytes", d, MD_PEAK_RES);
	set_v(o, "peak_active_bytes", d, MD_PEAK_ACT);
	set_v(o, "peak_time_ns", d, MD_PEAK_TIME);
	set_v(o, "capacity_bytes", d, MD_CAP);
	set_v(o, "fragmentation_bytes", d, MD_FRAG);
	pd_set_real(o, "growth_bytes_per_s", d->growth_bytes_per_s, 3);
	pd_set_str(o, "component", d->component);
	set_v(o, "app_peak_reserved_bytes", d, MD_APP_PEAK_RES);
	pd_set(o, "components", d->components);
	pd_set_real(o, "fragmentation_ratio", d->fragmentation_ratio, 4);
	pd_set(o, "steps", d->steps);
	pd_set(o, "phases", d->phases);
	pd_set(o, "timeline", d->timeline);
	pd_set_str(o, "kind", d->kind);
	set_v(o, "peak_reserved_time_ns", d, MD_PEAK_RES_TIME);
	set_v(o, "events", d, MD_EVENTS);
	set_v(o, "allocs", d, MD_ALLOCS);
	set_v(o, "frees", d, MD_FREES);
	set_v(o, "alloc_bytes", d, MD_ALLOC_BYTES);
	set_v(o, "free_bytes", d, MD_FREE_BYTES);
	if (d->totals_from_trace >= 0)
		pd_set_bool(o, "totals_from_trace", d->totals_from_trace);
	else
		pd_set_null(o, "totals_from_trace");
	d->components = d->steps = d->phases = d->timeline = NULL;
	return o;
}

void
memrec_init(struct memrec *r)
{
	memset(r, 0, sizeof *r);
	r->peak_ratio = r->fragmentation_ratio = NAN;
}

void
memrec_set(struct memrec *r, int k, int64_t v)
{
	r->v[k] = v;
	r->have |= 1u << k;
}

/* A new zeroed entry of size bytes at the end of *v (n, cap). */
static void *
grow(void **v, size_t *n, size_t *cap, size_t size)
{
	char *p;

	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		if (!(*v = realloc(*v, *cap * size)))
			pd_oom();
	}
	p = (char *)*v + (*n)++ * size;
	memset(p, 0, size);
	return p;
}

struct memop *
memrec_op(struct memrec *r, int by_life)
{
	struct memop *o;

	if (by_life) {
		r->by_life.have = 1;
		o = grow((void **)&r->by_life.v, &r->by_life.n,
		    &r->by_life.cap, sizeof *o);
	} else {
		r->top.have = 1;
		o = grow((void **)&r->top.v, &r->top.n, &r->top.cap,
		    sizeof *o);
	}
	o->lifetime_us = NAN;
	return o;
}

struct memname *
memrec_module(struct memrec *r)
{
	r->modules.have = 1;
	return grow((void **)&r->modules.v, &r->modules.n, &r->modules.cap,
	    sizeof *r->modules.v);
}

struct memname *
memrec_category(struct memrec *r)
{
	r->categories.have = 1;
	return grow((void **)&r->categories.v, &r->categories.n,
	    &r->categories.cap, sizeof *r->categories.v);
}

static void
set_r(json_t *o, const char *key, const struct memrec *r, int k)
{
	pd_set_int_if(o, key, r->v[k], (r->have >> k) & 1);
}

/* [{name, bytes, count, lifetime_us}], or null. */
static json_t *
ops_json(const struct memop *v, size_t n, int have)
{
	json_t *a, *o;
	size_t i;

	if (!have)
		return json_null();
	a = json_array();
	for (i = 0; i < n; i++) {
		o = json_object();
		pd_set_str(o, "name", v[i].name);
		pd_set_int_if(o, "bytes", v[i].bytes, v[i].has_bytes);
		pd_set_int(o, "count", v[i].count);
		pd_set_real(o, "lifetime_us", v[i].lifetime_us, 3);
		json_array_append_new(a, o);
	}
	return a;
}

/* {count, bytes}, or null. */
static json_t *
count_json(const struct memcount *c)
{
	json_t *o;

	if (!c->have)
		return json_null();
	o = json_object();
	pd_set_int(o, "count", c->count);
	pd_set_int_if(o, "bytes", c->bytes, c->has_bytes);
	return o;
}

/* [{key, bytes_key}], or null. */
static json_t *
names_json(const struct memname *v, size_t n, int have, const char *key,
    const char *bytes_key)
{
	json_t *a, *o;
	size_t i;

	if (!have)
		return json_null();
	a = json_array();
	for (i = 0; i < n; i++) {
		o = json_object();
		pd_set_str(o, key, v[i].name);
		pd_set_int_if(o, bytes_key, v[i].bytes, v[i].has_bytes);
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *
npu_mem_json(const struct memrec *r)
{
	json_t *o;

	if (!r->has_npu_mem)
		return json_null();
	o = json_object();
	set_r(o, "app_peak_bytes", r, MR_NPU_APP);
	set_r(o, "device_peak_bytes", r, MR_NPU_DEV);
	return o;
}

static json_t *
actions_json(const struct memrec *r)
{
	static const char *const keys[] = { "preexisting", "create",
		"increment_version", "destroy" };
	json_t *o;
	int i;

	if (!r->has_actions)
		return json_null();
	o = json_object();
	for (i = 0; i < 4; i++)
		pd_set_int(o, keys[i], r->actions[i]);
	return o;
}

void
memrec_write(json_t *rec, struct memrec *r)
{
	pd_set(rec, "devices", r->devices ? r->devices : json_array());
	set_r(rec, "peak_allocated_bytes", r, MR_PEAK_ALLOC);
	set_r(rec, "peak_reserved_bytes", r, MR_PEAK_RES);
	set_r(rec, "capacity_bytes", r, MR_CAP);
	pd_set_real(rec, "peak_ratio", r->peak_ratio, 4);
	pd_set(rec, "top_allocators", ops_json(r->top.v, r->top.n,
	    r->top.have));
	pd_set(rec, "never_released", count_json(&r->never_released));
	pd_set(rec, "frees_without_alloc",
	    count_json(&r->frees_without_alloc));
	pd_set(rec, "top_by_lifetime", ops_json(r->by_life.v, r->by_life.n,
	    r->by_life.have));
	pd_set(rec, "modules", names_json(r->modules.v, r->modules.n,
	    r->modules.have, "component", "peak_reserved_bytes"));
	pd_set(rec, "static_ops", count_json(&r->static_ops));
	pd_set(rec, "npu_mem", npu_mem_json(r));
	set_r(rec, "fragmentation_bytes", r, MR_FRAG);
	pd_set_real(rec, "fragmentation_ratio", r->fragmentation_ratio, 4);
	pd_set(rec, "allocs_without_op", count_json(&r->allocs_without_op));
	set_r(rec, "skipped_rows", r, MR_SKIPPED);
	pd_set_str(rec, "path", r->path);
	set_r(rec, "inexact_rows", r, MR_INEXACT);
	pd_set(rec, "categories_at_peak", names_json(r->categories.v,
	    r->categories.n, r->categories.have, "category", "bytes"));
	pd_set(rec, "actions", actions_json(r));
	set_r(rec, "unordered_entries", r, MR_UNORDERED);
	pd_set_bool(rec, "truncated", r->truncated);
	free(r->top.v);
	free(r->by_life.v);
	free(r->modules.v);
	free(r->categories.v);
	r->devices = NULL;
	r->top.v = r->by_life.v = NULL;
	r->modules.v = r->categories.v = NULL;
	pd_rec_emit(rec);
}
