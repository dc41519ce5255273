/* pd-sum-step for Ascend roots: the Overlap Analysis lanes of
 * trace_view.json summed per ProfilerStep#N (two passes: metadata and
 * steps first, then the lanes). */
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

/* ---- trace_view.json: the Overlap Analysis lanes ---- */

enum { L_COMP, L_COMM, L_CNO, L_FREE, L_N };
static const char *lane_names[L_N] = {
	"Computing", "Communication", "Communication(Not Overlapped)", "Free"
};
static const int lane_key[L_N] = { K_COMP, K_COMM, K_CNO, K_FREE };

struct lane_thread {
	char *pid, *tid;
	int lane;
};

struct trace_view {
	struct run *r;
	char **ovl, **hccl;	/* pids of the Overlap Analysis / HCCL lanes */
	size_t novl, nhccl;
	/* threads of any process, lane = -1 if none */
	struct lane_thread *threads;
	size_t nthreads;
	int nsteps_host;
};

static void
strv_add(char ***v, size_t *n, const char *s)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp((*v)[i], s) == 0)
			return;
	*v = realloc(*v, (*n + 1) * sizeof **v);
	if (!*v || !((*v)[*n] = strdup(s)))
		pd_oom();
	(*n)++;
}

static int
strv_has(char **v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

static int
lane_of(const char *name)
{
	int i;

	for (i = 0; i < L_N; i++)
		if (strcmp(name, lane_names[i]) == 0)
			return i;
	return -1;
}

static int
trace_view_meta(const struct pd_ev *ev, void *ctx)
{
	struct trace_view *t = ctx;
	char buf[256];
	struct step *s;
	const char *p;

	if (ev->ph == 'M' && ev->pid &&
	    pd_ev_arg_str(ev, "name", buf, sizeof buf)) {
		if (strcmp(ev->name, "process_name") == 0) {
			if (strcmp(buf, "Overlap Analysis") == 0)
				strv_add(&t->ovl, &t->novl, ev->pid);
			else if (strcmp(buf, "HCCL") == 0 ||
			    strcmp(buf, "Communication") == 0)
				strv_add(&t->hccl, &t->nhccl, ev->pid);
		} else if (strcmp(ev->name, "thread_name") == 0 && ev->tid &&
		    lane_of(buf) >= 0) {
			t->threads = realloc(t->threads, (t->nthreads + 1) *
			    sizeof *t->threads);
			if (!t->threads)
				pd_oom();
			t->threads[t->nthreads].pid = strdup(ev->pid);
			t->threads[t->nthreads].tid = strdup(ev->tid);
			t->threads[t->nthreads].lane = lane_of(buf);
			t->nthreads++;
		}
		return 0;
	}
	if (ev->ph == 'X' && ev->has_ts &&
	    strncmp(ev->name, "ProfilerStep#", 13) == 0) {
		p = ev->name + 13;
		s = step_add(t->r);
		s->host_start = ev->ts_ns;
		if (pd_num_int(p, strlen(p), &s->id) == PD_NUM_OK)
			s->has_id = 1;
		t->nsteps_host++;
	}
	return 0;
}

static int
lane_by_thread(struct trace_view *t, const struct pd_ev *ev)
{
	size_t i;

	for (i = 0; i < t->nthreads; i++)
		if (ev->tid && strcmp(t->threads[i].pid, ev->pid) == 0 &&
		    strcmp(t->threads[i].tid, ev->tid) == 0)
			return t->threads[i].lane;
	return -1;
}

/* The step whose host window holds ts: the last one starting at or before
 * it (steps sorted by host start). NULL before the first step. */
static struct step *
step_at(struct run *r, int64_t ts)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->s[mid].host_start <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &r->s[lo - 1] : NULL;
}

static int
trace_view_lanes(const struct pd_ev *ev, void *ctx)
{
	struct trace_view *t = ctx;
	struct step *s;
	int lane;

	if (ev->ph != 'X' || !ev->pid || !ev->has_ts)
		return 0;
	if (strv_has(t->ovl, t->novl, ev->pid)) {
		lane = lane_by_thread(t, ev);
		if (lane < 0)
			return 0;
		if (!(s = step_at(t->r, ev->ts_ns))) {
			t->r->unassigned += ev->dur_ns;
			return 0;
		}
		step_put(s, lane_key[lane], ev->dur_ns);
		if (!s->has_span || ev->ts_ns < s->first)
			s->first = ev->ts_ns;
		if (!s->has_span || ev->ts_ns + ev->dur_ns > s->last)
			s->last = ev->ts_ns + ev->dur_ns;
		s->has_span = 1;
	} else if (strv_has(t->hccl, t->nhccl, ev->pid) &&
	    strncmp(ev->name, "hcom_receive", 12) == 0) {
		if ((s = step_at(t->r, ev->ts_ns)))
			step_put(s, K_BUBBLE, ev->dur_ns);
	}
	return 0;
}

static int
cmp_host(const void *a, const void *b)
{
	const struct step *x = a, *y = b;

	return x->host_start < y->host_start ? -1 :
	    x->host_start > y->host_start;
}

/* Derived values: overlapped = communication - not overlapped; stage =
 * device span - bubble; preparing = first lane event - host step start. */
static void
trace_view_derive(struct trace_view *t)
{
	size_t i;
	struct step *s;

	for (i = 0; i < t->r->n; i++) {
		s = &t->r->s[i];
		if (!s->has_span)
			continue;
		if (step_has(s, K_COMM))
			step_put(s, K_OVL, s->v[K_COMM] - s->v[K_CNO]);
		step_put(s, K_STAGE, s->last - s->first - s->v[K_BUBBLE]);
		if (!step_has(s, K_BUBBLE))
			step_put(s, K_BUBBLE, 0);
		if (t->nsteps_host)
			step_put(s, K_PREP, s->first - s->host_start);
	}
}

int
trace_view_read(const char *path, const struct pd_trace_cb *cb, struct run *r,
    int pass)
{
	struct pd_trace_stats st;
	int rc = pd_trace_read(path, cb, &st);

	if (rc < 0) {
		pd_error(path, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		return -1;
	}
	if (st.skipped)
		r->skipped += (long)st.skipped;
	if (rc == 1 && pass == 1)
		r->truncated = 1;
	if (rc == 1 && pass == 2) {
		pd_warn(path, st.err_line, "%s; summary of the %llu events "
		    "before it", st.err, (unsigned long long)st.events);
		r->truncated = 1;
		pd_diag_status(PD_EXIT_INPUT);
	}
	if (st.skipped && pass == 2) {
		pd_warn(path, 0, "%llu events skipped (not objects or bad "
		    "ts/dur)", (unsigned long long)st.skipped);
		pd_diag_status(PD_EXIT_INPUT);
	}
	return 0;
}

static void
trace_view_free(struct trace_view *t)
{
	size_t i;

	for (i = 0; i < t->novl; i++)
		free(t->ovl[i]);
	for (i = 0; i < t->nhccl; i++)
		free(t->hccl[i]);
	for (i = 0; i < t->nthreads; i++) {
		free(t->threads[i].pid);
		free(t->threads[i].tid);
	}
	free(t->ovl);
	free(t->hccl);
	free(t->threads);
}

/* Returns 1 when the trace has Overlap Analysis lanes. */
int
read_trace_view(const char *path, struct run *r)
{
	struct trace_view t;
	struct pd_trace_cb cb = { 0 };
	struct step *s;
	size_t i, j;
	int ok = 0;

	memset(&t, 0, sizeof t);
	t.r = r;
	cb.ctx = &t;
	cb.on_event = trace_view_meta;
	if (trace_view_read(path, &cb, r, 1) < 0)
		goto out;
	if (t.novl && !t.nthreads && !r->truncated) {
		pd_warn(path, 0, "\"Overlap Analysis\" has no lane named by "
		    "thread_name metadata; no steps from it");
		pd_diag_status(PD_EXIT_INPUT);
	}
	if (!t.novl || !t.nthreads) {
		if (r->truncated) {
			pd_warn(path, 0, "no Overlap Analysis lanes before the "
			    "file ends; no steps from it");
			pd_diag_status(PD_EXIT_INPUT);
		}
		r->n = 0;
		goto out;
	}
	if (r->n == 0) {
		s = step_add(r);	/* no ProfilerStep: one step, no id */
		s->host_start = INT64_MIN;
	}
	if (r->n)
		qsort(r->s, r->n, sizeof *r->s, cmp_host);
	r->skipped = 0;
	r->has_unassigned = 1;
	cb.on_event = trace_view_lanes;
	if (trace_view_read(path, &cb, r, 2) < 0)
		goto out;
	trace_view_derive(&t);
	for (i = j = 0; i < r->n; i++)	/* keep the steps with lane events */
		if (r->s[i].has_span)
			r->s[j++] = r->s[i];
	r->n = j;
	ok = r->n > 0;
out:
	trace_view_free(&t);
	return ok;
}
