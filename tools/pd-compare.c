/* pd-compare: before/after verification of a change.
 *
 * Reads: two record streams, one per side: -b BEFORE -a AFTER (or the
 *   operands BEFORE AFTER), each a file of records (the output of the
 *   pipeline, ideally through pd-classify) or a dump directory, which is
 *   put through pd-locate | pd-sum-* | pd-hotspots | pd-profile |
 *   pd-classify first. With neither, stdin holds both: the first run to
 *   appear is "before", the second "after".
 * Writes: the after side's records (all of stdin in stdin mode), then one
 *   pd.comparison: per-metric deltas with a noise-aware verdict, whether
 *   the dominant bottleneck improved, and the operator-level diff.
 * Aggregates: holds the summary records of both sides. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pd_diag.h"
#include "pd_tool.h"
#include "pd_path.h"
#include "pd_rec.h"
#include "pd_recfile.h"
#include "pd_runs.h"
#include "pd_stats.h"

static const char usage[] =
    "usage: pd-compare [-eq] [-t tolerance] -b BEFORE -a AFTER\n"
    "       pd-compare [-eq] [-t tolerance] BEFORE AFTER\n"
    "       pd-compare [-eq] [-t tolerance] < both.jsonl\n"
    "  compares two runs (files of records, or dump directories that are\n"
    "  diagnosed first) and appends one pd.comparison\n"
    "  -b FILE|DIR  the run before the change\n"
    "  -a FILE|DIR  the run after the change\n"
    "  -t X         relative tolerance for metrics without per-step spread\n"
    "               (default 0.01); shares use it as absolute points\n"
    "  -e           exit 1 when the run regressed\n"
    "  -q           no warnings\n"
    "  -h, --help   this help\n"
    "  --version    the version\n";

#define OP_CHANGE 0.05	/* an operator is slower/faster beyond 5 % ... */
#define OP_MIN_US 1.0	/* ... and 1 us */

static double tol = 0.01;
static int found;	/* -e: exit 1 on a regression */

struct side {
	const char *src;
	struct pd_runs *runs;
	struct pd_run *run;
	json_t *order;		/* run ids in order of appearance (stdin) */
};

/* ---- reading ---- */

static int
on_record(json_t *rec, void *ctx)
{
	struct side *s = ctx;
	json_t *id = json_object_get(rec, "run");
	size_t i;

	pd_runs_add(s->runs, rec);
	if (!s->order || !(id || pd_rec_is(rec, "pd.root")))
		return 0;
	if (!json_is_string(id))	/* as pd_runs: not a string -> null run */
		id = json_null();
	for (i = 0; i < json_array_size(s->order); i++)
		if (json_equal(json_array_get(s->order, i), id))
			return 0;
	json_array_append(s->order, id);
	return 0;
}

static int
load(struct side *s, const char *path, int forward)
{
	struct pd_stream st;
	struct stat sb;

	memset(&st, 0, sizeof st);
	st.ctx = s;
	st.on_record = on_record;
	st.no_passthrough = !forward;
	s->src = path;
	if (stat(path, &sb) != 0) {
		pd_error(path, 0, "%s", strerror(errno));
		return PD_EXIT_SYSTEM;
	}
	if (pd_recfile_is_dump(path))
		return pd_recfile_dir(&st, path, "pd-classify", 100000);
	return pd_recfile_read(&st, path);
}

/* The side's run: the first run that has roots (a warning if more). */
static void
pick_run(struct side *s, const char *label)
{
	size_t i, n = pd_runs_group(s->runs), have = 0;

	for (i = 0; i < n; i++) {
		struct pd_run *u = pd_runs_get(s->runs, i);

		if (!json_array_size(u->roots))
			continue;
		if (!s->run)
			s->run = u;
		have++;
	}
	if (have > 1)
		pd_warn(s->src, 0, "%zu runs on the %s side; comparing the "
		    "first", have, label);
}

/* ---- metrics ---- */

/* A metric of both sides. nz is lib's noise rule (pd_noise_rule): from
 * the per-step spread where sb and sa hold the steps (n >= 2), else the
 * floor alone. */
struct metric {
	const char *name, *better;
	double before, after;
	struct pd_noise nz;
	struct pd_summary sb, sa;	/* the per-step values; n 0 if none */
};

static struct pd_summary
no_steps(void)
{
	struct pd_summary s;
	struct pd_vec v = { 0, 0, 0 };

	pd_stats(&v, &s);
	return s;
}

/* Mean and spread of a per-step quantity pooled over the run's roots:
 * num/den of each step of "list" (den NULL: num itself). */
static struct pd_summary
per_step(struct pd_run *u, const char *list, const char *num,
    const char *den)
{
	struct pd_vec v = { 0, 0, 0 };
	struct pd_summary s;
	const char *root;
	json_t *view;
	size_t i;

	json_object_foreach(u->views, root, view) {
		json_t *a = pd_path_get(view, list);

		for (i = 0; i < json_array_size(a); i++) {
			json_t *st = json_array_get(a, i);
			double x = pd_path_num(st, num);
			double d = den ? pd_path_num(st, den) : 1;

			if (!isnan(x) && !isnan(d) && d > 0)
				pd_vec_push(&v, x / d);
		}
	}
	pd_stats(&v, &s);
	pd_vec_free(&v);
	return s;
}

static double
over_roots(struct pd_run *u, const char *path, int max)
{
	const char *root;
	json_t *v;
	double sum = 0, best = NAN;
	int n = 0;

	json_object_foreach(u->views, root, v) {
		double x = pd_path_num(v, path);

		if (isnan(x))
			continue;
		sum += x;
		n++;
		if (isnan(best) || x > best)
			best = x;
	}
	return !n ? NAN : max ? best : sum / n;
}

static const char *
verdict(const struct metric *m)
{
	return pd_noise_verdict(m->after - m->before, &m->nz,
	    !strcmp(m->better, "lower"));
}

/* Steps per run that would settle an inconclusive metric: the two-sample
 * size of pd_noise_samples at the measured per-step spreads, for the
 * difference of the per-step means (in their unit: step_us for
 * steps_per_s); -1 when the metric is not inconclusive or has no per-step
 * spread. */
static long
steps_needed(const struct metric *m)
{
	const char *v = verdict(m);

	if (!v || strcmp(v, "inconclusive") || m->sb.n < 2 || m->sa.n < 2)
		return -1;
	return pd_noise_samples(m->sb.stdev, m->sa.stdev, m->sa.mean -
	    m->sb.mean);
}

static json_t *
metric_json(const struct metric *m)
{
	json_t *o = json_object();
	int dec = strstr(m->name, "_ratio") ? 4 : strstr(m->name, "_bytes") ?
	    0 : strstr(m->name, "per_s") ? 4 : 3;
	double d = m->after - m->before;
	long need = steps_needed(m);

	pd_set_str(o, "metric", m->name);
	pd_set_real(o, "before", m->before, dec);
	pd_set_real(o, "after", m->after, dec);
	pd_set_real(o, "delta", d, dec);
	pd_set_real(o, "delta_ratio", m->before != 0 ? d / fabs(m->before) :
	    NAN, 4);
	pd_set_real(o, "noise", verdict(m) ? m->nz.noise : NAN, dec);
	pd_set_str(o, "better", m->better);
	pd_set_str(o, "verdict", verdict(m));
	pd_set(o, "steps_needed", need > 0 ? json_integer(need) : json_null());
	return o;
}

/* The rule with only its floors (no per-step spread). */
static struct pd_noise
floors(double before, double rel, double abs)
{
	struct pd_summary s = no_steps();
	struct pd_noise nz;

	s.mean = before;
	pd_noise_rule(&s, &s, rel, abs, &nz);
	return nz;
}

struct share_def {
	const char *name, *list, *num, *den, *path;
	int max;
};

static const struct share_def shares[] = {
	{ "computing_ratio", "step.steps", "computing_us", "step_us",
	    "step.shares.computing_ratio", 0 },
	{ "comm_not_overlapped_ratio", "step.steps", "comm_not_overlapped_us",
	    "step_us", "step.shares.comm_not_overlapped_ratio", 0 },
	{ "free_ratio", "step.steps", "free_us", "step_us",
	    "step.shares.free_ratio", 0 },
	{ "input_ratio", "input.steps", "input_us", "step_us",
	    "input.input_ratio", 0 },
	{ "idle_ratio", NULL, NULL, NULL, "gaps.idle_ratio", 0 },
	{ "hotspot_ratio", NULL, NULL, NULL, "hotspot.top[0].ratio", 1 },
	{ NULL, NULL, NULL, NULL, NULL, 0 }
};

/* The metrics of both sides; *noises: share name -> its noise rule (as
 * [floor, noise]), for the dominant bottleneck. */
static json_t *
metrics(struct pd_run *b, struct pd_run *a, json_t **noises)
{
	json_t *arr = json_array();
	struct pd_summary sb = per_step(b, "step.steps", "step_us", NULL);
	struct pd_summary sa = per_step(a, "step.steps", "step_us", NULL);
	struct metric m;
	int i;

	*noises = json_object();
	if (sb.n || sa.n) {
		m = (struct metric){ "step_us", "lower", sb.mean, sa.mean,
		    { 0, 0, 0 }, sb, sa };
		pd_noise_rule(&sb, &sa, tol, 0, &m.nz);
		json_array_append_new(arr, metric_json(&m));
		/* throughput: the same relative noise and floor */
		m.name = "steps_per_s";
		m.better = "higher";
		m.before = sb.mean > 0 ? 1e6 / sb.mean : NAN;
		m.after = sa.mean > 0 ? 1e6 / sa.mean : NAN;
		m.nz.floor *= sb.mean > 0 ? m.before / sb.mean : NAN;
		m.nz.noise *= sb.mean > 0 ? m.before / sb.mean : NAN;
		json_array_append_new(arr, metric_json(&m));
	}
	{
		static const char *mem[] = { "peak_allocated_bytes",
		    "peak_reserved_bytes", NULL };
		char path[64];

		for (i = 0; mem[i]; i++) {
			snprintf(path, sizeof path, "mem.%s", mem[i]);
			m = (struct metric){ mem[i], "lower",
			    over_roots(b, path, 1), over_roots(a, path, 1),
			    { 0, 0, 0 }, no_steps(), no_steps() };
			if (isnan(m.before) && isnan(m.after))
				continue;
			m.nz = floors(m.before, tol, 0);
			json_array_append_new(arr, metric_json(&m));
		}
	}
	for (i = 0; shares[i].name; i++) {
		const struct share_def *d = &shares[i];

		m = (struct metric){ d->name, "lower",
		    over_roots(b, d->path, d->max),
		    over_roots(a, d->path, d->max), { 0, 0, 0 }, no_steps(),
		    no_steps() };
		if (isnan(m.before) && isnan(m.after))
			continue;
		if (!strcmp(d->name, "computing_ratio"))
			m.better = "higher";
		if (d->list) {
			m.sb = per_step(b, d->list, d->num, d->den);
			m.sa = per_step(a, d->list, d->num, d->den);
		}
		pd_noise_rule(&m.sb, &m.sa, 0, tol, &m.nz);
		json_object_set_new(*noises, d->name, json_pack("[f,f]",
		    m.nz.floor, m.nz.noise));
		json_array_append_new(arr, metric_json(&m));
	}
	return arr;
}

/* ---- dominant bottleneck ---- */

static json_t *
dominant_of(struct pd_run *u)
{
	size_t i;

	for (i = 0; i < json_array_size(u->bottlenecks); i++) {
		json_t *b = json_array_get(u->bottlenecks, i);

		if (json_is_true(json_object_get(b, "dominant")))
			return b;
	}
	return NULL;
}

static json_t *
rule_in(struct pd_run *u, const char *rule)
{
	size_t i;

	for (i = 0; i < json_array_size(u->bottlenecks); i++) {
		json_t *b = json_array_get(u->bottlenecks, i);
		const char *r = pd_rec_str(b, "rule");

		if (r && !strcmp(r, rule))
			return b;
	}
	return NULL;
}

static const char *
domain_metric(const char *domain)
{
	static const char *map[][2] = {
		{ "compute", "computing_ratio" },
		{ "input_pipeline", "input_ratio" },
		{ "communication", "comm_not_overlapped_ratio" },
		{ "host_overhead", "free_ratio" },
		{ "operator_hotspot", "hotspot_ratio" },
		{ NULL, NULL }
	};
	int i;

	for (i = 0; domain && map[i][0]; i++)
		if (!strcmp(domain, map[i][0]))
			return map[i][1];
	return NULL;
}

static json_t *
dominant(struct pd_run *b, struct pd_run *a, json_t *noises)
{
	json_t *db = dominant_of(b), *da = dominant_of(a), *same, *o;
	const char *rule, *dm;
	struct metric m;
	json_t *nz;

	if (!db || !(rule = pd_rec_str(db, "rule")) || !strcmp(rule, "none"))
		return json_null();
	same = rule_in(a, rule);
	dm = domain_metric(pd_rec_str(db, "domain"));
	nz = dm ? json_object_get(noises, dm) : NULL;
	m = (struct metric){ "impact", "lower",
	    pd_rec_num(db, "impact", NAN),
	    same ? pd_rec_num(same, "impact", NAN) : 0,
	    floors(NAN, 0, tol), no_steps(), no_steps() };
	if (json_array_size(nz) == 2) {	/* the share's rule: [floor, noise] */
		m.nz.floor = json_number_value(json_array_get(nz, 0));
		m.nz.noise = json_number_value(json_array_get(nz, 1));
	}
	o = json_object();
	pd_set_str(o, "rule", rule);
	pd_set_str(o, "domain", pd_rec_str(db, "domain"));
	pd_set_str(o, "metric", "impact");
	pd_set_real(o, "before", m.before, 4);
	pd_set_real(o, "after", m.after, 4);
	pd_set_str(o, "after_rule", da ? pd_rec_str(da, "rule") : NULL);
	pd_set_bool(o, "fired_after", same != NULL);
	pd_set_str(o, "verdict", a->bottlenecks && json_array_size(
	    a->bottlenecks) ? verdict(&m) : NULL);
	return o;
}

/* ---- operator diff ---- */

/* The two lists of pd.hotspot an operator is read from. */
static const char *const lists[2][3] = {
	{ "hotspot.top", "total_us", "hotspot.top_rest" },
	{ "hotspot.cpu_ops", "self_us", "hotspot.cpu_ops_rest" }
};

/* What a side's list of one kind says of an operator it does not list,
 * over the side's roots: whole (every root's list is uncut, so the
 * operator is absent) and max_us, the most it can have taken (per root:
 * 0 when uncut, else the smaller of the smallest time listed and the
 * time left out; NAN when a root has no list). */
struct cut {
	int whole;
	double max_us;
};

static struct cut
cut_of(struct pd_run *u, int l)
{
	struct cut c = { 1, 0 };
	const char *root;
	json_t *v;

	json_object_foreach(u->views, root, v) {
		json_t *a = pd_path_get(v, lists[l][0]);
		json_t *rest = pd_path_get(v, lists[l][2]);
		double least, left;

		if (!json_is_array(a)) {
			c.whole = 0;
			c.max_us = NAN;
			continue;
		}
		if (!json_array_size(a))	/* nothing to cut */
			continue;
		least = pd_rec_num(json_array_get(a, json_array_size(a) - 1),
		    lists[l][1], NAN);
		left = pd_rec_num(rest, lists[l][1], NAN);
		if (json_is_object(rest) && pd_rec_num(rest, "count", NAN) == 0)
			continue;
		c.whole = 0;	/* cut, or records that do not say */
		c.max_us += isnan(left) ? least : fmin(least, left);
	}
	return c;
}

/* Whether any root of the run has a pd.hotspot. */
static int
has_hotspot(struct pd_run *u)
{
	const char *root;
	json_t *v;

	json_object_foreach(u->views, root, v)
		if (json_object_get(v, "hotspot"))
			return 1;
	return 0;
}

/* name -> [count, us, list] summed over the run's pd.hotspot top and
 * cpu_ops (list 0 or 1: where the name was found first). */
static json_t *
op_table(struct pd_run *u)
{
	json_t *t = json_object(), *v;
	const char *root;
	size_t i;

	json_object_foreach(u->views, root, v) {
		json_t *seen = json_object();
		int l;

		for (l = 0; l < 2; l++) {
			json_t *a = pd_path_get(v, lists[l][0]);

			for (i = 0; i < json_array_size(a); i++) {
				json_t *e = json_array_get(a, i), *c;
				const char *n = pd_rec_str(e, "name");
				double us = pd_rec_num(e, lists[l][1], NAN);

				if (!n || isnan(us) || (l == 1 &&
				    json_object_get(seen, n) && !json_object_get(
				    json_object_get(seen, n), "cpu")))
					continue;
				if (l == 0)
					json_object_set_new(seen, n, json_object());
				if (!(c = json_object_get(t, n))) {
					c = json_pack("[f,f,i]", 0.0, 0.0, l);
					json_object_set_new(t, n, c);
				}
				json_array_set_new(c, 0, json_real(
				    json_number_value(json_array_get(c, 0)) +
				    pd_rec_num(e, "count", 0)));
				json_array_set_new(c, 1, json_real(
				    json_number_value(json_array_get(c, 1)) + us));
			}
		}
		json_decref(seen);
	}
	return t;
}

/* An entry; cut_side: the side that does not list the operator (below its
 * cut), whose time is at most max_us; NULL when both list it. */
static json_t *
op_entry(const char *name, json_t *b, json_t *a, const char *cut_side,
    double max_us)
{
	json_t *o = json_object();
	double bu = b ? json_number_value(json_array_get(b, 1)) : NAN;
	double au = a ? json_number_value(json_array_get(a, 1)) : NAN;
	double d;

	pd_set_str(o, "name", name);
	pd_set(o, "before_count", b ? json_integer((json_int_t)
	    json_number_value(json_array_get(b, 0))) : json_null());
	pd_set(o, "after_count", a ? json_integer((json_int_t)
	    json_number_value(json_array_get(a, 0))) : json_null());
	pd_set_real(o, "before_us", bu, 3);
	pd_set_real(o, "after_us", au, 3);
	if (cut_side)	/* the least change, or none known */
		d = isnan(max_us) ? NAN : b ? max_us - bu : au - max_us;
	else
		d = (isnan(au) ? 0 : au) - (isnan(bu) ? 0 : bu);
	pd_set_real(o, "delta_us", d, 3);
	pd_set_str(o, "below_cut", cut_side);
	pd_set_real(o, "max_us", cut_side ? max_us : NAN, 3);
	return o;
}

/* By |delta_us| descending (the time listed for an entry without one),
 * then name. */
static double
weight(json_t *e)
{
	double d = pd_rec_num(e, "delta_us", NAN);

	if (isnan(d))
		d = pd_rec_num(e, json_is_null(json_object_get(e, "before_us")) ?
		    "after_us" : "before_us", 0);
	return fabs(d);
}

static int
cmp_ops(const void *x, const void *y)
{
	json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;
	double da = weight(a), db = weight(b);

	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(pd_rec_str(a, "name"), pd_rec_str(b, "name"));
}

static json_t *
sorted(json_t *arr)
{
	json_t *out = pd_json_sorted(arr, cmp_ops);

	json_decref(arr);
	return out;
}

struct diff {
	json_t *added, *removed, *slower, *faster, *below;
	int same;
};

/* Whether a change of at least d (signed) from base counts. */
static int
op_changed(double d, double base)
{
	return fabs(d) > OP_MIN_US && fabs(d) > OP_CHANGE * base;
}

/* An operator listed on one side only (x: its entry there; after: whether
 * that is the after side), against what the other side's list says. */
static void
one_side(struct diff *df, const char *name, json_t *x, int after,
    const struct cut *other)
{
	int l = (int)json_number_value(json_array_get(x, 2));
	const struct cut *c = &other[l];
	double us = json_number_value(json_array_get(x, 1));
	const char *side = after ? "before" : "after";
	json_t *b = after ? NULL : x, *a = after ? x : NULL;

	if (c->whole) {
		json_array_append_new(after ? df->added : df->removed,
		    op_entry(name, b, a, NULL, NAN));
	} else if (!isnan(c->max_us) && after && op_changed(us - c->max_us,
	    c->max_us) && us > c->max_us) {
		json_array_append_new(df->slower, op_entry(name, b, a, side,
		    c->max_us));
	} else if (!isnan(c->max_us) && !after && op_changed(us - c->max_us,
	    us) && us > c->max_us) {
		json_array_append_new(df->faster, op_entry(name, b, a, side,
		    c->max_us));
	} else {
		json_t *e = op_entry(name, b, a, side, c->max_us);

		pd_set_null(e, "delta_us");	/* not known */
		json_array_append_new(df->below, e);
	}
}

static json_t *
ops_diff(struct pd_run *b, struct pd_run *a)
{
	json_t *tb, *ta, *o, *x;
	struct diff df;
	struct cut cb[2], ca[2];
	const char *name;
	int l;

	if (!has_hotspot(b) || !has_hotspot(a))
		return json_null();
	tb = op_table(b);
	ta = op_table(a);
	for (l = 0; l < 2; l++) {
		cb[l] = cut_of(b, l);
		ca[l] = cut_of(a, l);
	}
	df = (struct diff){ json_array(), json_array(), json_array(),
	    json_array(), json_array(), 0 };
	json_object_foreach(tb, name, x) {
		json_t *y = json_object_get(ta, name);
		double bu = json_number_value(json_array_get(x, 1)), d;

		if (!y) {
			one_side(&df, name, x, 0, ca);
			continue;
		}
		d = json_number_value(json_array_get(y, 1)) - bu;
		if (op_changed(d, bu))
			json_array_append_new(d > 0 ? df.slower : df.faster,
			    op_entry(name, x, y, NULL, NAN));
		else
			df.same++;
	}
	json_object_foreach(ta, name, x)
		if (!json_object_get(tb, name))
			one_side(&df, name, x, 1, cb);
	o = json_object();
	pd_set(o, "added", sorted(df.added));
	pd_set(o, "removed", sorted(df.removed));
	pd_set(o, "slower", sorted(df.slower));
	pd_set(o, "faster", sorted(df.faster));
	pd_set_int(o, "unchanged", df.same);
	pd_set_int(o, "below_cutoff", (int64_t)json_array_size(df.below));
	pd_set(o, "below_cut", sorted(df.below));
	json_decref(tb);
	json_decref(ta);
	return o;
}

/* ---- the record ---- */

static json_t *
side_json(struct side *s)
{
	json_t *o = json_object();
	struct pd_summary e = per_step(s->run, "step.steps", "step_us", NULL);

	pd_set_str(o, "source", s->src);
	pd_set(o, "run", json_incref(s->run->id));
	pd_set_int(o, "roots", (int64_t)json_array_size(s->run->roots));
	pd_set_int(o, "steps", (int64_t)e.n);
	return o;
}

/* Whether the run's steps are marked (a ProfilerStep or step id): a run
 * without markers has one "step" per root, its trace's span, which is no
 * step time to compare. */
static int
marked(struct pd_run *u)
{
	const char *root;
	json_t *view;
	size_t i;

	json_object_foreach(u->views, root, view) {
		json_t *a = pd_path_get(view, "step.steps");

		for (i = 0; i < json_array_size(a); i++)
			if (!json_is_null(json_object_get(json_array_get(a, i),
			    "step")))
				return 1;
	}
	return 0;
}

static const char *
overall(json_t *ms)
{
	size_t i;
	const char *pick = NULL;

	for (i = 0; i < json_array_size(ms); i++) {
		json_t *m = json_array_get(ms, i);
		const char *n = pd_rec_str(m, "metric");

		if (!strcmp(n, "step_us") || (!pick && !strcmp(n, "steps_per_s")))
			pick = pd_rec_str(m, "verdict");
	}
	return pick ? pick : "unchanged";
}

/* The summary records the metrics and the operator diff are read from. */
static const char *const kinds[] = { "step", "mem", "input", "gaps",
    "hotspot", NULL };

/* "pd.step, pd.mem" for the kinds no root of the run has (have: those it
 * has instead); "" when none. New string. */
static char *
kinds_of(struct pd_run *u, int have)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *root;
	json_t *v;
	int i, any, n = 0;

	if (!f)
		pd_oom();
	for (i = 0; kinds[i]; i++) {
		any = 0;
		json_object_foreach(u->views, root, v)
			any |= json_object_get(v, kinds[i]) != NULL;
		if (any == have)
			fprintf(f, "%spd.%s", n++ ? ", " : "", kinds[i]);
	}
	fclose(f);
	return buf;
}

/* Whether any metric has a verdict, or the operator diff has data. */
static int
comparable(json_t *ms, json_t *ops)
{
	size_t i;

	for (i = 0; i < json_array_size(ms); i++)
		if (pd_rec_str(json_array_get(ms, i), "verdict"))
			return 1;
	return !json_is_null(ops);
}

/* "the before run has pd.step but not pd.mem, ..." (new string) */
static char *
side_kinds(struct pd_run *u, const char *label)
{
	char *has = kinds_of(u, 1), *lacks = kinds_of(u, 0), *r = NULL;
	int rc;

	if (!*has)
		rc = asprintf(&r, "the %s run has none of %s", label, lacks);
	else if (!*lacks)
		rc = asprintf(&r, "the %s run has %s", label, has);
	else
		rc = asprintf(&r, "the %s run has %s but not %s", label, has,
		    lacks);
	if (rc < 0)
		pd_oom();
	free(has);
	free(lacks);
	return r;
}

/* no_data: what each side has and lacks, as the reason and a warning. */
static void
no_data(json_t *c, struct side *b, struct side *a)
{
	char *sb = side_kinds(b->run, "before"), *sa = side_kinds(a->run,
	    "after"), *r = NULL;

	if (asprintf(&r, "nothing both runs have to compare: %s; %s", sb,
	    sa) < 0)
		pd_oom();
	pd_set_str(c, "verdict", "no_data");
	pd_set_str(c, "reason", r);
	pd_warn(a->src, 0, "%s", r);
	free(r);
	free(sb);
	free(sa);
}

/* The overall verdict is the step time's and it is inconclusive: say by
 * how much, and how many steps per run would settle it. */
static void
unsettled(json_t *c, json_t *ms, struct side *a)
{
	json_t *m = json_array_get(ms, 0);
	json_t *nb = json_object_get(json_object_get(c, "before"), "steps");
	json_t *na = json_object_get(json_object_get(c, "after"), "steps");
	json_int_t need = json_integer_value(json_object_get(m,
	    "steps_needed"));
	json_int_t more_b = need - json_integer_value(nb);
	json_int_t more_a = need - json_integer_value(na);
	char *r = NULL;

	if (asprintf(&r, "the step time changed by %.3f us, more than the "
	    "%.3f us that counts but within the per-step noise (%.3f us); "
	    "about %lld steps per run would settle it (%lld more before, "
	    "%lld more after)", pd_rec_num(m, "delta", NAN),
	    tol * fabs(pd_rec_num(m, "before", NAN)),
	    pd_rec_num(m, "noise", NAN), (long long)need,
	    (long long)(more_b > 0 ? more_b : 0),
	    (long long)(more_a > 0 ? more_a : 0)) < 0)
		pd_oom();
	pd_set_str(c, "reason", r);
	pd_warn(a->src, 0, "%s", r);
	free(r);
}

static void
compare(struct side *b, struct side *a)
{
	json_t *c = pd_rec_new("pd.comparison", 1, NULL), *ms, *noises, *ops;
	const char *v;

	pd_set(c, "before", side_json(b));
	pd_set(c, "after", side_json(a));
	ms = metrics(b->run, a->run, &noises);
	pd_set(c, "metrics", ms);
	pd_set(c, "dominant", dominant(b->run, a->run, noises));
	ops = ops_diff(b->run, a->run);
	if (!comparable(ms, ops)) {
		no_data(c, b, a);
	} else if (!marked(b->run) || !marked(a->run)) {
		/* the overall verdict is the step time's: none without steps */
		pd_set_str(c, "verdict", "inconclusive");
		pd_set_str(c, "reason", !marked(b->run) && !marked(a->run) ?
		    "neither run has step markers: each step time is its "
		    "capture's span; only the shares compare" :
		    !marked(b->run) ? "the before run has no step markers: its "
		    "step time is its capture's span" : "the after run has no "
		    "step markers: its step time is its capture's span");
	} else {
		pd_set_str(c, "verdict", v = overall(ms));
		pd_set_null(c, "reason");
		if (!strcmp(v, "inconclusive"))
			unsettled(c, ms, a);
	}
	if (found && !strcmp(pd_rec_str(c, "verdict"), "regressed"))
		pd_diag_status(PD_EXIT_FOUND);
	pd_set(c, "ops", ops);
	json_decref(noises);
	pd_rec_emit(c);
}

/* stdin mode: the first two runs with roots, in order of appearance. */
static void
stdin_sides(struct side *all, struct side *b, struct side *a)
{
	size_t i, n = pd_runs_group(all->runs), k, got = 0;
	struct side *sd[2] = { b, a };

	for (k = 0; k < json_array_size(all->order) && got < 2; k++) {
		json_t *id = json_array_get(all->order, k);

		for (i = 0; i < n; i++) {
			struct pd_run *u = pd_runs_get(all->runs, i);

			if (json_equal(u->id, id) && json_array_size(u->roots)) {
				sd[got]->src = "<stdin>";
				sd[got++]->run = u;
				break;
			}
		}
	}
}

int
main(int argc, char **argv)
{
	struct side b = { 0 }, a = { 0 }, all = { 0 };
	const char *bp = NULL, *ap = NULL;
	int c;

	pd_diag_init(argv[0]);
	while ((c = pd_getopt(argc, argv, "a:b:ehqt:", NULL, usage)) != -1) {
		switch (c) {
		case 'a': ap = optarg; break;
		case 'b': bp = optarg; break;
		case 'e': found = 1; break;
		case 'h': pd_usage_exit(usage, 0);
		case 'q': pd_diag_quiet(1); break;
		case 't':
			tol = pd_opt_real('t', optarg, 0, 1, "tolerance", NULL);
			break;
		default: pd_usage_exit(usage, 2);
		}
	}
	argc -= optind;
	argv += optind;
	if (!bp && argc > 0)
		bp = argv[0], argc--, argv++;
	if (!ap && argc > 0)
		ap = argv[0], argc--, argv++;
	if (bp && !ap) {
		struct stat sb;

		if (stat(bp, &sb) != 0) {
			pd_error(bp, 0, "%s", strerror(errno));
			pd_diag_status(PD_EXIT_SYSTEM);
			return pd_diag_finish();
		}
	}
	if (argc > 0 || (!bp) != (!ap))
		pd_usage_exit(usage, 2);
	if (bp) {
		b.runs = pd_runs_new();
		a.runs = pd_runs_new();
		pd_diag_status(load(&b, bp, 0));
		pd_diag_status(load(&a, ap, 1));
		pick_run(&b, "before");
		pick_run(&a, "after");
	} else {
		struct pd_stream st;

		all.runs = pd_runs_new();
		all.order = json_array();
		memset(&st, 0, sizeof st);
		st.ctx = &all;
		st.on_record = on_record;
		pd_stream_run(&st, 0, NULL);
		stdin_sides(&all, &b, &a);
		if (json_array_size(all.order) > 2)
			pd_warn("<stdin>", 0, "%zu runs; comparing the first two",
			    json_array_size(all.order));
	}
	if (b.run && a.run)
		compare(&b, &a);
	else if (bp || json_array_size(all.order))
		pd_warn(bp ? (b.run ? ap : bp) : "<stdin>", 0,
		    "no run to compare (need a run with roots on each side)");
	pd_runs_free(b.runs);
	pd_runs_free(a.runs);
	pd_runs_free(all.runs);
	json_decref(all.order);
	return pd_diag_finish();
}
