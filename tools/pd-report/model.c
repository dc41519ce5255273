/* report.json: the source of truth of a report, built from one run's
 * records. The Markdown and HTML pages are drawn from this document only,
 * so the three forms cannot disagree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pd_archive.h"
#include "pd_diag.h"
#include "pd_num.h"
#include "pd_rec.h"
#include "pd_stats.h"
#include "report.h"

#define TIMELINE_MAX 240	/* points of the memory timeline kept */
#define SERIES_MAX 200		/* steps of the per-step series kept */
#define HIST_BINS 20		/* bins of the per-rank histogram */
#define UTIL_MAX 240		/* points of a utilization series kept */
#define SLOWEST 5		/* ranks listed as the slowest */

static const struct { const char *type, *tool; } producers[] = {
	{ "pd.context", "pd-find-context" }, { "pd.finding", "pd-find-context" },
	{ "pd.root", "pd-locate" }, { "pd.step", "pd-sum-step" },
	{ "pd.comm", "pd-sum-comm" }, { "pd.mem", "pd-sum-mem" },
	{ "pd.input", "pd-sum-input" }, { "pd.gaps", "pd-sum-gaps" },
	{ "pd.hotspot", "pd-hotspots" }, { "pd.profile", "pd-profile" },
	{ "pd.bottleneck", "pd-classify" }, { "pd.comparison", "pd-compare" },
	{ "pd.limits", "pd-audit-limits" }, { "pd.verdict", "pd-audit-limits" },
	{ "pd.run", "pd-collect" }, { "pd.sample", "pd-collect" },
	{ "pd.inject", "pd-inject" }, { NULL, NULL }
};

static const char *summaries[] = {
	"step", "comm", "mem", "input", "gaps", "hotspot", NULL
};

static const char *segments[] = {
	"computing_us", "comm_not_overlapped_us", "free_us", "preparing_us",
	"bubble_us", NULL
};

const char *
report_producer(const char *type)
{
	int i;

	for (i = 0; producers[i].type; i++)
		if (strcmp(producers[i].type, type) == 0)
			return producers[i].tool;
	return NULL;
}

static json_t *
get(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return v ? v : json_null();
}

/* Copy o[key] (or null) into d[key]. */
static void
copy(json_t *d, json_t *o, const char *key)
{
	json_object_set(d, key, get(o, key));
}

static int
rank_cmp(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	json_t *rx = json_object_get(x, "rank"), *ry = json_object_get(y, "rank");
	int nx = json_is_integer(rx), ny = json_is_integer(ry);

	if (nx != ny)
		return ny - nx;	/* known ranks first */
	if (nx && json_integer_value(rx) != json_integer_value(ry))
		return json_integer_value(rx) < json_integer_value(ry) ? -1 : 1;
	return strcmp(json_string_value(json_object_get(x, "root")),
	    json_string_value(json_object_get(y, "root")));
}

/* Whether the record's root has one view per rank (a cluster-wide export
 * of many ranks) rather than one of its own. */
static int
many_ranks(struct pd_run *run, json_t *rec)
{
	return !json_object_get(run->views, pd_rec_str(rec, "root"));
}

static int
same_rank(json_t *x, json_t *y)
{
	json_t *rx = json_object_get(x, "rank"), *ry = json_object_get(y, "rank");

	return json_is_integer(rx) && json_is_integer(ry) &&
	    json_integer_value(rx) == json_integer_value(ry);
}

/* The records of one type in the run, one per root and rank, sorted by
 * rank then root (borrowed, in a new array). A rank seen in a cluster-wide
 * root and in its own is shown once, as pd-profile uses it: its step from
 * the cluster-wide root (aligned with the other ranks), its other
 * summaries from its own root. */
static json_t *
per_root(struct pd_run *run, const char *kind)
{
	json_t *a = json_array(), *v, *out, *seen = json_object();
	const char *root;
	size_t i, n, j;
	json_t **tmp;
	int want_many = pd_runs_from_cluster(kind);

	json_object_foreach(run->views, root, v) {
		json_t *r = json_object_get(v, kind);
		char key[32];

		if (!r || !json_is_string(json_object_get(r, "root")))
			continue;
		/* a root's rank-less record is in each of its rank views */
		snprintf(key, sizeof key, "%p", (void *)r);
		if (json_object_get(seen, key))
			continue;
		json_object_set_new(seen, key, json_true());
		json_array_append(a, r);
	}
	json_decref(seen);
	n = json_array_size(a);
	tmp = malloc(sizeof *tmp * (n ? n : 1));
	if (!tmp)
		pd_oom();
	for (i = 0; i < n; i++)
		tmp[i] = json_array_get(a, i);
	qsort(tmp, n, sizeof *tmp, rank_cmp);
	out = json_array();
	for (i = 0; i < n; i = j) {
		json_t *pick = tmp[i];

		for (j = i + 1; j < n && same_rank(tmp[i], tmp[j]); j++)
			if (many_ranks(run, tmp[j]) == want_many &&
			    many_ranks(run, pick) != want_many)
				pick = tmp[j];
		json_array_append(out, pick);
	}
	free(tmp);
	json_decref(a);
	return out;
}

static int
pos_cmp(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	int64_t px = pd_rec_int(x, "position", INT32_MAX);
	int64_t py = pd_rec_int(y, "position", INT32_MAX);
	const char *rx = pd_rec_str(x, "rule"), *ry = pd_rec_str(y, "rule");

	if (px != py)
		return px < py ? -1 : 1;
	return strcmp(rx ? rx : "", ry ? ry : "");
}

/* The run's pd.bottleneck records that name a candidate (rule "none"
 * left out), sorted by position (borrowed, new array). */
static json_t *
candidates(struct pd_run *run)
{
	size_t i, n = json_array_size(run->bottlenecks), k = 0;
	json_t **tmp = malloc(sizeof *tmp * (n ? n : 1));
	json_t *a = json_array();

	for (i = 0; i < n; i++) {
		json_t *b = json_array_get(run->bottlenecks, i);
		const char *rule = pd_rec_str(b, "rule");

		if (rule && strcmp(rule, "none") != 0)
			tmp[k++] = b;
	}
	qsort(tmp, k, sizeof *tmp, pos_cmp);
	for (i = 0; i < k; i++)
		json_array_append(a, tmp[i]);
	free(tmp);
	return a;
}

static json_t *
dominant_of(json_t *cands)
{
	size_t i;
	json_t *b;

	json_array_foreach(cands, i, b)
		if (json_is_true(json_object_get(b, "dominant")))
			return b;
	return json_array_get(cands, 0);
}

static json_t *
candidate(json_t *b)
{
	static const char *keys[] = {
		"position", "dominant", "rule", "title", "domain", "severity",
		"impact", "impact_estimated", "confidence", "confidence_level",
		"evidence",
		"validation", "hints", "fix", "handoff", "operator", "root",
		"rank", "fired_roots", "checked_roots", "source",
		"explained_by", NULL
	};
	json_t *c = json_object();
	int i;

	for (i = 0; keys[i]; i++)
		copy(c, b, keys[i]);
	return c;
}

static json_t *
symptom(struct pd_run *run, json_t *dom)
{
	json_t *s = json_object(), *p = run->profile;
	char line[1024];

	copy(s, p, "symptom");
	copy(s, p, "metric");
	if (dom)
		snprintf(line, sizeof line, "%s (%s): impact %s, "
		    "confidence %s", pd_rec_str(dom, "title") ?
		    pd_rec_str(dom, "title") : pd_rec_str(dom, "rule"),
		    pd_rec_str(dom, "rule"), fmt_ratio(get(dom, "impact")),
		    fmt_ratio(get(dom, "confidence")));
	else if (json_array_size(run->bottlenecks))
		snprintf(line, sizeof line, "no bottleneck rule fired");
	else if (p)
		snprintf(line, sizeof line, "not classified (run pd-classify)");
	else
		snprintf(line, sizeof line, "no diagnosis in the stream "
		    "(run pd-profile and pd-classify)");
	pd_set_str(s, "summary", line);
	return s;
}

static json_t *
workload(struct pd_run *run)
{
	json_t *w = json_object(), *p = run->profile, *c = run->context;

	copy(w, p, "workload");
	copy(w, p, "workload_source");
	copy(w, p, "stack");
	/* the ranks pd-profile counted (a cluster-wide root holds many),
	 * else the roots */
	json_object_set_new(w, "ranks", json_is_integer(json_object_get(p,
	    "ranks")) ? json_incref(json_object_get(p, "ranks")) :
	    json_integer((json_int_t)json_array_size(run->roots)));
	json_object_set(w, "world_size", json_is_integer(json_object_get(p,
	    "world_size")) ? get(p, "world_size") : get(c, "world_size"));
	if (json_is_string(json_object_get(c, "entry_script")))
		copy(w, c, "entry_script");
	else
		json_object_set(w, "entry_script", json_array_get(json_object_get(
		    c, "entry_scripts"), 0) ? json_array_get(json_object_get(c,
		    "entry_scripts"), 0) : json_null());
	copy(w, c, "launcher");
	return w;
}

static json_t *
runtime(struct pd_run *run)
{
	json_t *r = json_object(), *p = run->profile;

	copy(r, p, "step");
	copy(r, p, "shares");
	copy(r, p, "domains");
	copy(r, p, "confidence");
	copy(r, p, "confidence_level");
	copy(r, p, "cross_rank");
	return r;
}

static json_t *
sources(struct pd_run *run, struct report_in *in)
{
	json_t *s = json_object(), *roots = per_root(run, "root");
	json_t *recs = json_array(), *tools = json_array(), *ra = json_array();
	json_t *sum = json_array(), *v;
	const char *type;
	size_t i;
	int k;

	json_object_foreach(in->counts, type, v) {
		json_t *e = json_object();
		const char *tool = report_producer(type);

		pd_set_str(e, "type", type);
		json_object_set(e, "count", v);
		pd_set_str(e, "tool", tool);
		json_array_append_new(recs, e);
		if (tool) {
			json_t *t;
			int dup = 0;

			json_array_foreach(tools, i, t)
				dup |= strcmp(json_string_value(t), tool) == 0;
			if (!dup)
				json_array_append_new(tools, json_string(tool));
		}
	}
	json_array_foreach(roots, i, v) {
		json_t *e = json_object(), *x;
		size_t j, nfiles = 0;

		copy(e, v, "root");
		copy(e, v, "rank");
		copy(e, v, "format");
		json_array_foreach(json_object_get(v, "exports"), j, x)
			nfiles++;
		json_object_set_new(e, "files", json_integer((json_int_t)nfiles));
		json_array_append_new(ra, e);
	}
	for (k = 0; summaries[k]; k++) {
		json_t *a = per_root(run, summaries[k]);

		json_array_foreach(a, i, v) {
			json_t *e = json_object();
			char t[32];

			snprintf(t, sizeof t, "pd.%s", summaries[k]);
			pd_set_str(e, "type", t);
			pd_set_str(e, "tool", report_producer(t));
			copy(e, v, "root");
			copy(e, v, "rank");
			copy(e, v, "source");
			json_array_append_new(sum, e);
		}
		json_decref(a);
	}
	sort_strings(tools);
	json_object_set_new(s, "tools", tools);
	json_object_set_new(s, "records", recs);
	json_object_set_new(s, "roots", ra);
	json_object_set_new(s, "summaries", sum);
	json_decref(roots);
	return s;
}

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(json_string_value(*(json_t *const *)a),
	    json_string_value(*(json_t *const *)b));
}

void
sort_strings(json_t *a)
{
	size_t i, n = json_array_size(a);
	json_t **tmp = malloc(sizeof *tmp * (n ? n : 1));

	for (i = 0; i < n; i++)
		tmp[i] = json_incref(json_array_get(a, i));
	qsort(tmp, n, sizeof *tmp, str_cmp);
	json_array_clear(a);
	for (i = 0; i < n; i++)
		json_array_append_new(a, tmp[i]);
	free(tmp);
}

static void
add_action(json_t *a, const char *s)
{
	size_t i;
	json_t *v;

	if (!s || !*s)
		return;
	json_array_foreach(a, i, v)
		if (strcmp(json_string_value(v), s) == 0)
			return;
	json_array_append_new(a, json_string(s));
}

static json_t *
next_actions(struct pd_run *run, json_t *dom, int compared)
{
	json_t *a = json_array(), *v;
	char buf[1024];
	size_t i;

	if (dom) {
		const char *change = json_string_value(
		    json_object_get(json_object_get(dom, "fix"), "change"));

		if (change) {
			snprintf(buf, sizeof buf, "try the proposed fix: %s",
			    change);
			add_action(a, buf);
		}
		json_array_foreach(json_object_get(dom, "validation"), i, v) {
			snprintf(buf, sizeof buf, "confirm: %s",
			    json_string_value(v) ? json_string_value(v) : "");
			add_action(a, buf);
		}
	}
	json_array_foreach(json_object_get(run->profile, "next_actions"), i, v)
		add_action(a, json_string_value(v));
	if (!run->profile && json_array_size(run->roots) == 0 &&
	    json_array_size(run->bottlenecks) == 0)
		add_action(a, "profile the job and run pd-locate, pd-profile "
		    "and pd-classify on its profiler output");
	else if (!run->profile)
		add_action(a, "run pd-profile and pd-classify on the stream");
	if (dom && !compared)
		add_action(a, "profile again after the change and compare the "
		    "two runs with pd-compare");
	return a;
}

static double
num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static json_t *
steps_by_rank(struct pd_run *run)
{
	json_t *a = json_array(), *steps = per_root(run, "step"), *s;
	size_t i;

	json_array_foreach(steps, i, s) {
		json_t *e = json_object(), *seg = json_object();
		json_t *tot = json_object_get(s, "totals");
		json_t *st = json_object_get(s, "step_stats");
		double n = num(st, "n"), mean = num(st, "mean"), sum = 0, x;
		int k, known = 0;

		if (!(n > 0))
			n = (double)pd_runs_array_size(s, "steps");
		if (isnan(mean) && n > 0)
			mean = num(tot, "step_us") / n;
		copy(e, s, "rank");
		copy(e, s, "root");
		copy(e, s, "source");
		if (n > 0)
			pd_set_int(e, "steps", (int64_t)llround(n));
		else
			pd_set_null(e, "steps");
		pd_set_real(e, "mean_us", mean, 3);
		for (k = 0; segments[k]; k++) {
			x = n > 0 ? num(tot, segments[k]) / n : NAN;

			pd_set_real(seg, segments[k], x, 3);
			if (!isnan(x)) {
				sum += x;
				known++;
			}
		}
		/* No device breakdown (a CPU-only trace): the data-loading
		 * time of pd.input, when there is one, splits the step. */
		x = NAN;
		if (!known) {
			json_t *in = json_object_get(pd_runs_view(run,
			    pd_rec_str(s, "root"), json_object_get(s, "rank")),
			    "input");

			x = num(in, "input_us_mean");
			if (!isnan(x)) {
				sum += x;
				known++;
			}
		}
		pd_set_real(seg, "input_us", x, 3);
		/* no breakdown at all: other is unknown, not the whole step */
		pd_set_real(seg, "other_us", isnan(mean) || !known ? NAN :
		    (mean - sum > 0.0005 ? mean - sum : 0), 3);
		json_object_set_new(e, "segments", seg);
		json_array_append_new(a, e);
	}
	json_decref(steps);
	return a;
}

/* The per-step series of one rank: the slowest by mean step (the lowest
 * rank of a tie), its pd.step "steps" (the first SERIES_MAX), each with
 * its step time and the parts the source has. null without steps. */
static json_t *
step_series(struct pd_run *run, json_t *byrank)
{
	static const char *keys[] = { "step", "step_us", "computing_us",
	    "comm_not_overlapped_us", "free_us", "preparing_us", "bubble_us",
	    NULL };
	json_t *steps = per_root(run, "step"), *s, *pick = NULL, *o, *a, *e;
	double best = NAN;
	size_t i, n;
	int k;

	json_array_foreach(steps, i, s) {
		double m = num(json_array_get(byrank, i), "mean_us");

		if (pd_runs_array_size(s, "steps") == 0)
			continue;
		if (!pick || (!isnan(m) && !(m <= best))) {
			pick = s;
			best = m;
		}
	}
	if (!pick) {
		json_decref(steps);
		return json_null();
	}
	o = json_object();
	copy(o, pick, "rank");
	copy(o, pick, "root");
	copy(o, pick, "source");
	n = json_array_size(steps);
	pd_set_str(o, "chosen", n == 1 ? "only" : "slowest");
	pd_set_int(o, "ranks", (int64_t)n);
	a = pd_runs_array(pick, "steps");
	pd_set_int(o, "steps_total", (int64_t)json_array_size(a));
	json_object_set_new(o, "steps", json_array());
	json_array_foreach(a, i, e) {
		json_t *x = json_object();

		if (i >= SERIES_MAX) {
			json_decref(x);
			break;
		}
		for (k = 0; keys[k]; k++)
			copy(x, e, keys[k]);
		json_array_append_new(json_object_get(o, "steps"), x);
	}
	json_decref(a);
	json_decref(steps);
	return o;
}

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The distribution of the ranks' mean step (steps_by_rank): min, median
 * (the mean of the two middle values for an even count), max and their
 * ranks, a histogram of HIST_BINS equal bins from min to max (a value is
 * in the bin [lo, hi), the last bin holds max), and the SLOWEST slowest
 * ranks (by mean step, then by position). null without a mean step. */
static json_t *
rank_stats(json_t *byrank)
{
	size_t i, n = 0, k, m = json_array_size(byrank);
	double *v = pd_xmalloc(sizeof *v * (m ? m : 1)), lo, hi, w;
	json_t *o, *e, *h, *slow;
	int64_t cnt[HIST_BINS] = { 0 };
	char *used = pd_xmalloc(m ? m : 1);
	int b;

	json_array_foreach(byrank, i, e)
		if (!isnan(num(e, "mean_us")) && isfinite(num(e, "mean_us")))
			v[n++] = num(e, "mean_us");
	if (n == 0) {
		free(v);
		free(used);
		return json_null();
	}
	qsort(v, n, sizeof *v, dbl_cmp);
	lo = v[0];
	hi = v[n - 1];
	o = json_object();
	pd_set_int(o, "ranks", (int64_t)n);
	pd_set_real(o, "min_us", lo, 3);
	pd_set_real(o, "median_us", n % 2 ? v[n / 2] :
	    (v[n / 2 - 1] + v[n / 2]) / 2, 3);
	pd_set_real(o, "max_us", hi, 3);
	w = (hi - lo) / HIST_BINS;
	for (i = 0; i < n; i++) {
		b = w > 0 ? (int)((v[i] - lo) / w) : 0;
		cnt[b >= HIST_BINS ? HIST_BINS - 1 : b]++;
	}
	h = json_array();
	for (b = 0; b < HIST_BINS && (w > 0 || b == 0); b++) {
		json_t *x = json_object();

		pd_set_real(x, "lo_us", lo + w * b, 3);
		pd_set_real(x, "hi_us", w > 0 ? lo + w * (b + 1) : hi, 3);
		pd_set_int(x, "count", cnt[b]);
		json_array_append_new(h, x);
	}
	json_object_set_new(o, "histogram", h);
	/* the slowest, by a selection over what is left */
	slow = json_array();
	memset(used, 0, m ? m : 1);
	for (k = 0; k < SLOWEST && k < n; k++) {
		size_t best = m;

		json_array_foreach(byrank, i, e) {
			double x = num(e, "mean_us");

			if (used[i] || isnan(x) || !isfinite(x))
				continue;
			if (best == m || x > num(json_array_get(byrank, best),
			    "mean_us"))
				best = i;
		}
		used[best] = 1;
		e = json_array_get(byrank, best);
		h = json_object();
		copy(h, e, "rank");
		copy(h, e, "mean_us");
		json_array_append_new(slow, h);
		if (k == 0)
			json_object_set(o, "max_rank", get(e, "rank"));
	}
	json_object_set_new(o, "slowest", slow);
	/* the fastest rank, the first of a tie */
	k = m;
	json_array_foreach(byrank, i, e)
		if (!isnan(num(e, "mean_us")) && isfinite(num(e, "mean_us")) &&
		    (k == m || num(e, "mean_us") < num(json_array_get(byrank,
		    k), "mean_us")))
			k = i;
	json_object_set(o, "min_rank", get(json_array_get(byrank, k), "rank"));
	free(v);
	free(used);
	return o;
}

static int
hot_cmp(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	double tx = num(x, "total_us"), ty = num(y, "total_us");

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return strcmp(pd_rec_str(x, "name"), pd_rec_str(y, "name"));
}

/* Merge the top lists of every root's pd.hotspot by name. Device
 * operators (top) when any root has them, else host operators (cpu_ops,
 * by self time). ratio = the name's time / the summed total_us of the
 * pd.hotspot records (for cpu_ops: / the summed self time listed). */
static json_t *
hotspots(struct pd_run *run, int topn)
{
	json_t *h = json_object(), *recs = per_root(run, "hotspot"), *r, *e;
	json_t *by = json_object(), *top = json_array();
	const char *list = "top", *tkey = "total_us", *name;
	double total = 0, ptotal = 0;
	size_t i, j, n;
	json_t **tmp;

	json_array_foreach(recs, i, r)
		if (json_array_size(json_object_get(r, "top")) == 0)
			continue;
		else
			goto found;
	list = "cpu_ops";
	tkey = "self_us";
found:
	json_array_foreach(recs, i, r) {
		if (strcmp(list, "top") == 0 && !isnan(num(r, "total_us")))
			total += num(r, "total_us");
		if (!isnan(num(get(r, "critical_path"), "total_us")))
			ptotal += num(get(r, "critical_path"), "total_us");
		json_array_foreach(json_object_get(r, list), j, e) {
			json_t *m;

			name = pd_rec_str(e, "name");
			if (!name)
				continue;
			if (!(m = json_object_get(by, name))) {
				m = json_object();
				pd_set_str(m, "name", name);
				copy(m, e, "type");
				pd_set_int(m, "count", 0);
				pd_set_real(m, "total_us", 0, 3);
				json_object_set_new(by, name, m);
			}
			if (!isnan(num(e, "critical_us")))
				pd_set_real(m, "critical_us", (isnan(num(m,
				    "critical_us")) ? 0 : num(m, "critical_us")) +
				    num(e, "critical_us"), 3);
			pd_set_int(m, "count", pd_num_add_sat(pd_rec_int(m,
			    "count", 0), pd_rec_int(e, "count", 0)));
			if (!isnan(num(e, tkey)))
				pd_set_real(m, "total_us", num(m, "total_us") +
				    num(e, tkey), 3);
			if (strcmp(list, "cpu_ops") == 0 && !isnan(num(e, tkey)))
				total += num(e, tkey);
		}
	}
	n = json_object_size(by);
	tmp = malloc(sizeof *tmp * (n ? n : 1));
	i = 0;
	json_object_foreach(by, name, e)
		tmp[i++] = e;
	qsort(tmp, n, sizeof *tmp, hot_cmp);
	for (i = 0; i < n && (int)i < topn; i++) {
		double cus = num(tmp[i], "critical_us");

		json_object_del(tmp[i], "critical_us");
		pd_set_real(tmp[i], "ratio", total > 0 ?
		    num(tmp[i], "total_us") / total : NAN, 4);
		/* of the summed critical paths of the roots that have one */
		pd_set_real(tmp[i], "critical_us", cus, 3);
		pd_set_real(tmp[i], "critical_ratio", ptotal > 0 ?
		    cus / ptotal : NAN, 4);
		json_array_append(top, tmp[i]);
	}
	free(tmp);
	pd_set_str(h, "kind", json_array_size(recs) == 0 ? NULL :
	    strcmp(list, "top") == 0 ? "device" : "host");
	pd_set_real(h, "total_us", json_array_size(recs) ? total : NAN, 3);
	json_object_set_new(h, "top", top);
	json_decref(by);
	json_decref(recs);
	return h;
}

/* One timeline point from a pd.mem "timeline" element: an object with a
 * time (t_us, ts_us or ts_ns) and allocated_bytes / reserved_bytes, or a
 * device's [ts_ns, allocated, reserved] (Kineto memory events). */
static json_t *
mem_point(json_t *e)
{
	json_t *p = json_object();
	double t = num(e, "t_us");

	if (json_is_array(e)) {
		pd_set_real(p, "t_us", json_number_value(json_array_get(e, 0)) /
		    1000, 3);
		json_object_set(p, "allocated_bytes", json_array_get(e, 1));
		json_object_set(p, "reserved_bytes", json_array_get(e, 2));
		return p;
	}

	if (isnan(t))
		t = num(e, "ts_us");
	if (isnan(t) && !isnan(num(e, "ts_ns")))
		t = num(e, "ts_ns") / 1000;
	if (isnan(t) && !isnan(num(e, "t_ns")))
		t = num(e, "t_ns") / 1000;
	pd_set_real(p, "t_us", t, 3);
	copy(p, e, "allocated_bytes");
	copy(p, e, "reserved_bytes");
	return p;
}

/* The device of a pd.mem whose peak is the record's, when it carries a
 * timeline of its own (Kineto); NULL otherwise. */
static json_t *
mem_device(json_t *r)
{
	json_t *d, *best = NULL;
	size_t i;

	json_array_foreach(json_object_get(r, "devices"), i, d)
		if (json_array_size(json_object_get(d, "timeline")) > 0 &&
		    (!best || num(d, "peak_allocated_bytes") >
		    num(best, "peak_allocated_bytes")))
			best = d;
	return best;
}

static json_t *
memory(struct pd_run *run)
{
	json_t *m = json_object(), *recs = per_root(run, "mem"), *r;
	json_t *dev = json_array(), *tl = json_null();
	double alloc = NAN, res = NAN, cap = NAN, ratio = NAN;
	size_t i, j;

	json_array_foreach(recs, i, r) {
		json_t *e = json_object(), *t = json_object_get(r, "timeline");
		json_t *d = mem_device(r);
		double a = num(r, "peak_allocated_bytes");
		double b = num(r, "peak_reserved_bytes");
		double c = num(r, "capacity_bytes");
		double q = num(r, "peak_ratio");

		if (json_array_size(t) == 0 && d)
			t = json_object_get(d, "timeline");
		copy(e, r, "rank");
		copy(e, r, "root");
		copy(e, r, "peak_allocated_bytes");
		copy(e, r, "peak_reserved_bytes");
		copy(e, r, "capacity_bytes");
		copy(e, r, "peak_ratio");
		json_array_append_new(dev, e);
		if (!isnan(a) && !(a <= alloc))
			alloc = a;
		if (!isnan(b) && !(b <= res))
			res = b;
		if (!isnan(c) && !(c <= cap))
			cap = c;
		if (!isnan(q) && !(q <= ratio))
			ratio = q;
		if (json_is_null(tl) && json_array_size(t) > 0) {
			size_t n = json_array_size(t);
			size_t step = (n + TIMELINE_MAX - 1) / TIMELINE_MAX;
			json_t *e2;

			tl = json_object();
			copy(tl, r, "rank");
			copy(tl, r, "root");
			json_object_set_new(tl, "points", json_array());
			if (d) {
				copy(tl, d, "device");
				copy(tl, d, "phases");
			}
			for (j = 0; j < n; j += step) {
				e2 = json_array_get(t, j);
				json_array_append_new(json_object_get(tl,
				    "points"), mem_point(e2));
			}
			if ((n - 1) % step)
				json_array_append_new(json_object_get(tl,
				    "points"), mem_point(json_array_get(t,
				    n - 1)));
		}
	}
	pd_set_real(m, "peak_allocated_bytes", alloc, 0);
	pd_set_real(m, "peak_reserved_bytes", res, 0);
	pd_set_real(m, "capacity_bytes", cap, 0);
	pd_set_real(m, "peak_ratio", ratio, 4);
	json_object_set_new(m, "devices", dev);
	json_object_set_new(m, "timeline", tl);
	json_decref(recs);
	return m;
}

/* Bytes are integers in the records; keep them so. */
static void
ints(json_t *m)
{
	static const char *k[] = { "peak_allocated_bytes",
	    "peak_reserved_bytes", "capacity_bytes", NULL };
	int i;

	for (i = 0; k[i]; i++) {
		json_t *v = json_object_get(m, k[i]);

		if (json_is_real(v))
			json_object_set_new(m, k[i], json_integer(
			    (json_int_t)json_real_value(v)));
	}
}

static int
finding_cmp(const void *a, const void *b)
{
	static const char *sev[] = { "high", "medium", "low", "info", NULL };
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	const char *sx = pd_rec_str(x, "severity"), *sy = pd_rec_str(y, "severity");
	const char *fx = pd_rec_str(x, "file"), *fy = pd_rec_str(y, "file");
	const char *cx = pd_rec_str(x, "check"), *cy = pd_rec_str(y, "check");
	int ix = 4, iy = 4, i, d;

	for (i = 0; sev[i]; i++) {
		if (sx && strcmp(sx, sev[i]) == 0)
			ix = i;
		if (sy && strcmp(sy, sev[i]) == 0)
			iy = i;
	}
	if (ix != iy)
		return ix - iy;
	if ((d = strcmp(fx ? fx : "", fy ? fy : "")) != 0)
		return d;
	if (pd_rec_int(x, "line", 0) != pd_rec_int(y, "line", 0))
		return pd_rec_int(x, "line", 0) < pd_rec_int(y, "line", 0) ? -1 : 1;
	return strcmp(cx ? cx : "", cy ? cy : "");
}

/* pd.finding records (static checks of the entry script), by severity,
 * file, line, check. */
static json_t *
findings(struct report_in *in)
{
	static const char *keys[] = { "check", "severity", "file", "line",
	    "text", "hint", NULL };
	size_t i, n = json_array_size(in->findings);
	json_t **tmp = malloc(sizeof *tmp * (n ? n : 1)), *a = json_array();
	int k;

	for (i = 0; i < n; i++)
		tmp[i] = json_array_get(in->findings, i);
	qsort(tmp, n, sizeof *tmp, finding_cmp);
	for (i = 0; i < n; i++) {
		json_t *e = json_object();

		for (k = 0; keys[k]; k++)
			copy(e, tmp[i], keys[k]);
		json_array_append_new(a, e);
	}
	free(tmp);
	return a;
}

/* The pd.comparison of a run: with one run, the first of the stream; with
 * several, the one whose after (else before) run is this run, so that a
 * sweep's comparison is not shown in every run's report. Borrowed; NULL
 * when none. */
json_t *
report_comparison_of(struct report_in *in, struct pd_run *run)
{
	static const char *const side[] = { "after", "before" };
	const char *id = json_string_value(run->id);
	json_t *c;
	size_t i, k;

	if (in->nruns <= 1)
		return json_array_get(in->comparisons, 0);
	for (k = 0; k < 2; k++)
		json_array_foreach(in->comparisons, i, c) {
			const char *r = json_string_value(json_object_get(
			    json_object_get(c, side[k]), "run"));

			if (id && r && !strcmp(id, r))
				return c;
		}
	return NULL;
}

static json_t *
comparison(struct report_in *in, struct pd_run *run)
{
	json_t *c = report_comparison_of(in, run), *o;

	if (!c)
		return json_null();
	o = json_object();
	copy(o, c, "verdict");
	copy(o, c, "reason");
	copy(o, c, "before");
	copy(o, c, "after");
	copy(o, c, "metrics");
	copy(o, c, "dominant");
	return o;
}

static json_t *
limits(struct report_in *in)
{
	json_t *v = json_array_get(in->verdicts, 0), *o;
	const char *k;
	json_t *x;

	if (!v)
		return json_null();
	o = json_object();
	json_object_foreach(v, k, x)
		if (strcmp(k, "type") != 0 && strcmp(k, "v") != 0)
			json_object_set(o, k, x);
	return o;
}

/* Utilization over time, from pd-collect's pd.sample records: one series
 * per resource and device (cpu: the job's job_util_ratio, else the host's
 * util_ratio; mem: used_ratio; gpu, npu: util_ratio per device). */
struct useries {
	const char *resource;
	json_t *device;		/* borrowed */
	const char *metric;
	double *t, *v;
	size_t n, cap;
};

static int
res_rank(const char *r)
{
	static const char *order[] = { "cpu", "mem", "gpu", "npu", NULL };
	int i;

	for (i = 0; order[i]; i++)
		if (strcmp(order[i], r) == 0)
			return i;
	return i;
}

/* Devices: integers (or all-digit strings) by value, then strings. */
static int
dev_cmp(json_t *x, json_t *y)
{
	char bx[32], by[32];
	const char *sx, *sy;
	char *ex, *ey;
	long long nx, ny;

	if (json_is_integer(x))
		snprintf(bx, sizeof bx, "%lld", (long long)json_integer_value(x));
	if (json_is_integer(y))
		snprintf(by, sizeof by, "%lld", (long long)json_integer_value(y));
	sx = json_is_integer(x) ? bx : json_is_string(x) ? json_string_value(x) : "";
	sy = json_is_integer(y) ? by : json_is_string(y) ? json_string_value(y) : "";
	nx = strtoll(sx, &ex, 10);
	ny = strtoll(sy, &ey, 10);
	if (*sx && *sy && !*ex && !*ey && nx != ny)
		return nx < ny ? -1 : 1;
	return strcmp(sx, sy);
}

static int
useries_cmp(const void *a, const void *b)
{
	const struct useries *x = a, *y = b;
	int d = res_rank(x->resource) - res_rank(y->resource);

	if (d)
		return d;
	if ((d = strcmp(x->resource, y->resource)) != 0)
		return d;
	return dev_cmp(x->device, y->device);
}

static int
same_dev(json_t *x, json_t *y)
{
	return (json_is_null(x) && json_is_null(y)) || json_equal(x, y);
}

/* The samples of the run: those naming its id; else, when the stream has
 * one run and one pd.run at most and its samples name one run (or none),
 * all of them (borrowed, new array). */
static json_t *
run_samples(struct report_in *in, struct pd_run *run)
{
	json_t *a = json_array(), *s, *first = NULL;
	size_t i;
	int one = 1;

	json_array_foreach(in->samples, i, s) {
		json_t *id = get(s, "run");

		if (json_is_string(run->id) && json_equal(id, run->id))
			json_array_append(a, s);
		if (!first)
			first = id;
		else if (!json_equal(first, id))
			one = 0;
	}
	if (json_array_size(a) == 0 && one && in->nruns <= 1 &&
	    json_array_size(in->collects) <= 1)
		json_array_extend(a, in->samples);
	return a;
}

static const char *
series_label(struct useries *u, char *buf, size_t size)
{
	const char *d = json_is_string(u->device) ?
	    json_string_value(u->device) : NULL;
	char num[32];

	if (json_is_integer(u->device)) {
		snprintf(num, sizeof num, "%lld",
		    (long long)json_integer_value(u->device));
		d = num;
	}
	if (strcmp(u->resource, "cpu") == 0)
		snprintf(buf, size, "%s", strcmp(u->metric, "job_util_ratio") ?
		    "CPU (host)" : "CPU (job)");
	else if (strcmp(u->resource, "mem") == 0)
		snprintf(buf, size, "memory (host)");
	else if (strcmp(u->resource, "gpu") == 0)
		snprintf(buf, size, "GPU %s", d ? d : "");
	else
		snprintf(buf, size, "NPU %s", d ? d : "");
	return buf;
}

static double
round_to(double x, double scale)
{
	return round(x * scale) / scale;
}

/* One series: its points sorted by time (the input order on ties), at
 * most UTIL_MAX, the highest of each bucket of width w from t0 (w <= 0:
 * all kept). */
static json_t *
useries_json(struct useries *u, double t0, double w)
{
	json_t *e = json_object(), *ts = json_array(), *vs = json_array();
	size_t *idx = pd_xmalloc(sizeof *idx * (u->n ? u->n : 1));
	double *sorted = pd_xmalloc(sizeof *sorted * (u->n ? u->n : 1));
	char buf[64];
	size_t i, j, k;

	/* insertion sort by time: samples arrive in time order */
	for (i = 0; i < u->n; i++) {
		for (j = i; j > 0 && u->t[idx[j - 1]] > u->t[i]; j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
		sorted[i] = u->v[i];
	}
	qsort(sorted, u->n, sizeof *sorted, dbl_cmp);
	pd_set_str(e, "resource", u->resource);
	json_object_set(e, "device", u->device);
	pd_set_str(e, "metric", u->metric);
	pd_set_str(e, "label", series_label(u, buf, sizeof buf));
	pd_set_int(e, "samples", (json_int_t)u->n);
	pd_set_real(e, "median_ratio", pd_quantile_sorted(sorted, u->n, 0.5), 4);
	pd_set_real(e, "max_ratio", u->n ? sorted[u->n - 1] : NAN, 4);
	for (i = 0; i < u->n; i = j) {
		size_t best = idx[i];
		long b = -1;

		if (w > 0 && u->n > UTIL_MAX) {
			b = (long)floor((u->t[idx[i]] - t0) / w);
			if (b >= UTIL_MAX)
				b = UTIL_MAX - 1;
		}
		for (j = i + 1; b >= 0 && j < u->n; j++) {
			long c = (long)floor((u->t[idx[j]] - t0) / w);

			if (c >= UTIL_MAX)
				c = UTIL_MAX - 1;
			if (c != b)
				break;
			if (u->v[idx[j]] > u->v[best])
				best = idx[j];
		}
		k = best;
		json_array_append_new(ts, json_real(round_to(u->t[k], 1e3)));
		json_array_append_new(vs, json_real(round_to(u->v[k], 1e4)));
	}
	pd_set_int(e, "points", (json_int_t)json_array_size(ts));
	json_object_set_new(e, "t_s", ts);
	json_object_set_new(e, "ratio", vs);
	free(idx);
	free(sorted);
	return e;
}

static json_t *
utilization(struct report_in *in, struct pd_run *run)
{
	json_t *recs = run_samples(in, run), *s, *o, *a, *col = NULL, *c;
	struct useries *us = NULL;
	size_t nu = 0, i, j, used = 0;
	double t0 = NAN, t1 = NAN, w = 0;
	int reduced = 0;

	/* the cpu metric: the job's share when any sample has it */
	int job = 0;

	json_array_foreach(recs, i, s)
		job |= strcmp(pd_rec_str(s, "resource"), "cpu") == 0 &&
		    json_is_number(json_object_get(s, "job_util_ratio"));
	json_array_foreach(recs, i, s) {
		const char *res = pd_rec_str(s, "resource");
		const char *metric = strcmp(res, "cpu") == 0 ? (job ?
		    "job_util_ratio" : "util_ratio") : strcmp(res, "mem") == 0 ?
		    "used_ratio" : "util_ratio";
		json_t *dev = get(s, "device"), *v = json_object_get(s, metric);
		double t = json_number_value(json_object_get(s, "t_s"));
		struct useries *u = NULL;

		if (!json_is_number(v) || !isfinite(json_number_value(v)) ||
		    !isfinite(t))
			continue;
		if (strcmp(res, "cpu") == 0 || strcmp(res, "mem") == 0)
			dev = json_null();
		for (j = 0; j < nu; j++)
			if (strcmp(us[j].resource, res) == 0 &&
			    same_dev(us[j].device, dev))
				u = &us[j];
		if (!u) {
			us = pd_xrealloc(us, (nu + 1) * sizeof *us);
			u = &us[nu++];
			memset(u, 0, sizeof *u);
			u->resource = res;
			u->device = dev;
			u->metric = metric;
		}
		if (u->n == u->cap) {
			u->cap = u->cap ? 2 * u->cap : 64;
			u->t = pd_xrealloc(u->t, u->cap * sizeof *u->t);
			u->v = pd_xrealloc(u->v, u->cap * sizeof *u->v);
		}
		u->t[u->n] = t;
		u->v[u->n++] = json_number_value(v);
		if (isnan(t0) || t < t0)
			t0 = t;
		if (isnan(t1) || t > t1)
			t1 = t;
		used++;
	}
	json_array_foreach(in->collects, i, c)
		if (!col || (json_is_string(run->id) &&
		    json_equal(get(c, "run"), run->id)))
			col = c;
	if (nu == 0) {
		json_decref(recs);
		return json_null();
	}
	qsort(us, nu, sizeof *us, useries_cmp);
	for (i = 0; i < nu; i++)
		reduced |= us[i].n > UTIL_MAX;
	if (reduced && t1 > t0)
		w = (t1 - t0) / UTIL_MAX;
	o = json_object();
	json_object_set(o, "run", get(col ? col : json_array_get(recs, 0),
	    "run"));
	copy(o, col, "command");
	copy(o, col, "wall_s");
	copy(o, col, "interval_s");
	pd_set_int(o, "samples", (json_int_t)used);
	pd_set_real(o, "t0_s", t0, 3);
	pd_set_real(o, "t1_s", t1, 3);
	pd_set_int(o, "points_max", UTIL_MAX);
	pd_set_real(o, "bucket_s", w > 0 ? w : NAN, 6);
	a = json_array();
	for (i = 0; i < nu; i++) {
		json_array_append_new(a, useries_json(&us[i], t0, w));
		free(us[i].t);
		free(us[i].v);
	}
	json_object_set_new(o, "series", a);
	copy(o, json_array_get(in->verdicts, 0), "summary");
	json_object_set_new(o, "limits_summary", json_incref(get(o, "summary")));
	json_object_del(o, "summary");
	free(us);
	json_decref(recs);
	return o;
}

/* One rank's object under key of its pd.<type> record, with its rank and
 * root first: the dominant bottleneck's rank's, else the lowest rank's
 * that has one. Used for the timeline strip (pd.gaps strip; pd_runs keeps
 * the strips of a few ranks only) and the critical path (pd.hotspot
 * critical_path). */
static json_t *
of_rank(struct pd_run *run, const char *type, const char *key, json_t *dom)
{
	json_t *recs = per_root(run, type), *r, *pick = NULL, *o, *s, *v;
	const char *k;
	size_t i;

	json_array_foreach(recs, i, r) {
		if (!json_is_object(json_object_get(r, key)))
			continue;
		if (!pick)
			pick = r;
		if (dom && same_rank(r, dom)) {
			pick = r;
			break;
		}
	}
	if (!pick) {
		json_decref(recs);
		return json_null();
	}
	o = json_object();
	copy(o, pick, "rank");
	copy(o, pick, "root");
	s = json_object_get(pick, key);
	json_object_foreach(s, k, v)
		json_object_set(o, k, v);
	json_decref(recs);
	return o;
}

static json_t *
artifacts(int compared)
{
	json_t *a = json_object();

	pd_set_str(a, "report_json", "report.json");
	pd_set_str(a, "report_md", "report.md");
	pd_set_str(a, "report_html", "report.html");
	pd_set_str(a, "performance_profile", "meta/performance-profile.json");
	pd_set_str(a, "bottlenecks", "meta/bottlenecks.json");
	pd_set_str(a, "performance_verdict", "meta/performance-verdict.json");
	pd_set_str(a, "validation_comparison", compared ?
	    "meta/validation-comparison.json" : NULL);
	pd_set_str(a, "lock", "artifacts/perf.lock.json");
	return a;
}

static json_t *
now_iso(void)
{
	char buf[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_string(buf);
}

/* The job's name: the last component of the run id (the job's directory
 * or archive, or pd-collect's run id) without a "#..." suffix or an
 * archive's ending; for a single-process trace, whose id is the trace
 * file itself (one of roots), the directory holding it. NULL for a run
 * without an id. Caller frees. */
char *
report_job_name(const char *id, json_t *roots)
{
	const char *b, *e, *h;
	json_t *v;
	size_t i, k;
	char *t;
	int file = 0;

	if (!id)
		return NULL;
	json_array_foreach(roots, i, v)
		file |= json_is_string(v) && !strcmp(json_string_value(v), id) &&
		    pd_archive_name(id) == 0;
	e = id + strlen(id);
	while (e > id && e[-1] == '/')
		e--;
	for (b = e; b > id && b[-1] != '/'; b--)
		;
	if (file && b > id) {
		for (e = b - 1; e > id && e[-1] == '/'; e--)
			;
		for (b = e; b > id && b[-1] != '/'; b--)
			;
	}
	if ((h = memchr(b, '#', (size_t)(e - b))) && h > b)
		e = h;
	t = pd_xmalloc((size_t)(e - b) + 1);
	memcpy(t, b, (size_t)(e - b));
	t[e - b] = 0;
	if ((k = (size_t)pd_archive_name(t)) > 0 && k < strlen(t))
		t[strlen(t) - k] = 0;
	return t;
}

/* For a run that is one trace file (its id is one of its roots): the
 * job's name and the file's name without its endings ("dir/stem"), to
 * tell apart the traces of one directory; NULL otherwise. Caller
 * frees. */
char *
report_trace_name(const char *id, json_t *roots)
{
	static const char *const ends[] = { ".gz", ".zst", ".xz", ".json",
	    ".sqlite", ".db", ".pt.trace", NULL };
	const char *b;
	char *job, *stem, *t;
	json_t *v;
	size_t i, n, k;
	int file = 0, cut = 1;

	if (!id)
		return NULL;
	json_array_foreach(roots, i, v)
		file |= json_is_string(v) && !strcmp(json_string_value(v), id);
	if (!file || (b = strrchr(id, '/')) == NULL || !b[1])
		return NULL;
	stem = pd_xstrdup(b + 1);
	while (cut)
		for (cut = 0, i = 0; ends[i] && !cut; i++) {
			n = strlen(stem);
			k = strlen(ends[i]);
			if (n > k && !strcmp(stem + n - k, ends[i])) {
				stem[n - k] = 0;
				cut = 1;
			}
		}
	job = report_job_name(id, roots);
	n = strlen(job ? job : "") + strlen(stem) + 2;
	t = pd_xmalloc(n);
	snprintf(t, n, "%s/%s", job ? job : "", stem);
	free(job);
	free(stem);
	return t;
}

json_t *
report_build(struct report_in *in, struct pd_run *run,
    const struct report_opts *o)
{
	json_t *r = json_object(), *tool = json_object();
	json_t *cands = candidates(run), *dom = dominant_of(cands), *a, *b;
	json_t *mem, *util;
	char *name;
	int compared = report_comparison_of(in, run) != NULL;
	size_t i;

	pd_set_str(r, "schema", "perfdiag.report");
	pd_set_int(r, "v", 1);
	pd_set_str(tool, "name", "pd-report");
	pd_set_str(tool, "version", PD_VERSION);
	json_object_set_new(r, "tool", tool);
	pd_set(r, "generated_at", o->timestamp ? now_iso() : json_null());
	json_object_set(r, "run", run->id);
	name = report_job_name(json_string_value(run->id), run->roots);
	pd_set_str(r, "name", name);
	free(name);
	json_object_set_new(r, "symptom", symptom(run, dom));
	json_object_set_new(r, "workload", workload(run));
	json_object_set_new(r, "runtime", runtime(run));
	json_object_set_new(r, "evidence_sources", sources(run, in));
	a = json_array();
	json_array_foreach(cands, i, b)
		json_array_append_new(a, candidate(b));
	json_object_set_new(r, "bottlenecks", a);
	if (dom) {
		json_t *d = json_object(), *f = json_object();
		json_t *fix = json_object_get(dom, "fix");

		copy(d, dom, "rule");
		copy(d, dom, "title");
		copy(d, dom, "domain");
		copy(d, dom, "severity");
		copy(d, dom, "impact");
		copy(d, dom, "impact_estimated");
		copy(d, dom, "confidence");
		copy(d, dom, "confidence_level");
		copy(d, dom, "confidence_basis");
		copy(d, dom, "evidence");
		copy(d, dom, "operator");
		json_object_set_new(r, "dominant", d);
		copy(f, dom, "rule");
		copy(f, fix, "proposal");
		copy(f, fix, "effect");
		copy(f, fix, "change");
		json_object_set_new(r, "proposed_fix", f);
	} else {
		pd_set_null(r, "dominant");
		pd_set_null(r, "proposed_fix");
	}
	json_object_set_new(r, "next_actions", next_actions(run, dom, compared));
	a = steps_by_rank(run);
	json_object_set_new(r, "step_series", step_series(run, a));
	json_object_set_new(r, "rank_stats", rank_stats(a));
	json_object_set_new(r, "steps_by_rank", a);
	json_object_set_new(r, "strip", of_rank(run, "gaps", "strip", dom));
	json_object_set_new(r, "critical_path", of_rank(run, "hotspot",
	    "critical_path", dom));
	json_object_set_new(r, "flops", of_rank(run, "hotspot", "flops", dom));
	json_object_set_new(r, "kernel_sequences", of_rank(run, "hotspot",
	    "kernel_sequences", dom));
	json_object_set_new(r, "counters", of_rank(run, "hotspot", "counters",
	    dom));
	json_object_set_new(r, "hotspots", hotspots(run, o->topn));
	mem = memory(run);
	ints(mem);
	json_array_foreach(json_object_get(mem, "devices"), i, b)
		ints(b);
	json_object_set_new(r, "memory", mem);
	json_object_set_new(r, "findings", findings(in));
	json_object_set_new(r, "comparison", comparison(in, run));
	json_object_set_new(r, "limits", limits(in));
	util = utilization(in, run);
	json_object_set_new(r, "utilization", util);
	if (!run->profile && json_array_size(run->roots) == 0 &&
	    json_array_size(run->bottlenecks) == 0 && !json_is_null(util))
		pd_set_str(json_object_get(r, "symptom"), "summary", "no "
		    "profile in the stream, only the samples of pd-collect "
		    "(run pd-locate, pd-profile and pd-classify on the job's "
		    "profiler output)");
	json_object_set_new(r, "artifacts", artifacts(compared));
	json_decref(cands);
	return r;
}

json_t *
report_meta_profile(struct pd_run *run)
{
	return run->profile ? json_incref(run->profile) : json_null();
}

json_t *
report_meta_bottlenecks(struct pd_run *run)
{
	json_t *o = json_object(), *c = candidates(run);

	json_object_set(o, "run", run->id);
	json_object_set_new(o, "bottlenecks", c);
	return o;
}

json_t *
report_meta_verdict(json_t *report)
{
	json_t *o = json_object(), *dom = json_object_get(report, "dominant");
	json_t *cmp = json_object_get(report, "comparison");
	json_t *lim = json_object_get(report, "limits");
	json_t *rt = json_object_get(report, "runtime");
	const char *verdict;

	if (json_is_object(dom))
		verdict = "bottleneck";
	else if (json_is_object(json_object_get(rt, "step")) ||
	    json_array_size(json_object_get(json_object_get(report,
	    "evidence_sources"), "summaries")))
		verdict = json_is_null(json_object_get(rt, "confidence")) ?
		    "not_diagnosed" : "no_bottleneck";
	else
		verdict = "no_evidence";
	copy(o, report, "run");
	pd_set_str(o, "verdict", verdict);
	copy(o, json_object_get(report, "symptom"), "symptom");
	copy(o, json_object_get(report, "symptom"), "summary");
	if (json_is_object(dom)) {
		json_t *d = json_object();

		copy(d, dom, "rule");
		copy(d, dom, "domain");
		copy(d, dom, "impact");
		copy(d, dom, "confidence");
		copy(d, dom, "confidence_level");
		json_object_set_new(o, "dominant", d);
	} else
		pd_set_null(o, "dominant");
	copy(o, rt, "confidence");
	copy(o, rt, "confidence_level");
	json_object_set(o, "comparison_verdict", get(cmp, "verdict"));
	json_object_set(o, "limits_verdict", get(lim, "verdict"));
	return o;
}

json_t *
report_time(void)
{
	return now_iso();
}
