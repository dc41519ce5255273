#include "pd_runs.h"
#include "pd_diag.h"

#include <math.h>
#include <stdint.h>
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
	json_t *pending;	/* the record held last, its values not
				 * shared yet */
	struct pd_run *runs;
	size_t nruns;
	int pack;
};

/* ---- packed arrays ----
 *
 * A packed array is a JSON string (never valid text: it starts with a NUL)
 * holding: MAGIC, the element count n and the index of its key list
 * (uint32 each), then per key a column: one kind byte, then nothing (all
 * null), n values of 8 bytes (all reals, or all integers), or n tag bytes
 * and n values (anything else). The key lists are interned for the
 * process (a handful: one per producer's step layout), so a blob holds
 * no key text. */

#define MAGIC "\0pdA"
#define MAGICLEN 4

enum { COL_NULL, COL_REAL, COL_INT, COL_MIXED };
enum { TAG_NULL, TAG_REAL, TAG_INT, TAG_TRUE, TAG_FALSE };

/* What is packed: per record type, the key of its per-step array. */
static const struct {
	const char *type, *key;
} packs[] = {
	{ "pd.step", "steps" },
	{ "pd.input", "steps" },
	{ NULL, NULL }
};

static struct keylist {
	size_t n;
	char **keys;
} *klists;
static size_t nklists;
static size_t live;		/* pd_runs alive: the lists go with the last */

static void
klists_free(void)
{
	size_t i, j;

	for (i = 0; i < nklists; i++) {
		for (j = 0; j < klists[i].n; j++)
			free(klists[i].keys[j]);
		free(klists[i].keys);
	}
	free(klists);
	klists = NULL;
	nklists = 0;
}

/* The index of the key list of object o (interned). */
static uint32_t
klist_of(json_t *o)
{
	size_t i, j, n = json_object_size(o);
	const char *k;
	json_t *v;

	for (i = 0; i < nklists; i++) {
		if (klists[i].n != n)
			continue;
		j = 0;
		json_object_foreach(o, k, v)
			if (strcmp(k, klists[i].keys[j++]))
				break;
		if (!k)
			return (uint32_t)i;
	}
	klists = pd_xrealloc(klists, (nklists + 1) * sizeof *klists);
	klists[nklists].n = n;
	klists[nklists].keys = pd_xmalloc((n ? n : 1) * sizeof (char *));
	j = 0;
	json_object_foreach(o, k, v)
		klists[nklists].keys[j++] = pd_xstrdup(k);
	return (uint32_t)nklists++;
}

static int
tag_of(json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_NULL: return TAG_NULL;
	case JSON_REAL: return TAG_REAL;
	case JSON_INTEGER: return TAG_INT;
	case JSON_TRUE: return TAG_TRUE;
	case JSON_FALSE: return TAG_FALSE;
	default: return -1;
	}
}

/* Whether a is an array of objects of the same keys, in the same order,
 * whose values are numbers, null or booleans. */
static int
packable(json_t *a)
{
	json_t *e, *f = json_array_get(a, 0), *v;
	const char *k, *fk;
	size_t i;
	void *it;

	if (!json_is_array(a) || !json_is_object(f))
		return 0;
	json_array_foreach(a, i, e) {
		if (!json_is_object(e) ||
		    json_object_size(e) != json_object_size(f))
			return 0;
		it = json_object_iter(f);
		json_object_foreach(e, k, v) {
			fk = json_object_iter_key(it);
			if (strcmp(k, fk) || tag_of(v) < 0)
				return 0;
			it = json_object_iter_next(f, it);
		}
	}
	return 1;
}

static void
put(char **p, const void *x, size_t n)
{
	memcpy(*p, x, n);
	*p += n;
}

/* The packed form of a packable array (new reference). */
static json_t *
pack(json_t *a)
{
	size_t n = json_array_size(a), i, c, nk, len;
	uint32_t n32 = (uint32_t)n, kl = klist_of(json_array_get(a, 0));
	char *buf, *p;
	json_t *s;

	nk = klists[kl].n;
	len = MAGICLEN + 8 + nk * (1 + n * 9);
	p = buf = pd_xmalloc(len);
	put(&p, MAGIC, MAGICLEN);
	put(&p, &n32, 4);
	put(&p, &kl, 4);
	for (c = 0; c < nk; c++) {
		const char *key = klists[kl].keys[c];
		int kind = -1, t;

		for (i = 0; i < n; i++) {
			t = tag_of(json_object_get(json_array_get(a, i), key));
			t = t == TAG_NULL ? COL_NULL : t == TAG_REAL ?
			    COL_REAL : t == TAG_INT ? COL_INT : COL_MIXED;
			kind = kind < 0 || kind == t ? t : COL_MIXED;
		}
		*p++ = (char)kind;
		if (kind == COL_NULL)
			continue;
		for (i = 0; kind == COL_MIXED && i < n; i++)
			*p++ = (char)tag_of(json_object_get(json_array_get(a,
			    i), key));
		for (i = 0; i < n; i++) {
			json_t *v = json_object_get(json_array_get(a, i), key);
			double d = json_is_real(v) ? json_real_value(v) : 0;
			int64_t x = json_is_integer(v) ? json_integer_value(v) :
			    0;

			if (json_is_real(v))
				put(&p, &d, 8);
			else
				put(&p, &x, 8);
		}
	}
	s = json_stringn_nocheck(buf, (size_t)(p - buf));
	free(buf);
	return s;
}

/* Whether v is a packed array: the magic, a known key list and the
 * length its columns give (a string of the input is never taken for
 * one). */
static int
is_packed(json_t *v)
{
	const char *s = json_string_value(v);
	size_t len = json_string_length(v), c, need = MAGICLEN + 8;
	uint32_t n, kl;

	if (!s || len < need || memcmp(s, MAGIC, MAGICLEN) != 0)
		return 0;
	memcpy(&n, s + MAGICLEN, 4);
	memcpy(&kl, s + MAGICLEN + 4, 4);
	if (kl >= nklists)
		return 0;
	for (c = 0; c < klists[kl].n; c++) {
		int kind;

		if (need >= len)
			return 0;
		kind = s[need++];
		if (kind < COL_NULL || kind > COL_MIXED)
			return 0;
		need += kind == COL_NULL ? 0 : kind == COL_MIXED ?
		    (size_t)n * 9 : (size_t)n * 8;
	}
	return need == len;
}

static json_t *
unpack(json_t *s)
{
	const char *p = json_string_value(s) + MAGICLEN;
	uint32_t n, kl;
	size_t i, c;
	json_t *a = json_array();

	memcpy(&n, p, 4);
	memcpy(&kl, p + 4, 4);
	p += 8;
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_object());
	for (c = 0; c < klists[kl].n; c++) {
		const char *key = klists[kl].keys[c], *tags = NULL;
		int kind = *p++;

		if (kind == COL_MIXED) {
			tags = p;
			p += n;
		}
		for (i = 0; i < n; i++) {
			int t = kind == COL_NULL ? TAG_NULL : kind == COL_REAL ?
			    TAG_REAL : kind == COL_INT ? TAG_INT : tags[i];
			json_t *v;
			double d = 0;
			int64_t x = 0;

			if (kind != COL_NULL) {
				memcpy(&d, p, 8);
				memcpy(&x, p, 8);
				p += 8;
			}
			v = t == TAG_REAL ? json_real(d) : t == TAG_INT ?
			    json_integer((json_int_t)x) : t == TAG_TRUE ?
			    json_true() : t == TAG_FALSE ? json_false() :
			    json_null();
			json_object_set_new(json_array_get(a, i), key, v);
		}
	}
	return a;
}

/* Pack rec's per-step array in place, when it has a packable one. */
static void
pack_rec(json_t *rec)
{
	const char *t = pd_rec_str(rec, "type");
	json_t *a;
	size_t i;

	for (i = 0; t && packs[i].type; i++) {
		if (strcmp(t, packs[i].type))
			continue;
		a = json_object_get(rec, packs[i].key);
		if (json_array_size(a) && packable(a))
			json_object_set_new(rec, packs[i].key, pack(a));
	}
}

/* ---- shared values ----
 *
 * The ranks of one job repeat the same strings (kernel, operator and
 * collective names, sources, kinds, the run id) and the same small
 * numbers (counts, ranks, 0.0): a held record's strings and its integers
 * and integral reals in [0, SHARED_NUMS) are replaced by one shared value
 * each (jansson values are reference-counted; no tool changes a held
 * value in place), so 4096 ranks hold one "kineto_trace", not 28672.
 * Dropped with the last pd_runs, as the key lists. */

#define SHARED_NUMS 1024

static json_t *shared_strs;	/* string -> the shared value */
static json_t *shared_ints[SHARED_NUMS], *shared_reals[SHARED_NUMS];

static void
shared_free(void)
{
	size_t i;

	json_decref(shared_strs);
	shared_strs = NULL;
	for (i = 0; i < SHARED_NUMS; i++) {
		json_decref(shared_ints[i]);
		json_decref(shared_reals[i]);
		shared_ints[i] = shared_reals[i] = NULL;
	}
}

/* The shared value equal to v (borrowed), or NULL to keep v. */
static json_t *
shared_of(json_t *v)
{
	json_t *s;

	if (json_is_string(v)) {
		const char *t = json_string_value(v);
		size_t len = json_string_length(v);

		if (len >= MAGICLEN && memcmp(t, MAGIC, MAGICLEN) == 0)
			return NULL;	/* a packed array: its own */
		if (!shared_strs)
			shared_strs = json_object();
		if (!(s = json_object_getn(shared_strs, t, len)))
			json_object_setn_nocheck(shared_strs, t, len, (s = v));
		return s;
	}
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);

		if (i < 0 || i >= SHARED_NUMS)
			return NULL;
		if (!shared_ints[i])
			shared_ints[i] = json_incref(v);
		return shared_ints[i];
	}
	if (json_is_real(v)) {
		double d = json_real_value(v);
		size_t i;

		/* exactly a small whole number, and not -0.0 */
		if (!(d >= 0 && d < SHARED_NUMS) || signbit(d) ||
		    d != (double)(size_t)d)
			return NULL;
		i = (size_t)d;
		if (!shared_reals[i])
			shared_reals[i] = json_incref(v);
		return shared_reals[i];
	}
	return NULL;
}

/* The shared value for x (a new reference), or NULL: x is its own, or
 * not one to share (then pd_json_replace walks into it). */
static json_t *
shared_for(json_t *x, void *ctx)
{
	json_t *s = shared_of(x);

	(void)ctx;
	return s && s != x ? json_incref(s) : NULL;
}

/* Replace the values in the tree v by their shared ones. */
static void
share(json_t *v)
{
	pd_json_replace(v, shared_for, NULL);
}

json_t *
pd_runs_array(json_t *rec, const char *key)
{
	json_t *v = json_object_get(rec, key);

	if (is_packed(v))
		return unpack(v);
	return json_is_array(v) ? json_incref(v) : NULL;
}

size_t
pd_runs_array_size(json_t *rec, const char *key)
{
	json_t *v = json_object_get(rec, key);
	uint32_t n;

	if (!is_packed(v))
		return json_array_size(v);
	memcpy(&n, json_string_value(v) + MAGICLEN, 4);
	return n;
}

json_t *
pd_runs_unpacked(json_t *rec)
{
	const char *k;
	json_t *v, *o = NULL;

	json_object_foreach(rec, k, v) {
		if (!is_packed(v))
			continue;
		if (!o)
			o = json_copy(rec);
		json_object_set_new(o, k, unpack(v));
	}
	return o ? o : json_incref(rec);
}

void
pd_runs_pack(struct pd_runs *r, int on)
{
	r->pack = on;
}

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
	live++;
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
	json_decref(r->pending);
	free(r);
	if (--live == 0) {
		klists_free();
		shared_free();
	}
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

/* Share the values of the record held last (see pd_runs.h). */
static void
flush(struct pd_runs *r)
{
	if (r->pending) {
		share(r->pending);
		json_decref(r->pending);
		r->pending = NULL;
	}
}

void
pd_runs_add(struct pd_runs *r, json_t *rec)
{
	const char *type = pd_rec_str(rec, "type");
	const char *root = pd_rec_str(rec, "root");
	json_t *v, *a;

	flush(r);
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
		if (r->pack)
			pack_rec(rec);
		json_object_set(v, type + 3, rec);
		r->pending = json_incref(rec);
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

	flush(r);
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
	json_object_clear(r->views);	/* the runs' views hold the records */
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
