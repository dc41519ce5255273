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
 * per-step sums. Values are summed as int64 ns. */
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

/* Per-step values, in the order of the record keys. */
enum {
	K_COMP, K_CNO, K_OVL, K_COMM, K_FREE, K_PREP, K_BUBBLE, K_STAGE,
	K_FPBP, K_TAIL, K_N
};

struct step {
	int64_t id;
	int has_id;
	int64_t v[K_N];		/* ns */
	unsigned have;		/* bit per K_ */
	int64_t total;		/* legacy: the iteration time, ns */
	int has_total;
	/* trace lanes: device span of the step */
	int64_t host_start, first, last;
	int has_span;
};

struct run {
	struct step *s;
	size_t n, cap;
	long skipped;		/* rows or events rejected */
	long inexact;		/* numbers in exponent form, kept */
	int truncated;
	int64_t device;
	int has_device;
	int64_t unassigned;	/* trace lanes: ns before the first step */
	int has_unassigned;
	const char *source;	/* export kind */
	const char *path;
	double tick_mhz;	/* legacy MindSpore: counter frequency */
};

static void
run_free(struct run *r)
{
	free(r->s);
	memset(r, 0, sizeof *r);
}

static struct step *
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

static struct step *
step_find(struct run *r, int64_t id)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->s[i].has_id && r->s[i].id == id)
			return &r->s[i];
	return NULL;
}

static void
step_put(struct step *s, int k, int64_t ns)
{
	s->v[k] += ns;
	s->have |= 1u << k;
}

static int
has(const struct step *s, int k)
{
	return (s->have >> k) & 1;
}

/* The step's wall time (see pd-sum-step(1)): the iteration time when the
 * source gives one; else stage + bubble + preparing; else computing +
 * communication not overlapped + free + preparing. */
static int
step_ns(const struct step *s, int64_t *ns)
{
	if (s->has_total) {
		*ns = s->total;
		return 1;
	}
	if (has(s, K_STAGE)) {
		*ns = s->v[K_STAGE] + s->v[K_BUBBLE] + s->v[K_PREP];
		return 1;
	}
	if (has(s, K_COMP) || has(s, K_CNO) || has(s, K_FREE)) {
		*ns = s->v[K_COMP] + s->v[K_CNO] + s->v[K_FREE] + s->v[K_PREP];
		return 1;
	}
	return 0;
}

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
		set_ns(o, keys[order[i]], s->v[order[i]], has(s, order[i]));
	pd_set_null(o, "memcpy_us");
	pd_set_null(o, "memset_us");
	pd_set_null(o, "busy_us");
	set_ns(o, keys[K_FPBP], s->v[K_FPBP], has(s, K_FPBP));
	set_ns(o, keys[K_TAIL], s->v[K_TAIL], has(s, K_TAIL));
	return o;
}

static json_t *
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
			if (has(&r->s[i], k))
				step_put(sum, k, r->s[i].v[k]);
	}
	o = step_json(sum);
	json_object_del(o, "step");
	return o;
}

static void
share(json_t *o, const char *key, const struct step *sum, int k)
{
	if (has(sum, k) && sum->total > 0)
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
static void
emit(json_t *root, struct run *r, int64_t rank, const char *scope,
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

/* ---- CSV sources ---- */

static const char *csv_names[] = {
	"Computing", "Communication(Not Overlapped)", "Overlapped",
	"Communication", "Free", "Preparing", "Bubble", "Stage"
};
/* Columns every variant has; Preparing, Bubble, Stage may be missing. */
enum { CSV_REQUIRED = 5, CSV_COLS = 8 };

struct csvmap {
	int col[CSV_COLS];
	int step, device, type, index;
};

/* Look up the metric columns; an unknown header variant is an error that
 * names the missing columns. Returns 0 when usable. */
static int
csv_map(struct pd_csv *c, struct csvmap *m, int cluster)
{
	char miss[512] = "";
	int i;

	for (i = 0; i < CSV_COLS; i++) {
		m->col[i] = pd_csv_col(c, csv_names[i], NULL);
		if (m->col[i] < 0 && i < CSV_REQUIRED) {
			if (*miss)
				strncat(miss, ", ", sizeof miss - strlen(miss) - 1);
			strncat(miss, "'", sizeof miss - strlen(miss) - 1);
			strncat(miss, csv_names[i], sizeof miss - strlen(miss) - 1);
			strncat(miss, "'", sizeof miss - strlen(miss) - 1);
		}
	}
	m->step = pd_csv_col(c, "Step", NULL);
	m->device = pd_csv_col(c, "Device_id", NULL);
	m->type = pd_csv_col(c, "Type", NULL);
	m->index = pd_csv_col(c, "Index", NULL);
	if (cluster && (m->type < 0 || m->index < 0)) {
		if (*miss)
			strncat(miss, ", ", sizeof miss - strlen(miss) - 1);
		strncat(miss, m->type < 0 ? "'Type'" : "'Index'",
		    sizeof miss - strlen(miss) - 1);
	}
	if (m->step < 0 && !*miss)
		strcpy(miss, "'Step'");
	if (*miss) {
		pd_error(pd_csv_name(c), 1,
		    "unknown header variant: missing column%s %s",
		    strchr(miss, ',') ? "s" : "", miss);
		return -1;
	}
	return 0;
}

/* Read the metric fields of the current row into s. Returns 0, or -1 when
 * the row is rejected (warned, counted). */
static int
csv_row(struct pd_csv *c, const struct csvmap *m, struct run *r,
    struct step *s)
{
	int64_t ns;
	int i, rc;

	for (i = 0; i < CSV_COLS; i++) {
		if (m->col[i] < 0)
			continue;
		rc = pd_csv_us_ns(c, m->col[i], &ns);
		if (rc == PD_NUM_MISSING)
			continue;
		if (rc == PD_NUM_BAD) {
			pd_warn(pd_csv_name(c), pd_csv_line(c),
			    "\"%s\": not a number: %s; row skipped",
			    csv_names[i], pd_csv_quote(c, m->col[i]));
			return -1;
		}
		if (rc == PD_NUM_INEXACT) {
			pd_warn(pd_csv_name(c), pd_csv_line(c),
			    "\"%s\": number in exponent form (edited in a "
			    "spreadsheet?): %s; kept, digits may be lost",
			    csv_names[i], pd_csv_quote(c, m->col[i]));
			r->inexact++;
			pd_diag_status(PD_EXIT_INPUT);
		}
		step_put(s, i, ns);
	}
	rc = pd_csv_int(c, m->step, &s->id);
	if (rc == PD_NUM_OK)
		s->has_id = 1;
	else if (rc != PD_NUM_MISSING) {
		pd_warn(pd_csv_name(c), pd_csv_line(c),
		    "\"Step\": not a step number: %s; row skipped",
		    pd_csv_quote(c, m->step));
		return -1;
	}
	return 0;
}

static void
csv_reject(struct run *r)
{
	r->skipped++;
	pd_diag_status(PD_EXIT_INPUT);
}

/* A read that ended early: say where and mark the record. */
static void
csv_end(struct pd_csv *c, int rc, struct run *r)
{
	if (rc == -2) {
		pd_warn(pd_csv_name(c), pd_csv_line(c),
		    "file ends inside a quoted field; last row skipped");
		r->truncated = 1;
		csv_reject(r);
	} else if (rc < 0) {
		pd_warn(pd_csv_name(c), pd_csv_line(c), "read error");
		r->truncated = 1;
		pd_diag_status(PD_EXIT_SYSTEM);
	}
}

static struct pd_csv *
csv_open(const char *path)
{
	struct pd_csv *c = pd_csv_open(path);

	if (!c) {
		pd_error(path, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
	}
	return c;
}

static int
header(struct pd_csv *c)
{
	int rc = pd_csv_header(c);

	if (rc == 0)
		pd_warn(pd_csv_name(c), 0, "no header row; file skipped");
	pd_csv_header_warn(c, rc);
	return rc;
}

/* step_trace_time.csv: one row per step. Returns 1 when usable. */
static int
read_step_trace_time(const char *path, struct run *r)
{
	struct pd_csv *c = csv_open(path);
	struct csvmap m;
	struct step tmp;
	int rc, ok = 0;
	int64_t dev;

	if (!c)
		return 0;
	if (header(c) <= 0 || csv_map(c, &m, 0) < 0) {
		pd_diag_status(PD_EXIT_INPUT);
		goto out;
	}
	ok = 1;
	while ((rc = pd_csv_next(c)) > 0) {
		memset(&tmp, 0, sizeof tmp);
		if (csv_row(c, &m, r, &tmp) < 0) {
			csv_reject(r);
			continue;
		}
		if (m.device >= 0 && !r->has_device &&
		    pd_csv_int(c, m.device, &dev) == PD_NUM_OK) {
			r->device = dev;
			r->has_device = 1;
		}
		*step_add(r) = tmp;
	}
	csv_end(c, rc, r);
out:
	pd_csv_close(c);
	return ok;
}

/* ---- analysis.db (torch_npu export_type=db) ---- */

static const char *db_names[CSV_COLS] = {
	"computing", "communication_not_overlapped", "overlapped",
	"communication", "free", "preparing", "bubble", "stage"
};

/* analysis.db's StepTraceTime: the columns of step_trace_time.csv, in us
 * (REAL), one row per step (step as text). Returns 1 when usable. */
static int
read_analysis_db(const char *path, struct run *r)
{
	sqlite3 *db = pd_sqlite_open(path);
	sqlite3_stmt *st = NULL;
	int col[CSV_COLS], scol, i, rc, ok = 0;
	long row = 0;

	if (!db)
		return 0;
	if (!pd_sqlite_has_table(db, "StepTraceTime")) {
		pd_warn(path, 0, "no StepTraceTime table (the step breakdown "
		    "of the db export); skipped");
		pd_diag_status(PD_EXIT_INPUT);
		goto out;
	}
	if (sqlite3_prepare_v2(db, "SELECT * FROM StepTraceTime", -1, &st,
	    NULL) != SQLITE_OK) {
		pd_warn(path, 0, "StepTraceTime: %s; skipped",
		    sqlite3_errmsg(db));
		pd_diag_status(PD_EXIT_INPUT);
		goto out;
	}
	for (i = 0; i < CSV_COLS; i++)
		col[i] = pd_sqlite_col(st, db_names[i]);
	scol = pd_sqlite_col(st, "step");
	for (i = 0; i < CSV_REQUIRED; i++)
		if (col[i] < 0) {
			pd_error(path, 0, "StepTraceTime: no column '%s'; "
			    "skipped", db_names[i]);
			pd_diag_status(PD_EXIT_INPUT);
			goto out;
		}
	ok = 1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct step tmp;
		const unsigned char *sv;
		char *end;

		row++;
		memset(&tmp, 0, sizeof tmp);
		for (i = 0; i < CSV_COLS; i++) {
			double us;

			if (col[i] < 0 ||
			    sqlite3_column_type(st, col[i]) == SQLITE_NULL)
				continue;
			us = sqlite3_column_double(st, col[i]);
			if (!isfinite(us) || fabs(us) > 9e12) {
				pd_warn(path, 0, "StepTraceTime row %ld: \"%s\" "
				    "is not a time; row skipped", row,
				    db_names[i]);
				goto reject;
			}
			step_put(&tmp, i, llround(us * 1000));
		}
		if (scol >= 0 && (sv = sqlite3_column_text(st, scol)) && *sv) {
			errno = 0;
			tmp.id = strtoll((const char *)sv, &end, 10);
			if (errno || *end) {
				pd_warn(path, 0, "StepTraceTime row %ld: "
				    "\"step\": not a step number: %s; row "
				    "skipped", row, pd_diag_quote((const char *)sv,
				    (size_t)-1));
				goto reject;
			}
			tmp.has_id = 1;
		}
		*step_add(r) = tmp;
		continue;
reject:
		csv_reject(r);
	}
	if (rc != SQLITE_DONE) {
		pd_warn(path, 0, "StepTraceTime: %s; the rows before are kept",
		    sqlite3_errmsg(db));
		r->truncated = 1;
		pd_diag_status(PD_EXIT_INPUT);
	}
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return ok;
}

/* ---- trace_view.json: the Overlap Analysis lanes ---- */

enum { L_COMP, L_COMM, L_CNO, L_FREE, L_N };
static const char *lane_names[L_N] = {
	"Computing", "Communication", "Communication(Not Overlapped)", "Free"
};
static const int lane_key[L_N] = { K_COMP, K_COMM, K_CNO, K_FREE };

struct thr {
	char *pid, *tid;
	int lane;
};

struct tv {
	struct run *r;
	char **ovl, **hccl;	/* pids of the Overlap Analysis / HCCL lanes */
	size_t novl, nhccl;
	struct thr *thr;	/* threads of any process, lane = -1 if none */
	size_t nthr;
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
tv_meta(const struct pd_ev *ev, void *ctx)
{
	struct tv *t = ctx;
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
			t->thr = realloc(t->thr, (t->nthr + 1) * sizeof *t->thr);
			if (!t->thr)
				pd_oom();
			t->thr[t->nthr].pid = strdup(ev->pid);
			t->thr[t->nthr].tid = strdup(ev->tid);
			t->thr[t->nthr].lane = lane_of(buf);
			t->nthr++;
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
lane_by_thread(struct tv *t, const struct pd_ev *ev)
{
	size_t i;

	for (i = 0; i < t->nthr; i++)
		if (ev->tid && strcmp(t->thr[i].pid, ev->pid) == 0 &&
		    strcmp(t->thr[i].tid, ev->tid) == 0)
			return t->thr[i].lane;
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
tv_lanes(const struct pd_ev *ev, void *ctx)
{
	struct tv *t = ctx;
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
tv_derive(struct tv *t)
{
	size_t i;
	struct step *s;

	for (i = 0; i < t->r->n; i++) {
		s = &t->r->s[i];
		if (!s->has_span)
			continue;
		if (has(s, K_COMM))
			step_put(s, K_OVL, s->v[K_COMM] - s->v[K_CNO]);
		step_put(s, K_STAGE, s->last - s->first - s->v[K_BUBBLE]);
		if (!has(s, K_BUBBLE))
			step_put(s, K_BUBBLE, 0);
		if (t->nsteps_host)
			step_put(s, K_PREP, s->first - s->host_start);
	}
}

static int
tv_read(const char *path, const struct pd_trace_cb *cb, struct run *r,
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
tv_free(struct tv *t)
{
	size_t i;

	for (i = 0; i < t->novl; i++)
		free(t->ovl[i]);
	for (i = 0; i < t->nhccl; i++)
		free(t->hccl[i]);
	for (i = 0; i < t->nthr; i++) {
		free(t->thr[i].pid);
		free(t->thr[i].tid);
	}
	free(t->ovl);
	free(t->hccl);
	free(t->thr);
}

/* Returns 1 when the trace has Overlap Analysis lanes. */
static int
read_trace_view(const char *path, struct run *r)
{
	struct tv t;
	struct pd_trace_cb cb = { 0 };
	struct step *s;
	size_t i, j;
	int ok = 0;

	memset(&t, 0, sizeof t);
	t.r = r;
	cb.ctx = &t;
	cb.on_event = tv_meta;
	if (tv_read(path, &cb, r, 1) < 0)
		goto out;
	if (t.novl && !t.nthr && !r->truncated) {
		pd_warn(path, 0, "\"Overlap Analysis\" has no lane named by "
		    "thread_name metadata; no steps from it");
		pd_diag_status(PD_EXIT_INPUT);
	}
	if (!t.novl || !t.nthr) {
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
	cb.on_event = tv_lanes;
	if (tv_read(path, &cb, r, 2) < 0)
		goto out;
	tv_derive(&t);
	for (i = j = 0; i < r->n; i++)	/* keep the steps with lane events */
		if (r->s[i].has_span)
			r->s[j++] = r->s[i];
	r->n = j;
	ok = r->n > 0;
out:
	tv_free(&t);
	return ok;
}

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

static int
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
	if (header(c) <= 0)
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

struct lt {
	struct run *r;
};

static int
id_of(const struct pd_ev *ev, int64_t *id)
{
	return pd_ev_arg_int(ev, "Iteration ID", id);
}

static int
lt_event(const struct pd_ev *ev, void *ctx)
{
	struct lt *l = ctx;
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
	} else if (strcmp(ev->cat, "FP_BP Time") == 0 && !has(s, K_FPBP))
		step_put(s, K_FPBP, ev->dur_ns);
	else if (strcmp(ev->cat, "Iteration Refresh") == 0 && !has(s, K_TAIL))
		step_put(s, K_TAIL, ev->dur_ns);
	else if (strcmp(ev->cat, "Reduce") == 0 && !s->has_span)
		step_put(s, K_COMM, ev->dur_ns);
	return 0;
}

/* Every timeline file of a PROF dir repeats the iterations it holds; an
 * iteration is taken from the first file that has it (has_span marks a
 * step whose Reduce events are complete). */
static int
read_legacy_timelines(json_t *root, struct run *r)
{
	struct lt l = { r };
	struct pd_trace_cb cb = { 0 };
	const char *p;
	size_t i, k;

	cb.ctx = &l;
	cb.on_event = lt_event;
	for (k = 0; (p = pd_root_export(root, "step_trace_timeline", k)); k++) {
		if (!r->path)
			r->path = p;
		tv_read(p, &cb, r, 2);
		for (i = 0; i < r->n; i++)
			r->s[i].has_span = 1;
	}
	return r->n > 0;
}

/* ---- msprof-analyze cluster_step_trace_time.csv ----
 *
 * One pd.step per rank row (the root is the cluster dir, the rank its own).
 * The stage rows (Index = the rank tuple, each column the maximum over the
 * stage's ranks) are numbered by their lowest rank and summarised in the
 * `stages` array of every rank record; a rank's `stage` is its PP Index
 * column when the file has one, else the number of the stage row holding
 * it. Ranks that per-rank roots of the same run also hold (pd.root
 * `covers`) are emitted all the same: pd-profile takes one unit per rank. */

struct crow {
	int stage;		/* 0 rank row, 1 stage row */
	int64_t rank;		/* rank rows: the rank; stage rows: lowest */
	int64_t pp;		/* PP Index, -1 when none */
	char *index;		/* stage rows: "(0, 1, 2)" */
	json_t *ranks;		/* stage rows: the ranks */
	struct run r;
};

static json_t *
stage_ranks(const char *s)
{
	json_t *a = json_array();
	char *end;
	long v;

	while (*s) {
		if (*s >= '0' && *s <= '9') {
			v = strtol(s, &end, 10);
			json_array_append_new(a, json_integer(v));
			s = end;
		} else
			s++;
	}
	return a;
}

static int
in_ranks(json_t *a, int64_t rank)
{
	json_t *x;
	size_t j;

	json_array_foreach(a, j, x)
		if (json_integer_value(x) == rank)
			return 1;
	return 0;
}

static struct crow *
crow_get(struct crow **v, size_t *n, int stage, int64_t rank,
    const char *index)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i].stage == stage && (stage ?
		    strcmp((*v)[i].index, index) == 0 : (*v)[i].rank == rank))
			return &(*v)[i];
	*v = realloc(*v, (*n + 1) * sizeof **v);
	if (!*v)
		pd_oom();
	memset(&(*v)[*n], 0, sizeof **v);
	(*v)[*n].stage = stage;
	(*v)[*n].rank = rank;
	(*v)[*n].pp = -1;
	(*v)[*n].index = strdup(index);
	if (stage) {
		json_t *a = stage_ranks(index), *x;
		size_t j;

		(*v)[*n].ranks = a;
		(*v)[*n].rank = INT64_MAX;
		json_array_foreach(a, j, x)
			if (json_integer_value(x) < (*v)[*n].rank)
				(*v)[*n].rank = json_integer_value(x);
	}
	return &(*v)[(*n)++];
}

static int
cmp_crow(const void *a, const void *b)
{
	const struct crow *x = a, *y = b;

	if (x->stage != y->stage)
		return x->stage - y->stage;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->stage ? strcmp(x->index, y->index) : 0;
}

/* [{stage, ranks, totals}] of the stage rows (numbered from 0), or null. */
static json_t *
stages_json(struct crow *v, size_t n)
{
	json_t *a = json_array(), *o;
	struct step sum;
	size_t i;
	int k = 0;

	for (i = 0; i < n; i++) {
		if (!v[i].stage)
			continue;
		o = json_object();
		pd_set_int(o, "stage", k++);
		pd_set(o, "ranks", json_incref(v[i].ranks));
		/* the column maxima come from different ranks: their sum is
		 * no step time */
		pd_set(o, "totals", totals_json(&v[i].r, &sum));
		pd_set_null(json_object_get(o, "totals"), "step_us");
		json_array_append_new(a, o);
	}
	if (!k) {
		json_decref(a);
		return json_null();
	}
	return a;
}

static json_t *
stage_index(struct crow *v, size_t n, const struct crow *r)
{
	size_t i;
	int k = 0;

	if (r->pp >= 0)
		return json_integer(r->pp);
	for (i = 0; i < n; i++) {
		if (!v[i].stage)
			continue;
		if (in_ranks(v[i].ranks, r->rank))
			return json_integer(k);
		k++;
	}
	return json_null();
}

static int
read_cluster(json_t *root, const char *path)
{
	struct pd_csv *c = csv_open(path);
	struct csvmap m;
	struct crow *v = NULL, *cr;
	struct run whole = { 0 };
	struct step tmp;
	size_t n = 0, i;
	int rc, stage, ppcol;
	int64_t rank = -1, pp;
	const char *type;
	json_t *stages;

	if (!c)
		return 0;
	if (header(c) <= 0 || csv_map(c, &m, 1) < 0) {
		pd_diag_status(PD_EXIT_INPUT);
		pd_csv_close(c);
		return 0;
	}
	ppcol = pd_csv_col(c, "PP Index", NULL);
	while ((rc = pd_csv_next(c)) > 0) {
		type = pd_csv_field(c, m.type);
		stage = strcmp(type, "stage") == 0;
		if (!stage && (strcmp(type, "rank") != 0 ||
		    pd_csv_int(c, m.index, &rank) != PD_NUM_OK)) {
			pd_warn(path, pd_csv_line(c), "\"Type\", \"Index\": "
			    "not a rank or stage row: %s, %s; row skipped",
			    pd_csv_quote(c, m.type), pd_csv_quote(c, m.index));
			csv_reject(&whole);
			continue;
		}
		memset(&tmp, 0, sizeof tmp);
		cr = crow_get(&v, &n, stage, rank, pd_csv_field(c, m.index));
		if (csv_row(c, &m, &cr->r, &tmp) < 0) {
			csv_reject(&whole);
			continue;
		}
		/* "NA" when msprof-analyze had no parallel layout */
		if (!stage && ppcol >= 0 &&
		    pd_csv_int(c, ppcol, &pp) == PD_NUM_OK && pp >= 0)
			cr->pp = pp;
		*step_add(&cr->r) = tmp;
	}
	csv_end(c, rc, &whole);
	pd_csv_close(c);
	if (n)
		qsort(v, n, sizeof *v, cmp_crow);
	stages = stages_json(v, n);
	for (i = 0; i < n; i++) {
		v[i].r.source = "cluster_step_trace_time";
		v[i].r.path = path;
		v[i].r.skipped = whole.skipped;
		v[i].r.truncated = whole.truncated;
		if (!v[i].stage)
			emit(root, &v[i].r, v[i].rank, "rank",
			    stage_index(v, n, &v[i]), stages);
	}
	for (i = 0; i < n; i++) {
		run_free(&v[i].r);
		free(v[i].index);
		json_decref(v[i].ranks);
	}
	json_decref(stages);
	free(v);
	return 1;
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
	emit(root, &r, -2, "rank", NULL, NULL);
	run_free(&r);
	return 0;
}
