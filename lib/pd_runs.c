#include "pd_runs.h"
#include "pd_diag.h"

#include <stdlib.h>
#include <string.h>

#include "pd_rec.h"

#define NULLRUN "\001null"

struct pd_runs {
	json_t *views;		/* root -> {rank key -> view} */
	json_t *root_run;	/* root -> run id (string or null) */
	json_t *profiles;	/* run key -> pd.profile */
	json_t *bottlenecks;	/* run key -> array */
	json_t *context;
	json_t *seen;		/* type -> true */
	json_t *longest;	/* the pd.gaps whose strip is the longest
				 * window among ranks >= PD_RUNS_STRIP_RANKS */
	struct pd_run *runs;
	size_t nruns;
};

struct pd_runs *
pd_runs_new(void)
{
	struct pd_runs *r = calloc(1, sizeof *r);

	if (!r)
		pd_oom();
	r->views = json_object();
	r->root_run = json_object();
	r->profiles = json_object();
	r->bottlenecks = json_object();
	r->seen = json_object();
	return r;
}

void
pd_runs_free(struct pd_runs *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nruns; i++) {
		json_decref(r->runs[i].id);
		json_decref(r->runs[i].roots);
		json_decref(r->runs[i].views);
		json_decref(r->runs[i].bottlenecks);
	}
	free(r->runs);
	json_decref(r->views);
	json_decref(r->root_run);
	json_decref(r->profiles);
	json_decref(r->bottlenecks);
	json_decref(r->context);
	json_decref(r->seen);
	json_decref(r->longest);
	free(r);
}

/* Whether a pd.gaps keeps its timeline strip: a rank below
 * PD_RUNS_STRIP_RANKS or none, or the longest window of the others (the
 * earlier holder's strip dropped; equal windows: the lower rank, then
 * root). Bounds the strips held, whatever the number of ranks. */
static int
keep_strip(struct pd_runs *r, json_t *rec)
{
	json_t *s = json_object_get(rec, "strip"), *k = json_object_get(rec,
	    "rank"), *o;
	double d, od;

	if (!json_is_object(s))
		return 0;
	if (!json_is_integer(k) || json_integer_value(k) < PD_RUNS_STRIP_RANKS)
		return 1;
	if ((o = r->longest)) {
		d = pd_rec_num(s, "dur_us", 0);
		od = pd_rec_num(json_object_get(o, "strip"), "dur_us", 0);
		if (d < od || (d == od && (pd_rec_int(rec, "rank", 0) >
		    pd_rec_int(o, "rank", 0) || (pd_rec_int(rec, "rank", 0) ==
		    pd_rec_int(o, "rank", 0) && strcmp(pd_rec_str(rec, "root"),
		    pd_rec_str(o, "root")) >= 0))))
			return 0;
		pd_set_null(o, "strip");
		json_decref(o);
	}
	r->longest = json_incref(rec);
	return 1;
}

static const char *
run_key(json_t *rec)
{
	const char *s = pd_rec_str(rec, "run");

	return s ? s : NULLRUN;
}

static json_t *
get_or_new(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!v) {
		v = json_object();
		json_object_set_new(o, key, v);
	}
	return v;
}

/* The record's (root, rank) view: rank key "null" for no integer rank. */
static json_t *
view_of(struct pd_runs *r, const char *root, json_t *rank)
{
	char key[32] = "null";

	if (json_is_integer(rank))
		snprintf(key, sizeof key, "%lld",
		    (long long)json_integer_value(rank));
	return get_or_new(get_or_new(r->views, root), key);
}

void
pd_runs_add(struct pd_runs *r, json_t *rec)
{
	const char *type = pd_rec_str(rec, "type");
	const char *root = pd_rec_str(rec, "root");
	json_t *v, *a;

	if (!type)
		return;
	json_object_set_new(r->seen, type, json_true());
	if (strcmp(type, "pd.profile") == 0) {
		json_object_set(r->profiles, run_key(rec), rec);
		return;
	}
	if (strcmp(type, "pd.bottleneck") == 0) {
		/* position 1 starts a new classification: the last one wins */
		if (!(a = json_object_get(r->bottlenecks, run_key(rec))) ||
		    pd_rec_int(rec, "position", 0) == 1) {
			a = json_array();
			json_object_set_new(r->bottlenecks, run_key(rec), a);
		}
		json_array_append(a, rec);
		return;
	}
	if (strcmp(type, "pd.context") == 0) {
		if (!r->context)
			r->context = json_incref(rec);
		return;
	}
	if (!root || strncmp(type, "pd.", 3) != 0 ||
	    strcmp(type, "pd.comparison") == 0 || strcmp(type, "pd.report") == 0)
		return;
	if (strcmp(type, "pd.root") == 0 && !json_object_get(r->root_run, root)) {
		json_t *id = json_object_get(rec, "run");

		json_object_set(r->root_run, root,
		    json_is_string(id) ? id : json_null());
	}
	v = view_of(r, root, json_object_get(rec, "rank"));
	if (!json_object_get(v, type + 3)) {
		json_t *strip = NULL;

		if (strcmp(type, "pd.gaps") == 0 && keep_strip(r, rec))
			strip = json_incref(json_object_get(rec, "strip"));
		pd_rec_trim(rec);
		if (strip)
			json_object_set_new(rec, "strip", strip);
		json_object_set(v, type + 3, rec);
	}
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char **
sorted_keys(json_t *o, size_t *n)
{
	const char **k = malloc((json_object_size(o) + 1) * sizeof *k);
	const char *key;
	json_t *val;
	size_t i = 0;

	if (!k)
		pd_oom();
	json_object_foreach(o, key, val)
		k[i++] = key;
	qsort(k, i, sizeof *k, cmp_str);
	*n = i;
	return k;
}

size_t
pd_runs_ranked(json_t *byrank)
{
	const char *k;
	json_t *v;
	size_t n = 0;

	json_object_foreach(byrank, k, v)
		n += strcmp(k, "null") != 0;
	return n;
}

/* A root's views into out: one per rank when its records carry two
 * ranks or more (key "ROOT#rank=N", the rank-less records added for the
 * types the rank lacks), else one keyed by the root (a rank's records
 * first, then the rank-less ones for what is missing). */
static void
add_views(json_t *out, const char *root, json_t *byrank)
{
	json_t *nullv = json_object_get(byrank, "null"), *v, *w;
	const char *k;
	char *key;

	if (pd_runs_ranked(byrank) < 2) {
		w = json_object();
		json_object_foreach(byrank, k, v)
			if (strcmp(k, "null"))
				json_object_update(w, v);
		if (nullv)
			json_object_update_missing(w, nullv);
		json_object_set_new(out, root, w);
		return;
	}
	json_object_foreach(byrank, k, v) {
		if (!strcmp(k, "null"))
			continue;
		w = json_copy(v);
		if (nullv)
			json_object_update_missing(w, nullv);
		key = malloc(strlen(root) + strlen(k) + 8);
		if (!key)
			pd_oom();
		sprintf(key, "%s#rank=%s", root, k);
		json_object_set_new(out, key, w);
		free(key);
	}
}

size_t
pd_runs_group(struct pd_runs *r)
{
	json_t *byrun = json_object();
	const char **roots, **runs;
	size_t n, nr, i;

	roots = sorted_keys(r->views, &n);
	for (i = 0; i < n; i++) {
		json_t *id = json_object_get(r->root_run, roots[i]);
		const char *key = json_is_string(id) ? json_string_value(id) :
		    NULLRUN;
		json_t *list = json_object_get(byrun, key);

		if (!list) {
			list = json_array();
			json_object_set_new(byrun, key, list);
		}
		json_array_append_new(list, json_string(roots[i]));
	}
	/* runs that only have a profile or bottlenecks */
	{
		const char *key;
		json_t *val;

		json_object_foreach(r->profiles, key, val)
			if (!json_object_get(byrun, key))
				json_object_set_new(byrun, key, json_array());
		json_object_foreach(r->bottlenecks, key, val)
			if (!json_object_get(byrun, key))
				json_object_set_new(byrun, key, json_array());
	}
	runs = sorted_keys(byrun, &nr);	/* "\001null" sorts first */
	r->runs = calloc(nr + 1, sizeof *r->runs);
	if (!r->runs)
		pd_oom();
	for (i = 0; i < nr; i++) {
		struct pd_run *u = &r->runs[i];
		json_t *list = json_object_get(byrun, runs[i]);
		json_t *b = json_object_get(r->bottlenecks, runs[i]);
		size_t j;

		u->id = strcmp(runs[i], NULLRUN) ? json_string(runs[i]) :
		    json_null();
		u->roots = json_incref(list);
		u->views = json_object();
		for (j = 0; j < json_array_size(list); j++)
			add_views(u->views, json_string_value(
			    json_array_get(list, j)), json_object_get(r->views,
			    json_string_value(json_array_get(list, j))));
		u->profile = json_object_get(r->profiles, runs[i]);
		u->bottlenecks = b ? json_incref(b) : json_array();
		u->context = r->context;
	}
	r->nruns = nr;
	free(roots);
	free(runs);
	json_decref(byrun);
	return nr;
}

int
pd_runs_from_cluster(const char *type)
{
	return strcmp(type, "step") == 0 || strcmp(type, "root") == 0;
}

json_t *
pd_runs_view(struct pd_run *u, const char *root, json_t *rank)
{
	json_t *v;
	char *key;

	if (!root)
		return NULL;
	if ((v = json_object_get(u->views, root)) || !json_is_integer(rank))
		return v;
	key = malloc(strlen(root) + 32);
	if (!key)
		pd_oom();
	sprintf(key, "%s#rank=%lld", root, (long long)json_integer_value(rank));
	v = json_object_get(u->views, key);
	free(key);
	return v;
}

struct pd_run *
pd_runs_get(struct pd_runs *r, size_t i)
{
	return i < r->nruns ? &r->runs[i] : NULL;
}

int
pd_runs_seen(struct pd_runs *r, const char *type)
{
	return json_object_get(r->seen, type) != NULL;
}
