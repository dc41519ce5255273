/* pd-sum-comm for Ascend roots: communication.json and
 * communication_matrix.json of a rank, walked level by level over a mapped
 * file (pd_jscan); only each operator's object is parsed. */
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

static void
where_of(struct walk *w, char *buf, size_t size)
{
	int i;
	size_t l = 0;

	buf[0] = '\0';
	for (i = 0; i <= w->depth && l < size; i++)
		l += (size_t)snprintf(buf + l, size - l, "%s%s", i ? "/" : "",
		    w->keys[i]);
}

/* A rank's matrix repeats each link under size-bucket tags (top1, middle,
 * bottom1..3) and once under "-total" ("allreduce-total@hash"): only the
 * totals are summed when a category has them. */
int
is_total(const char *op)
{
	const char *p = strstr(op, "-total");

	return p && (p[6] == '@' || p[6] == '\0');
}

static int
total_cb(const char *key, const char *vb, const char *ve, int cut, void *ctx)
{
	(void)vb;
	(void)ve;
	(void)cut;
	*(int *)ctx |= is_total(key);
	return 0;
}

static int
walk_cb(const char *key, const char *vb, const char *ve, int cut, void *ctx)
{
	struct walk *w = ctx;
	char where[512];
	const char *at = NULL;
	json_t *v;
	int rc, saved = w->totals;

	w->keys[w->depth] = key;
	if (w->depth == 2 && w->skip_key && strcmp(key, w->skip_key) == 0)
		return 0;
	if (w->depth == w->totals_at && w->totals && !is_total(key))
		return 0;
	where_of(w, where, sizeof where);
	if (w->depth + 1 == w->leaf) {
		if (cut) {
			w->a->skipped++;	/* the entry the file ends in */
			return 0;
		}
		if (!(v = json_loadb(vb, (size_t)(ve - vb), 0, NULL))) {
			reject(w->a, w->path, where, "not valid JSON");
			return 0;
		}
		w->on_leaf(w, where, v);
		json_decref(v);
		return 0;
	}
	if (w->depth + 1 == w->totals_at) {
		w->totals = 0;
		pd_jscan_members(vb, ve, total_cb, &w->totals, NULL);
	}
	w->depth++;
	rc = pd_jscan_members(vb, ve, walk_cb, w, &at);
	w->depth--;
	w->totals = saved;
	if (rc == PD_JSCAN_NOTOBJ)
		reject(w->a, w->path, where, "not an object");
	else if (rc == PD_JSCAN_CUT && !w->cut_at)
		w->cut_at = at ? at : ve;
	return 0;
}

/* Walk a file; a file cut short (or broken) is a warning with the line
 * where reading stopped, and what came before it is kept. */
void
walk_file(struct walk *w)
{
	struct pd_jmap m;
	const char *at = NULL;
	int rc;

	if (pd_jmap_open(w->path, &m) < 0) {
		pd_error(w->path, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		w->a->truncated = 1;
		return;
	}
	if (!m.len) {
		pd_warn(w->path, 0, "empty file");
		pd_diag_status(PD_EXIT_INPUT);
		w->a->truncated = 1;
		return;
	}
	rc = pd_jscan_members(m.buf, m.buf + m.len, walk_cb, w, &at);
	if (rc == PD_JSCAN_NOTOBJ) {
		pd_warn(w->path, 1, "not a JSON object; file skipped");
		pd_diag_status(PD_EXIT_INPUT);
	} else if (rc == PD_JSCAN_TRAILING) {
		pd_warn(w->path, pd_jscan_line(m.buf, at), "data after the "
		    "top-level object; summary of the object before it");
		pd_diag_status(PD_EXIT_INPUT);
	} else if (rc == PD_JSCAN_CUT || w->cut_at) {
		at = w->cut_at ? w->cut_at : at ? at : m.buf + m.len;
		pd_warn(w->path, pd_jscan_line(m.buf, at), "JSON cut short or "
		    "broken here; summary of the entries before it");
		pd_diag_status(PD_EXIT_INPUT);
		w->a->truncated = 1;
	}
	pd_jmap_close(&m);
}

void
walk_init(struct walk *w, struct agg *a, const char *path, int leaf,
    void (*on_leaf)(struct walk *, const char *, json_t *))
{
	memset(w, 0, sizeof *w);
	w->a = a;
	w->path = path;
	w->leaf = leaf;
	w->totals_at = -1;
	w->on_leaf = on_leaf;
}

static void
comm_leaf(struct walk *w, const char *where, json_t *v)
{
	int64_t step = 0;
	int has = step_of(w->keys[0], &step);

	add_op(w->a, w->path, where, w->keys[2], v, step, has);
}

/* communication.json: {step: {category: {op: op object}}}; a category may
 * be [] when empty. */
void
read_comm(struct agg *a, const char *path)
{
	struct walk w;

	add_source(a, "communication");
	walk_init(&w, a, path, 3, comm_leaf);
	w.skip_key = "Total Op Info";
	walk_file(&w);
}

/* A rank of a group-local link as a global rank: the index-th of the
 * group's global ranks. 0 when the index is not in the group. */
static int
to_global(json_t *ranks, const char *idx, char *out, size_t size)
{
	char *end;
	long long i = strtoll(idx, &end, 10);
	json_t *g;

	if (!*idx || *end || i < 0 || (size_t)i >= json_array_size(ranks) ||
	    !json_is_integer(g = json_array_get(ranks, (size_t)i)))
		return 0;
	snprintf(out, size, "%lld", (long long)json_integer_value(g));
	return 1;
}

/* Links of one op: {"src-dst": {"Transport Type", "Transit Size(MB)",
 * "Transit Time(ms)"}}. only_src: the rank whose links are kept, or NULL.
 * group: for a rank's own matrix, the op's group (the hash after '@'):
 * its src and dst are ranks within that group (msprof-analyze
 * communication_matrix.json), mapped to global ranks when the group's
 * ranks are known (communication_group.json), else kept as they are and
 * marked with the group. NULL: the ranks are global. */
void
add_links(struct agg *a, const char *path, const char *where, json_t *op,
    const char *only_src, const char *group)
{
	json_t *lv, *gr = group && a->gmap ? json_object_get(a->gmap, group) :
	    NULL;
	const char *pair, *transport, *dash;
	char src[64], gs[32], gd[32];
	double mb, ms;

	json_object_foreach(op, pair, lv) {
		dash = strchr(pair, '-');
		transport = pd_rec_str(lv, "Transport Type");
		if (!dash || !transport || dash - pair >= (long)sizeof src) {
			reject(a, path, where, "link is not \"src-dst\" with "
			    "a \"Transport Type\"");
			continue;
		}
		snprintf(src, sizeof src, "%.*s", (int)(dash - pair), pair);
		if (only_src && strcmp(src, only_src) != 0)
			continue;
		if (!num(lv, "Transit Size(MB)", &mb))
			mb = 0;
		if (!num(lv, "Transit Time(ms)", &ms))
			ms = 0;
		if (gr) {
			if (!to_global(gr, src, gs, sizeof gs) ||
			    !to_global(gr, dash + 1, gd, sizeof gd)) {
				reject(a, path, where, "link rank outside its "
				    "group in communication_group.json");
				continue;
			}
			link_add(a, gs, gd, transport, NULL, mb, ms);
		} else
			link_add(a, src, dash + 1, transport, group, mb, ms);
	}
}

static void
matrix_leaf(struct walk *w, const char *where, json_t *v)
{
	const char *at = strrchr(w->keys[2], '@');

	add_links(w->a, w->path, where, v, NULL, at && at[1] ? at + 1 : NULL);
}

/* communication_matrix.json: {step: {category: {op-bucket@hash | "Total
 * Op Info": links}}}; "Total Op Info" sums the category's ops again and is
 * left out. */
void
read_matrix(struct agg *a, const char *path)
{
	struct walk w;

	add_source(a, "communication_matrix");
	walk_init(&w, a, path, 3, matrix_leaf);
	w.totals_at = 2;
	w.skip_key = "Total Op Info";
	walk_file(&w);
}
