/* pd-sum-step for Ascend roots: the legacy dumps, MindSpore
 * step_trace_raw_{dev}_detail_time.csv (counter ticks) and CANN PROF_
 * timeline/step_trace_*.json (Iteration Time, FP_BP). */
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

/* ---- MindSpore legacy step_trace_raw_{dev}_detail_time.csv (ticks) ---- */

static int
ticks(struct pd_csv *c, int col, const char *name, double mhz, int64_t *ns,
    struct run *r)
{
	int64_t v;
	int rc = pd_csv_int(c, col, &v);

	if (rc == PD_NUM_MISSING)
		return 0;
	if (rc != PD_NUM_OK) {
		pd_warn(pd_csv_name(c), pd_csv_line(c),
		    "\"%s\": not a tick count: %s; row skipped", name,
		    pd_csv_quote(c, col));
		if (rc == PD_NUM_INEXACT)
			r->inexact++;
		return -1;
	}
	*ns = (int64_t)((double)v * 1e3 / mhz + (v >= 0 ? 0.5 : -0.5));
	return 1;
}

int
read_ms_legacy(const char *path, struct run *r)
{
	static const char *need[] = { "step_num", "total", "iteration_interval",
	    "fp_and_bp", "tail", NULL };
	static const int kk[] = { -1, -1, K_PREP, K_FPBP, K_TAIL };
	struct pd_csv *c = csv_open(path);
	int col[5], i, n, rc, ok = 0, bad;
	int starts[64], ends[64], nred = 0;
	int64_t ns, a, b;
	struct step tmp;
	char miss[256] = "", nm[256];
	const char *h;

	if (!c)
		return 0;
	r->tick_mhz = 100;	/* hwts_frequency of Ascend 910: 100 MHz */
	if (csv_header(c) <= 0)
		goto bad;
	for (i = 0; need[i]; i++)
		if ((col[i] = pd_csv_col(c, need[i], NULL)) < 0) {
			strncat(miss, *miss ? ", '" : "'", sizeof miss - strlen(miss) - 1);
			strncat(miss, need[i], sizeof miss - strlen(miss) - 1);
			strncat(miss, "'", sizeof miss - strlen(miss) - 1);
		}
	if (*miss) {
		pd_error(path, 1, "unknown header variant: missing column%s %s",
		    strchr(miss, ',') ? "s" : "", miss);
		goto bad;
	}
	/* per-op reduce columns: {name}_start_point, {name}_end_point */
	n = pd_csv_ncols(c);
	for (i = 0; i < n && nred < 64; i++) {
		h = pd_csv_colname(c, i);
		size_t l = strlen(h);
		if (l > 12 && strcmp(h + l - 12, "_start_point") == 0 &&
		    strncmp(h, "start_point", 11) != 0 && l - 12 < sizeof nm - 11) {
			snprintf(nm, sizeof nm, "%.*s_end_point", (int)(l - 12), h);
			starts[nred] = i;
			if ((ends[nred] = pd_csv_col(c, nm, NULL)) >= 0)
				nred++;
		}
	}
	ok = 1;
	while ((rc = pd_csv_next(c)) > 0) {
		memset(&tmp, 0, sizeof tmp);
		bad = pd_csv_int(c, col[0], &tmp.id) != PD_NUM_OK;
		if (bad)
			pd_warn(path, pd_csv_line(c), "\"step_num\": not a "
			    "step number: %s; row skipped",
			    pd_csv_quote(c, col[0]));
		tmp.has_id = 1;
		if (!bad && tmp.id == 0)
			continue;	/* the average row */
		for (i = 1; i < 5 && !bad; i++) {
			rc = ticks(c, col[i], need[i], r->tick_mhz, &ns, r);
			if (rc < 0)
				bad = 1;
			else if (rc && i == 1) {
				tmp.total = ns;
				tmp.has_total = 1;
			} else if (rc)
				step_put(&tmp, kk[i], ns);
		}
		for (i = 0; i < nred && !bad; i++)
			if (ticks(c, starts[i], "start_point", r->tick_mhz, &a, r) > 0 &&
			    ticks(c, ends[i], "end_point", r->tick_mhz, &b, r) > 0)
				step_put(&tmp, K_COMM, b - a);
		if (bad) {
			csv_reject(r);
			continue;
		}
		*step_add(r) = tmp;
	}
	csv_end(c, rc, r);
	pd_csv_close(c);
	return ok;
bad:
	pd_diag_status(PD_EXIT_INPUT);
	pd_csv_close(c);
	return 0;
}

/* ---- CANN PROF_ legacy timeline/step_trace_*.json ---- */

struct legacy_timeline {
	struct run *r;
};

static int
id_of(const struct pd_ev *ev, int64_t *id)
{
	return pd_ev_arg_int(ev, "Iteration ID", id);
}

static int
legacy_timeline_event(const struct pd_ev *ev, void *ctx)
{
	struct legacy_timeline *l = ctx;
	struct step *s;
	int64_t id;

	if (ev->ph != 'X' || !ev->has_dur || !id_of(ev, &id))
		return 0;
	if (!(s = step_find(l->r, id))) {
		s = step_add(l->r);
		s->id = id;
		s->has_id = 1;
	}
	if (strcmp(ev->cat, "Iteration Time") == 0 && !s->has_total) {
		s->total = ev->dur_ns;
		s->has_total = 1;
	} else if (strcmp(ev->cat, "FP_BP Time") == 0 && !step_has(s, K_FPBP))
		step_put(s, K_FPBP, ev->dur_ns);
	else if (strcmp(ev->cat, "Iteration Refresh") == 0 &&
	    !step_has(s, K_TAIL))
		step_put(s, K_TAIL, ev->dur_ns);
	else if (strcmp(ev->cat, "Reduce") == 0 && !s->has_span)
		step_put(s, K_COMM, ev->dur_ns);
	return 0;
}

/* Every timeline file of a PROF dir repeats the iterations it holds; an
 * iteration is taken from the first file that has it (has_span marks a
 * step whose Reduce events are complete). */
int
read_legacy_timelines(json_t *root, struct run *r)
{
	struct legacy_timeline l = { r };
	struct pd_trace_cb cb = { 0 };
	const char *p;
	size_t i, k;

	cb.ctx = &l;
	cb.on_event = legacy_timeline_event;
	for (k = 0; (p = pd_root_export(root, "step_trace_timeline", k)); k++) {
		if (!r->path)
			r->path = p;
		trace_view_read(p, &cb, r, 2);
		for (i = 0; i < r->n; i++)
			r->s[i].has_span = 1;
	}
	return r->n > 0;
}
