/* pd-sum-comm for Ascend roots: cluster_communication.json and
 * cluster_communication_matrix.json of a cluster_analysis_output root, one
 * record per rank found there. */
#include "ascend.h"

#include "sum_comm.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_csv.h"
#include "pd_diag.h"
#include "pd_jscan.h"
#include "pd_locate.h"
#include "pd_sqlite.h"
#include "pd_num.h"
#include "pd_rec.h"
#include "pd_trace.h"

/* ---- cluster_analysis_output ---- */

struct cluster {
	struct agg *v;
	size_t n;
};

static struct agg *
cluster_rank_get(struct cluster *c, int64_t rank)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].rank == rank)
			return &c->v[i];
	c->v = grow(c->v, c->n, sizeof *c->v);
	c->v[c->n].rank = rank;
	c->v[c->n].has_rank = 1;
	return &c->v[c->n++];
}

static int
rank_of(const char *s, int64_t *r)
{
	return pd_num_int(s, strlen(s), r) == PD_NUM_OK && *r >= 0;
}

static void
cluster_comm_leaf(struct walk *w, const char *where, json_t *v)
{
	struct cluster *c = w->ctx;
	struct agg *a;
	int64_t step = 0, rank;
	int has = step_of(w->keys[1], &step);

	if (!rank_of(w->keys[3], &rank)) {
		reject(w->a, w->path, where, "not a rank number");
		return;
	}
	a = cluster_rank_get(c, rank);
	add_source(a, "cluster_communication");
	add_op(a, w->path, where, w->keys[2], v, step, has);
}

/* {group: {step: {op | "Total Op Info": {rank: op object}}}}; the leaves
 * are the per-rank op objects (depth 4). */
static void
read_cluster_comm(struct cluster *c, struct agg *bad, const char *path)
{
	struct walk w;

	walk_init(&w, bad, path, 4, cluster_comm_leaf);
	w.skip_key = "Total Op Info";
	w.ctx = c;
	walk_file(&w);
}

/* One op's links; each goes to the record of its src rank. */
static void
cluster_matrix_leaf(struct walk *w, const char *where, json_t *v)
{
	struct cluster *c = w->ctx;
	const char *pair;
	char src[32];
	int64_t rank;
	json_t *lv, *one;
	struct agg *a;

	json_object_foreach(v, pair, lv) {
		snprintf(src, sizeof src, "%.*s", (int)strcspn(pair, "-"),
		    pair);
		if (!strchr(pair, '-') || !rank_of(src, &rank)) {
			reject(w->a, w->path, where, "link is not \"src-dst\" "
			    "with rank numbers");
			continue;
		}
		a = cluster_rank_get(c, rank);
		add_source(a, "cluster_communication_matrix");
		one = json_object();
		json_object_set(one, pair, lv);
		add_links(a, w->path, where, one, src, NULL);
		json_decref(one);
	}
}

/* {group: {step: {op | "Total Op Info": {"src-dst": link}}}}: "Total Op
 * Info" sums the step's ops again and is left out. */
static void
read_cluster_matrix(struct cluster *c, struct agg *bad, const char *path)
{
	struct walk w;

	walk_init(&w, bad, path, 3, cluster_matrix_leaf);
	w.skip_key = "Total Op Info";
	w.ctx = c;
	walk_file(&w);
}

static int
cmp_rank(const void *x, const void *y)
{
	const struct agg *a = x, *b = y;

	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

void
do_cluster(json_t *root, const struct pd_tool *t)
{
	struct cluster c = { 0 };
	struct agg bad = { 0 };
	const char *p;
	json_t *info;
	size_t i;

	if ((p = pd_root_export(root, "cluster_communication", 0)))
		read_cluster_comm(&c, &bad, p);
	if ((p = pd_root_export(root, "cluster_communication_matrix", 0)))
		read_cluster_matrix(&c, &bad, p);
	if (c.n)
		qsort(c.v, c.n, sizeof *c.v, cmp_rank);
	info = load_groups(pd_root_export(root, "communication_group", 0));
	for (i = 0; i < c.n; i++) {
		apply_groups(&c.v[i], info, c.v[i].rank);
		c.v[i].skipped += bad.skipped;
		c.v[i].truncated |= bad.truncated;
		emit_rank(root, &c.v[i], t);
		agg_free(&c.v[i]);
	}
	free(c.v);
	agg_free(&bad);
	json_decref(info);
}
