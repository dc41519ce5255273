/* Step statistics, shares and domains of a run: means over its units. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pd_path.h"
#include "pd_rec.h"
#include "pd_stats.h"
#include "pd-profile/profile.h"

#define MEM_HIGH 0.90	/* torch-tb-profiler: peak memory > 90 % */

void
acc_add(struct acc *a, double x, json_t *rank)
{
	if (isnan(x))
		return;
	if (a->n == 0 || x > a->max) {
		a->max = x;
		a->max_rank = rank;
	}
	if (a->n == 0 || x < a->min) {
		a->min = x;
		a->min_rank = rank;
	}
	a->sum += x;
	a->n++;
}

double
acc_mean(const struct acc *a)
{
	return a->n ? a->sum / a->n : NAN;
}

struct acc
over_units(struct prun *p, const char *path)
{
	struct acc a;
	size_t i;

	memset(&a, 0, sizeof a);
	for (i = 0; i < p->n; i++)
		acc_add(&a, pd_path_num(p->un[i].view, path), p->un[i].rank);
	return a;
}

double
mean_of(struct prun *p, const char *path)
{
	struct acc a = over_units(p, path);

	return acc_mean(&a);
}

json_t *
rank_json(json_t *r)
{
	return json_is_integer(r) ? json_incref(r) : json_null();
}

/* ---- step statistics pooled over ranks ---- */

static json_t *
step_stats(struct prun *p, double *mean_out)
{
	struct pd_vec all = { 0, 0, 0 };
	struct pd_summary s;
	json_t *o = json_object();
	size_t i, u, most = 0;

	for (u = 0; u < p->n; u++) {
		json_t *steps = pd_runs_array(json_object_get(p->un[u].view,
		    "step"), "steps");

		if (json_array_size(steps) > most)
			most = json_array_size(steps);
		for (i = 0; i < json_array_size(steps); i++) {
			json_t *x = json_object_get(json_array_get(steps, i),
			    "step_us");

			if (json_is_number(x))
				pd_vec_push(&all, json_number_value(x));
		}
		json_decref(steps);
	}
	memset(&s, 0, sizeof s);
	if (all.n)
		pd_stats(&all, &s);
	else
		s.mean = s.median = s.p90 = s.min = s.max = s.cv = NAN;
	pd_set_int(o, "n", (int64_t)s.n);
	pd_set_int(o, "per_rank", (int64_t)most);
	pd_set_real(o, "mean_us", s.mean, 3);
	pd_set_real(o, "median_us", s.median, 3);
	pd_set_real(o, "p90_us", s.p90, 3);
	pd_set_real(o, "min_us", s.min, 3);
	pd_set_real(o, "max_us", s.max, 3);
	pd_set_real(o, "cv", s.cv, 4);
	pd_set_real(o, "steps_per_s", s.mean > 0 ? 1e6 / s.mean : NAN, 4);
	*mean_out = s.mean;
	pd_vec_free(&all);
	return o;
}

/* ---- shares and domains ---- */

struct shares {
	double computing, comm, free, input, idle, mem, hot, compile, bubble;
	double copy;
};

static double
compile_ratio(struct prun *p)
{
	double us = 0, step = 0;
	int seen = 0;
	size_t i, u;

	for (u = 0; u < p->n; u++) {
		json_t *v = p->un[u].view;
		json_t *h = json_object_get(v, "hotspot");
		json_t *lists[2];
		double st = pd_path_num(v, "step.totals.step_us");
		int l;

		if (!h)
			continue;
		if (isnan(st))
			st = pd_path_num(v, "gaps.span_us");
		if (isnan(st) || st <= 0)
			continue;
		seen = 1;
		step += st;
		lists[0] = json_object_get(h, "host_api");
		lists[1] = json_object_get(h, "cpu_ops");
		for (l = 0; l < 2; l++)
			for (i = 0; i < json_array_size(lists[l]); i++) {
				json_t *e = json_array_get(lists[l], i);
				const char *n = pd_rec_str(e, "name");
				double t = pd_rec_num(e, "total_us", NAN);

				if (isnan(t))
					t = pd_rec_num(e, "self_us", NAN);
				if (n && strcasestr(n, "compile") && !isnan(t))
					us += t;
			}
	}
	return seen ? fmin(1, us / step) : NAN;
}

/* pd.input's share, else the DataLoader annotations of a PyTorch trace
 * (torch-tb-profiler's DataLoader role) over the step time. */
static double
input_share(json_t *v)
{
	double x = pd_path_num(v, "input.input_ratio");
	double dl = pd_path_num(v, "hotspot.cpu_ops[name~enumerate(DataLoader)]"
	    ".self_us");
	double st = pd_path_num(v, "step.totals.step_us");

	if (!isnan(x))
		return x;
	return st > 0 && !isnan(dl) ? fmin(1, dl / st) : NAN;
}

/* Computing share, else (CPU-only traces) CPU operator time over steps. */
static double
computing_share(json_t *v)
{
	double x = pd_path_num(v, "step.shares.computing_ratio");
	double cpu = pd_path_num(v, "step.totals.cpu_ops_us");
	double st = pd_path_num(v, "step.totals.step_us");

	if (!isnan(x) || !isnan(pd_path_num(v, "gaps.idle_ratio")))
		return x;
	return st > 0 && !isnan(cpu) && !pd_path_num(v, "gaps.launch.kernels") ?
	    fmin(1, cpu / st) : NAN;
}

/* Host-device copy time (pd.hotspot's memcpy class) over step time,
 * else over the traced span; unknown when the run has no copies. */
static double
copy_share(json_t *v)
{
	double c = pd_path_num(v, "hotspot.by_type[type=memcpy].total_us");
	double st = pd_path_num(v, "step.totals.step_us");

	if (isnan(st))
		st = pd_path_num(v, "gaps.span_us");
	return st > 0 && !isnan(c) ? fmin(1, c / st) : NAN;
}

/* The share of device time of the top operator that is not a copy or a
 * memset: no operator tuning makes a copy faster (that is memory's). */
static double
hot_share(json_t *v)
{
	json_t *top = pd_path_get(v, "hotspot.top");
	size_t i;

	for (i = 0; i < json_array_size(top); i++) {
		json_t *e = json_array_get(top, i);
		const char *t = pd_rec_str(e, "type");

		if (t && (!strcmp(t, "memcpy") || !strcmp(t, "memset")))
			continue;
		return pd_rec_num(e, "ratio", NAN);
	}
	return NAN;
}

static struct acc
over_fn(struct prun *p, double (*fn)(json_t *))
{
	struct acc a;
	size_t i;

	memset(&a, 0, sizeof a);
	for (i = 0; i < p->n; i++)
		acc_add(&a, fn(p->un[i].view), NULL);
	return a;
}

static double
mean_fn(struct prun *p, double (*fn)(json_t *))
{
	struct acc a = over_fn(p, fn);

	return acc_mean(&a);
}

static void
get_shares(struct prun *p, struct shares *s)
{
	struct acc a;

	s->computing = mean_fn(p, computing_share);
	s->comm = mean_of(p, "step.shares.comm_not_overlapped_ratio");
	s->free = mean_of(p, "step.shares.free_ratio");
	s->bubble = mean_of(p, "step.shares.bubble_ratio");
	s->input = mean_fn(p, input_share);
	s->idle = mean_of(p, "gaps.idle_ratio");
	a = over_units(p, "mem.peak_ratio");
	s->mem = a.n ? a.max : NAN;
	a = over_fn(p, hot_share);
	s->hot = a.n ? a.max : NAN;
	s->copy = mean_fn(p, copy_share);
	s->compile = compile_ratio(p);
}

static json_t *
shares_json(const struct shares *s)
{
	json_t *o = json_object();

	pd_set_real(o, "computing_ratio", s->computing, 4);
	pd_set_real(o, "comm_not_overlapped_ratio", s->comm, 4);
	pd_set_real(o, "free_ratio", s->free, 4);
	pd_set_real(o, "bubble_ratio", s->bubble, 4);
	pd_set_real(o, "input_ratio", s->input, 4);
	pd_set_real(o, "idle_ratio", s->idle, 4);
	pd_set_real(o, "peak_memory_ratio", s->mem, 4);
	pd_set_real(o, "hotspot_ratio", s->hot, 4);
	pd_set_real(o, "copy_ratio", s->copy, 4);
	return o;
}

struct domain {
	const char *name, *basis;
	double score;
};

static int
cmp_domain(const void *a, const void *b)
{
	const struct domain *x = a, *y = b;
	int xn = isnan(x->score), yn = isnan(y->score);

	if (xn != yn)
		return xn - yn;
	if (!xn && x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void
domains(const struct shares *s, struct domain *d)
{
	double comp = s->computing;
	const char *cb = "shares.computing_ratio";

	if (isnan(comp) && !isnan(s->idle)) {
		comp = 1 - s->idle;
		cb = "1 - shares.idle_ratio";
	}
	d[0] = (struct domain){ "compute", cb, comp };
	d[1] = (struct domain){ "input_pipeline", "shares.input_ratio", s->input };
	d[2] = (struct domain){ "communication",
	    "shares.comm_not_overlapped_ratio", s->comm };
	d[3] = (struct domain){ "memory", "shares.peak_memory_ratio",
	    isnan(s->mem) ? NAN : s->mem >= MEM_HIGH ? s->mem : s->mem / 10 };
	/* copies occupy the device for their share of the step */
	if (!isnan(s->copy) && !(d[3].score >= s->copy))
		d[3] = (struct domain){ "memory", "shares.copy_ratio", s->copy };
	d[4] = (struct domain){ "graph_compile", "compile host time / step time",
	    s->compile };
	d[5] = !isnan(s->free) ?
	    (struct domain){ "host_overhead", "shares.free_ratio", s->free } :
	    (struct domain){ "host_overhead", "shares.idle_ratio", s->idle };
	d[6] = (struct domain){ "operator_hotspot",
	    isnan(s->computing) ? "shares.hotspot_ratio" :
	    "shares.hotspot_ratio * shares.computing_ratio",
	    isnan(s->hot) ? NAN : s->hot * (isnan(s->computing) ? 1 :
	    s->computing) };
	/* waiting in receive for another pipeline stage (msprof-analyze's
	 * Bubble) is the other stage's time, not communication's */
	if (!isnan(d[2].score) && s->bubble > 0) {
		d[2].score = fmax(0, d[2].score - s->bubble);
		d[2].basis = "shares.comm_not_overlapped_ratio - shares.bubble_ratio";
	}
	/* input stalls show up as free time too: do not count them twice */
	if (!isnan(d[5].score) && !isnan(s->input) && d[5].score >= s->input &&
	    !isnan(s->free)) {
		d[5].score -= s->input;
		d[5].basis = "shares.free_ratio - shares.input_ratio";
	}
	qsort(d, 7, sizeof *d, cmp_domain);
}

static json_t *
domains_json(const struct domain *d)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < 7; i++) {
		json_t *o = json_object();

		pd_set_str(o, "domain", d[i].name);
		pd_set_real(o, "score", d[i].score, 4);
		pd_set_str(o, "basis", isnan(d[i].score) ? NULL : d[i].basis);
		json_array_append_new(a, o);
	}
	return a;
}

static const char *
symptom(const struct domain *top, struct prun *u, const char *workload)
{
	const char *n = top->name;
	struct acc a;

	if (isnan(top->score) || top->score <= 0)
		return u->n && !isnan(mean_of(u,
		    "step.step_stats.mean")) ? workload && !strcmp(workload,
		    "inference") ? "latency" : "throughput" : NULL;
	if (!strcmp(n, "input_pipeline"))
		return "dataloader_stall";
	if (!strcmp(n, "communication"))
		return "communication";
	if (!strcmp(n, "memory"))
		return "memory";
	if (!strcmp(n, "host_overhead")) {
		a = over_units(u, "gaps.launch.short_ratio");
		return a.n && a.max >= 0.5 ? "host_launch" : "utilization";
	}
	if (!strcmp(n, "graph_compile"))
		return "latency";
	return workload && !strcmp(workload, "inference") ? "latency" :
	    "throughput";
}

static json_t *
metric(const char *sym, const struct shares *s, double mean_step)
{
	json_t *m;
	const char *name = "step_us", *unit = "us";
	double v = mean_step;

	if (!sym)
		return json_null();
	m = json_object();
	if (!strcmp(sym, "dataloader_stall"))
		name = "input_ratio", v = s->input;
	else if (!strcmp(sym, "communication"))
		name = "comm_not_overlapped_ratio", v = s->comm;
	else if (!strcmp(sym, "memory"))
		name = "peak_ratio", v = s->mem;
	else if (!strcmp(sym, "utilization") || !strcmp(sym, "host_launch")) {
		if (!isnan(s->free))
			name = "free_ratio", v = s->free;
		else
			name = "idle_ratio", v = s->idle;
	}
	if (strcmp(name, "step_us"))
		unit = "ratio";
	pd_set_str(m, "name", name);
	pd_set_real(m, "value", v, strcmp(unit, "us") ? 4 : 3);
	pd_set_str(m, "unit", unit);
	return m;
}


/* Sets symptom, metric, step, shares and domains of the profile; close_top:
 * the top two domains are less than 0.05 apart. */
json_t *
profile_shares(struct prun *p, json_t *prof, const char *workload,
    double *mean_step, int *close_top)
{
	struct shares s;
	struct domain d[7];
	json_t *st = step_stats(p, mean_step);
	const char *sym;

	get_shares(p, &s);
	domains(&s, d);
	sym = symptom(&d[0], p, workload);
	pd_set_str(prof, "symptom", sym);
	pd_set(prof, "metric", metric(sym, &s, *mean_step));
	*close_top = !isnan(d[0].score) && !isnan(d[1].score) &&
	    d[0].score - d[1].score < 0.05;
	pd_set(prof, "shares", shares_json(&s));
	pd_set(prof, "domains", domains_json(d));
	return st;
}
