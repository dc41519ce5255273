/* pd-sum-comm for Ascend roots: one pd.comm per rank.
 *
 * Reads: communication.json (every variant: "step{N}" or "step" keys,
 * "p2p": [], SIO, the misspelled "Idel Time(ms)") and
 * communication_matrix.json of a rank; cluster_communication.json and
 * cluster_communication_matrix.json of a cluster_analysis_output root (one
 * record per rank found there); the CANN PROF_ legacy timeline/hccl_*.json
 * (op lane and Plane task lanes) and MindSpore legacy hccl_raw_{dev}.csv
 * (per-step costs, link_info) when a root has no communication.json.
 * The JSON summaries are walked level by level over a mapped file (lib
 * pd_jscan) and only each operator's object is parsed, so a file cut short
 * still gives the operators before the cut; the legacy timelines are
 * streamed.
 * Times in the files are ms and sizes MB (10^6 bytes); the record has _us
 * and _bytes. */
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

/* msprof-analyze's packet rule: an op moving less than this on a transport
 * is a small packet (MB): RDMA 1, intra-node (SDMA, HCCS, PCIE, SIO) 16. */
#define SMALL_RDMA_MB 1.0
#define SMALL_SDMA_MB 16.0
/* msprof-analyze's byte-alignment rule (ByteAlignmentChecker): an SDMA task
 * off the chip moving more than 512 bytes is checked; one whose size is not
 * a multiple of 512 bytes is unaligned. */
#define ALIGN_BYTES 512

struct opt {
	char *type;
	long count;
	double el, tr, wa, sy, id, mb;	/* ms, MB */
	int has_tr, has_wa, has_sy, has_id, has_mb;
};

struct tp {
	char *name;
	double mb, ms;
	long nops, nsmall;
};

struct lk {
	char *src, *dst, *tp;
	char *group;		/* the group whose ranks src, dst count (not
				 * mapped to global ranks), or NULL: global */
	double mb, ms;
};

struct one {
	char *name;
	double el;
	int64_t step;
	int has_step;
	/* the SDMA tasks off the chip (Size Distribution of HCCS, PCIE,
	 * SIO) larger than ALIGN_BYTES: bytes, ms, and ms of the unaligned */
	double al_bytes, al_ms, un_ms;
	int has_al;
};

struct agg {
	int64_t rank;
	int has_rank;
	struct opt *ops;
	size_t nops;
	struct tp *tps;
	size_t ntps;
	struct lk *lks;
	size_t nlks;
	struct one *ones;
	size_t nones;
	long skipped;
	int truncated;
	char source[128];
	double raw_ms, raw_wait_ms;	/* hccl_raw: per-step totals */
	int has_raw;
	json_t *gmap;		/* group name (hash) -> global ranks, or NULL */
	json_t *groups;		/* pd.comm groups, or NULL (unknown) */
};

static void *
grow(void *p, size_t n, size_t size)
{
	p = realloc(p, (n + 1) * size);
	if (!p)
		pd_oom();
	memset((char *)p + n * size, 0, size);
	return p;
}

static void
agg_free(struct agg *a)
{
	size_t i;

	for (i = 0; i < a->nops; i++)
		free(a->ops[i].type);
	for (i = 0; i < a->ntps; i++)
		free(a->tps[i].name);
	for (i = 0; i < a->nlks; i++) {
		free(a->lks[i].src);
		free(a->lks[i].dst);
		free(a->lks[i].tp);
		free(a->lks[i].group);
	}
	json_decref(a->gmap);
	json_decref(a->groups);
	for (i = 0; i < a->nones; i++)
		free(a->ones[i].name);
	free(a->ops);
	free(a->tps);
	free(a->lks);
	free(a->ones);
}

static void
add_source(struct agg *a, const char *kind)
{
	size_t l = strlen(a->source);

	if (strstr(a->source, kind))
		return;
	snprintf(a->source + l, sizeof a->source - l, "%s%s", l ? "+" : "",
	    kind);
}

/* "hcom_allReduce__586_0_1@1752..." -> "allReduce";
 * "Default/AllReduce-op534_0" -> "AllReduce". */
static void
op_type(const char *name, char *buf, size_t size)
{
	const char *p = name, *e;

	if (strncmp(p, "hcom_", 5) == 0) {
		p += 5;
		e = strstr(p, "__");
	} else {
		if (strrchr(p, '/'))
			p = strrchr(p, '/') + 1;
		e = strstr(p, "-op");
	}
	if (!e)
		e = strchr(p, '@');
	if (!e)
		e = p + strlen(p);
	snprintf(buf, size, "%.*s", (int)(e - p), p);
}

static int
num(json_t *o, const char *key, double *v)
{
	json_t *x = json_object_get(o, key);

	if (!json_is_number(x))
		return 0;
	*v = json_number_value(x);
	return 1;
}

static struct opt *
opt_get(struct agg *a, const char *type)
{
	size_t i;

	for (i = 0; i < a->nops; i++)
		if (strcmp(a->ops[i].type, type) == 0)
			return &a->ops[i];
	a->ops = grow(a->ops, a->nops, sizeof *a->ops);
	a->ops[a->nops].type = pd_xstrdup(type);
	return &a->ops[a->nops++];
}

static struct tp *
tp_get(struct agg *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->ntps; i++)
		if (strcmp(a->tps[i].name, name) == 0)
			return &a->tps[i];
	a->tps = grow(a->tps, a->ntps, sizeof *a->tps);
	a->tps[a->ntps].name = pd_xstrdup(name);
	return &a->tps[a->ntps++];
}

static void
tp_add(struct agg *a, const char *name, double mb, double ms)
{
	struct tp *t = tp_get(a, name);
	double small = strcmp(name, "RDMA") == 0 ? SMALL_RDMA_MB :
	    SMALL_SDMA_MB;

	t->mb += mb;
	t->ms += ms;
	if (mb > 0) {
		t->nops++;
		if (mb < small)
			t->nsmall++;
	}
}

static void
lk_add(struct agg *a, const char *src, const char *dst, const char *tp,
    const char *group, double mb, double ms)
{
	size_t i;
	struct lk *l = NULL;

	for (i = 0; i < a->nlks; i++) {
		l = &a->lks[i];
		if (strcmp(l->src, src) == 0 && strcmp(l->dst, dst) == 0 &&
		    strcmp(l->tp, tp) == 0 && !l->group == !group &&
		    (!group || strcmp(l->group, group) == 0))
			break;
	}
	if (i == a->nlks) {
		a->lks = grow(a->lks, a->nlks, sizeof *a->lks);
		l = &a->lks[a->nlks++];
		l->src = pd_xstrdup(src);
		l->dst = pd_xstrdup(dst);
		l->tp = pd_xstrdup(tp);
		l->group = group ? pd_xstrdup(group) : NULL;
	}
	l->mb += mb;
	l->ms += ms;
}

static void
one_add(struct agg *a, const char *name, double el, int64_t step, int has)
{
	a->ones = grow(a->ones, a->nones, sizeof *a->ones);
	a->ones[a->nones].name = pd_xstrdup(name);
	a->ones[a->nones].el = el;
	a->ones[a->nones].step = step;
	a->ones[a->nones].has_step = has;
	a->nones++;
}

static void
reject(struct agg *a, const char *path, const char *where, const char *why)
{
	pd_warn(path, 0, "%s: %s; entry skipped", where, why);
	a->skipped++;
	pd_diag_status(PD_EXIT_INPUT);
}

/* "step50" -> 50; "step" -> none. */
static int
step_of(const char *key, int64_t *step)
{
	const char *p = key + 4;

	if (strncmp(key, "step", 4) != 0 || !*p)
		return 0;
	return pd_num_int(p, strlen(p), step) == PD_NUM_OK;
}

/* The link types of SDMA that leave the chip: the byte-alignment rule skips
 * ON_CHIP tasks, which communication.json does not break down by size. */
static int
is_offchip_sdma(const char *link)
{
	return strcmp(link, "HCCS") == 0 || strcmp(link, "PCIE") == 0 ||
	    strcmp(link, "SIO") == 0;
}

/* A link type's "Size Distribution": {"<MB per task>": [count, ms]}. */
static void
add_sizes(struct one *u, json_t *dist)
{
	const char *k;
	json_t *v;
	double mb, n, ms, bytes;

	json_object_foreach(dist, k, v) {
		if (pd_num_double(k, strlen(k), &mb) != PD_NUM_OK ||
		    !json_is_array(v) || json_array_size(v) < 2 ||
		    !json_is_number(json_array_get(v, 0)) ||
		    !json_is_number(json_array_get(v, 1)))
			continue;
		n = json_number_value(json_array_get(v, 0));
		ms = json_number_value(json_array_get(v, 1));
		bytes = floor(mb * 1e6 + 0.5);
		u->has_al = 1;
		if (bytes <= ALIGN_BYTES || n <= 0 || ms < 0)
			continue;
		u->al_bytes += bytes * n;
		u->al_ms += ms;
		if (fmod(bytes, ALIGN_BYTES) != 0)
			u->un_ms += ms;
	}
}

/* One op object {"Communication Time Info", "Communication Bandwidth Info"}. */
static void
add_op(struct agg *a, const char *path, const char *where, const char *name,
    json_t *op, int64_t step, int has_step)
{
	json_t *ti = json_object_get(op, "Communication Time Info");
	json_t *bi = json_object_get(op, "Communication Bandwidth Info"), *v;
	const char *k;
	char type[128];
	struct opt *o;
	double el, x, mb, ms, sdma = -1, rdma = 0, other = 0;

	if (!json_is_object(ti) || !num(ti, "Elapse Time(ms)", &el)) {
		reject(a, path, where, "no \"Communication Time Info\" with "
		    "\"Elapse Time(ms)\"");
		return;
	}
	op_type(name, type, sizeof type);
	o = opt_get(a, type);
	o->count++;
	o->el += el;
	if (num(ti, "Transit Time(ms)", &x))
		o->tr += x, o->has_tr = 1;
	if (num(ti, "Wait Time(ms)", &x))
		o->wa += x, o->has_wa = 1;
	if (num(ti, "Synchronization Time(ms)", &x))
		o->sy += x, o->has_sy = 1;
	if (num(ti, "Idle Time(ms)", &x) || num(ti, "Idel Time(ms)", &x))
		o->id += x, o->has_id = 1;
	one_add(a, name, el, step, has_step);
	json_object_foreach(bi, k, v) {
		if (is_offchip_sdma(k) && json_is_object(json_object_get(v,
		    "Size Distribution")))
			add_sizes(&a->ones[a->nones - 1],
			    json_object_get(v, "Size Distribution"));
		if (!num(v, "Transit Size(MB)", &mb))
			mb = 0;
		if (!num(v, "Transit Time(ms)", &ms))
			ms = 0;
		tp_add(a, k, mb, ms);
		if (strcmp(k, "SDMA") == 0)
			sdma = mb;
		else if (strcmp(k, "RDMA") == 0)
			rdma = mb;
		else if (strcmp(k, "LOCAL") != 0)
			other += mb;
	}
	if (json_object_size(bi)) {
		o->mb += rdma + (sdma >= 0 ? sdma : other);
		o->has_mb = 1;
	}
}

/* ---- walking the JSON summaries ---- */

/* A summary file is an object nested `leaf` levels deep; the leaves (one
 * operator, or one operator's links) are parsed with jansson, the levels
 * above are walked without building them (see pd_jscan). */
struct walk {
	const char *path;
	struct agg *a;		/* where rejected entries are counted */
	int leaf;		/* depth of the leaves */
	const char *keys[8];	/* the keys down to the current member */
	int depth;
	int totals_at;		/* depth of the matrix's size-bucket keys, or -1 */
	int totals;		/* the current container has "-total" keys */
	const char *skip_key;	/* a key at depth 2 that is not an entry */
	void (*on_leaf)(struct walk *w, const char *where, json_t *v);
	const char *cut_at;	/* where the text broke, deepest first */
	void *ctx;
};

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
static int
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
static void
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

static void
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
static void
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
static void
add_links(struct agg *a, const char *path, const char *where, json_t *op,
    const char *only_src, const char *group)
{
	json_t *lv, *gr = group && a->gmap ? json_object_get(a->gmap, group) :
	    NULL;
	const char *lk, *tp, *dash;
	char src[64], gs[32], gd[32];
	double mb, ms;

	json_object_foreach(op, lk, lv) {
		dash = strchr(lk, '-');
		tp = pd_rec_str(lv, "Transport Type");
		if (!dash || !tp || dash - lk >= (long)sizeof src) {
			reject(a, path, where, "link is not \"src-dst\" with "
			    "a \"Transport Type\"");
			continue;
		}
		snprintf(src, sizeof src, "%.*s", (int)(dash - lk), lk);
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
			lk_add(a, gs, gd, tp, NULL, mb, ms);
		} else
			lk_add(a, src, dash + 1, tp, group, mb, ms);
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
static void
read_matrix(struct agg *a, const char *path)
{
	struct walk w;

	add_source(a, "communication_matrix");
	walk_init(&w, a, path, 3, matrix_leaf);
	w.totals_at = 2;
	w.skip_key = "Total Op Info";
	walk_file(&w);
}

/* ---- the record ---- */

static double
us(double ms)
{
	return ms * 1e3;
}

static void
set_opt(json_t *o, const char *key, double ms, int ok)
{
	if (ok)
		pd_set_real(o, key, us(ms), 3);
	else
		pd_set_null(o, key);
}

static void
set_ratio(json_t *o, const char *key, double x, double tr, int ok)
{
	if (ok && x + tr > 0)
		pd_set_real(o, key, x / (x + tr), 4);
	else
		pd_set_null(o, key);
}

/* GB/s from MB and ms: MB/ms = 10^6 B / 10^-3 s = GB/s. */
static void
set_bw(json_t *o, const char *key, double mb, double ms)
{
	if (ms > 0)
		pd_set_real(o, key, mb / ms, 3);
	else
		pd_set_null(o, key);
}

static int
cmp_opt(const void *x, const void *y)
{
	const struct opt *a = x, *b = y;

	if (a->el != b->el)
		return a->el > b->el ? -1 : 1;
	return strcmp(a->type, b->type);
}

static int
cmp_tp(const void *x, const void *y)
{
	const struct tp *a = x, *b = y;

	if (a->mb != b->mb)
		return a->mb > b->mb ? -1 : 1;
	if (a->ms != b->ms)
		return a->ms > b->ms ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int
cmp_lk(const void *x, const void *y)
{
	const struct lk *a = x, *b = y;
	int c;

	if (a->mb != b->mb)
		return a->mb > b->mb ? -1 : 1;
	if ((c = strcmp(a->src, b->src)))
		return c;
	if ((c = strcmp(a->dst, b->dst)))
		return c;
	if ((c = strcmp(a->tp, b->tp)))
		return c;
	return strcmp(a->group ? a->group : "", b->group ? b->group : "");
}

static int
cmp_one(const void *x, const void *y)
{
	const struct one *a = x, *b = y;

	if (a->el != b->el)
		return a->el > b->el ? -1 : 1;
	if (a->has_step != b->has_step)
		return a->has_step ? -1 : 1;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	return strcmp(a->name, b->name);
}

static json_t *
ops_json(struct agg *a, double *tot)
{
	json_t *arr = json_array(), *o;
	struct opt *p;
	size_t i;

	memset(tot, 0, 6 * sizeof *tot);
	if (a->nops)
		qsort(a->ops, a->nops, sizeof *a->ops, cmp_opt);
	for (i = 0; i < a->nops; i++) {
		p = &a->ops[i];
		o = json_object();
		pd_set_str(o, "op_type", p->type);
		pd_set_int(o, "count", p->count);
		pd_set_real(o, "total_us", us(p->el), 3);
		set_opt(o, "transit_us", p->tr, p->has_tr);
		set_opt(o, "wait_us", p->wa, p->has_wa);
		set_opt(o, "sync_us", p->sy, p->has_sy);
		set_opt(o, "idle_us", p->id, p->has_id);
		set_ratio(o, "wait_ratio", p->wa, p->tr, p->has_wa && p->has_tr);
		set_ratio(o, "sync_ratio", p->sy, p->tr, p->has_sy && p->has_tr);
		if (p->has_mb) {
			pd_set_int(o, "bytes", (int64_t)(p->mb * 1e6 + 0.5));
			set_bw(o, "algbw_gb_per_s", p->mb, p->el);
		} else {
			pd_set_null(o, "bytes");
			pd_set_null(o, "algbw_gb_per_s");
		}
		json_array_append_new(arr, o);
		tot[0] += p->el;
		tot[1] += p->tr;
		tot[2] += p->wa;
		tot[3] += p->sy;
		tot[4] += p->has_tr && p->has_wa;
		tot[5] += p->has_wa;
	}
	return arr;
}

static json_t *
tps_json(struct agg *a)
{
	json_t *arr = json_array(), *o;
	struct tp *t;
	size_t i;

	if (a->ntps)
		qsort(a->tps, a->ntps, sizeof *a->tps, cmp_tp);
	for (i = 0; i < a->ntps; i++) {
		t = &a->tps[i];
		if (t->mb == 0 && t->ms == 0)
			continue;	/* listed in every file, unused */
		o = json_object();
		pd_set_str(o, "transport", t->name);
		pd_set_int(o, "bytes", (int64_t)(t->mb * 1e6 + 0.5));
		pd_set_real(o, "time_us", us(t->ms), 3);
		set_bw(o, "bandwidth_gb_per_s", t->mb, t->ms);
		if (t->nops)
			pd_set_real(o, "small_packet_ratio",
			    (double)t->nsmall / (double)t->nops, 4);
		else
			pd_set_null(o, "small_packet_ratio");
		pd_set_int(o, "ops", t->nops);
		json_array_append_new(arr, o);
	}
	return arr;
}

/* A rank number as an integer, anything else as the string. */
static void
set_rank(json_t *o, const char *key, const char *s)
{
	int64_t r;

	if (pd_num_int(s, strlen(s), &r) == PD_NUM_OK && !strchr(s, '.'))
		pd_set_int(o, key, r);
	else
		pd_set_str(o, key, s);
}

static json_t *
lks_json(struct agg *a)
{
	json_t *arr = json_array(), *o;
	struct lk *l;
	size_t i;

	if (a->nlks)
		qsort(a->lks, a->nlks, sizeof *a->lks, cmp_lk);
	for (i = 0; i < a->nlks; i++) {
		l = &a->lks[i];
		o = json_object();
		set_rank(o, "src", l->src);
		set_rank(o, "dst", l->dst);
		if (l->group)
			pd_set_str(o, "group", l->group);
		pd_set_str(o, "transport", l->tp);
		pd_set_int(o, "bytes", (int64_t)(l->mb * 1e6 + 0.5));
		pd_set_real(o, "time_us", us(l->ms), 3);
		set_bw(o, "bandwidth_gb_per_s", l->mb, l->ms);
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *
slowest_json(struct agg *a, int topn)
{
	json_t *arr = json_array(), *o;
	size_t i;

	if (a->nones)
		qsort(a->ones, a->nones, sizeof *a->ones, cmp_one);
	for (i = 0; i < a->nones && i < (size_t)topn; i++) {
		o = json_object();
		pd_set_str(o, "name", a->ones[i].name);
		pd_set_real(o, "elapse_us", us(a->ones[i].el), 3);
		if (a->ones[i].has_step)
			pd_set_int(o, "step", a->ones[i].step);
		else
			pd_set_null(o, "step");
		json_array_append_new(arr, o);
	}
	return arr;
}

static int
cmp_unaligned(const void *x, const void *y)
{
	const struct one *a = *(const struct one *const *)x;
	const struct one *b = *(const struct one *const *)y;

	if (a->un_ms != b->un_ms)
		return a->un_ms > b->un_ms ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The byte-alignment check over the ops with a Size Distribution, or null
 * when no op has one (Level0, legacy and cluster exports). */
static json_t *
alignment_json(struct agg *a, int topn)
{
	json_t *o, *arr;
	struct one **un;
	size_t i, n = 0;
	long checked = 0, any = 0;
	double ms = 0, un_ms = 0;

	un = pd_xcalloc(a->nones + 1, sizeof *un);
	for (i = 0; i < a->nones; i++) {
		struct one *u = &a->ones[i];

		any += u->has_al;
		if (u->al_ms <= 0 && u->al_bytes <= 0)
			continue;
		checked++;
		ms += u->al_ms;
		un_ms += u->un_ms;
		if (u->un_ms > 0)
			un[n++] = u;
	}
	if (!any) {
		free(un);
		return json_null();
	}
	if (n)
		qsort(un, n, sizeof *un, cmp_unaligned);
	o = json_object();
	pd_set_int(o, "checked_ops", checked);
	pd_set_int(o, "unaligned_ops", (int64_t)n);
	pd_set_real(o, "sdma_us", us(ms), 3);
	pd_set_real(o, "unaligned_us", us(un_ms), 3);
	if (ms > 0)
		pd_set_real(o, "unaligned_ratio", un_ms / ms, 4);
	else
		pd_set_null(o, "unaligned_ratio");
	arr = json_array();
	for (i = 0; i < n && i < (size_t)topn; i++) {
		json_t *e = json_object();

		pd_set_str(e, "name", un[i]->name);
		if (un[i]->has_step)
			pd_set_int(e, "step", un[i]->step);
		else
			pd_set_null(e, "step");
		pd_set_int(e, "bytes", (int64_t)un[i]->al_bytes);
		pd_set_real(e, "time_us", us(un[i]->al_ms), 4);
		pd_set_real(e, "unaligned_us", us(un[i]->un_ms), 4);
		if (un[i]->al_ms > 0)
			pd_set_real(e, "bandwidth_gb_per_s", un[i]->al_bytes /
			    1e6 / un[i]->al_ms, 4);
		else
			pd_set_null(e, "bandwidth_gb_per_s");
		json_array_append_new(arr, e);
	}
	pd_set(o, "ops", arr);
	free(un);
	return o;
}

static void
emit(json_t *root, struct agg *a, const struct pd_tool *t)
{
	json_t *rec = pd_rec_new("pd.comm", 1, root), *ops;
	double tot[6];

	if (a->has_rank)
		pd_set_int(rec, "rank", a->rank);
	pd_set_str(rec, "source", a->source);
	ops = ops_json(a, tot);
	if (a->nops)
		pd_set_real(rec, "total_us", us(tot[0]), 3);
	else if (a->has_raw)
		pd_set_real(rec, "total_us", us(a->raw_ms), 3);
	else
		pd_set_null(rec, "total_us");
	set_ratio(rec, "wait_ratio", tot[2], tot[1], tot[4] > 0);
	set_ratio(rec, "sync_ratio", tot[3], tot[1], tot[4] > 0);
	pd_set_null(rec, "small_ratio");	/* per transport here */
	pd_set(rec, "ops", ops);
	pd_set(rec, "transports", tps_json(a));
	pd_set(rec, "links", lks_json(a));
	pd_set(rec, "groups", a->groups ? json_incref(a->groups) : json_null());
	pd_set(rec, "alignment", alignment_json(a, t->topn));
	pd_set(rec, "slowest", slowest_json(a, t->topn));
	if (a->has_raw && !a->nops)
		pd_set_real(rec, "wait_us", us(a->raw_wait_ms), 3);
	else
		set_opt(rec, "wait_us", tot[2], tot[5] > 0);
	pd_set_int(rec, "op_count", (int64_t)a->nones);
	pd_set_int(rec, "skipped", a->skipped);
	pd_set_bool(rec, "truncated", a->truncated);
	pd_rec_emit(rec);
}

/* ---- cluster_analysis_output ---- */

struct cl {
	struct agg *v;
	size_t n;
};

static struct agg *
cl_get(struct cl *c, int64_t rank)
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
	struct cl *c = w->ctx;
	struct agg *a;
	int64_t step = 0, rank;
	int has = step_of(w->keys[1], &step);

	if (!rank_of(w->keys[3], &rank)) {
		reject(w->a, w->path, where, "not a rank number");
		return;
	}
	a = cl_get(c, rank);
	add_source(a, "cluster_communication");
	add_op(a, w->path, where, w->keys[2], v, step, has);
}

/* {group: {step: {op | "Total Op Info": {rank: op object}}}}; the leaves
 * are the per-rank op objects (depth 4). */
static void
read_cluster_comm(struct cl *c, struct agg *bad, const char *path)
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
	struct cl *c = w->ctx;
	const char *lk;
	char src[32];
	int64_t rank;
	json_t *lv, *one;
	struct agg *a;

	json_object_foreach(v, lk, lv) {
		snprintf(src, sizeof src, "%.*s", (int)strcspn(lk, "-"), lk);
		if (!strchr(lk, '-') || !rank_of(src, &rank)) {
			reject(w->a, w->path, where, "link is not \"src-dst\" "
			    "with rank numbers");
			continue;
		}
		a = cl_get(c, rank);
		add_source(a, "cluster_communication_matrix");
		one = json_object();
		json_object_set(one, lk, lv);
		add_links(a, w->path, where, one, src, NULL);
		json_decref(one);
	}
}

/* {group: {step: {op | "Total Op Info": {"src-dst": link}}}}: "Total Op
 * Info" sums the step's ops again and is left out. */
static void
read_cluster_matrix(struct cl *c, struct agg *bad, const char *path)
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

/* ---- analysis.db (torch_npu export_type=db) ---- */

/* A column's value as text ("0" for the REAL 0.0 a rank may be stored
 * as); "" for NULL. */
static const char *
db_text(sqlite3_stmt *st, int col, char *buf, size_t size)
{
	const unsigned char *t;

	if (col < 0 || sqlite3_column_type(st, col) == SQLITE_NULL)
		return "";
	if (sqlite3_column_type(st, col) == SQLITE_FLOAT) {
		double v = sqlite3_column_double(st, col);

		if (v == floor(v) && fabs(v) < 1e15) {
			snprintf(buf, size, "%lld", (long long)v);
			return buf;
		}
	}
	t = sqlite3_column_text(st, col);
	snprintf(buf, size, "%s", t ? (const char *)t : "");
	return buf;
}

static void
db_num(json_t *o, const char *key, sqlite3_stmt *st, int col)
{
	if (col >= 0 && sqlite3_column_type(st, col) != SQLITE_NULL)
		json_object_set_new(o, key,
		    json_real(sqlite3_column_double(st, col)));
}

/* CommAnalyzerTime: one row per operator (ms), as communication.json's
 * "Communication Time Info"; CommAnalyzerBandwidth: per operator and
 * transport (then per packet size), its "Communication Bandwidth Info". */
static void
db_ops(struct agg *a, const char *path, sqlite3 *db)
{
	/* the times, as communication.json names them */
	static const char *times[][2] = {
		{ "elapse_time", "Elapse Time(ms)" },
		{ "transit_time", "Transit Time(ms)" },
		{ "wait_time", "Wait Time(ms)" },
		{ "synchronization_time", "Synchronization Time(ms)" },
		{ "idle_time", "Idle Time(ms)" },
	};
	enum { NT = sizeof times / sizeof times[0] };
	sqlite3_stmt *t = NULL, *b = NULL;
	int cn, cg, cst, ct[NT], k, rc;
	long row = 0;
	char name[512], group[128], stp[64], where[96], full[700];

	if (sqlite3_prepare_v2(db, "SELECT * FROM CommAnalyzerTime ORDER BY "
	    "rowid", -1, &t, NULL) != SQLITE_OK) {
		pd_warn(path, 0, "CommAnalyzerTime: %s; skipped",
		    sqlite3_errmsg(db));
		pd_diag_status(PD_EXIT_INPUT);
		return;
	}
	if (pd_sqlite_has_table(db, "CommAnalyzerBandwidth"))
		sqlite3_prepare_v2(db, "SELECT transport_type, transit_size, "
		    "transit_time FROM CommAnalyzerBandwidth WHERE hccl_op_name "
		    "= ?1 AND group_name = ?2 AND step = ?3 ORDER BY rowid", -1,
		    &b, NULL);
	cn = pd_sqlite_col(t, "hccl_op_name");
	cg = pd_sqlite_col(t, "group_name");
	cst = pd_sqlite_col(t, "step");
	for (k = 0; k < NT; k++)
		ct[k] = pd_sqlite_col(t, times[k][0]);
	while ((rc = sqlite3_step(t)) == SQLITE_ROW) {
		json_t *op = json_object(), *ti = json_object(), *bi = json_object();
		int64_t step = 0;
		int has;

		row++;
		snprintf(where, sizeof where, "CommAnalyzerTime row %ld", row);
		db_text(t, cn, name, sizeof name);
		db_text(t, cg, group, sizeof group);
		db_text(t, cst, stp, sizeof stp);
		if (!strcmp(name, "Total Op Info")) {	/* the sum again */
			json_decref(op);
			json_decref(ti);
			json_decref(bi);
			continue;
		}
		has = step_of(stp, &step);
		for (k = 0; k < NT; k++)
			db_num(ti, times[k][1], t, ct[k]);
		json_object_set_new(op, "Communication Time Info", ti);
		if (b) {
			sqlite3_reset(b);
			sqlite3_bind_text(b, 1, name, -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(b, 2, group, -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(b, 3, stp, -1, SQLITE_TRANSIENT);
			while (sqlite3_step(b) == SQLITE_ROW) {
				char tp[64];
				json_t *e;

				db_text(b, 0, tp, sizeof tp);
				if (!*tp || json_object_get(bi, tp))
					continue;	/* one row per packet size */
				e = json_object();
				db_num(e, "Transit Size(MB)", b, 1);
				db_num(e, "Transit Time(ms)", b, 2);
				json_object_set_new(bi, tp, e);
			}
		}
		json_object_set_new(op, "Communication Bandwidth Info", bi);
		snprintf(full, sizeof full, "%s%s%s", name, *group ? "@" : "",
		    group);
		add_op(a, path, where, full, op, step, has);
		json_decref(op);
	}
	if (rc != SQLITE_DONE) {
		pd_warn(path, 0, "CommAnalyzerTime: %s; the rows before are "
		    "kept", sqlite3_errmsg(db));
		a->truncated = 1;
		pd_diag_status(PD_EXIT_INPUT);
	}
	sqlite3_finalize(b);
	sqlite3_finalize(t);
}

/* CommAnalyzerMatrix: links per size bucket of each group and step,
 * src and dst within the group, as communication_matrix.json; only the
 * "-total" rows when there are some. */
static void
db_links(struct agg *a, const char *path, sqlite3 *db)
{
	sqlite3_stmt *m = NULL;
	int totals, cn, cg, cs, cd, ct, cz, cm, rc;
	long row = 0;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM CommAnalyzerMatrix "
	    "WHERE hccl_op_name LIKE '%-total'", -1, &m, NULL) != SQLITE_OK)
		return;
	totals = sqlite3_step(m) == SQLITE_ROW && sqlite3_column_int(m, 0) > 0;
	sqlite3_finalize(m);
	if (sqlite3_prepare_v2(db, "SELECT * FROM CommAnalyzerMatrix ORDER BY "
	    "rowid", -1, &m, NULL) != SQLITE_OK)
		return;
	cn = pd_sqlite_col(m, "hccl_op_name");
	cg = pd_sqlite_col(m, "group_name");
	cs = pd_sqlite_col(m, "src_rank");
	cd = pd_sqlite_col(m, "dst_rank");
	ct = pd_sqlite_col(m, "transport_type");
	cz = pd_sqlite_col(m, "transit_size");
	cm = pd_sqlite_col(m, "transit_time");
	while ((rc = sqlite3_step(m)) == SQLITE_ROW) {
		char name[256], group[128], src[32], dst[32], tp[64];
		char key[80], where[96];
		json_t *one, *lv;

		row++;
		db_text(m, cn, name, sizeof name);
		if (!strcmp(name, "Total Op Info") ||
		    (totals && !is_total(name)))
			continue;
		db_text(m, cg, group, sizeof group);
		db_text(m, cs, src, sizeof src);
		db_text(m, cd, dst, sizeof dst);
		db_text(m, ct, tp, sizeof tp);
		snprintf(where, sizeof where, "CommAnalyzerMatrix row %ld", row);
		snprintf(key, sizeof key, "%s-%s", src, dst);
		lv = json_object();
		if (*tp)
			json_object_set_new(lv, "Transport Type", json_string(tp));
		db_num(lv, "Transit Size(MB)", m, cz);
		db_num(lv, "Transit Time(ms)", m, cm);
		one = json_object();
		json_object_set_new(one, key, lv);
		add_links(a, path, where, one, NULL, *group ? group : NULL);
		json_decref(one);
	}
	sqlite3_finalize(m);
}

static void
read_db(struct agg *a, const char *path)
{
	sqlite3 *db = pd_sqlite_open(path);

	if (!db)
		return;
	if (pd_sqlite_has_table(db, "CommAnalyzerTime")) {
		add_source(a, "analysis_db");
		db_ops(a, path, db);
		if (pd_sqlite_has_table(db, "CommAnalyzerMatrix"))
			db_links(a, path, db);
	}
	sqlite3_close(db);
}

/* communication_group.json (msprof-analyze), read once; NULL when it
 * cannot be read (said) or has no comm_group_parallel_info (an older file
 * without group names). */
static json_t *
load_groups(const char *path)
{
	json_error_t e;
	json_t *d = path ? json_load_file(path, 0, &e) : NULL, *info;

	if (path && !d) {
		pd_warn(path, e.line, "%s; its groups are not used", e.text);
		pd_diag_status(PD_EXIT_INPUT);
		return NULL;
	}
	info = json_object_get(d, "comm_group_parallel_info");
	if (!json_is_array(info)) {
		json_decref(d);
		return NULL;
	}
	json_incref(info);
	json_decref(d);
	return info;
}

/* One group for the map (group name -> global ranks) and, when rank is
 * one of its ranks (or rank < 0), for the record's groups; the first
 * source to name a group wins. */
static void
add_group(struct agg *a, const char *name, json_t *ranks, const char *kind,
    int64_t rank)
{
	json_t *r, *o;
	size_t j;
	int mine = rank < 0;

	if (!a->gmap) {
		a->gmap = json_object();
		a->groups = json_array();
	}
	if (json_object_get(a->gmap, name))
		return;
	json_object_set(a->gmap, name, ranks);
	json_array_foreach(ranks, j, r)
		mine = mine || json_integer_value(r) == rank;
	if (!mine)
		return;
	o = json_object();
	pd_set_str(o, "name", name);
	pd_set_str(o, "kind", group_kind(kind));
	pd_set(o, "ranks", json_incref(ranks));
	json_array_append_new(a->groups, o);
}

/* Whether v is a non-empty list of integer ranks. */
static int
rank_list(json_t *v)
{
	json_t *r;
	size_t j;

	if (!json_is_array(v) || !json_array_size(v))
		return 0;
	json_array_foreach(v, j, r)
		if (!json_is_integer(r))
			return 0;
	return 1;
}

/* From comm_group_parallel_info: each group's name (the hash in the op
 * names), global ranks and pg_name. */
static void
apply_groups(struct agg *a, json_t *info, int64_t rank)
{
	json_t *g;
	size_t i;

	json_array_foreach(info, i, g) {
		const char *name = pd_rec_str(g, "group_name");

		if (name && *name && rank_list(json_object_get(g, "rank_set")))
			add_group(a, name, json_object_get(g, "rank_set"),
			    pd_rec_str(g, "pg_name"), rank);
	}
}

/* The name torch_npu gives a group in the op names: two 32-bit
 * polynomial hashes of its key (factors 29 and 131), high and low word
 * (msprof-analyze; checked on msinsight_server_fixtures, where
 * communication_group.json pairs each group_id with its group_name). */
static uint64_t
group_hash(const char *key)
{
	uint32_t h1 = 0, h2 = 0;
	const unsigned char *p;

	for (p = (const unsigned char *)key; *p; p++) {
		h1 = h1 * 29u + *p;
		h2 = h2 * 131u + *p;
	}
	return (uint64_t)h1 << 32 | h2;
}

/* profiler_metadata.json's parallel_group_info: {key: {group_name,
 * group_rank, global_ranks}}, the groups of the rank that wrote it; the
 * op names carry the key's hash. */
static void
metadata_groups(struct agg *a, const char *path, int64_t rank)
{
	json_error_t e;
	json_t *d = json_load_file(path, 0, &e), *info, *v;
	const char *key;
	char name[32];

	if (!d) {
		pd_warn(path, e.line, "%s; its groups are not used", e.text);
		pd_diag_status(PD_EXIT_INPUT);
		return;
	}
	info = json_object_get(d, "parallel_group_info");
	json_object_foreach(info, key, v) {
		json_t *rs = json_object_get(v, "global_ranks");

		if (!rank_list(rs))
			continue;
		snprintf(name, sizeof name, "%llu",
		    (unsigned long long)group_hash(key));
		add_group(a, name, rs, pd_rec_str(v, "group_name"), rank);
	}
	json_decref(d);
}

static void
do_cluster(json_t *root, const struct pd_tool *t)
{
	struct cl c = { 0 };
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
		emit(root, &c.v[i], t);
		agg_free(&c.v[i]);
	}
	free(c.v);
	agg_free(&bad);
	json_decref(info);
}

/* ---- CANN PROF_ legacy timeline/hccl_*.json ---- */

struct ht {
	struct agg *a;
	char **pids;		/* HCCL processes */
	size_t npids;
	char **planes;		/* "pid/tid" of Plane {k} threads */
	size_t nplanes;
	int64_t step;
	int has_step;
};

static int
strv_has(char **v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

static void
strv_add(char ***v, size_t *n, const char *s)
{
	if (strv_has(*v, *n, s))
		return;
	*v = grow(*v, *n, sizeof **v);
	(*v)[(*n)++] = pd_xstrdup(s);
}

static void
strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int
ht_meta(const struct pd_ev *ev, void *ctx)
{
	struct ht *h = ctx;
	char buf[128], key[256];

	if (ev->ph != 'M' || !ev->pid ||
	    !pd_ev_arg_str(ev, "name", buf, sizeof buf))
		return 0;
	if (strcmp(ev->name, "process_name") == 0 &&
	    (strcmp(buf, "HCCL") == 0 || strcmp(buf, "Communication") == 0))
		strv_add(&h->pids, &h->npids, ev->pid);
	else if (strcmp(ev->name, "thread_name") == 0 && ev->tid &&
	    strncmp(buf, "Plane ", 6) == 0) {
		snprintf(key, sizeof key, "%s/%s", ev->pid, ev->tid);
		strv_add(&h->planes, &h->nplanes, key);
	}
	return 0;
}

/* link type of a task -> transport: ROCE is RDMA, ON_CHIP is LOCAL. */
static const char *
link_transport(const char *tt, const char *lt)
{
	if (strcmp(tt, "RDMA") == 0 || strcmp(lt, "ROCE") == 0)
		return "RDMA";
	if (strcmp(lt, "ON_CHIP") == 0 || strcmp(tt, "LOCAL") == 0)
		return "LOCAL";
	return lt;
}

static void
ht_task(struct ht *h, const struct pd_ev *ev)
{
	char tt[32], lt[32], src[32], dst[32];
	const char *tp;
	int64_t size;
	double ms = (double)ev->dur_ns / 1e6, mb;

	if (!pd_ev_arg_int(ev, "size(Byte)", &size) || size <= 0 ||
	    !pd_ev_arg_str(ev, "transport type", tt, sizeof tt) ||
	    !pd_ev_arg_str(ev, "link type", lt, sizeof lt) ||
	    !pd_ev_arg_str(ev, "src rank", src, sizeof src) ||
	    !pd_ev_arg_str(ev, "dst rank", dst, sizeof dst))
		return;
	if (strcmp(dst, "4294967295") == 0)	/* local copy */
		snprintf(dst, sizeof dst, "%s", src);
	mb = (double)size / 1e6;
	tp = link_transport(tt, lt);
	lk_add(h->a, src, dst, tp, NULL, mb, ms);
	if (strcmp(tp, "LOCAL") == 0)
		return;
	tp_add(h->a, tp, mb, ms);
	if (strcmp(tp, "RDMA") != 0)
		tp_add(h->a, "SDMA", mb, ms);
}

static int
ht_event(const struct pd_ev *ev, void *ctx)
{
	struct ht *h = ctx;
	char key[256], type[128];
	struct opt *o;

	if (ev->ph != 'X' || !ev->pid || !ev->has_dur ||
	    !strv_has(h->pids, h->npids, ev->pid))
		return 0;
	snprintf(key, sizeof key, "%s/%s", ev->pid, ev->tid ? ev->tid : "");
	if (strv_has(h->planes, h->nplanes, key)) {
		ht_task(h, ev);
		return 0;
	}
	op_type(ev->name, type, sizeof type);
	o = opt_get(h->a, type);
	o->count++;
	o->el += (double)ev->dur_ns / 1e6;
	one_add(h->a, ev->name, (double)ev->dur_ns / 1e6, h->step,
	    h->has_step);
	return 0;
}

/* hccl_{dev}_{model}_{iter}.json: the iteration is the last number. */
static int
iter_of(const char *path, int64_t *it)
{
	const char *e = strrchr(path, '.'), *b;

	if (!e)
		return 0;
	for (b = e; b > path && b[-1] >= '0' && b[-1] <= '9'; b--)
		;
	if (b == e || b == path || b[-1] != '_')
		return 0;
	return pd_num_int(b, (size_t)(e - b), it) == PD_NUM_OK;
}

static void
read_hccl_timeline(struct agg *a, const char *path)
{
	struct ht h = { 0 };
	struct pd_trace_cb cb = { 0 };
	struct pd_trace_stats st;
	int rc;

	h.a = a;
	h.has_step = iter_of(path, &h.step);
	cb.ctx = &h;
	cb.on_event = ht_meta;
	if (pd_trace_read(path, &cb, &st) < 0) {
		pd_error(path, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		return;
	}
	add_source(a, "hccl_timeline");
	cb.on_event = ht_event;
	rc = pd_trace_read(path, &cb, &st);
	if (rc == 1) {
		pd_warn(path, st.err_line, "%s; summary of the %llu events "
		    "before it", st.err, (unsigned long long)st.events);
		a->truncated = 1;
		pd_diag_status(PD_EXIT_INPUT);
	}
	if (st.skipped) {
		pd_warn(path, 0, "%llu events skipped (not objects or bad "
		    "ts/dur)", (unsigned long long)st.skipped);
		a->skipped += (long)st.skipped;
		pd_diag_status(PD_EXIT_INPUT);
	}
	strv_free(h.pids, h.npids);
	strv_free(h.planes, h.nplanes);
}

/* ---- MindSpore legacy hccl_raw_{dev}.csv ---- */

/* link_info: {"src-dst": {"SDMA": [time_ms, size, GB/s], ...}}. The size
 * unit is not documented; bytes are taken as bandwidth x time. */
static void
raw_links(struct agg *a, const char *path, long line, const char *text)
{
	json_t *j = json_loads(text, 0, NULL), *lv, *tv;
	const char *lk, *tk, *dash;
	char src[64], where[128];
	double ms, bw;

	snprintf(where, sizeof where, "line %ld: link_info", line);
	if (!json_is_object(j)) {
		reject(a, path, where, "not a JSON object");
		json_decref(j);
		return;
	}
	json_object_foreach(j, lk, lv) {
		dash = strchr(lk, '-');
		if (!dash || dash - lk >= (long)sizeof src || !json_is_object(lv)) {
			reject(a, path, where, "link is not \"src-dst\"");
			continue;
		}
		snprintf(src, sizeof src, "%.*s", (int)(dash - lk), lk);
		json_object_foreach(lv, tk, tv) {
			if (json_array_size(tv) < 3 ||
			    !json_is_number(json_array_get(tv, 0)) ||
			    !json_is_number(json_array_get(tv, 2))) {
				reject(a, path, where, "not [time, size, "
				    "bandwidth]");
				continue;
			}
			ms = json_number_value(json_array_get(tv, 0));
			bw = json_number_value(json_array_get(tv, 2));
			lk_add(a, src, dash + 1, tk, NULL, bw * ms, ms);
			if (strcmp(tk, "LOCAL") != 0)
				tp_add(a, tk, bw * ms, ms);
		}
	}
	json_decref(j);
}

static void
read_hccl_raw(struct agg *a, const char *path)
{
	static const char *need[] = { "step_num", "communication_cost",
	    "wait_cost" };
	struct pd_csv *c;
	int col[3], li, i, rc, bad;
	int64_t step;
	double v[3];
	char miss[128] = "";

	add_source(a, "hccl_raw");
	if (!(c = pd_csv_open(path))) {
		pd_error(path, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		return;
	}
	if ((rc = pd_csv_header(c)) <= 0) {
		if (rc == 0)
			pd_warn(path, 0, "no header row; file skipped");
		pd_csv_header_warn(c, rc);
		pd_diag_status(PD_EXIT_INPUT);
		goto out;
	}
	for (i = 0; i < 3; i++)
		if ((col[i] = pd_csv_col(c, need[i], NULL)) < 0)
			snprintf(miss + strlen(miss), sizeof miss - strlen(miss),
			    "%s'%s'", *miss ? ", " : "", need[i]);
	if (*miss) {
		pd_error(path, 1, "unknown header variant: missing column%s %s",
		    strchr(miss, ',') ? "s" : "", miss);
		pd_diag_status(PD_EXIT_INPUT);
		goto out;
	}
	li = pd_csv_col(c, "link_info", NULL);
	a->has_raw = 1;
	while ((rc = pd_csv_next(c)) > 0) {
		bad = pd_csv_int(c, col[0], &step) != PD_NUM_OK;
		for (i = 1; i < 3 && !bad; i++)
			bad = pd_csv_double(c, col[i], &v[i]) != PD_NUM_OK;
		if (bad) {
			pd_warn(path, pd_csv_line(c), "not a step with "
			    "communication and wait costs; row skipped");
			a->skipped++;
			pd_diag_status(PD_EXIT_INPUT);
			continue;
		}
		if (step == 0)
			continue;	/* the average row */
		a->raw_ms += v[1];
		a->raw_wait_ms += v[2];
		if (li >= 0 && *pd_csv_field(c, li))
			raw_links(a, path, pd_csv_line(c), pd_csv_field(c, li));
	}
	if (rc < 0) {
		pd_warn(path, pd_csv_line(c), "file ends inside a quoted "
		    "field; last row skipped");
		a->truncated = 1;
		a->skipped++;
		pd_diag_status(PD_EXIT_INPUT);
	}
out:
	pd_csv_close(c);
}

int
sum_comm_ascend(json_t *root, const struct pd_tool *t)
{
	struct agg a;
	const char *p;
	json_t *info;
	size_t i;

	if (pd_root_export(root, "cluster_communication", 0) ||
	    pd_root_export(root, "cluster_communication_matrix", 0)) {
		do_cluster(root, t);
		return 0;
	}
	memset(&a, 0, sizeof a);
	info = load_groups(pd_root_export(root, "communication_group", 0));
	apply_groups(&a, info, pd_rec_int(root, "rank", -1));
	json_decref(info);
	if ((p = pd_root_export(root, "profiler_metadata", 0)))
		metadata_groups(&a, p, pd_rec_int(root, "rank", -1));
	for (i = 0; (p = pd_root_export(root, "communication", i)); i++)
		read_comm(&a, p);
	for (i = 0; (p = pd_root_export(root, "communication_matrix", i)); i++)
		read_matrix(&a, p);
	if (!*a.source && (p = pd_root_export(root, "analysis_db", 0)))
		read_db(&a, p);
	if (!*a.source)
		for (i = 0; (p = pd_root_export(root, "hccl_raw", i)); i++)
			read_hccl_raw(&a, p);
	if (!*a.source)
		for (i = 0; (p = pd_root_export(root, "hccl_timeline", i)); i++)
			read_hccl_timeline(&a, p);
	if (*a.source || a.truncated)
		emit(root, &a, t);
	agg_free(&a);
	return 0;
}
