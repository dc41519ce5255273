/* The cross-rank analysis of a run: slow rank, slow link, the wait at the
 * collectives and who causes it (in aligned trace time, else from the
 * measured wait), step skew, and the slow pipeline stage. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pd_path.h"
#include "pd_diag.h"
#include "pd_rec.h"
#include "pd-profile/profile.h"

/* Steps of a unit (at least 1). */
static double
nsteps(json_t *v)
{
	double n = pd_path_num(v, "step.step_stats.n");

	return n > 0 ? n : 1;
}

/* Per rank mean per step of a step total. */
static double
per_step(json_t *v, const char *key)
{
	char path[96];
	double n = pd_path_num(v, "step.step_stats.n");

	snprintf(path, sizeof path, "step.totals.%s", key);
	return n > 0 ? pd_path_num(v, path) / n : NAN;
}

/* The step time the cross-rank ratios are taken over: msprof-analyze's
 * mean over ranks of Computing + Communication(Not Overlapped) + Free per
 * step where the three are known, else the mean step. */
static double
mean_total(struct prun *p, const char **basis)
{
	struct acc a;
	size_t i;

	memset(&a, 0, sizeof a);
	for (i = 0; i < p->n; i++) {
		json_t *v = p->un[i].view;

		acc_add(&a, per_step(v, "computing_us") +
		    per_step(v, "comm_not_overlapped_us") + per_step(v, "free_us"),
		    NULL);
	}
	if (a.n == (int)p->n && a.n > 0) {
		*basis = "computing + comm_not_overlapped + free";
		return acc_mean(&a);
	}
	*basis = "step";
	a = over_units(p, "step.step_stats.mean");
	return acc_mean(&a);
}

static json_t *
slow_rank(struct prun *p, double mean_step)
{
	static const char *dims[][2] = {
		{ "computing", "computing_us" },
		{ "comm_not_overlapped", "comm_not_overlapped_us" },
		{ "free", "free_us" },
	};
	json_t *arr = json_array();
	size_t u;
	int i;

	for (i = 0; i < 3; i++) {
		struct acc a;
		json_t *o;
		double ratio;

		memset(&a, 0, sizeof a);
		for (u = 0; u < p->n; u++)
			acc_add(&a, per_step(p->un[u].view, dims[i][1]),
			    p->un[u].rank);
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

/* The slowest link of a transport over every rank's links (global ranks:
 * a link that names its group counts ranks within it and is left out). */
static json_t *
slow_pair(struct prun *p, const char *transport)
{
	json_t *best = NULL, *o;
	size_t i, j;

	for (i = 0; i < p->n; i++) {
		json_t *l = pd_path_get(p->un[i].view, "comm.links");

		for (j = 0; j < json_array_size(l); j++) {
			json_t *e = json_array_get(l, j);
			const char *t = pd_rec_str(e, "transport");
			double bw = pd_rec_num(e, "bandwidth_gb_per_s", NAN);

			if (!t || strcmp(t, transport) || isnan(bw) ||
			    json_is_string(json_object_get(e, "group")) ||
			    !json_is_integer(json_object_get(e, "src")) ||
			    !json_is_integer(json_object_get(e, "dst")))
				continue;
			if (!best || bw < pd_rec_num(best, "bandwidth_gb_per_s", 0))
				best = e;
		}
	}
	if (!best)
		return json_null();
	o = json_object();
	pd_set(o, "src", json_incref(json_object_get(best, "src")));
	pd_set(o, "dst", json_incref(json_object_get(best, "dst")));
	pd_set_real(o, "bandwidth_gb_per_s", pd_rec_num(best,
	    "bandwidth_gb_per_s", NAN), 3);
	return o;
}

static json_t *
slow_link(struct prun *p)
{
	json_t *names = json_array(), *arr = json_array();
	size_t i, j, u;

	for (u = 0; u < p->n; u++) {
		json_t *t = pd_path_get(p->un[u].view, "comm.transports");

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
		for (u = 0; u < p->n; u++)
			acc_add(&a, pd_path_num(p->un[u].view, path),
			    p->un[u].rank);
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
		pd_set(o, "slow_pair", slow_pair(p, n));
		pd_set_bool(o, "fires", ratio > SLOW_RATIO);
		json_array_append_new(arr, o);
	}
	json_decref(names);
	return arr;
}

/* ---- the wait at the collectives ---- */

struct rk {
	double wait_us;		/* waited at the collectives, in all */
	double caused_us;	/* the others' mean wait where this rank was last */
	double delay_us;	/* lateness over the next-latest, in all */
	int last, seen, has;
};

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

struct member {
	size_t unit;
	int64_t start, end;
};

/* The ranks' collectives grouped by key (in the order keys are first
 * met, ranks in unit order): a counting sort. *ngroups: keys met;
 * *first[g]..first[g+1]: group g's members. */
static struct member *
group_colls(struct prun *p, size_t *ngroups, size_t **first)
{
	size_t nk = colls_keys(), i, j, n, total = 0, g = 0;
	size_t *ord = malloc((nk + 1) * sizeof *ord);
	size_t *at = calloc(nk + 2, sizeof *at);
	struct member *m;

	if (!ord || !at)
		pd_oom();
	for (i = 0; i < nk; i++)
		ord[i] = SIZE_MAX;
	for (i = 0; i < p->n; i++) {
		const struct coll *c = colls_list(colls_of(json_object_get(
		    p->un[i].view, "comm")), &n);

		if (!json_is_integer(p->un[i].rank))
			continue;
		for (j = 0; j < n; j++) {
			if (ord[c[j].key] == SIZE_MAX)
				ord[c[j].key] = g++;
			at[ord[c[j].key] + 1]++;
			total++;
		}
	}
	for (i = 0; i < g; i++)
		at[i + 1] += at[i];
	if (!(m = malloc((total + 1) * sizeof *m)))
		pd_oom();
	*first = calloc(g + 1, sizeof **first);
	if (!*first)
		pd_oom();
	memcpy(*first, at, (g + 1) * sizeof *at);
	for (i = 0; i < p->n; i++) {
		const struct coll *c = colls_list(colls_of(json_object_get(
		    p->un[i].view, "comm")), &n);

		if (!json_is_integer(p->un[i].rank))
			continue;
		for (j = 0; j < n; j++) {
			struct member *e = &m[at[ord[c[j].key]]++];

			e->unit = i;
			e->start = c[j].start;
			e->end = c[j].end;
		}
	}
	free(ord);
	free(at);
	*ngroups = g;
	return m;
}

/* Collectives matched across ranks by group, op type and sequence
 * number (seq counts per op type and group), in aligned trace time
 * (start_ns). A blocking collective ends at
 * about the same time on every rank, so a rank whose end is further than
 * 2 % of the duration (at least 20 us) from the median end did not run
 * the same collective (the sequences drifted: a collective one rank has
 * and the other not) and is left out of that one. Returns the number of
 * matched collectives; *unmatched: keys on 2+ ranks that did not match. */
static size_t
align(struct prun *p, struct rk *r, double *skew_sum, double *skew_max,
    size_t *unmatched)
{
	size_t g, ng, *first, j, keys = 0;
	struct member *all;

	*skew_sum = 0;
	*skew_max = 0;
	*unmatched = 0;
	all = group_colls(p, &ng, &first);
	for (g = 0; g < ng; g++) {
		struct member *a = all + first[g];
		size_t n = first[g + 1] - first[g], kept = 0, hi = 0;
		int64_t *ends, med, first_s = INT64_MAX, last = INT64_MIN,
		    second = INT64_MIN, maxdur = 0, tol;
		int *ok;

		if (n < 2)
			continue;
		ends = malloc(n * sizeof *ends);
		ok = calloc(n, sizeof *ok);
		if (!ends || !ok)
			pd_oom();
		for (j = 0; j < n; j++) {
			ends[j] = a[j].end;
			if (a[j].end - a[j].start > maxdur)
				maxdur = a[j].end - a[j].start;
		}
		qsort(ends, n, sizeof *ends, cmp_i64);
		med = ends[(n - 1) / 2];
		tol = maxdur / 50 > 20000 ? maxdur / 50 : 20000;
		for (j = 0; j < n; j++) {
			int64_t s = a[j].start, en = a[j].end;

			if (llabs(en - med) > tol)
				continue;
			ok[j] = 1;
			kept++;
			if (s < first_s)
				first_s = s;
			if (s > last) {
				second = last;
				last = s;
				hi = j;
			} else if (s > second)
				second = s;
		}
		if (kept < 2) {
			(*unmatched)++;
			free(ends);
			free(ok);
			continue;
		}
		keys++;
		{
			double others = 0;
			size_t ui = a[hi].unit;

			for (j = 0; j < n; j++) {
				size_t u = a[j].unit;
				int64_t s = a[j].start;

				if (!ok[j])
					continue;
				r[u].seen++;
				r[u].has = 1;
				r[u].wait_us += (double)(last - s) / 1000;
				if (j != hi)
					others += (double)(last - s) / 1000;
			}
			r[ui].last++;
			r[ui].delay_us += (double)(last - second) / 1000;
			r[ui].caused_us += others / (double)(kept - 1);
		}
		*skew_sum += (double)(last - first_s) / 1000;
		if ((double)(last - first_s) / 1000 > *skew_max)
			*skew_max = (double)(last - first_s) / 1000;
		free(ends);
		free(ok);
	}
	free(all);
	free(first);
	return keys;
}

/* The measured wait (pd.comm wait_us: HCCL's Wait Time, the time a rank
 * waited for its peers) of every rank. Returns how many ranks have one. */
static size_t
measured(struct prun *p, struct rk *r)
{
	size_t i, n = 0;

	for (i = 0; i < p->n; i++) {
		double w = pd_path_num(p->un[i].view, "comm.wait_us");

		if (isnan(w) || !json_is_integer(p->un[i].rank))
			continue;
		r[i].wait_us = w;
		r[i].has = 1;
		n++;
	}
	return n;
}

static json_t *
wait_json(struct prun *p, struct rk *r, const char *src)
{
	json_t *o = json_object(), *arr = json_array();
	struct acc a;
	size_t i;

	memset(&a, 0, sizeof a);
	for (i = 0; i < p->n; i++) {
		json_t *e;
		double w;

		if (!r[i].has)
			continue;
		w = r[i].wait_us / nsteps(p->un[i].view);
		acc_add(&a, w, p->un[i].rank);
		e = json_object();
		pd_set(e, "rank", rank_json(p->un[i].rank));
		pd_set_real(e, "wait_us_per_step", w, 3);
		json_array_append_new(arr, e);
	}
	pd_set_str(o, "source", src);
	pd_set(o, "ranks", arr);
	pd_set_real(o, "max_us", a.n ? a.max : NAN, 3);
	pd_set(o, "max_rank", rank_json(a.max_rank));
	pd_set_real(o, "min_us", a.n ? a.min : NAN, 3);
	pd_set(o, "min_rank", rank_json(a.min_rank));
	return o;
}

struct cand {
	size_t u;
	double caused;		/* per step */
};

static int
cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->caused != y->caused)
		return x->caused > y->caused ? -1 : 1;
	return x->u < y->u ? -1 : x->u > y->u;
}

/* The ranks the others wait for (at most two), those whose caused wait
 * is more than 5 % of the step. Aligned: the rank that starts a matched
 * collective last more often than chance (HTA's late start); the wait it
 * causes is the others' mean wait there. Measured: the rank that waits
 * least, causing the others' mean wait minus its own. */
static json_t *
stragglers(struct prun *p, struct rk *r, size_t keys, double mean_step)
{
	json_t *arr = json_array();
	struct cand *c = calloc(p->n + 1, sizeof *c);
	size_t i, nc = 0, nr = 0, lo = 0;
	double sum = 0;

	if (!c)
		pd_oom();
	for (i = 0; i < p->n; i++)
		if (r[i].has) {
			nr++;
			sum += r[i].wait_us / nsteps(p->un[i].view);
			if (!r[lo].has || r[i].wait_us / nsteps(p->un[i].view) <
			    r[lo].wait_us / nsteps(p->un[lo].view))
				lo = i;
		}
	if (nr < 2 || !(mean_step > 0)) {
		free(c);
		return arr;
	}
	if (keys) {
		for (i = 0; i < p->n; i++)
			if (r[i].has && (size_t)r[i].last * nr > keys) {
				c[nc].u = i;
				c[nc++].caused = r[i].caused_us /
				    nsteps(p->un[i].view);
			}
	} else {
		double own = r[lo].wait_us / nsteps(p->un[lo].view);

		c[nc].u = lo;
		c[nc++].caused = (sum - own) / (double)(nr - 1) - own;
	}
	qsort(c, nc, sizeof *c, cmp_cand);
	for (i = 0; i < nc && i < 2; i++) {
		json_t *o;
		size_t u = c[i].u;

		if (c[i].caused / mean_step <= SLOW_RATIO)
			continue;
		o = json_object();
		pd_set(o, "rank", rank_json(p->un[u].rank));
		pd_set_str(o, "method", keys ? "late_start" : "measured_wait");
		if (keys) {
			pd_set_int(o, "last_at", r[u].last);
			pd_set_int(o, "collectives", (int64_t)keys);
			pd_set_real(o, "delay_us", r[u].delay_us, 3);
		} else {
			pd_set_null(o, "last_at");
			pd_set_null(o, "collectives");
			pd_set_null(o, "delay_us");
		}
		pd_set_real(o, "wait_us_per_step", r[u].wait_us /
		    nsteps(p->un[u].view), 3);
		pd_set_real(o, "caused_wait_us_per_step", c[i].caused, 3);
		pd_set_real(o, "ratio", c[i].caused / mean_step, 4);
		json_array_append_new(arr, o);
	}
	free(c);
	return arr;
}

static json_t *
step_skew(struct prun *p)
{
	struct acc a = over_units(p, "step.step_stats.mean");
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

/* ---- the slow pipeline stage ---- */

struct stg {
	int stage, n;
	double busy, comp, comm, free, bubble, step;
	int bubble_n;
	json_t *ranks;
};

/* A stage's own time per step: the step less the time its ranks wait in
 * receive for the other stages (msprof-analyze: Stage = step - Bubble,
 * Bubble = the receive ops' time); mean over the stage's ranks. */
static int
stage_sums(struct prun *p, struct stg *s, int maxst)
{
	size_t i;
	int k, n = 0;

	for (k = 0; k <= maxst; k++) {
		memset(&s[k], 0, sizeof s[k]);
		s[k].stage = k;
		s[k].ranks = json_array();
	}
	for (i = 0; i < p->n; i++) {
		json_t *v = p->un[i].view;
		struct stg *t;
		double st = per_step(v, "step_us"), bub = per_step(v, "bubble_us");
		double stage = per_step(v, "stage_us");

		if (p->un[i].stage < 0 || isnan(st))
			continue;
		t = &s[p->un[i].stage];
		if (isnan(bub))
			bub = 0;
		else
			t->bubble_n++;
		t->busy += !isnan(stage) ? stage : st - bub;
		t->comp += per_step(v, "computing_us");
		t->comm += per_step(v, "comm_not_overlapped_us") - bub;
		t->free += per_step(v, "free_us");
		t->bubble += bub;
		t->step += st;
		t->n++;
		json_array_append(t->ranks, p->un[i].rank);
	}
	for (k = 0; k <= maxst; k++)
		if (s[k].n) {
			s[k].busy /= s[k].n;
			s[k].comp /= s[k].n;
			s[k].comm /= s[k].n;
			s[k].free /= s[k].n;
			s[k].bubble /= s[k].n;
			s[k].step /= s[k].n;
			n++;
		}
	return n;
}

static json_t *
stage_json(const struct stg *s, json_t *job)
{
	json_t *o = json_object(), *st = json_object_get(job, "stages"), *e;
	size_t i;

	pd_set_int(o, "stage", s->stage);
	json_array_foreach(st, i, e)
		if (pd_rec_int(e, "stage", -1) == s->stage)
			pd_set(o, "ranks_text", json_incref(json_object_get(e,
			    "ranks_text")));
	pd_set(o, "ranks", json_incref(s->ranks));
	pd_set_real(o, "busy_us", s->busy, 3);
	pd_set_real(o, "computing_us", s->comp, 3);
	pd_set_real(o, "comm_us", s->comm, 3);
	pd_set_real(o, "free_us", s->free, 3);
	pd_set_real(o, "bubble_us", s->bubble_n ? s->bubble : NAN, 3);
	pd_set_real(o, "step_us", s->step, 3);
	return o;
}

/* The slow stage's own communication, from its ranks' pd.comm: the
 * operator type that takes the most time per step (mean over the ranks
 * that have one, with the part of it spent waiting for the other ranks)
 * and the single slowest operator. null when none of its ranks has one. */
static json_t *
stage_comm(struct prun *p, int stage)
{
	json_t *types = json_object(), *o, *top = NULL, *slowest = NULL;
	json_t *srank = NULL, *t, *e;
	const char *key, *tkey = NULL;
	double best = -1, sbest = -1;
	size_t i, j;
	int n = 0;

	for (i = 0; i < p->n; i++) {
		json_t *c = json_object_get(p->un[i].view, "comm");
		double ns = nsteps(p->un[i].view);

		if (p->un[i].stage != stage || !c ||
		    !json_array_size(json_object_get(c, "ops")))
			continue;
		n++;
		json_array_foreach(json_object_get(c, "ops"), j, e) {
			const char *ty = pd_rec_str(e, "op_type");
			double tot = pd_rec_num(e, "total_us", NAN);
			double w = pd_rec_num(e, "wait_us", NAN);

			if (!ty || isnan(tot))
				continue;
			if (!(t = json_object_get(types, ty))) {
				t = json_pack("{s:f,s:f,s:i}", "us", 0.0, "wait",
				    0.0, "wn", 0);
				json_object_set_new(types, ty, t);
			}
			pd_set_real(t, "us", pd_rec_num(t, "us", 0) + tot / ns, -1);
			if (!isnan(w)) {
				pd_set_real(t, "wait", pd_rec_num(t, "wait", 0) +
				    w / ns, -1);
				pd_set_int(t, "wn", pd_rec_int(t, "wn", 0) + 1);
			}
		}
		e = json_array_get(json_object_get(c, "slowest"), 0);
		if (e && pd_rec_num(e, "elapse_us", -1) > sbest) {
			sbest = pd_rec_num(e, "elapse_us", -1);
			slowest = e;
			srank = p->un[i].rank;
		}
	}
	if (!n) {
		json_decref(types);
		return json_null();
	}
	json_object_foreach(types, key, t)
		if (pd_rec_num(t, "us", 0) > best ||
		    (pd_rec_num(t, "us", 0) == best && strcmp(key, tkey) < 0)) {
			best = pd_rec_num(t, "us", 0);
			tkey = key;
			top = t;
		}
	o = json_object();
	pd_set_int(o, "ranks", n);
	if (top) {
		json_t *x = json_object();
		int wn = pd_rec_int(top, "wn", 0);

		pd_set_str(x, "op_type", tkey);
		pd_set_real(x, "us_per_step", best / n, 3);
		pd_set_real(x, "wait_us_per_step", wn ?
		    pd_rec_num(top, "wait", 0) / wn : NAN, 3);
		pd_set_real(x, "wait_share", wn && best > 0 ?
		    pd_rec_num(top, "wait", 0) / wn / (best / n) : NAN, 4);
		pd_set(o, "top", x);
	} else
		pd_set_null(o, "top");
	if (slowest) {
		json_t *x = json_object();

		pd_set(x, "name", json_incref(json_object_get(slowest, "name")));
		pd_set_real(x, "elapse_us", sbest, 3);
		pd_set(x, "step", json_incref(json_object_get(slowest, "step")));
		pd_set(x, "rank", json_incref(srank));
		pd_set(o, "slowest", x);
	} else
		pd_set_null(o, "slowest");
	json_decref(types);
	return o;
}

/* The stage the others wait for: the one with the most own time per
 * step. It fires when it is more than 5 % above the fastest stage (the
 * advisor's imbalance threshold) and, where the receive time is known,
 * the other stages wait in receive for more than 5 % of their step. */
static json_t *
slow_stage(struct prun *p, json_t *job)
{
	struct stg *s;
	json_t *o, *others;
	int maxst = -1, k, slow = -1, fast = -1, nst;
	size_t i;
	double wait = 0, wstep = 0, ratio, dc, dm, df;
	int wn = 0, bn = 0;
	const char *from;

	for (i = 0; i < p->n; i++)
		if (p->un[i].stage > maxst)
			maxst = p->un[i].stage;
	if (maxst < 1)
		return json_null();
	s = calloc((size_t)maxst + 1, sizeof *s);
	if (!s)
		pd_oom();
	nst = stage_sums(p, s, maxst);
	for (k = 0; k <= maxst; k++) {
		if (!s[k].n)
			continue;
		if (slow < 0 || s[k].busy > s[slow].busy)
			slow = k;
		if (fast < 0 || s[k].busy < s[fast].busy)
			fast = k;
	}
	if (nst < 2 || !(s[fast].busy > 0)) {
		for (k = 0; k <= maxst; k++)
			json_decref(s[k].ranks);
		free(s);
		return json_null();
	}
	others = json_array();
	for (k = 0; k <= maxst; k++) {
		if (!s[k].n || k == slow)
			continue;
		json_array_append_new(others, stage_json(&s[k], job));
		wait += s[k].bubble * s[k].n;
		wstep += s[k].step * s[k].n;
		wn += s[k].n;
		bn += s[k].bubble_n;
	}
	ratio = s[slow].busy / s[fast].busy;
	dc = s[slow].comp - s[fast].comp;
	dm = s[slow].comm - s[fast].comm;
	df = s[slow].free - s[fast].free;
	from = dc >= dm && dc >= df ? "computing" : dm >= df ? "communication" :
	    "free";
	o = stage_json(&s[slow], job);
	pd_set_int(o, "fast_stage", s[fast].stage);
	{
		json_t *f = stage_json(&s[fast], job);

		pd_set(o, "fast_ranks_text", json_incref(json_object_get(f,
		    "ranks_text")));
		pd_set_real(o, "fast_busy_us", s[fast].busy, 3);
		json_decref(f);
	}
	pd_set_real(o, "ratio", ratio, 4);
	pd_set_real(o, "excess_us", s[slow].busy - s[fast].busy, 3);
	pd_set_str(o, "excess_from", from);
	pd_set_real(o, "excess_computing_us", dc, 3);
	pd_set_real(o, "excess_comm_us", dm, 3);
	pd_set_real(o, "excess_free_us", df, 3);
	pd_set_real(o, "wait_us_per_step", bn ? wait / wn : NAN, 3);
	pd_set_real(o, "wait_ratio", bn && wstep > 0 ? wait / wstep : NAN, 4);
	/* the share of the waiting stages' step lost waiting; without receive
	 * times, the slow stage's excess over its own time */
	pd_set_real(o, "impact", bn && wstep > 0 ? wait / wstep :
	    (s[slow].busy - s[fast].busy) / s[slow].busy, 4);
	pd_set(o, "comm", stage_comm(p, s[slow].stage));
	pd_set(o, "other_stages", others);
	pd_set_bool(o, "fires", ratio - 1 > SLOW_RATIO &&
	    (!bn || wait / wstep > SLOW_RATIO));
	for (k = 0; k <= maxst; k++)
		json_decref(s[k].ranks);
	free(s);
	return o;
}

json_t *
cross_rank(struct prun *p, json_t *job)
{
	json_t *o, *sk;
	struct rk *r;
	const char *basis;
	double mean_step, ssum, smax;
	size_t keys, unmatched;

	if (p->n < 2)
		return json_null();
	mean_step = mean_total(p, &basis);
	o = json_object();
	pd_set(o, "slow_rank", slow_rank(p, mean_step));
	pd_set_str(o, "mean_step_basis", basis);
	pd_set(o, "slow_link", slow_link(p));
	r = calloc(p->n + 1, sizeof *r);
	if (!r)
		pd_oom();
	keys = align(p, r, &ssum, &smax, &unmatched);
	if (keys) {
		pd_set(o, "wait", wait_json(p, r, "aligned"));
	} else {
		memset(r, 0, (p->n + 1) * sizeof *r);
		pd_set(o, "wait", measured(p, r) ? wait_json(p, r, "measured") :
		    json_null());
	}
	pd_set(o, "stragglers", stragglers(p, r, keys, mean_step));
	free(r);
	if (keys || unmatched) {
		sk = json_object();
		pd_set_int(sk, "collectives", (int64_t)keys);
		pd_set_int(sk, "unmatched", (int64_t)unmatched);
		pd_set_real(sk, "mean_us", keys ? ssum / keys : NAN, 3);
		pd_set_real(sk, "max_us", keys ? smax : NAN, 3);
		pd_set_real(sk, "ratio", keys && mean_step > 0 ? ssum / keys /
		    mean_step : NAN, 4);
		pd_set(o, "collective_skew", sk);
	} else
		pd_set_null(o, "collective_skew");
	pd_set(o, "step_skew", step_skew(p));
	pd_set(o, "slow_stage", slow_stage(p, job));
	return o;
}
