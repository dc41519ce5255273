/* pd-sum-step for Ascend roots: msprof-analyze
 * cluster_step_trace_time.csv, one pd.step per rank row. */
#include "ascend.h"

#include "sum_step.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_csv.h"
#include "pd_diag.h"
#include "pd_locate.h"
#include "pd_num.h"
#include "pd_rec.h"
#include "pd_sqlite.h"
#include "pd_stats.h"
#include "pd_trace.h"

/* ---- msprof-analyze cluster_step_trace_time.csv ----
 *
 * One pd.step per rank row (the root is the cluster dir, the rank its own).
 * The stage rows (Index = the rank tuple, each column the maximum over the
 * stage's ranks) are numbered by their lowest rank and summarised in the
 * `stages` array of every rank record; a rank's `stage` is its PP Index
 * column when the file has one, else the number of the stage row holding
 * it. Ranks that per-rank roots of the same run also hold (pd.root
 * `covers`) are emitted all the same: pd-profile takes one unit per rank. */

struct cluster_row {
	int stage;		/* 0 rank row, 1 stage row */
	int64_t rank;		/* rank rows: the rank; stage rows: lowest */
	int64_t pp;		/* PP Index, -1 when none */
	char *index;		/* stage rows: "(0, 1, 2)" */
	json_t *ranks;		/* stage rows: the ranks */
	struct run r;
};

static json_t *
stage_ranks(const char *s)
{
	json_t *a = json_array();
	char *end;
	long v;

	while (*s) {
		if (*s >= '0' && *s <= '9') {
			v = strtol(s, &end, 10);
			json_array_append_new(a, json_integer(v));
			s = end;
		} else
			s++;
	}
	return a;
}

static int
in_ranks(json_t *a, int64_t rank)
{
	json_t *x;
	size_t j;

	json_array_foreach(a, j, x)
		if (json_integer_value(x) == rank)
			return 1;
	return 0;
}

static struct cluster_row *
cluster_row_get(struct cluster_row **v, size_t *n, int stage, int64_t rank,
    const char *index)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i].stage == stage && (stage ?
		    strcmp((*v)[i].index, index) == 0 : (*v)[i].rank == rank))
			return &(*v)[i];
	*v = realloc(*v, (*n + 1) * sizeof **v);
	if (!*v)
		pd_oom();
	memset(&(*v)[*n], 0, sizeof **v);
	(*v)[*n].stage = stage;
	(*v)[*n].rank = rank;
	(*v)[*n].pp = -1;
	(*v)[*n].index = strdup(index);
	if (stage) {
		json_t *a = stage_ranks(index), *x;
		size_t j;

		(*v)[*n].ranks = a;
		(*v)[*n].rank = INT64_MAX;
		json_array_foreach(a, j, x)
			if (json_integer_value(x) < (*v)[*n].rank)
				(*v)[*n].rank = json_integer_value(x);
	}
	return &(*v)[(*n)++];
}

static int
cmp_cluster_row(const void *a, const void *b)
{
	const struct cluster_row *x = a, *y = b;

	if (x->stage != y->stage)
		return x->stage - y->stage;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->stage ? strcmp(x->index, y->index) : 0;
}

/* The stages of the stage rows (numbered from 0), or NULL (*k 0). */
static struct stepstage *
stages_get(struct cluster_row *v, size_t n, size_t *k)
{
	struct stepstage *st = pd_xcalloc(n + 1, sizeof *st);
	size_t i;

	*k = 0;
	for (i = 0; i < n; i++) {
		if (!v[i].stage)
			continue;
		st[*k].stage = (int64_t)*k;
		st[*k].ranks = v[i].ranks;
		stage_totals(&v[i].r, &st[*k].totals);
		(*k)++;
	}
	if (!*k) {
		free(st);
		return NULL;
	}
	return st;
}

static int64_t
stage_index(struct cluster_row *v, size_t n, const struct cluster_row *r)
{
	size_t i;
	int k = 0;

	if (r->pp >= 0)
		return r->pp;
	for (i = 0; i < n; i++) {
		if (!v[i].stage)
			continue;
		if (in_ranks(v[i].ranks, r->rank))
			return k;
		k++;
	}
	return -1;
}

int
read_cluster(json_t *root, const char *path)
{
	struct pd_csv *c = csv_open(path);
	struct csvmap m;
	struct cluster_row *v = NULL, *cr;
	struct run whole = { 0 };
	struct step tmp;
	size_t n = 0, i, nstages;
	int rc, stage, ppcol;
	int64_t rank = -1, pp;
	const char *type;
	struct stepstage *stages;

	if (!c)
		return 0;
	if (csv_header(c) <= 0 || csv_map(c, &m, 1) < 0) {
		pd_diag_status(PD_EXIT_INPUT);
		pd_csv_close(c);
		return 0;
	}
	ppcol = pd_csv_col(c, "PP Index", NULL);
	while ((rc = pd_csv_next(c)) > 0) {
		type = pd_csv_field(c, m.type);
		stage = strcmp(type, "stage") == 0;
		if (!stage && (strcmp(type, "rank") != 0 ||
		    pd_csv_int(c, m.index, &rank) != PD_NUM_OK)) {
			pd_warn(path, pd_csv_line(c), "\"Type\", \"Index\": "
			    "not a rank or stage row: %s, %s; row skipped",
			    pd_csv_quote(c, m.type), pd_csv_quote(c, m.index));
			csv_reject(&whole);
			continue;
		}
		memset(&tmp, 0, sizeof tmp);
		cr = cluster_row_get(&v, &n, stage, rank,
		    pd_csv_field(c, m.index));
		if (csv_row(c, &m, &cr->r, &tmp) < 0) {
			csv_reject(&whole);
			continue;
		}
		/* "NA" when msprof-analyze had no parallel layout */
		if (!stage && ppcol >= 0 &&
		    pd_csv_int(c, ppcol, &pp) == PD_NUM_OK && pp >= 0)
			cr->pp = pp;
		*step_add(&cr->r) = tmp;
	}
	csv_end(c, rc, &whole);
	pd_csv_close(c);
	if (n)
		qsort(v, n, sizeof *v, cmp_cluster_row);
	stages = stages_get(v, n, &nstages);
	for (i = 0; i < n; i++) {
		v[i].r.source = "cluster_step_trace_time";
		v[i].r.path = path;
		v[i].r.skipped = whole.skipped;
		v[i].r.truncated = whole.truncated;
		if (!v[i].stage)
			emit_run(root, &v[i].r, v[i].rank, "rank",
			    stage_index(v, n, &v[i]), stages, nstages);
	}
	for (i = 0; i < n; i++) {
		run_free(&v[i].r);
		free(v[i].index);
		json_decref(v[i].ranks);
	}
	free(stages);
	free(v);
	return 1;
}
