/* pd-sum-input: the pd.input record from a struct inputrec (record.h). */
#include "record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_rec.h"

struct inputstep *
inputrec_step(struct inputrec *r)
{
	struct inputstep *s;

	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		if (!(r->steps = realloc(r->steps, r->cap * sizeof *r->steps)))
			pd_oom();
	}
	s = &r->steps[r->n++];
	memset(s, 0, sizeof *s);
	s->input_us = s->step_us = s->input_ratio = s->preparing_us = NAN;
	return s;
}

struct inputop *
inputrec_op(struct inputrec *r)
{
	struct inputop *o;

	if (r->nops == r->capops) {
		r->capops = r->capops ? 2 * r->capops : 16;
		if (!(r->pipeline = realloc(r->pipeline,
		    r->capops * sizeof *r->pipeline)))
			pd_oom();
	}
	o = &r->pipeline[r->nops++];
	memset(o, 0, sizeof *o);
	o->queue_usage_ratio = NAN;
	r->has_pipeline = 1;
	return o;
}

static json_t *
slowest_op_json(const struct inputrec *r)
{
	json_t *o;

	if (!r->has_slowest_op)
		return json_null();
	o = json_object();
	pd_set_int(o, "op_id", r->slowest_op.op_id);
	pd_set_str(o, "op_type", r->slowest_op.op_type);
	pd_set_real(o, "queue_usage_ratio", r->slowest_op.queue_usage_ratio,
	    4);
	return o;
}

static json_t *
slowest_call_json(const struct inputrec *r)
{
	const struct inputcall *c = &r->slowest_call;
	json_t *o;

	if (!r->has_slowest_call)
		return json_null();
	o = json_object();
	pd_set_str(o, "name", c->name);
	pd_set_real(o, "dur_us", c->dur_us, 3);
	pd_set_int_if(o, "step", c->step, c->has_step);
	pd_set_int(o, "start_ns", c->start_ns);
	return o;
}

static json_t *
pipeline_json(const struct inputrec *r)
{
	json_t *a, *o;
	const struct inputop *p;
	size_t i;

	if (!r->has_pipeline)
		return json_null();
	a = json_array();
	for (i = 0; i < r->nops; i++) {
		p = &r->pipeline[i];
		o = json_object();
		pd_set_int(o, "op_id", p->op_id);
		pd_set_str(o, "op_type", p->op_type);
		pd_set_int_if(o, "num_workers", p->num_workers,
		    p->has_workers);
		pd_set_real(o, "queue_usage_ratio", p->queue_usage_ratio, 4);
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *
steps_json(const struct inputrec *r)
{
	json_t *a = json_array(), *o;
	const struct inputstep *s;
	size_t i;

	for (i = 0; i < r->n; i++) {
		s = &r->steps[i];
		o = json_object();
		pd_set_int_if(o, "step", s->step, s->has_step);
		pd_set_real(o, "input_us", s->input_us, 3);
		pd_set_real(o, "step_us", s->step_us, 3);
		pd_set_real(o, "input_ratio", s->input_ratio, 4);
		pd_set_real(o, "preparing_us", s->preparing_us, 3);
		pd_set_int_if(o, "calls", s->calls, s->has_calls);
		json_array_append_new(a, o);
	}
	return a;
}

void
inputrec_write(json_t *rec, struct inputrec *r)
{
	double q = r->input_ratio;

	pd_set(rec, "steps", steps_json(r));
	pd_set_real(rec, "input_us_mean", r->input_us_mean, 3);
	pd_set_real(rec, "input_ratio", q, 4);
	pd_set_str(rec, "class", isnan(q) ? NULL : q >= INPUT_HIGHLY ?
	    "highly" : q >= INPUT_MODERATELY ? "moderately" : "not");
	pd_set_real(rec, "queue_empty_ratio", r->queue_empty_ratio, 4);
	pd_set(rec, "slowest_op", slowest_op_json(r));
	pd_set_int(rec, "dataloader_spans", r->dataloader_spans);
	pd_set_int(rec, "slow_dataloader_calls", r->slow_dataloader_calls);
	pd_set(rec, "slowest_call", slowest_call_json(r));
	pd_set_str(rec, "steps_from", r->steps_from);
	pd_set_str(rec, "iterator", r->iterator);
	pd_set_int_if(rec, "calls", r->calls, r->has_calls);
	pd_set_real(rec, "first_call_us", r->first_call_us, 3);
	pd_set_real(rec, "getnext_empty_ratio", r->getnext_empty_ratio, 4);
	pd_set(rec, "pipeline", pipeline_json(r));
	pd_set_real(rec, "tick_mhz", r->tick_mhz, 3);
	pd_set_int(rec, "skipped_rows", r->skipped);
	pd_set_str(rec, "path", r->path);
	pd_set_bool(rec, "truncated", r->truncated);
	free(r->steps);
	free(r->pipeline);
	r->steps = NULL;
	r->pipeline = NULL;
	r->n = r->cap = r->nops = r->capops = 0;
	pd_rec_emit(rec);
}
