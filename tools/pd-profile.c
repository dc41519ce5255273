/* pd-profile: the PerformanceProfile of each run.
 *
 * Reads: the record stream (stdin, files of records given as operands, or
 *   dump directories, which are put through the evidence tools first):
 *   pd.root (which run a root belongs to), pd.step, pd.comm, pd.mem,
 *   pd.input, pd.gaps, pd.hotspot (joined by root), pd.context.
 * Writes: the input unchanged, then one pd.profile per run: workload,
 *   stack, symptom, metric in focus, summaries present and missing, ranked
 *   domain scores, confidence, next actions, cross-rank analysis (slow
 *   rank, slow link, stragglers, step-time skew).
 * Aggregates: holds the summary records only (memory grows with ranks). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pd_diag.h"
#include "pd_tool.h"
#include "pd_path.h"
#include "pd_rec.h"
#include "pd_recfile.h"
#include "pd_runs.h"
#include "pd_stats.h"

static const char usage[] =
    "usage: pd-profile [-q] [FILE|DIR|-]...\n"
    "  reads summary records (stdin, files of records, or dump dirs put\n"
    "  through the evidence tools) and appends one pd.profile per run:\n"
    "  symptom, ranked domains, confidence, cross-rank analysis\n"
    "  -q  no warnings\n"
    "  -h, --help this help\n"
    "  --version the version\n";

#define SLOW_RATIO 0.05	/* msprof-analyze advisor: (max - min) / mean > 5 % */
#define MEM_HIGH 0.90	/* torch-tb-profiler: peak memory > 90 % */

static const char *summary_types[] = {
	"context", "comm", "gaps", "hotspot", "input", "mem", "step", NULL
};

/* Weights of the evidence summaries in the confidence. */
static const struct { const char *type; double w; } weights[] = {
	{ "step", 0.30 }, { "hotspot", 0.20 }, { "gaps", 0.15 },
	{ "comm", 0.15 }, { "input", 0.10 }, { "mem", 0.10 }, { NULL, 0 }
};

static const struct { const char *type, *action; } actions[] = {
	{ "step", "collect a profile with step markers (torch.profiler "
	    "schedule with ProfilerStep, or msprof step_trace) to get a step "
	    "breakdown" },
	{ "hotspot", "collect kernel details (torch_npu profiler level1, or a "
	    "Kineto trace with device activities) to name the hot operators" },
	{ "gaps", "collect a device timeline (trace_view.json or a Kineto "
	    "trace) to measure idle gaps and launch delays" },
	{ "comm", "collect communication data on every rank (torch_npu level1, "
	    "or NCCL/HCCL kernels in the trace)" },
	{ "input", "keep the data loading visible in the trace "
	    "(enumerate(DataLoader) annotations, MindSpore minddata "
	    "profiling)" },
	{ "mem", "collect a trace with memory profiling on "
	    "(profile_memory=True)" },
	{ NULL, NULL }
};

/* Every pd.context of the stream (pd_runs keeps only the first). */
static json_t *contexts;

static int
on_record(json_t *rec, void *ctx)
{
	const char *t = pd_rec_str(rec, "type");

	if (t && !strcmp(t, "pd.context"))
		json_array_append(contexts, rec);
	pd_runs_add(ctx, rec);
	return 0;
}

static int
on_operand(const char *path, void *ctx)
{
	struct pd_stream s = { ctx, on_record, 0, 0, 0, 0, 0, 0 };

	if (pd_recfile_isdir(path))
		pd_diag_status(pd_recfile_dir(&s, path, NULL, 0));
	else
		pd_diag_status(pd_recfile_read(&s, path));
	return 0;
}

/* A mean over the roots of the run of a number at "type.path". */
struct acc {
	double sum, max, min;
	int n;
	json_t *max_rank, *min_rank;
};

static void
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

static double
acc_mean(const struct acc *a)
{
	return a->n ? a->sum / a->n : NAN;
}

static struct acc
over_roots(struct pd_run *u, const char *path)
{
	struct acc a;
	const char *root;
	json_t *v;

	memset(&a, 0, sizeof a);
	json_object_foreach(u->views, root, v) {
		json_t *any = NULL;
		const char *k;
		json_t *r;

		json_object_foreach(v, k, r)
			if (!any)
				any = json_object_get(r, "rank");
		acc_add(&a, pd_path_num(v, path), any);
	}
	return a;
}

static double
mean_of(struct pd_run *u, const char *path)
{
	struct acc a = over_roots(u, path);

	return acc_mean(&a);
}

static int
has(struct pd_run *u, const char *type)
{
	const char *root;
	json_t *v;

	if (strcmp(type, "context") == 0)
		return u->context != NULL;
	json_object_foreach(u->views, root, v)
		if (json_object_get(v, type))
			return 1;
	return 0;
}

static json_t *
rank_json(json_t *r)
{
	return json_is_integer(r) ? json_incref(r) : json_null();
}

/* ---- workload and stack ---- */

static int
names_match(json_t *list, const char *const *words)
{
	size_t i;
	int w;

	for (i = 0; i < json_array_size(list); i++) {
		const char *n = pd_rec_str(json_array_get(list, i), "name");

		for (w = 0; n && words[w]; w++)
			if (strcasestr(n, words[w]))
				return 1;
	}
	return 0;
}

static void
source(json_t *srcs, const char *key, const char *from)
{
	pd_set_str(srcs, key, from);
}

/* A value where the traces and pd.context disagree: the trace wins. */
static void
conflict(json_t *confl, const char *field, json_t *trace, json_t *ctx)
{
	json_t *c = json_object();

	pd_set_str(c, "field", field);
	pd_set(c, "trace", trace);
	pd_set(c, "context", ctx);
	json_array_append_new(confl, c);
}

static void
set_workload(json_t *p, struct pd_run *u, json_t *srcs, json_t *confl)
{
	static const char *const train[] = { "backward", "Backward", "Grad",
	    "optimizer", "Optimizer", "Adam", "SGD", "zero_grad", NULL };
	const char *w = u->context ? pd_rec_str(u->context, "workload") : NULL;
	const char *root, *cw;
	json_t *v;
	int seen = 0, cue = 0;

	if (w && strcmp(w, "training") && strcmp(w, "inference"))
		w = NULL;
	json_object_foreach(u->views, root, v) {
		json_t *h = json_object_get(v, "hotspot");

		if (!h)
			continue;
		seen = 1;
		cue |= names_match(json_object_get(h, "top"), train) ||
		    names_match(json_object_get(h, "cpu_ops"), train) ||
		    names_match(json_object_get(h, "by_type"), train);
	}
	cw = !seen ? NULL : cue ? "training" : "inference";
	/* Training operators in the trace are evidence and win over the
	 * context; "inference" from their absence does not. */
	if (w && !cue) {
		pd_set_str(p, "workload", w);
		pd_set_str(p, "workload_source", "context");
		source(srcs, "workload", cw && !strcmp(cw, w) ? "both" :
		    "context");
		if (cw && strcmp(cw, w))
			conflict(confl, "workload", json_string(cw),
			    json_string(w));
		return;
	}
	pd_set_str(p, "workload", cw);
	pd_set_str(p, "workload_source", seen ? "cues" : NULL);
	source(srcs, "workload", !cw ? NULL : w && !strcmp(w, cw) ? "both" :
	    "trace");
	if (w && cw && strcmp(w, cw))
		conflict(confl, "workload", json_string(cw), json_string(w));
}

static int
cmp_json_str(const void *a, const void *b)
{
	return strcmp(json_string_value(*(json_t *const *)a),
	    json_string_value(*(json_t *const *)b));
}

static json_t *
sorted_unique(json_t *arr)
{
	size_t n = json_array_size(arr), i;
	json_t **v = malloc((n + 1) * sizeof *v), *out = json_array();

	if (!v)
		abort();
	for (i = 0; i < n; i++)
		v[i] = json_array_get(arr, i);
	qsort(v, n, sizeof *v, cmp_json_str);
	for (i = 0; i < n; i++)
		if (i == 0 || strcmp(json_string_value(v[i]),
		    json_string_value(v[i - 1])))
			json_array_append(out, v[i]);
	free(v);
	json_decref(arr);
	return out;
}

/* The framework a dump format is written by, or NULL (msprof, cluster
 * analysis: any framework). */
static const char *
format_framework(const char *f)
{
	if (!strcmp(f, "kineto") || !strcmp(f, "autograd"))
		return "torch";
	if (!strcmp(f, "torch_npu"))
		return "torch_npu";
	if (!strcmp(f, "mindspore") || !strcmp(f, "mindspore_legacy"))
		return "mindspore";
	return NULL;
}

static json_t *
stack(struct pd_run *u, json_t *srcs, json_t *confl)
{
	json_t *s = json_object(), *formats = json_array();
	const char *root, *fam = NULL, *dev = NULL, *fw = NULL, *cfw;
	json_t *v;
	int asc = 0, pt = 0, kernels = 0, cpu_only = 0, fwmix = 0;

	cfw = u->context ? pd_rec_str(u->context, "stack") : NULL;
	if (cfw && strcmp(cfw, "torch") && strcmp(cfw, "torch_npu") &&
	    strcmp(cfw, "mindspore"))
		cfw = NULL;
	json_object_foreach(u->views, root, v) {
		const char *f = pd_path_get(v, "root.format") ?
		    json_string_value(pd_path_get(v, "root.format")) : NULL;
		double k = pd_path_num(v, "gaps.launch.kernels");
		double c = pd_path_num(v, "hotspot.classes.compute_us");

		if (f) {
			const char *ff = format_framework(f);

			if (ff && fw && strcmp(ff, fw))
				fwmix = 1;
			if (ff)
				fw = ff;
			json_array_append_new(formats, json_string(f));
			if (!strcmp(f, "kineto") || !strcmp(f, "autograd"))
				pt = 1;
			else
				asc = 1;
		}
		if (k > 0 || c > 0)
			kernels = 1;
		else if (json_object_get(v, "hotspot"))
			cpu_only = 1;
	}
	if (asc || pt)
		fam = asc && pt ? "mixed" : asc ? "ascend" : "pytorch";
	if (asc && !pt)
		dev = "npu";
	else if (pt && !asc)
		dev = kernels ? "gpu" : cpu_only ? "cpu" : NULL;
	if (fwmix)
		fw = NULL;
	if (fw && cfw && strcmp(fw, cfw))
		conflict(confl, "stack", json_string(fw), json_string(cfw));
	source(srcs, "stack", fw ? (cfw && !strcmp(fw, cfw) ? "both" :
	    "trace") : cfw ? "context" : NULL);
	if (!fw && cfw) {
		/* no dump says which framework: the code does */
		fw = cfw;
		if (!fam)
			fam = strcmp(cfw, "torch") ? "ascend" : "pytorch";
		if (!dev && strcmp(cfw, "torch"))
			dev = "npu";
	}
	pd_set_str(s, "family", fam);
	pd_set(s, "formats", sorted_unique(formats));
	pd_set_str(s, "device", dev);
	pd_set_str(s, "framework", fw);
	return s;
}

/* ---- step statistics pooled over ranks ---- */

static json_t *
step_stats(struct pd_run *u, double *mean_out)
{
	struct pd_vec all = { 0, 0, 0 };
	struct pd_summary s;
	const char *root;
	json_t *v, *o = json_object();
	size_t i;

	json_object_foreach(u->views, root, v) {
		json_t *steps = pd_path_get(v, "step.steps");

		for (i = 0; i < json_array_size(steps); i++) {
			json_t *x = json_object_get(json_array_get(steps, i),
			    "step_us");

			if (json_is_number(x))
				pd_vec_push(&all, json_number_value(x));
		}
	}
	memset(&s, 0, sizeof s);
	if (all.n)
		pd_stats(&all, &s);
	else
		s.mean = s.median = s.p90 = s.min = s.max = s.cv = NAN;
	pd_set_int(o, "n", (int64_t)s.n);
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
	double computing, comm, free, input, idle, mem, hot, compile;
};

static double
compile_ratio(struct pd_run *u)
{
	const char *root;
	json_t *v;
	double us = 0, step = 0;
	int seen = 0;
	size_t i;

	json_object_foreach(u->views, root, v) {
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

static double
mean_fn(struct pd_run *u, double (*fn)(json_t *))
{
	struct acc a;
	const char *root;
	json_t *v;

	memset(&a, 0, sizeof a);
	json_object_foreach(u->views, root, v)
		acc_add(&a, fn(v), NULL);
	return acc_mean(&a);
}

static void
get_shares(struct pd_run *u, struct shares *s)
{
	struct acc a;

	s->computing = mean_fn(u, computing_share);
	s->comm = mean_of(u, "step.shares.comm_not_overlapped_ratio");
	s->free = mean_of(u, "step.shares.free_ratio");
	s->input = mean_fn(u, input_share);
	s->idle = mean_of(u, "gaps.idle_ratio");
	a = over_roots(u, "mem.peak_ratio");
	s->mem = a.n ? a.max : NAN;
	a = over_roots(u, "hotspot.top[0].ratio");
	s->hot = a.n ? a.max : NAN;
	s->compile = compile_ratio(u);
}

static json_t *
shares_json(const struct shares *s)
{
	json_t *o = json_object();

	pd_set_real(o, "computing_ratio", s->computing, 4);
	pd_set_real(o, "comm_not_overlapped_ratio", s->comm, 4);
	pd_set_real(o, "free_ratio", s->free, 4);
	pd_set_real(o, "input_ratio", s->input, 4);
	pd_set_real(o, "idle_ratio", s->idle, 4);
	pd_set_real(o, "peak_memory_ratio", s->mem, 4);
	pd_set_real(o, "hotspot_ratio", s->hot, 4);
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
symptom(const struct domain *top, struct pd_run *u, const char *workload)
{
	const char *n = top->name;
	struct acc a;

	if (isnan(top->score) || top->score <= 0)
		return json_object_size(u->views) && !isnan(mean_of(u,
		    "step.step_stats.mean")) ? workload && !strcmp(workload,
		    "inference") ? "latency" : "throughput" : NULL;
	if (!strcmp(n, "input_pipeline"))
		return "dataloader_stall";
	if (!strcmp(n, "communication"))
		return "communication";
	if (!strcmp(n, "memory"))
		return "memory";
	if (!strcmp(n, "host_overhead")) {
		a = over_roots(u, "gaps.launch.short_ratio");
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

/* ---- cross-rank ---- */

/* Per rank mean per step of a step total. */
static double
per_step(json_t *v, const char *key)
{
	char path[96];
	double n = pd_path_num(v, "step.step_stats.n");

	snprintf(path, sizeof path, "step.totals.%s", key);
	return n > 0 ? pd_path_num(v, path) / n : NAN;
}

static json_t *
slow_rank(struct pd_run *u, double mean_step)
{
	static const char *dims[][2] = {
		{ "computing", "computing_us" },
		{ "comm_not_overlapped", "comm_not_overlapped_us" },
		{ "free", "free_us" },
	};
	json_t *arr = json_array();
	int i;

	for (i = 0; i < 3; i++) {
		struct acc a;
		const char *root;
		json_t *v, *o;
		double ratio;

		memset(&a, 0, sizeof a);
		json_object_foreach(u->views, root, v)
			acc_add(&a, per_step(v, dims[i][1]),
			    pd_path_get(v, "step.rank"));
		if (a.n < 2)
			continue;
		ratio = mean_step > 0 ? (a.max - a.min) / mean_step : NAN;
		o = json_object();
		pd_set_str(o, "dimension", dims[i][0]);
		pd_set_real(o, "max_us", a.max, 3);
		pd_set_real(o, "min_us", a.min, 3);
		pd_set_real(o, "diff_us", a.max - a.min, 3);
		pd_set_real(o, "mean_step_us", mean_step, 3);
		pd_set_real(o, "ratio", ratio, 4);
		pd_set(o, "slow_rank", rank_json(a.max_rank));
		pd_set(o, "fast_rank", rank_json(a.min_rank));
		pd_set_bool(o, "fires", ratio > SLOW_RATIO);
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *
slow_link(struct pd_run *u)
{
	json_t *names = json_array(), *arr = json_array();
	const char *root;
	json_t *v;
	size_t i, j;

	json_object_foreach(u->views, root, v) {
		json_t *t = pd_path_get(v, "comm.transports");

		for (j = 0; j < json_array_size(t); j++) {
			const char *n = pd_rec_str(json_array_get(t, j),
			    "transport");

			if (n)
				json_array_append_new(names, json_string(n));
		}
	}
	names = sorted_unique(names);
	for (i = 0; i < json_array_size(names); i++) {
		const char *n = json_string_value(json_array_get(names, i));
		char path[160];
		struct acc a;
		json_t *o;
		double mean, ratio;

		memset(&a, 0, sizeof a);
		snprintf(path, sizeof path,
		    "comm.transports[transport=%s].bandwidth_gb_per_s", n);
		json_object_foreach(u->views, root, v)
			acc_add(&a, pd_path_num(v, path),
			    pd_path_get(v, "comm.rank"));
		if (a.n < 2)
			continue;
		mean = acc_mean(&a);
		ratio = mean > 0 ? (a.max - a.min) / mean : NAN;
		o = json_object();
		pd_set_str(o, "transport", n);
		pd_set_real(o, "max_gb_per_s", a.max, 3);
		pd_set_real(o, "min_gb_per_s", a.min, 3);
		pd_set_real(o, "mean_gb_per_s", mean, 3);
		pd_set_real(o, "ratio", ratio, 4);
		pd_set(o, "slow_rank", rank_json(a.min_rank));
		pd_set_bool(o, "fires", ratio > SLOW_RATIO);
		json_array_append_new(arr, o);
	}
	json_decref(names);
	return arr;
}

/* Late arrival (HTA get_potential_stragglers): the same collective
 * (op type and sequence number) on every rank; the rank that starts it
 * last, relative to its own step start, is the one the others wait for.
 * Without per-collective starts, the rank that waits least (pd.comm wait
 * time) is. */
struct late {
	json_t *rank;
	int last, seen;
	double delay_us;	/* summed lateness over the next-latest rank */
	double wait;		/* wait per step (fallback) */
	double ratio;
};

static int
cmp_late(const void *a, const void *b)
{
	const struct late *x = a, *y = b;

	if (x->last != y->last)
		return x->last > y->last ? -1 : 1;
	if (x->delay_us != y->delay_us)
		return x->delay_us > y->delay_us ? -1 : 1;
	return (int)(json_integer_value(x->rank) - json_integer_value(y->rank));
}

static int
cmp_wait(const void *a, const void *b)
{
	const struct late *x = a, *y = b;

	if (x->wait != y->wait)
		return x->wait < y->wait ? -1 : 1;
	return (int)(json_integer_value(x->rank) - json_integer_value(y->rank));
}

/* Per collective key: [[root index, offset_us], ...]. */
static json_t *
collective_starts(struct pd_run *u, struct late *l, size_t *nl)
{
	json_t *by = json_object(), *v;
	const char *root;
	size_t k = 0, i;
	char key[96];

	json_object_foreach(u->views, root, v) {
		json_t *c = pd_path_get(v, "comm.collectives");

		l[k].rank = pd_path_get(v, "comm.rank");
		for (i = 0; i < json_array_size(c); i++) {
			json_t *e = json_array_get(c, i), *a;
			const char *op = pd_rec_str(e, "op_type");
			double off = pd_rec_num(e, "offset_us", NAN);

			if (!op || isnan(off) || !json_is_integer(
			    json_object_get(e, "seq")))
				continue;
			snprintf(key, sizeof key, "%s#%lld", op, (long long)
			    json_integer_value(json_object_get(e, "seq")));
			if (!(a = json_object_get(by, key))) {
				a = json_array();
				json_object_set_new(by, key, a);
			}
			json_array_append_new(a, json_pack("[i,f]", (int)k, off));
		}
		k++;
	}
	*nl = k;
	return by;
}

static json_t *
late_starts(struct pd_run *u, struct late *l, double mean_step)
{
	size_t n, i, keys = 0;
	json_t *by = collective_starts(u, l, &n), *a, *arr = json_array();
	const char *key;
	double spread = 0;

	json_object_foreach(by, key, a) {
		size_t j, hi = 0;
		double first = INFINITY, top = -INFINITY, second = -INFINITY;

		if (json_array_size(a) < 2)
			continue;
		for (j = 0; j < json_array_size(a); j++) {
			json_t *p = json_array_get(a, j);
			double off = json_number_value(json_array_get(p, 1));
			size_t r = (size_t)json_integer_value(json_array_get(p, 0));

			l[r].seen++;
			first = fmin(first, off);
			if (off > top) {
				second = top;
				top = off;
				hi = r;
			} else if (off > second)
				second = off;
		}
		l[hi].last++;
		l[hi].delay_us += top - second;
		spread += top - first;
		keys++;
	}
	json_decref(by);
	if (!keys || !(mean_step > 0) || spread / keys / mean_step <= SLOW_RATIO)
		return arr;
	qsort(l, n, sizeof *l, cmp_late);
	/* last more often than chance (keys / ranks), at most two */
	for (i = 0; i < n && i < 2 && l[i].last * n > keys; i++) {
		json_t *o = json_object();

		pd_set(o, "rank", rank_json(l[i].rank));
		pd_set_str(o, "method", "late_start");
		pd_set_int(o, "last_at", l[i].last);
		pd_set_int(o, "collectives", (int64_t)keys);
		pd_set_real(o, "delay_us", l[i].delay_us, 3);
		pd_set_null(o, "wait_us_per_step");
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *
least_wait(struct pd_run *u, struct late *w, double mean_step)
{
	json_t *arr = json_array(), *v;
	const char *root;
	size_t k = 0, i;
	double lo = INFINITY, hi = -INFINITY;

	json_object_foreach(u->views, root, v) {
		double tot = pd_path_num(v, "comm.total_us");
		double wr = pd_path_num(v, "comm.wait_ratio");
		double ns = pd_path_num(v, "step.step_stats.n");

		if (isnan(tot) || isnan(wr))
			continue;
		w[k].rank = pd_path_get(v, "comm.rank");
		w[k].wait = tot * wr / (ns > 0 ? ns : 1);
		lo = fmin(lo, w[k].wait);
		hi = fmax(hi, w[k].wait);
		k++;
	}
	if (k < 2 || !(mean_step > 0) || (hi - lo) / mean_step <= SLOW_RATIO)
		return arr;
	qsort(w, k, sizeof *w, cmp_wait);
	for (i = 0; i < k && i < 2 && w[i].wait <= lo + (hi - lo) / 4; i++) {
		json_t *o = json_object();

		pd_set(o, "rank", rank_json(w[i].rank));
		pd_set_str(o, "method", "least_wait");
		pd_set_null(o, "last_at");
		pd_set_null(o, "collectives");
		pd_set_null(o, "delay_us");
		pd_set_real(o, "wait_us_per_step", w[i].wait, 3);
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *
stragglers(struct pd_run *u, double mean_step)
{
	size_t n = json_object_size(u->views);
	struct late *l = calloc(n + 1, sizeof *l);
	json_t *arr;

	if (!l)
		abort();
	arr = late_starts(u, l, mean_step);
	if (json_array_size(arr) == 0) {
		json_decref(arr);
		memset(l, 0, (n + 1) * sizeof *l);
		arr = least_wait(u, l, mean_step);
	}
	free(l);
	return arr;
}

static json_t *
step_skew(struct pd_run *u)
{
	struct acc a = over_roots(u, "step.step_stats.mean");
	json_t *o;
	double mean = acc_mean(&a);

	if (a.n < 2)
		return json_null();
	o = json_object();
	pd_set_real(o, "max_us", a.max, 3);
	pd_set_real(o, "min_us", a.min, 3);
	pd_set_real(o, "ratio", mean > 0 ? (a.max - a.min) / mean : NAN, 4);
	pd_set(o, "slowest_rank", rank_json(a.max_rank));
	pd_set(o, "fastest_rank", rank_json(a.min_rank));
	return o;
}

static json_t *
cross_rank(struct pd_run *u)
{
	json_t *o;
	struct acc a;
	double mean_step;

	if (json_array_size(u->roots) < 2)
		return json_null();
	a = over_roots(u, "step.step_stats.mean");
	mean_step = acc_mean(&a);
	o = json_object();
	pd_set(o, "slow_rank", slow_rank(u, mean_step));
	pd_set(o, "slow_link", slow_link(u));
	pd_set(o, "stragglers", stragglers(u, mean_step));
	pd_set(o, "step_skew", step_skew(u));
	return o;
}

/* ---- the record ---- */

static json_t *
summaries(struct pd_run *u, double *conf)
{
	json_t *o = json_object(), *p = json_array(), *m = json_array();
	char name[32];
	int i;

	for (i = 0; summary_types[i]; i++) {
		snprintf(name, sizeof name, "pd.%s", summary_types[i]);
		json_array_append_new(has(u, summary_types[i]) ? p : m,
		    json_string(name));
	}
	*conf = 0;
	for (i = 0; weights[i].type; i++)
		if (has(u, weights[i].type))
			*conf += weights[i].w;
	pd_set(o, "present", p);
	pd_set(o, "missing", m);
	return o;
}

static json_t *
next_actions(struct pd_run *u)
{
	json_t *a = json_array();
	int i;

	for (i = 0; actions[i].type; i++)
		if (!has(u, actions[i].type) &&
		    (strcmp(actions[i].type, "comm") ||
		    json_array_size(u->roots) > 1))
			json_array_append_new(a, json_string(actions[i].action));
	return a;
}

/* The world size: the dumps' own (pd.root world_size, from Kineto
 * distributedInfo or profiler_metadata.json), else pd.context's (what the
 * launcher starts) unless the dumps show more ranks than that, else the
 * number of distinct ranks seen. */
static json_t *
world_size(struct pd_run *u, json_t *srcs, json_t *confl)
{
	json_t *ranks = json_object(), *v, *cx;
	const char *root, *k;
	json_t *r;
	size_t n;
	char buf[32];
	json_int_t tw = 0, cw = 0;

	cx = u->context ? json_object_get(u->context, "world_size") : NULL;
	if (json_is_integer(cx) && json_integer_value(cx) > 0)
		cw = json_integer_value(cx);
	json_object_foreach(u->views, root, v) {
		json_t *w = pd_path_get(v, "root.world_size");

		if (json_is_integer(w) && json_integer_value(w) > tw)
			tw = json_integer_value(w);
		json_object_foreach(v, k, r) {
			json_t *x = json_object_get(r, "rank");

			if (json_is_integer(x)) {
				snprintf(buf, sizeof buf, "%lld",
				    (long long)json_integer_value(x));
				json_object_set_new(ranks, buf, json_true());
			}
		}
	}
	n = json_object_size(ranks);
	json_decref(ranks);
	if (!tw && (json_int_t)n > cw)
		tw = (json_int_t)n;	/* the dumps show more ranks */
	if (tw && cw && tw != cw)
		conflict(confl, "world_size", json_integer(tw),
		    json_integer(cw));
	source(srcs, "world_size", tw ? (tw == cw ? "both" : "trace") :
	    cw ? "context" : NULL);
	return tw ? json_integer(tw) : cw ? json_integer(cw) : json_null();
}

/* Whether path lies in dir (or is dir). */
static int
under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* The pd.context of a run: the one whose workspace dir holds every root
 * of the run (the deepest, if several do); else, when the stream has one
 * run and one pd.context, that one; else none. */
static json_t *
pick_context(struct pd_run *u, size_t nruns)
{
	json_t *best = NULL, *c;
	size_t i, j, bl = 0;

	json_array_foreach(contexts, i, c) {
		const char *d = pd_rec_str(c, "root");
		int all = d && json_array_size(u->roots) > 0;

		for (j = 0; all && j < json_array_size(u->roots); j++)
			all = under(json_string_value(json_array_get(u->roots,
			    j)), d);
		if (all && strlen(d) >= bl) {
			best = c;
			bl = strlen(d);
		}
	}
	if (!best && nruns == 1 && json_array_size(contexts) == 1)
		best = json_array_get(contexts, 0);
	return best;
}

static void
profile(struct pd_run *u)
{
	json_t *p = pd_rec_new("pd.profile", 1, NULL);
	json_t *srcs = json_object(), *confl = json_array(), *ws;
	struct shares s;
	struct domain d[7];
	double mean_step, conf;
	const char *sym, *wl;

	pd_set(p, "run", json_incref(u->id));
	pd_set(p, "roots", json_incref(u->roots));
	pd_set_int(p, "ranks", (int64_t)json_array_size(u->roots));
	ws = world_size(u, srcs, confl);
	pd_set(p, "world_size", ws);
	set_workload(p, u, srcs, confl);
	wl = pd_rec_str(p, "workload");
	pd_set(p, "stack", stack(u, srcs, confl));
	pd_set(p, "launcher", json_incref(u->context ? json_object_get(
	    u->context, "launcher") : NULL));
	if (!json_is_string(json_object_get(p, "launcher")))
		pd_set_null(p, "launcher");
	source(srcs, "launcher", json_is_string(json_object_get(p,
	    "launcher")) ? "context" : NULL);
	pd_set(p, "context_root", json_incref(u->context ? json_object_get(
	    u->context, "root") : NULL));
	if (!json_is_string(json_object_get(p, "context_root")))
		pd_set_null(p, "context_root");
	pd_set(p, "context_sources", srcs);
	pd_set(p, "context_conflicts", confl);
	get_shares(u, &s);
	domains(&s, d);
	{
		json_t *st = step_stats(u, &mean_step);
		json_t *sm = summaries(u, &conf);

		sym = symptom(&d[0], u, wl);
		pd_set_str(p, "symptom", sym);
		pd_set(p, "metric", metric(sym, &s, mean_step));
		pd_set(p, "summaries", sm);
		pd_set(p, "step", st);
	}
	pd_set(p, "shares", shares_json(&s));
	pd_set(p, "domains", domains_json(d));
	if (!isnan(d[0].score) && !isnan(d[1].score) &&
	    d[0].score - d[1].score < 0.05)
		conf *= 0.5;
	pd_set_real(p, "confidence", conf, 4);
	pd_set_str(p, "confidence_level", conf >= 0.7 ? "high" :
	    conf >= 0.4 ? "medium" : "low");
	pd_set(p, "next_actions", next_actions(u));
	pd_set(p, "cross_rank", cross_rank(u));
	pd_rec_emit(p);
}

/* A run is profiled when a root of it has a pd.root or a summary: the
 * pd.finding records of pd-find-context (root = the workspace dir) do not
 * make a run. */
static int
profiled(struct pd_run *u)
{
	static const char *ev[] = { "root", "step", "comm", "mem", "input",
	    "gaps", "hotspot", NULL };
	const char *root;
	json_t *v;
	size_t i;

	json_object_foreach(u->views, root, v)
		for (i = 0; ev[i]; i++)
			if (json_object_get(v, ev[i]))
				return 1;
	return 0;
}

static int
on_end(void *ctx)
{
	struct pd_runs *r = ctx;
	size_t i, n = pd_runs_group(r), nr = 0;

	for (i = 0; i < n; i++)
		nr += profiled(pd_runs_get(r, i));
	for (i = 0; i < n; i++)
		if (profiled(pd_runs_get(r, i))) {
			pd_runs_get(r, i)->context = pick_context(
			    pd_runs_get(r, i), nr);
			profile(pd_runs_get(r, i));
		}
	return 0;
}

int
main(int argc, char **argv)
{
	struct pd_runs *r;
	struct pd_stream s;
	int c;

	pd_diag_init(argv[0]);
	while ((c = pd_getopt(argc, argv, "hq", NULL, usage)) != -1) {
		switch (c) {
		case 'h': pd_usage_exit(usage, 0);
		case 'q': pd_diag_quiet(1); break;
		default: pd_usage_exit(usage, 2);
		}
	}
	r = pd_runs_new();
	contexts = json_array();
	memset(&s, 0, sizeof s);
	s.ctx = r;
	s.on_record = on_record;
	s.on_operand = on_operand;
	s.on_end = on_end;
	pd_stream_run(&s, argc - optind, argv + optind);
	pd_runs_free(r);
	json_decref(contexts);
	return pd_diag_finish();
}
