/* pd-hotspots: FLOPs counted by the CUPTI range profiler.
 *
 * Kineto's experimental range profiling writes one "cuda_profiler_range"
 * event per kernel whose args are the counter values of that kernel. The
 * SASS thread-instruction counters of the add, mul and fma operations
 * (smsp__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum)
 * give the FLOPs per precision as add + mul + 2 * fma, as Nsight
 * Compute's roofline ("SpeedOfLight_RooflineChart" section) counts
 * achieved work. The ranges' durations include the profiler's replays,
 * so no rate is derived from them. Other numeric counters are kept as a
 * mean per kernel.
 * Memory: one entry per distinct kernel name and per counter name. */
#include "counters.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_num.h"
#include "pd_rec.h"

#define SADD(a, b) ((a) = pd_num_add_sat((a), (b)))

enum { P_FP64, P_FP32, P_FP16, NPREC };
static const char *const prec_key[NPREC] = {
	"flops_fp64", "flops_fp32", "flops_fp16"
};

/* The FLOP counters: precision and weight (an fma is two operations). */
static const struct {
	const char *name;
	int prec, weight;
} flop_ctr[] = {
	{ "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", P_FP64, 1 },
	{ "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", P_FP64, 2 },
	{ "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", P_FP64, 1 },
	{ "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", P_FP32, 1 },
	{ "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", P_FP32, 2 },
	{ "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", P_FP32, 1 },
	{ "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", P_FP16, 1 },
	{ "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", P_FP16, 2 },
	{ "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", P_FP16, 1 },
};
#define NFLOP (sizeof flop_ctr / sizeof flop_ctr[0])

/* Sum and count of one other counter in one kernel's ranges. */
struct mean {
	size_t metric;
	double sum;
	int64_t n;
};

struct kern {
	char *name;
	int64_t count, flops[NPREC];
	struct mean *m;
	size_t nm, capm;
};

struct counters {
	int64_t ranges, unreadable;
	json_t *kindex;		/* kernel name -> index into k */
	struct kern *k;
	size_t nk, capk;
	json_t *mindex;		/* counter name -> index (all counters) */
};

struct counters *
counters_new(void)
{
	struct counters *c = pd_xcalloc(1, sizeof *c);

	c->kindex = json_object();
	c->mindex = json_object();
	if (!c->kindex || !c->mindex)
		pd_oom();
	return c;
}

static struct kern *
kern_of(struct counters *c, const char *name)
{
	json_t *v = json_object_get(c->kindex, name);
	struct kern *k;

	if (v)
		return &c->k[json_integer_value(v)];
	if (c->nk == c->capk) {
		c->capk = c->capk ? c->capk * 2 : 16;
		c->k = pd_xrealloc(c->k, c->capk * sizeof *c->k);
	}
	k = &c->k[c->nk];
	memset(k, 0, sizeof *k);
	k->name = pd_xrealloc(NULL, strlen(name) + 1);
	strcpy(k->name, name);
	json_object_set_new(c->kindex, name, json_integer((json_int_t)c->nk));
	c->nk++;
	return k;
}

static size_t
metric_of(struct counters *c, const char *name)
{
	json_t *v = json_object_get(c->mindex, name);
	size_t i = json_object_size(c->mindex);

	if (v)
		return (size_t)json_integer_value(v);
	json_object_set_new(c->mindex, name, json_integer((json_int_t)i));
	return i;
}

static void
add_mean(struct kern *k, size_t metric, double x)
{
	size_t i;

	for (i = 0; i < k->nm; i++)
		if (k->m[i].metric == metric)
			break;
	if (i == k->nm) {
		if (k->nm == k->capm) {
			k->capm = k->capm ? k->capm * 2 : 4;
			k->m = pd_xrealloc(k->m, k->capm * sizeof *k->m);
		}
		k->m[i].metric = metric;
		k->m[i].sum = 0;
		k->m[i].n = 0;
		k->nm++;
	}
	k->m[i].sum += x;
	k->m[i].n++;
}

static int
flop_index(const char *name)
{
	size_t i;

	for (i = 0; i < NFLOP; i++)
		if (strcmp(name, flop_ctr[i].name) == 0)
			return (int)i;
	return -1;
}

/* A count times its weight, saturated. */
static int64_t
weighted(const json_t *v, double x, int w)
{
	int64_t n;

	if (json_is_integer(v)) {
		n = json_integer_value(v);
		return n > INT64_MAX / w ? INT64_MAX : n * w;
	}
	x *= w;
	return x >= 9.2e18 ? INT64_MAX : (int64_t)llround(x);
}

void
counters_event(struct counters *c, const struct pd_ev *ev)
{
	json_t *args, *v;
	const char *key;
	struct kern *k;

	if (strcmp(ev->cat, "cuda_profiler_range") != 0)
		return;
	c->ranges++;
	k = kern_of(c, ev->name);
	k->count++;
	args = pd_ev_args_json(ev);
	json_object_foreach(args, key, v) {
		size_t m = metric_of(c, key);
		int f = flop_index(key);
		double x = json_number_value(v);

		if (!json_is_number(v) || !isfinite(x) || x < 0) {
			c->unreadable++;
			continue;
		}
		if (f < 0) {
			add_mean(k, m, x);
			continue;
		}
		SADD(k->flops[flop_ctr[f].prec], weighted(v, x,
		    flop_ctr[f].weight));
	}
	json_decref(args);
}

static int64_t
kern_flops(const struct kern *k)
{
	int64_t s = 0;
	int p;

	for (p = 0; p < NPREC; p++)
		SADD(s, k->flops[p]);
	return s;
}

static const struct counters *sort_c;

static int
cmp_kern(const void *x, const void *y)
{
	const struct kern *a = &sort_c->k[*(const size_t *)x];
	const struct kern *b = &sort_c->k[*(const size_t *)y];
	int64_t fa = kern_flops(a), fb = kern_flops(b);

	if (fa != fb)
		return fa > fb ? -1 : 1;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int
cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The counter names, sorted (borrowed from mindex). */
static const char **
metric_names(const struct counters *c)
{
	size_t n = json_object_size(c->mindex);
	const char **v = pd_xcalloc(n + 1, sizeof *v);
	const char *key;
	json_t *val;

	json_object_foreach(c->mindex, key, val)
		v[json_integer_value(val)] = key;
	return v;
}

static json_t *
kern_json(const struct kern *k, const char **names, const char **sorted,
    size_t nmetric)
{
	json_t *o = json_object(), *means = json_object();
	size_t i, j;
	int p;

	pd_set_str(o, "name", k->name);
	pd_set_int(o, "count", k->count);
	for (p = 0; p < NPREC; p++)
		pd_set_int(o, prec_key[p], k->flops[p]);
	pd_set_int(o, "flops", kern_flops(k));
	for (i = 0; i < nmetric; i++)	/* in name order */
		for (j = 0; j < k->nm; j++)
			if (names[k->m[j].metric] == sorted[i] && k->m[j].n)
				pd_set_real(means, sorted[i], k->m[j].sum /
				    (double)k->m[j].n, 4);
	pd_set(o, "means", means);
	return o;
}

json_t *
counters_json(struct counters *c, int topn)
{
	json_t *rec, *kernels, *totals, *metrics;
	size_t nmetric = json_object_size(c->mindex), i, *v;
	const char **names, **sorted;
	int64_t tot[NPREC] = { 0 }, all = 0;
	int p;

	if (c->ranges == 0)
		return json_null();
	names = metric_names(c);
	sorted = pd_xcalloc(nmetric + 1, sizeof *sorted);
	memcpy(sorted, names, nmetric * sizeof *sorted);
	qsort(sorted, nmetric, sizeof *sorted, cmp_str);
	v = pd_xcalloc(c->nk + 1, sizeof *v);
	for (i = 0; i < c->nk; i++) {
		v[i] = i;
		for (p = 0; p < NPREC; p++)
			SADD(tot[p], c->k[i].flops[p]);
	}
	sort_c = c;
	qsort(v, c->nk, sizeof *v, cmp_kern);
	kernels = json_array();
	for (i = 0; i < c->nk && (int)i < topn; i++)
		json_array_append_new(kernels, kern_json(&c->k[v[i]], names,
		    sorted, nmetric));
	totals = json_object();
	for (p = 0; p < NPREC; p++) {
		pd_set_int(totals, prec_key[p], tot[p]);
		SADD(all, tot[p]);
	}
	pd_set_int(totals, "flops", all);
	metrics = json_array();
	for (i = 0; i < nmetric; i++)
		json_array_append_new(metrics, json_string(sorted[i]));
	rec = json_object();
	pd_set_int(rec, "ranges", c->ranges);
	pd_set_int(rec, "unreadable", c->unreadable);
	pd_set(rec, "kernels", kernels);
	pd_set(rec, "totals", totals);
	pd_set(rec, "metrics", metrics);
	free(v);
	free(sorted);
	free(names);
	return rec;
}

void
counters_free(struct counters *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nk; i++) {
		free(c->k[i].name);
		free(c->k[i].m);
	}
	free(c->k);
	json_decref(c->kindex);
	json_decref(c->mindex);
	free(c);
}
