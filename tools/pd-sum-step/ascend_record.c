/* pd-sum-step for Ascend roots: the pd.step record of a run of steps. */
#include "ascend.h"

#include "sum_step.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_csv.h"
#include "pd_diag.h"
#include "pd_locate.h"
#include "pd_num.h"
#include "pd_rec.h"
#include "pd_sqlite.h"
#include "pd_stats.h"
#include "pd_trace.h"

/* ---- the record ---- */

static const char *keys[K_N] = {
	"computing_us", "comm_not_overlapped_us", "overlapped_us", "comm_us",
	"free_us", "preparing_us", "bubble_us", "stage_us", "fp_bp_us",
	"tail_us"
};

/* Record order of the step keys after step_us (pd-record(5)). */
static const int order[] = {
	K_COMP, K_CNO, K_OVL, K_COMM, K_FREE, K_PREP, K_BUBBLE, K_STAGE, -1
};

static void
set_ns(json_t *o, const char *key, int64_t ns, int ok)
{
	if (ok)
		pd_set_real(o, key, (double)ns / 1e3, 3);
	else
		pd_set_null(o, key);
}

static json_t *
step_json(const struct step *s)
{
	json_t *o = json_object();
	int64_t t = 0;
	int i;

	if (s->has_id)
		pd_set_int(o, "step", s->id);
	else
		pd_set_null(o, "step");
	set_ns(o, "step_us", t, step_ns(s, &t));
	for (i = 0; order[i] >= 0; i++)
		set_ns(o, keys[order[i]], s->v[order[i]],
		    step_has(s, order[i]));
	pd_set_null(o, "memcpy_us");
	pd_set_null(o, "memset_us");
	pd_set_null(o, "busy_us");
	set_ns(o, keys[K_FPBP], s->v[K_FPBP], step_has(s, K_FPBP));
	set_ns(o, keys[K_TAIL], s->v[K_TAIL], step_has(s, K_TAIL));
	return o;
}

json_t *
totals_json(const struct run *r, struct step *sum)
{
	json_t *o;
	size_t i;
	int k;
	int64_t t;

	memset(sum, 0, sizeof *sum);
	sum->has_total = 1;
	for (i = 0; i < r->n; i++) {
		if (step_ns(&r->s[i], &t))
			sum->total += t;
		for (k = 0; k < K_N; k++)
			if (step_has(&r->s[i], k))
				step_put(sum, k, r->s[i].v[k]);
	}
	o = step_json(sum);
	json_object_del(o, "step");
	return o;
}

static void
share(json_t *o, const char *key, const struct step *sum, int k)
{
	if (step_has(sum, k) && sum->total > 0)
		pd_set_real(o, key, (double)sum->v[k] / (double)sum->total, 4);
	else
		pd_set_null(o, key);
}

static json_t *
shares_json(const struct step *sum)
{
	json_t *o = json_object();

	share(o, "computing_ratio", sum, K_COMP);
	share(o, "comm_not_overlapped_ratio", sum, K_CNO);
	share(o, "free_ratio", sum, K_FREE);
	share(o, "preparing_ratio", sum, K_PREP);
	share(o, "bubble_ratio", sum, K_BUBBLE);
	return o;
}

/* step_stats and slowest_step over step_us. */
static void
stats_json(json_t *rec, const struct run *r)
{
	struct pd_vec v = { 0 };
	struct pd_summary sm;
	const struct step *slow = NULL;
	int64_t t, tmax = 0;
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (!step_ns(&r->s[i], &t))
			continue;
		pd_vec_push(&v, (double)t / 1e3);
		if (!slow || t > tmax) {
			slow = &r->s[i];
			tmax = t;
		}
	}
	if (v.n) {
		pd_stats(&v, &sm);
		pd_set(rec, "step_stats", pd_summary_json(&sm, 3));
	} else
		pd_set_null(rec, "step_stats");
	if (slow && slow->has_id)
		pd_set_int(rec, "slowest_step", slow->id);
	else
		pd_set_null(rec, "slowest_step");
	pd_vec_free(&v);
}

static int
cmp_step(const void *a, const void *b)
{
	const struct step *x = a, *y = b;

	if (x->has_id != y->has_id)
		return x->has_id ? 1 : -1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return 0;
}

/* Emit one pd.step. rank < -1: keep the root's rank. scope/stage/stages:
 * the cluster keys (stage is stolen, may be NULL; stages is borrowed, may
 * be NULL). */
void
emit_run(json_t *root, struct run *r, int64_t rank, const char *scope,
    json_t *stage, json_t *stages)
{
	json_t *rec = pd_rec_new("pd.step", 1, root), *a = json_array();
	struct step sum;
	size_t i;

	if (rank >= -1) {
		if (rank >= 0)
			pd_set_int(rec, "rank", rank);
		else
			pd_set_null(rec, "rank");
	}
	if (r->n)
		qsort(r->s, r->n, sizeof *r->s, cmp_step);
	pd_set_str(rec, "source", r->source);
	for (i = 0; i < r->n; i++)
		json_array_append_new(a, step_json(&r->s[i]));
	pd_set(rec, "steps", a);
	pd_set(rec, "totals", totals_json(r, &sum));
	pd_set(rec, "shares", shares_json(&sum));
	stats_json(rec, r);
	pd_set_int(rec, "skipped_rows", r->skipped);
	pd_set_str(rec, "path", r->path);
	pd_set_str(rec, "scope", scope);
	pd_set(rec, "stage", stage ? stage : json_null());
	pd_set(rec, "stages", stages ? json_incref(stages) : json_null());
	if (r->has_device)
		pd_set_int(rec, "device", r->device);
	else if (json_is_integer(json_object_get(root, "device")))
		pd_set(rec, "device", json_incref(json_object_get(root,
		    "device")));
	else
		pd_set_null(rec, "device");
	pd_set_int(rec, "inexact_values", r->inexact);
	pd_set_bool(rec, "truncated", r->truncated);
	if (r->tick_mhz > 0)
		pd_set_real(rec, "tick_mhz", r->tick_mhz, 3);
	else
		pd_set_null(rec, "tick_mhz");
	set_ns(rec, "unassigned_us", r->unassigned, r->has_unassigned);
	pd_rec_emit(rec);
}
