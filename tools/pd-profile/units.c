/* The units of a run: one per (root, rank).
 *
 * Records are kept per root and rank. pd.root is per root and shown to
 * every unit of it; a pd.step of scope "stage" (a pipeline stage's row of
 * cluster_step_trace_time.csv) is no rank and is left out. A record
 * without a rank joins the root's only ranked unit, or is the root's
 * unit when the root has no ranked one. When a (root, rank) has two
 * records of one type, the one whose compact, key-sorted text sorts first
 * is kept (a pd.comm's without its collectives, then by them: colls.c),
 * so the result does not depend on the order of the input.
 * A rank seen in several roots of a run is taken from the root that holds
 * the most ranks (then the first root by path); a root that holds this
 * rank alone (its own export) gives the summaries other than the step,
 * which cluster-wide files only abridge, and the other roots give what is
 * still missing (in the same order); they are listed. */
#include <stdlib.h>
#include <string.h>

#include "pd_rec.h"
#include "pd_diag.h"
#include "pd-profile/profile.h"

static json_t *store;	/* root -> {rankkey -> {type -> rec}} */
static json_t *roots;	/* root -> pd.root */

static const char *kept[] = { "step", "comm", "mem", "input", "gaps",
	"hotspot", NULL };

void
units_init(void)
{
	store = json_object();
	roots = json_object();
}

void
units_free(void)
{
	json_decref(store);
	json_decref(roots);
	colls_free();
}

static int
canon_cmp(json_t *a, json_t *b)
{
	json_t *ua = pd_runs_unpacked(a), *ub = pd_runs_unpacked(b);
	char *x = json_dumps(ua, JSON_COMPACT | JSON_SORT_KEYS);
	char *y = json_dumps(ub, JSON_COMPACT | JSON_SORT_KEYS);
	int r = x && y ? strcmp(x, y) : 0;

	free(x);
	free(y);
	json_decref(ua);
	json_decref(ub);
	return r;
}

static int
canon_less(json_t *a, json_t *b)
{
	return canon_cmp(a, b) < 0;
}

/* A pd.comm record's collectives are taken out of it (colls.c); two
 * records that agree without them are ordered by them. */
static void
keep(json_t *view, const char *type, json_t *rec)
{
	json_t *old = json_object_get(view, type);
	int comm = !strcmp(type, "comm"), c;

	if (comm)
		colls_take(rec);
	else
		pd_rec_trim(rec);	/* the pd.gaps strip: not used here */
	c = old ? canon_cmp(rec, old) : -1;
	if (comm && old && c == 0)
		c = colls_less(rec, old) ? -1 : 1;
	if (c < 0) {
		if (comm)
			colls_keep(rec, old);
		json_object_set(view, type, rec);
	} else if (comm)
		colls_keep(old, rec);
}

void
units_add(json_t *rec)
{
	const char *t = pd_rec_str(rec, "type"), *root = pd_rec_str(rec, "root");
	json_t *r = json_object_get(rec, "rank"), *byr, *view;
	char key[32];
	int i;

	if (!t || !root || strncmp(t, "pd.", 3))
		return;
	t += 3;
	if (!strcmp(t, "root")) {
		json_t *old = json_object_get(roots, root);

		if (!old || canon_less(rec, old))
			json_object_set(roots, root, rec);
		return;
	}
	for (i = 0; kept[i] && strcmp(kept[i], t); i++)
		;
	if (!kept[i])
		return;
	if (!strcmp(t, "step") && pd_rec_str(rec, "scope") &&
	    !strcmp(pd_rec_str(rec, "scope"), "stage"))
		return;
	if (json_is_integer(r))
		snprintf(key, sizeof key, "%lld", (long long)json_integer_value(r));
	else
		strcpy(key, "null");
	if (!(byr = json_object_get(store, root))) {
		byr = json_object();
		json_object_set_new(store, root, byr);
	}
	if (!(view = json_object_get(byr, key))) {
		view = json_object();
		json_object_set_new(byr, key, view);
	}
	keep(view, t, rec);
}

static int
cmp_unit(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;
	int xi = json_is_integer(x->rank), yi = json_is_integer(y->rank);

	if (xi != yi)
		return yi - xi;
	if (xi && json_integer_value(x->rank) != json_integer_value(y->rank))
		return json_integer_value(x->rank) < json_integer_value(y->rank) ?
		    -1 : 1;
	return strcmp(x->root, y->root);
}

/* Whether unit a (of a root with na ranks) is preferred over b. */
static int
better(const struct unit *a, size_t na, const struct unit *b, size_t nb)
{
	if (na != nb)
		return na > nb;
	return strcmp(a->root, b->root) < 0;
}

/* The summaries of a rank's own root replace those of a root of many
 * ranks, except the step (the many-rank root's step is the one aligned
 * with the other ranks) and the pd.root. */
static void
own_summaries(json_t *view, json_t *own)
{
	const char *t;
	json_t *rec;

	json_object_foreach(own, t, rec)
		if (!pd_runs_from_cluster(t))
			json_object_set(view, t, rec);
}

struct rankidx {
	long long rank;
	size_t i;
};

static int
cmp_rankidx(const void *a, const void *b)
{
	const struct rankidx *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

void
units_of_run(struct pd_run *u, struct prun *p)
{
	size_t nr = json_array_size(u->roots), cap = 0, i, j, k, n, g, e;
	size_t *nranks;
	struct unit *all;
	struct rankidx *byrank;
	struct { size_t lo, hi; } *grp;
	int *drop;

	memset(p, 0, sizeof *p);
	p->u = u;
	p->dups = json_array();
	for (i = 0; i < nr; i++) {
		json_t *byr = json_object_get(store,
		    json_string_value(json_array_get(u->roots, i)));

		cap += byr ? json_object_size(byr) : 1;
	}
	all = calloc(cap + 1, sizeof *all);
	nranks = calloc(cap + 1, sizeof *nranks);
	if (!all || !nranks)
		pd_oom();
	k = 0;
	for (i = 0; i < nr; i++) {
		const char *root = json_string_value(json_array_get(u->roots, i));
		json_t *byr = json_object_get(store, root);
		json_t *rrec = json_object_get(roots, root), *v, *nullv;
		size_t nrk = byr ? pd_runs_ranked(byr) : 0;
		const char *key;

		if (!byr) {
			/* a pd.root alone: a unit with no summaries */
			if (!rrec)
				continue;
			all[k].root = root;
			all[k].rank = rank_json(json_object_get(rrec, "rank"));
			all[k].view = json_object();
			json_object_set(all[k].view, "root", rrec);
			nranks[k++] = 0;
			continue;
		}
		nullv = json_object_get(byr, "null");
		json_object_foreach(byr, key, v) {
			json_t *view;

			if (!strcmp(key, "null") && nrk > 0)
				continue;
			view = json_object();
			json_object_update(view, v);
			if (nullv && v != nullv && nrk == 1)
				json_object_update_missing(view, nullv);
			if (rrec)
				json_object_set(view, "root", rrec);
			all[k].root = root;
			all[k].rank = strcmp(key, "null") ?
			    json_integer(strtoll(key, NULL, 10)) :
			    rank_json(rrec ? json_object_get(rrec, "rank") : NULL);
			all[k].view = view;
			nranks[k++] = nrk;
		}
	}
	/* one unit per global rank: the units of one rank are found by
	 * sorting (rank, index), so that thousands of ranks cost
	 * n log n, not n^2; within a rank the units keep their order */
	p->un = calloc(k + 1, sizeof *p->un);
	drop = calloc(k + 1, sizeof *drop);
	byrank = calloc(k + 1, sizeof *byrank);
	grp = calloc(k + 1, sizeof *grp);
	if (!p->un || !drop || !byrank || !grp)
		pd_oom();
	for (i = 0, n = 0; i < k; i++)
		if (json_is_integer(all[i].rank)) {
			byrank[n].rank = json_integer_value(all[i].rank);
			byrank[n++].i = i;
		}
	qsort(byrank, n, sizeof *byrank, cmp_rankidx);
	for (g = 0; g < n; g = e) {
		for (e = g + 1; e < n && byrank[e].rank == byrank[g].rank; e++)
			;
		for (j = g; j < e; j++) {
			grp[byrank[j].i].lo = g;
			grp[byrank[j].i].hi = e;
		}
	}
	for (i = 0; i < k; i++)
		for (g = grp[i].lo; g < grp[i].hi; g++) {
			j = byrank[g].i;
			if (j != i && better(&all[j], nranks[j], &all[i], nranks[i]))
				drop[i] = 1;
		}
	for (i = 0; i < k; i++) {
		json_t *rs;

		if (drop[i] || !json_is_integer(all[i].rank))
			continue;
		/* a root of this rank alone (its own export) gives the
		 * summaries other than the step, which the kept root's
		 * cluster-wide files only abridge; what the kept root still
		 * lacks, the other roots of the rank give */
		rs = json_array();
		for (g = grp[i].lo; g < grp[i].hi; g++) {
			j = byrank[g].i;
			if (j != i && nranks[j] <= 1 && nranks[i] > 1)
				own_summaries(all[i].view, all[j].view);
		}
		for (g = grp[i].lo; g < grp[i].hi; g++) {
			j = byrank[g].i;
			if (j != i) {
				json_object_update_missing(all[i].view, all[j].view);
				json_array_append_new(rs, json_string(all[j].root));
			}
		}
		if (json_array_size(rs)) {
			json_t *d = json_object();

			json_array_append_new(rs, json_string(all[i].root));
			pd_set(d, "rank", json_incref(all[i].rank));
			pd_set(d, "roots", sorted_unique(rs));
			pd_set_str(d, "used", all[i].root);
			json_array_append_new(p->dups, d);
		} else
			json_decref(rs);
	}
	for (i = 0; i < k; i++) {
		if (drop[i]) {
			json_decref(all[i].view);
			json_decref(all[i].rank);
			continue;
		}
		p->un[p->n] = all[i];
		p->un[p->n++].stage = -1;
	}
	free(drop);
	free(byrank);
	free(grp);
	free(all);
	free(nranks);
	qsort(p->un, p->n, sizeof *p->un, cmp_unit);
}

void
prun_free(struct prun *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		json_decref(p->un[i].view);
		json_decref(p->un[i].rank);
	}
	free(p->un);
	json_decref(p->dups);
}

int
prun_has(struct prun *p, const char *type)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (json_object_get(p->un[i].view, type))
			return 1;
	return 0;
}
