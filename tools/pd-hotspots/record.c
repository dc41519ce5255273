/* pd-hotspots: the pd.hotspot record from a struct hsrec (record.h). */
#include "record.h"
#include "critpath.h"

#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_rec.h"

#define OPTIM_STEP "Optimizer.step#"

struct hsent *
hslist_add(struct hslist *l)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		if (!(l->e = realloc(l->e, l->cap * sizeof *l->e)))
			pd_oom();
	}
	memset(&l->e[l->n], 0, sizeof l->e[l->n]);
	l->have = 1;
	return &l->e[l->n++];
}

static void
top_entry(json_t *o, const struct hsent *e)
{
	pd_set_str(o, "name", e->name);
	pd_set_str(o, "type", e->type);
	pd_set_str(o, "core", e->core);
	pd_set_int(o, "count", e->count);
	pd_set_real(o, "total_us", e->us, 3);
	pd_set_real(o, "mean_us", e->mean_us, 3);
	pd_set_real(o, "ratio", e->ratio, 4);
	pd_set_str(o, "bound", e->bound);
	if (e->bound)
		pd_set_real(o, "bound_ratio", e->bound_ratio, 4);
	else
		pd_set_null(o, "bound_ratio");
}

static void
type_entry(json_t *o, const struct hsent *e)
{
	pd_set_str(o, "type", e->name);
	pd_set_int(o, "count", e->count);
	pd_set_real(o, "total_us", e->us, 3);
	pd_set_real(o, "ratio", e->ratio, 4);
}

static void
core_entry(json_t *o, const struct hsent *e)
{
	pd_set_str(o, "core", e->name);
	pd_set_real(o, "total_us", e->us, 3);
	pd_set_real(o, "ratio", e->ratio, 4);
	pd_set_int(o, "count", e->count);
}

static void
aicpu_entry(json_t *o, const struct hsent *e)
{
	pd_set_str(o, "name", e->name);
	pd_set_int(o, "count", e->count);
	pd_set_real(o, "total_us", e->us, 3);
}

static void
api_entry(json_t *o, const struct hsent *e)
{
	aicpu_entry(o, e);
	pd_set_str(o, "level", e->type);
}

static void
cpu_entry(json_t *o, const struct hsent *e)
{
	pd_set_str(o, "name", e->name);
	pd_set_int(o, "count", e->count);
	pd_set_real(o, "self_us", e->us, 3);
}

/* Optimizer.step#SGD.step -> class "SGD" (the text between '#' and the
 * last '.'), with the host and device totals of its steps. */
static void
optim_entry(json_t *o, const struct hsent *e)
{
	const char *n = e->name, *dot;

	if (strncmp(n, OPTIM_STEP, strlen(OPTIM_STEP)) == 0)
		n += strlen(OPTIM_STEP);
	dot = strrchr(n, '.');
	pd_set_str(o, "name", e->name);
	pd_set(o, "class", dot && dot > n ?
	    json_stringn(n, (size_t)(dot - n)) : json_string(n));
	pd_set_int(o, "count", e->count);
	pd_set_real(o, "host_total_us", e->us, 3);
	pd_set_real(o, "device_total_us", e->device_us, 3);
}

/* The list as an array (null when the family has no such table); l is
 * released. */
static json_t *
list_json(struct hslist *l, void (*entry)(json_t *, const struct hsent *))
{
	json_t *a = l->have ? json_array() : json_null();
	size_t i;

	for (i = 0; i < l->n; i++) {
		json_t *o = json_object();

		entry(o, &l->e[i]);
		json_array_append_new(a, o);
	}
	free(l->e);
	memset(l, 0, sizeof *l);
	return a;
}

static json_t *
rest_json(const struct hsrest *r, const char *key)
{
	json_t *o;

	if (!r->have)
		return json_null();
	o = json_object();
	pd_set_int(o, "count", r->count);
	pd_set_real(o, key, r->us, 3);
	return o;
}

static json_t *
classes_json(const struct hsrec *r)
{
	json_t *o;

	if (!r->classes.have)
		return json_null();
	o = json_object();
	pd_set_real(o, "compute_us", r->classes.compute_us, 3);
	pd_set_real(o, "comm_us", r->classes.comm_us, 3);
	pd_set_real(o, "memcpy_us", r->classes.memcpy_us, 3);
	pd_set_real(o, "memset_us", r->classes.memset_us, 3);
	return o;
}

static json_t *
op_state_json(const struct hsrec *r)
{
	json_t *o;

	if (!r->op_state.have)
		return json_null();
	o = json_object();
	pd_set_int(o, "ops", r->op_state.ops);
	pd_set_int(o, "dynamic", r->op_state.dynamic);
	pd_set_int(o, "static", r->op_state.static_ops);
	pd_set_real(o, "dynamic_us", r->op_state.dynamic_us, 3);
	return o;
}

static json_t *
host_checks_json(const struct hsrec *r)
{
	json_t *o;

	if (!r->host_checks.have)
		return json_null();
	o = json_object();
	pd_set_int_if(o, "compile_execute_count",
	    r->host_checks.compile_execute_count,
	    r->host_checks.has_compile_execute_count);
	pd_set_int_if(o, "launches", r->host_checks.launches,
	    r->host_checks.has_launches);
	pd_set_int_if(o, "sync_after_launch", r->host_checks.sync_after_launch,
	    r->host_checks.has_launches);
	if (r->host_checks.has_launches)
		pd_set_real(o, "sync_after_launch_ratio",
		    r->host_checks.sync_after_launch_ratio, 4);
	else
		pd_set_null(o, "sync_after_launch_ratio");
	return o;
}

/* A part handed over (stolen), or null. */
static json_t *
part(json_t **p)
{
	json_t *v = *p ? *p : json_null();

	*p = NULL;
	return v;
}

void
hsrec_write(json_t *rec, struct hsrec *r)
{
	json_t *top, *cpu;

	pd_set_real(rec, "total_us", r->total_us, 3);
	top = list_json(&r->top, top_entry);
	pd_set(rec, "top", json_incref(top));
	pd_set(rec, "by_type", list_json(&r->by_type, type_entry));
	pd_set(rec, "by_core", list_json(&r->by_core, core_entry));
	pd_set(rec, "aicpu", list_json(&r->aicpu, aicpu_entry));
	pd_set(rec, "copies", part(&r->copies));
	pd_set_int_if(rec, "short_ops", r->short_ops, r->has_short_ops);
	pd_set_real(rec, "short_ratio", r->short_ratio, 4);
	pd_set(rec, "host_api", list_json(&r->host_api, api_entry));
	pd_set(rec, "classes", classes_json(r));
	pd_set(rec, "optimizers", list_json(&r->optimizers, optim_entry));
	pd_set(rec, "op_state", op_state_json(r));
	cpu = list_json(&r->cpu_ops, cpu_entry);
	pd_set(rec, "cpu_ops", json_incref(cpu));
	pd_set_int_if(rec, "kernels", r->kernels, r->has_kernels);
	pd_set_real(rec, "short_threshold_us", r->short_threshold_us, 3);
	pd_set_int_if(rec, "linked_kernels", r->linked_kernels,
	    r->has_linked_kernels);
	pd_set(rec, "host_checks", host_checks_json(r));
	pd_set(rec, "top_rest", rest_json(&r->top_rest, "total_us"));
	pd_set(rec, "cpu_ops_rest", rest_json(&r->cpu_ops_rest, "self_us"));
	/* after the lists, as their names' warnings came before its own */
	pd_set(rec, "critical_path", r->cp ? cp_json(r->cp, r->path,
	    r->topn) : json_null());
	cp_annotate(r->cp, top, 0);
	cp_annotate(r->cp, cpu, 1);
	json_decref(top);
	json_decref(cpu);
	pd_set(rec, "flops", part(&r->flops));
	pd_set(rec, "counters", part(&r->counters));
	pd_set_int_if(rec, "events", r->events, r->has_events);
	pd_set_int_if(rec, "skipped_events", r->skipped_events,
	    r->has_events);
	pd_set_int_if(rec, "skipped_rows", r->skipped_rows,
	    r->has_skipped_rows);
	pd_set(rec, "copy_overlap", part(&r->copy_overlap));
	pd_set(rec, "kernel_sequences", part(&r->kernel_sequences));
	pd_set(rec, "gpu", part(&r->gpu));
	pd_set(rec, "host_api_kinds", part(&r->host_api_kinds));
	pd_set_bool(rec, "truncated", r->truncated);
	pd_rec_emit(rec);
}
