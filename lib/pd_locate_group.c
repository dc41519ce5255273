/* pd_locate: the roots found, ordered; --best; a cluster_analysis root
 * and the per-rank roots of its run. */
#include "pd_locate_int.h"

#include "pd_locate.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd_csv.h"
#include "pd_archive.h"
#include "pd_diag.h"
#include "pd_file.h"
#include "pd_formats.h"
#include "pd_nsys.h"
#include "pd_rec.h"
#include "pd_sqlite.h"
#include "pd_trace.h"

/* ---- ordering and --best ---- */

int
pd_loc_by_root(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = strcmp(pd_rec_str(x->rec, "root"), pd_rec_str(y->rec, "root"));
	int64_t u, v;

	if (c)
		return c;
	u = pd_rec_int(x->rec, "device", -1);
	v = pd_rec_int(y->rec, "device", -1);
	if (u != v)
		return u < v ? -1 : 1;
	u = pd_rec_int(x->rec, "process", -1);
	v = pd_rec_int(y->rec, "process", -1);
	return (u > v) - (u < v);
}

/* Is a better than b for --best: newer, then higher score, then later
 * path. */
static int
better(const struct cand *a, const struct cand *b)
{
	if (a->mtime.tv_sec != b->mtime.tv_sec)
		return a->mtime.tv_sec > b->mtime.tv_sec;
	if (a->mtime.tv_nsec != b->mtime.tv_nsec)
		return a->mtime.tv_nsec > b->mtime.tv_nsec;
	if (pd_rec_int(a->rec, "score", 0) != pd_rec_int(b->rec, "score", 0))
		return pd_rec_int(a->rec, "score", 0) >
		    pd_rec_int(b->rec, "score", 0);
	return pd_loc_by_root(a, b) > 0;
}

/* Drop all but the best candidate of each (run, rank) with a known rank. */
void
pd_loc_best_only(struct loc *l)
{
	size_t i, j;

	for (i = 0; i < l->n; i++) {
		json_t *ri = l->c[i].rec;
		int64_t rk = pd_rec_int(ri, "rank", -1);
		if (!ri || rk < 0)
			continue;
		for (j = i + 1; j < l->n; j++) {
			json_t *rj = l->c[j].rec;
			if (!rj || pd_rec_int(rj, "rank", -1) != rk ||
			    strcmp(pd_rec_str(ri, "run"), pd_rec_str(rj, "run")))
				continue;
			if (better(&l->c[j], &l->c[i])) {
				json_decref(ri);
				l->c[i].rec = ri = rj;
				l->c[i].mtime = l->c[j].mtime;
			} else {
				json_decref(rj);
			}
			l->c[j].rec = NULL;
		}
	}
}

/* ---- a cluster_analysis root and the per-rank roots of its run ---- */

static int
by_cover(const void *a, const void *b)
{
	json_t *const *x = a, *const *y = b;
	int64_t p = pd_rec_int(*x, "rank", -1), q = pd_rec_int(*y, "rank", -1);

	if (p != q)
		return p < q ? -1 : 1;
	return strcmp(pd_rec_str(*x, "root"), pd_rec_str(*y, "root"));
}

static int
is_cluster(json_t *rec)
{
	const struct pd_format *f = pd_format_get(pd_rec_str(rec, "format"));

	return f && f->cluster;
}

/* Add an export to a record, keeping the exports sorted by path. */
static void
add_export_rec(json_t *rec, json_t *e)
{
	json_t *ex = json_object_get(rec, "exports"), *x;
	size_t i;

	json_array_foreach(ex, i, x)
		if (strcmp(pd_rec_str(x, "path"), pd_rec_str(e, "path")) > 0)
			break;
	json_array_insert_new(ex, i, e);
}

/* The cluster root of a run covers the per-rank roots (known rank) of the
 * same run: its "covers" lists them, and they get its communication_group
 * export (the job's groups, for mapping group-local ranks). Every other
 * record has "covers": null. */
void
pd_loc_cover(struct loc *l)
{
	size_t i, j, k, n;
	json_t **v, *ri, *cg, *e, *a, *o;

	for (i = 0; i < l->n; i++)
		if ((ri = l->c[i].rec) && !is_cluster(ri))
			pd_set_null(ri, "covers");
	v = calloc(l->n + 1, sizeof *v);
	for (i = 0; i < l->n; i++) {
		if (!(ri = l->c[i].rec) || !is_cluster(ri))
			continue;
		cg = NULL;
		json_array_foreach(json_object_get(ri, "exports"), k, e)
			if (strcmp(pd_rec_str(e, "kind"), "communication_group") == 0)
				cg = e;
		for (n = 0, j = 0; j < l->n; j++) {
			json_t *rj = l->c[j].rec;
			if (!rj || is_cluster(rj) || pd_rec_int(rj, "rank", -1) < 0 ||
			    strcmp(pd_rec_str(rj, "run"), pd_rec_str(ri, "run")))
				continue;
			v[n++] = rj;
			if (cg)
				add_export_rec(rj, json_deep_copy(cg));
		}
		qsort(v, n, sizeof *v, by_cover);
		a = json_array();
		for (j = 0; j < n; j++) {
			o = json_object();
			pd_set_int(o, "rank", pd_rec_int(v[j], "rank", -1));
			pd_set_str(o, "root", pd_rec_str(v[j], "root"));
			json_array_append_new(a, o);
		}
		pd_set(ri, "covers", a);
	}
	free(v);
}
