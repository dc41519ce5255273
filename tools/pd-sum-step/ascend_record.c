/* pd-sum-step for Ascend roots: a rank's run of steps into the pd.step
 * record (record.h). */
#include "ascend.h"

#include "record.h"
#include "sum_step.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pd_rec.h"

/* The record value of each K_ value. */
static const int sv_of[K_N] = {
	[K_COMP] = SV_COMP, [K_CNO] = SV_CNO, [K_OVL] = SV_OVL,
	[K_COMM] = SV_COMM, [K_FREE] = SV_FREE, [K_PREP] = SV_PREP,
	[K_BUBBLE] = SV_BUBBLE, [K_STAGE] = SV_STAGE, [K_FPBP] = SV_FPBP,
	[K_TAIL] = SV_TAIL
};

static void
step_val(const struct step *s, struct stepval *v)
{
	int64_t t;
	int k;

	v->num = s->id;
	v->has_num = s->has_id;
	if (step_ns(s, &t))
		stepval_set(v, SV_STEP, t);
	for (k = 0; k < K_N; k++)
		if (step_has(s, k))
			stepval_set(v, sv_of[k], s->v[k]);
}

static void
run_steps(const struct run *r, struct steprec *rec)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		step_val(&r->s[i], steprec_add(rec));
}

void
stage_totals(const struct run *r, struct stepval *sum)
{
	struct steprec rec = { 0 };

	run_steps(r, &rec);
	stepval_sum(sum, rec.steps, rec.n);
	/* the column maxima come from different ranks: their sum is no step
	 * time */
	sum->have &= ~(1u << SV_STEP);
	steprec_free(&rec);
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

/* Emit one pd.step. rank < -1: keep the root's rank. scope/stages: the
 * cluster keys (stage < 0: none; stages is borrowed, NULL: null). */
void
emit_run(json_t *root, struct run *r, int64_t rank, const char *scope,
    int64_t stage, const struct stepstage *stages, size_t nstages)
{
	json_t *rec = pd_rec_new("pd.step", 1, root);
	json_t *dev = json_object_get(root, "device");
	struct steprec sr = { 0 };

	if (rank >= -1) {
		if (rank >= 0)
			pd_set_int(rec, "rank", rank);
		else
			pd_set_null(rec, "rank");
	}
	pd_set_str(rec, "source", r->source);
	if (r->n)
		qsort(r->s, r->n, sizeof *r->s, cmp_step);
	run_steps(r, &sr);
	sr.skipped = r->skipped;
	sr.path = r->path;
	sr.scope = scope;
	sr.stage = stage;
	sr.has_stage = stage >= 0;
	sr.stages = stages;
	sr.nstages = nstages;
	if (r->has_device) {
		sr.device = r->device;
		sr.has_device = 1;
	} else if (json_is_integer(dev)) {
		sr.device = json_integer_value(dev);
		sr.has_device = 1;
	}
	sr.inexact = r->inexact;
	sr.has_inexact = 1;
	sr.tick_mhz = r->tick_mhz;
	sr.unassigned = r->unassigned;
	sr.has_unassigned = r->has_unassigned;
	sr.truncated = r->truncated;
	steprec_write(rec, &sr);
	steprec_free(&sr);
}
