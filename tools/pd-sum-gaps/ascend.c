/* pd-sum-gaps for ascend roots: the trace_view.json export (torch_npu,
 * MindSpore 2.x, msprof).
 *
 * Reads: trace_view.json, streamed. Lanes are named by process_name
 * metadata, never by pid: "Ascend Hardware" (device tasks, one thread per
 * stream), "CANN" (host launch calls; args.connection_id links a call to
 * the device tasks it started), "Overlap Analysis" (its "Free" events),
 * "Python" (ProfilerStep#N). When a lane's process_name comes after some
 * of its events, the file is read a second time with all names known.
 * Without trace_view.json, the same lanes from the torch_npu db export
 * (ascend_pytorch_profiler_{rank}.db, export_type=db): TASK, CANN_API,
 * STEP_TIME and OVERLAP_ANALYSIS.
 * Writes: one pd.gaps record with the core keys, plus free_us,
 * node_launch, sync_after_launch, sync_after_launch_ratio. */
#include "sum_gaps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gapcore.h"
#include "pd_diag.h"
#include "pd_kineto.h"
#include "pd_locate.h"
#include "pd_patterns.h"
#include "pd_rec.h"
#include "pd_sqlite.h"
#include "pd_trace.h"

enum { L_OTHER, L_HW, L_CANN, L_OVERLAP, L_HCCL, L_UNKNOWN };

struct lane {
	int64_t pid;
	int kind;
	int seen_before_name;	/* events came before its process_name */
};

struct seqev {
	int64_t ts;
	int sync;		/* 0 Node@launch, 1 stream synchronize */
};

struct asc {
	struct gaps g;
	struct lane *l;
	size_t nl, capl;
	struct seqev *q;
	size_t nq, capq;
	const struct pd_patterns *comm;
	int64_t free_ns, nfree;
	uint64_t missing;
	const char *path;
	int late;		/* a lane we use was named after its events */
	int dbtrunc;		/* the db export: a query stopped early */
	int64_t rows;		/* and the rows read */
};

static int64_t
pid_key(const struct pd_ev *ev)
{
	const unsigned char *s;
	uint64_t h = 1469598103934665603ULL;

	if (ev->pid_is_num)
		return ev->pid_num;
	for (s = (const unsigned char *)(ev->pid ? ev->pid : ""); *s; s++)
		h = (h ^ *s) * 1099511628211ULL;
	return (int64_t)(h | 1ULL << 63);
}

static struct lane *
lane_of(struct asc *a, int64_t pid)
{
	size_t i;

	for (i = 0; i < a->nl; i++)
		if (a->l[i].pid == pid)
			return &a->l[i];
	if (a->nl == a->capl) {
		a->capl = a->capl ? a->capl * 2 : 16;
		a->l = pd_xrealloc(a->l, a->capl * sizeof *a->l);
	}
	memset(&a->l[a->nl], 0, sizeof a->l[a->nl]);
	a->l[a->nl].pid = pid;
	a->l[a->nl].kind = L_UNKNOWN;
	return &a->l[a->nl++];
}

static void
on_name(struct asc *a, const struct pd_ev *ev)
{
	char name[64];
	struct lane *l = lane_of(a, pid_key(ev));
	int kind = L_OTHER;

	if (l->kind != L_UNKNOWN || !pd_ev_arg_str(ev, "name", name, sizeof name))
		return;
	if (strcmp(name, "Ascend Hardware") == 0)
		kind = L_HW;
	else if (strcmp(name, "CANN") == 0)
		kind = L_CANN;
	else if (strcmp(name, "Overlap Analysis") == 0)
		kind = L_OVERLAP;
	else if (strcmp(name, "HCCL") == 0)
		kind = L_HCCL;
	l->kind = kind;
	if (l->seen_before_name && kind != L_OTHER)
		a->late = 1;
}

static void
seq_push(struct asc *a, int64_t ts, int sync)
{
	if (a->nq == a->capq) {
		a->capq = a->capq ? a->capq * 2 : 256;
		a->q = pd_xrealloc(a->q, a->capq * sizeof *a->q);
	}
	a->q[a->nq].ts = ts;
	a->q[a->nq++].sync = sync;
}

static void
on_cann(struct asc *a, const struct pd_ev *ev)
{
	int64_t id;

	if (pd_ev_arg_int(ev, "connection_id", &id))
		gaps_launch(&a->g, id, ev->ts_ns, ev->dur_ns, 1);
	if (strcmp(ev->name, "Node@launch") == 0)
		seq_push(a, ev->ts_ns, 0);
	else if (strncmp(ev->name, "AscendCL@aclrtSynchronizeStream", 31) == 0)
		seq_push(a, ev->ts_ns, 1);
	if (strncmp(ev->name, "AscendCL@aclrtSynchronize", 25) == 0)
		gaps_sync(&a->g, ev->ts_ns, ev->dur_ns);
}

/* A device task's flags: a communication task by the patterns; EVENT_WAIT
 * (the stream waits for an event recorded on another) only waits. */
static int
task_flags(const struct asc *a, const char *name)
{
	if (strcmp(name, "EVENT_WAIT") == 0)
		return GAP_ACT_WAIT;
	return pd_patterns_match(a->comm, name) ? GAP_ACT_COMM : 0;
}

static int
on_event(const struct pd_ev *ev, void *ctx)
{
	struct asc *a = ctx;
	struct lane *l;
	int64_t id = 0;
	int has_id;

	if (ev->ph == 'M') {
		if (strcmp(ev->name, "process_name") == 0)
			on_name(a, ev);
		return 0;
	}
	if (ev->ph != 'X')
		return 0;
	if (!ev->has_ts || !ev->has_dur) {
		pd_kineto_bad_event(a->path, ev, "no ts or dur", &a->missing);
		return 0;
	}
	if (strncmp(ev->name, "ProfilerStep#", 13) == 0) {
		gaps_step(&a->g, ev->ts_ns, ev->dur_ns,
		    pd_kineto_step_num(ev->name));
		return 0;
	}
	l = lane_of(a, pid_key(ev));
	switch (l->kind) {
	case L_UNKNOWN:
		l->seen_before_name = 1;
		/* FALLTHROUGH */
	case L_OTHER:
		/* the Python lane: the strip's data loading and host operators */
		if (pd_kineto_is_dataloader(ev->name))
			gaps_host(&a->g, GAP_HOST_INPUT, ev->ts_ns, ev->dur_ns);
		else if (strcmp(ev->cat, "cpu_op") == 0)
			gaps_host(&a->g, GAP_HOST_OPS, ev->ts_ns, ev->dur_ns);
		break;
	case L_HW:
		has_id = pd_ev_arg_int(ev, "connection_id", &id);
		gaps_activity(&a->g, 0, 0, ev->tid_is_num ? ev->tid_num : -1,
		    ev->ts_ns, ev->dur_ns, has_id, id, task_flags(a,
		    ev->name));
		break;
	case L_HCCL:
		/* the operations ("hcom_allReduce__..."), not their tasks on
		 * the Plane threads */
		if (strncmp(ev->name, "hcom_", 5) == 0)
			gaps_host(&a->g, GAP_HOST_COMM, ev->ts_ns, ev->dur_ns);
		else if (pd_ev_arg_int(ev, "stream id", &id))
			gaps_comm_stream(&a->g, id);
		break;
	case L_CANN:
		on_cann(a, ev);
		break;
	case L_OVERLAP:
		if (strcmp(ev->name, "Free") == 0) {
			a->free_ns += ev->dur_ns;
			a->nfree++;
		}
		break;
	}
	return 0;
}

static int
cmp_seq(const void *x, const void *y)
{
	const struct seqev *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->sync - b->sync;
}

/* msprof-analyze's "Synchronize Stream" check: in time order over
 * Node@launch and aclrtSynchronizeStream* calls, the syncs whose previous
 * call was a Node@launch, over the number of Node@launch. */
static void
seq_fill(struct asc *a, json_t *rec, int have_cann)
{
	int64_t nl = 0, after = 0;
	size_t i;

	if (a->nq)
		qsort(a->q, a->nq, sizeof *a->q, cmp_seq);
	for (i = 0; i < a->nq; i++) {
		if (!a->q[i].sync)
			nl++;
		else if (i > 0 && !a->q[i - 1].sync)
			after++;
	}
	if (!have_cann) {
		pd_set_null(rec, "node_launch");
		pd_set_null(rec, "sync_after_launch");
		pd_set_null(rec, "sync_after_launch_ratio");
		return;
	}
	pd_set_int(rec, "node_launch", nl);
	pd_set_int(rec, "sync_after_launch", after);
	if (nl)
		pd_set_real(rec, "sync_after_launch_ratio",
		    (double)after / (double)nl, 4);
	else
		pd_set_null(rec, "sync_after_launch_ratio");
}

static void
asc_reset(struct asc *a, int keep_lanes)
{
	size_t i;

	gaps_free(&a->g);
	gaps_init(&a->g);
	a->g.no_pageable = 1;
	a->g.no_launch = 1;
	a->nq = 0;
	a->free_ns = a->nfree = 0;
	a->missing = 0;
	a->late = 0;
	a->dbtrunc = 0;
	a->rows = 0;
	if (!keep_lanes)
		a->nl = 0;
	for (i = 0; i < a->nl; i++)
		a->l[i].seen_before_name = 0;
}

static int
has_lane(struct asc *a, int kind)
{
	size_t i;

	for (i = 0; i < a->nl; i++)
		if (a->l[i].kind == kind)
			return 1;
	return 0;
}

/* ---- the db export (torch_npu export_type=db) ----
 * TASK: every device task (the Ascend Hardware lane: stream streamId,
 * connectionId the link to the host call); CANN_API: the CANN lane (name
 * from STRING_IDS, level from ENUM_API_TYPE: node "launch" is
 * Node@launch); STEP_TIME: the ProfilerStep# windows; OVERLAP_ANALYSIS
 * type 3: the Free events of the Overlap Analysis lane. */

/* Run sql; row() per row with a valid span at column 0 and 1; rows
 * without one are counted and said once. -1 when the table is missing,
 * else the rows read. */
static long
db_rows(struct asc *a, sqlite3 *db, const char *table, const char *sql,
    void (*row)(struct asc *, sqlite3_stmt *, int64_t, int64_t))
{
	sqlite3_stmt *st = NULL;
	int64_t ts, dur;
	long n = 0, bad = 0;
	int rc;

	if (!pd_sqlite_has_table(db, table))
		return -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		pd_warn(a->path, 0, "%s: %s; skipped", table,
		    sqlite3_errmsg(db));
		pd_diag_status(PD_EXIT_INPUT);
		sqlite3_finalize(st);
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!pd_sqlite_span(st, 0, &ts, &dur)) {
			bad++;
			continue;
		}
		row(a, st, ts, dur);
		n++;
		a->rows++;
	}
	if (rc != SQLITE_DONE) {
		pd_warn(a->path, 0, "%s: %s; the rows before are kept", table,
		    sqlite3_errmsg(db));
		pd_diag_status(PD_EXIT_INPUT);
		a->dbtrunc = 1;
	}
	sqlite3_finalize(st);
	if (bad) {
		pd_warn(a->path, 0, "%s: %ld rows with no start or end, or an "
		    "end before the start skipped", table, bad);
		pd_diag_status(PD_EXIT_INPUT);
		a->missing += (uint64_t)bad;
	}
	return n;
}

static void
db_task(struct asc *a, sqlite3_stmt *st, int64_t ts, int64_t dur)
{
	int64_t stream, id;
	int has_id = pd_sqlite_i64(st, 3, &id);
	const char *type = (const char *)sqlite3_column_text(st, 4);

	if (!pd_sqlite_i64(st, 2, &stream))
		stream = -1;
	gaps_activity(&a->g, 0, 0, stream, ts, dur, has_id, id, (type ?
	    task_flags(a, type) : 0) | (sqlite3_column_int(st, 5) ?
	    GAP_ACT_COMM : 0));
}

static void
db_comm(struct asc *a, sqlite3_stmt *st, int64_t ts, int64_t dur)
{
	(void)st;
	gaps_host(&a->g, GAP_HOST_COMM, ts, dur);
}

static void
db_cann(struct asc *a, sqlite3_stmt *st, int64_t ts, int64_t dur)
{
	const char *name = (const char *)sqlite3_column_text(st, 2);
	const char *level = (const char *)sqlite3_column_text(st, 3);
	int64_t id;

	if (pd_sqlite_i64(st, 4, &id))
		gaps_launch(&a->g, id, ts, dur, 1);
	if (!name)
		return;
	if (strcmp(name, "launch") == 0 && level && strcmp(level, "node") == 0)
		seq_push(a, ts, 0);
	else if (strncmp(name, "aclrtSynchronizeStream", 22) == 0)
		seq_push(a, ts, 1);
	if (strncmp(name, "aclrtSynchronize", 16) == 0)
		gaps_sync(&a->g, ts, dur);
}

static void
db_step(struct asc *a, sqlite3_stmt *st, int64_t ts, int64_t dur)
{
	gaps_step(&a->g, ts, dur, sqlite3_column_type(st, 2) == SQLITE_INTEGER ?
	    sqlite3_column_int64(st, 2) : -1);
}

static void
db_free(struct asc *a, sqlite3_stmt *st, int64_t ts, int64_t dur)
{
	(void)st;
	(void)ts;
	a->free_ns += dur;
	a->nfree++;
}

/* pd.gaps from ascend_pytorch_profiler_{rank}.db; 0 when it has no TASK
 * table (said). */
static int
sum_gaps_db(json_t *root, const char *path, const struct pd_tool *t)
{
	struct asc a;
	sqlite3 *db;
	json_t *rec;
	long cann, ov;
	int en;

	memset(&a, 0, sizeof a);
	a.path = path;
	asc_reset(&a, 0);
	if (!(db = pd_sqlite_open(path))) {
		gaps_free(&a.g);
		return 0;
	}
	if (db_rows(&a, db, "TASK", pd_sqlite_has_table(db, "STRING_IDS") ?
	    (pd_sqlite_has_table(db, "COMMUNICATION_TASK_INFO") ?
	    "SELECT t.startNs, t.endNs, t.streamId, t.connectionId, s.value, "
	    "EXISTS (SELECT 1 FROM COMMUNICATION_TASK_INFO c WHERE "
	    "c.globalTaskId = t.globalTaskId) FROM TASK t LEFT JOIN STRING_IDS "
	    "s ON s.id = t.taskType ORDER BY t.startNs, t.rowid" :
	    "SELECT t.startNs, t.endNs, t.streamId, t.connectionId, s.value, 0 "
	    "FROM TASK t LEFT JOIN STRING_IDS s ON s.id = t.taskType ORDER BY "
	    "t.startNs, t.rowid") : "SELECT startNs, endNs, streamId, "
	    "connectionId, NULL, 0 FROM TASK ORDER BY startNs, rowid",
	    db_task) < 0) {
		pd_warn(path, 0, "no TASK table: no device timeline in this db");
		pd_diag_status(PD_EXIT_INPUT);
		sqlite3_close(db);
		gaps_free(&a.g);
		return 0;
	}
	en = pd_sqlite_has_table(db, "ENUM_API_TYPE");
	cann = pd_sqlite_has_table(db, "STRING_IDS") ? db_rows(&a, db,
	    "CANN_API", en ? "SELECT a.startNs, a.endNs, s.value, e.name, "
	    "a.connectionId FROM CANN_API a LEFT JOIN STRING_IDS s ON s.id = "
	    "a.name LEFT JOIN ENUM_API_TYPE e ON e.id = a.type ORDER BY "
	    "a.startNs, a.rowid" : "SELECT a.startNs, a.endNs, s.value, NULL, "
	    "a.connectionId FROM CANN_API a LEFT JOIN STRING_IDS s ON s.id = "
	    "a.name ORDER BY a.startNs, a.rowid", db_cann) : -1;
	db_rows(&a, db, "STEP_TIME", "SELECT startNs, endNs, id FROM STEP_TIME "
	    "ORDER BY startNs, rowid", db_step);
	ov = db_rows(&a, db, "OVERLAP_ANALYSIS", "SELECT startNs, endNs FROM "
	    "OVERLAP_ANALYSIS WHERE type = 3 ORDER BY startNs, rowid",
	    db_free);
	db_rows(&a, db, "COMMUNICATION_OP", "SELECT startNs, endNs FROM "
	    "COMMUNICATION_OP ORDER BY startNs, rowid", db_comm);
	sqlite3_close(db);
	rec = pd_rec_new("pd.gaps", 1, root);
	pd_set_str(rec, "source", "ascend_pytorch_profiler_db");
	if (gaps_fill(&a.g, rec, t->topn) < 0) {
		sum_gaps_ioerr(path, &a.g);
		json_decref(rec);
		gaps_free(&a.g);
		free(a.l);
		free(a.q);
		return PD_EXIT_SYSTEM;
	}
	pd_set_int(rec, "events", a.rows);	/* table rows read */
	pd_set_int(rec, "skipped_events", (int64_t)a.missing);
	pd_set_bool(rec, "truncated", a.dbtrunc);
	if (ov >= 0)
		pd_set_real(rec, "free_us", (double)a.free_ns / 1000.0, 3);
	else
		pd_set_null(rec, "free_us");
	seq_fill(&a, rec, cann >= 0);
	pd_rec_emit(rec);
	gaps_free(&a.g);
	free(a.l);
	free(a.q);
	return a.missing || a.dbtrunc ? PD_EXIT_INPUT : 0;
}

int
sum_gaps_ascend(json_t *root, const struct pd_tool *t)
{
	struct pd_trace_cb cb = { NULL, on_event, NULL, NULL, NULL };
	struct pd_kineto_info info;
	struct pd_trace_stats st;
	struct asc a;
	json_t *rec;
	uint64_t missing;
	int rc;

	memset(&a, 0, sizeof a);
	if (!(a.comm = pd_patterns_comm(t->patterns)))
		return PD_EXIT_CONFIG;
	if (!(a.path = pd_root_export(root, "trace_view", 0)))
		return (a.path = pd_root_export(root,
		    "ascend_pytorch_profiler_db", 0)) ?
		    sum_gaps_db(root, a.path, t) : 0;
	asc_reset(&a, 0);
	cb.ctx = &a;
	/* warnings and exit status come from this first reading */
	rc = pd_kineto_read(NULL, a.path, &cb, &info, &st);
	pd_kineto_info_free(&info);
	missing = a.missing;
	if (rc >= 0 && a.late) {
		asc_reset(&a, 1);
		a.missing = missing;	/* counted (and warned) once */
		rc = pd_trace_read(a.path, &cb, &st);
	}
	if (rc < 0) {
		gaps_free(&a.g);
		free(a.l);
		free(a.q);
		return PD_EXIT_SYSTEM;
	}
	rec = pd_rec_new("pd.gaps", 1, root);
	pd_set_str(rec, "source", "trace_view");
	if (gaps_fill(&a.g, rec, t->topn) < 0) {
		sum_gaps_ioerr(a.path, &a.g);
		json_decref(rec);
		gaps_free(&a.g);
		free(a.l);
		free(a.q);
		return PD_EXIT_SYSTEM;
	}
	sum_gaps_read_keys(rc, &st, rec, missing);
	if (has_lane(&a, L_OVERLAP))
		pd_set_real(rec, "free_us", (double)a.free_ns / 1000.0, 3);
	else
		pd_set_null(rec, "free_us");
	seq_fill(&a, rec, has_lane(&a, L_CANN));
	pd_rec_emit(rec);
	gaps_free(&a.g);
	free(a.l);
	free(a.q);
	return rc == 1 || missing || st.skipped ? PD_EXIT_INPUT : 0;
}
