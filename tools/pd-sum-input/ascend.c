/* pd-sum-input for Ascend roots: how much of each step waits for input.
 *
 * Reads, per root: trace_view.json (ProfilerStep#N spans and the host
 * spans whose name contains "dataloader", any case), step_trace_time.csv
 * (the Preparing column) or the legacy MindSpore
 * step_trace_raw_*_detail_time.csv, and the MindSpore dataset files:
 * minddata_pipeline_raw_*.csv (else pipeline_profiling_*.json) for the
 * pipeline's queues, device_queue_profiling_*.txt (else
 * dataset_iterator_profiling_*.txt) for empty-queue records, and
 * minddata_aicpu_*.txt (GetNext waits).
 * When the root has neither trace_view.json nor step_trace_time.csv
 * (torch_npu's export_type=db): the same spans from PYTORCH_API of
 * ascend_pytorch_profiler_{rank}.db (names from STRING_IDS) and Preparing
 * from analysis.db's StepTraceTime.
 * Writes one pd.input per root that has any of them; streams the trace,
 * keeping only step and dataloader spans. */
#include "record.h"
#include "sum_input.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_csv.h"
#include "pd_diag.h"
#include "pd_file.h"
#include "pd_locate.h"
#include "pd_num.h"
#include "pd_rec.h"
#include "pd_sqlite.h"
#include "pd_trace.h"

/* MindInsight: a queue used below this share is "low" (empty side of its
 * [0.6, 0.8] band). */
#define LOW_USAGE 0.6

struct span {
	int64_t start, end, step;
};

struct spans {
	struct span *s;
	size_t n, cap;
};

struct pipe_op {
	int64_t id, parent;
	char type[64];
	int64_t workers;
	double usage;		/* NaN when unknown */
	int64_t child[16];
	int nchild;
};

struct in {
	struct spans steps, loaders;
	long slow_loaders, skipped;
	int truncated;		/* a file ended early */
	json_t *prep;		/* "step" -> [preparing_us, step_us] */
	json_t *sources;
	struct pipe_op *ops;
	size_t nops;
	long q_records, q_empty, gn_records, gn_empty;
	int have_queue, have_getnext;
	double tick_mhz;	/* 0 unless ticks were read */
};

static void
push(struct spans *a, int64_t s, int64_t e, int64_t step)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 64;
		a->s = realloc(a->s, a->cap * sizeof *a->s);
		if (!a->s)
			pd_oom();
	}
	a->s[a->n].start = s;
	a->s[a->n].end = e;
	a->s[a->n].step = step;
	a->n++;
}

static void
add_source(struct in *x, const char *s)
{
	size_t i;

	for (i = 0; i < json_array_size(x->sources); i++)
		if (strcmp(json_string_value(json_array_get(x->sources, i)),
		    s) == 0)
			return;
	json_array_append_new(x->sources, pd_str(s));
}

static int
on_event(const struct pd_ev *ev, void *ctx)
{
	struct in *x = ctx;
	int64_t n;

	if (ev->ph != 'X' || !ev->has_ts || !ev->has_dur)
		return 0;
	if (strncmp(ev->name, "ProfilerStep#", 13) == 0) {
		if (pd_num_int(ev->name + 13, strlen(ev->name + 13), &n) !=
		    PD_NUM_OK)
			n = -1;
		push(&x->steps, ev->ts_ns, ev->ts_ns + ev->dur_ns, n);
	} else if (strcasestr(ev->name, "dataloader")) {
		push(&x->loaders, ev->ts_ns, ev->ts_ns + ev->dur_ns, 0);
		if (ev->dur_ns >= SLOW_LOADER_NS)
			x->slow_loaders++;
	}
	return 0;
}

static int
by_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

/* Nested spans (enumerate(DataLoader) inside dataloader.py __next__)
 * are counted once: merge into a union. */
static void
merge(struct spans *a)
{
	size_t i, k = 0;

	if (!a->n)
		return;
	qsort(a->s, a->n, sizeof *a->s, by_start);
	for (i = 1; i < a->n; i++) {
		if (a->s[i].start <= a->s[k].end) {
			if (a->s[i].end > a->s[k].end)
				a->s[k].end = a->s[i].end;
		} else
			a->s[++k] = a->s[i];
	}
	a->n = k + 1;
}

static void
read_trace(struct in *x, const char *path)
{
	struct pd_trace_cb cb = { 0, on_event, NULL, NULL, NULL };
	struct pd_trace_stats st;
	int r;

	cb.ctx = x;
	r = pd_trace_read(path, &cb, &st);
	if (r < 0) {
		pd_error(path, 0, "%s", pd_file_strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		return;
	}
	if (r > 0) {
		pd_warn(path, st.err_line, "%s: input spans cover the %llu "
		    "events read", st.err, (unsigned long long)st.events);
		pd_diag_status(PD_EXIT_INPUT);
		x->truncated = 1;
	}
	if (x->steps.n || x->loaders.n)
		add_source(x, "trace_view");
	if (x->steps.n > 1)
		qsort(x->steps.s, x->steps.n, sizeof *x->steps.s, by_start);
	merge(&x->loaders);
}

/* The db export: PYTORCH_API spans (ns, as text or integers) whose name
 * is a ProfilerStep#N or holds "dataloader", as from trace_view.json. */
static void
read_api_db(struct in *x, const char *path)
{
	sqlite3 *db = pd_sqlite_open(path);
	sqlite3_stmt *st = NULL;
	int64_t s, e, n;
	const char *name;
	int rc;

	if (!db)
		return;
	if (!pd_sqlite_has_table(db, "PYTORCH_API") ||
	    !pd_sqlite_has_table(db, "STRING_IDS")) {
		pd_warn(path, 0, "no PYTORCH_API or STRING_IDS table: no step "
		    "or dataloader spans in this db");
		pd_diag_status(PD_EXIT_INPUT);
		goto out;
	}
	if (sqlite3_prepare_v2(db, "SELECT p.startNs, p.endNs, s.value FROM "
	    "PYTORCH_API p JOIN STRING_IDS s ON s.id = p.name WHERE s.value "
	    "LIKE 'ProfilerStep#%' OR s.value LIKE '%dataloader%'", -1, &st,
	    NULL) != SQLITE_OK) {
		pd_warn(path, 0, "PYTORCH_API: %s; skipped", sqlite3_errmsg(db));
		pd_diag_status(PD_EXIT_INPUT);
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		name = (const char *)sqlite3_column_text(st, 2);
		if (!name)
			continue;
		if (!pd_sqlite_i64(st, 0, &s) || !pd_sqlite_i64(st, 1, &e) ||
		    e < s) {
			pd_warn(path, 0, "PYTORCH_API: %s: bad startNs or "
			    "endNs; skipped", pd_diag_quote(name, (size_t)-1));
			pd_diag_status(PD_EXIT_INPUT);
			x->skipped++;
			continue;
		}
		if (strncmp(name, "ProfilerStep#", 13) == 0) {
			if (pd_num_int(name + 13, strlen(name + 13), &n) !=
			    PD_NUM_OK)
				n = -1;
			push(&x->steps, s, e, n);
		} else if (strcasestr(name, "dataloader")) {
			push(&x->loaders, s, e, 0);
			if (e - s >= SLOW_LOADER_NS)
				x->slow_loaders++;
		}
	}
	if (rc != SQLITE_DONE) {
		pd_warn(path, 0, "PYTORCH_API: %s; the rows before are kept",
		    sqlite3_errmsg(db));
		pd_diag_status(PD_EXIT_INPUT);
		x->truncated = 1;
	}
	if (x->steps.n || x->loaders.n)
		add_source(x, "ascend_pytorch_profiler_db");
	if (x->steps.n > 1)
		qsort(x->steps.s, x->steps.n, sizeof *x->steps.s, by_start);
	merge(&x->loaders);
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* analysis.db's StepTraceTime: preparing and stage + bubble + preparing
 * per step, in us, as step_trace_time.csv. */
static void
read_steps_db(struct in *x, const char *path)
{
	sqlite3 *db = pd_sqlite_open(path);
	sqlite3_stmt *st = NULL;
	const char *step;
	int rc, n = 0;

	if (!db)
		return;
	if (!pd_sqlite_has_table(db, "StepTraceTime") ||
	    sqlite3_prepare_v2(db, "SELECT step, preparing, stage, bubble "
	    "FROM StepTraceTime", -1, &st, NULL) != SQLITE_OK) {
		/* pd-sum-step says what is wrong with this file */
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		double prep, stage, bub;

		step = (const char *)sqlite3_column_text(st, 0);
		if (!step || sqlite3_column_type(st, 1) == SQLITE_NULL ||
		    sqlite3_column_type(st, 2) == SQLITE_NULL) {
			x->skipped++;
			continue;
		}
		prep = sqlite3_column_double(st, 1);
		stage = sqlite3_column_double(st, 2);
		bub = sqlite3_column_type(st, 3) == SQLITE_NULL ? 0 :
		    sqlite3_column_double(st, 3);
		json_object_set_new(x->prep, step, json_pack("[ff]", prep,
		    stage + bub + prep));
		n++;
	}
	if (rc != SQLITE_DONE) {
		pd_warn(path, 0, "StepTraceTime: %s; the rows before are kept",
		    sqlite3_errmsg(db));
		pd_diag_status(PD_EXIT_INPUT);
		x->truncated = 1;
	}
	if (n)
		add_source(x, "analysis_db");
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void
skip_row(struct in *x, const char *file, long line, const char *what)
{
	pd_warn(file, line, "%s: skipped", what);
	pd_diag_status(PD_EXIT_INPUT);
	x->skipped++;
}

static void
csv_end(struct in *x, struct pd_csv *c, int r)
{
	if (r == -2) {
		skip_row(x, pd_csv_name(c), pd_csv_line(c), "file ends inside "
		    "a quoted field (truncated?): last row");
		x->truncated = 1;
	}
	pd_csv_close(c);
}

/* step_trace_time.csv: Preparing, and the step as Stage + Bubble +
 * Preparing (Stage is the device span less Bubble; Preparing is the time
 * from the step start to the first device activity). */
static void
read_step_trace(struct in *x, const char *path)
{
	static const char *names[] = { "Step", "Stage", "Preparing" };
	struct pd_csv *c = pd_csv_open_header(path);
	int idx[3], bub, r;
	double prep, stage, bubble;
	json_t *v;

	if (!c)
		return;
	idx[0] = pd_csv_col(c, "Step", NULL);
	idx[1] = pd_csv_col(c, "Stage", NULL);
	idx[2] = pd_csv_col(c, "Preparing", NULL);
	bub = pd_csv_col(c, "Bubble", NULL);
	if (idx[2] < 0 && idx[0] >= 0 && idx[1] >= 0) {
		/* before 2024 there was no Preparing column: nothing here */
		pd_csv_close(c);
		return;
	}
	if (pd_csv_require(path, names, idx, 3)) {
		pd_csv_close(c);
		return;
	}
	add_source(x, "step_trace_time");
	while ((r = pd_csv_next(c)) > 0) {
		if (pd_csv_double(c, idx[2], &prep) != PD_NUM_OK ||
		    pd_csv_double(c, idx[1], &stage) != PD_NUM_OK) {
			skip_row(x, path, pd_csv_line(c),
			    "bad Preparing or Stage");
			continue;
		}
		if (bub < 0 || pd_csv_double(c, bub, &bubble) != PD_NUM_OK)
			bubble = 0;
		v = json_pack("[ff]", prep, stage + bubble + prep);
		json_object_set_new(x->prep, pd_csv_field(c, idx[0]), v);
	}
	csv_end(x, c, r);
}

/* MindSpore legacy step_trace_raw_{dev}_detail_time.csv, in counter
 * ticks at 100 MHz (hwts_frequency of the Ascend 910, as pd-sum-step):
 * the iteration interval (previous step end to this step's first op: the
 * data wait) is the input, total the step; the step 0 row is an average. */
#define TICK_MHZ 100.0

static void
read_step_raw(struct in *x, const char *path)
{
	static const char *names[] = { "step_num", "total",
	    "iteration_interval" };
	struct pd_csv *c = pd_csv_open_header(path);
	int idx[3], r, first = 1;
	int64_t step, total, gap;

	if (!c)
		return;
	idx[0] = pd_csv_col(c, "step_num", NULL);
	idx[1] = pd_csv_col(c, "total", NULL);
	idx[2] = pd_csv_col(c, "iteration_interval", NULL);
	if (pd_csv_require(path, names, idx, 3)) {
		pd_csv_close(c);
		return;
	}
	add_source(x, "step_trace_raw_detail_time");
	x->tick_mhz = TICK_MHZ;
	while ((r = pd_csv_next(c)) > 0) {
		if (pd_csv_int(c, idx[0], &step) != PD_NUM_OK ||
		    pd_csv_int(c, idx[1], &total) != PD_NUM_OK ||
		    pd_csv_int(c, idx[2], &gap) != PD_NUM_OK) {
			skip_row(x, path, pd_csv_line(c), "bad tick count");
			continue;
		}
		if (step == 0)
			continue;
		/* the first step has no previous one: its interval is not a
		 * measurement (always 0) */
		json_object_set_new(x->prep, pd_csv_field(c, idx[0]),
		    first ? json_pack("[nf]", total / TICK_MHZ) :
		    json_pack("[ff]", gap / TICK_MHZ, total / TICK_MHZ));
		first = 0;
	}
	csv_end(x, c, r);
}

static struct pipe_op *
new_op(struct in *x)
{
	struct pipe_op *o;

	x->ops = realloc(x->ops, (x->nops + 1) * sizeof *x->ops);
	if (!x->ops)
		pd_oom();
	o = &x->ops[x->nops++];
	memset(o, 0, sizeof *o);
	o->parent = -1;
	o->usage = NAN;
	return o;
}

/* "[2, 3]" -> children */
static void
parse_children(struct pipe_op *o, const char *s)
{
	char *end;
	long v;

	while (*s && o->nchild < 16) {
		if (*s >= '0' && *s <= '9') {
			v = strtol(s, &end, 10);
			o->child[o->nchild++] = v;
			s = end;
		} else
			s++;
	}
}

static void
read_pipeline_csv(struct in *x, const char *path)
{
	static const char *names[] = { "op_id", "op_type",
	    "output_queue_usage_rate", "children_id" };
	struct pd_csv *c = pd_csv_open_header(path);
	int idx[4], par, nw, r;
	struct pipe_op *o;
	int64_t id;

	if (!c)
		return;
	idx[0] = pd_csv_col(c, "op_id", NULL);
	idx[1] = pd_csv_col(c, "op_type", NULL);
	idx[2] = pd_csv_col(c, "output_queue_usage_rate", NULL);
	idx[3] = pd_csv_col(c, "children_id", NULL);
	par = pd_csv_col(c, "parent_id", NULL);
	nw = pd_csv_col(c, "num_workers", NULL);
	if (pd_csv_require(path, names, idx, 4)) {
		pd_csv_close(c);
		return;
	}
	add_source(x, "minddata_pipeline_raw");
	while ((r = pd_csv_next(c)) > 0) {
		if (pd_csv_int(c, idx[0], &id) != PD_NUM_OK) {
			skip_row(x, path, pd_csv_line(c), "bad op_id");
			continue;
		}
		o = new_op(x);
		o->id = id;
		snprintf(o->type, sizeof o->type, "%s", pd_csv_field(c, idx[1]));
		if (pd_csv_double(c, idx[2], &o->usage) != PD_NUM_OK)
			o->usage = NAN;
		if (par < 0 || pd_csv_int(c, par, &o->parent) != PD_NUM_OK)
			o->parent = -1;
		if (nw < 0 || pd_csv_int(c, nw, &o->workers) != PD_NUM_OK)
			o->workers = -1;
		parse_children(o, pd_csv_field(c, idx[3]));
	}
	csv_end(x, c, r);
}

/* pipeline_profiling_{dev}.json: usage = mean(size) / length. */
static void
read_pipeline_json(struct in *x, const char *path)
{
	json_error_t err;
	json_t *j = json_load_file(path, 0, &err), *ops, *op, *q, *sz, *ch;
	size_t i, k;
	struct pipe_op *o;
	double sum;

	if (!j) {
		pd_warn(path, err.line, "%s: file skipped", err.text);
		pd_diag_status(PD_EXIT_INPUT);
		x->skipped++;
		return;
	}
	add_source(x, "pipeline_profiling");
	ops = json_object_get(j, "op_info");
	json_array_foreach(ops, i, op) {
		o = new_op(x);
		o->id = json_integer_value(json_object_get(op, "op_id"));
		snprintf(o->type, sizeof o->type, "%s", json_string_value(
		    json_object_get(op, "op_type")) ?
		    json_string_value(json_object_get(op, "op_type")) : "");
		o->workers = json_is_integer(json_object_get(op,
		    "num_workers")) ? json_integer_value(json_object_get(op,
		    "num_workers")) : -1;
		json_array_foreach(json_object_get(op, "children"), k, ch)
			if (o->nchild < 16)
				o->child[o->nchild++] = json_integer_value(ch);
		q = json_object_get(json_object_get(json_object_get(op,
		    "metrics"), "output_queue"), "length");
		sz = json_object_get(json_object_get(json_object_get(op,
		    "metrics"), "output_queue"), "size");
		if (json_number_value(q) > 0 && json_array_size(sz)) {
			sum = 0;
			json_array_foreach(sz, k, ch)
				sum += json_number_value(ch);
			o->usage = sum / json_array_size(sz) /
			    json_number_value(q);
		}
	}
	for (i = 0; i < x->nops; i++)
		for (k = 0; k < x->nops; k++) {
			int c;

			for (c = 0; c < x->ops[k].nchild; c++)
				if (x->ops[k].child[c] == x->ops[i].id)
					x->ops[i].parent = x->ops[k].id;
		}
	json_decref(j);
}

static struct pipe_op *
find_op(struct in *x, int64_t id)
{
	size_t i;

	for (i = 0; i < x->nops; i++)
		if (x->ops[i].id == id)
			return &x->ops[i];
	return NULL;
}

/* The slowest pipeline op: walk down from the root while some child's
 * output queue is low (the emptiest child first); the op reached is
 * starved while its inputs are not, so it cannot keep up. */
static struct pipe_op *
slowest(struct in *x)
{
	struct pipe_op *root = NULL, *cur, *best, *c;
	size_t i;
	int k, steps = 0;

	for (i = 0; i < x->nops; i++)
		if (x->ops[i].parent < 0 && (!root || x->ops[i].id < root->id))
			root = &x->ops[i];
	for (cur = root; cur && steps++ < 64; cur = best) {
		best = NULL;
		for (k = 0; k < cur->nchild; k++) {
			c = find_op(x, cur->child[k]);
			if (c && c->usage < LOW_USAGE && (!best ||
			    c->usage < best->usage || (c->usage ==
			    best->usage && c->id < best->id)))
				best = c;
		}
		if (!best)
			break;
	}
	if (cur == root && cur && !(cur->usage < LOW_USAGE))
		return NULL;
	return cur;
}

/* device_queue_profiling / dataset_iterator_profiling: "1 capacity step
 * size ..." are queue records (size 0: empty); minddata_aicpu:
 * "GetNext_dequeue_wait start end size". */
static void
read_txt(struct in *x, const char *path, int getnext)
{
	FILE *f = pd_file_fopen(path);
	char line[512], name[64];
	long ln = 0, a, b, c, d;

	if (!f) {
		pd_error(path, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		return;
	}
	add_source(x, getnext ? "minddata_aicpu" : "device_queue_profiling");
	while (fgets(line, sizeof line, f)) {
		ln++;
		if (line[strspn(line, " \t\r\n")] == 0)
			continue;
		if (getnext) {
			if (sscanf(line, "%63s %ld %ld %ld", name, &a, &b,
			    &c) != 4) {
				skip_row(x, path, ln, "malformed GetNext line");
				continue;
			}
			x->have_getnext = 1;
			x->gn_records++;
			x->gn_empty += c == 0;
			continue;
		}
		if (sscanf(line, "%ld %ld %ld %ld", &a, &b, &c, &d) != 4) {
			skip_row(x, path, ln, "malformed queue line");
			continue;
		}
		if (a != 1)
			continue;
		x->have_queue = 1;
		x->q_records++;
		x->q_empty += d == 0;
	}
	fclose(f);
}

static double
ratio(double p, double w)
{
	return w > 0 ? p / w : NAN;
}

static double
overlap(const struct spans *l, int64_t s, int64_t e)
{
	size_t i;
	int64_t t = 0, a, b;

	for (i = 0; i < l->n; i++) {
		a = l->s[i].start > s ? l->s[i].start : s;
		b = l->s[i].end < e ? l->s[i].end : e;
		if (b > a)
			t += b - a;
	}
	return t / 1e3;
}

/* Member i of a [preparing_us, step_us] pair; NaN when null. */
static double
pair(json_t *p, size_t i)
{
	json_t *v = json_array_get(p, i);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void
step_put(struct inputrec *r, int64_t step, int has_step, double in_us,
    double st_us, json_t *prep)
{
	struct inputstep *o = inputrec_step(r);

	o->step = step;
	o->has_step = has_step;
	o->input_us = in_us;
	o->step_us = st_us;
	o->input_ratio = ratio(in_us, st_us);
	o->preparing_us = prep ? pair(prep, 0) : NAN;
}

static void
steps(struct in *x, struct inputrec *r, double *sin, double *sst, long *n)
{
	json_t *prep;
	const char *k;
	size_t i;
	char key[32];
	double in, st;

	if (x->steps.n) {
		for (i = 0; i < x->steps.n; i++) {
			struct span *s = &x->steps.s[i];

			in = x->loaders.n ? overlap(&x->loaders, s->start,
			    s->end) : NAN;
			st = (s->end - s->start) / 1e3;
			snprintf(key, sizeof key, "%lld", (long long)s->step);
			prep = json_object_get(x->prep, key);
			if (!x->loaders.n && prep)
				in = pair(prep, 0);
			step_put(r, s->step, s->step >= 0, in, st, prep);
			if (!isnan(in)) {
				*sin += in;
				*sst += st;
				(*n)++;
			}
		}
		return;
	}
	json_object_foreach(x->prep, k, prep) {
		int64_t sn;
		int ok = pd_num_int(k, strlen(k), &sn) == PD_NUM_OK;

		in = pair(prep, 0);
		st = pair(prep, 1);
		step_put(r, ok ? sn : 0, ok, in, st, prep);
		if (isnan(in) || isnan(st))
			continue;
		*sin += in;
		*sst += st;
		(*n)++;
	}
}

static int
by_id(const void *a, const void *b)
{
	const struct pipe_op *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* After slowest(): sorting moves the ops. */
static void
pipeline(struct in *x, struct inputrec *r)
{
	struct inputop *o;
	size_t i;

	qsort(x->ops, x->nops, sizeof *x->ops, by_id);
	for (i = 0; i < x->nops; i++) {
		o = inputrec_op(r);
		o->op_id = x->ops[i].id;
		o->op_type = x->ops[i].type;
		o->num_workers = x->ops[i].workers;
		o->has_workers = x->ops[i].workers >= 0;
		o->queue_usage_ratio = x->ops[i].usage;
	}
}

static void
emit(struct in *x, json_t *root)
{
	json_t *rec = pd_rec_new("pd.input", 1, root);
	struct inputrec r = { 0 };
	double sin = 0, sst = 0;
	long n = 0;
	size_t i;
	char buf[256] = "";
	struct pipe_op *slow;
	char slow_type[sizeof slow->type];

	for (i = 0; i < json_array_size(x->sources); i++)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s",
		    i ? "+" : "", json_string_value(json_array_get(x->sources,
		    i)));
	pd_set_str(rec, "source", buf);
	steps(x, &r, &sin, &sst, &n);
	r.input_us_mean = n ? sin / n : NAN;
	r.input_ratio = n ? ratio(sin, sst) : NAN;
	r.queue_empty_ratio = x->have_queue ? ratio(x->q_empty,
	    x->q_records) : NAN;
	slow = slowest(x);
	if (slow) {
		/* a copy: pipeline() sorts the ops */
		snprintf(slow_type, sizeof slow_type, "%s", slow->type);
		r.has_slowest_op = 1;
		r.slowest_op.op_id = slow->id;
		r.slowest_op.op_type = slow_type;
		r.slowest_op.queue_usage_ratio = slow->usage;
	}
	r.dataloader_spans = (int64_t)x->loaders.n;
	r.slow_dataloader_calls = x->slow_loaders;
	r.first_call_us = NAN;
	r.getnext_empty_ratio = x->have_getnext ? ratio(x->gn_empty,
	    x->gn_records) : NAN;
	if (x->nops)
		pipeline(x, &r);
	r.tick_mhz = x->tick_mhz > 0 ? x->tick_mhz : NAN;
	r.skipped = x->skipped;
	r.truncated = x->truncated;
	inputrec_write(rec, &r);
}

int
sum_input_ascend(json_t *root, const struct pd_tool *t)
{
	struct in x;
	const char *p;

	(void)t;
	memset(&x, 0, sizeof x);
	x.prep = json_object();
	x.sources = json_array();
	if ((p = pd_root_export(root, "trace_view", 0)))
		read_trace(&x, p);
	if ((p = pd_root_export(root, "step_trace_time", 0)))
		read_step_trace(&x, p);
	if (!pd_root_export(root, "trace_view", 0) &&
	    !pd_root_export(root, "step_trace_time", 0) &&
	    (p = pd_root_export(root, "ascend_pytorch_profiler_db", 0))) {
		read_api_db(&x, p);
		if ((p = pd_root_export(root, "analysis_db", 0)))
			read_steps_db(&x, p);
	}
	if (!json_object_size(x.prep) &&
	    (p = pd_root_export(root, "step_trace_raw_detail_time", 0)))
		read_step_raw(&x, p);
	if ((p = pd_root_export(root, "minddata_pipeline_raw", 0)))
		read_pipeline_csv(&x, p);
	else if ((p = pd_root_export(root, "pipeline_profiling", 0)))
		read_pipeline_json(&x, p);
	if ((p = pd_root_export(root, "device_queue_profiling", 0)) ||
	    (p = pd_root_export(root, "dataset_iterator_profiling", 0)))
		read_txt(&x, p, 0);
	if ((p = pd_root_export(root, "minddata_aicpu", 0)))
		read_txt(&x, p, 1);
	if (json_array_size(x.sources))
		emit(&x, root);
	free(x.steps.s);
	free(x.loaders.s);
	free(x.ops);
	json_decref(x.prep);
	json_decref(x.sources);
	return 0;
}
