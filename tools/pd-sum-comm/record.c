/* pd-sum-comm: the pd.comm record from a struct commrec (record.h). */
#include "record.h"

#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_rec.h"

/* Each operator value's key and how it is written: decimals, or 0 for a
 * whole number. */
static const struct {
	const char *key;
	int prec;
} opkeys[CO_N] = {
	[CO_COUNT] = { "count", 0 }, [CO_TOTAL] = { "total_us", 3 },
	[CO_TRANSIT] = { "transit_us", 3 }, [CO_WAIT] = { "wait_us", 3 },
	[CO_SYNC] = { "sync_us", 3 }, [CO_IDLE] = { "idle_us", 3 },
	[CO_WAIT_RATIO] = { "wait_ratio", 4 },
	[CO_SYNC_RATIO] = { "sync_ratio", 4 }, [CO_BYTES] = { "bytes", 0 },
	[CO_ALGBW] = { "algbw_gb_per_s", 3 }, [CO_MEAN] = { "mean_us", 3 },
	[CO_MAX] = { "max_us", 3 }, [CO_SIZED] = { "sized_count", 0 },
	[CO_BUSBW] = { "busbw_gb_per_s", 3 }, [CO_SMALL] = { "small_count", 0 },
	[CO_SMALL_RATIO] = { "small_ratio", 4 }
};

void
commop_set(struct commop *o, int k, double v)
{
	o->v[k] = v;
	o->have |= 1u << k;
}

static void *
grow_list(void *p, size_t *n, size_t *cap, size_t size)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		if (!(p = realloc(p, *cap * size)))
			pd_oom();
	}
	memset((char *)p + *n * size, 0, size);
	(*n)++;
	return p;
}

struct commop *
commrec_op(struct commrec *r)
{
	r->ops = grow_list(r->ops, &r->nops, &r->capops, sizeof *r->ops);
	return &r->ops[r->nops - 1];
}

struct commcall *
commrec_call(struct commrec *r)
{
	r->slowest = grow_list(r->slowest, &r->nslowest, &r->capslowest,
	    sizeof *r->slowest);
	return &r->slowest[r->nslowest - 1];
}

static void
set_num(json_t *o, const char *key, double v, int prec, int have)
{
	if (!have)
		pd_set_null(o, key);
	else if (prec == 0)
		pd_set_int(o, key, (int64_t)v);
	else
		pd_set_real(o, key, v, prec);
}

static json_t *
ops_json(const struct commrec *r)
{
	json_t *a = json_array(), *o;
	size_t i;
	int k;

	for (i = 0; i < r->nops; i++) {
		o = json_object();
		pd_set_str(o, "op_type", r->ops[i].type);
		for (k = 0; k < CO_N; k++)
			set_num(o, opkeys[k].key, r->ops[i].v[k], opkeys[k].prec,
			    (r->ops[i].have >> k) & 1);
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *
slowest_json(const struct commrec *r)
{
	json_t *a = json_array(), *o;
	const struct commcall *c;
	size_t i;

	for (i = 0; i < r->nslowest; i++) {
		c = &r->slowest[i];
		o = json_object();
		pd_set_str(o, "name", c->name);
		pd_set_real(o, "elapse_us", c->elapse_us, 3);
		if (c->has_step)
			pd_set_int(o, "step", c->step);
		else
			pd_set_null(o, "step");
		pd_set_str(o, "op_type", c->op_type);
		if (c->has_start)
			pd_set_int(o, "start_ns", c->start_ns);
		else
			pd_set_null(o, "start_ns");
		json_array_append_new(a, o);
	}
	return a;
}

void
commrec_write(json_t *rec, struct commrec *r)
{
	set_num(rec, "total_us", r->total_us, 3, r->has_total);
	set_num(rec, "wait_ratio", r->wait_ratio, 4, r->has_wait_ratio);
	set_num(rec, "sync_ratio", r->sync_ratio, 4, r->has_sync_ratio);
	set_num(rec, "small_ratio", r->small_ratio, 4, r->has_small_ratio);
	pd_set(rec, "ops", ops_json(r));
	pd_set(rec, "transports", r->transports);
	pd_set(rec, "links", r->links);
	pd_set(rec, "groups", r->groups);
	pd_set(rec, "alignment", r->alignment);
	pd_set(rec, "slowest", slowest_json(r));
	set_num(rec, "wait_us", r->wait_us, 3, r->has_wait_us);
	pd_set_int(rec, "op_count", r->op_count);
	pd_set_str(rec, "lane", r->lane);
	if (r->has_collectives_total)
		pd_set_int(rec, "collectives_total", r->collectives_total);
	else
		pd_set_null(rec, "collectives_total");
	pd_set(rec, "collectives", r->collectives);
	pd_set_int(rec, "skipped", r->skipped);
	pd_set_str(rec, "path", r->path);
	pd_set_bool(rec, "truncated", r->truncated);
	r->transports = r->links = r->groups = r->alignment = NULL;
	r->collectives = NULL;
	free(r->ops);
	free(r->slowest);
	r->ops = NULL;
	r->slowest = NULL;
	r->nops = r->capops = r->nslowest = r->capslowest = 0;
	pd_rec_emit(rec);
}
