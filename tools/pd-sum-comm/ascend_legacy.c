/* pd-sum-comm for Ascend roots: the legacy dumps, CANN PROF_
 * timeline/hccl_*.json (op lane and Plane task lanes) and MindSpore
 * hccl_raw_{dev}.csv (per-step costs, link_info). */
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

/* ---- CANN PROF_ legacy timeline/hccl_*.json ---- */

struct hccl_timeline {
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
hccl_timeline_meta(const struct pd_ev *ev, void *ctx)
{
	struct hccl_timeline *h = ctx;
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
hccl_timeline_task(struct hccl_timeline *h, const struct pd_ev *ev)
{
	char tt[32], lt[32], src[32], dst[32];
	const char *transport;
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
	transport = link_transport(tt, lt);
	link_add(h->a, src, dst, transport, NULL, mb, ms);
	if (strcmp(transport, "LOCAL") == 0)
		return;
	transport_add(h->a, transport, mb, ms);
	if (strcmp(transport, "RDMA") != 0)
		transport_add(h->a, "SDMA", mb, ms);
}

static int
hccl_timeline_event(const struct pd_ev *ev, void *ctx)
{
	struct hccl_timeline *h = ctx;
	char key[256], type[128];
	struct op_type_sum *o;

	if (ev->ph != 'X' || !ev->pid || !ev->has_dur ||
	    !strv_has(h->pids, h->npids, ev->pid))
		return 0;
	snprintf(key, sizeof key, "%s/%s", ev->pid, ev->tid ? ev->tid : "");
	if (strv_has(h->planes, h->nplanes, key)) {
		hccl_timeline_task(h, ev);
		return 0;
	}
	op_type(ev->name, type, sizeof type);
	o = op_type_get(h->a, type);
	o->count++;
	o->el += (double)ev->dur_ns / 1e6;
	op_call_add(h->a, ev->name, (double)ev->dur_ns / 1e6, h->step,
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

void
read_hccl_timeline(struct agg *a, const char *path)
{
	struct hccl_timeline h = { 0 };
	struct pd_trace_cb cb = { 0 };
	struct pd_trace_stats st;
	int rc;

	h.a = a;
	h.has_step = iter_of(path, &h.step);
	cb.ctx = &h;
	cb.on_event = hccl_timeline_meta;
	if (pd_trace_read(path, &cb, &st) < 0) {
		pd_error(path, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		return;
	}
	add_source(a, "hccl_timeline");
	cb.on_event = hccl_timeline_event;
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
	const char *pair, *tk, *dash;
	char src[64], where[128];
	double ms, bw;

	snprintf(where, sizeof where, "line %ld: link_info", line);
	if (!json_is_object(j)) {
		reject(a, path, where, "not a JSON object");
		json_decref(j);
		return;
	}
	json_object_foreach(j, pair, lv) {
		dash = strchr(pair, '-');
		if (!dash || dash - pair >= (long)sizeof src ||
		    !json_is_object(lv)) {
			reject(a, path, where, "link is not \"src-dst\"");
			continue;
		}
		snprintf(src, sizeof src, "%.*s", (int)(dash - pair), pair);
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
			link_add(a, src, dash + 1, tk, NULL, bw * ms, ms);
			if (strcmp(tk, "LOCAL") != 0)
				transport_add(a, tk, bw * ms, ms);
		}
	}
	json_decref(j);
}

void
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
