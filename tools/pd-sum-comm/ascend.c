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
 * and _bytes.
 *
 * Here: a rank's sums, and the order of the sources. One file per source:
 * ascend_json.c (communication.json, communication_matrix.json),
 * ascend_cluster.c (cluster_analysis_output), ascend_db.c (analysis.db),
 * ascend_legacy.c (hccl_*.json, hccl_raw_{dev}.csv); the process groups:
 * ascend_groups.c; the record: ascend_record.c. */
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

void *
grow(void *p, size_t n, size_t size)
{
	p = realloc(p, (n + 1) * size);
	if (!p)
		pd_oom();
	memset((char *)p + n * size, 0, size);
	return p;
}

void
agg_free(struct agg *a)
{
	size_t i;

	for (i = 0; i < a->nops; i++)
		free(a->ops[i].type);
	for (i = 0; i < a->ntransports; i++)
		free(a->transports[i].name);
	for (i = 0; i < a->nlinks; i++) {
		free(a->links[i].src);
		free(a->links[i].dst);
		free(a->links[i].transport);
		free(a->links[i].group);
	}
	json_decref(a->gmap);
	json_decref(a->groups);
	for (i = 0; i < a->ncalls; i++)
		free(a->calls[i].name);
	free(a->ops);
	free(a->transports);
	free(a->links);
	free(a->calls);
}

void
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
void
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

int
num(json_t *o, const char *key, double *v)
{
	json_t *x = json_object_get(o, key);

	if (!json_is_number(x))
		return 0;
	*v = json_number_value(x);
	return 1;
}

struct op_type_sum *
op_type_get(struct agg *a, const char *type)
{
	size_t i;

	for (i = 0; i < a->nops; i++)
		if (strcmp(a->ops[i].type, type) == 0)
			return &a->ops[i];
	a->ops = grow(a->ops, a->nops, sizeof *a->ops);
	a->ops[a->nops].type = pd_xstrdup(type);
	return &a->ops[a->nops++];
}

static struct transport *
transport_get(struct agg *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->ntransports; i++)
		if (strcmp(a->transports[i].name, name) == 0)
			return &a->transports[i];
	a->transports = grow(a->transports, a->ntransports,
	    sizeof *a->transports);
	a->transports[a->ntransports].name = pd_xstrdup(name);
	return &a->transports[a->ntransports++];
}

void
transport_add(struct agg *a, const char *name, double mb, double ms)
{
	struct transport *t = transport_get(a, name);
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

void
link_add(struct agg *a, const char *src, const char *dst, const char *transport,
    const char *group, double mb, double ms)
{
	size_t i;
	struct link *l = NULL;

	for (i = 0; i < a->nlinks; i++) {
		l = &a->links[i];
		if (strcmp(l->src, src) == 0 && strcmp(l->dst, dst) == 0 &&
		    strcmp(l->transport, transport) == 0 &&
		    !l->group == !group &&
		    (!group || strcmp(l->group, group) == 0))
			break;
	}
	if (i == a->nlinks) {
		a->links = grow(a->links, a->nlinks, sizeof *a->links);
		l = &a->links[a->nlinks++];
		l->src = pd_xstrdup(src);
		l->dst = pd_xstrdup(dst);
		l->transport = pd_xstrdup(transport);
		l->group = group ? pd_xstrdup(group) : NULL;
	}
	l->mb += mb;
	l->ms += ms;
}

void
op_call_add(struct agg *a, const char *name, double el, int64_t step, int has)
{
	a->calls = grow(a->calls, a->ncalls, sizeof *a->calls);
	a->calls[a->ncalls].name = pd_xstrdup(name);
	a->calls[a->ncalls].el = el;
	a->calls[a->ncalls].step = step;
	a->calls[a->ncalls].has_step = has;
	a->ncalls++;
}

void
reject(struct agg *a, const char *path, const char *where, const char *why)
{
	pd_warn(path, 0, "%s: %s; entry skipped", where, why);
	a->skipped++;
	pd_diag_status(PD_EXIT_INPUT);
}

/* "step50" -> 50; "step" -> none. */
int
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
add_sizes(struct op_call *u, json_t *dist)
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
void
add_op(struct agg *a, const char *path, const char *where, const char *name,
    json_t *op, int64_t step, int has_step)
{
	json_t *ti = json_object_get(op, "Communication Time Info");
	json_t *bi = json_object_get(op, "Communication Bandwidth Info"), *v;
	const char *k;
	char type[128];
	struct op_type_sum *o;
	double el, x, mb, ms, sdma = -1, rdma = 0, other = 0;

	if (!json_is_object(ti) || !num(ti, "Elapse Time(ms)", &el)) {
		reject(a, path, where, "no \"Communication Time Info\" with "
		    "\"Elapse Time(ms)\"");
		return;
	}
	op_type(name, type, sizeof type);
	o = op_type_get(a, type);
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
	op_call_add(a, name, el, step, has_step);
	json_object_foreach(bi, k, v) {
		if (is_offchip_sdma(k) && json_is_object(json_object_get(v,
		    "Size Distribution")))
			add_sizes(&a->calls[a->ncalls - 1],
			    json_object_get(v, "Size Distribution"));
		if (!num(v, "Transit Size(MB)", &mb))
			mb = 0;
		if (!num(v, "Transit Time(ms)", &ms))
			ms = 0;
		transport_add(a, k, mb, ms);
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
		emit_rank(root, &a, t);
	agg_free(&a);
	return 0;
}
