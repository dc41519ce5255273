/* pd-sum-step for Ascend roots: one pd.step per rank.
 *
 * Reads, in order of preference (the first that gives steps wins):
 *   step_trace_time.csv (three header variants; Step may be empty),
 *   analysis.db StepTraceTime (the db export: the same columns, in us),
 *   the Overlap Analysis lanes of trace_view.json summed per ProfilerStep#N,
 *   MindSpore legacy step_trace_raw_{dev}_detail_time.csv (counter ticks),
 *   CANN PROF_ legacy timeline/step_trace_*.json (Iteration Time, FP_BP),
 *   msprof-analyze cluster_step_trace_time.csv (one record per rank row,
 *   the stage rows summarised on each).
 * Streams: CSVs row by row, traces event by event (two passes over
 * trace_view.json: metadata and steps first, then the lanes); memory is the
 * per-step sums. Values are summed as int64 ns.
 *
 * Here: a rank's run of steps, and the order of the sources. One file per
 * source: ascend_csv.c, ascend_db.c, ascend_trace_view.c,
 * ascend_legacy.c, ascend_cluster.c; the record: ascend_record.c. */
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

void
run_free(struct run *r)
{
	free(r->s);
	memset(r, 0, sizeof *r);
}

struct step *
step_add(struct run *r)
{
	struct step *s;

	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->s = realloc(r->s, r->cap * sizeof *r->s);
		if (!r->s)
			pd_oom();
	}
	s = &r->s[r->n++];
	memset(s, 0, sizeof *s);
	return s;
}

struct step *
step_find(struct run *r, int64_t id)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->s[i].has_id && r->s[i].id == id)
			return &r->s[i];
	return NULL;
}

void
step_put(struct step *s, int k, int64_t ns)
{
	s->v[k] += ns;
	s->have |= 1u << k;
}

int
step_has(const struct step *s, int k)
{
	return (s->have >> k) & 1;
}

/* The step's wall time (see pd-sum-step(1)): the iteration time when the
 * source gives one; else stage + bubble + preparing; else computing +
 * communication not overlapped + free + preparing. */
int
step_ns(const struct step *s, int64_t *ns)
{
	if (s->has_total) {
		*ns = s->total;
		return 1;
	}
	if (step_has(s, K_STAGE)) {
		*ns = s->v[K_STAGE] + s->v[K_BUBBLE] + s->v[K_PREP];
		return 1;
	}
	if (step_has(s, K_COMP) || step_has(s, K_CNO) || step_has(s, K_FREE)) {
		*ns = s->v[K_COMP] + s->v[K_CNO] + s->v[K_FREE] + s->v[K_PREP];
		return 1;
	}
	return 0;
}

int
sum_step_ascend(json_t *root, const struct pd_tool *t)
{
	struct run r;
	const char *p;

	(void)t;
	memset(&r, 0, sizeof r);
	if ((p = pd_root_export(root, "step_trace_time", 0))) {
		r.source = "step_trace_time";
		r.path = p;
		if (read_step_trace_time(p, &r) && r.n)
			goto found;
		run_free(&r);
	}
	if ((p = pd_root_export(root, "analysis_db", 0))) {
		r.source = "analysis_db";
		r.path = p;
		if (read_analysis_db(p, &r) && r.n)
			goto found;
		run_free(&r);
	}
	if ((p = pd_root_export(root, "trace_view", 0))) {
		r.source = "trace_view";
		r.path = p;
		if (read_trace_view(p, &r))
			goto found;
		run_free(&r);
	}
	if ((p = pd_root_export(root, "step_trace_raw_detail_time", 0))) {
		r.source = "step_trace_raw_detail_time";
		r.path = p;
		if (read_ms_legacy(p, &r) && r.n)
			goto found;
		run_free(&r);
	}
	if (pd_root_export(root, "step_trace_timeline", 0)) {
		r.source = "step_trace_timeline";
		if (read_legacy_timelines(root, &r))
			goto found;
		run_free(&r);
	}
	if ((p = pd_root_export(root, "cluster_step_trace_time", 0)))
		read_cluster(root, p);
	return 0;
found:
	emit_run(root, &r, -2, "rank", -1, NULL, 0);
	run_free(&r);
	return 0;
}
