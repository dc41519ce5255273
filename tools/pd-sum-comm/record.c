/* pd-sum-comm: the pd.comm record from a struct commrec (record.h). */
#include "record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_num.h"
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

struct commtransport *
commrec_transport(struct commrec *r)
{
	struct commtransport *t;

	r->transports = grow_list(r->transports, &r->ntransports,
	    &r->captransports, sizeof *r->transports);
	r->has_transports = 1;
	t = &r->transports[r->ntransports - 1];
	t->bandwidth_gb_per_s = t->small_packet_ratio = NAN;
	return t;
}

struct commlink *
commrec_link(struct commrec *r)
{
	struct commlink *l;

	r->links = grow_list(r->links, &r->nlinks, &r->caplinks,
	    sizeof *r->links);
	r->has_links = 1;
	l = &r->links[r->nlinks - 1];
	l->bandwidth_gb_per_s = NAN;
	return l;
}

struct communaligned *
commrec_unaligned(struct commrec *r)
{
	struct commalign *al = &r->alignment;
	struct communaligned *u;

	al->ops = grow_list(al->ops, &al->nops, &al->capops, sizeof *al->ops);
	al->have = 1;
	u = &al->ops[al->nops - 1];
	u->bandwidth_gb_per_s = NAN;
	return u;
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

static json_t *
transports_json(const struct commrec *r)
{
	json_t *a, *o;
	const struct commtransport *t;
	size_t i;

	if (!r->has_transports)
		return json_null();
	a = json_array();
	for (i = 0; i < r->ntransports; i++) {
		t = &r->transports[i];
		o = json_object();
		pd_set_str(o, "transport", t->name);
		pd_set_int(o, "bytes", t->bytes);
		pd_set_real(o, "time_us", t->time_us, 3);
		pd_set_real(o, "bandwidth_gb_per_s", t->bandwidth_gb_per_s, 3);
		pd_set_real(o, "small_packet_ratio", t->small_packet_ratio, 4);
		pd_set_int(o, "ops", t->ops);
		json_array_append_new(a, o);
	}
	return a;
}

/* A rank name as an integer when it is a whole number, else the string. */
static void
set_rank(json_t *o, const char *key, const char *s)
{
	int64_t r;

	if (pd_num_int(s, strlen(s), &r) == PD_NUM_OK && !strchr(s, '.'))
		pd_set_int(o, key, r);
	else
		pd_set_str(o, key, s);
}

static json_t *
links_json(const struct commrec *r)
{
	json_t *a, *o;
	const struct commlink *l;
	size_t i;

	if (!r->has_links)
		return json_null();
	a = json_array();
	for (i = 0; i < r->nlinks; i++) {
		l = &r->links[i];
		o = json_object();
		set_rank(o, "src", l->src);
		set_rank(o, "dst", l->dst);
		pd_set_str(o, "group", l->group);
		pd_set_str(o, "transport", l->transport);
		pd_set_int(o, "bytes", l->bytes);
		pd_set_real(o, "time_us", l->time_us, 3);
		pd_set_real(o, "bandwidth_gb_per_s", l->bandwidth_gb_per_s, 3);
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *
alignment_json(const struct commalign *al)
{
	json_t *o, *a, *e;
	const struct communaligned *u;
	size_t i;

	if (!al->have)
		return json_null();
	o = json_object();
	pd_set_int(o, "checked_ops", al->checked_ops);
	pd_set_int(o, "unaligned_ops", al->unaligned_ops);
	pd_set_real(o, "sdma_us", al->sdma_us, 3);
	pd_set_real(o, "unaligned_us", al->unaligned_us, 3);
	pd_set_real(o, "unaligned_ratio", al->unaligned_ratio, 4);
	a = json_array();
	for (i = 0; i < al->nops; i++) {
		u = &al->ops[i];
		e = json_object();
		pd_set_str(e, "name", u->name);
		pd_set_int_if(e, "step", u->step, u->has_step);
		pd_set_int(e, "bytes", u->bytes);
		pd_set_real(e, "time_us", u->time_us, 4);
		pd_set_real(e, "unaligned_us", u->unaligned_us, 4);
		pd_set_real(e, "bandwidth_gb_per_s", u->bandwidth_gb_per_s, 4);
		json_array_append_new(a, e);
	}
	pd_set(o, "ops", a);
	return o;
}

void
commrec_write(json_t *rec, struct commrec *r)
{
	set_num(rec, "total_us", r->total_us, 3, r->has_total);
	set_num(rec, "wait_ratio", r->wait_ratio, 4, r->has_wait_ratio);
	set_num(rec, "sync_ratio", r->sync_ratio, 4, r->has_sync_ratio);
	set_num(rec, "small_ratio", r->small_ratio, 4, r->has_small_ratio);
	pd_set(rec, "ops", ops_json(r));
	pd_set(rec, "transports", transports_json(r));
	pd_set(rec, "links", links_json(r));
	pd_set(rec, "groups", r->groups);
	pd_set(rec, "alignment", alignment_json(&r->alignment));
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
	r->groups = r->collectives = NULL;
	free(r->ops);
	free(r->slowest);
	free(r->transports);
	free(r->links);
	free(r->alignment.ops);
	r->ops = NULL;
	r->slowest = NULL;
	r->transports = NULL;
	r->links = NULL;
	r->alignment.ops = NULL;
	r->nops = r->capops = r->nslowest = r->capslowest = 0;
	r->ntransports = r->captransports = r->nlinks = r->caplinks = 0;
	r->alignment.nops = r->alignment.capops = 0;
	pd_rec_emit(rec);
}
