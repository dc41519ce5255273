/* pd-sum-step: the pd.step record from a struct steprec (record.h). */
#include "record.h"

#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_rec.h"
#include "pd_stats.h"

static const char *const keys[SV_N] = {
	"step_us", "computing_us", "comm_not_overlapped_us", "overlapped_us",
	"comm_us", "free_us", "preparing_us", "bubble_us", "stage_us",
	"memcpy_us", "memset_us", "busy_us", "fp_bp_us", "tail_us",
	"cpu_ops_us"
};

void
stepval_set(struct stepval *v, int k, int64_t ns)
{
	v->ns[k] = ns;
	v->have |= 1u << k;
}

int
stepval_has(const struct stepval *v, int k)
{
	return (v->have >> k) & 1;
}

void
stepval_sum(struct stepval *sum, const struct stepval *v, size_t n)
{
	size_t i;
	int k;

	memset(sum, 0, sizeof *sum);
	for (i = 0; i < n; i++)
		for (k = 0; k < SV_N; k++)
			if (stepval_has(&v[i], k))
				stepval_set(sum, k, sum->ns[k] + v[i].ns[k]);
	if (n)
		sum->have |= 1u << SV_STEP;
}

static void
set_us(json_t *o, const char *key, int64_t ns, int have)
{
	if (have)
		pd_set_real(o, key, (double)ns / 1e3, 3);
	else
		pd_set_null(o, key);
}

json_t *
stepval_json(const struct stepval *v, int with_num)
{
	json_t *o = json_object();
	int k;

	if (with_num && v->has_num)
		pd_set_int(o, "step", v->num);
	else if (with_num)
		pd_set_null(o, "step");
	for (k = 0; k < SV_N; k++)
		set_us(o, keys[k], v->ns[k], stepval_has(v, k));
	return o;
}

struct stepval *
steprec_add(struct steprec *r)
{
	struct stepval *v;

	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->steps = realloc(r->steps, r->cap * sizeof *r->steps);
		if (!r->steps)
			pd_oom();
	}
	v = &r->steps[r->n++];
	memset(v, 0, sizeof *v);
	return v;
}

void
steprec_free(struct steprec *r)
{
	free(r->steps);
	r->steps = NULL;
	r->n = r->cap = 0;
}

static void
ratio(json_t *o, const char *key, int64_t x, int64_t total, int have)
{
	if (have && total > 0)
		pd_set_real(o, key, (double)x / (double)total, 4);
	else
		pd_set_null(o, key);
}

/* Each total over the total step_us. */
static json_t *
shares_json(const struct stepval *sum)
{
	static const struct {
		const char *key;
		int k;
	} shares[] = {
		{ "computing_ratio", SV_COMP },
		{ "comm_not_overlapped_ratio", SV_CNO },
		{ "free_ratio", SV_FREE },
		{ "preparing_ratio", SV_PREP },
		{ "bubble_ratio", SV_BUBBLE },
	};
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < sizeof shares / sizeof shares[0]; i++)
		ratio(o, shares[i].key, sum->ns[shares[i].k], sum->ns[SV_STEP],
		    stepval_has(sum, shares[i].k));
	return o;
}

/* step_stats and slowest_step (the first of the longest) over step_us. */
static void
stats_json(json_t *rec, const struct steprec *r)
{
	struct pd_vec v = { 0 };
	struct pd_summary sm;
	const struct stepval *slow = NULL;
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (!stepval_has(&r->steps[i], SV_STEP))
			continue;
		pd_vec_push(&v, (double)r->steps[i].ns[SV_STEP] / 1e3);
		if (!slow || r->steps[i].ns[SV_STEP] > slow->ns[SV_STEP])
			slow = &r->steps[i];
	}
	if (v.n) {
		pd_stats(&v, &sm);
		pd_set(rec, "step_stats", pd_summary_json(&sm, 3));
	} else
		pd_set_null(rec, "step_stats");
	if (slow && slow->has_num)
		pd_set_int(rec, "slowest_step", slow->num);
	else
		pd_set_null(rec, "slowest_step");
	pd_vec_free(&v);
}

static json_t *
gpu_json(const struct stepgpu *g)
{
	json_t *o;
	int64_t other;

	if (!g->have)
		return json_null();
	o = json_object();
	other = g->span - g->compute - g->idle;
	set_us(o, "kernel_time_us", g->span, 1);
	set_us(o, "idle_us", g->idle, 1);
	set_us(o, "compute_us", g->compute, 1);
	set_us(o, "non_compute_us", other, 1);
	set_us(o, "comm_us", g->comm, 1);
	set_us(o, "overlap_us", g->overlap, 1);
	ratio(o, "idle_ratio", g->idle, g->span, 1);
	ratio(o, "compute_ratio", g->compute, g->span, 1);
	ratio(o, "non_compute_ratio", other, g->span, 1);
	ratio(o, "comm_comp_overlap_ratio", g->overlap, g->comm, 1);
	return o;
}

/* [{stage, ranks, totals}], or null. */
static json_t *
stages_json(const struct steprec *r)
{
	json_t *a, *o;
	size_t i;

	if (!r->stages)
		return json_null();
	a = json_array();
	for (i = 0; i < r->nstages; i++) {
		o = json_object();
		pd_set_int(o, "stage", r->stages[i].stage);
		pd_set(o, "ranks", json_incref(r->stages[i].ranks));
		pd_set(o, "totals", stepval_json(&r->stages[i].totals, 0));
		json_array_append_new(a, o);
	}
	return a;
}

void
steprec_write(json_t *rec, const struct steprec *r)
{
	json_t *a = json_array();
	struct stepval sum;
	size_t i;

	for (i = 0; i < r->n; i++)
		json_array_append_new(a, stepval_json(&r->steps[i], 1));
	pd_set(rec, "steps", a);
	stepval_sum(&sum, r->steps, r->n);
	pd_set(rec, "totals", stepval_json(&sum, 0));
	pd_set(rec, "shares", shares_json(&sum));
	stats_json(rec, r);
	pd_set_int(rec, "skipped_rows", r->skipped);
	pd_set_str(rec, "path", r->path);
	pd_set_str(rec, "scope", r->scope);
	pd_set_int_if(rec, "stage", r->stage, r->has_stage);
	pd_set(rec, "stages", stages_json(r));
	pd_set_int_if(rec, "device", r->device, r->has_device);
	pd_set_int_if(rec, "inexact_values", r->inexact, r->has_inexact);
	pd_set_int_if(rec, "events", r->events, r->has_events);
	pd_set_int_if(rec, "gpu_events", r->gpu_events, r->has_events);
	pd_set(rec, "gpu", gpu_json(&r->gpu));
	if (r->tick_mhz > 0)
		pd_set_real(rec, "tick_mhz", r->tick_mhz, 3);
	else
		pd_set_null(rec, "tick_mhz");
	set_us(rec, "unassigned_us", r->unassigned, r->has_unassigned);
	pd_set_bool(rec, "truncated", r->truncated);
	pd_rec_emit(rec);
}
